package scenarios

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
)

// The operations a run's history gives from the recorder's tables
// (recordedOps) are whole, and their heads are what LoadOpHead promises:
// every catalogue scenario's, over a few seeds. (zoo/k8slease's tests
// judge histories with foreign operations, whose heads are Head's.)
func TestRecordedOpsLoadWholeAndHeads(t *testing.T) {
	var head history.OpHead
	for _, sc := range CatalogFor(lease.Correct()) {
		for seed := uint64(1); seed <= 2; seed++ {
			out, err := Execute(sc, seed, Options{})
			require.NoError(t, err)
			h := out.History
			src, ok := h.OpSource().(*recordedOps)
			require.True(t, ok, "%s: the history's operations come from the recorder", sc.Name)
			require.Positive(t, h.NumOps(), "%s: no operations to compare", sc.Name)
			for i := range h.NumOps() {
				whole := h.Op(i)
				require.NotEmpty(t, whole.Input.Kind, "%s op %d: loaded whole", sc.Name, i)
				require.NotEmpty(t, whole.Output.Kind, "%s op %d: loaded whole", sc.Name, i)
				src.LoadHead(i, &head)
				require.Equal(t, whole.Head(), head, "%s seed %d op %d", sc.Name, seed, i)
			}
		}
	}
}
