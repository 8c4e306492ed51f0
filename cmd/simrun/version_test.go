package main

import (
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// make build stamps the checkout's git describe into the variable stamp,
// which version reads (a dry run: the build itself is every other test's).
func TestMakeBuildStamps(t *testing.T) {
	root := repoRoot(t)
	describe, err := exec.Command("git", "-C", root, "describe", "--always", "--dirty").Output()
	if err != nil {
		t.Skip("not a git checkout: make build stamps nothing")
	}
	out, err := exec.Command("make", "-n", "-C", root, "build").CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), `-ldflags "-X main.stamp=`+strings.TrimSpace(string(describe))+`"`)
	_ = stamp // the variable -X sets: renaming it fails this build
}
