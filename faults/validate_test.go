package faults

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/sim"
)

// valid returns a schedule with one event of every kind that passes Validate
// against testNodes; rejection tests break one field of it.
func valid() Schedule {
	link := sim.LinkConfig{Latency: sim.UniformDist(time.Millisecond, 50*time.Millisecond), Loss: 0.1}
	return Schedule{Version: Version, HealAt: 40 * time.Second, Events: []Event{
		{At: 1 * time.Second, Kind: KindPartition, Groups: [][]string{{"n1"}, {"n2", "n3"}}},                                 // 0
		{At: 2 * time.Second, Kind: KindPartitionOneWay, From: "n1", To: "n2"},                                               // 1
		{At: 3 * time.Second, Kind: KindIsolate, Node: "n3"},                                                                 // 2
		{At: 4 * time.Second, Kind: KindBridge, Groups: [][]string{{"n1"}, {"n2"}}, Bridge: "n3"},                            // 3
		{At: 5 * time.Second, Kind: KindHeal},                                                                                // 4
		{At: 6 * time.Second, Kind: KindLink, From: AnyNode, To: "n2", Link: &link},                                          // 5
		{At: 7 * time.Second, Kind: KindLinkReset},                                                                           // 6
		{At: 8 * time.Second, Kind: KindDrift, Node: "n1", Drift: 0.01},                                                      // 7
		{At: 9 * time.Second, Kind: KindStep, Node: "n2", Step: -time.Second},                                                // 8
		{At: 10 * time.Second, Kind: KindPause, Node: "n2", Duration: 3 * time.Second},                                       // 9
		{At: 11 * time.Second, Kind: KindCrash, Node: "n4"},                                                                  // 10
		{At: 12 * time.Second, Kind: KindRestart, Node: "n4"},                                                                // 11
		{At: 13 * time.Second, Kind: KindFailpoint, Node: "n1", Failpoint: "fp", Action: ActionPause, Duration: time.Second}, // 12
		{At: 14 * time.Second, Kind: KindFailpoint, Node: "n5", Failpoint: "fp", Action: ActionCrash},                        // 13
	}}
}

func TestValidateAcceptsEveryKind(t *testing.T) {
	require.NoError(t, valid().Validate(testNodes))
	require.NoError(t, Schedule{Version: Version}.Validate(nil), "an empty schedule is valid")
}

func TestValidateRejects(t *testing.T) {
	tests := []struct {
		rule  string
		edit  func(s *Schedule)
		index int
		field string
		want  string // the whole message
	}{
		{"version", func(s *Schedule) { s.Version = 2 }, -1, "version",
			"faults: version: unsupported version 2 (want 1)"},
		{"negative heal_at", func(s *Schedule) { s.HealAt = -time.Second }, -1, "heal_at",
			"faults: heal_at: must not be negative, got -1s"},
		{"missing heal_at", func(s *Schedule) { s.HealAt = 0 }, -1, "heal_at",
			"faults: heal_at: missing: a schedule with events must end with a heal phase"},
		{"too many events", func(s *Schedule) { s.Events = make([]Event, MaxEvents+1) }, -1, "events",
			"faults: events: 100001 events exceed the limit of 100000"},
		{"missing kind", func(s *Schedule) { s.Events[4].Kind = "" }, 4, "kind",
			"faults: event 4 (): kind: missing"},
		{"unknown kind", func(s *Schedule) { s.Events[4].Kind = "meteor" }, 4, "kind",
			`faults: event 4 (meteor): kind: unknown kind "meteor" (known: partition, partition-oneway, isolate, bridge, heal, link, link-reset, drift, step, pause, crash, restart, failpoint, stall-conns)`},
		{"negative at", func(s *Schedule) { s.Events[4].At = -time.Millisecond }, 4, "at",
			"faults: event 4 (heal): at: must not be negative, got -1ms"},
		{"event at heal_at", func(s *Schedule) { s.Events[4].At = 40 * time.Second }, 4, "at",
			"faults: event 4 (heal): at: 40s is at or after heal_at 40s: no fault may act after the heal phase"},
		{"event after heal_at", func(s *Schedule) { s.Events[9].At = time.Minute }, 9, "at", ""},
		{"field of another kind", func(s *Schedule) { s.Events[4].Node = "n1" }, 4, "node",
			"faults: event 4 (heal): node: not used by heal events"},
		{"negative pause", func(s *Schedule) { s.Events[9].Duration = -5 * time.Second }, 9, "duration",
			"faults: event 9 (pause): duration: must be positive, got -5s"},
		{"pause of zero", func(s *Schedule) { s.Events[9].Duration = 0 }, 9, "duration",
			"faults: event 9 (pause): duration: must be positive, got 0s"},
		{"missing node", func(s *Schedule) { s.Events[9].Node = "" }, 9, "node",
			"faults: event 9 (pause): node: missing"},
		{"unknown node", func(s *Schedule) { s.Events[10].Node = "n9" }, 10, "node",
			`faults: event 10 (crash): node: unknown node "n9"`},
		{"unknown node in a group", func(s *Schedule) { s.Events[0].Groups[1][1] = "zz" }, 0, "groups[1][1]",
			`faults: event 0 (partition): groups[1][1]: unknown node "zz"`},
		{"one group", func(s *Schedule) { s.Events[0].Groups = s.Events[0].Groups[:1] }, 0, "groups",
			"faults: event 0 (partition): groups: want two or more groups, got 1"},
		{"empty group", func(s *Schedule) { s.Events[0].Groups[0] = nil }, 0, "groups[0]",
			"faults: event 0 (partition): groups[0]: empty group"},
		{"node in two groups", func(s *Schedule) { s.Events[0].Groups[1][0] = "n1" }, 0, "groups[1][0]",
			`faults: event 0 (partition): groups[1][0]: node "n1" is already in groups[0]`},
		{"bridge in a group", func(s *Schedule) { s.Events[3].Bridge = "n2" }, 3, "groups[1][0]",
			`faults: event 3 (bridge): groups[1][0]: the bridge node "n2" must not be inside a group`},
		{"bridge of three groups", func(s *Schedule) { s.Events[3].Groups = [][]string{{"n1"}, {"n2"}, {"n4"}} }, 3, "groups",
			"faults: event 3 (bridge): groups: want exactly two groups, got 3"},
		{"missing bridge", func(s *Schedule) { s.Events[3].Bridge = "" }, 3, "bridge",
			"faults: event 3 (bridge): bridge: missing"},
		{"one-way to itself", func(s *Schedule) { s.Events[1].To = "n1" }, 1, "to",
			`faults: event 1 (partition-oneway): to: same node as from ("n1")`},
		{"one-way wildcard", func(s *Schedule) { s.Events[1].From = AnyNode }, 1, "from",
			`faults: event 1 (partition-oneway): from: unknown node "*"`},
		{"link without config", func(s *Schedule) { s.Events[5].Link = nil }, 5, "link",
			"faults: event 5 (link): link: missing"},
		{"link with a bad config", func(s *Schedule) { s.Events[5].Link = &sim.LinkConfig{Latency: sim.FixedDist(0), Loss: 2} }, 5, "link",
			"faults: event 5 (link): link: loss: probability must be in [0, 1], got 2"},
		{"link missing to", func(s *Schedule) { s.Events[5].To = "" }, 5, "to",
			"faults: event 5 (link): to: missing"},
		{"drift of -1", func(s *Schedule) { s.Events[7].Drift = -1 }, 7, "drift",
			"faults: event 7 (drift): drift: must be above -1 (the clock must keep moving forward), got -1"},
		{"drift too fast", func(s *Schedule) { s.Events[7].Drift = 3 }, 7, "drift",
			"faults: event 7 (drift): drift: must be at most 1, got 3"},
		{"stall-conns with one group", func(s *Schedule) { s.Events[0].Kind, s.Events[0].Groups = KindStallConns, s.Events[0].Groups[:1] }, 0, "groups",
			"faults: event 0 (stall-conns): groups: want two or more groups, got 1"},
		{"stall-conns unknown node", func(s *Schedule) { s.Events[0].Kind, s.Events[0].Groups[1][0] = KindStallConns, "zz" }, 0, "groups[1][0]",
			`faults: event 0 (stall-conns): groups[1][0]: unknown node "zz"`},
		{"stall-conns with a node", func(s *Schedule) { s.Events[0].Kind, s.Events[0].Node = KindStallConns, "n1" }, 0, "node",
			"faults: event 0 (stall-conns): node: not used by stall-conns events"},
		{"step of zero", func(s *Schedule) { s.Events[8].Step = 0 }, 8, "step",
			"faults: event 8 (step): step: missing (a step of zero does nothing)"},
		{"failpoint without name", func(s *Schedule) { s.Events[12].Failpoint = "" }, 12, "failpoint",
			"faults: event 12 (failpoint): failpoint: missing"},
		{"failpoint without action", func(s *Schedule) { s.Events[12].Action = "" }, 12, "action",
			"faults: event 12 (failpoint): action: missing (want pause or crash)"},
		{"failpoint unknown action", func(s *Schedule) { s.Events[12].Action = "explode" }, 12, "action",
			`faults: event 12 (failpoint): action: unknown action "explode" (want pause or crash)`},
		{"failpoint pause of zero", func(s *Schedule) { s.Events[12].Duration = 0 }, 12, "duration",
			"faults: event 12 (failpoint): duration: must be positive for a pause, got 0s"},
		{"failpoint crash with a duration", func(s *Schedule) { s.Events[13].Duration = time.Second }, 13, "duration",
			"faults: event 13 (failpoint): duration: not used by a crash failpoint"},
		{"restart of a running node", func(s *Schedule) { s.Events[11].Node = "n3" }, 11, "node",
			`faults: event 11 (restart): node: "n3" is not crashed at 12s`},
		{"crash of a crashed node", func(s *Schedule) { s.Events[11].Kind = KindCrash }, 11, "node",
			`faults: event 11 (crash): node: "n4" is already crashed at 12s`},
		{"pause of a crashed node", func(s *Schedule) {
			s.Events[11] = Event{At: 12 * time.Second, Kind: KindPause, Node: "n4", Duration: time.Second}
		}, 11, "node",
			`faults: event 11 (pause): node: "n4" is crashed at 12s and cannot be paused`},
		{"contradiction found in time order", func(s *Schedule) { s.Events[11].At = 10500 * time.Millisecond }, 11, "node",
			`faults: event 11 (restart): node: "n4" is not crashed at 10.5s`},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			s := valid()
			tt.edit(&s)
			err := s.Validate(testNodes)
			require.Error(t, err)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tt.index, ve.Index, "entry")
			assert.Equal(t, tt.field, ve.Field, "field")
			if tt.index >= 0 {
				assert.Equal(t, s.Events[tt.index].Kind, ve.Kind, "kind")
			}
			if tt.want != "" {
				assert.Equal(t, tt.want, err.Error())
			}
			assert.ErrorIs(t, err, ErrInvalid)
		})
	}
}

func TestValidateTimelineEdges(t *testing.T) {
	ev := func(at time.Duration, k Kind) Event { return Event{At: at, Kind: k, Node: "n1"} }
	tests := []struct {
		name   string
		events []Event
		ok     bool
	}{
		{"crash then restart", []Event{ev(1, KindCrash), ev(2, KindRestart)}, true},
		{"crash, restart, crash at the same instant", []Event{ev(1, KindCrash), ev(2, KindRestart), ev(2, KindCrash)}, true},
		{"crash before restart in list order at one instant", []Event{ev(1, KindCrash), ev(2, KindCrash), ev(2, KindRestart)}, false},
		{"list order does not matter across instants", []Event{ev(2, KindRestart), ev(1, KindCrash)}, true},
		{"crash never restarted: the heal phase does it", []Event{ev(1, KindCrash)}, true},
		{"pause then crash", []Event{{At: 1, Kind: KindPause, Node: "n1", Duration: time.Second}, ev(2, KindCrash)}, true},
		{"crash failpoint makes the state unknown",
			[]Event{{At: 1, Kind: KindFailpoint, Node: "n1", Failpoint: "fp", Action: ActionCrash}, ev(2, KindRestart), ev(3, KindRestart)}, true},
		{"pause failpoint changes nothing",
			[]Event{{At: 1, Kind: KindFailpoint, Node: "n1", Failpoint: "fp", Action: ActionPause, Duration: 1}, ev(2, KindRestart)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Schedule{Version: Version, HealAt: time.Minute, Events: tt.events}.Validate(testNodes)
			if tt.ok {
				assert.NoError(t, err)
			} else {
				assert.Error(t, err)
			}
		})
	}
}

func TestValidationErrorUnwraps(t *testing.T) {
	s := valid()
	s.Events[5].Link = &sim.LinkConfig{}
	err := s.Validate(testNodes)
	require.Error(t, err)
	var ve *ValidationError
	require.True(t, errors.As(err, &ve))
	assert.Equal(t, "link", ve.Field)
	assert.Contains(t, errors.Unwrap(err).Error(), "latency.kind: missing")
}
