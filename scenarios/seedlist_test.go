package scenarios

import (
	"flag"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

func TestSeedListSet(t *testing.T) {
	tests := []struct {
		in    string
		seeds []uint64
		str   string
		err   string
	}{
		{in: "7", seeds: []uint64{7}, str: "7"},
		{in: "1-4", seeds: []uint64{1, 2, 3, 4}, str: "1-4"},
		{in: "2,5,9", seeds: []uint64{2, 5, 9}, str: "2,5,9"},
		{in: " 1-3 , 9 ", seeds: []uint64{1, 2, 3, 9}, str: "1-3,9"},
		{in: "3-4,1-4", seeds: []uint64{1, 2, 3, 4}, str: "1-4"}, // a set: each seed once, in order
		{in: "18446744073709551615", seeds: []uint64{1<<64 - 1}, str: "18446744073709551615"},
		{in: "", err: `seeds "": want N, A-B or a list`},
		{in: "x", err: `"x" is not one`},
		{in: "5-2", err: "5-2: the last seed is below the first"},
		{in: "1-", err: `want A-B with non-negative integers, and "" is not one`},
		{in: "1,,2", err: `"" is not one`},
		{in: "-3", err: `"" is not one`},
		{in: "0-1073741824", err: "more than 1073741824 seeds"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			var l seedList
			err := l.Set(tc.in)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			var got []uint64
			l.each(func(seed uint64) bool { got = append(got, seed); return true })
			assert.Equal(t, tc.seeds, got)
			assert.Equal(t, tc.str, l.String())
		})
	}
}

func FuzzSeedListSet(f *testing.F) {
	for _, s := range []string{"7", "1-500", "1-5,9", "5-2", "x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var l seedList
		if l.Set(s) != nil {
			return
		}
		var again seedList
		require.NoError(t, again.Set(l.String()), "String writes what Set reads")
		assert.Equal(t, l, again)
	})
}

// tinyScenario runs in a few milliseconds.
func tinyScenario() Scenario {
	return Scenario{Name: "tiny", Config: lease.Config{TTL: time.Second, Rho: 0.01, Margin: 10 * time.Millisecond},
		Contenders: 2, Lock: LockLoad{WriteEvery: 200 * time.Millisecond}, Duration: 3 * time.Second, HealAt: time.Second}
}

// -leasesim.seeds replaces the seeds the test wrote, in every Run.
func TestRunTakesSeedsFromTheCommandLine(t *testing.T) {
	tests := []struct {
		flag string
		want []uint64
	}{
		{"", []uint64{1, 2}}, // unset: the test's own
		{"9", []uint64{9}},
		{"3-4,7", []uint64{3, 4, 7}},
	}
	for _, tc := range tests {
		t.Run(tc.flag, func(t *testing.T) {
			saved := cmdline.seeds
			t.Cleanup(func() { cmdline.seeds = saved })
			cmdline.seeds = seedList{}
			if tc.flag != "" {
				require.NoError(t, flag.Set(SeedsFlag, tc.flag))
			}
			var ran []uint64
			Run(t, tinyScenario(), Seeds(1, 2), Expect(func(_ *testing.T, out *Outcome) { ran = append(ran, out.Seed) }))
			assert.Equal(t, tc.want, ran)
		})
	}
}

// A bad seed set on the command line or in the environment stops the test
// binary with exit code 2 and a message naming the flag or the variable.
func TestBadCommandLineExitsTwo(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"flag", nil, []string{"-leasesim.seeds=5-2"}, `invalid value "5-2" for flag -leasesim.seeds: seeds 5-2: the last seed is below the first`},
		{"seeds variable", []string{SeedsEnv + "=x"}, nil, `scenarios: LEASESIM_SEEDS="x": seeds "x": want N or A-B`},
		{"shrink variable", []string{ShrinkEnv + "=maybe"}, nil, `scenarios: LEASESIM_SHRINK="maybe": want 1 or 0`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$"}, tc.args...)...)
			cmd.Env = append(os.Environ(), tc.env...)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "%s", out)
			assert.Equal(t, 2, exit.ExitCode(), "%s", out)
			assert.Contains(t, strings.TrimSpace(string(out)), tc.want)
		})
	}
}
