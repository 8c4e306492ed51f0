package checker

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// numbering numbers keys in order of first appearance, whatever their
// hints: equal hints for different keys (one slot), or distinct ones.
func TestNumbering(t *testing.T) {
	keys := []string{"b", "a", "b", "c", "a", "a", "d", "b"}
	want := []int32{0, 1, 0, 2, 1, 1, 3, 0}
	wantNew := []bool{true, true, false, true, false, false, true, false}
	for name, hint := range map[string]func(string) int{"one slot": func(string) int { return 7 }, "strHint": strHint} {
		t.Run(name, func(t *testing.T) {
			var n numbering[string]
			var got []int32
			var gotNew []bool
			for _, k := range keys {
				id, isNew := n.id(k, hint(k))
				got, gotNew = append(got, id), append(gotNew, isNew)
			}
			assert.Equal(t, want, got)
			assert.Equal(t, wantNew, gotNew)
			assert.Equal(t, 4, n.len())
			for i, k := range []string{"a", "b", "c", "d"} {
				id, ok := n.find(k, hint(k))
				assert.True(t, ok, k)
				assert.Equal(t, want[slices.Index(keys, k)], id, "%d: %s", i, k)
			}
			_, ok := n.find("e", hint("e"))
			assert.False(t, ok, "never numbered")
			assert.Equal(t, 4, n.len(), "find numbers nothing")
		})
	}
}
