package main

import (
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/internal/repro"
)

func TestFormatVersion(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "1ff77ba6c0de"}, {Key: "vcs.modified", Value: "true"},
		{Key: "vcs.time", Value: "2025-11-23T14:10:00Z"}}
	for _, tc := range []struct {
		name, stamp string
		info        debug.BuildInfo
		want        string
	}{
		{"stamped", "v0.3.0-12-g1ff77ba", debug.BuildInfo{GoVersion: "go1.26.8", Settings: vcs}, "simrun v0.3.0-12-g1ff77ba go1.26.8"},
		{"vcs", "", debug.BuildInfo{GoVersion: "go1.26.8", Settings: vcs},
			"simrun (devel) revision 1ff77ba6c0de (modified) 2025-11-23T14:10:00Z go1.26.8"},
		{"module version", "", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}},
			"simrun v1.2.3 revision unknown (built without VCS information; make build stamps one) go1.26.8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, formatVersion(tc.stamp, &tc.info))
		})
	}
}

// make build stamps the checkout's git describe into simrun --version.
func TestMakeBuildStamps(t *testing.T) {
	root, err := repro.ModuleRoot()
	require.NoError(t, err)
	describe, err := exec.Command("git", "-C", root, "describe", "--always", "--dirty").Output()
	if err != nil {
		t.Skip("not a git checkout: make build stamps nothing")
	}
	bin := filepath.Join(t.TempDir(), "simrun")
	out, err := exec.Command("make", "-C", root, "build", "BIN="+bin).CombinedOutput()
	require.NoError(t, err, "%s", out)
	got, err := exec.Command(bin, "--version").Output()
	require.NoError(t, err)
	assert.Contains(t, string(got), "simrun "+strings.TrimSpace(string(describe))+" go")
}
