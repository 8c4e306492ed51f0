package workload_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/workload"
)

func genParams() workload.GenParams {
	return workload.GenParams{Name: "gen", Workers: 3, Duration: time.Hour, TasksPerMinute: 10,
		UnitsMin: 5, UnitsMax: 50, UnitTime: 100 * time.Millisecond}
}

func generate(t *testing.T, p workload.GenParams, seed uint64) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, workload.Generate(p, rand.New(rand.NewPCG(seed, 0)), &buf))
	return buf.Bytes()
}

func TestGenerateIsDeterministic(t *testing.T) {
	p := genParams()
	p.DeployEvery, p.DeploySpacing, p.DeployDown = 10*time.Minute, 10*time.Second, 3*time.Second
	p.BurstSize, p.BurstEvery, p.BurstSpread = 10, 5*time.Minute, 30*time.Second
	require.Equal(t, generate(t, p, 1), generate(t, p, 1), "same seed, same bytes")
	require.NotEqual(t, generate(t, p, 1), generate(t, p, 2), "another seed, another workload")
}

// TestGenerateStreamsAreIndependent: deploys and bursts draw from PRNGs of
// their own, so switching them on leaves the Poisson tasks as they were.
func TestGenerateStreamsAreIndependent(t *testing.T) {
	plain := genParams()
	withDeploys := plain
	withDeploys.DeployEvery, withDeploys.DeploySpacing, withDeploys.DeployDown = 10*time.Minute, 10*time.Second, 3*time.Second
	_, a, err := readAll(bytes.NewReader(generate(t, plain, 7)))
	require.NoError(t, err)
	_, b, err := readAll(bytes.NewReader(generate(t, withDeploys, 7)))
	require.NoError(t, err)
	var tasks []workload.Event
	deploys := 0
	for _, e := range b {
		if e.Type == workload.TypeDeploy {
			deploys++
			continue
		}
		tasks = append(tasks, e)
	}
	require.Equal(t, a, tasks)
	require.Equal(t, 5, deploys, "every 10m in an hour, the one at 60m left out")
}

func TestGenerateArrivalsAndSizes(t *testing.T) {
	for _, tt := range []struct {
		name   string
		change func(*workload.GenParams)
		check  func(t *testing.T, events []workload.Event)
	}{
		{"poisson", func(*workload.GenParams) {}, func(t *testing.T, events []workload.Event) {
			require.InEpsilon(t, 600, len(events), 0.15, "10 a minute for an hour")
			for _, e := range events {
				require.GreaterOrEqual(t, e.Units, 5)
				require.LessOrEqual(t, e.Units, 50)
				require.Equal(t, 100*time.Millisecond, e.UnitTime)
				require.Less(t, e.At, time.Hour)
				require.Equal(t, e.At.Truncate(time.Millisecond), e.At, "arrivals to the millisecond")
			}
		}},
		{"bursts only", func(p *workload.GenParams) {
			p.TasksPerMinute, p.BurstSize, p.BurstEvery = 0, 25, 10*time.Minute
		}, func(t *testing.T, events []workload.Event) {
			require.Len(t, events, 5*25, "bursts at 10m..50m; the one at 60m is past the end")
			for i, e := range events {
				require.Equal(t, time.Duration(1+i/25)*10*time.Minute, e.At, "a burst arrives at one instant")
			}
		}},
		{"spread bursts", func(p *workload.GenParams) {
			p.TasksPerMinute, p.BurstSize, p.BurstEvery, p.BurstSpread = 0, 25, 10*time.Minute, time.Minute
		}, func(t *testing.T, events []workload.Event) {
			require.Len(t, events, 5*25)
			for i, e := range events {
				start := time.Duration(1+i/25) * 10 * time.Minute
				require.GreaterOrEqual(t, e.At, start)
				require.Less(t, e.At, start+time.Minute)
			}
		}},
		{"pareto sizes", func(p *workload.GenParams) { p.UnitsMin, p.UnitsMax, p.UnitsAlpha = 2, 1000, 1.1 },
			func(t *testing.T, events []workload.Event) {
				small, large := 0, 0
				for _, e := range events {
					require.GreaterOrEqual(t, e.Units, 2)
					require.LessOrEqual(t, e.Units, 1000)
					if e.Units < 8 {
						small++
					}
					if e.Units >= 64 {
						large++
					}
				}
				require.Greater(t, small, len(events)/2, "most tasks are small")
				require.Positive(t, large, "a heavy tail")
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := genParams()
			tt.change(&p)
			_, events, err := readAll(bytes.NewReader(generate(t, p, 3)))
			require.NoError(t, err)
			tt.check(t, events)
		})
	}
}

func TestGenerateWritesAValidWorkload(t *testing.T) {
	p := genParams()
	p.DeployEvery, p.DeploySpacing, p.DeployDown = 5*time.Minute, 20*time.Second, 5*time.Second
	plan, err := workload.Inspect(workload.Bytes(generate(t, p, 9)))
	require.NoError(t, err)
	require.Equal(t, time.Hour, plan.Duration)
	require.Len(t, plan.Faults.Events, 11*3*2, "11 deploys of 3 workers, a crash and a restart each")
}

// TestGenerateCrashesAndLeaderPauses: a worker crash in turn every
// CrashEvery, and a leader pause every LeaderPauseEvery after a crash at
// the same instant; a pause that would outlast the workload is left out;
// the tasks are those of the same seed without them.
func TestGenerateCrashesAndLeaderPauses(t *testing.T) {
	plain := genParams()
	p := plain
	p.Duration = 10 * time.Minute
	plain.Duration = p.Duration
	p.CrashEvery, p.LeaderPauseEvery, p.LeaderPause = 3*time.Minute, 3*time.Minute, time.Minute
	_, a, err := readAll(bytes.NewReader(generate(t, plain, 7)))
	require.NoError(t, err)
	_, b, err := readAll(bytes.NewReader(generate(t, p, 7)))
	require.NoError(t, err)
	var tasks []workload.Event
	var faults []string
	for _, e := range b {
		if e.Type == workload.TypeTask {
			tasks = append(tasks, e)
			continue
		}
		faults = append(faults, e.String())
	}
	require.Equal(t, a, tasks)
	require.Equal(t, []string{
		"3m0s crash w1", "3m0s pause @leader for 1m0s",
		"6m0s crash w2", "6m0s pause @leader for 1m0s",
		"9m0s crash w3", // its pause would end at the workload's end
	}, faults)
}

func TestGenParamsValidate(t *testing.T) {
	for _, tt := range []struct {
		change func(*workload.GenParams)
		want   string
	}{
		{func(p *workload.GenParams) { p.Workers = 0 }, "workload: gen: workers: must be positive, got 0"},
		{func(p *workload.GenParams) { p.Name = "" }, "workload: gen: name: must not be empty"},
		{func(p *workload.GenParams) { p.Duration = 0 }, "workload: gen: duration: must be positive, got 0s"},
		{func(p *workload.GenParams) { p.TasksPerMinute = 0 }, "workload: gen: tasks_per_minute: no arrivals: set tasks_per_minute or burst_every"},
		{func(p *workload.GenParams) { p.BurstEvery = time.Minute }, "workload: gen: burst_size: must be in [1, 1e6] when bursts are on, got 0"},
		{func(p *workload.GenParams) { p.BurstEvery, p.BurstSize, p.BurstSpread = time.Minute, 3, 2*time.Minute },
			"workload: gen: burst_spread: 2m0s is longer than burst_every 1m0s: bursts would overlap"},
		{func(p *workload.GenParams) { p.UnitsMax = 1 }, "workload: gen: units_min: want 1 <= units_min <= units_max <= 1048576, got 5 and 1"},
		{func(p *workload.GenParams) { p.UnitTime = 0 }, `workload: gen: unit_time: must be positive, got 0s`},
		{func(p *workload.GenParams) { p.DeployEvery = time.Minute }, "workload: gen: deploy_down: must be positive when deploys are on, got 0s"},
		{func(p *workload.GenParams) { p.CrashEvery = -time.Second }, "workload: gen: crash_every: must not be negative, got -1s"},
		{func(p *workload.GenParams) { p.CrashEvery = 3 * time.Second },
			"workload: gen: crash_every: 3s on 3 workers crashes a worker again before its restart_after 10s has passed"},
		{func(p *workload.GenParams) { p.LeaderPauseEvery = time.Minute },
			"workload: gen: leader_pause: must be positive and shorter than leader_pause_every 1m0s, got 0s"},
		{func(p *workload.GenParams) { p.LeaderPauseEvery = -time.Minute }, "workload: gen: leader_pause_every: must not be negative, got -1m0s"},
		{func(p *workload.GenParams) { p.TasksPerMinute = 1e6; p.Duration = 24 * time.Hour }, "workload: gen: tasks_per_minute: about 1440000000 tasks exceed the limit of 10000000"},
	} {
		p := genParams()
		tt.change(&p)
		require.EqualError(t, p.Validate(), tt.want)
		require.EqualError(t, workload.Generate(p, rand.New(rand.NewPCG(1, 1)), &strings.Builder{}), tt.want)
	}
}
