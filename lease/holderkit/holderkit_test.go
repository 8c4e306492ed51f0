package holderkit

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/lease/leasetest"
)

// inbox records the messages a node receives.
type inbox []lease.Message

func (in *inbox) Deliver(_ lease.Addr, m lease.Message) { *in = append(*in, m) }

func TestRequestIDsCountBootsDurably(t *testing.T) {
	store := leasetest.NewStore()
	first, err := NewRequestIDs(store, "boots", "test")
	require.NoError(t, err)
	assert.Equal(t, []uint64{1<<32 | 1, 1<<32 | 2}, []uint64{first.Next(), first.Next()})
	store.Crash()
	second, err := NewRequestIDs(store, "boots", "test")
	require.NoError(t, err)
	assert.Equal(t, uint64(2<<32|1), second.Next(), "a restart never reuses an id")
}

func TestPendingTakeOrTimeoutOnce(t *testing.T) {
	w := leasetest.NewWorld()
	env := w.Env("h", 1)
	var timedOut []string
	p := NewPending(env.Clock, time.Second, func(id uint64, v string) { timedOut = append(timedOut, v) })
	p.Add(1, "answered")
	p.Add(2, "lost")
	v, ok := p.Get(1)
	assert.True(t, ok)
	assert.Equal(t, "answered", v)
	v, ok = p.Take(1)
	assert.True(t, ok)
	assert.Equal(t, "answered", v)
	_, ok = p.Take(1)
	assert.False(t, ok, "a duplicate reply finds nothing")
	w.Advance(999 * time.Millisecond)
	assert.Empty(t, timedOut)
	w.Advance(time.Millisecond)
	assert.Equal(t, []string{"lost"}, timedOut, "only the unanswered request times out")
	_, ok = p.Take(2)
	assert.False(t, ok, "a reply after the timeout finds nothing")
}

func TestFencedStoreWrite(t *testing.T) {
	errOther := errors.New("no reply")
	tests := []struct {
		name       string
		believe    bool
		reply      *lease.ErrCode // nil: no reply
		want       error
		wantFenced bool
	}{
		{name: "no belief", want: lease.ErrLeaseExpired},
		{name: "accepted", believe: true, reply: ptr(lease.CodeOK)},
		{name: "fenced", believe: true, reply: ptr(lease.CodeFenced), want: lease.ErrFenced, wantFenced: true},
		{name: "timeout", believe: true, want: lease.ErrTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := leasetest.NewWorld()
			env := w.Env("h", 1)
			var store inbox
			w.Register("store", &store)
			ids, err := NewRequestIDs(env.Store, "boots", "test")
			require.NoError(t, err)
			valid := func(r string) (lease.Grant, bool) { return lease.Grant{Resource: r, Token: 7}, tt.believe }
			var fenced []uint64
			s := NewFencedStore(env, "store", time.Second, ids, valid,
				func(_ string, token uint64, _ error) { fenced = append(fenced, token) })
			got := errOther
			s.Write("r", "k", []byte("v"), func(err error) { got = err })
			w.Settle()
			if tt.believe {
				require.Len(t, store, 1)
				assert.Equal(t, uint64(7), store[0].Token)
				assert.Equal(t, errOther, got, "the outcome waits for the reply")
			}
			if tt.reply != nil {
				s.Deliver("store", lease.Message{Kind: lease.KindWriteReply, ReqID: store[0].ReqID, Err: *tt.reply})
			}
			w.Advance(time.Second)
			if tt.want == nil {
				assert.NoError(t, got)
			} else {
				assert.ErrorIs(t, got, tt.want)
			}
			if tt.wantFenced {
				assert.Equal(t, []uint64{7}, fenced)
			} else {
				assert.Empty(t, fenced)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// recorder records the events a node reports.
type recorder []lease.Event

func (r *recorder) Observe(ev lease.Event) { *r = append(*r, ev) }

func TestBeliefGrantRenewLapse(t *testing.T) {
	w := leasetest.NewWorld()
	env := w.Env("h", 1)
	var events recorder
	env.Observer = &events
	var lost []error
	b := &Belief{Resource: "r", Token: 3, OnLost: func(_ string, token uint64, err error) {
		assert.Equal(t, uint64(3), token)
		lost = append(lost, err)
	}}
	errLapsed := errors.New("lapsed")
	expire := func() { b.Lapse(env, errLapsed) }

	assert.True(t, b.Extend(env, 10*time.Second, expire), "the first belief is a grant")
	assert.False(t, b.Extend(env, 5*time.Second, expire), "an earlier deadline extends nothing")
	assert.False(t, b.Extend(env, 12*time.Second, expire), "a later one is a renewal")
	g, ok := b.Valid(env.Clock.Now(), time.Second)
	assert.True(t, ok)
	assert.Equal(t, lease.Grant{Resource: "r", Token: 3, TTL: time.Second, Deadline: 12 * time.Second}, g)

	w.Advance(11 * time.Second)
	assert.Empty(t, lost, "the first deadline was extended")
	w.Advance(time.Second)
	assert.Equal(t, []error{errLapsed}, lost)
	_, ok = b.Valid(env.Clock.Now(), time.Second)
	assert.False(t, ok)

	var kinds []lease.EventKind
	for _, ev := range events {
		kinds = append(kinds, ev.Kind)
	}
	assert.Equal(t, []lease.EventKind{lease.EventGrant, lease.EventRenew, lease.EventLost}, kinds)

	assert.True(t, b.Extend(env, 20*time.Second, expire))
	b.Drop()
	w.Advance(10 * time.Second)
	assert.Len(t, lost, 1, "a dropped belief does not lapse")
}

// An extension that comes when the deadline has passed, before its timer
// ran, lapses the belief first and is a new grant: the owner hears the
// loss, then the grant, never a renewal across the lapse.
func TestBeliefExtendedAfterItsDeadlineLapsesFirst(t *testing.T) {
	w := leasetest.NewWorld()
	env := w.Env("h", 1)
	var events recorder
	env.Observer = &events
	var lost int
	b := &Belief{Resource: "r", Token: 3, OnLost: func(string, uint64, error) { lost++ }}
	expire := func() { b.Lapse(env, errors.New("lapsed")) }
	w.Advance(5 * time.Second)
	b.Believing, b.Until = true, 5*time.Second // due now; its timer has not run

	assert.True(t, b.Extend(env, 9*time.Second, expire), "believing again is a grant")
	assert.Equal(t, 1, lost, "the owner heard the loss first")
	var kinds []lease.EventKind
	for _, ev := range events {
		kinds = append(kinds, ev.Kind)
	}
	assert.Equal(t, []lease.EventKind{lease.EventLost, lease.EventGrant}, kinds)
	_, ok := b.Valid(env.Clock.Now(), time.Second)
	assert.True(t, ok)
}
