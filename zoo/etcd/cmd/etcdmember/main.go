// Command etcdmember runs one etcd member in its own process, from the pinned
// go.etcd.io/etcd/server/v3/embed package. The zoo/etcd harness builds it with
// `go build` and starts one child process per member, on loopback ports behind its
// fault proxy; nothing here knows about the proxy or the harness.
//
// It exits 0 on SIGTERM or SIGINT once the member has stopped, and 1 when the member
// fails to start or stops with an error. It prints "etcdmember: ready" on stderr
// once the member serves clients.
package main

import (
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "etcdmember: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("etcdmember", flag.ContinueOnError)
	name := fs.String("name", "m0", "member name")
	dataDir := fs.String("data-dir", "", "data directory (required)")
	listenClient := fs.String("listen-client-urls", "", "URLs the member listens on for clients")
	advertiseClient := fs.String("advertise-client-urls", "", "client URLs advertised to the cluster (default: listen URLs)")
	listenPeer := fs.String("listen-peer-urls", "", "URLs the member listens on for peers")
	advertisePeer := fs.String("advertise-peer-urls", "", "peer URLs advertised to the cluster (default: listen URLs)")
	initialCluster := fs.String("initial-cluster", "", "name=peerURL,... of every member")
	clusterState := fs.String("initial-cluster-state", embed.ClusterStateFlagNew, "new or existing")
	clusterToken := fs.String("initial-cluster-token", "leasesim", "cluster token")
	tickMs := fs.Uint("heartbeat-interval", 100, "heartbeat interval in milliseconds")
	electionMs := fs.Uint("election-timeout", 1000, "election timeout in milliseconds")
	logLevel := fs.String("log-level", "info", "zap log level")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dataDir == "" || *listenClient == "" || *listenPeer == "" {
		return errors.New("-data-dir, -listen-client-urls and -listen-peer-urls are required")
	}
	if *advertiseClient == "" {
		advertiseClient = listenClient
	}
	if *advertisePeer == "" {
		advertisePeer = listenPeer
	}

	cfg := embed.NewConfig()
	cfg.Name = *name
	cfg.Dir = *dataDir
	cfg.TickMs = *tickMs
	cfg.ElectionMs = *electionMs
	cfg.ClusterState = *clusterState
	cfg.InitialClusterToken = *clusterToken
	cfg.Logger = "zap"
	cfg.LogOutputs = []string{"stderr"}
	cfg.LogLevel = *logLevel
	var err error
	if cfg.ListenClientUrls, err = urls(*listenClient); err != nil {
		return fmt.Errorf("-listen-client-urls: %w", err)
	}
	if cfg.AdvertiseClientUrls, err = urls(*advertiseClient); err != nil {
		return fmt.Errorf("-advertise-client-urls: %w", err)
	}
	if cfg.ListenPeerUrls, err = urls(*listenPeer); err != nil {
		return fmt.Errorf("-listen-peer-urls: %w", err)
	}
	if cfg.AdvertisePeerUrls, err = urls(*advertisePeer); err != nil {
		return fmt.Errorf("-advertise-peer-urls: %w", err)
	}
	if *initialCluster == "" {
		cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	} else {
		cfg.InitialCluster = *initialCluster
	}

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return fmt.Errorf("start: %w", err)
	}
	defer e.Close()

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-e.Server.ReadyNotify():
		fmt.Fprintln(os.Stderr, "etcdmember: ready")
	case err := <-e.Err():
		return fmt.Errorf("before ready: %w", err)
	case <-sig:
		return nil
	case <-time.After(2 * time.Minute):
		e.Server.Stop()
		return errors.New("not ready within 2m")
	}
	select {
	case err := <-e.Err():
		if err != nil {
			return fmt.Errorf("serving: %w", err)
		}
		return nil
	case <-sig:
		return nil
	}
}

func urls(list string) ([]url.URL, error) {
	var out []url.URL
	for _, s := range strings.Split(list, ",") {
		u, err := url.Parse(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("%q: %w", s, err)
		}
		out = append(out, *u)
	}
	return out, nil
}
