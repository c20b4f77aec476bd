package main

import (
	"runtime/debug"
)

// moduleVersion is pkft's module version from the build information ("(devel)" for a build from
// a checkout), with the VCS revision when the build recorded one. The engine's C ABI exposes no
// version, so none is printed for it; the engine is the paimon-ftindex wheel pinned in scripts/.
func moduleVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && s.Value != "" {
			rev := s.Value
			if len(rev) > 12 {
				rev = rev[:12]
			}
			v += " " + rev
		}
	}
	return v + " (engine: the C ABI reports no version)"
}
