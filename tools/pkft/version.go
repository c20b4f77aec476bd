package main

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/paimon-pkft/pkft"
)

// moduleVersion is pkft's module version from the build information ("(devel)" for a build from
// a checkout), with the VCS revision when the build recorded one.
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
	return v
}

// rootLong is the root command's help: what the commands are for and where the engine is found.
const rootLong = `Inspect and maintain Paimon primary-key full-text archives.

The commands that build or search archives (maintain, compact, search, and write to a table with
a full-text index) need the full-text engine, libpaimon_ftindex_ffi.so of the official
paimon-ftindex wheel. Install it with

  ` + pkft.EngineInstallCommand + `

and pkft finds it through the python3 (else python) on PATH. pkft looks for it in --engine-lib
(only there, when given), else PAIMON_FTINDEX_LIB_PATH (the file or its directory; only there,
when set), else the paimon_ftindex package of that Python, else .cache/native of a pkft clone
(make native). A write to a table with a full-text index checks that the engine loads before it
writes anything. pkft version shows which engine is found.`

func versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print pkft's version and which full-text engine it finds",
		Long: `Print pkft's version, then the full-text engine (libpaimon_ftindex_ffi.so of the paimon-ftindex
wheel) the commands would use: its path, how it was found (--engine-lib, PAIMON_FTINDEX_LIB_PATH,
the paimon_ftindex package of the Python on PATH, or .cache/native of a pkft clone), its sha256
and its version. The engine's C ABI reports no version: it is read from the wheel metadata
installed with the library, or known from the sha256 of an official wheel's library.

With no engine found it says how to install one and exits 0: the commands that build or search
no archive work without it. An engine that is found but does not load is an error (exit 1).`,
		Example: `  pkft version
  pkft version --engine-lib /opt/paimon/libpaimon_ftindex_ffi.so`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "pkft %s\n", moduleVersion())
			info, err := pkft.FindEngine(cmd.Context(), fsOptions(cmd.Context())...)
			if info == nil {
				if errors.Is(err, pkft.ErrEngineNotFound) {
					fmt.Fprintf(out, "engine: not found\n  %v\n", err)
					return nil
				}
				return err
			}
			printEngine(out, info)
			if err != nil {
				fmt.Fprintf(out, "  loads: no\n")
				return err
			}
			fmt.Fprintf(out, "  loads: yes\n")
			return nil
		},
	}
}

// printEngine prints what pkft version says of the engine found.
func printEngine(w io.Writer, info *pkft.EngineInfo) {
	fmt.Fprintf(w, "engine: %s\n", info.Path)
	var how string
	switch info.Source {
	case pkft.EngineFromOption:
		how = "--engine-lib " + info.Where
	case pkft.EngineFromEnv:
		how = info.Where
	case pkft.EngineFromPython:
		how = info.Where
	case pkft.EngineFromCache:
		how = "the make native cache " + info.Where
	default:
		how = string(info.Source) + " " + info.Where
	}
	fmt.Fprintf(w, "  found through: %s\n", how)
	if info.SHA256 != "" {
		fmt.Fprintf(w, "  sha256: %s\n", info.SHA256)
	}
	switch {
	case info.Version == "" && info.SHA256 != "":
		fmt.Fprintf(w, "  version: unknown (the C ABI reports none, no wheel metadata is installed with the file, and its sha256 is no official wheel's)\n")
	case info.VersionFrom == "sha256":
		fmt.Fprintf(w, "  version: %s (known from its sha256)\n", info.Version)
	case info.Version != "":
		fmt.Fprintf(w, "  version: %s (from %s)\n", info.Version, info.VersionFrom)
	}
	if info.OfficialWheel != "" {
		fmt.Fprintf(w, "  official build: yes, the library of %s\n", info.OfficialWheel)
	} else if info.SHA256 != "" {
		fmt.Fprintf(w, "  official build: not one pkft knows (another build or platform)\n")
	}
}
