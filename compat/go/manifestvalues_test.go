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
				[2]any{"manifest-values", protocol.ManifestValuesRequest{Path: path}},
				[2]any{"rewrite-metadata", protocol.RewriteMetadataRequest{Path: path}},
				[2]any{"manifest-values", protocol.ManifestValuesRequest{Path: path}},
			)
			var vals [2]protocol.ManifestValuesResponse
			for i, r := range []protocol.EnvelopeResponse{resps[0], resps[2]} {
				if !r.OK {
					t.Fatalf("manifest-values: %s", errText(r))
				}
				line, err := json.Marshal(r)
				if err != nil {
					t.Fatal(err)
				}
				if err := schemas.ValidateResponse("manifest-values", line); err != nil {
					t.Fatal(err)
				}
				result(t, "manifest-values", r, &vals[i])
			}
			if !resps[1].OK {
				t.Fatalf("rewrite-metadata: %s", errText(resps[1]))
			}
			before, after := vals[0], vals[1]
			if len(before.DataManifests) == 0 || len(before.Entries) == 0 {
				t.Fatalf("no manifests or entries: %+v", before)
			}
			var files int
			for _, m := range before.DataManifests {
				files += int(m.NumAddedFiles + m.NumDeletedFiles)
			}
			if files != len(before.Entries) {
				t.Errorf("the manifests count %d added and deleted files, their entries are %d", files, len(before.Entries))
			}
			for name, list := range map[string][]any{"dataManifests": elems(before.DataManifests), "entries": elems(before.Entries), "indexEntries": elems(before.IndexEntries)} {
				keys := make([]string, len(list))
				for i, v := range list {
					// Keys sorted as encoding/json writes a map's.
					var tree any
					b, err := json.Marshal(v)
					if err != nil {
						t.Fatal(err)
					}
					if err := json.Unmarshal(b, &tree); err != nil {
						t.Fatal(err)
					}
					if b, err = json.Marshal(tree); err != nil {
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
		[2]any{"manifest-values", protocol.ManifestValuesRequest{}},
		[2]any{"manifest-values", protocol.ManifestValuesRequest{Path: t.TempDir()}},
	)
	for i, want := range []string{"args.path", "no snapshot"} {
		if resps[i].OK || !strings.Contains(errText(resps[i]), want) {
			t.Errorf("request %d: %+v, want an error containing %q", i, resps[i], want)
		}
	}
}

// elems are the elements of a list as values of any type.
func elems[T any](list []T) []any {
	out := make([]any, len(list))
	for i, v := range list {
		out[i] = v
	}
	return out
}
