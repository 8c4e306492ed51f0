package etcd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// member is one etcd member: its ports, its proxies and its process.
type member struct {
	name               string
	clientPort         int    // where it listens for clients
	peerPort           int    // where it listens for peers
	clientPx, peerPx   *Proxy // what everyone else dials
	dataDir, logPath   string
	proc               *proc
	life               uint64
	electionMs, tickMs uint
}

// freePort returns a loopback port nobody listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// clientURL is the URL clients dial: the proxy.
func (m *member) clientURL() string { return "http://" + m.clientPx.Addr() }

// peerURL is the URL peers dial: the proxy.
func (m *member) peerURL() string { return "http://" + m.peerPx.Addr() }

// newMembers prepares n members under dir, with their proxies on net.
func newMembers(n int, dir string, nt *Net, electionMs, tickMs uint) ([]*member, error) {
	var ms []*member
	for i := range n {
		m := &member{name: fmt.Sprintf("m%d", i), electionMs: electionMs, tickMs: tickMs}
		var err error
		if m.clientPort, err = freePort(); err != nil {
			return nil, err
		}
		if m.peerPort, err = freePort(); err != nil {
			return nil, err
		}
		if m.clientPx, err = nt.newProxy(m.name, fmt.Sprintf("127.0.0.1:%d", m.clientPort)); err != nil {
			return nil, err
		}
		if m.peerPx, err = nt.newProxy(m.name, fmt.Sprintf("127.0.0.1:%d", m.peerPort)); err != nil {
			return nil, err
		}
		m.dataDir = filepath.Join(dir, m.name+".etcd")
		m.logPath = filepath.Join(dir, m.name+".log")
		ms = append(ms, m)
	}
	return ms, nil
}

// start starts the member's process (again, after a crash: same data dir, a
// new life), appending to its log.
func (m *member) start(bin string, cluster []*member) error {
	var ic []string
	for _, o := range cluster {
		ic = append(ic, o.name+"="+o.peerURL())
	}
	args := []string{"-name", m.name, "-data-dir", m.dataDir,
		"-listen-client-urls", fmt.Sprintf("http://127.0.0.1:%d", m.clientPort), "-advertise-client-urls", m.clientURL(),
		"-listen-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", m.peerPort), "-advertise-peer-urls", m.peerURL(),
		"-initial-cluster", strings.Join(ic, ","), "-initial-cluster-token", "leasesim",
		"-election-timeout", fmt.Sprint(m.electionMs), "-heartbeat-interval", fmt.Sprint(m.tickMs)}
	log, err := os.OpenFile(m.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("etcd: %s's log: %w", m.name, err)
	}
	m.life++
	fmt.Fprintf(log, "---- leasesim: %s life %d: %s %s\n", m.name, m.life, bin, strings.Join(args, " "))
	p, err := startProc(m.name, m.life, bin, args, nil, log)
	if err != nil {
		log.Close()
		return err
	}
	go func() { <-p.done; log.Close() }()
	m.proc = p
	return nil
}

// client returns a client of the given members, for the harness's own
// probes (through the proxies, as "harness").
func client(ms []*member) (*clientv3.Client, error) {
	var eps []string
	for _, m := range ms {
		eps = append(eps, m.clientURL())
	}
	return clientv3.New(clientv3.Config{Endpoints: eps, DialTimeout: 3 * time.Second, Logger: zap.NewNop(),
		DialKeepAliveTime: time.Second, DialKeepAliveTimeout: time.Second})
}

// waitReady waits until every member answers a status request and the
// cluster has a leader.
func waitReady(ctx context.Context, cli *clientv3.Client, ms []*member) error {
	for _, m := range ms {
		for {
			sctx, cancel := context.WithTimeout(ctx, time.Second)
			st, err := cli.Status(sctx, m.clientURL())
			cancel()
			if err == nil && st.Leader != 0 {
				break
			}
			if !m.proc.alive() {
				return fmt.Errorf("etcd: %s exited before it was ready (%v); see %s", m.name, m.proc.err, m.logPath)
			}
			if ctx.Err() != nil {
				return fmt.Errorf("etcd: %s not ready: %w (last: %v); see %s", m.name, ctx.Err(), err, m.logPath)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return nil
}

// leader returns the member that leads, as m's status says.
func leader(ctx context.Context, cli *clientv3.Client, ms []*member) (*member, uint64, error) {
	var errs []error
	for _, m := range ms {
		sctx, cancel := context.WithTimeout(ctx, time.Second)
		st, err := cli.Status(sctx, m.clientURL())
		cancel()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if st.Header.MemberId == st.Leader {
			return m, st.Leader, nil
		}
	}
	return nil, 0, fmt.Errorf("etcd: no member says it leads: %w", errors.Join(errs...))
}

// makeLeader moves leadership to want (MoveLeader), so that a schedule can
// name the leader.
func makeLeader(ctx context.Context, cli *clientv3.Client, ms []*member, want *member) error {
	for attempt := 0; attempt < 20; attempt++ {
		cur, _, err := leader(ctx, cli, ms)
		if err == nil && cur == want {
			return nil
		}
		if err == nil {
			sctx, cancel := context.WithTimeout(ctx, time.Second)
			st, serr := cli.Status(sctx, want.clientURL())
			cancel()
			if serr == nil {
				mctx, cancel := context.WithTimeout(ctx, 3*time.Second)
				c2, cerr := clientv3.New(clientv3.Config{Endpoints: []string{cur.clientURL()}, DialTimeout: time.Second, Logger: zap.NewNop()})
				if cerr == nil {
					_, _ = c2.MoveLeader(mctx, st.Header.MemberId)
					c2.Close()
				}
				cancel()
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("etcd: could not make %s the leader", want.name)
}
