package realtime

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"

	"github.com/leasesim/leasesim/lease"
)

// maxFrameBytes bounds one frame: room for the largest checkpoint state,
// base64-encoded, and the rest of a message.
const maxFrameBytes = 2*lease.MaxStateBytes + 64<<10

// frame is what travels on a connection: a message and the address its
// sender listens on, so that replies can reach it.
type frame struct {
	From lease.Addr    `json:"from"`
	Msg  lease.Message `json:"msg"`
}

// writeFrame writes f as a 4-byte big-endian length and JSON.
func writeFrame(w io.Writer, f frame) error {
	body, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("encoding frame: %w", err)
	}
	if len(body) > maxFrameBytes {
		return fmt.Errorf("frame of %d bytes exceeds %d", len(body), maxFrameBytes)
	}
	buf := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(body)), uint32(len(body)))
	if _, err := w.Write(append(buf, body...)); err != nil {
		return fmt.Errorf("writing frame: %w", err)
	}
	return nil
}

// readFrame reads one frame written by writeFrame.
func readFrame(r io.Reader) (frame, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return frame{}, fmt.Errorf("reading frame length: %w", err)
	}
	n := binary.BigEndian.Uint32(size[:])
	if n > maxFrameBytes {
		return frame{}, fmt.Errorf("frame of %d bytes exceeds %d", n, maxFrameBytes)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return frame{}, fmt.Errorf("reading frame body: %w", err)
	}
	var f frame
	if err := json.Unmarshal(body, &f); err != nil {
		return frame{}, fmt.Errorf("decoding frame: %w", err)
	}
	return f, nil
}
