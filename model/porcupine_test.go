package model

import (
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
)

// timed is a step with its call and return times.
type timed struct {
	step
	resource  string
	client    int
	call, ret int64
}

func ops(ts []timed) []porcupine.Operation {
	out := make([]porcupine.Operation, len(ts))
	for i, t := range ts {
		if t.resource != "" {
			t.in.Input.Resource, t.out.Resource = t.resource, t.resource
		}
		out[i] = porcupine.Operation{ClientId: t.client, Input: t.in, Output: t.out, Call: t.call, Return: t.ret}
	}
	return out
}

// Whole histories: concurrency, partitions by resource, and replies that
// never returned.
func TestLeaseStoreHistories(t *testing.T) {
	const never = 1 << 40
	tests := []struct {
		name string
		ops  []timed
		want porcupine.CheckResult
	}{
		{"ErrHeld concurrent with the grant, after it in grantor time", []timed{
			{step: grant("h1", 5, 1, 0, ""), client: 0, call: 0, ret: 10},
			{step: refused("h2", 6, held, "h1"), client: 1, call: 1, ret: 7}}, porcupine.Ok},
		{"ErrHeld before the grant in grantor time", []timed{
			{step: grant("h1", 5, 1, 0, ""), client: 0, call: 0, ret: 10},
			{step: refused("h2", 2, held, "h1"), client: 1, call: 1, ret: 7}}, porcupine.Illegal},
		{"the same tokens on two resources", []timed{
			{step: grant("h1", 1, 1, 0, ""), resource: "a", client: 0, call: 0, ret: 10},
			{step: grant("h2", 2, 1, 0, ""), resource: "b", client: 1, call: 1, ret: 11},
			{step: grant("h2", 3, 2, 0, ""), resource: "a", client: 1, call: 12, ret: 13}}, porcupine.Illegal},
		{"a grant whose reply never returned still holds", []timed{
			{step: grant("h1", 1, 1, 0, ""), client: 0, call: 0, ret: never},
			{step: refused("h2", 2, held, "h1"), client: 1, call: 5, ret: 6}}, porcupine.Ok},
		{"a grant whose reply never returned overlaps a later one", []timed{
			{step: grant("h1", 1, 1, 0, ""), client: 0, call: 0, ret: never},
			{step: grant("h2", 2, 2, 0, ""), client: 1, call: 5, ret: 6}}, porcupine.Illegal},
	}
	m := LeaseStore(testPolicy)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := porcupine.CheckOperationsVerbose(m, ops(tc.ops), 0)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestPartitionsAreSortedByResource(t *testing.T) {
	history := ops([]timed{
		{step: grant("h1", 1, 1, 0, ""), resource: "b"},
		{step: grant("h1", 1, 1, 0, ""), resource: "a"},
		{step: renewOp("h1", 2, 1, ok), resource: "b"},
	})
	parts := LeaseStore(testPolicy).Partition(history)
	if assert.Len(t, parts, 2) {
		assert.Equal(t, []porcupine.Operation{history[1]}, parts[0])
		assert.Equal(t, []porcupine.Operation{history[0], history[2]}, parts[1])
	}
	events := []porcupine.Event{
		{Kind: porcupine.CallEvent, Value: history[0].Input, Id: 0},
		{Kind: porcupine.CallEvent, Value: history[1].Input, Id: 1},
		{Kind: porcupine.ReturnEvent, Value: history[0].Output, Id: 0},
		{Kind: porcupine.ReturnEvent, Value: history[1].Output, Id: 1},
	}
	evParts := FencedRegister().PartitionEvent(events)
	if assert.Len(t, evParts, 2) {
		assert.Equal(t, []porcupine.Event{events[1], events[3]}, evParts[0])
		assert.Equal(t, []porcupine.Event{events[0], events[2]}, evParts[1])
	}
}

// A specification's Key is what its Partition groups by: one key per
// partition, the partitions in sorted key order, each keeping the
// operations' order; a lessor has no Key (its partitions follow leases).
func TestSpecKeyIsThePartition(t *testing.T) {
	keys := []string{"b", "a", "b", "c", "a"}
	ops := func(input func(key string) any) []porcupine.Operation {
		out := make([]porcupine.Operation, len(keys))
		for i, k := range keys {
			out[i] = porcupine.Operation{ClientId: i, Input: input(k)}
		}
		return out
	}
	historyOp := func(k string) any { return &history.Operation{Input: history.Payload{Kind: "write", Resource: k}} }
	tests := []struct {
		name string
		spec Spec
		ops  []porcupine.Operation
	}{
		{"lease-store over history operations", LeaseStoreSpec(testPolicy), ops(historyOp)},
		{"fenced register over history operations", FencedRegisterSpec(), ops(historyOp)},
		{"lease-store", LeaseSpec(testPolicy), ops(func(k string) any { return LeaseInput{Resource: k} })},
		{"fenced register", RegisterSpec(), ops(func(k string) any { return RegisterInput{Resource: k} })},
		{"expiring key", ExpiringKeySpec(), ops(func(k string) any { return KeyInput{Key: k} })},
		{"cas record", CASRecordSpec(), ops(func(k string) any { return RecordInput{Name: k} })},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.NotNil(t, tc.spec.Key)
			var got [][]int // client ids per partition
			var gotKeys []string
			for _, part := range tc.spec.Model.Partition(tc.ops) {
				var ids []int
				for _, op := range part {
					ids = append(ids, op.ClientId)
					assert.Equal(t, tc.spec.Key(part[0].Input), tc.spec.Key(op.Input))
				}
				got, gotKeys = append(got, ids), append(gotKeys, tc.spec.Key(part[0].Input))
			}
			assert.Equal(t, [][]int{{1, 4}, {0, 2}, {3}}, got)
			assert.Equal(t, []string{"a", "b", "c"}, gotKeys)
		})
	}
	assert.Nil(t, LessorSpec().Key)
}
