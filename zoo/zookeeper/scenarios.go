package zookeeper

import (
	"time"

	"github.com/leasesim/leasesim/gohost"
)

// holders returns n default holders starting stagger apart.
func holders(n int, stagger time.Duration) []HolderConfig {
	out := make([]HolderConfig, n)
	for i := range out {
		out[i] = DefaultHolder
		out[i].Start = time.Second + time.Duration(i)*stagger
	}
	return out
}

// Scenarios returns every story of the module, each in the
// configurations it is told in.
func Scenarios() []gohost.Scenario {
	return nil
}
