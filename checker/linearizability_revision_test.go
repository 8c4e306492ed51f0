package checker

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// lessorOp adds an operation of an etcd-style lessor, called, processed
// and returned at the given milliseconds.
func (b *hb) lessorOp(client string, call, processed, ret int64, in, out history.Payload) *hb {
	b.reqID++
	b.h.AppendOp(history.Operation{Client: client, Incarnation: 1, Server: b.h.Grantor, ID: b.reqID,
		Call: at(call), Processed: at(processed), Return: at(ret), Input: in, Output: out})
	return b
}

// A replicated store's members answer in an order of their own: a
// follower may answer a read of revision 2 after the leader answered the
// put that made revision 3. The order of the revisions the replies name
// is then a witness, and decides the resource with a budget of one model
// step, where porcupine could not; but only while it keeps real time: a
// read called after the newer put returned cannot see the older value,
// and the witness is refused (porcupine finds the violation).
func TestLessorRevisionWitness(t *testing.T) {
	put := func(v string, rev int64) (history.Payload, history.Payload) {
		return history.Payload{Kind: "put", Key: "k", Value: v},
			history.Payload{Kind: "put_reply", OK: true, Revision: rev, Token: 2}
	}
	getA := history.Payload{Kind: "get_reply", OK: true, Value: "a", Revision: 2, Token: 2, Version: "2"}
	get := history.Payload{Kind: "get", Key: "k"}
	tests := []struct {
		name            string
		call, proc, ret int64 // the read's times, in ms
		steps           int64
		want            Status
		summary         string
	}{
		{"a follower answers an older revision late", 1900, 2600, 2700, 1, OK, "linearizable"},
		{"the read began after the newer put returned", 2600, 2700, 2800, 0, Violated, "violation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inA, outA := put("a", 2)
			inB, outB := put("b", 3)
			h := newHistory().lessorOp("h1", 900, 1000, 1100, inA, outA).
				lessorOp("h2", 1500, 2000, 2500, inB, outB).
				lessorOp("h3", tt.call, tt.proc, tt.ret, get, getA).build()
			h.Spec = "lessor"
			r := Linearizability(h, Options{LinearizabilitySteps: tt.steps})
			assert.Equal(t, tt.want, r.Status, r.Summary)
			assert.Contains(t, r.Summary, tt.summary)
		})
	}
}

// The differential test of the revision witness against plain porcupine:
// on random histories of one key, made by running puts and gets in a
// random sequential order (each taking effect within its interval, and
// answered at some instant between its effect and its return, so members
// answer out of order), some with one reply redrawn, wherever the
// witness says a resource is linearizable, porcupine agrees.
func TestLessorRevisionWitnessAgreesWithPorcupine(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 1))
	witnessed := 0
	for range 3000 {
		h := randomLessorHistory(r, 2+r.IntN(6), r.IntN(3) == 0)
		store, err := model.SpecFor(h.Spec, h.Lease)
		require.NoError(t, err)
		p := newAsProcessed(h, store)
		ops := newP3Ops(h, p.store, p.register, nil)
		l := newLinHistory(p, ops)
		for _, part := range l.model.Partition(l.ops) {
			if l.legalByRevision(part) {
				witnessed++
				require.True(t, porcupine.CheckOperations(l.model, part), "the witness is no linearization of %d ops",
					len(part))
			}
		}
	}
	t.Logf("the witness decided %d of the resources", witnessed)
	assert.Greater(t, witnessed, 300, "the witness decided a fair share of the histories")
}

// randomLessorHistory runs n puts and gets of key "k" in sequence, one
// taking effect each second; each is called up to 1.5s before it takes
// effect and returns up to 1.5s after, and its member answers at a random
// instant in between its effect and its return. With corrupt, one get's
// reply may be redrawn.
func randomLessorHistory(r *rand.Rand, n int, corrupt bool) *history.History {
	b := newHistory()
	var rev, created, modified int64
	value := ""
	for i := range n {
		effect := int64(1000 * (i + 1))
		call, ret := effect-r.Int64N(1500), effect+1+r.Int64N(1500)
		answered := effect + r.Int64N(ret-effect)
		client := fmt.Sprintf("c%d", i)
		if r.IntN(2) == 0 {
			value = string(rune('a' + r.IntN(3)))
			rev++
			if created == 0 {
				created = rev
			}
			modified = rev
			b.lessorOp(client, call, answered, ret, history.Payload{Kind: "put", Key: "k", Value: value},
				history.Payload{Kind: "put_reply", OK: true, Revision: rev, Token: uint64(created)})
			continue
		}
		reply := history.Payload{Kind: "get_reply", OK: created != 0, Value: value, Revision: rev,
			Token: uint64(created), Version: strconv.FormatInt(modified, 10)}
		if corrupt && r.IntN(2) == 0 {
			corrupt = false
			reply.Value = string(rune('a' + r.IntN(3)))
			reply.Revision = max(0, reply.Revision+int64(r.IntN(3))-1)
		}
		b.lessorOp(client, call, answered, ret, history.Payload{Kind: "get", Key: "k"}, reply)
	}
	h := b.build()
	h.Spec = "lessor"
	return h
}
