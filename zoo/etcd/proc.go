package etcd

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is one child process of the harness: an etcd member or a holder. Its
// life is one incarnation; a restart is a new proc under the same name.
type proc struct {
	name string
	life uint64
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has been waited for
	err  error         // its exit, once done

	mu      sync.Mutex
	stopped bool // SIGSTOPped and not yet continued
}

// startProc starts path with args as a child in its own process group, its
// stdout to stdout (nil: the log) and stderr to log.
func startProc(name string, life uint64, path string, args []string, stdout, log io.Writer) (*proc, error) {
	cmd := exec.Command(path, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if stdout == nil {
		stdout = log
	}
	cmd.Stdout, cmd.Stderr = stdout, log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("etcd: starting %s: %w", name, err)
	}
	p := &proc{name: name, life: life, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// pid returns the process id.
func (p *proc) pid() int { return p.cmd.Process.Pid }

// alive reports whether the process has not exited.
func (p *proc) alive() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// signal sends sig to the process's group (the process and anything it
// started).
func (p *proc) signal(sig syscall.Signal) error {
	if !p.alive() {
		return nil
	}
	if err := syscall.Kill(-p.pid(), sig); err != nil && err != syscall.ESRCH {
		return fmt.Errorf("etcd: %v to %s: %w", sig, p.name, err)
	}
	return nil
}

// pause stops the process (SIGSTOP); resume continues it (SIGCONT).
func (p *proc) pause() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
	return p.signal(syscall.SIGSTOP)
}

func (p *proc) resume() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = false
	return p.signal(syscall.SIGCONT)
}

// kill ends the process with SIGKILL and waits for it.
func (p *proc) kill() {
	_ = p.signal(syscall.SIGKILL)
	_ = p.signal(syscall.SIGCONT) // a stopped process dies on SIGKILL anyway; this is for its group
	<-p.done
}

// terminate asks the process to stop (SIGTERM, continuing it if stopped),
// and kills it if it has not exited within grace.
func (p *proc) terminate(grace time.Duration) {
	_ = p.signal(syscall.SIGTERM)
	_ = p.signal(syscall.SIGCONT)
	select {
	case <-p.done:
	case <-time.After(grace):
		p.kill()
	}
}

// socketOwners maps the inodes of the sockets the processes hold to the
// processes' names, from /proc/PID/fd.
func socketOwners(pids map[int]string) map[uint64]string {
	out := make(map[uint64]string)
	for pid, name := range pids {
		dir := "/proc/" + strconv.Itoa(pid) + "/fd"
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			l, err := os.Readlink(dir + "/" + e.Name())
			if err != nil || !strings.HasPrefix(l, "socket:[") {
				continue
			}
			if ino, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]"), 10, 64); err == nil {
				out[ino] = name
			}
		}
	}
	return out
}

// socketInode returns the inode of the loopback TCP socket whose local port
// is port, from /proc/net/tcp (and tcp6), or 0.
func socketInode(port int) uint64 {
	want := fmt.Sprintf(":%04X", port)
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			fs := strings.Fields(line)
			if len(fs) < 10 || !strings.HasSuffix(fs[1], want) {
				continue
			}
			if ino, err := strconv.ParseUint(fs[9], 10, 64); err == nil && ino != 0 {
				return ino
			}
		}
	}
	return 0
}
