package lease

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stepClock is a clock a test sets by hand; the rest of stepEnv does
// nothing.
type (
	stepClock    struct{ now time.Duration }
	stoppedTimer struct{}
	discard      struct{}
	mapStore     map[string][]byte
)

func (c *stepClock) Now() time.Duration                    { return c.now }
func (c *stepClock) AfterFunc(time.Duration, func()) Timer { return stoppedTimer{} }
func (stoppedTimer) Stop() bool                            { return false }
func (discard) Send(Addr, Message)                         {}
func (s mapStore) Get(key string) ([]byte, bool)           { v, ok := s[key]; return v, ok }
func (s mapStore) Put(key string, value []byte)            { s[key] = value }
func (s mapStore) Delete(key string)                       { delete(s, key) }
func (mapStore) Sync() error                               { return nil }

func stepEnv(self Addr, c *stepClock) Env {
	return Env{Self: self, Clock: c, Net: discard{}, Store: mapStore{}, Rand: rand.New(rand.NewPCG(1, 2))}
}

// Each invariant asserted where the data is produced panics, naming
// itself, when the data is wrong, and stays quiet when it is right.
func TestInvariantsAssertedWhereDataIsProduced(t *testing.T) {
	cfg := Config{TTL: 10 * time.Second}.WithDefaults()
	require.NoError(t, cfg.Validate())
	tests := []struct {
		name  string
		do    func(c *stepClock, h *holder)
		panic string // "" when nothing is wrong
	}{
		{"deadline from a past send time", func(c *stepClock, h *holder) {
			assert.Equal(t, c.now-time.Second+cfg.HolderValidity(cfg.TTL),
				h.deadlineFor(Message{SentAt: c.now - time.Second, TTL: cfg.TTL}))
		}, ""},
		{"echoed send time in the future", func(c *stepClock, h *holder) {
			h.deadlineFor(Message{Resource: "r", SentAt: c.now + 1, TTL: cfg.TTL})
		}, "echoed-send-time-not-future"},
		{"deadline beyond send time plus TTL", func(c *stepClock, h *holder) {
			h.cfg.Margin = -time.Second // a config Validate refuses
			h.deadlineFor(Message{Resource: "r", SentAt: c.now, TTL: cfg.TTL})
		}, "deadline-within-ttl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &stepClock{now: time.Hour}
			hd, err := NewHolder(stepEnv("h1", c), cfg, "grantor", "store")
			require.NoError(t, err)
			run := func() { tt.do(c, hd.(*holder)) }
			if tt.panic == "" {
				assert.NotPanics(t, run)
				return
			}
			assert.Contains(t, panicText(t, run), "invariant "+tt.panic+" violated")
		})
	}
}

// panicText returns what f panics with, as a string.
func panicText(t *testing.T, f func()) (text string) {
	t.Helper()
	defer func() { text, _ = recover().(string) }()
	f()
	return ""
}
