package workload

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/leasesim/leasesim/sim"
)

// MaxGenTasks bounds the tasks Generate writes.
const MaxGenTasks = 10_000_000

// GenParams are the few parameters of a synthetic workload.
type GenParams struct {
	// Name, Workers and Duration go to the header.
	Name     string
	Workers  int
	Duration time.Duration

	// TasksPerMinute is the rate of a Poisson stream of arrivals; zero
	// means none.
	TasksPerMinute float64
	// BurstSize tasks arrive together every BurstEvery (the first burst at
	// BurstEvery), spread uniformly over BurstSpread (zero: at one
	// instant). BurstEvery zero means no bursts.
	BurstSize               int
	BurstEvery, BurstSpread time.Duration

	// UnitsMin and UnitsMax bound a task's units: uniform between them,
	// or, when UnitsAlpha > 0, Pareto from UnitsMin with tail index
	// UnitsAlpha, capped at UnitsMax.
	UnitsMin, UnitsMax int
	UnitsAlpha         float64
	// UnitTime is each unit's duration. UnitTimeDist, if set instead, is
	// written into every task, for each run to draw from.
	UnitTime     time.Duration
	UnitTimeDist *sim.Dist

	// Env is the header's environment: latency, loss, GC pauses, crashes.
	Env Env

	// DeployEvery is how often a rolling restart runs (the first at
	// DeployEvery; zero means never): workers crash DeploySpacing apart
	// and each stays down DeployDown. A deploy that would not end before
	// Duration is left out.
	DeployEvery, DeploySpacing, DeployDown time.Duration

	// CrashEvery, when positive, crashes one worker every CrashEvery (the
	// first at CrashEvery), in turn w1, w2, …; each comes back
	// Env.RestartAfter later (the reader adds the restart).
	CrashEvery time.Duration
	// LeaderPauseEvery, when positive, pauses the lease store's leader
	// (RoleLeader) for LeaderPause every LeaderPauseEvery (the first at
	// LeaderPauseEvery), after any worker crash at the same instant: with
	// CrashEvery equal, every crash strikes while the store elects a new
	// leader. A pause that would not end before Duration is left out.
	LeaderPauseEvery, LeaderPause time.Duration
}

// Validate reports the first parameter that makes p unusable, by its
// snake_case name.
func (p GenParams) Validate() error {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("workload: gen: %s: %w", field, fmt.Errorf(format, args...))
	}
	h := Header{Version: Version, Name: p.Name, Workers: p.Workers, Duration: p.Duration, Env: p.Env}
	if err := checkHeader(h); err != nil {
		return fmt.Errorf("workload: gen: %w", err)
	}
	switch {
	case p.Duration <= 0:
		return bad("duration", "must be positive, got %v", p.Duration)
	case !(p.TasksPerMinute >= 0 && p.TasksPerMinute <= 1e6):
		return bad("tasks_per_minute", "must be in [0, 1e6], got %v", p.TasksPerMinute)
	case p.BurstEvery < 0 || p.BurstSpread < 0:
		return bad("burst_every", "burst_every and burst_spread must not be negative")
	case p.BurstEvery > 0 && p.BurstSpread > p.BurstEvery:
		return bad("burst_spread", "%v is longer than burst_every %v: bursts would overlap", p.BurstSpread, p.BurstEvery)
	case p.BurstEvery > 0 && (p.BurstSize <= 0 || p.BurstSize > 1e6):
		return bad("burst_size", "must be in [1, 1e6] when bursts are on, got %d", p.BurstSize)
	case p.TasksPerMinute == 0 && p.BurstEvery == 0:
		return bad("tasks_per_minute", "no arrivals: set tasks_per_minute or burst_every")
	case p.UnitsMin <= 0 || p.UnitsMax < p.UnitsMin || p.UnitsMax > MaxUnits:
		return bad("units_min", "want 1 <= units_min <= units_max <= %d, got %d and %d", MaxUnits, p.UnitsMin, p.UnitsMax)
	case p.UnitsAlpha < 0 || p.UnitsAlpha > 1000:
		return bad("units_alpha", "must be in [0, 1000], got %v", p.UnitsAlpha)
	case p.DeployEvery < 0 || p.DeploySpacing < 0:
		return bad("deploy_every", "deploy_every and deploy_spacing must not be negative")
	case p.DeployEvery > 0 && p.DeployDown <= 0:
		return bad("deploy_down", "must be positive when deploys are on, got %v", p.DeployDown)
	case p.CrashEvery < 0:
		return bad("crash_every", "must not be negative, got %v", p.CrashEvery)
	case p.CrashEvery > 0 && time.Duration(p.Workers)*p.CrashEvery <= p.Env.restartAfter():
		return bad("crash_every", "%v on %d workers crashes a worker again before its restart_after %v has passed",
			p.CrashEvery, p.Workers, p.Env.restartAfter())
	case p.LeaderPauseEvery < 0:
		return bad("leader_pause_every", "must not be negative, got %v", p.LeaderPauseEvery)
	case p.LeaderPauseEvery > 0 && (p.LeaderPause <= 0 || p.LeaderPause >= p.LeaderPauseEvery):
		return bad("leader_pause", "must be positive and shorter than leader_pause_every %v, got %v",
			p.LeaderPauseEvery, p.LeaderPause)
	}
	expected := p.TasksPerMinute * p.Duration.Minutes()
	if p.BurstEvery > 0 {
		expected += float64(p.BurstSize) * float64(p.Duration/p.BurstEvery)
	}
	if expected > MaxGenTasks {
		return bad("tasks_per_minute", "about %.0f tasks exceed the limit of %d", expected, MaxGenTasks)
	}
	task := Event{Type: TypeTask, ID: "t1", Units: p.UnitsMax, UnitTime: p.UnitTime, UnitTimeDist: p.UnitTimeDist}
	if err := checkTask(task); err != nil {
		return fmt.Errorf("workload: gen: %w", err)
	}
	return nil
}

// Generate writes a synthetic workload drawn from r: Poisson arrivals
// and bursts (to the millisecond), task sizes, rolling deploys, worker
// crashes and leader pauses, merged in time order and
// written as they are drawn, so memory does not grow with the duration
// (one burst at a time is held).
// Arrivals, burst spreads and sizes each draw from a PRNG of their own,
// seeded from r in a fixed order, so changing one parameter leaves the
// other draws alone. The same parameters and seed give the same bytes.
func Generate(p GenParams, r *rand.Rand, w io.Writer) error {
	if err := p.Validate(); err != nil {
		return err
	}
	g := generator{p: p,
		arrivals: rand.New(rand.NewPCG(r.Uint64(), r.Uint64())),
		bursts:   rand.New(rand.NewPCG(r.Uint64(), r.Uint64())),
		sizes:    rand.New(rand.NewPCG(r.Uint64(), r.Uint64())),
	}
	if p.UnitsAlpha > 0 {
		d := sim.ParetoDist(time.Duration(p.UnitsMin), time.Duration(p.UnitsMax), p.UnitsAlpha)
		g.pareto = &d
	}
	out, err := NewWriter(w, Header{Version: Version, Name: p.Name, Workers: p.Workers, Duration: p.Duration, Env: p.Env})
	if err != nil {
		return err
	}
	if err := g.run(out); err != nil {
		return err
	}
	return out.Flush()
}

// generator merges the streams of events in time order: Poisson
// arrivals, bursts, deploys, worker crashes and leader pauses.
type generator struct {
	p                       GenParams
	arrivals, bursts, sizes *rand.Rand
	pareto                  *sim.Dist
	tasks                   int
	crashes                 int
}

func (g *generator) run(out *Writer) error {
	p := g.p
	const never = time.Duration(1<<63 - 1)
	nextArrival, nextBurst, nextDeploy, nextCrash, nextPause := never, never, never, never, never
	if p.TasksPerMinute > 0 {
		nextArrival = exponential(g.arrivals, meanGap(time.Minute, p.TasksPerMinute))
	}
	if p.BurstEvery > 0 {
		nextBurst = p.BurstEvery
	}
	if p.DeployEvery > 0 {
		nextDeploy = p.DeployEvery
	}
	if p.CrashEvery > 0 {
		nextCrash = p.CrashEvery
	}
	if p.LeaderPauseEvery > 0 {
		nextPause = p.LeaderPauseEvery
	}
	deployLength := time.Duration(p.Workers-1)*p.DeploySpacing + p.DeployDown
	var pending []time.Duration // the current burst's arrivals still to write
	for {
		if len(pending) == 0 && nextBurst < p.Duration {
			pending = g.burst(nextBurst)
			nextBurst += p.BurstEvery
		}
		inBurst := never
		if len(pending) > 0 {
			inBurst = pending[0]
		}
		at := min(nextArrival, inBurst, nextDeploy, nextCrash, nextPause)
		if at >= p.Duration {
			return nil
		}
		var err error
		switch at {
		case nextDeploy:
			if at+deployLength < p.Duration {
				err = out.Write(Event{Type: TypeDeploy, At: at, Spacing: p.DeploySpacing, Down: p.DeployDown})
			}
			nextDeploy += p.DeployEvery
		case nextCrash:
			err = out.Write(Event{Type: TypeCrash, At: at, Worker: WorkerName(g.crashes%p.Workers + 1)})
			g.crashes++
			nextCrash += p.CrashEvery
		case nextPause:
			if at+p.LeaderPause < p.Duration {
				err = out.Write(Event{Type: TypePause, At: at, Member: RoleLeader, Duration: p.LeaderPause})
			}
			nextPause += p.LeaderPauseEvery
		case inBurst:
			err = g.task(out, at)
			pending = pending[1:]
		default:
			err = g.task(out, at)
			nextArrival += exponential(g.arrivals, meanGap(time.Minute, p.TasksPerMinute))
		}
		if err != nil {
			return err
		}
	}
}

// burst returns the arrival times of the burst that starts at start:
// BurstSize instants spread uniformly over BurstSpread, in order. As
// BurstSpread <= BurstEvery, a burst ends before the next one starts.
func (g *generator) burst(start time.Duration) []time.Duration {
	at := make([]time.Duration, g.p.BurstSize)
	for i := range at {
		at[i] = start
		if g.p.BurstSpread > 0 {
			at[i] += time.Duration(g.bursts.Int64N(int64(g.p.BurstSpread)))
		}
	}
	slices.Sort(at)
	return at
}

// task writes one task arriving at at.
func (g *generator) task(out *Writer, at time.Duration) error {
	if g.tasks >= MaxGenTasks {
		return fmt.Errorf("workload: gen: more than %d tasks", MaxGenTasks)
	}
	g.tasks++
	at = at.Truncate(time.Millisecond) // monotonic, so the order stays; and it reads better
	units := g.p.UnitsMin
	switch {
	case g.pareto != nil:
		units = int(g.pareto.Sample(g.sizes))
	case g.p.UnitsMax > g.p.UnitsMin:
		units += g.sizes.IntN(g.p.UnitsMax - g.p.UnitsMin + 1)
	}
	return out.Write(Event{Type: TypeTask, At: at, ID: fmt.Sprintf("t%d", g.tasks), Units: units,
		UnitTime: g.p.UnitTime, UnitTimeDist: g.p.UnitTimeDist})
}
