package etcd

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"
)

// Binaries are the two programs the harness runs as child processes, built
// from this module's source by Build.
type Binaries struct {
	// Member runs one etcd member (cmd/etcdmember); Holder one lock holder
	// (cmd/etcdholder).
	Member, Holder string
	// BuildTime is how long `go build` took.
	BuildTime time.Duration
}

// ModuleDir returns the directory of this module's source, where Build runs
// `go build`.
func ModuleDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "."
	}
	return filepath.Dir(file)
}

// Build builds cmd/etcdmember and cmd/etcdholder into dir with `go build`,
// from the module's pinned dependencies (no download if the module cache
// has them, no container, no prebuilt binary). The error carries go's
// output, so a test that cannot build etcd fails with the reason.
func Build(ctx context.Context, dir string) (Binaries, error) {
	start := time.Now()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", dir+string(os.PathSeparator), "./cmd/etcdmember", "./cmd/etcdholder")
	cmd.Dir = ModuleDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return Binaries{}, fmt.Errorf("etcd: building etcd's member binary (go build in %s): %w\n%s", cmd.Dir, err, out)
	}
	return Binaries{Member: filepath.Join(dir, "etcdmember"), Holder: filepath.Join(dir, "etcdholder"),
		BuildTime: time.Since(start)}, nil
}
