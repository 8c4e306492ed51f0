package workload

import (
	"fmt"
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sim"
)

// Version is the format version this package reads and writes.
const Version = 1

// Limits of the format. They bound what one file can ask of a run, so that
// a typo cannot make a run allocate without end.
const (
	// MaxWorkers bounds the header's workers.
	MaxWorkers = 1000
	// MaxUnits bounds one task's units.
	MaxUnits = 1 << 20
	// MaxDuration bounds every duration in a file, and the work of one
	// task (units × its longest unit time).
	MaxDuration = 7 * 24 * time.Hour
	// MaxLineBytes bounds one line.
	MaxLineBytes = 64 << 10
	// MaxNameBytes bounds the workload's name and a task's id.
	MaxNameBytes = 256
)

// Type is the "type" of a line. The names are stable once released.
type Type string

// The line types. A file has one header, first, then events.
const (
	TypeHeader  Type = "header"  // the first line: name, version, workers, environment
	TypeTask    Type = "task"    // a task arrives
	TypeCrash   Type = "crash"   // a worker crashes
	TypeRestart Type = "restart" // a crashed worker restarts
	TypePause   Type = "pause"   // a worker freezes for a duration (GC, VM migration)
	TypeDeploy  Type = "deploy"  // a rolling restart of every worker
)

// eventTypes lists the event types in the order error messages name them.
var eventTypes = []Type{TypeTask, TypeCrash, TypeRestart, TypePause, TypeDeploy}

// Header is the first line of a workload: what it is called, how many
// workers run it, how long it lasts, and the environment it runs in.
type Header struct {
	// Version is the format version; it must be Version.
	Version int
	// Name names the workload; the scenario built from it has this name.
	Name string
	// Workers is how many workers, named "w1".."wN", run the tasks.
	Workers int
	// Duration is how long the workload lasts; faults stop there. Zero
	// means absent: the workload then lasts until its last event ends
	// (see Plan.Duration).
	Duration time.Duration
	// Env is the environment the workload runs in.
	Env Env
}

// Env is the environment of a workload: the network, and the faults that
// strike at random (drawn from a run's seed) on top of the file's explicit
// events. Every field is optional.
type Env struct {
	// Latency is the one-way message delay; nil means sim.DefaultLink's.
	Latency *sim.Dist
	// Loss is the probability that a message is lost, in [0, 1].
	Loss float64
	// GCPause, when set, pauses every worker at random.
	GCPause *GCPause
	// CrashPerHour is how often each worker crashes at random, on average.
	CrashPerHour float64
	// RestartAfter is how long a crashed worker stays down when nothing in
	// the file restarts it; zero means DefaultRestartAfter.
	RestartAfter time.Duration
}

// DefaultRestartAfter is Env.RestartAfter when the header leaves it out.
const DefaultRestartAfter = 10 * time.Second

// restartAfter returns how long a crashed worker stays down.
func (e Env) restartAfter() time.Duration {
	if e.RestartAfter == 0 {
		return DefaultRestartAfter
	}
	return e.RestartAfter
}

// latency returns the link latency, with the default filled in.
func (e Env) latency() sim.Dist {
	if e.Latency == nil {
		return sim.DefaultLink.Latency
	}
	return *e.Latency
}

// GCPause describes random stop-the-world pauses: each worker pauses as a
// Poisson process at PerMinute, for a duration whose median is P50, whose
// 99th percentile is P99, and which never exceeds Max.
type GCPause struct {
	PerMinute     float64
	P50, P99, Max time.Duration
}

// Event is one line after the header. Which fields it uses depends on its
// Type; the others stay zero:
//
//   - task: ID, Units, and either UnitTime or UnitTimeDist;
//   - crash, restart: Worker or Member;
//   - pause: Worker or Member, Duration;
//   - deploy: Spacing, Down.
type Event struct {
	// Type says what happens.
	Type Type
	// At is when, since the start of the workload. Events come in
	// non-decreasing At order.
	At time.Duration
	// ID names a task; ids are unique in a file.
	ID string
	// Units is how many units of work a task has.
	Units int
	// UnitTime is how long one unit of a task takes.
	UnitTime time.Duration
	// UnitTimeDist, instead of UnitTime, draws a task's unit time from a
	// distribution, once per task and run.
	UnitTimeDist *sim.Dist
	// Worker names the worker a crash, restart or pause acts on: "w1".."wN".
	Worker string
	// Member, instead of Worker, names the lease store's member a crash,
	// restart or pause acts on: "grantor", "grantor2", … (the names
	// lease.MemberAddrs gives a store of several members), or, for a
	// pause only, RoleLeader, whichever member leads when the pause
	// begins. Which members exist depends on the implementation under
	// test: see Plan.ForStore.
	Member string
	// Duration is how long a pause lasts.
	Duration time.Duration
	// Spacing is the time between two workers' crashes in a deploy: worker
	// i (from 1) crashes at At + (i−1)×Spacing.
	Spacing time.Duration
	// Down is how long each worker stays down in a deploy.
	Down time.Duration
}

// String formats the event compactly, for logs and messages, for example
// `1s task "t1" 20×250ms`.
func (e Event) String() string {
	switch e.Type {
	case TypeTask:
		if e.UnitTimeDist != nil {
			d := e.UnitTimeDist
			return fmt.Sprintf("%v task %q %d×%s[%v..%v]", e.At, e.ID, e.Units, d.Kind, d.Min, d.Max)
		}
		return fmt.Sprintf("%v task %q %d×%v", e.At, e.ID, e.Units, e.UnitTime)
	case TypePause:
		return fmt.Sprintf("%v pause %s for %v", e.At, e.target(), e.Duration)
	case TypeDeploy:
		return fmt.Sprintf("%v deploy spacing %v down %v", e.At, e.Spacing, e.Down)
	}
	return fmt.Sprintf("%v %s %s", e.At, e.Type, e.target())
}

// target is the node a crash, restart or pause acts on: its worker or its
// store member.
func (e Event) target() string {
	if e.Member != "" {
		return e.Member
	}
	return e.Worker
}

// RoleLeader, as an event's member, names whichever member of the lease
// store leads when the event acts (faults.RoleLeader). On a store of one
// grantor it is that grantor.
const RoleLeader = faults.RoleLeader

// MaxMembers bounds the store members a file can name: "grantor" and
// "grantor2".."grantor9".
const MaxMembers = 9

// memberIndex returns i (from 1) for a store member's name as
// lease.MemberAddrs gives it ("grantor" is 1, "grantor2" is 2, up to
// MaxMembers), or 0.
func memberIndex(name string) int {
	base, i, ok := lease.ParseMember(lease.Addr(name), MaxMembers)
	if !ok || string(base) != scenarios.GrantorNode {
		return 0
	}
	return i + 1
}

// WorkerName returns the name of worker i, counted from 1: "w1", "w2", …
// These are the scenario's worker node names.
func WorkerName(i int) string { return fmt.Sprintf("w%d", i) }

// workerIndex returns i for a name "wi" with 1 <= i <= workers, or 0.
func workerIndex(name string, workers int) int {
	if len(name) < 2 || name[0] != 'w' || name[1] == '0' {
		return 0
	}
	i := 0
	for _, c := range name[1:] {
		if c < '0' || c > '9' {
			return 0
		}
		i = i*10 + int(c-'0')
		if i > workers {
			return 0
		}
	}
	return i
}

// work returns the longest time a task's units can take: Units × UnitTime,
// or Units × the distribution's largest value.
func (e Event) work() time.Duration {
	unit := e.UnitTime
	if e.UnitTimeDist != nil {
		unit = distMax(*e.UnitTimeDist)
	}
	return time.Duration(e.Units) * unit
}

// distMax is the largest value d draws.
func distMax(d sim.Dist) time.Duration {
	if d.Kind == sim.Fixed {
		return d.Min
	}
	return d.Max
}

// end returns the last instant an event refers to: a pause's end, a
// deploy's last restart, otherwise At.
func (e Event) end(workers int) time.Duration {
	switch e.Type {
	case TypePause:
		return e.At + e.Duration
	case TypeDeploy:
		return e.At + time.Duration(workers-1)*e.Spacing + e.Down
	}
	return e.At
}
