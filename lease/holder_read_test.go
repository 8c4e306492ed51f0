package lease_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

// readResult is what a Read handed its done callback.
type readResult struct {
	value  []byte
	token  uint64
	err    error
	called int
}

func (r *readResult) done(value []byte, token uint64, err error) {
	r.value, r.token, r.err = value, token, err
	r.called++
}

func TestHolderReadsBackUnderItsToken(t *testing.T) {
	f := newFixture(t, testConfig())
	h := f.holder("h1")
	acquireLogged(h, "r")
	f.w.Settle()
	g, ok := h.Valid("r")
	require.True(t, ok)

	var got readResult
	h.(lease.Reader).Read("r", "k", got.done)
	f.w.Settle()
	require.NoError(t, got.err)
	assert.Nil(t, got.value, "a key never written reads empty")
	assert.Zero(t, got.token)

	var werr error
	h.Write("r", "k", []byte("v1"), func(err error) { werr = err })
	f.w.Settle()
	require.NoError(t, werr)
	h.(lease.Reader).Read("r", "k", got.done)
	f.w.Settle()
	require.NoError(t, got.err)
	assert.Equal(t, []byte("v1"), got.value)
	assert.Equal(t, g.Token, got.token, "the read names the token that wrote the value")
	assert.Equal(t, 2, got.called)
}

func TestHolderReadRefusesWithoutLease(t *testing.T) {
	f := newFixture(t, testConfig())
	h := f.holder("h1")
	var got readResult
	h.(lease.Reader).Read("r", "k", got.done)
	assert.ErrorIs(t, got.err, lease.ErrLeaseExpired)
	assert.EqualError(t, got.err, `read "k" on "r": `+lease.ErrLeaseExpired.Error())
	f.w.Settle()
	assert.Equal(t, 1, got.called, "nothing was sent, so nothing else answers")
}

func TestHolderReadOfALaterTokensValueIsFenced(t *testing.T) {
	f := newFixture(t, testConfig())
	h := f.holder("h1")
	log := acquireLogged(h, "r")
	f.w.Settle()
	g, _ := h.Valid("r")
	reply := f.call("h9", resourceAddr, lease.Message{Kind: lease.KindWrite, Resource: "r", Token: g.Token + 1, Key: "k", Value: []byte("theirs")})
	require.Equal(t, lease.CodeOK, reply.Err)

	var got readResult
	h.(lease.Reader).Read("r", "k", got.done)
	f.w.Settle()
	assert.ErrorIs(t, got.err, lease.ErrFenced)
	assert.Nil(t, got.value, "a fenced read hands over no value")
	_, ok := h.Valid("r")
	assert.False(t, ok, "a holder that read a later token's value stops acting on its lease")
	require.Len(t, log.lost, 1)
	assert.ErrorIs(t, log.lost[0].err, lease.ErrFenced)
}

func TestHolderReadTimeout(t *testing.T) {
	f := newFixture(t, testConfig())
	h := f.holder("h1")
	acquireLogged(h, "r")
	f.w.Settle()
	f.w.Intercept = func(_, to lease.Addr, _ lease.Message) bool { return to != resourceAddr }
	var got readResult
	h.(lease.Reader).Read("r", "k", got.done)
	f.w.Advance(f.cfg.RequestTimeout - 1)
	assert.Zero(t, got.called)
	f.w.Advance(1)
	assert.ErrorIs(t, got.err, lease.ErrTimeout)
}
