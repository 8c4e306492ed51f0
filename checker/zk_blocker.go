package checker

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// specZooKeeper is the ZooKeeper session specification's name.
var specZooKeeper = model.ZooKeeperSessionSpec(model.LeasePolicy{}).Name

// zkBlocker names, for a history judged by the ZooKeeper session spec,
// the node a lock recipe's contenders for res queue behind at t: the
// lowest-sequenced child of the lock path res that the server's
// operations show created and neither deleted nor closed with its session
// by then, with its session and when the server last heard from that
// session. A lock that nobody took for good while such a node stood is an
// orphan's doing (samuel/go-zookeeper#229), and P4's evidence says which
// node it was. "" for another spec, or when no child stood.
func zkBlocker(h *history.History, res string, t history.Time) string {
	if specBase(h.Spec) != specZooKeeper {
		return ""
	}
	type child struct {
		path    string
		session uint64
	}
	var standing []child               // created and not deleted, in creation order
	heard := map[uint64]history.Time{} // session -> last processed request naming it; looked up, never iterated
	closed := map[uint64]bool{}        // looked up, never iterated
	var op history.Operation
	for i := range h.NumOps() {
		h.LoadOp(i, &op)
		in, out := &op.Input, &op.Output
		if op.Processed == history.Unknown || op.Processed > t {
			continue
		}
		if in.Lease != 0 {
			heard[in.Lease] = max(heard[in.Lease], op.Processed)
		}
		if out.Err != "" {
			continue
		}
		switch in.Kind {
		case model.OpZKCreate:
			if strings.HasPrefix(out.Key, res+"/") {
				standing = append(standing, child{out.Key, in.Lease})
			}
		case model.OpZKDelete:
			standing = slices.DeleteFunc(standing, func(c child) bool { return c.path == in.Key })
		case model.OpZKClose:
			closed[in.Lease] = true
		}
	}
	standing = slices.DeleteFunc(standing, func(c child) bool { return c.session != 0 && closed[c.session] })
	if len(standing) == 0 {
		return ""
	}
	// A sequential node's name ends in its ten-digit sequence number.
	seq := func(p string) string { return p[max(0, len(p)-10):] }
	first := slices.MinFunc(standing, func(a, b child) int {
		return cmp.Or(cmp.Compare(seq(a.path), seq(b.path)), cmp.Compare(a.path, b.path))
	})
	if first.session == 0 {
		return fmt.Sprintf("the server still had %s (a persistent node) first in line", first.path)
	}
	return fmt.Sprintf("the server still had %s first in line, an ephemeral of session %#x, which it last heard from at %v",
		first.path, first.session, heard[first.session])
}
