package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/leasesim/leasesim/history"
)

// The ZooKeeper session operations, as a history records them (request
// kind; the reply's kind adds "_reply"). Every request but zk_connect and
// zk_restart names its session in Lease; every reply carries the server's
// clock reading in Clock.
const (
	// OpZKConnect opens a session (Lease 0, TTL the timeout asked for;
	// the reply's Lease is the new session and TTL the negotiated
	// timeout) or reconnects to one (Lease the session; the reply is OK,
	// or Err ZKSessionExpired).
	OpZKConnect = "zk_connect"
	// OpZKPing is a ping: it only renews the session.
	OpZKPing = "zk_ping"
	// OpZKCreate creates the node Key with mode Value ("", "ephemeral",
	// "sequential" or "ephemeral_sequential"); the reply's Key is the
	// path created. Lease 0 is a persistent node the server created
	// itself (an operator's setup, before any session).
	OpZKCreate = "zk_create"
	// OpZKDelete deletes the node Key (any version).
	OpZKDelete = "zk_delete"
	// OpZKExists asks whether the node Key exists: the reply's OK, and
	// its ephemeral owner in Lease (0 for a persistent node).
	OpZKExists = "zk_exists"
	// OpZKChildren lists the children of Key: the reply's Keys, by name.
	OpZKChildren = "zk_children"
	// OpZKClose closes the session (closeSession).
	OpZKClose = "zk_close"
	// OpZKRequest is any other request on the session (getData,
	// setData, setWatches, …): the specification reads only that it
	// renews the session.
	OpZKRequest = "zk_request"
	// OpZKRestart is the server starting again with its durable state:
	// the reply's Keys name, in Key, the sessions it reopened (each with a
	// full timeout from now); the request's Clock is the last reading at
	// which the server's previous life is known to have served (0:
	// unknown).
	OpZKRestart = "zk_restart"
)

// The ZooKeeper errors the specification reads (a reply's Err). Any other
// error (bad version, bad arguments, no children for ephemerals, …) is
// legal and changes nothing but the session's renewal.
const (
	ZKNoNode         = "no_node"
	ZKNodeExists     = "node_exists"
	ZKNotEmpty       = "not_empty"
	ZKSessionExpired = "session_expired"
)

// The create modes (a zk_create request's Value).
const (
	ZKPersistent          = ""
	ZKEphemeral           = "ephemeral"
	ZKSequential          = "sequential"
	ZKEphemeralSequential = "ephemeral_sequential"
)

// zkSeqDigits is how many digits ZooKeeper appends to a sequential node's
// name (%010d).
const zkSeqDigits = 10

// ZooKeeperSession returns the specification of a ZooKeeper server's
// sessions and tree under the invalidation bound policy gives
// (LeasePolicy.Hold: a session renewed at r expires no earlier than
// r+timeout and no later than r+timeout+Hold(timeout)), over the
// history's operations (the Op ZK* kinds). It is not partitioned: a
// session's expiry removes nodes anywhere in the tree. Each rule and what
// it follows (the ZooKeeper Programmer's Guide, zookeeper.apache.org/doc/
// current/zookeeperProgrammers.html):
//
//   - Sessions ("ZooKeeper Sessions"): a session is created by a connect
//     with a negotiated timeout; every request the server processes on it,
//     pings included, renews it; "expirations happens when the cluster
//     does not hear from the client within the specified session timeout
//     period" (the ZooKeeper FAQ, "How should I handle SESSION_EXPIRED?"),
//     never earlier, and here no later than the declared bound; a reconnect to an expired
//     session gets the expired answer, and no request of an expired or
//     closed session is processed. A close ends it at once.
//   - Ephemeral nodes ("Ephemeral Nodes"): "these znodes exists as long as
//     the session that created the znode is active. When the session ends
//     the znode is deleted". A node of an expired session seen after the
//     bound is a violation; one missing before its session's timeout ran
//     out is too.
//   - Sequence nodes ("Sequence Nodes -- Unique Naming"): the name gets a
//     counter "formatted as %010d", "unique to the parent znode" and
//     "monotonically increasing": a sequential create's number exceeds
//     every number given under that parent before. The server uses the
//     parent's cversion, which deletes raise too, so the specification
//     asks for an increase, not for the next integer.
//   - The tree ("ZooKeeper Data Model"): a create needs the parent (root
//     exists), fails with node_exists on an existing path and gives no
//     children to an ephemeral; a delete needs the node, without
//     children; exists and getChildren answer the tree as it is.
//   - A restart (the server's durable state, as its session tracker loads
//     it from a snapshot) reopens every session still open with a full
//     timeout, which its zk_restart reply names. No session expires while
//     no server runs: the bound applies up to the last reading the
//     previous life is known to have served at (the request's Clock).
//
// What it ignores: data, versions and ACLs (a bad-version or other error
// reply is legal), watches, zxids, and that children come in no order
// (the reply's names are compared as a set).
func ZooKeeperSession(policy LeasePolicy) porcupine.Model {
	return unpartitionedModel(porcupine.Model{
		Init: func() any { return zkState{nodes: []zkNode{{path: "/"}}} },
		Step: func(state, input, output any) (bool, any) {
			next, why := zkStep(state.(zkState), policy, operationOf(input), payloadOf(output))
			return why == "", next
		},
		Equal:             func(a, b any) bool { return a.(zkState).equal(b.(zkState)) },
		Hash:              func(state any) uint64 { return state.(zkState).hash() },
		DescribeOperation: func(input, output any) string { return describeSessionOp(operationOf(input), payloadOf(output)) },
		DescribeState:     func(state any) string { return state.(zkState).String() },
	})
}

// ZooKeeperSessionSpec is ZooKeeperSession with its name
// ("zookeeper-session") and Explain.
func ZooKeeperSessionSpec(policy LeasePolicy) Spec {
	return Spec{Name: "zookeeper-session", Model: ZooKeeperSession(policy), Explain: func(state, input, output any) string {
		_, why := zkStep(state.(zkState), policy, operationOf(input), payloadOf(output))
		return why
	}}
}

// zkNode is a node of the tree: its path, its ephemeral owner ("" for a
// persistent node) and the highest sequence number given under it (-1:
// none).
type zkNode struct {
	path  string
	owner string
	seq   int64
}

// zkState is the tree, sorted by path, the sessions in creation order and
// the latest server reading seen.
type zkState struct {
	nodes    []zkNode
	sessions []sessionWin
	lastT    time.Duration
}

func (s zkState) clone() zkState {
	return zkState{nodes: slices.Clone(s.nodes), sessions: slices.Clone(s.sessions), lastT: s.lastT}
}

func (s zkState) equal(o zkState) bool {
	return s.lastT == o.lastT && slices.Equal(s.nodes, o.nodes) && slices.Equal(s.sessions, o.sessions)
}

func (s zkState) hash() uint64 {
	h := fnvOffset.u64(uint64(s.lastT))
	for _, n := range s.nodes {
		h = h.str(n.path).str(n.owner).u64(uint64(n.seq))
	}
	for _, w := range s.sessions {
		h = w.hash(h)
	}
	return uint64(h)
}

// String describes the state, for example `/lock/n-0000000001 (s1); s1
// valid until 8s, gone by 10s; t=5s`.
func (s zkState) String() string {
	var parts []string
	for _, n := range s.nodes[1:] {
		if n.owner != "" {
			parts = append(parts, fmt.Sprintf("%s (%s)", n.path, n.owner))
		} else {
			parts = append(parts, n.path)
		}
	}
	for _, w := range s.sessions {
		parts = append(parts, w.String())
	}
	return strings.Join(append(parts, fmt.Sprintf("t=%v", s.lastT)), "; ")
}

// node returns the index of path in the tree, or -1.
func (s zkState) node(path string) int {
	i, ok := slices.BinarySearchFunc(s.nodes, path, func(n zkNode, p string) int { return strings.Compare(n.path, p) })
	if !ok {
		return -1
	}
	return i
}

// ZKSessionName names a session by its id, as the specification does in
// its messages and as a zk_restart reply names the sessions it reopened:
// "0x" and the id in hex.
func ZKSessionName(id uint64) string { return "0x" + strconv.FormatUint(id, 16) }

// settle applies what time alone decides: sessions past their bound are
// gone, and the nodes of every gone session with them.
func (s *zkState) settle(t time.Duration) {
	for i := range s.sessions {
		s.sessions[i].advance(t)
	}
	s.nodes = slices.DeleteFunc(s.nodes, func(n zkNode) bool {
		i := sessionIndex(s.sessions, n.owner)
		return n.owner != "" && i >= 0 && s.sessions[i].dead
	})
}

// zkStep applies one operation to s: the next state, and "" if it is legal
// in s, or why not.
func zkStep(s zkState, policy LeasePolicy, op *history.Operation, out *history.Payload) (zkState, string) {
	in := &op.Input
	if !answers(out.Kind, in.Kind) {
		return s, fmt.Sprintf("reply %v does not answer %v", out.Kind, in.Kind)
	}
	t := out.Clock
	if t < s.lastT {
		return s, fmt.Sprintf("server time went backwards: t=%v after t=%v", t, s.lastT)
	}
	s = s.clone()
	s.lastT = t
	if in.Kind == OpZKRestart {
		return s, s.restart(min(in.Clock, t), out, t)
	}
	s.settle(t)
	switch in.Kind {
	case OpZKConnect:
		return s, s.connect(policy, in, out, t)
	case OpZKCreate:
		if in.Lease == 0 { // the server's own setup (an operator's node)
			if in.Value != ZKPersistent {
				return s, "a create by no session must be persistent"
			}
			return s, s.create("", in, out, t)
		}
	}
	id := ZKSessionName(in.Lease)
	i := sessionIndex(s.sessions, id)
	if i < 0 {
		return s, fmt.Sprintf("%s on session %s, which was never opened", in.Kind, id)
	}
	if why := s.sessions[i].valid(t); why != "" {
		return s, fmt.Sprintf("%s processed: %s", in.Kind, why)
	}
	s.sessions[i].renew(t)
	switch in.Kind {
	case OpZKPing, OpZKRequest:
		return s, ""
	case OpZKClose:
		s.sessions[i].invalidate(t)
		s.settle(t)
		return s, ""
	case OpZKCreate:
		return s, s.create(id, in, out, t)
	case OpZKDelete:
		return s, s.remove(in.Key, out, t)
	case OpZKExists:
		return s, s.exists(in.Key, out, t)
	case OpZKChildren:
		return s, s.children(in.Key, out, t)
	}
	return s, fmt.Sprintf("%v is not a zookeeper-session operation", in.Kind)
}

// connect opens a session or answers a reconnect.
func (s *zkState) connect(policy LeasePolicy, in, out *history.Payload, t time.Duration) string {
	if in.Lease == 0 {
		if out.Err != "" {
			return ""
		}
		id := ZKSessionName(out.Lease)
		if out.Lease == 0 || sessionIndex(s.sessions, id) >= 0 {
			return fmt.Sprintf("connect opened session %s, which is not a new session id", id)
		}
		s.sessions = append(s.sessions, newSession(id, out.TTL, policy.Hold(out.TTL)-out.TTL, 0, t))
		return ""
	}
	id := ZKSessionName(in.Lease)
	i := sessionIndex(s.sessions, id)
	switch {
	case out.Err == ZKSessionExpired && i < 0:
		return ""
	case out.Err == ZKSessionExpired:
		why := s.sessions[i].gone(t)
		s.settle(t)
		return why
	case out.Err != "":
		return fmt.Sprintf("a reconnect cannot fail with %v", out.Err)
	case i < 0:
		return fmt.Sprintf("reconnected to session %s, which was never opened", id)
	}
	if why := s.sessions[i].valid(t); why != "" {
		return "reconnected: " + why
	}
	s.sessions[i].renew(t)
	return ""
}

// restart reopens the sessions the reply names, with a full timeout, and
// learns that the others are gone. No session expires while no server
// runs: the bounds are applied up to lost, the previous life's last
// known reading, and a session whose bound fell after it may be reopened.
func (s *zkState) restart(lost time.Duration, out *history.Payload, t time.Duration) string {
	s.settle(lost)
	if why := reopen(s.sessions, out.Keys, lost, t, zkRestarted, true); why != "" {
		return why
	}
	s.settle(t)
	return ""
}

// observe records what a reply saw of the node at index i: present or
// not. An ephemeral of a session in its window tells whether the session
// was still valid; anything else must match the tree.
func (s *zkState) observe(i int, present bool, t time.Duration, what string) string {
	n := s.nodes[i]
	if n.owner == "" {
		if !present {
			return fmt.Sprintf("%s: %s is missing, but it was never deleted", what, n.path)
		}
		return ""
	}
	w := &s.sessions[sessionIndex(s.sessions, n.owner)]
	if present {
		if why := w.valid(t); why != "" {
			return fmt.Sprintf("%s: ephemeral %s of session %s is still there: %s", what, n.path, n.owner, why)
		}
		return ""
	}
	if why := w.gone(t); why != "" {
		return fmt.Sprintf("%s: ephemeral %s of session %s is gone: %s", what, n.path, n.owner, why)
	}
	s.settle(t)
	return ""
}

// create applies a create by session id.
func (s *zkState) create(id string, in, out *history.Payload, t time.Duration) string {
	mode := in.Value
	if mode != ZKPersistent && mode != ZKEphemeral && mode != ZKSequential && mode != ZKEphemeralSequential {
		return fmt.Sprintf("create mode %q is not one of the specification's", mode)
	}
	sequential := mode == ZKSequential || mode == ZKEphemeralSequential
	parentPath := zkParent(in.Key)
	p := s.node(parentPath)
	switch out.Err {
	case "":
	case ZKNoNode:
		if p >= 0 {
			return s.observe(p, false, t, "create "+in.Key+" found no parent")
		}
		return ""
	case ZKNodeExists:
		if sequential {
			return "a sequential create cannot find its node existing"
		}
		if i := s.node(in.Key); i >= 0 {
			return s.observe(i, true, t, "create "+in.Key+" found it existing")
		}
		return fmt.Sprintf("create %s failed as existing, but no such node exists", in.Key)
	default:
		return ""
	}
	if p < 0 {
		return fmt.Sprintf("create %s succeeded, but its parent %s does not exist", in.Key, parentPath)
	}
	if why := s.observe(p, true, t, "create "+in.Key); why != "" {
		return why
	}
	if p = s.node(parentPath); s.nodes[p].owner != "" {
		return fmt.Sprintf("create %s succeeded under ephemeral %s", in.Key, parentPath)
	}
	path := in.Key
	if sequential {
		n, ok := zkSequence(in.Key, out.Key)
		if !ok {
			return fmt.Sprintf("sequential create %s returned %s, not the path with %d digits appended", in.Key, out.Key, zkSeqDigits)
		}
		if n <= s.nodes[p].seq {
			return fmt.Sprintf("sequential create %s got %d, not above %d given under %s before", in.Key, n, s.nodes[p].seq, parentPath)
		}
		s.nodes[p].seq, path = n, out.Key
	} else if out.Key != "" && out.Key != in.Key {
		return fmt.Sprintf("create %s returned %s", in.Key, out.Key)
	}
	if i := s.node(path); i >= 0 {
		if why := s.observe(i, false, t, "create "+path+" succeeded"); why != "" {
			return why
		}
	}
	owner := ""
	if mode == ZKEphemeral || mode == ZKEphemeralSequential {
		owner = id
	}
	i, _ := slices.BinarySearchFunc(s.nodes, path, func(n zkNode, p string) int { return strings.Compare(n.path, p) })
	s.nodes = slices.Insert(s.nodes, i, zkNode{path: path, owner: owner, seq: -1})
	return ""
}

// remove applies a delete.
func (s *zkState) remove(path string, out *history.Payload, t time.Duration) string {
	i := s.node(path)
	switch out.Err {
	case "":
		if i < 0 {
			return fmt.Sprintf("delete %s succeeded, but no such node exists", path)
		}
		if why := s.observe(i, true, t, "delete "+path); why != "" {
			return why
		}
		i = s.node(path)
		if i+1 < len(s.nodes) && zkParent(s.nodes[i+1].path) == path {
			return fmt.Sprintf("delete %s succeeded, but it has children (%s)", path, s.nodes[i+1].path)
		}
		s.nodes = slices.Delete(s.nodes, i, i+1)
	case ZKNoNode:
		if i >= 0 {
			return s.observe(i, false, t, "delete "+path+" found nothing")
		}
	}
	return ""
}

// exists answers exists: found, with its ephemeral owner.
func (s *zkState) exists(path string, out *history.Payload, t time.Duration) string {
	i := s.node(path)
	switch {
	case out.Err != "":
		return ""
	case i < 0 && out.OK:
		return fmt.Sprintf("exists %s found a node, but there is none", path)
	case i < 0:
		return ""
	}
	owner := s.nodes[i].owner
	if why := s.observe(i, out.OK, t, "exists "+path); why != "" || !out.OK {
		return why
	}
	if got := zkOwner(out.Lease); got != owner {
		return fmt.Sprintf("exists %s says owner %q, but its owner is %q", path, got, owner)
	}
	return ""
}

// zkOwner names an ephemeral owner as the state does ("" for 0).
func zkOwner(id uint64) string {
	if id == 0 {
		return ""
	}
	return ZKSessionName(id)
}

// children answers getChildren: the names present must be the children
// in the tree, each ephemeral of a session in its window telling whether
// the session was valid.
func (s *zkState) children(path string, out *history.Payload, t time.Duration) string {
	if out.Err != "" {
		if out.Err == ZKNoNode {
			if i := s.node(path); i >= 0 {
				return s.observe(i, false, t, "get children of "+path+" found nothing")
			}
		}
		return ""
	}
	p := s.node(path)
	if p < 0 {
		return fmt.Sprintf("get children of %s answered, but there is no such node", path)
	}
	names := make(map[string]bool, len(out.Keys)) // looked up, never iterated
	for _, kv := range out.Keys {
		names[kv.Key] = true
	}
	var known []string
	for _, n := range s.nodes {
		if zkParent(n.path) == path && n.path != "/" {
			known = append(known, n.path)
		}
	}
	for _, c := range known {
		name := c[strings.LastIndexByte(c, '/')+1:]
		present := names[name]
		delete(names, name)
		if i := s.node(c); i >= 0 {
			if why := s.observe(i, present, t, "get children of "+path); why != "" {
				return why
			}
		} else if present {
			return fmt.Sprintf("get children of %s lists %s, which is gone", path, name)
		}
	}
	for _, kv := range out.Keys {
		if names[kv.Key] {
			return fmt.Sprintf("get children of %s lists %s, which is not in the tree: never created, deleted, "+
				"or an ephemeral of a session invalidated by then", path, kv.Key)
		}
	}
	return ""
}

// zkParent is a path's parent ("/" for a child of the root, "" for the
// root).
func zkParent(p string) string {
	i := strings.LastIndexByte(p, '/')
	switch {
	case p == "/" || i < 0:
		return ""
	case i == 0:
		return "/"
	}
	return p[:i]
}

// zkSequence reads the counter a sequential create appended to prefix.
func zkSequence(prefix, path string) (int64, bool) {
	digits, ok := strings.CutPrefix(path, prefix)
	if !ok || len(digits) != zkSeqDigits {
		return 0, false
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	return n, err == nil && n >= 0
}
