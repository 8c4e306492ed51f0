package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/leasesim/leasesim/lease"
)

// Catalog returns the built-in scenarios, in the order `simrun list` shows
// them. Each call returns fresh values that the caller may change.
func Catalog() []Scenario {
	return []Scenario{
		KleppmannGCPause(),
		PartitionHeal(),
		AsymmetricPartition(),
		ClockDrift(),
		ClockDriftBeyond(),
		ClockStep(),
		GrantorRestart(),
		MessageChaos(),
		WorkerCrashHandoff(),
		ThunderingHerd(),
		ServiceRegistry(),
		Swarm(),
		LockServerRestart(),
		MultiKeyReadBack(),
		LeaderPartitionMinority(),
		LeaderPartitionMajority(),
		LeaderStall(),
		RollingRestart(),
		LeaderChangeUnderLoad(),
		MemberDrift(),
		MemberDriftBeyond(),
		LeaderChurn(),
	}
}

// Lookup returns the built-in scenario with the given name.
func Lookup(name string) (Scenario, error) {
	for _, sc := range Catalog() {
		if sc.Name == name {
			return sc, nil
		}
	}
	return Scenario{}, fmt.Errorf("unknown scenario %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Names returns the names of the built-in scenarios.
func Names() []string {
	var names []string
	for _, sc := range Catalog() {
		names = append(names, sc.Name)
	}
	return slices.Clip(names)
}

// The lease configuration most scenarios share: a 5 s TTL, renewed every
// TTL/3, a 1% drift bound and a 50 ms safety margin.
const (
	ttl    = 5 * time.Second
	rho    = 0.01
	margin = 50 * time.Millisecond
)

func baseConfig() lease.Config {
	return lease.Config{TTL: ttl, Rho: rho, Margin: margin}
}
