package scenarios_test

import (
	"errors"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// panickingObserver is a harness-side observer that panics with a runtime
// error (a nil-map write) on the first event, inside the implementation's
// call that emits it.
type panickingObserver struct{ seen map[string]int }

func (o panickingObserver) Observe(lease.Event) { o.seen["x"]++ }

// panickingHolder is an implementation whose holders panic on their
// first delivered message, with a message that looks like the harness's.
func panickingHolder() lease.Impl {
	impl := lease.Correct()
	impl.Name = "test/panics"
	impl.NewHolder = func(env lease.Env, cfg lease.Config, g, r lease.Addr) (lease.Holder, error) {
		h, err := lease.NewHolder(env, cfg, g, r)
		return deliverPanics{h.(ownHolder)}, err
	}
	return impl
}

// ownHolder is leasesim's holder with everything it speaks.
type ownHolder interface {
	lease.Holder
	lease.Checkpointer
	lease.Effector
	lease.Reader
}

type deliverPanics struct{ ownHolder }

func (deliverPanics) Deliver(lease.Addr, lease.Message) {
	panic("scenarios: looks like the harness, is not")
}

// panicky is a message of an implementation's own protocol whose Describe
// panics: implementation code, which the wiring calls.
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

// panickyDescribe is an implementation whose holders send one message of
// their own whose Describe panics.
func panickyDescribe() lease.Impl {
	impl := lease.Correct()
	impl.Name = "test/panicky-describe"
	impl.NewHolder = func(env lease.Env, cfg lease.Config, grantor, resource lease.Addr) (lease.Holder, error) {
		env.Net = &panickyNet{Transport: env.Net}
		return lease.NewHolder(env, cfg, grantor, resource)
	}
	return impl
}

// Panics are told apart by where they come from, never by their text.
func TestPanicsAreBlamedByOrigin(t *testing.T) {
	sc, err := scenarios.Lookup("kleppmann-gc-pause")
	require.NoError(t, err)
	bootPanics := lease.Correct()
	bootPanics.Name = "test/boot-panics"
	bootPanics.NewResource = func(lease.Env) (lease.Resource, error) { panic("sim: broken invariant") }

	tests := []struct {
		name    string
		opts    scenarios.Options
		inject  bool
		harness bool // a harness bug; else the implementation's panic
		detail  string
	}{
		{name: "the implementation's Deliver", opts: scenarios.Options{Impl: panickingHolder()},
			detail: "looks like the harness"},
		{name: "the implementation's constructor", opts: scenarios.Options{Impl: bootPanics},
			detail: "sim: broken invariant"},
		{name: "a harness observer called by the implementation",
			opts: scenarios.Options{Observer: panickingObserver{}}, harness: true, detail: "nil map"},
		{name: "the wiring's transport", inject: true, harness: true, detail: "index out of range"},
		{name: "the Describe of the implementation's own message", opts: scenarios.Options{Impl: panickyDescribe()},
			detail: "Describe of a broken message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.inject {
				t.Cleanup(scenarios.InjectHarnessFault())
			}
			out, err := scenarios.Execute(sc, 1, tt.opts)
			if tt.harness {
				var hp *scenarios.HarnessPanic
				require.ErrorAs(t, err, &hp)
				assert.Nil(t, out)
				assert.ErrorContains(t, err, tt.detail)
				assert.Contains(t, hp.Stack, "scenarios", "the stack where it panicked")
				var re runtime.Error
				assert.True(t, errors.As(err, &re), "the runtime error is reachable")
				return
			}
			require.NoError(t, err)
			var panicked *checker.Result
			for i := range out.Checks {
				if out.Checks[i].Property == scenarios.PanicProperty {
					panicked = &out.Checks[i]
				}
			}
			require.NotNil(t, panicked, "the implementation's panic is a verdict")
			assert.Equal(t, checker.Violated, panicked.Status)
			assert.Contains(t, panicked.Summary, tt.detail)
		})
	}
}
