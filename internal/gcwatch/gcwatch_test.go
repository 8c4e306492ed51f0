package gcwatch

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Churn brings about collections without runtime.GC, and LiveHeap sees an
// object kept alive across them, then not once it is dropped. Each waits
// for three cycles: one may have been under way when the object was
// allocated or dropped.
func TestChurnAndLiveHeap(t *testing.T) {
	before := Cycles()
	require.True(t, Churn(3), "allocation triggers collections")
	assert.GreaterOrEqual(t, Cycles(), before+3)

	base := LiveHeap()
	kept := make([]byte, 64<<20)
	for i := range kept {
		kept[i] = byte(i) // touched, so that it is real
	}
	require.True(t, Churn(3))
	assert.Greater(t, LiveHeap(), base+32<<20, "64 MiB kept alive is seen live")
	runtime.KeepAlive(kept) // and dead from here on
	require.True(t, Churn(3))
	assert.Less(t, LiveHeap(), base+32<<20, "dropped, it is no longer live")
}
