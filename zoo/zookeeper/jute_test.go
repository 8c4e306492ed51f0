package zookeeper

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJuteRoundTrip(t *testing.T) {
	var e encoder
	e.int32(-7)
	e.int64(1 << 40)
	e.bool(true)
	e.string("/lock")
	e.buffer(nil)
	e.strings([]string{"a", "bc"})
	d := decoder{b: e.b}
	assert.Equal(t, int32(-7), d.int32("i"))
	assert.Equal(t, int64(1<<40), d.int64("l"))
	assert.True(t, d.bool("b"))
	assert.Equal(t, "/lock", d.string("s"))
	assert.Empty(t, d.buffer("buf"))
	assert.Equal(t, []string{"a", "bc"}, d.strings("v"))
	require.NoError(t, d.err)
	assert.Empty(t, d.b, "every byte read")
}

// A packet that ends early, or whose lengths point past its end, is an
// error naming the field, never a panic.
func TestJuteShortPackets(t *testing.T) {
	for _, tt := range []struct {
		name  string
		b     []byte
		read  func(d *decoder)
		field string
	}{
		{"empty int", nil, func(d *decoder) { d.int32("xid") }, "xid"},
		{"half a long", []byte{0, 0, 0, 1}, func(d *decoder) { d.int64("zxid") }, "zxid"},
		{"string past the end", []byte{0, 0, 0, 9, 'a'}, func(d *decoder) { d.string("path") }, "path"},
		{"negative length", []byte{0xff, 0xff, 0xff, 0xfe}, func(d *decoder) { d.buffer("data") }, "data"},
		{"vector past the end", []byte{0x7f, 0, 0, 0}, func(d *decoder) { d.strings("dataWatches") }, "dataWatches"},
		{"no flags after the acl", []byte{0, 0, 0, 1, '/', 0, 0, 0, 0, 0, 0, 0, 0}, func(d *decoder) { decodeCreate(d) }, "flags"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := decoder{b: tt.b}
			tt.read(&d)
			require.ErrorIs(t, d.err, errShort)
			assert.Contains(t, d.err.Error(), tt.field)
		})
	}
}

func TestValidPath(t *testing.T) {
	for p, want := range map[string]bool{"/": true, "/lock": true, "/lock/a-1": true, "": false, "lock": false,
		"/lock/": false, "//a": false, "/a/./b": false, "/a/..": false, "/a\x00": false} {
		assert.Equal(t, want, validPath(p), "%q", p)
	}
}
