package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// PypaimonVenv is the virtual environment holding pypaimon, relative to the repository root
// (make pypaimon-env creates it).
const PypaimonVenv = ".cache/pypaimon-venv"

// StartPypaimon starts the table runner on pypaimon (compat/python/table_runner.py), Apache
// Paimon's official pure-Python implementation, with the interpreter of PypaimonVenv. pypaimon is
// an independent implementation of the table format, not Java Paimon.
func StartPypaimon(ctx context.Context) (*Process, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	py := filepath.Join(root, PypaimonVenv, "bin", "python")
	if _, err := os.Stat(py); err != nil {
		return nil, fmt.Errorf("%w: no pypaimon environment at %s (make pypaimon-env)", ErrUnavailable, filepath.Join(root, PypaimonVenv))
	}
	p, err := Start(ctx, "pypaimon", []string{py, filepath.Join(root, "compat/python/table_runner.py"), "serve"}, nil)
	if err != nil {
		return nil, err
	}
	// The first call tells whether pypaimon imports at all.
	if err := p.Call(ctx, "ping", nil, nil); err != nil {
		p.kill()
		_ = p.Close()
		return nil, fmt.Errorf("%w: the pypaimon runner does not serve: %v", ErrUnavailable, err)
	}
	return p, nil
}
