package robustness

import (
	"context"
	"fmt"
	"os"
	"time"

	"go.uber.org/zap"

	"github.com/leasesim/leasesim/checker"
	"go.etcd.io/etcd/tests/v3/robustness/report"
	"go.etcd.io/etcd/tests/v3/robustness/validate"
)

// Verdicts are etcd's and leasesim's verdicts on one recorded history.
type Verdicts struct {
	// Etcd is etcd's validation (validate.ValidateAndReturnVisualize, no
	// persisted requests: linearizability only), EtcdErr its error, nil
	// when its model found the history linearizable. Its search has a
	// time limit: validate.Timeout is undecided, neither way.
	Etcd    validate.ResultStatus
	EtcdErr error
	// Leasesim is P3 under the lessor specification on the converted
	// history (Lessor), decided within a number of model steps.
	Leasesim checker.Result
	// Ops is how many operations the converted history has.
	Ops int
}

// EtcdAccepted reports whether etcd's model found the history
// linearizable.
func (v Verdicts) EtcdAccepted() bool { return v.EtcdErr == nil }

// Agree reports whether the differential rule holds: if etcd's model
// accepts the history, leasesim's accepts it too.
func (v Verdicts) Agree() bool { return !v.EtcdAccepted() || v.Leasesim.Status == checker.OK }

// String is one line, for example
// "etcd: linearizable; leasesim P3: ok (412 operations): …".
func (v Verdicts) String() string {
	etcd := "linearizable"
	if v.EtcdErr != nil {
		etcd = v.EtcdErr.Error()
	}
	return fmt.Sprintf("etcd: %s; leasesim P3: %s (%d operations): %s", etcd, v.Leasesim.Status, v.Ops, v.Leasesim.Summary)
}

// Judge returns etcd's verdict and leasesim's on the same recorded
// operations, whose leases were granted with ttl. etcd's search stops
// after etcdTimeout (as etcd's robustness tests bound it), undecided; it
// is also abandoned, with ctx's error, when ctx ends. An operation the
// conversion cannot express is an error.
func Judge(ctx context.Context, reports []report.ClientReport, ttl, etcdTimeout time.Duration) (Verdicts, error) {
	h, err := Lessor(reports, ttl)
	if err != nil {
		return Verdicts{}, err
	}
	v := Verdicts{Leasesim: checker.Linearizability(h, checker.Options{}), Ops: h.NumOps()}
	done := make(chan validate.RobustnessResult, 1)
	go func() { // porcupine does not stop for ctx: the search is left to its timeout
		done <- validate.ValidateAndReturnVisualize(zap.NewNop(), validate.Config{}, reports, nil, etcdTimeout)
	}()
	select {
	case res := <-done:
		v.EtcdErr, v.Etcd = res.Error(), res.Linearization.Status
		if res.Assumptions.Error() != nil {
			v.Etcd = res.Assumptions.Status
		}
		return v, nil
	case <-ctx.Done():
		return Verdicts{}, fmt.Errorf("robustness: etcd's validation: %w", ctx.Err())
	}
}

// Save writes reports into dir in etcd's own layout (client-N/
// operations.json, as a robustness test's report directory has them), by
// etcd's own report code; dir is replaced.
func Save(dir string, reports []report.ClientReport) error {
	r, err := report.NewTestReport(zap.NewNop(), dir, map[string]string{}, nil)
	if err != nil {
		return fmt.Errorf("robustness: %w", err)
	}
	r.SetClientReports(reports)
	if err := r.SaveEtcdData(); err != nil {
		return fmt.Errorf("robustness: saving %s: %w", dir, err)
	}
	return nil
}

// Load reads what Save wrote (or a robustness test's report directory),
// by etcd's own report code; a directory with no operations is an error.
func Load(dir string) ([]report.ClientReport, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("robustness: %w", err)
	}
	reports, err := report.LoadClientReports(dir)
	if err != nil {
		return nil, fmt.Errorf("robustness: %s: %w", dir, err)
	}
	n := 0
	for _, r := range reports {
		n += len(r.KeyValue)
	}
	if n == 0 {
		return nil, fmt.Errorf("robustness: %s: no operations (want client-N/operations.json)", dir)
	}
	return reports, nil
}
