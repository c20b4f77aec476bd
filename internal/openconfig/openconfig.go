// Package openconfig holds what pkft.Open is configured with. pkft's OpenOption is a function of
// a *Config, so the module's own packages (tests, the crash-point harness, the conformance
// suite) pass Open a file system or a full-text engine as explicit options, WithFileIO and
// WithEngine, while the public API names neither type.
package openconfig

import (
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fulltext"
)

// Config is what the options of pkft.Open set.
type Config struct {
	// EngineLibrary is the path of the engine's C ABI library; empty looks for it.
	EngineLibrary string
	// FSOptions configure the file system path's scheme names (Paimon's catalog keys).
	FSOptions map[string]string
	// KeepArchives keeps the archives searches open for the searches after them.
	KeepArchives bool
	// FileIO, when set, is the file system the table is opened on, instead of the one the path's
	// scheme names.
	FileIO fileio.FileIO
	// Engine, when set, builds and searches archives instead of the native engine.
	Engine fulltext.Engine
}

// WithFileIO is an option of pkft.Open (and of pkft.Create's WithOpenOptions) that opens the
// table on fio.
func WithFileIO(fio fileio.FileIO) func(*Config) {
	return func(c *Config) { c.FileIO = fio }
}

// WithEngine is an option of pkft.Open that gives the table the engine e instead of loading the
// native one.
func WithEngine(e fulltext.Engine) func(*Config) {
	return func(c *Config) { c.Engine = e }
}
