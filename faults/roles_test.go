package faults

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/sim"
)

func TestValidateRoles(t *testing.T) {
	nodes := []string{"a", "b", RoleLeader}
	one := func(e Event) Schedule {
		return Schedule{Version: Version, Events: []Event{e}, HealAt: 10 * time.Second}
	}
	pause := Event{At: time.Second, Kind: KindPause, Node: RoleLeader, Duration: time.Second}
	tests := []struct {
		name  string
		s     Schedule
		nodes []string
		want  string // "" when valid
	}{
		{"pause the leader", one(pause), nodes, ""},
		{"isolate the leader", one(Event{At: time.Second, Kind: KindIsolate, Node: RoleLeader}), nodes, ""},
		{"host resolves no role", one(pause), []string{"a", "b"},
			`faults: event 0 (pause): node: the role @leader is not resolved here: the host runs no store whose leader it can name`},
		{"unknown role", one(Event{At: time.Second, Kind: KindPause, Node: "@boss", Duration: time.Second}), nodes,
			`faults: event 0 (pause): node: unknown role "@boss" (want one of @leader)`},
		{"crash a role", one(Event{At: time.Second, Kind: KindCrash, Node: RoleLeader}), nodes,
			`faults: event 0 (crash): node: the role @leader may name only the node of a pause, isolate, drift, step, failpoint event`},
		{"role in a group", one(Event{At: time.Second, Kind: KindPartition, Groups: [][]string{{RoleLeader}, {"a"}}}), nodes,
			`faults: event 0 (partition): groups[0][0]: the role @leader may name only the node of a pause, isolate, drift, step, failpoint event`},
		{"role as a link end", one(Event{At: time.Second, Kind: KindPartitionOneWay, From: RoleLeader, To: "a"}), nodes,
			`faults: event 0 (partition-oneway): from: the role @leader may name only the node of a pause, isolate, drift, step, failpoint event`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.Validate(tt.nodes)
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tt.want)
		})
	}
}

// TestApplyWithRoles pauses "the leader" twice: the first time the
// resolver names b, which is paused; the second time it names no one, and
// the event does not act.
func TestApplyWithRoles(t *testing.T) {
	c := newCluster(1, "a", "b", "c")
	leader := "b"
	var unapplied []int
	roles := Roles{
		Holder: func(role string) (string, bool) {
			require.Equal(t, RoleLeader, role)
			return leader, leader != ""
		},
		Unapplied: func(i int, e Event) { unapplied = append(unapplied, i) },
	}
	s := Schedule{Version: Version, HealAt: 5 * time.Second, Events: []Event{
		{At: time.Second, Kind: KindPause, Node: RoleLeader, Duration: 500 * time.Millisecond},
		{At: 3 * time.Second, Kind: KindPause, Node: RoleLeader, Duration: 500 * time.Millisecond},
	}}
	require.NoError(t, s.ApplyWith(c.w, roles))
	c.w.At(sim.Time(2*time.Second), func() { leader = "" })
	c.w.RunUntil(sim.Time(6 * time.Second))
	var pauses []string
	for _, f := range c.w.Faults() {
		if f.Kind == sim.FaultPause {
			pauses = append(pauses, f.Node)
		}
	}
	assert.Equal(t, []string{"b"}, pauses, "the first pause hit the leader; the second found none")
	assert.Equal(t, []int{1}, unapplied)
	assert.Zero(t, c.deliveries("b", "a", 1100*time.Millisecond, 1400*time.Millisecond), "b was paused")

	err := s.Apply(newCluster(1, "a", "b", "c").w)
	require.ErrorContains(t, err, "the role @leader is not resolved here", "Apply without roles refuses them")
}

// TestNemesisRoles draws with the leader among the targets: it is paused,
// never crashed, and a role may not be partitioned.
func TestNemesisRoles(t *testing.T) {
	n := Nemesis{Targets: []string{RoleLeader, "a"}, Partitionable: []string{"a", "b"}, FaultsPerMinute: 60,
		Phase: time.Minute, PauseMax: 2 * time.Second, Kinds: []Kind{KindPause, KindCrash, KindFailpoint},
		Failpoints: []string{"fp"}}
	require.NoError(t, n.Validate())
	var pausedLeader bool
	for seed := range uint64(20) {
		s := n.Draw(rand.New(rand.NewPCG(seed, 1)))
		for _, e := range s.Events {
			crash := e.Kind == KindCrash || e.Kind == KindRestart || e.Kind == KindFailpoint && e.Action == ActionCrash
			assert.False(t, crash && IsRole(e.Node), "seed %d: %s", seed, e)
			pausedLeader = pausedLeader || e.Kind == KindPause && e.Node == RoleLeader
		}
	}
	assert.True(t, pausedLeader, "some draw pauses the leader")

	n.Partitionable = []string{"a", RoleLeader}
	require.ErrorContains(t, n.Validate(), "the role @leader may be only a target of process and clock faults")
	n.Partitionable, n.Targets = []string{"a", "b"}, []string{"@boss"}
	require.ErrorContains(t, n.Validate(), `unknown role "@boss"`)
	n.Targets, n.Kinds = []string{RoleLeader}, []Kind{KindCrash}
	require.ErrorContains(t, n.Validate(), "a Target that is a node (a role is never crashed)")
}
