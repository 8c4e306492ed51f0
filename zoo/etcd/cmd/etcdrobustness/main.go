// Command etcdrobustness records histories with etcd's own robustness-test
// client (go.etcd.io/etcd/tests/v3/robustness, pinned) against a real etcd
// cluster, and judges each with etcd's model and with leasesim's lessor
// specification. It builds etcd's member binary, runs every run of
// robustness.Runs (-rounds times), saves each run's operations in etcd's
// own layout (OUT/NAME/client-N/operations.json) with the converted
// leasesim history (OUT/NAME/history.jsonl, which `simrun check` reads),
// and prints both verdicts per run. With -judge PATH... it judges saved
// runs only (directories, or NAME.tar.gz archives as robustness/testdata
// keeps them), starting nothing.
//
// etcd's model searches each history for at most -etcd-timeout (its
// verdict is then undecided, which is counted and is no failure).
//
// It exits 0 when every history etcd accepts, leasesim accepts too; 1 when
// a run failed or the verdicts differ that way, or etcd rejected a history
// (a bug in etcd, or in this traffic); 2 on bad usage. Ctrl-C ends every
// process it started; without -out its directory is temporary and removed.
//
//	go run ./cmd/etcdrobustness [-rounds 1] [-out DIR] [-etcd-timeout 30s]
//	go run ./cmd/etcdrobustness -judge robustness/testdata/*.tar.gz
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/reports"
	etcd "github.com/leasesim/leasesim/zoo/etcd"
	"github.com/leasesim/leasesim/zoo/etcd/robustness"
	"go.etcd.io/etcd/tests/v3/robustness/validate"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs the command and returns its exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("etcdrobustness", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rounds := fs.Int("rounds", 1, "how many times to record every run")
	out := fs.String("out", "", "directory for the recorded runs (default: a temporary one, removed)")
	judge := fs.Bool("judge", false, "judge the saved runs named as arguments; start nothing")
	timeout := fs.Duration("etcd-timeout", 30*time.Second, "how long etcd's model may search a history (then: undecided)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	switch {
	case *judge && fs.NArg() == 0:
		fmt.Fprintln(stderr, "etcdrobustness: -judge: name at least one saved run (a directory or a .tar.gz)")
		return 2
	case !*judge && fs.NArg() > 0:
		fmt.Fprintf(stderr, "etcdrobustness: %q: arguments are read only with -judge\n", fs.Arg(0))
		return 2
	case *rounds < 1:
		fmt.Fprintf(stderr, "etcdrobustness: -rounds: %d: want at least 1\n", *rounds)
		return 2
	case *timeout <= 0:
		fmt.Fprintf(stderr, "etcdrobustness: -etcd-timeout: %v: want a positive duration\n", *timeout)
		return 2
	}
	t := tally{etcdTimeout: *timeout}
	var err error
	if *judge {
		err = judgeSaved(ctx, fs.Args(), stdout, &t)
	} else {
		err = record(ctx, *rounds, *out, stdout, &t)
	}
	fmt.Fprintf(stdout, "%d histories: etcd accepted %d, rejected %d, undecided within %v %d; leasesim accepted %d; "+
		"etcd accepted and leasesim did not: %d\n", t.runs, t.etcdOK, t.etcdRejected, t.etcdTimeout, t.etcdUndecided,
		t.leasesimOK, t.disagree)
	switch {
	case err != nil && ctx.Err() != nil:
		fmt.Fprintln(stderr, "etcdrobustness: interrupted; every process, port and temporary directory it started is released")
		return 130
	case err != nil:
		fmt.Fprintln(stderr, "etcdrobustness:", err)
		return 1
	case t.disagree > 0 || t.etcdRejected > 0:
		return 1
	}
	return 0
}

// tally counts verdicts.
type tally struct {
	etcdTimeout                                                     time.Duration
	runs, etcdOK, etcdRejected, etcdUndecided, leasesimOK, disagree int
}

func (t *tally) add(name string, v robustness.Verdicts, w io.Writer) {
	t.runs++
	switch {
	case v.EtcdAccepted():
		t.etcdOK++
	case v.Etcd == validate.Timeout || v.Etcd == validate.DeadlineExceeded:
		t.etcdUndecided++
	default:
		t.etcdRejected++
	}
	if v.Leasesim.Status == "ok" {
		t.leasesimOK++
	}
	if !v.Agree() {
		t.disagree++
	}
	fmt.Fprintf(w, "%-24s %s\n", name, v)
}

// judgeSaved judges saved run directories.
func judgeSaved(ctx context.Context, dirs []string, w io.Writer, t *tally) error {
	for _, dir := range dirs {
		reps, err := robustness.Load(dir)
		if err != nil {
			return err
		}
		v, err := robustness.Judge(ctx, reps, robustness.LeaseTTL, t.etcdTimeout)
		if err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		t.add(filepath.Base(dir), v, w)
	}
	return nil
}

// record builds etcd, records every run rounds times into out, and judges
// each.
func record(ctx context.Context, rounds int, out string, w io.Writer, t *tally) error {
	tmp, cleanup, err := robustness.TempLogDir()
	if err != nil {
		return err
	}
	defer cleanup()
	if out == "" {
		out = filepath.Join(tmp, "runs")
	}
	bin, err := etcd.Build(ctx, filepath.Join(tmp, "bin"))
	if err != nil {
		return err
	}
	for round := 1; round <= rounds; round++ {
		for _, r := range robustness.Runs() {
			name := r.Name
			if rounds > 1 {
				name = fmt.Sprintf("%s-%d", r.Name, round)
			}
			if err := recordOne(ctx, r, bin, filepath.Join(out, name), filepath.Join(tmp, "logs", name), w, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// recordOne records one run into dir, writes its leasesim history, and
// judges it.
func recordOne(ctx context.Context, r robustness.Run, bin etcd.Binaries, dir, logDir string, w io.Writer, t *tally) error {
	reps, err := r.Record(ctx, bin, logDir)
	if err != nil {
		return err
	}
	if err := robustness.Save(dir, reps); err != nil {
		return err
	}
	h, err := robustness.Lessor(reps, robustness.LeaseTTL)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	meta := leasewire.Meta{Producer: "etcd robustness client (tests/v3 v3.7.3) via zoo/etcd", Determinism: history.Statistical,
		Scenario: "robustness-" + r.Name}
	if err := reports.WriteFileAtomic(filepath.Join(dir, "history.jsonl"), func(f io.Writer) error {
		return leasewire.WriteHistory(f, h, meta)
	}); err != nil {
		return err
	}
	v, err := robustness.Judge(ctx, reps, robustness.LeaseTTL, t.etcdTimeout)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	t.add(filepath.Base(dir), v, w)
	return nil
}
