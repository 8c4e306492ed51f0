package gohost

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/sim"
)

// Config is one goroutine-host run: the nodes and their Go functions, the
// network, the fault schedule and how long the run lasts.
type Config struct {
	// Nodes are the nodes, in the order the host starts them (and iterates
	// them wherever order matters). Names must be unique and non-empty.
	Nodes []NodeSpec
	// Schedule is the fault plan, applied on the bubble's clock (true time
	// since the start of the run). A zero Schedule has no faults.
	Schedule faults.Schedule
	// Duration is how long the run lasts in simulated time. Required.
	Duration time.Duration
	// Latency is the one-way delay of every link, drawn per connection
	// direction from the run's seed; the zero value means the latency of
	// sim.DefaultLink (uniform 1–5 ms).
	Latency sim.Dist
	// Verify runs the seed a second time and compares the traces: the
	// result's Level is then verified or diverged at an event.
	Verify bool
	// SeedCryptoRand makes crypto/rand (and the crypto packages' implicit
	// randomness) deterministic for the run, seeded from the run's seed,
	// through testing/cryptotest.SetGlobalRandom. It is process-global, so
	// the test must not be parallel (cryptotest fails a parallel test); it
	// stays set until the test ends.
	SeedCryptoRand bool
	// SeedMathRand seeds math/rand's (v1) global source from the run's
	// seed at the start of each run, for code that draws from it (client-go's
	// jitter, for one). Since Go 1.24 rand.Seed does nothing unless
	// GODEBUG=randseednop=0, which a test binary sets with a
	// `//go:debug randseednop=0` line in one of its test files; without it
	// Run fails the test, naming the fix, rather than run unseeded. The
	// source is process-global: the test must not be parallel.
	SeedMathRand bool
	// Watchdog is how long, in real time, the host waits for the bubble to
	// settle before it reports a goroutine blocked outside the bubble's
	// control (real I/O, a syscall, a busy loop). Zero means 10 s.
	Watchdog time.Duration
	// History describes the run for the checkers: which node is the lease
	// store, which the fenced store, and the lease configuration.
	History HistoryConfig
}

// NodeSpec is one node: its name and the Go function it runs. The function
// runs as ordinary Go in the host's bubble; it must return once ctx is
// cancelled (at a crash and at the end of the run), and so must every
// goroutine it started.
type NodeSpec struct {
	Name string
	Run  func(ctx context.Context, n *Node) error
}

// HistoryConfig names what the checkers need to know about a run beyond
// what the nodes record.
type HistoryConfig struct {
	// Spec is the sequential specification the lease store declares (P3);
	// empty leaves the choice to the checker's caller.
	Spec string
	// Grantor is the lease store's node, FencedStore the fenced store's.
	Grantor, FencedStore string
	// Members are a replicated lease store's members, Grantor first
	// (History.Members); none for a store of one node.
	Members []string
	// Lease is the lease configuration the implementation runs with.
	Lease history.Lease
	// Contended are the resources live holders keep trying to hold: P4
	// requires each to be held again after the heal. With none (and no
	// tasks or registrations), P4 has nothing to judge and says n/a.
	Contended []string
}

// DefaultWatchdog is the real time the host waits for the bubble to settle
// before it reports a stall.
const DefaultWatchdog = 10 * time.Second

// NodeNames returns the nodes' names, in order: what schedules name.
func (cfg *Config) NodeNames() []string {
	names := make([]string, len(cfg.Nodes))
	for i, n := range cfg.Nodes {
		names[i] = n.Name
	}
	return names
}

// validate reports the first thing that makes cfg unusable.
func (cfg *Config) validate() error {
	if cfg.Duration <= 0 {
		return fmt.Errorf("gohost: duration: must be positive, got %v", cfg.Duration)
	}
	if len(cfg.Nodes) == 0 {
		return errors.New("gohost: nodes: none")
	}
	seen := make(map[string]bool, len(cfg.Nodes))
	for i, n := range cfg.Nodes {
		switch {
		case n.Name == "" || strings.ContainsAny(n.Name, ": /"):
			return fmt.Errorf("gohost: nodes[%d]: name %q must be non-empty, without ':', ' ' or '/'", i, n.Name)
		case seen[n.Name]:
			return fmt.Errorf("gohost: nodes[%d]: name %q used twice", i, n.Name)
		case n.Run == nil:
			return fmt.Errorf("gohost: nodes[%d] (%s): no Run function", i, n.Name)
		}
		seen[n.Name] = true
	}
	if cfg.Latency.Kind != "" {
		if err := cfg.Latency.Validate(); err != nil {
			return fmt.Errorf("gohost: latency: %w", err)
		}
	}
	if len(cfg.Schedule.Events) == 0 && cfg.Schedule.HealAt == 0 {
		return nil
	}
	if cfg.Schedule.Version == 0 {
		cfg.Schedule.Version = faults.Version
	}
	if err := cfg.Schedule.Validate(cfg.NodeNames()); err != nil {
		return fmt.Errorf("gohost: schedule: %w", err)
	}
	return nil
}
