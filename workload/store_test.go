package workload_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/workload"
)

// storeFaults is a file that strikes the lease store: a leader pause,
// a crash of the second member (restarted restart_after later) and a
// worker crash at the same instant as a pause.
var storeFaults = []string{
	`{"type":"crash","at":"1m","worker":"w1"}`,
	`{"type":"pause","at":"1m","member":"@leader","duration":"6s"}`,
	`{"type":"crash","at":"2m","member":"grantor2"}`,
	`{"type":"pause","at":"3m","member":"grantor","duration":"1s"}`,
}

func TestInspectStoreFaults(t *testing.T) {
	p, err := workload.Inspect(workload.Bytes([]byte(lines(append([]string{quiet}, storeFaults...)...))))
	require.NoError(t, err)
	require.Equal(t, strings.Join([]string{
		"1m0s crash w1",
		"1m0s pause @leader for 6s",
		"1m10s restart w1",
		"2m0s crash grantor2",
		"2m10s restart grantor2", // restart_after, as for a worker
		"3m0s pause grantor for 1s",
		"10m0s heal phase",
	}, "\n"), p.Faults.String())

	// The environment's random faults are the workers' alone, and never
	// contradict the file's.
	sc, err := p.Scenario(workload.Bytes(nil), lease.Config{TTL: 5 * time.Second})
	require.NoError(t, err)
	for seed := uint64(1); seed <= 20; seed++ {
		for _, e := range sc.RandomFaults(rand.New(rand.NewPCG(seed, 0))) {
			require.Contains(t, []string{"w1", "w2", "w3"}, e.Node)
		}
	}
}

// TestForStore: the plan for a store of one grantor pauses that grantor
// where the file pauses the leader; a replicated store keeps the role; a
// member the store lacks, or a leader pause that becomes a contradiction
// on one grantor, is bad input at its line.
func TestForStore(t *testing.T) {
	read := func(t *testing.T, events ...string) workload.Plan {
		t.Helper()
		p, err := workload.Inspect(workload.Bytes([]byte(lines(append([]string{quiet}, events...)...))))
		require.NoError(t, err)
		return p
	}
	t.Run("one grantor", func(t *testing.T) {
		p := read(t, storeFaults[:2]...)
		one, err := p.ForStore(1)
		require.NoError(t, err)
		require.Equal(t, "1m0s pause grantor for 6s", one.Faults.Events[1].String())
		require.Equal(t, "1m0s pause @leader for 6s", p.Faults.Events[1].String(), "the plan itself is left alone")
		zero, err := p.ForStore(0)
		require.NoError(t, err)
		require.Equal(t, one.Faults, zero.Faults, "0 members is one grantor")
	})
	t.Run("replicated", func(t *testing.T) {
		p := read(t, storeFaults...)
		three, err := p.ForStore(3)
		require.NoError(t, err)
		require.Equal(t, p.Faults, three.Faults)
	})
	for _, tt := range []struct {
		rule    string
		members int
		events  []string
		want    string
	}{
		{"a member the store lacks", 1, storeFaults,
			`workload: line 4: crash: member: grantor2 is not a member of the lease store under test, which has 1 (grantor)`},
		{"a member beyond a replicated store", 3, []string{`{"type":"pause","at":"1m","member":"grantor5","duration":"1s"}`},
			`workload: line 2: pause: member: grantor5 is not a member of the lease store under test, which has 3 (grantor, grantor2, grantor3)`},
		{"the leader pause lands on a crashed grantor", 1, []string{`{"type":"crash","at":"1m","member":"grantor"}`,
			`{"type":"pause","at":"1m5s","member":"@leader","duration":"1s"}`},
			`workload: line 3: pause: member: "grantor" is crashed at 1m5s and cannot be paused`},
	} {
		t.Run(tt.rule, func(t *testing.T) {
			_, err := read(t, tt.events...).ForStore(tt.members)
			require.EqualError(t, err, tt.want)
			require.ErrorIs(t, err, workload.ErrInvalid)
		})
	}
}
