package tune

import (
	"fmt"
	"strconv"
	"time"

	"github.com/leasesim/leasesim/internal/repro"
	"github.com/leasesim/leasesim/lease"
)

// point is one configuration of the grid: its result so far and the lease
// configuration it runs with.
type point struct {
	res   ConfigResult
	lease lease.Config
}

// grid returns every configuration of res, TTL outermost, then renew
// interval, then checkpoint policy, then election timeout (when that axis
// is used), each checked: one that cannot be a valid lease configuration
// is marked invalid with the reason, and does not run.
func (cfg Config) grid(res Result) []point {
	elections := cfg.ElectionTimeouts
	if len(elections) == 0 {
		elections = []time.Duration{0} // the implementation's default, not an axis
	}
	points := make([]point, 0, cfg.gridSize())
	for _, ttl := range cfg.TTLs {
		for _, renew := range cfg.Renews {
			for _, ckpt := range cfg.Checkpoints {
				for _, election := range elections {
					points = append(points, cfg.point(res, ttl, renew, ckpt, election))
				}
			}
		}
	}
	return points
}

// point builds and checks one configuration; election is zero when the
// grid has no election-timeout axis.
func (cfg Config) point(res Result, ttl time.Duration, renew Renew, ckpt Checkpoint, election time.Duration) point {
	lc := lease.Config{TTL: ttl, RenewInterval: renew.For(ttl), Rho: cfg.Rho, Margin: cfg.Margin,
		CheckpointEveryUnits: ckpt.EveryUnits, CheckpointInterval: ckpt.Interval, ElectionTimeout: election}
	r := ConfigResult{
		Label: Label(ttl, renew, ckpt), TTL: ttl.String(), TTLNs: ttl,
		Renew: renew.String(), RenewInterval: lc.RenewInterval,
		Checkpoint: ckpt.String(), CheckpointEveryUnits: ckpt.EveryUnits, CheckpointInterval: ckpt.Interval,
		Violations: []Violation{}, Unknown: map[string]int{},
	}
	if election > 0 {
		r.Label += " election=" + election.String()
		r.ElectionTimeout, r.ElectionTimeoutNs = election.String(), election
	}
	r.InvalidReason = invalidReason(lc)
	r.Valid = r.InvalidReason == ""
	if r.Valid {
		r.Replay = res.ConfigReplay(r)
	}
	return point{res: r, lease: lc.WithDefaults()}
}

// invalidReason says why lc cannot be a valid lease configuration, or "".
// The renewal rule comes first, in the tuner's words: a holder must renew
// before its own belief runs out.
func invalidReason(lc lease.Config) string {
	if lc.RenewInterval <= 0 {
		return fmt.Sprintf("renew interval %v: the TTL is too short to divide", lc.RenewInterval)
	}
	if validity := lc.HolderValidity(lc.TTL); lc.RenewInterval >= validity {
		return fmt.Sprintf("renew %v >= TTL×(1−rho)−margin = %v: the holder would stop believing before it renews",
			lc.RenewInterval, validity)
	}
	if err := lc.WithDefaults().Validate(); err != nil {
		return err.Error()
	}
	return ""
}

// Label names a configuration: "ttl=5s renew=ttl/3 checkpoint=5u"; a
// grid with election timeouts adds " election=1s".
func Label(ttl time.Duration, renew Renew, ckpt Checkpoint) string {
	return fmt.Sprintf("ttl=%v renew=%v checkpoint=%v", ttl, renew, ckpt)
}

// ReplayCommand returns the simrun command that runs configuration c of
// the tuning run res on seeds first to last: `simrun tune --workload FILE
// --ttl 5s --renew ttl/3 --checkpoint 5u --rho 0.01 --margin 50ms --seeds
// 17-17` (with --election-timeout when the grid had that axis, and --impl
// for another implementation than the correct one),
// named as the CLI was invoked (package repro). It reproduces the runs
// exactly: a failing run prints the same trace hash again.
func (res Result) ReplayCommand(c ConfigResult, first, last uint64) string {
	return res.tuneLine(c, fmt.Sprintf("%d-%d", first, last))
}

// ConfigReplay returns the simrun command that runs configuration c of the
// tuning run res on every seed it ran on: `simrun tune ... --seeds 1-10`.
func (res Result) ConfigReplay(c ConfigResult) string {
	return res.tuneLine(c, res.Seeds)
}

// tuneLine is the `simrun tune` line of configuration c on seeds.
func (res Result) tuneLine(c ConfigResult, seeds string) string {
	args := append([]string{"tune"}, res.configArgs(c)...)
	return repro.Simrun(append(append(args, "--seeds", seeds), res.implArgs()...)...)
}

// RunReplay returns the simrun command that runs configuration c of the
// tuning run res on one seed and checks it, as one run: `simrun run
// --workload FILE --ttl 5s --renew ttl/3 --checkpoint 5u --rho 0.01
// --margin 50ms --seed 17` (with --impl for another implementation). It
// gives the same trace hash as the tuning run's run of that seed, and with
// --out it writes report.html.
func (res Result) RunReplay(c ConfigResult, seed uint64) string {
	return repro.Simrun(res.RunArgs(c, seed)...)
}

// RunArgs are the arguments of RunReplay's line, after the program name.
func (res Result) RunArgs(c ConfigResult, seed uint64) []string {
	args := append([]string{"run"}, res.configArgs(c)...)
	return append(append(args, "--seed", strconv.FormatUint(seed, 10)), res.implArgs()...)
}

// configArgs are the flags that name configuration c of res, the same for
// simrun tune and simrun run.
func (res Result) configArgs(c ConfigResult) []string {
	args := []string{"--workload", res.Workload, "--ttl", c.TTL, "--renew", c.Renew, "--checkpoint", c.Checkpoint}
	if c.ElectionTimeout != "" {
		args = append(args, "--election-timeout", c.ElectionTimeout)
	}
	return append(args, "--rho", strconv.FormatFloat(res.Rho, 'g', -1, 64), "--margin", res.Margin.String())
}

// implArgs names the implementation, unless it is the correct one.
func (res Result) implArgs() []string {
	if res.Impl == "" || res.Impl == lease.Correct().Name {
		return nil
	}
	return []string{"--impl", res.Impl}
}
