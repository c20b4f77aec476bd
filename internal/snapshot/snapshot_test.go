package snapshot

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/internal/fileio"
)

// Snapshots as Java's Snapshot.toJson writes them (Jackson default pretty
// printer, constructor property order, NON_NULL properties omitted).
const compactSnapshotJSON = `{
  "version" : 3,
  "uuid" : "5b0f3c2e-8a4f-4a51-9d3e-2f9c2b6f1a7d",
  "id" : 7,
  "schemaId" : 0,
  "baseManifestList" : "manifest-list-0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d-12",
  "baseManifestListSize" : 1106,
  "deltaManifestList" : "manifest-list-0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d-13",
  "deltaManifestListSize" : 1022,
  "indexManifest" : "index-manifest-0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d-3",
  "commitUser" : "e1c7a4d2-3b6f-4c8e-9a1d-7f2e5b8c0d3a",
  "commitIdentifier" : 9223372036854775807,
  "commitKind" : "COMPACT",
  "timeMillis" : 1735689600123,
  "totalRecordCount" : 1000,
  "deltaRecordCount" : -20,
  "nextRowId" : 1000
}`

const fullSnapshotJSON = `{
  "version" : 3,
  "uuid" : "9f1d2c3b-4a5e-6f70-8192-a3b4c5d6e7f8",
  "id" : 12,
  "schemaId" : 2,
  "baseManifestList" : "manifest-list-aa-0",
  "baseManifestListSize" : 2048,
  "deltaManifestList" : "manifest-list-aa-1",
  "deltaManifestListSize" : 1024,
  "changelogManifestList" : "manifest-list-aa-2",
  "changelogManifestListSize" : 512,
  "indexManifest" : "index-manifest-aa-0",
  "commitUser" : "user \"q\" / \\ é \u0001\u001F\t\n",
  "commitIdentifier" : 5,
  "commitKind" : "APPEND",
  "timeMillis" : 1700000000000,
  "totalRecordCount" : 42,
  "deltaRecordCount" : 42,
  "changelogRecordCount" : 42,
  "watermark" : -9223372036854775808,
  "statistics" : "stat-aa-0",
  "properties" : {
    "zeta" : "1",
    "alpha" : "two\r\b\f",
    "中文" : "✓"
  },
  "nextRowId" : 0,
  "operation" : "CREATE_OR_REPLACE_TABLE_AS_SELECT"
}`

const minimalSnapshotJSON = `{
  "version" : 3,
  "id" : 1,
  "schemaId" : 0,
  "baseManifestList" : "manifest-list-x-0",
  "deltaManifestList" : "manifest-list-x-1",
  "commitUser" : "u",
  "commitIdentifier" : 0,
  "commitKind" : "OVERWRITE",
  "timeMillis" : 0,
  "totalRecordCount" : 0,
  "deltaRecordCount" : 0,
  "properties" : { }
}`

func ptr[T any](v T) *T { return &v }

func TestRoundTripByteIdentical(t *testing.T) {
	for name, in := range map[string]string{
		"compact": compactSnapshotJSON,
		"full":    fullSnapshotJSON,
		"minimal": minimalSnapshotJSON,
	} {
		t.Run(name, func(t *testing.T) {
			s, err := Parse([]byte(in))
			if err != nil {
				t.Fatal(err)
			}
			out, err := s.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(in, string(out)); diff != "" {
				t.Errorf("re-marshalled JSON differs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseFields(t *testing.T) {
	s, err := Parse([]byte(fullSnapshotJSON))
	if err != nil {
		t.Fatal(err)
	}
	want := &Snapshot{
		Version:                   3,
		UUID:                      ptr("9f1d2c3b-4a5e-6f70-8192-a3b4c5d6e7f8"),
		ID:                        12,
		SchemaID:                  2,
		BaseManifestList:          "manifest-list-aa-0",
		BaseManifestListSize:      ptr[int64](2048),
		DeltaManifestList:         "manifest-list-aa-1",
		DeltaManifestListSize:     ptr[int64](1024),
		ChangelogManifestList:     ptr("manifest-list-aa-2"),
		ChangelogManifestListSize: ptr[int64](512),
		IndexManifest:             ptr("index-manifest-aa-0"),
		CommitUser:                "user \"q\" / \\ é \x01\x1f\t\n",
		CommitIdentifier:          5,
		CommitKind:                CommitAppend,
		TimeMillis:                1700000000000,
		TotalRecordCount:          42,
		DeltaRecordCount:          42,
		ChangelogRecordCount:      ptr[int64](42),
		Watermark:                 ptr[int64](-9223372036854775808),
		Statistics:                ptr("stat-aa-0"),
		Properties:                []Property{{"zeta", "1"}, {"alpha", "two\r\b\f"}, {"中文", "✓"}},
		NextRowID:                 ptr[int64](0),
		Operation:                 ptr(OperationCreateOrReplaceTableAsSelect),
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("parsed snapshot differs (-want +got):\n%s", diff)
	}
}

func TestParseTolerance(t *testing.T) {
	withUnknown := strings.Replace(compactSnapshotJSON, `"id" : 7,`,
		`"id" : 7, "futureField" : {"a" : [1, 2, {"b" : null}]}, "another" : "x",`, 1)
	withUnknown = strings.Replace(withUnknown, `"nextRowId" : 1000`, `"nextRowId" : 1000, "trailingUnknown" : true`, 1)
	s, err := Parse([]byte(withUnknown))
	if err != nil {
		t.Fatalf("unknown fields rejected: %v", err)
	}
	out, _ := s.Marshal()
	if string(out) != compactSnapshotJSON {
		t.Errorf("unknown fields not dropped like Jackson does:\n%s", out)
	}

	coerced := `{"version": 3, "id": "7", "schemaId": 1.0, "commitKind": "APPEND", "changelogRecordCount": null, "uuid": null, "properties": null}`
	s, err = Parse([]byte(coerced))
	if err != nil {
		t.Fatalf("coercible numbers rejected: %v", err)
	}
	if s.ID != 7 || s.SchemaID != 1 || s.ChangelogRecordCount != nil || s.UUID != nil || s.Properties != nil {
		t.Errorf("coerced parse = %+v", s)
	}
	if s.TimeMillis != 0 || s.CommitUser != "" {
		t.Errorf("missing fields should read as zero values, got %+v", s)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []string{
		``,
		`not json`,
		`[1, 2]`,
		`null`,
		`{"id": {"x": 1}}`,
		`{"id": "seven"}`,
		`{"commitKind": "MERGE"}`,
		`{"operation": "DROP"}`,
		`{"version": 4294967296}`,
		`{"properties": {"k": null}}`,
		`{"properties": [1]}`,
		`{"uuid": 5}`,
		`{"id": 1e30}`,
		`{"id": 7`,
	}
	for _, in := range tests {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q) succeeded, want error", in)
		}
	}
}

func TestMarshalNullCommitKindAndInvalid(t *testing.T) {
	s := &Snapshot{Version: 3, ID: 1}
	out, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"commitKind" : null,`) {
		t.Errorf("empty commit kind should be written as null:\n%s", out)
	}
	s.CommitKind = "bogus"
	if _, err := s.Marshal(); err == nil {
		t.Error("invalid commit kind marshalled")
	}
}

func newSnapshot(id int64) *Snapshot {
	return &Snapshot{
		Version:           CurrentVersion,
		UUID:              ptr("uuid-" + string(rune('a'+id))),
		ID:                id,
		BaseManifestList:  "manifest-list-b",
		DeltaManifestList: "manifest-list-d",
		CommitUser:        "u",
		CommitIdentifier:  id,
		CommitKind:        CommitAppend,
	}
}

func TestManager(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	fio := fileio.NewLocal()
	m := NewManager(fio, "file:"+root, "")
	snapDir := filepath.Join(root, "snapshot")

	if _, ok, err := m.LatestID(ctx); ok || err != nil {
		t.Fatalf("LatestID on empty table = %v, %v", ok, err)
	}
	if s, err := m.Latest(ctx); s != nil || err != nil {
		t.Fatalf("Latest on empty table = %v, %v", s, err)
	}
	if _, err := m.Snapshot(ctx, 1); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing snapshot error = %v, want fs.ErrNotExist", err)
	}

	for id := int64(1); id <= 3; id++ {
		if err := m.Commit(ctx, newSnapshot(id)); err != nil {
			t.Fatalf("commit %d: %v", id, err)
		}
	}
	hint, _ := os.ReadFile(filepath.Join(snapDir, "LATEST"))
	if string(hint) != "3" {
		t.Errorf("LATEST = %q, want 3", hint)
	}
	got, err := m.Snapshot(ctx, 2)
	if err != nil || got.ID != 2 || got.CommitIdentifier != 2 {
		t.Fatalf("Snapshot(2) = %+v, %v", got, err)
	}
	onDisk, _ := os.ReadFile(filepath.Join(snapDir, "snapshot-2"))
	want, _ := newSnapshot(2).Marshal()
	if string(onDisk) != string(want) {
		t.Errorf("snapshot file is not the marshalled JSON:\n%s", onDisk)
	}

	// Losing the race for an id.
	other := newSnapshot(3)
	other.CommitUser = "someone else"
	if err := m.Commit(ctx, other); !errors.Is(err, ErrSnapshotExists) || !errors.Is(err, fileio.ErrExists) {
		t.Errorf("commit of an existing id = %v, want ErrSnapshotExists", err)
	}
	// Re-committing identical content counts as committed.
	if err := m.Commit(ctx, newSnapshot(3)); err != nil {
		t.Errorf("re-commit of identical snapshot = %v", err)
	}

	latestTests := []struct {
		name  string
		setup func()
		want  int64
	}{
		{"hint", func() {}, 3},
		{"stale hint", func() {
			os.WriteFile(filepath.Join(snapDir, "LATEST"), []byte("1"), 0o644)
		}, 3},
		{"corrupt hint", func() {
			os.WriteFile(filepath.Join(snapDir, "LATEST"), []byte("x"), 0o644)
		}, 3},
		{"hint with newline", func() {
			os.WriteFile(filepath.Join(snapDir, "LATEST"), []byte("3\n"), 0o644)
		}, 3},
		{"missing hint and junk files", func() {
			os.Remove(filepath.Join(snapDir, "LATEST"))
			os.WriteFile(filepath.Join(snapDir, "snapshot-abc"), nil, 0o644)
			os.WriteFile(filepath.Join(snapDir, ".snapshot-9.x.tmp"), nil, 0o644)
		}, 3},
		{"hint trusted when next is absent", func() {
			// Java does not check that the hinted snapshot itself exists.
			os.WriteFile(filepath.Join(snapDir, "LATEST"), []byte("5"), 0o644)
		}, 5},
	}
	for _, tt := range latestTests {
		tt.setup()
		id, ok, err := m.LatestID(ctx)
		if err != nil || !ok || id != tt.want {
			t.Errorf("%s: LatestID = %d, %v, %v; want %d", tt.name, id, ok, err, tt.want)
		}
	}
	os.Remove(filepath.Join(snapDir, "LATEST"))

	earliestTests := []struct {
		name  string
		setup func()
		want  int64
	}{
		{"listing", func() {}, 1},
		{"hint", func() { m.CommitEarliestHint(ctx, 2) }, 2},
		{"hint of expired snapshot", func() {
			os.Remove(filepath.Join(snapDir, "snapshot-1"))
			m.CommitEarliestHint(ctx, 1)
		}, 2},
	}
	for _, tt := range earliestTests {
		tt.setup()
		id, ok, err := m.EarliestID(ctx)
		if err != nil || !ok || id != tt.want {
			t.Errorf("%s: EarliestID = %d, %v, %v; want %d", tt.name, id, ok, err, tt.want)
		}
	}

	ids, err := m.IDs(ctx)
	if err != nil || !cmp.Equal(ids, []int64{2, 3}) {
		t.Errorf("IDs = %v, %v", ids, err)
	}
	latest, err := m.Latest(ctx)
	if err != nil || latest.ID != 3 {
		t.Errorf("Latest = %+v, %v", latest, err)
	}
	entries, _ := os.ReadDir(snapDir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") && e.Name() != ".snapshot-9.x.tmp" {
			t.Errorf("a commit left temporary file %s", e.Name())
		}
	}
}

func TestManagerBranchAndCorruptSnapshot(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	m := NewManager(fileio.NewLocal(), root, "dev")
	if got := m.Path(4); got != root+"/branch/branch-dev/snapshot/snapshot-4" {
		t.Errorf("Path = %q", got)
	}
	if err := m.Commit(ctx, newSnapshot(1)); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "branch", "branch-dev", "snapshot", "snapshot-2"), []byte("{"), 0o644)
	if _, err := m.Snapshot(ctx, 2); err == nil {
		t.Error("corrupt snapshot parsed")
	}
	if s, err := m.Latest(ctx); err == nil {
		t.Errorf("Latest over a corrupt newest snapshot = %+v, want error", s)
	}
}
