package goldengen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
)

// The Java golden corpus: small primary-key tables written by the Java runner (compat/java, on the
// released Paimon 2.0.0 classes) under JavaTablesDir, and Java's own dump and rows of each under
// JavaExpectedDir, so that go test ./internal/... checks Go's reading of Java-written tables without
// Java. make golden regenerates both (compat/runner, TestGolden -update).
const (
	JavaTablesDir   = "testdata/tables/java"
	JavaExpectedDir = "compat/golden/java"
)

// Size limits of the Java golden corpus: per table and in total.
const (
	MaxJavaTableBytes = 150 << 10
	MaxJavaTotalBytes = 500 << 10
)

// JavaExpected is the content of compat/golden/java/<table>.json: the Java runner's dump and read
// of the table at generation time, verbatim.
type JavaExpected struct {
	Generator string          `json:"generator"`
	Dump      json.RawMessage `json:"dump"`
	Rows      json.RawMessage `json:"rows"`
}

// JavaTablePath is where the Java golden table name lives under root.
func JavaTablePath(root, name string) string {
	return filepath.Join(root, JavaTablesDir, name)
}

// JavaExpectedPath is where the expected output of the Java golden table name lives under root.
func JavaExpectedPath(root, name string) string {
	return filepath.Join(root, JavaExpectedDir, name+".json")
}

// JavaGoldenTables lists the Java golden tables checked in under root (the directories of
// JavaTablesDir); none is an error.
func JavaGoldenTables(root string) ([]string, error) {
	return listTables(filepath.Join(root, JavaTablesDir))
}

// ReadJavaExpected reads the expected output of the Java golden table name strictly (an unknown
// member is an error).
func ReadJavaExpected(root, name string) (*JavaExpected, error) {
	path := JavaExpectedPath(root, name)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var exp JavaExpected
	if err := dec.Decode(&exp); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	if len(exp.Dump) == 0 || len(exp.Rows) == 0 {
		return nil, fmt.Errorf("%s lacks the dump or the rows", path)
	}
	return &exp, nil
}

// WriteJavaExpected stores exp as the expected output of the Java golden table name.
func WriteJavaExpected(root, name string, exp *JavaExpected) error {
	data, err := json.MarshalIndent(exp, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(JavaExpectedPath(root, name), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write expected output of %s: %w", name, err)
	}
	return nil
}

// listTables lists the table directories in dir (hidden ones left out); none is an error.
func listTables(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && e.Name()[0] != '.' {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil, errors.New("no golden tables under " + dir)
	}
	return names, nil
}

// JavaGolden is a Java golden table opened for a check: its latest snapshot as Go reads it and
// Java's dump of it recorded at generation.
type JavaGolden struct {
	// Dir is the table directory.
	Dir      string
	Table    *table.Table
	Snapshot *snapshot.Snapshot
	// Schema is the latest snapshot's schema.
	Schema   *schema.TableSchema
	Contents *table.Contents
	// JavaDump is Java's recorded dump; its buckets are in the order of Contents.Buckets.
	JavaDump *inspect.Dump
}

// OpenJavaGolden opens the Java golden table name under root. It fails when Go reads another
// number of buckets than Java's recorded dump holds.
func OpenJavaGolden(ctx context.Context, root, name string) (*JavaGolden, error) {
	g := &JavaGolden{Dir: JavaTablePath(root, name)}
	g.Table = table.Open(fileio.NewLocal(), g.Dir)
	var err error
	if g.Snapshot, err = g.Table.Latest(ctx); err != nil {
		return nil, err
	}
	if g.Schema, err = g.Table.Schema(ctx, g.Snapshot.SchemaID); err != nil {
		return nil, err
	}
	if g.Contents, err = g.Table.Read(ctx, g.Snapshot); err != nil {
		return nil, err
	}
	exp, err := ReadJavaExpected(root, name)
	if err != nil {
		return nil, err
	}
	g.JavaDump = &inspect.Dump{}
	if err := json.Unmarshal(exp.Dump, g.JavaDump); err != nil {
		return nil, fmt.Errorf("decode Java's dump in %s: %w", JavaExpectedPath(root, name), err)
	}
	if len(g.Contents.Buckets) != len(g.JavaDump.Buckets) {
		return nil, fmt.Errorf("Go reads %d buckets, Java's dump has %d", len(g.Contents.Buckets), len(g.JavaDump.Buckets))
	}
	return g, nil
}
