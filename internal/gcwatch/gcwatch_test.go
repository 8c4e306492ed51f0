package gcwatch

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Churn brings about collections without runtime.GC.
func TestChurn(t *testing.T) {
	before := Cycles()
	require.True(t, Churn(3), "allocation triggers collections")
	assert.GreaterOrEqual(t, Cycles(), before+3)
}

// SettledLiveHeap sees an object kept alive, and not once it is dropped.
// Each reading waits for at least four cycles, one may have been under way
// when the object was allocated or dropped, and then for the readings to
// settle. Both bounds leave 8 MiB for what the readings count beyond the
// reachable (measured with four busy loops on two cores: 1 MiB).
func TestSettledLiveHeap(t *testing.T) {
	base, ok := SettledLiveHeap(4)
	require.True(t, ok, "collections run")
	kept := make([]byte, 32<<20)
	for i := range kept {
		kept[i] = byte(i) // touched, so that it is real
	}
	live, ok := SettledLiveHeap(4)
	require.True(t, ok)
	runtime.KeepAlive(kept) // and dead from here on
	dropped, ok := SettledLiveHeap(4)
	require.True(t, ok)
	t.Logf("live heap %d bytes before, %d with 32 MiB kept, %d once dropped", base, live, dropped)
	assert.Greater(t, live, base+24<<20, "32 MiB kept alive is seen live")
	assert.Less(t, dropped, live-24<<20, "dropped, it is no longer live")
}
