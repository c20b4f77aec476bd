package inspect_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/search"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/testing/goldengen"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
	"github.com/paimon-pkft/pkft/internal/types"
)

// TestGoGolden checks the Go-written golden corpus (testdata/tables/go, made by make golden with
// pkft itself) against what Java (Paimon 2.0.0) read from it at generation time
// (compat/golden/go/<table>.json), without any Java:
//
//   - read: the table holds, after its base, exactly the recorded steps' snapshots, committed
//     by Go; today's Go reads each table as Java did: Go's canonical dump (files, index files,
//     deletion-vector ranges, the full-text state and plan) equals Java's recorded dump, the rows
//     Go reads (deletion vectors applied; level 0 left out under deletion vectors, as Java's
//     batch read does) equal Java's, and Go's search of every recorded query returns Java's
//     ranked answers (bucket, data file, row position, key, text; scores within 1e-5 relative);
//   - rewrite: today's Go, given the same inputs (the same base: a copy of the Java golden
//     table, or the empty table's schema; the same rows and steps), writes a table Java's
//     recorded view still describes: every step commits the recorded snapshot, and the dump
//     (with file names replaced by names built from what each file is: partition, bucket,
//     level, sequence range), the rows and the search answers equal the recorded ones.
func TestGoGolden(t *testing.T) {
	root, err := goldengen.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	names, err := goldengen.GoGoldenTables(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != len(goldengen.GoTables()) {
		t.Errorf("%s holds %v; the corpus defines %d tables: run make golden", goldengen.GoTablesDir, names, len(goldengen.GoTables()))
	}
	engine := native.Engine{Lib: testenv.Native(t)}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			exp, err := goldengen.ReadGoExpected(root, name)
			if err != nil {
				t.Fatal(err)
			}
			want, err := decodeDump(exp.Dump)
			if err != nil {
				t.Fatalf("%s: %v", goldengen.GoExpectedPath(root, name), err)
			}
			var wantRows []map[string]any
			if err := json.Unmarshal(exp.Rows, &wantRows); err != nil {
				t.Fatal(err)
			}
			wantSearch := make([]rankedResult, len(exp.Search))
			for i, s := range exp.Search {
				if err := json.Unmarshal(s, &wantSearch[i]); err != nil {
					t.Fatal(err)
				}
			}
			t.Run("read", func(t *testing.T) {
				path := goldengen.GoTablePath(root, name)
				checkGoSnapshots(t, path, exp)
				got := goDumpOf(t, path)
				if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
					t.Errorf("Go's dump differs from Java's (-java +go):\n%s", d)
				}
				checkRows(t, path, wantRows)
				for i, q := range exp.Queries {
					res := goSearch(t, engine, path, q, exp.Limit)
					if err := sameRanked(res, wantSearch[i]); err != nil {
						t.Errorf("query %s: %v", q, err)
					}
				}
			})
			t.Run("rewrite", func(t *testing.T) {
				g, ok := goldengen.GoTableByName(name)
				if !ok {
					t.Fatalf("no corpus definition of %s", name)
				}
				if g.BaseName() != exp.Base {
					t.Fatalf("the corpus starts %s from %s, the golden from %s: run make golden", name, g.BaseName(), exp.Base)
				}
				path := filepath.Join(t.TempDir(), name)
				baseID, err := g.PrepareBase(ctx, root, path)
				if err != nil {
					t.Fatal(err)
				}
				if baseID != exp.BaseSnapshotID {
					t.Fatalf("the base %s is at snapshot %d, the golden was made on %d: run make golden", exp.Base, baseID, exp.BaseSnapshotID)
				}
				results, err := g.Run(ctx, path, engine)
				if err != nil {
					t.Fatal(err)
				}
				if len(results) != len(exp.Steps) {
					t.Fatalf("%d steps, the golden records %d", len(results), len(exp.Steps))
				}
				for i, r := range results {
					if s := exp.Steps[i]; s.Op != g.Steps[i].Op() || r.SnapshotID != s.SnapshotID {
						t.Errorf("step %d: %s committed snapshot %d, the golden records %s committing %d", i+1, g.Steps[i].Op(), r.SnapshotID, s.Op, s.SnapshotID)
					}
				}
				got := goDumpOf(t, path)
				gotNames, wantNames := goldengen.CanonicalNames(got), goldengen.CanonicalNames(want)
				gn, err := gotNames.Renamed(got)
				if err != nil {
					t.Fatal(err)
				}
				wn, err := wantNames.Renamed(want)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(wn, gn, cmpopts.EquateEmpty()); d != "" {
					t.Errorf("the dump of Go's table made again differs from Java's recorded one, file names normalized (-java +go):\n%s", d)
				}
				checkRows(t, path, wantRows)
				for i, q := range exp.Queries {
					res := goSearch(t, engine, path, q, exp.Limit)
					if err := sameUnordered(res, gotNames, wantSearch[i], wantNames); err != nil {
						t.Errorf("query %s: %v", q, err)
					}
				}
			})
		})
	}
}

// checkGoSnapshots checks the golden table holds what its record says Go did: after the base's
// snapshots, exactly the recorded steps' snapshots, each committed by Go's corpus user.
func checkGoSnapshots(t *testing.T, path string, exp *goldengen.GoExpected) {
	t.Helper()
	ctx := context.Background()
	m := snapshot.NewManager(fileio.NewLocal(), path, "")
	latest, ok, err := m.LatestID(ctx)
	if err != nil || !ok {
		t.Fatalf("latest snapshot: %v (found %v)", err, ok)
	}
	want := exp.BaseSnapshotID
	for _, s := range exp.Steps {
		if s.SnapshotID != 0 {
			want = s.SnapshotID
		}
	}
	if latest != want {
		t.Errorf("the table's latest snapshot is %d, the record's last step committed %d", latest, want)
	}
	for id := exp.BaseSnapshotID + 1; id <= latest; id++ {
		snap, err := m.Snapshot(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if snap.CommitUser != goldengen.GoCommitUser {
			t.Errorf("snapshot %d was committed by %q, not by Go's corpus user %q", id, snap.CommitUser, goldengen.GoCommitUser)
		}
	}
}

// decodeDump decodes a recorded Java dump strictly: a member Go's Dump lacks would otherwise
// go uncompared.
func decodeDump(data []byte) (*inspect.Dump, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var d inspect.Dump
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("decode Java's dump: %w", err)
	}
	if len(d.Buckets) == 0 {
		return nil, fmt.Errorf("Java's dump records no buckets: nothing to compare")
	}
	return &d, nil
}

// goDumpOf is Go's dump of the table at path, through JSON as Java's went.
func goDumpOf(t *testing.T, path string) *inspect.Dump {
	t.Helper()
	d, err := inspect.TableDump(context.Background(), table.Open(fileio.NewLocal(), path), inspect.FullTextState)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var out inspect.Dump
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// checkRows checks the rows Go reads from the table at path equal the rows Java read.
func checkRows(t *testing.T, path string, want []map[string]any) {
	t.Helper()
	got, keys := goRows(t, path)
	byKey := func(rows []map[string]any) map[string]any {
		out := map[string]any{}
		for _, r := range rows {
			k := make([]any, len(keys))
			for i, name := range keys {
				k[i] = r[name]
			}
			data, _ := json.Marshal(k)
			out[string(data)] = r
		}
		return out
	}
	if len(got) != len(want) {
		t.Errorf("Go reads %d rows, Java read %d", len(got), len(want))
	}
	if d := cmp.Diff(byKey(want), byKey(got)); d != "" {
		t.Errorf("Go's rows differ from Java's (-java +go):\n%s", d)
	}
}

// goRows reads the visible rows of the table's latest snapshot as Java's batch read returns
// them: deletion vectors applied, level-0 files left out when deletion vectors are enabled
// (they are not yet merged), of every key the record with the highest sequence number, deletes
// dropped; values in the runner's JSON forms, through JSON. It also returns the primary key.
func goRows(t *testing.T, path string) ([]map[string]any, []string) {
	t.Helper()
	ctx := context.Background()
	tbl := table.Open(fileio.NewLocal(), path)
	r, err := restore.NewRestorer(ctx, tbl)
	if err != nil {
		t.Fatal(err)
	}
	layout, err := kvfile.NewLayout(r.Schema)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := tbl.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := tbl.Read(ctx, snap)
	if err != nil {
		t.Fatal(err)
	}
	skipLevel0 := r.Schema.Options[tableops.DeletionVectorsOption] == "true"
	type rec struct {
		seq  int64
		kind types.RowKind
		row  []any
	}
	best := map[string]rec{}
	for _, b := range c.Buckets {
		rb, err := r.RestoreBucket(b)
		if err != nil {
			t.Fatal(err)
		}
		dvs, err := rb.ReadDeletionVectors(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rb.DataFiles {
			if skipLevel0 && f.Level == 0 {
				continue
			}
			rd, err := kvfile.Open(ctx, tbl.FileIO, rb.DataPaths.ToPath(f.FileName, ""), f.FileName, layout)
			if err != nil {
				t.Fatal(err)
			}
			for {
				kv, pos, err := rd.Next(ctx)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if v := dvs[f.FileName]; v != nil && v.IsDeleted(pos) {
					continue
				}
				k := fmt.Sprintf("%x/%v", b.Partition, kv.Key)
				if old, ok := best[k]; !ok || kv.Seq > old.seq {
					best[k] = rec{kv.Seq, kv.Kind, kv.Value}
				}
			}
			rd.Close()
		}
	}
	var out []map[string]any
	for _, v := range best {
		if v.kind != types.Insert && v.kind != types.UpdateAfter {
			continue
		}
		row := map[string]any{}
		for i, f := range r.Schema.Fields {
			jv, err := goldengen.JSONValue(f.Type, v.row[i])
			if err != nil {
				t.Fatal(err)
			}
			row[f.Name] = jv
		}
		out = append(out, row)
	}
	data, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatal(err)
	}
	return rows, r.Schema.PrimaryKeys
}

// rankedResult is the Java runner's ranked search result.
type rankedResult struct {
	SnapshotID int64       `json:"snapshotId"`
	Results    []rankedHit `json:"results"`
}

type rankedHit struct {
	Key         map[string]any `json:"key"`
	Text        *string        `json:"text"`
	Score       float32        `json:"score"`
	Bucket      int32          `json:"bucket"`
	DataFile    string         `json:"dataFile"`
	RowPosition int64          `json:"rowPosition"`
}

// goSearch runs Go's search on the table at path and returns it in the runner's ranked form
// (key values through the runner's JSON forms).
func goSearch(t *testing.T, engine native.Engine, path, query string, limit int) rankedResult {
	t.Helper()
	ctx := context.Background()
	tbl := table.Open(fileio.NewLocal(), path)
	sch, err := tbl.LatestSchema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res, err := search.Search(ctx, tbl, search.Request{Query: query, Limit: limit}, search.Options{Engine: engine})
	if err != nil {
		t.Fatalf("go search %s: %v", query, err)
	}
	out := rankedResult{SnapshotID: res.SnapshotID, Results: []rankedHit{}}
	for _, r := range res.Results {
		h := rankedHit{Key: map[string]any{}, Text: r.Text, Score: r.Score, Bucket: r.Bucket, DataFile: r.DataFile, RowPosition: r.RowPosition}
		if len(r.Key) != len(sch.PrimaryKeys) {
			t.Fatalf("go search %s: key %v for primary key %v", query, r.Key, sch.PrimaryKeys)
		}
		for i, name := range sch.PrimaryKeys {
			f, _ := sch.FieldByName(name)
			v, err := goldengen.JSONValue(f.Type, r.Key[i])
			if err != nil {
				t.Fatal(err)
			}
			h.Key[name] = v
		}
		out.Results = append(out.Results, h)
	}
	data, _ := json.Marshal(out)
	var again rankedResult
	if err := json.Unmarshal(data, &again); err != nil {
		t.Fatal(err)
	}
	return again
}

// sameRanked compares Go's answer with Java's hit by hit, in order.
func sameRanked(got, want rankedResult) error {
	if got.SnapshotID != want.SnapshotID {
		return fmt.Errorf("Go searched snapshot %d, Java %d", got.SnapshotID, want.SnapshotID)
	}
	if len(got.Results) != len(want.Results) {
		return fmt.Errorf("Go found %d rows, Java %d", len(got.Results), len(want.Results))
	}
	for i := range got.Results {
		if err := sameHit(got.Results[i], want.Results[i]); err != nil {
			return fmt.Errorf("hit %d: %w", i, err)
		}
	}
	return nil
}

func sameHit(g, j rankedHit) error {
	a, b := float64(g.Score), float64(j.Score)
	if math.Abs(a-b) > 1e-5*math.Max(math.Abs(a), math.Abs(b)) {
		return fmt.Errorf("Go score %v, Java %v", a, b)
	}
	g.Score, j.Score = 0, 0
	if d := cmp.Diff(j, g); d != "" {
		return fmt.Errorf("(-java +go):\n%s", d)
	}
	return nil
}

// sameUnordered compares Go's answer on a table made again with Java's recorded answer, data
// file names replaced by their canonical names (gotNames, wantNames); hits of equal score may
// come in another order, since Paimon breaks ties by data file name.
func sameUnordered(got rankedResult, gotNames goldengen.FileNames, want rankedResult, wantNames goldengen.FileNames) error {
	canon := func(r rankedResult, names goldengen.FileNames) rankedResult {
		out := rankedResult{SnapshotID: r.SnapshotID, Results: make([]rankedHit, len(r.Results))}
		for i, h := range r.Results {
			h.DataFile = names.Name(h.DataFile)
			out.Results[i] = h
		}
		sort.SliceStable(out.Results, func(x, y int) bool {
			a, b := out.Results[x], out.Results[y]
			if a.Score != b.Score {
				return a.Score > b.Score
			}
			if a.Bucket != b.Bucket {
				return a.Bucket < b.Bucket
			}
			if a.DataFile != b.DataFile {
				return a.DataFile < b.DataFile
			}
			return a.RowPosition < b.RowPosition
		})
		return out
	}
	return sameRanked(canon(got, gotNames), canon(want, wantNames))
}
