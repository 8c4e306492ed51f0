package realtime

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

func TestFrameRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	in := frame{From: "127.0.0.1:1", Msg: lease.Message{Kind: lease.KindWrite, Token: 7, Value: []byte{0, 255}}}
	require.NoError(t, writeFrame(&buf, in))
	require.NoError(t, writeFrame(&buf, in))
	for range 2 {
		out, err := readFrame(&buf)
		require.NoError(t, err)
		assert.Equal(t, in, out)
	}
	_, err := readFrame(&buf)
	assert.Error(t, err, "end of stream")
}

func TestFrameRejectsOversize(t *testing.T) {
	header := binary.BigEndian.AppendUint32(nil, maxFrameBytes+1)
	_, err := readFrame(bytes.NewReader(header))
	assert.ErrorContains(t, err, "exceeds")
	big := frame{Msg: lease.Message{State: make([]byte, maxFrameBytes)}}
	assert.ErrorContains(t, writeFrame(&bytes.Buffer{}, big), "exceeds")
}
