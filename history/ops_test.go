package history_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
)

// listSource gives operations from a slice, as a producer's own records
// would, counting the loads.
type listSource struct {
	ops   []history.Operation
	loads int
}

func (s *listSource) Len() int { return len(s.ops) }

func (s *listSource) Load(i int, op *history.Operation) {
	s.loads++
	*op = s.ops[i]
}

// headSource is a listSource that loads heads itself.
type headSource struct{ listSource }

func (s *headSource) LoadHead(i int, head *history.OpHead) {
	*head = s.ops[i].Head()
	head.Server = "from LoadHead"
}

func testOps() []history.Operation {
	return []history.Operation{
		{Client: "h1", Server: "grantor", ID: 1, Call: 1, Processed: 2, Return: 3,
			Input: history.Payload{Kind: "acquire", Resource: "lock"}, Output: history.Payload{Kind: "acquire_reply", OK: true, Token: 1}},
		{Client: "h2", Server: "grantor", ID: 1, Call: 2, Processed: 4, Return: history.Never,
			Input: history.Payload{Kind: "acquire", Resource: "lock"}, Output: history.Payload{Kind: "acquire_reply", Err: "held"}},
	}
}

// A history reads the same operations whether it holds them or a source
// gives them, and a caller's copy is its own.
func TestOpsReadTheSameFromEitherStore(t *testing.T) {
	held := &history.History{}
	held.SetOps(testOps())
	given := &history.History{}
	src := &listSource{ops: testOps()}
	given.SetOpSource(src)
	headed := &history.History{}
	headed.SetOpSource(&headSource{listSource{ops: testOps()}})
	for name, h := range map[string]*history.History{"held": held, "given": given, "given with heads": headed} {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, 2, h.NumOps())
			assert.Equal(t, testOps(), h.CopyOps())
			op := h.Op(1)
			assert.Equal(t, "held", op.Output.Err)
			op.Client = "changed"
			assert.Equal(t, "h2", h.Op(1).Client, "Op returns a copy")
			var seen []uint64
			for i, op := range h.AllOps() {
				seen = append(seen, uint64(i)*10+uint64(op.Processed))
			}
			assert.Equal(t, []uint64{2, 14}, seen)
			for range h.AllOps() {
				break // stopping early is allowed
			}
			server := "grantor"
			if h == headed {
				server = "from LoadHead" // a source that loads heads itself is asked for them
			}
			var head history.OpHead
			h.LoadOpHead(1, &head)
			assert.Equal(t, history.OpHead{Server: server, Client: "h2", ID: 1, Call: 2, Processed: 4,
				Return: history.Never, Kind: "acquire", Resource: "lock", Reply: "acquire_reply", Err: "held"}, head)
			assert.False(t, head.Returned())
			h.LoadOpHead(0, &head)
			assert.True(t, head.Returned())
			assert.True(t, head.OK)
		})
	}
	assert.Equal(t, history.OpSource(src), given.OpSource())
	assert.Positive(t, src.loads, "the given history loads from its source")
	assert.Nil(t, held.OpSource())
}

// Appending to a history whose operations a source gives copies them
// first: the history then holds them all, and the source is left alone.
func TestAppendOpAfterASource(t *testing.T) {
	h := &history.History{}
	src := &listSource{ops: testOps()}
	h.SetOpSource(src)
	extra := history.Operation{Client: "h3", Server: "store", ID: 9}
	h.AppendOp(extra)
	require.Equal(t, 3, h.NumOps())
	assert.Equal(t, append(testOps(), extra), h.CopyOps())
	assert.Nil(t, h.OpSource())
	assert.Len(t, src.ops, 2, "the source is not changed")
}

func ExampleHistory_AllOps() {
	var h history.History
	h.AppendOp(
		history.Operation{Client: "h1", Server: "grantor", Input: history.Payload{Kind: "acquire"},
			Output: history.Payload{Kind: "acquire_reply", OK: true}},
		history.Operation{Client: "h2", Server: "grantor", Input: history.Payload{Kind: "acquire"},
			Output: history.Payload{Kind: "acquire_reply", Err: "held"}},
	)
	for i, op := range h.AllOps() {
		fmt.Println(i, op.Client, op.Input.Kind, op.Output.Outcome())
	}
	// Output:
	// 0 h1 acquire ok
	// 1 h2 acquire held
}
