package main

import (
	"runtime/debug"
	"strings"
)

// stamp is the version the Makefile stamps into the binary
// (-ldflags "-X main.stamp=..."): git describe of the tree it was built
// from. Empty for a plain go build, which falls back on the build
// information the Go toolchain embeds.
var stamp string

// version describes this build: the stamp, or the module version, the VCS
// revision (and whether the tree was modified), and the Go version.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "simrun (no build information)"
	}
	return formatVersion(stamp, info)
}

// formatVersion writes info as one line: "simrun v0.3.0-12-g1ff77ba
// go1.26.8" when stamped, else "simrun (devel) revision 1ff77ba6c0de
// (modified) 2025-11-23T14:10:00Z go1.26.8".
func formatVersion(stamp string, info *debug.BuildInfo) string {
	if stamp != "" {
		return "simrun " + stamp + " " + info.GoVersion
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	parts := []string{"simrun", info.Main.Version}
	if parts[1] == "" {
		parts[1] = "(devel)"
	}
	if rev := settings["vcs.revision"]; rev != "" {
		parts = append(parts, "revision "+rev)
		if settings["vcs.modified"] == "true" {
			parts = append(parts, "(modified)")
		}
		if t := settings["vcs.time"]; t != "" {
			parts = append(parts, t)
		}
	} else {
		parts = append(parts, "revision unknown (built without VCS information; make build stamps one)")
	}
	parts = append(parts, info.GoVersion)
	return strings.Join(parts, " ")
}
