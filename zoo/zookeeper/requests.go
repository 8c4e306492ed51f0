package zookeeper

import (
	"fmt"
	"slices"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// handle answers one request of a connected client (FinalRequestProcessor):
// the session is touched by every packet, pings included; a connection
// whose session expired or moved elsewhere is closed. It reports whether
// the connection goes on. Callers hold mu.
func (s *server) handle(zc *conn, pkt []byte) bool {
	ss := s.sessions[zc.session]
	if ss == nil || ss.conn != zc {
		s.dropConn(zc)
		return false
	}
	s.touch(ss)
	// Every packet processed here is an operation of the session: in and
	// out say which, zk_request (a renewal only) unless a case below says
	// more.
	in, out := history.Payload{Kind: model.OpZKRequest, Lease: uint64(ss.id)}, history.Payload{}
	defer func() { s.record(in, out) }()
	d := decoder{b: pkt}
	xid, op := d.int32("xid"), d.int32("type")
	if d.err != nil {
		s.dropConn(zc)
		return false
	}
	var code errCode
	var body []byte
	switch op {
	case opPing:
		in.Kind = model.OpZKPing
		s.send(zc, reply(xidPing, s.d.Zxid, errOK, nil))
		return true
	case opClose:
		in.Kind = model.OpZKClose
		s.closeSession(ss)
		s.send(zc, reply(xid, s.d.Zxid, errOK, nil))
		s.dropConn(zc)
		return false
	case opCreate:
		r := decodeCreate(&d)
		if d.err != nil {
			break
		}
		var p string
		code, p = s.create(r, ss.id)
		in.Kind, in.Key, in.Value = model.OpZKCreate, r.path, createMode(r.flags)
		out.Key, out.Err = p, errName(code)
		if code == errOK {
			e := encoder{}
			e.string(p)
			body = e.b
		}
	case opDelete:
		p, version := d.string("path"), d.int32("version")
		if d.err == nil {
			code = s.delete(p, version)
			in.Kind, in.Key, out.Err = model.OpZKDelete, p, errName(code)
		}
	case opSetData:
		p, data, version := d.string("path"), d.buffer("data"), d.int32("version")
		if d.err == nil {
			code, body = s.setData(p, data, version)
		}
	case opExists, opGetData, opGetChildren, opGetChildren2:
		p, watch := d.string("path"), d.bool("watch")
		if d.err == nil {
			code, body = s.read(zc, op, p, watch)
			in, out = s.readOp(in, op, p, code)
		}
	case opSetWatches:
		w := decodeSetWatches(&d)
		if d.err == nil {
			s.setWatches(zc, w)
		}
	default:
		code = errUnimplemented
	}
	if d.err != nil { // a request that does not decode: ZooKeeper closes the connection
		s.dropConn(zc)
		return false
	}
	s.send(zc, reply(xid, s.d.Zxid, code, body))
	return true
}

// readOp is the operation of a read of p that answered code: exists
// (found, and the ephemeral owner) and getChildren (the names); getData
// stays a zk_request.
func (s *server) readOp(in history.Payload, op int32, p string, code errCode) (history.Payload, history.Payload) {
	out := history.Payload{Err: errName(code)}
	z := s.d.Nodes[p]
	switch op {
	case opExists:
		in.Kind, in.Key = model.OpZKExists, p
		if code == errNoNode {
			out.Err = "" // exists answers "no node" as not found
		}
		if z != nil && code == errOK {
			out.OK, out.Lease = true, uint64(z.EphemeralOwner)
		}
	case opGetChildren, opGetChildren2:
		in.Kind, in.Key = model.OpZKChildren, p
		if z != nil && code == errOK {
			for _, c := range z.Children {
				out.Keys = append(out.Keys, history.KV{Key: c})
			}
		}
	}
	return in, out
}

// create is a create (PrepRequestProcessor and DataTree.createNode): the
// parent must exist and not be ephemeral; a sequential node's name gets
// the parent's cversion as ten digits; the ACL must not be empty (it is
// accepted, not enforced: every client here is world:anyone). Container
// and TTL modes are not modelled and are refused as unimplemented.
func (s *server) create(r createRequest, owner int64) (errCode, string) {
	switch {
	case r.flags >= 4 && r.flags <= 6:
		return errUnimplemented, ""
	case r.flags < 0 || r.flags > 6:
		return errBadArguments, ""
	case r.acls == 0:
		return errInvalidACL, ""
	case !validPath(r.path) && !(r.flags&flagSequential != 0 && validPath(r.path+"0")):
		return errBadArguments, ""
	}
	parentPath, _ := parentOf(r.path)
	parent := s.d.Nodes[parentPath]
	if parent == nil {
		return errNoNode, ""
	}
	if parent.EphemeralOwner != 0 {
		return errNoChildrenForEphemeral, ""
	}
	p := r.path
	if r.flags&flagSequential != 0 {
		p += fmt.Sprintf("%010d", parent.Cversion)
	}
	if s.d.Nodes[p] != nil {
		return errNodeExists, ""
	}
	s.d.Zxid++
	now := s.now()
	z := &znode{Data: r.data, Czxid: s.d.Zxid, Mzxid: s.d.Zxid, Pzxid: s.d.Zxid, Ctime: now, Mtime: now}
	if r.flags&flagEphemeral != 0 {
		z.EphemeralOwner = owner
	}
	s.d.Nodes[p] = z
	_, name := parentOf(p)
	parent.addChild(name)
	parent.Cversion++
	parent.Pzxid = s.d.Zxid
	s.persist()
	s.trigger(eventNodeCreated, p, dataWatch)
	s.trigger(eventNodeChildrenChanged, parentPath, childWatch)
	return errOK, p
}

// delete is a delete with a version (−1: any): the node must exist, match
// the version and have no children.
func (s *server) delete(p string, version int32) errCode {
	z := s.d.Nodes[p]
	switch {
	case p == "/" || !validPath(p):
		return errBadArguments
	case z == nil:
		return errNoNode
	case version != -1 && version != z.Version:
		return errBadVersion
	case len(z.Children) > 0:
		return errNotEmpty
	}
	s.d.Zxid++
	s.removeNode(p)
	s.persist()
	return errOK
}

// removeNode deletes a childless node in the current transaction (zxid)
// and fires its watches: NodeDeleted to its data and child watchers (once
// to a connection that has both), NodeChildrenChanged to its parent's.
func (s *server) removeNode(p string) {
	delete(s.d.Nodes, p)
	parentPath, name := parentOf(p)
	if parent := s.d.Nodes[parentPath]; parent != nil {
		parent.removeChild(name)
		parent.Cversion++
		parent.Pzxid = s.d.Zxid
	}
	told := s.trigger(eventNodeDeleted, p, dataWatch)
	s.trigger(eventNodeDeleted, p, childWatch, told...)
	s.trigger(eventNodeChildrenChanged, parentPath, childWatch)
}

// setData is a setData with a version (−1: any).
func (s *server) setData(p string, data []byte, version int32) (errCode, []byte) {
	z := s.d.Nodes[p]
	switch {
	case z == nil:
		return errNoNode, nil
	case version != -1 && version != z.Version:
		return errBadVersion, nil
	}
	s.d.Zxid++
	z.Data, z.Mzxid, z.Mtime = data, s.d.Zxid, s.now()
	z.Version++
	s.persist()
	s.trigger(eventNodeDataChanged, p, dataWatch)
	var e encoder
	z.stat().encode(&e)
	return errOK, e.b
}

// read answers exists, getData, getChildren and getChildren2, setting a
// watch when asked: exists sets a data watch whether or not the node
// exists (it then fires on its creation); getData and getChildren set none
// on a node that does not exist.
func (s *server) read(zc *conn, op int32, p string, watch bool) (errCode, []byte) {
	z := s.d.Nodes[p]
	if !validPath(p) {
		return errBadArguments, nil
	}
	if op == opExists && watch {
		s.watch(dataWatch, p, zc)
	}
	if z == nil {
		return errNoNode, nil
	}
	var e encoder
	switch op {
	case opExists:
		z.stat().encode(&e)
	case opGetData:
		if watch {
			s.watch(dataWatch, p, zc)
		}
		e.buffer(z.Data)
		z.stat().encode(&e)
	case opGetChildren, opGetChildren2:
		if watch {
			s.watch(childWatch, p, zc)
		}
		e.strings(z.Children)
		if op == opGetChildren2 {
			z.stat().encode(&e)
		}
	}
	return errOK, e.b
}

// setWatches re-registers a reconnecting client's watches
// (DataTree.setWatches): a watch whose event already happened since the
// client's last zxid fires at once instead (data: NodeDeleted if the node
// is gone, NodeDataChanged if it changed; exist: NodeCreated if it exists;
// child: NodeDeleted if gone, NodeChildrenChanged if they changed).
func (s *server) setWatches(zc *conn, w setWatches) {
	for _, p := range w.data {
		switch z := s.d.Nodes[p]; {
		case z == nil:
			s.send(zc, notification(eventNodeDeleted, p))
		case z.Mzxid > w.relativeZxid:
			s.send(zc, notification(eventNodeDataChanged, p))
		default:
			s.watch(dataWatch, p, zc)
		}
	}
	for _, p := range w.exist {
		if s.d.Nodes[p] != nil {
			s.send(zc, notification(eventNodeCreated, p))
		} else {
			s.watch(dataWatch, p, zc)
		}
	}
	for _, p := range w.child {
		switch z := s.d.Nodes[p]; {
		case z == nil:
			s.send(zc, notification(eventNodeDeleted, p))
		case z.Pzxid > w.relativeZxid:
			s.send(zc, notification(eventNodeChildrenChanged, p))
		default:
			s.watch(childWatch, p, zc)
		}
	}
}

// closeSession ends a session (closeSession, by the client or by expiry):
// one transaction that deletes its ephemeral nodes, in path order, firing
// their watches.
func (s *server) closeSession(ss *session) {
	s.d.Zxid++
	var mine []string
	for p, z := range s.d.Nodes {
		if z.EphemeralOwner == ss.id {
			mine = append(mine, p)
		}
	}
	slices.Sort(mine)
	for _, p := range mine {
		s.removeNode(p)
	}
	delete(s.d.Sessions, ss.id)
	delete(s.sessions, ss.id)
	s.persist()
}

// watch registers a one-shot watch of zc on p (a connection holds at most
// one of each kind per path).
func (s *server) watch(kind int, p string, zc *conn) {
	if !slices.Contains(s.watches[kind][p], zc) {
		s.watches[kind][p] = append(s.watches[kind][p], zc)
	}
}

// trigger fires and clears the watches of kind on p, in registration
// order, skipping the connections in already; it returns the connections
// it told.
func (s *server) trigger(event int32, p string, kind int, already ...*conn) []*conn {
	cs := s.watches[kind][p]
	delete(s.watches[kind], p)
	var told []*conn
	for _, zc := range cs {
		if !slices.Contains(already, zc) {
			s.send(zc, notification(event, p))
			told = append(told, zc)
		}
	}
	return append(already, told...)
}

// removeConn returns cs without zc.
func removeConn(cs []*conn, zc *conn) []*conn {
	return slices.DeleteFunc(cs, func(c *conn) bool { return c == zc })
}

// sortedSessions returns the open sessions' ids in order.
func sortedSessions(m map[int64]*session) []int64 {
	ids := make([]int64, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
