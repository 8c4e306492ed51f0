package robustness

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
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
// by etcd's own report code; path may also be such a directory packed as
// NAME.tar.gz (as testdata keeps them), unpacked into a temporary
// directory that is removed before Load returns. A directory with no
// operations is an error.
func Load(path string) ([]report.ClientReport, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("robustness: %w", err)
	}
	dir := path
	if strings.HasSuffix(path, ".tar.gz") {
		tmp, err := os.MkdirTemp("", "leasesim-robustness-")
		if err != nil {
			return nil, fmt.Errorf("robustness: %w", err)
		}
		defer os.RemoveAll(tmp)
		if err := unpack(path, tmp); err != nil {
			return nil, err
		}
		dir = filepath.Join(tmp, strings.TrimSuffix(filepath.Base(path), ".tar.gz"))
	}
	reports, err := report.LoadClientReports(dir)
	if err != nil {
		return nil, fmt.Errorf("robustness: %s: %w", path, err)
	}
	n := 0
	for _, r := range reports {
		n += len(r.KeyValue)
	}
	if n == 0 {
		return nil, fmt.Errorf("robustness: %s: no operations (want client-N/operations.json)", path)
	}
	return reports, nil
}

// unpack extracts the regular files and directories of a .tar.gz into
// dir, refusing a name that leaves it.
func unpack(file, dir string) error {
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("robustness: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("robustness: %s: not a .tar.gz: %w", file, err)
	}
	tr := tar.NewReader(zr)
	for {
		hd, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("robustness: %s: %w", file, err)
		}
		path := filepath.Join(dir, hd.Name)
		if !strings.HasPrefix(path, filepath.Clean(dir)+string(filepath.Separator)) {
			return fmt.Errorf("robustness: %s: %q leaves the directory", file, hd.Name)
		}
		switch hd.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(path, 0o755)
		case tar.TypeReg:
			err = writeFrom(path, tr)
		}
		if err != nil {
			return fmt.Errorf("robustness: %s: %w", file, err)
		}
	}
}

func writeFrom(path string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	w, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}
