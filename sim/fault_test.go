package sim

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFaultKindTextRoundTrip(t *testing.T) {
	for k := FaultPartition; k <= FaultFailpointHit; k++ {
		text, err := k.MarshalText()
		require.NoError(t, err)
		var back FaultKind
		require.NoError(t, back.UnmarshalText(text))
		require.Equal(t, k, back)
	}
	var k FaultKind
	require.ErrorContains(t, k.UnmarshalText([]byte("meteor")), `unknown fault kind "meteor"`)
}

func TestDistJSONRejectsUnknownFields(t *testing.T) {
	var d Dist
	require.ErrorContains(t, d.UnmarshalJSON([]byte(`{"kind":"fixed","min":"1ms","bogus":1}`)), "bogus")
	require.NoError(t, d.UnmarshalJSON([]byte(`{"kind":"fixed","min":"1ms"}`)))
}
