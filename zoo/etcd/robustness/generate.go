package robustness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/leasesim/leasesim/faults"
	etcd "github.com/leasesim/leasesim/zoo/etcd"
	"go.etcd.io/etcd/tests/v3/robustness/report"
)

// Run is one recorded run: a real etcd cluster under the lease traffic,
// with a fault plan.
type Run struct {
	// Name names the run (its directory under Generate's output).
	Name string
	// Members is 1 or 3.
	Members int
	// Schedule is the fault plan, applied by zoo/etcd's host (its proxy
	// and signals) while the traffic runs; times since the cluster is up.
	Schedule faults.Schedule
	// Traffic is how long the traffic runs; the cluster stays up a second
	// longer, so that no request meets a member stopped by the run's end.
	Traffic time.Duration
}

// Runs are the runs `go run ./cmd/etcdrobustness` records: the traffic
// with no fault, across a leader pause, a member crash and restart, and a
// partition of the leader (m0 is made the leader first).
func Runs() []Run {
	const d = 3 * time.Second
	sched := func(events ...faults.Event) faults.Schedule {
		if len(events) == 0 {
			return faults.Schedule{Version: faults.Version}
		}
		return faults.Schedule{Version: faults.Version, HealAt: d - 500*time.Millisecond, Events: events}
	}
	return []Run{
		{"no-fault", 3, sched(), d},
		{"leader-pause", 3, sched(faults.Event{At: time.Second, Kind: faults.KindPause, Node: "m0", Duration: time.Second}), d},
		{"member-crash", 3, sched(faults.Event{At: time.Second, Kind: faults.KindCrash, Node: "m1"},
			faults.Event{At: 2 * time.Second, Kind: faults.KindRestart, Node: "m1"}), d},
		{"leader-isolated", 3, sched(faults.Event{At: time.Second, Kind: faults.KindIsolate, Node: "m0"}), d},
	}
}

// Record runs r on zoo/etcd's process host (etcd.Run: members built by
// etcd.Build, started on loopback behind its fault proxy, every process,
// port and directory gone when it returns, also on failure) and returns
// what the traffic recorded. logDir receives the members' logs.
func (r Run) Record(ctx context.Context, bin etcd.Binaries, logDir string) ([]report.ClientReport, error) {
	type recorded struct {
		reports []report.ClientReport
		err     error
	}
	done := make(chan recorded, 1)
	started := false
	cfg := etcd.Config{Story: "robustness-" + r.Name, Members: r.Members, Leader: "m0", Schedule: r.Schedule,
		Duration: r.Traffic + time.Second, Dir: logDir, Bin: bin, OmitLessorOps: "no holders",
		Started: func(res etcd.Resources) {
			started = true
			go func() {
				reports, err := Record(ctx, TrafficConfig{Endpoints: res.ClientURLs, MemberClients: 6, ClusterClients: 2,
					Duration: r.Traffic, QPS: 200})
				done <- recorded{reports, err}
			}()
		}}
	_, err := etcd.Run(ctx, cfg)
	if !started {
		return nil, fmt.Errorf("robustness: run %s: %w", r.Name, err)
	}
	got := <-done // the traffic ends by itself, at r.Traffic
	if err := errors.Join(err, got.err); err != nil {
		return nil, fmt.Errorf("robustness: run %s: %w", r.Name, err)
	}
	return got.reports, nil
}

// TempLogDir returns a fresh directory for a run's member logs and a
// function that removes it.
func TempLogDir() (string, func(), error) {
	dir, err := os.MkdirTemp("", "leasesim-robustness-")
	if err != nil {
		return "", nil, fmt.Errorf("robustness: %w", err)
	}
	return dir, func() { _ = os.RemoveAll(dir) }, nil
}
