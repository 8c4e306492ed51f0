package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// leakyTransport marks every other reply's Prefix, counted with a process-global
// counter: state that differs between two runs of one seed in one process,
// while the number, order and timing of messages stay the same.
type leakyTransport struct {
	net     lease.Transport
	counter *uint64
}

func (t leakyTransport) Send(to lease.Addr, m lease.Message) {
	if !m.Kind.IsRequest() {
		*t.counter++
		if *t.counter%2 == 1 {
			m.Prefix = "leak" // a field no holder reads in a reply: invisible to timing
		}
	}
	t.net.Send(to, m)
}

// The trace hash covers message contents: a grantor that leaks
// process-global state into its replies changes the hash between two runs
// of one seed, although every message id, time and order is the same.
func TestTraceHashCoversMessageContents(t *testing.T) {
	var counter uint64
	leaky := lease.Correct()
	leaky.Name = "leaky"
	leaky.NewGrantor = func(env lease.Env, cfg lease.Config) (lease.Grantor, error) {
		env.Net = leakyTransport{net: env.Net, counter: &counter}
		return lease.NewGrantor(env, cfg)
	}
	sc, err := scenarios.Lookup("swarm")
	require.NoError(t, err)
	opts := scenarios.Options{Impl: leaky}
	first, err := scenarios.Execute(sc, 1, opts)
	require.NoError(t, err)
	counter = 1 // the leak: process-global state moved on, so every reply's mark flips (whatever the first run's count)
	second, err := scenarios.Execute(sc, 1, opts)
	require.NoError(t, err)
	require.Equal(t, first.Sim.Events, second.Sim.Events, "the leak must not change timing or order")
	assert.NotEqual(t, first.Sim.TraceHash, second.Sim.TraceHash, "different message contents, same hash")

	// Without the leak the same two runs agree.
	again, err := scenarios.Execute(sc, 1, scenarios.Options{})
	require.NoError(t, err)
	once, err := scenarios.Execute(sc, 1, scenarios.Options{})
	require.NoError(t, err)
	assert.Equal(t, once.Sim.TraceHash, again.Sim.TraceHash)
}
