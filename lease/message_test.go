package lease_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

func TestMessageJSONRoundTrip(t *testing.T) {
	m := lease.Message{
		Kind: lease.KindAcquireReply, ReqID: 7, Client: "h1", Resource: "r", Token: 3,
		TTL: time.Second, SentAt: 5, GrantorTime: 6, Err: lease.CodeHeld, State: []byte{0, 1},
		CheckpointToken: 2, Keys: []lease.KV{{Key: "k", Value: []byte("v")}}, Holder: "h2", Remaining: 9,
	}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"kind":"acquire_reply"`)
	assert.Contains(t, string(b), `"err":"held"`)
	assert.Contains(t, string(b), `"ttl_ns":1000000000`)
	var back lease.Message
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, m, back)

	assert.Error(t, json.Unmarshal([]byte(`{"kind":"nonsense"}`), &back))
}

func TestKindReply(t *testing.T) {
	tests := []struct {
		kind, want lease.Kind
	}{
		{lease.KindAcquire, lease.KindAcquireReply},
		{lease.KindList, lease.KindListReply},
		{lease.KindEffect, lease.KindEffectReply},
		{lease.KindAcquireReply, lease.KindNone},
		{lease.KindNone, lease.KindNone},
		{lease.Kind(200), lease.KindNone},
	}
	for _, tt := range tests {
		t.Run(tt.kind.String(), func(t *testing.T) {
			assert.Equal(t, tt.want, tt.kind.Reply())
		})
	}
	assert.Equal(t, "Kind(200)", lease.Kind(200).String())
}

func TestErrCodeMapsBothWays(t *testing.T) {
	sentinels := []error{
		lease.ErrFenced, lease.ErrLeaseExpired, lease.ErrHeld, lease.ErrTTLOutOfRange, lease.ErrGrace,
		lease.ErrNotHolder, lease.ErrTokenExhausted, lease.ErrTimeout, lease.ErrInvalidConfig, lease.ErrBadRequest,
	}
	seen := map[lease.ErrCode]bool{}
	for _, sentinel := range sentinels {
		wrapped := fmt.Errorf("context: %w", sentinel)
		code := lease.CodeOf(wrapped)
		assert.NotEqual(t, lease.CodeOK, code)
		assert.False(t, seen[code], "each sentinel has its own code")
		seen[code] = true
		assert.Same(t, sentinel, code.Err())
		text, err := code.MarshalText()
		require.NoError(t, err)
		var back lease.ErrCode
		require.NoError(t, back.UnmarshalText(text))
		assert.Equal(t, code, back)
	}
	assert.Equal(t, lease.CodeOK, lease.CodeOf(nil))
	assert.NoError(t, lease.CodeOK.Err())
	assert.Equal(t, lease.CodeBadRequest, lease.CodeOf(errors.New("other")))
	assert.Same(t, lease.ErrBadRequest, lease.ErrCode(250).Err())
}
