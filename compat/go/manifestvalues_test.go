package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/compat/protocol"
	"github.com/paimon-pkft/pkft/internal/testing/goldengen"
)

// manifestValues is manifest-values' result, decoded.
type manifestValues struct {
	SnapshotID    int64            `json:"snapshotId"`
	DataManifests []map[string]any `json:"dataManifests"`
	Entries       []map[string]any `json:"entries"`
	IndexEntries  []map[string]any `json:"indexEntries"`
}

// TestManifestValues: on a copy of every golden table of every producer, manifest-values
// answers what the response schema describes, with every manifest's entries (as many as its
// added and deleted files), each list in canonical order; after rewrite-metadata it answers the
// same values for the next snapshot: the rewrite carried every value it read.
func TestManifestValues(t *testing.T) {
	root, err := goldengen.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := protocol.Compile()
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for _, dir := range []string{goldengen.JavaTablesDir, goldengen.GoTablesDir, goldengen.TablesDir} {
		found, err := filepath.Glob(filepath.Join(root, dir, "*", "snapshot"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range found {
			tables = append(tables, filepath.Dir(f))
		}
	}
	if len(tables) < 3 {
		t.Fatalf("%d golden tables", len(tables))
	}
	for _, src := range tables {
		name := filepath.Base(filepath.Dir(src)) + "/" + filepath.Base(src)
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t")
			if err := goldengen.CopyDir(src, path); err != nil {
				t.Fatal(err)
			}
			resps := session(t,
				[2]any{"manifest-values", map[string]any{"path": path}},
				[2]any{"rewrite-metadata", map[string]any{"path": path}},
				[2]any{"manifest-values", map[string]any{"path": path}},
			)
			var vals [2]manifestValues
			for i, r := range []response{resps[0], resps[2]} {
				if !r.OK {
					t.Fatalf("manifest-values: %s", r.Error)
				}
				line, err := json.Marshal(r)
				if err != nil {
					t.Fatal(err)
				}
				if err := schemas.ValidateResponse("manifest-values", line); err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(line, &struct {
					Result *manifestValues `json:"result"`
				}{&vals[i]}); err != nil {
					t.Fatal(err)
				}
			}
			if !resps[1].OK {
				t.Fatalf("rewrite-metadata: %s", resps[1].Error)
			}
			before, after := vals[0], vals[1]
			if len(before.DataManifests) == 0 || len(before.Entries) == 0 {
				t.Fatalf("no manifests or entries: %+v", before)
			}
			var files int
			for _, m := range before.DataManifests {
				files += int(m["numAddedFiles"].(float64) + m["numDeletedFiles"].(float64))
			}
			if files != len(before.Entries) {
				t.Errorf("the manifests count %d added and deleted files, their entries are %d", files, len(before.Entries))
			}
			for name, list := range map[string][]map[string]any{"dataManifests": before.DataManifests, "entries": before.Entries, "indexEntries": before.IndexEntries} {
				keys := make([]string, len(list))
				for i, v := range list {
					b, err := json.Marshal(v)
					if err != nil {
						t.Fatal(err)
					}
					keys[i] = string(b)
				}
				if !slices.IsSorted(keys) {
					t.Errorf("%s are not in canonical order", name)
				}
			}
			if after.SnapshotID != before.SnapshotID+1 {
				t.Errorf("manifest-values after the rewrite reads snapshot %d, want %d", after.SnapshotID, before.SnapshotID+1)
			}
			after.SnapshotID = before.SnapshotID
			if d := cmp.Diff(before, after); d != "" {
				t.Errorf("values changed across rewrite-metadata (-before +after):\n%s", d)
			}
		})
	}
}

// TestManifestValuesRefusals: a request without a path or on a directory without a snapshot is
// an error naming what is missing.
func TestManifestValuesRefusals(t *testing.T) {
	resps := session(t,
		[2]any{"manifest-values", map[string]any{}},
		[2]any{"manifest-values", map[string]any{"path": t.TempDir()}},
	)
	for i, want := range []string{"args.path", "no snapshot"} {
		if resps[i].OK || !strings.Contains(resps[i].Error, want) {
			t.Errorf("request %d: %+v, want an error containing %q", i, resps[i], want)
		}
	}
}
