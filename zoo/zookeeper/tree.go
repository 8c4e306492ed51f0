package zookeeper

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
)

// The data tree (DataTree in ZooKeeper): znodes by path, each with its
// data, its Stat and its children, and the zxid of the last transaction.
// Every change is a transaction with the next zxid; a create bumps the
// parent's cversion and sets its pzxid, as a delete does.

// znode is one node of the tree, as it is stored.
type znode struct {
	Data           []byte   `json:"data,omitempty"`
	Czxid          int64    `json:"czxid"`
	Mzxid          int64    `json:"mzxid"`
	Pzxid          int64    `json:"pzxid"`
	Ctime          int64    `json:"ctime"`
	Mtime          int64    `json:"mtime"`
	Version        int32    `json:"version"`
	Cversion       int32    `json:"cversion"`
	EphemeralOwner int64    `json:"owner,omitempty"`
	Children       []string `json:"children,omitempty"` // names, sorted
}

// stat returns the node's Stat.
func (z *znode) stat() stat {
	return stat{czxid: z.Czxid, mzxid: z.Mzxid, pzxid: z.Pzxid, ctime: z.Ctime, mtime: z.Mtime,
		version: z.Version, cversion: z.Cversion, ephemeralOwner: z.EphemeralOwner,
		dataLength: int32(len(z.Data)), numChildren: int32(len(z.Children))}
}

// durable is what the server keeps in the node's Storage (ZooKeeper's
// snapshot and transaction log, fsynced before a reply): the tree, the
// last zxid, the open sessions and their timeouts, and the next session
// number. Maps are only looked up, or encoded by encoding/json, which sorts
// their keys.
type durable struct {
	Zxid        int64             `json:"zxid"`
	Nodes       map[string]*znode `json:"nodes"`
	Sessions    map[int64]int32   `json:"sessions"` // session id → negotiated timeout, ms
	NextSession int64             `json:"next_session"`
}

// stateKey is the Storage key of the durable state.
const stateKey = "zookeeper/state"

// newDurable is an empty tree: the root only.
func newDurable() *durable {
	return &durable{Nodes: map[string]*znode{"/": {}}, Sessions: map[int64]int32{}, NextSession: 1}
}

// decodeDurable reads the state a previous life stored.
func decodeDurable(b []byte) (*durable, error) {
	d := &durable{}
	if err := json.Unmarshal(b, d); err != nil {
		return nil, fmt.Errorf("zookeeper: stored state: %w", err)
	}
	if d.Nodes["/"] == nil || d.Sessions == nil {
		return nil, fmt.Errorf("zookeeper: stored state has no root or no sessions")
	}
	return d, nil
}

// encode writes the state for Storage.
func (d *durable) encode() []byte {
	b, err := json.Marshal(d)
	if err != nil {
		panic("zookeeper: durable state does not encode: " + err.Error())
	}
	return b
}

// parentOf splits a znode path into its parent and its name.
func parentOf(p string) (string, string) {
	dir, name := path.Split(p)
	if dir != "/" {
		dir = strings.TrimSuffix(dir, "/")
	}
	return dir, name
}

// validPath is ZooKeeper's PathUtils.validatePath, in its main rules: an
// absolute path, no empty segment, no trailing slash but the root's, no
// "." or ".." segment, no NUL.
func validPath(p string) bool {
	if p == "/" {
		return true
	}
	if !strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || strings.ContainsRune(p, 0) {
		return false
	}
	for _, seg := range strings.Split(p[1:], "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// addChild inserts name into the sorted children.
func (z *znode) addChild(name string) {
	i, found := slices.BinarySearch(z.Children, name)
	if !found {
		z.Children = slices.Insert(z.Children, i, name)
	}
}

// removeChild removes name from the sorted children.
func (z *znode) removeChild(name string) {
	if i, found := slices.BinarySearch(z.Children, name); found {
		z.Children = slices.Delete(z.Children, i, i+1)
	}
}
