package etcd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/zoo/etcd/internal/wire"
)

// HolderSpec is one holder process and its script (cmd/etcdholder).
type HolderSpec struct {
	// Name is the holder's node name (h1, h2, …).
	Name string
	// Script is "lock" (lock at LockAt, hold and write until ReleaseAt or
	// until the belief ends) or "stale-unlock" (etcd #22082).
	Script string
	// LockAt, ReleaseAt and RetryAt are true times since the run's start
	// (ReleaseAt zero: never release).
	LockAt, ReleaseAt, RetryAt time.Duration
	// Work is the time between checking the belief and writing (default
	// 200ms); UnlockTimeout is Unlock's context timeout (default 500ms).
	Work, UnlockTimeout time.Duration
	// Members are the members whose client URLs the holder is given; nil
	// is every member.
	Members []string
}

// Config is one real-time run.
type Config struct {
	// Story names the run.
	Story string
	// Members is 1 or 3; ElectionMs and TickMs configure them (defaults
	// 1000 and 100, etcd's).
	Members            int
	ElectionMs, TickMs uint
	// Leader, if set, is made the leader (MoveLeader) before the run
	// starts, so the schedule can name it.
	Leader string
	// TTL is the sessions' TTL (whole seconds; etcd's minimum is 1.5 ×
	// the election timeout).
	TTL time.Duration
	// Holders are the holder processes.
	Holders []HolderSpec
	// Schedule is the fault plan, times since the run's start; nodes are
	// the members and the holders by name.
	Schedule faults.Schedule
	// Duration is when the run ends, since its start.
	Duration time.Duration
	// Unfenced makes the store accept every write whatever its token.
	Unfenced bool
	// Seed seeds the proxy's latency draws.
	Seed uint64
	// Dir is the run directory: member and holder logs go there.
	Dir string
	// Bin are the binaries (Build).
	Bin Binaries
	// ProbeLeases, if set, has the harness read the remaining TTL of every
	// lease granted (LeaseTimeToLive) every 100ms from these members, as
	// "harness".
	ProbeLeases []string
	// OmitLessorOps, if set, says why the history carries none of etcd's
	// operations for P3 (they are still in the run's etcd-ops.jsonl).
	OmitLessorOps string
	// Started, if set, is told what the run holds once every process is
	// up (a test checks all of it is released when Run returns).
	Started func(Resources)
}

// Resources are what a run holds while it runs.
type Resources struct {
	// Ports are the loopback ports listened on: the members', the
	// proxies' and the fenced store's.
	Ports []int
	// TempDir holds the members' data directories.
	TempDir string
	// PIDs are the child processes.
	PIDs []int
	// ClientURLs are the members' client URLs, through the fault proxy,
	// in member order (m0, m1, …): what a client of the cluster dials.
	ClientURLs []string
}

func (c *Config) resource() string { return "lock" }

// LeaseSample is one reading of a lease's remaining TTL by the harness.
type LeaseSample struct {
	At        time.Duration // true time of the reply
	Lease     int64
	Remaining time.Duration // -1s: not found (expired or revoked)
}

// Result is what one run of the real-time host produced, before judging:
// the history the checkers read and what only this host has (as
// gohost.Result is the goroutine host's). scenarios.Execute judges the
// history; Env keeps the rest for the run directory and the stories'
// figures.
type Result struct {
	History *history.History
	// EtcdOps are every operation the holders made on etcd (Lock and
	// Unlock too, and those whose reply never came), as they saw them.
	EtcdOps []history.Operation
	// Samples are the lease readings (Config.ProbeLeases).
	Samples []LeaseSample
	// Leader is the member that led when the run started.
	Leader string
	// Log is the harness's own log of the run.
	Log []string
	// Start is the CLOCK_MONOTONIC reading of the run's start.
	Start int64
}

// host is one running real-time host.
type host struct {
	cfg     Config
	clock   wire.Clock
	net     *Net
	members []*member
	store   net.Listener // the fenced store's (gohost.ServeFencedStore)
	rec     *recorder
	inj     *injector

	mu      sync.Mutex
	holders map[string]*proc
	readers sync.WaitGroup
	log     []string
	samples []LeaseSample
}

func (h *host) now() time.Duration {
	if h.clock.StartMono == 0 {
		return 0
	}
	return h.clock.Now()
}

func (h *host) logf(format string, args ...any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.log = append(h.log, fmt.Sprintf("%v %s", h.now().Round(time.Millisecond), fmt.Sprintf(format, args...)))
}

// proc returns the running process named name, or nil.
func (h *host) proc(name string) *proc {
	h.mu.Lock()
	defer h.mu.Unlock()
	if p := h.holders[name]; p != nil {
		return p
	}
	for _, m := range h.members {
		if m.name == name {
			return m.proc
		}
	}
	return nil
}

// procs returns every process started, live or not.
func (h *host) procs() []*proc {
	h.mu.Lock()
	defer h.mu.Unlock()
	var ps []*proc
	for _, m := range h.members {
		if m.proc != nil {
			ps = append(ps, m.proc)
		}
	}
	for _, p := range h.holders {
		ps = append(ps, p)
	}
	return ps
}

// owner names the process holding the local loopback port of a socket.
func (h *host) owner(port int) string {
	ino := socketInode(port)
	if ino == 0 {
		return "unknown"
	}
	pids := map[int]string{os.Getpid(): "harness"}
	for _, p := range h.procs() {
		if p.alive() {
			pids[p.pid()] = p.name
		}
	}
	if name, ok := socketOwners(pids)[ino]; ok {
		return name
	}
	return "unknown"
}

// crash kills a process (SIGKILL); a holder's open belief ends there.
func (h *host) crash(name string, p *proc) {
	p.kill()
	h.rec.closeHolder(name, history.Time(h.now()), history.EndCrash)
}

// restartMember starts a crashed member again.
func (h *host) restartMember(name string) error {
	for _, m := range h.members {
		if m.name == name {
			if m.proc.alive() {
				return fmt.Errorf("etcd: restart %s: it is running", name)
			}
			return m.start(h.cfg.Bin.Member, h.members)
		}
	}
	return fmt.Errorf("etcd: restart %s: no such member", name)
}

// Run runs one real-time run: it starts the members behind the fault proxy,
// the fenced store and the holders, applies the schedule, and at
// cfg.Duration ends every process it started and releases every port and
// temporary directory, also when ctx ends early or it fails.
func Run(ctx context.Context, cfg Config) (out *Result, err error) {
	if cfg.Members != 1 && cfg.Members != 3 {
		return nil, fmt.Errorf("etcd: %d members: 1 or 3", cfg.Members)
	}
	if cfg.ElectionMs == 0 {
		cfg.ElectionMs = 1000
	}
	if cfg.TickMs == 0 {
		cfg.TickMs = 100
	}
	if cfg.Dir == "" {
		return nil, errors.New("etcd: Config.Dir is required")
	}
	nodes := []string{}
	for i := range cfg.Members {
		nodes = append(nodes, fmt.Sprintf("m%d", i))
	}
	isHolder := map[string]bool{}
	for _, hs := range cfg.Holders {
		nodes = append(nodes, hs.Name)
		isHolder[hs.Name] = true
	}
	if err := checkSchedule(cfg.Schedule, nodes, isHolder); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("etcd: run directory: %w", err)
	}
	tmp, err := os.MkdirTemp("", "leasesim-etcd-")
	if err != nil {
		return nil, fmt.Errorf("etcd: temporary directory: %w", err)
	}
	h := &host{cfg: cfg, rec: newRecorder(), holders: map[string]*proc{}}
	h.inj = &injector{h: h}
	h.net = newNet(cfg.Seed, h.owner)
	storeCtx, stopStore := context.WithCancel(context.Background())
	var served sync.WaitGroup
	defer func() { // everything the run started ends here, whatever happened
		h.inj.stop()
		h.shutdown()
		h.net.Close()
		stopStore()
		served.Wait()
		if rerr := os.RemoveAll(tmp); rerr != nil && err == nil {
			err = fmt.Errorf("etcd: removing %s: %w", tmp, rerr)
		}
	}()

	if h.members, err = newMembers(cfg.Members, tmp, h.net, cfg.ElectionMs, cfg.TickMs); err != nil {
		return nil, err
	}
	for _, m := range h.members {
		m.logPath = filepath.Join(cfg.Dir, m.name+".log")
		_ = os.Remove(m.logPath)
		if err := m.start(cfg.Bin.Member, h.members); err != nil {
			return nil, err
		}
	}
	cli, err := client(h.members)
	if err != nil {
		return nil, fmt.Errorf("etcd: harness client: %w", err)
	}
	defer cli.Close()
	rctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	err = waitReady(rctx, cli, h.members)
	cancel()
	if err != nil {
		return nil, err
	}
	if cfg.Leader != "" {
		for _, m := range h.members {
			if m.name == cfg.Leader {
				if err := makeLeader(ctx, cli, h.members, m); err != nil {
					return nil, err
				}
			}
		}
	}
	lead, _, err := leader(ctx, cli, h.members)
	if err != nil {
		return nil, err
	}
	if h.store, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		return nil, fmt.Errorf("etcd: fenced store: %w", err)
	}
	served.Go(func() {
		gohost.ServeFencedStore(storeCtx, h.store, gohost.StoreOptions{Unfenced: cfg.Unfenced}, func(w gohost.Write) {
			h.rec.storeOp(*w.Operation(StoreName, history.Time(h.now())))
		})
	})

	h.clock = wire.Clock{StartMono: wire.Mono()}
	h.logf("run %s starts: %d member(s), leader %s, store %s (unfenced %v)", cfg.Story, cfg.Members, lead.name, h.store.Addr().String(), cfg.Unfenced)
	for _, hs := range cfg.Holders {
		if err := h.startHolder(hs); err != nil {
			return nil, err
		}
	}
	if cfg.Started != nil {
		cfg.Started(h.resources(tmp))
	}
	h.inj.schedule(cfg.Schedule)
	var probes sync.WaitGroup
	pctx, stopProbes := context.WithCancel(ctx)
	if len(cfg.ProbeLeases) > 0 {
		probes.Add(1)
		go func() { defer probes.Done(); h.probeLeases(pctx, cfg.ProbeLeases) }()
	}
	select {
	case <-time.After(cfg.Duration - h.now()):
	case <-ctx.Done():
		stopProbes()
		return nil, fmt.Errorf("etcd: run %s: %w", cfg.Story, ctx.Err())
	}
	stopProbes()
	probes.Wait()
	stopAt := h.now()
	h.inj.stop()
	h.shutdown()
	end := h.now() // after the last report
	for name := range h.holders {
		h.rec.closeHolder(name, history.Time(stopAt), history.EndRun)
	}
	h.inj.mu.Lock()
	var windows []history.FaultWindow
	for _, w := range h.inj.windows {
		fw := *w
		if fw.End == history.Never || fw.End > history.Time(end) {
			fw.End = history.Time(end)
		}
		windows = append(windows, fw)
	}
	h.inj.mu.Unlock()
	hist := h.rec.history(&cfg, history.Time(end), windows)
	if cfg.Leader != "" { // the host made cfg.Leader lead: whether it did is the host's to say
		hist.Premises = append(hist.Premises, history.PremiseRecord{Name: cfg.Leader + " led when the run started",
			Held: lead.name == cfg.Leader, Detail: "leader at the start: " + lead.name})
	}
	return &Result{History: hist, EtcdOps: h.rec.etcdOps(), Samples: h.samples, Leader: lead.name, Log: h.log,
		Start: h.clock.StartMono}, nil
}

// resources returns what the run holds now.
func (h *host) resources(tmp string) Resources {
	r := Resources{TempDir: tmp}
	for _, m := range h.members {
		r.Ports = append(r.Ports, m.clientPort, m.peerPort, portOf(m.clientPx.Addr()), portOf(m.peerPx.Addr()))
		r.ClientURLs = append(r.ClientURLs, m.clientURL())
	}
	r.Ports = append(r.Ports, portOf(h.store.Addr().String()))
	for _, p := range h.procs() {
		r.PIDs = append(r.PIDs, p.pid())
	}
	return r
}

func portOf(addr string) int {
	_, p, _ := strings.Cut(addr, ":")
	n, _ := strconv.Atoi(p)
	return n
}

// startHolder starts one holder process; a goroutine reads its reports.
func (h *host) startHolder(hs HolderSpec) error {
	var eps []string
	for _, m := range h.members {
		if hs.Members == nil || contains(hs.Members, m.name) {
			eps = append(eps, m.clientURL())
		}
	}
	work, ut := hs.Work, hs.UnlockTimeout
	if work == 0 {
		work = 200 * time.Millisecond
	}
	if ut == 0 {
		ut = 500 * time.Millisecond
	}
	script := hs.Script
	if script == "" {
		script = "lock"
	}
	args := []string{"-name", hs.Name, "-life", "1", "-script", script, "-resource", h.cfg.resource(),
		"-prefix", "/leasesim/" + h.cfg.resource(), "-endpoints", strings.Join(eps, ","), "-store", h.store.Addr().String(),
		"-ttl", fmt.Sprint(int(h.cfg.TTL / time.Second)), "-start-mono", fmt.Sprint(h.clock.StartMono),
		"-lock-at", hs.LockAt.String(), "-release-at", hs.ReleaseAt.String(), "-retry-at", hs.RetryAt.String(),
		"-work", work.String(), "-unlock-timeout", ut.String()}
	logPath := filepath.Join(h.cfg.Dir, hs.Name+".log")
	log, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("etcd: %s's log: %w", hs.Name, err)
	}
	fmt.Fprintf(log, "---- leasesim: %s %s\n", h.cfg.Bin.Holder, strings.Join(args, " "))
	pr, pw := io.Pipe()
	p, err := startProc(hs.Name, 1, h.cfg.Bin.Holder, args, pw, log)
	if err != nil {
		log.Close()
		return err
	}
	h.mu.Lock()
	h.holders[hs.Name] = p
	h.mu.Unlock()
	go func() { <-p.done; pw.Close() }()
	h.readers.Add(1)
	go func() {
		defer h.readers.Done()
		defer log.Close()
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			fmt.Fprintf(log, "%s\n", sc.Bytes())
			var rep wire.Report
			if err := json.Unmarshal(sc.Bytes(), &rep); err != nil {
				continue
			}
			h.rec.report(hs.Name, 1, rep)
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	return nil
}

// probeLeases reads every granted lease's remaining TTL every 100ms.
func (h *host) probeLeases(ctx context.Context, members []string) {
	var ms []*member
	for _, m := range h.members {
		if contains(members, m.name) {
			ms = append(ms, m)
		}
	}
	cli, err := client(ms)
	if err != nil {
		h.logf("probe: %v", err)
		return
	}
	defer cli.Close()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		h.rec.mu.Lock()
		var ids []int64
		for _, o := range h.rec.ops {
			if o.Input.Kind == "grant" && o.Output.Lease != 0 && !containsInt(ids, int64(o.Output.Lease)) {
				ids = append(ids, int64(o.Output.Lease))
			}
		}
		h.rec.mu.Unlock()
		for _, id := range ids {
			tctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			resp, err := cli.TimeToLive(tctx, clientv3.LeaseID(id))
			cancel()
			if err != nil {
				continue
			}
			s := LeaseSample{At: h.now(), Lease: id, Remaining: time.Duration(resp.TTL) * time.Second}
			h.mu.Lock()
			h.samples = append(h.samples, s)
			h.mu.Unlock()
		}
	}
}

// shutdown ends every process: holders first (SIGTERM, then SIGKILL after
// a second), then members (the same, two seconds), and waits for the
// holders' report readers.
func (h *host) shutdown() {
	h.mu.Lock()
	holders := make([]*proc, 0, len(h.holders))
	for _, p := range h.holders {
		holders = append(holders, p)
	}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range holders {
		wg.Go(func() { p.terminate(time.Second) })
	}
	wg.Wait()
	for _, m := range h.members {
		if m.proc != nil {
			wg.Go(func() { m.proc.terminate(2 * time.Second) })
		}
	}
	wg.Wait()
	h.readers.Wait()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func containsInt(list []int64, v int64) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
