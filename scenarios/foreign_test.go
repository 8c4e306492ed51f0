package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// panicky is a message of an implementation's own protocol whose Describe
// panics: implementation code.
type panicky struct{}

func (panicky) Describe() history.Part { panic("Describe of a broken message") }

// panickyNet sends one panicky message through the door before the first
// write of leasesim's protocol.
type panickyNet struct {
	lease.Transport
	sent bool
}

func (n *panickyNet) Send(to lease.Addr, m lease.Message) {
	if !n.sent && m.Kind == lease.KindWrite {
		n.sent = true
		n.Transport.(lease.AnyTransport).SendAny(to, panicky{})
	}
	n.Transport.Send(to, m)
}

// TestDescribePanicIsTheImplementations: a foreign message's Describe is
// the implementation's code, so its panic ends the run as the
// implementation's (the panic verdict), never as a bug of leasesim.
func TestDescribePanicIsTheImplementations(t *testing.T) {
	impl := lease.Correct()
	impl.Name = "test/panicky-describe"
	newHolder := impl.NewHolder
	impl.NewHolder = func(env lease.Env, cfg lease.Config, grantor, resource lease.Addr) (lease.Holder, error) {
		env.Net = &panickyNet{Transport: env.Net}
		return newHolder(env, cfg, grantor, resource)
	}
	out, err := scenarios.Execute(scenarios.KleppmannGCPause(), 1, scenarios.Options{Impl: impl})
	require.NoError(t, err, "not a harness panic")
	var panicked *checker.Result
	for i := range out.Checks {
		if out.Checks[i].Property == scenarios.PanicProperty {
			panicked = &out.Checks[i]
		}
	}
	require.NotNil(t, panicked, "the run ends with the implementation's panic")
	assert.Equal(t, checker.Violated, panicked.Status)
	assert.Contains(t, panicked.Summary, "Describe of a broken message")
}
