package checker

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// zkOp is a ZooKeeper request of session as the server records it.
func (b *hb) zkOp(t history.Time, kind, key string, session uint64, created, err string) *hb {
	return b.foreignOp("zookeeper", t, history.Payload{Kind: kind, Key: key, Lease: session},
		history.Payload{Kind: kind + "_reply", Key: created, Err: err})
}

// The node P4 names for a ZooKeeper lock nobody took: the lowest child of
// the lock path still standing at the bound, with its session.
func TestZKBlockerNamesTheNodeInFront(t *testing.T) {
	const lock, a, b, c = "/lock", "/lock/_c_a-lock-0000000000", "/lock/_c_b-lock-0000000001", "/lock/_c_c-lock-0000000002"
	eph := string(model.OpZKCreate)
	base := func() *hb {
		h := newHistory().zkOp(at(0), eph, lock, 0, lock, "")
		h.h.Spec = specZooKeeper
		return h
	}
	for _, tt := range []struct {
		name string
		h    *hb
		want string
	}{
		{"the lowest standing child", base().zkOp(at(10), eph, lock+"/_c_a-lock-", 7, a, "").
			zkOp(at(20), eph, lock+"/_c_b-lock-", 8, b, "").zkOp(at(900), model.OpZKPing, "", 7, "", ""),
			"the server still had " + a + " first in line, an ephemeral of session 0x7, which it last heard from at 900ms"},
		{"a deleted child is gone", base().zkOp(at(10), eph, lock+"/_c_a-lock-", 7, a, "").
			zkOp(at(20), eph, lock+"/_c_b-lock-", 8, b, "").zkOp(at(30), model.OpZKDelete, a, 7, "", ""),
			"the server still had " + b + " first in line, an ephemeral of session 0x8, which it last heard from at 20ms"},
		{"a closed session's ephemerals are gone", base().zkOp(at(10), eph, lock+"/_c_a-lock-", 7, a, "").
			zkOp(at(20), eph, lock+"/_c_c-lock-", 9, c, "").zkOp(at(30), model.OpZKClose, "", 7, "", ""),
			"the server still had " + c + " first in line, an ephemeral of session 0x9, which it last heard from at 20ms"},
		{"a refused create made nothing", base().zkOp(at(10), eph, lock+"/_c_a-lock-", 7, "", model.ZKSessionExpired), ""},
		{"what came after the bound does not count", base().zkOp(at(5000), eph, lock+"/_c_a-lock-", 7, a, ""), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, zkBlocker(tt.h.build(), lock, at(1000)))
		})
	}
	other := base().zkOp(at(10), eph, lock+"/_c_a-lock-", 7, a, "")
	other.h.Spec = specLessor
	assert.Empty(t, zkBlocker(other.build(), lock, at(1000)), "another spec's history names no node")
}
