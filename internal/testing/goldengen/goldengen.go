// Package goldengen produces and describes the pypaimon golden tables: small primary-key tables
// written by pypaimon (Apache Paimon's official pure-Python implementation, not Java) through
// compat/python/table_runner.py, checked in under testdata/tables/pypaimon/ together with
// pypaimon's own view of them in compat/golden/pypaimon/. It also builds Go's view of a table
// (GoView) in the same form, so tests compare the two without Python. The locations and format of
// the Java golden corpus (java.go; written by compat/runner) are here too, so that impl tests
// find it without the conformance harness.
package goldengen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Directories of the golden corpus, relative to the repository root.
const (
	TablesDir   = "testdata/tables/pypaimon"
	ExpectedDir = "compat/golden/pypaimon"
)

// MaxTableBytes bounds the size of one generated table: golden tables stay small.
const MaxTableBytes = 200 << 10

// Caller sends one request to a table runner (runner.Process satisfies it).
type Caller interface {
	Call(ctx context.Context, cmd string, args any, result any) error
}

// Field is one column of a table spec: its name and Paimon SQL type.
type Field struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Commit is one write-and-commit: rows as JSON objects in the runner's value forms; with
// Overwrite non-nil the commit overwrites that static partition.
type Commit struct {
	Rows      []map[string]any
	Overwrite map[string]any
}

// Spec describes a table to create and the commits to write into it.
type Spec struct {
	Name          string
	Fields        []Field
	PrimaryKeys   []string
	PartitionKeys []string
	Options       map[string]string
	Commits       []Commit
}

// Expected is the content of compat/golden/pypaimon/<table>.json: what pypaimon reported for the
// table at generation time. Files and Rows are pypaimon's output verbatim.
type Expected struct {
	Generator string          `json:"generator"`
	Files     json.RawMessage `json:"files"`
	Rows      json.RawMessage `json:"rows"`
}

// ExpectedPath is where the expected output of the golden table name lives under root.
func ExpectedPath(root, name string) string {
	return filepath.Join(root, ExpectedDir, name+".json")
}

// TablePath is where the golden table name lives under root.
func TablePath(root, name string) string {
	return filepath.Join(root, TablesDir, name)
}

// CreateAndWrite creates spec's table in warehouse/database through the runner and writes its
// commits, returning the table's path.
func CreateAndWrite(ctx context.Context, c Caller, warehouse, database string, spec Spec) (string, error) {
	var created struct {
		Path string `json:"path"`
	}
	err := c.Call(ctx, "create-table", map[string]any{
		"warehouse": warehouse, "database": database, "table": spec.Name, "fields": spec.Fields,
		"primaryKeys": spec.PrimaryKeys, "partitionKeys": spec.PartitionKeys, "options": spec.Options,
	}, &created)
	if err != nil {
		return "", fmt.Errorf("create table %s: %w", spec.Name, err)
	}
	for i, commit := range spec.Commits {
		args := map[string]any{"warehouse": warehouse, "database": database, "table": spec.Name, "rows": commit.Rows}
		if commit.Overwrite != nil {
			args["overwrite"] = commit.Overwrite
		}
		if err := c.Call(ctx, "write", args, nil); err != nil {
			return "", fmt.Errorf("table %s, commit %d: %w", spec.Name, i+1, err)
		}
	}
	return created.Path, nil
}

// Generate regenerates the golden corpus under root: it removes TablesDir and ExpectedDir, writes
// every spec's table through the runner, moves it to TablePath and stores the runner's files
// and read output of the moved table at ExpectedPath.
func Generate(ctx context.Context, c Caller, root string, specs []Spec) error {
	var ping struct {
		Runner  string `json:"runner"`
		Version string `json:"version"`
	}
	if err := c.Call(ctx, "ping", nil, &ping); err != nil {
		return err
	}
	tables, expected := filepath.Join(root, TablesDir), filepath.Join(root, ExpectedDir)
	warehouse, err := ResetDirs(tables, expected)
	if err != nil {
		return err
	}
	defer os.RemoveAll(warehouse)
	for _, spec := range specs {
		path, err := CreateAndWrite(ctx, c, warehouse, "golden", spec)
		if err != nil {
			return err
		}
		dest := TablePath(root, spec.Name)
		if err := os.Rename(path, dest); err != nil {
			return fmt.Errorf("move table %s: %w", spec.Name, err)
		}
		if err := checkSize(dest); err != nil {
			return err
		}
		exp := Expected{Generator: fmt.Sprintf("%s %s (compat/python/table_runner.py)", ping.Runner, ping.Version)}
		if err := c.Call(ctx, "files", map[string]any{"path": dest}, &exp.Files); err != nil {
			return fmt.Errorf("files of %s: %w", spec.Name, err)
		}
		var read struct {
			Rows json.RawMessage `json:"rows"`
		}
		if err := c.Call(ctx, "read", map[string]any{"path": dest}, &read); err != nil {
			return fmt.Errorf("read %s: %w", spec.Name, err)
		}
		exp.Rows = read.Rows
		data, err := json.MarshalIndent(exp, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(ExpectedPath(root, spec.Name), append(data, '\n'), 0o644); err != nil {
			return fmt.Errorf("write expected output of %s: %w", spec.Name, err)
		}
	}
	return nil
}

func checkSize(dir string) error {
	total, err := DirSize(dir)
	if err != nil {
		return err
	}
	if total > MaxTableBytes {
		return fmt.Errorf("golden table %s is %d bytes, more than %d", dir, total, MaxTableBytes)
	}
	return nil
}

// DirSize is the total size of the regular files under dir.
func DirSize(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		total += info.Size()
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("size of %s: %w", dir, err)
	}
	return total, nil
}

// ReadExpected reads the expected output of the golden table name and decodes its files view.
func ReadExpected(root, name string) (*Expected, *Files, error) {
	data, err := os.ReadFile(ExpectedPath(root, name))
	if err != nil {
		return nil, nil, err
	}
	var exp Expected
	if err := json.Unmarshal(data, &exp); err != nil {
		return nil, nil, fmt.Errorf("parse %s: %w", ExpectedPath(root, name), err)
	}
	files, err := ParseFiles(exp.Files)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", ExpectedPath(root, name), err)
	}
	return &exp, files, nil
}

// ParseFiles decodes a runner's files output strictly (an unknown member is an error, so a
// field the runner adds is not silently left uncompared).
func ParseFiles(data []byte) (*Files, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f Files
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("decode files view: %w", err)
	}
	return &f, nil
}

// GoldenTables lists the golden tables checked in under root (the directories of TablesDir).
func GoldenTables(root string) ([]string, error) {
	return listTables(filepath.Join(root, TablesDir))
}

// RepoRoot finds the repository root (the directory holding go.mod) from the working directory.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("repository root (go.mod) not found above the working directory")
		}
		dir = parent
	}
}

// ResetDirs empties (creating if needed) a golden corpus's tables and expected directories, so
// nothing stale lingers, and returns the scratch warehouse inside the tables directory, where a
// finished table is written before it moves into place by rename.
func ResetDirs(tables, expected string) (warehouse string, err error) {
	for _, dir := range []string{tables, expected} {
		if err := os.RemoveAll(dir); err != nil {
			return "", fmt.Errorf("remove stale %s: %w", dir, err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
	}
	return filepath.Join(tables, ".warehouse"), nil
}
