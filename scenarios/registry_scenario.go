package scenarios

import (
	"time"

	"github.com/leasesim/leasesim/faults"
)

// ServiceRegistry attaches service registrations to leases.
func ServiceRegistry() Scenario {
	return Scenario{
		Name: "service-registry",
		Doc:  "registrations attached to leases vanish when their holder dies",
		Story: "Four services register themselves under keys attached to their leases; two discovery readers " +
			"poll the registry. The nemesis crashes, pauses and isolates services. A registration must vanish " +
			"with its lease, so no reader sees it for longer than the bound after its last renewal, and every " +
			"service must be registered again after the heal phase.",
		Config:      baseConfig(),
		Registrants: 4,
		Readers:     2,
		Registry:    RegistryLoad{Poll: 500 * time.Millisecond},
		Nemesis: &faults.Nemesis{
			Kinds:           []faults.Kind{faults.KindCrash, faults.KindPause, faults.KindIsolate},
			FaultsPerMinute: 6,
		},
		Premises: []Premise{
			Sighted(),
		},
		Duration: 2 * time.Minute,
		HealAt:   90 * time.Second,
	}
}
