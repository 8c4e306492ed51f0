package history

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The strict reader refuses a belief from a holder the header does not
// list, naming the line, the field and the holders it lists; a header that
// lists no holders has none to check against.
func TestReaderRefusesABeliefFromAnUnlistedHolder(t *testing.T) {
	const belief = `{"type":"belief","holder":"h9","incarnation":0,"resource":"lock","token":1,"start_ns":1,"end_ns":2,"reason":"release"}`
	tests := []struct {
		name, holders string
		err           []string // nil: accepted
	}{
		{"listed", `"holders":["h1","h9"],`, nil},
		{"not listed", `"holders":["h1","h2"],`, []string{"h.jsonl:2", `field "holder"`, `"h9" is not among the header's holders (h1, h2)`}},
		{"no holders in the header", ``, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header := `{"type":"header","version":1,"producer":"hand-written","spec":"lease-store","determinism":"exact",` +
				`"lease":{"ttl_ns":10000000000},` + tt.holders + `"start_ns":0}`
			r, err := NewReader(strings.NewReader(header+"\n"+belief+"\n"), "h.jsonl")
			require.NoError(t, err)
			_, err = r.Next()
			if tt.err == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, s := range tt.err {
				assert.Contains(t, err.Error(), s)
			}
		})
	}
}
