package main

import (
	"runtime/debug"
	"strings"
)

// version describes this build: the module version, the VCS revision (and
// whether the tree was modified) and the Go version, from the build
// information the Go toolchain embeds.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "simrun (no build information)"
	}
	return formatVersion(info)
}

// formatVersion writes info as one line: "simrun (devel) revision
// 1ff77ba6c0de (modified) 2025-11-23T14:10:00Z go1.26.8".
func formatVersion(info *debug.BuildInfo) string {
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
		parts = append(parts, "revision unknown (built without VCS information)")
	}
	parts = append(parts, info.GoVersion)
	return strings.Join(parts, " ")
}
