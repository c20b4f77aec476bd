package manifest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/paimon-pkft/pkft/internal/meta"
)

func entry(kind meta.FileKind, name string, level int32) meta.ManifestEntry {
	return meta.ManifestEntry{Kind: kind, Partition: meta.EmptyBinaryRow(), Bucket: 0,
		File: meta.DataFileMeta{FileName: name, Level: level, ExtraFiles: []string{}}}
}

func names(es []meta.ManifestEntry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Kind.String()+":"+e.File.FileName)
	}
	return out
}

func TestMergeEntries(t *testing.T) {
	add, del := meta.FileKindAdd, meta.FileKindDelete
	for _, tc := range []struct {
		name    string
		in      []meta.ManifestEntry
		want    []string
		wantErr string
	}{
		{"add then delete cancels", []meta.ManifestEntry{entry(add, "a", 1), entry(add, "b", 1), entry(del, "a", 1)}, []string{"ADD:b"}, ""},
		{"delete without add is kept", []meta.ManifestEntry{entry(del, "a", 1), entry(add, "b", 1)}, []string{"DELETE:a", "ADD:b"}, ""},
		{"re-add after delete moves to end", []meta.ManifestEntry{entry(add, "a", 1), entry(add, "b", 1), entry(del, "a", 1), entry(add, "a", 1)}, []string{"ADD:b", "ADD:a"}, ""},
		{"different level is a different file", []meta.ManifestEntry{entry(add, "a", 1), entry(del, "a", 2)}, []string{"ADD:a", "DELETE:a"}, ""},
		{"double add fails", []meta.ManifestEntry{entry(add, "a", 1), entry(add, "a", 1)}, nil, "already present"},
		{"add over kept delete fails", []meta.ManifestEntry{entry(del, "a", 1), entry(add, "a", 1)}, nil, "already present"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MergeEntries(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, names(got)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestIdentifierFields(t *testing.T) {
	base := entry(meta.FileKindAdd, "a", 1)
	id := EntryIdentifier(&base)
	variants := map[string]func(e *meta.ManifestEntry){
		"partition": func(e *meta.ManifestEntry) {
			e.Partition = []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}
		},
		"bucket":               func(e *meta.ManifestEntry) { e.Bucket = 1 },
		"level":                func(e *meta.ManifestEntry) { e.File.Level = 2 },
		"file name":            func(e *meta.ManifestEntry) { e.File.FileName = "b" },
		"extra files":          func(e *meta.ManifestEntry) { e.File.ExtraFiles = []string{"x"} },
		"extra files split":    func(e *meta.ManifestEntry) { e.File.ExtraFiles = []string{"", ""} },
		"empty embedded index": func(e *meta.ManifestEntry) { e.File.EmbeddedIndex = []byte{} },
		"empty external path":  func(e *meta.ManifestEntry) { e.File.ExternalPath = ptr("") },
	}
	for name, mutate := range variants {
		e := entry(meta.FileKindAdd, "a", 1)
		mutate(&e)
		if EntryIdentifier(&e) == id {
			t.Errorf("%s: identifier unchanged", name)
		}
	}
	// Fields outside the identifier do not matter; nil partition and nil extra files equal the
	// empty forms Java would hold.
	e := entry(meta.FileKindDelete, "a", 1)
	e.TotalBuckets, e.File.RowCount, e.File.FileSource = 9, 100, ptr(meta.FileSourceCompact)
	e.Partition, e.File.ExtraFiles = nil, nil
	if EntryIdentifier(&e) != id {
		t.Error("identifier depends on fields outside Java's Identifier")
	}
}

func TestLiveEntries(t *testing.T) {
	add, del := meta.FileKindAdd, meta.FileKindDelete
	in := []meta.ManifestEntry{entry(add, "a", 1), entry(add, "b", 1), entry(del, "a", 1), entry(add, "c", 2), entry(del, "x", 1)}
	if d := cmp.Diff([]string{"ADD:b", "ADD:c"}, names(LiveEntries(in))); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func idx(kind meta.FileKind, typ, name string, bucket int32) meta.IndexManifestEntry {
	return meta.IndexManifestEntry{Kind: kind, Partition: meta.EmptyBinaryRow(), Bucket: bucket,
		IndexFile: meta.IndexFileMeta{IndexType: typ, FileName: name}}
}

func withGlobal(e meta.IndexManifestEntry, field int32, start, end int64, source []byte, extra []int32) meta.IndexManifestEntry {
	e.IndexFile.GlobalIndex = &meta.GlobalIndexMeta{RowRangeStart: start, RowRangeEnd: end, IndexFieldID: field, SourceMeta: source, ExtraFieldIDs: extra}
	return e
}

func withDV(e meta.IndexManifestEntry, dataFiles ...string) meta.IndexManifestEntry {
	for _, f := range dataFiles {
		e.IndexFile.DVRanges = append(e.IndexFile.DVRanges, meta.DeletionVectorMeta{DataFileName: f})
	}
	return e
}

func indexNames(es []meta.IndexManifestEntry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.IndexFile.IndexType+":"+e.IndexFile.FileName)
	}
	return out
}

func TestCombineIndexManifest(t *testing.T) {
	add, del := meta.FileKindAdd, meta.FileKindDelete
	dv, hash, ft := meta.IndexTypeDeletionVectors, meta.IndexTypeHash, "full-text"
	src := []byte{0, 0, 0, 1}
	for _, tc := range []struct {
		name          string
		prev, changes []meta.IndexManifestEntry
		bucketUnaware bool
		want          []string
		wantErr       string
	}{
		{
			name:    "bucketed dv file replaced by newer one of the same bucket",
			prev:    []meta.IndexManifestEntry{idx(add, dv, "dv-1", 0), idx(add, dv, "dv-2", 1)},
			changes: []meta.IndexManifestEntry{idx(add, dv, "dv-3", 0)},
			want:    []string{"DELETION_VECTORS:dv-3", "DELETION_VECTORS:dv-2"},
		},
		{
			name:    "bucketed delete removes the bucket's file regardless of name; adds apply after deletes",
			prev:    []meta.IndexManifestEntry{idx(add, dv, "dv-1", 0), idx(add, hash, "h-1", 0)},
			changes: []meta.IndexManifestEntry{idx(add, dv, "dv-9", 0), idx(del, dv, "other", 0)},
			want:    []string{"DELETION_VECTORS:dv-9", "HASH:h-1"},
		},
		{
			name:          "bucket-unaware dv combine by file name",
			prev:          []meta.IndexManifestEntry{withDV(idx(add, dv, "dv-1", 0), "d1", "d2")},
			changes:       []meta.IndexManifestEntry{withDV(idx(del, dv, "dv-1", 0), "d1", "d2"), withDV(idx(add, dv, "dv-2", 0), "d1")},
			bucketUnaware: true,
			want:          []string{"DELETION_VECTORS:dv-2"},
		},
		{
			name:          "bucket-unaware dv for a data file twice",
			prev:          []meta.IndexManifestEntry{withDV(idx(add, dv, "dv-1", 0), "d1")},
			changes:       []meta.IndexManifestEntry{withDV(idx(add, dv, "dv-2", 0), "d1")},
			bucketUnaware: true,
			wantErr:       "already added",
		},
		{
			name:          "bucket-unaware delete of unknown file",
			changes:       []meta.IndexManifestEntry{idx(del, dv, "dv-1", 0)},
			bucketUnaware: true,
			wantErr:       "does not exist",
		},
		{
			name:    "global index keyed by file name; pk payloads with source meta may coexist",
			prev:    []meta.IndexManifestEntry{withGlobal(idx(add, ft, "ft-1", 0), 2, 0, 9, src, nil), withGlobal(idx(add, ft, "ft-2", 0), 2, 0, 9, src, nil)},
			changes: []meta.IndexManifestEntry{withGlobal(idx(del, ft, "ft-1", 0), 2, 0, 9, src, nil), withGlobal(idx(add, ft, "ft-3", 0), 2, 0, 9, src, nil)},
			want:    []string{"full-text:ft-2", "full-text:ft-3"},
		},
		{
			name:    "global index overlap without source meta fails",
			prev:    []meta.IndexManifestEntry{withGlobal(idx(add, "btree", "bt-1", 0), 2, 0, 9, nil, nil)},
			changes: []meta.IndexManifestEntry{withGlobal(idx(add, "btree", "bt-2", 0), 2, 5, 20, nil, nil)},
			wantErr: "overlapping row range",
		},
		{
			name:    "global index disjoint ranges coexist",
			prev:    []meta.IndexManifestEntry{withGlobal(idx(add, "btree", "bt-1", 0), 2, 0, 9, nil, nil)},
			changes: []meta.IndexManifestEntry{withGlobal(idx(add, "btree", "bt-2", 0), 2, 10, 20, nil, nil)},
			want:    []string{"btree:bt-1", "btree:bt-2"},
		},
		{
			name:    "global index different extra field ids conflict even when disjoint",
			prev:    []meta.IndexManifestEntry{withGlobal(idx(add, "btree", "bt-1", 0), 2, 0, 9, nil, nil)},
			changes: []meta.IndexManifestEntry{withGlobal(idx(add, "btree", "bt-2", 0), 2, 10, 20, nil, []int32{})},
			wantErr: "overlapping",
		},
		{
			name:    "global index other field coexists",
			prev:    []meta.IndexManifestEntry{withGlobal(idx(add, "btree", "bt-1", 0), 2, 0, 9, nil, nil)},
			changes: []meta.IndexManifestEntry{withGlobal(idx(add, "btree", "bt-2", 0), 3, 0, 9, nil, nil)},
			want:    []string{"btree:bt-1", "btree:bt-2"},
		},
		{
			name:    "previous must be all ADD",
			prev:    []meta.IndexManifestEntry{idx(del, dv, "dv-1", 0)},
			wantErr: "expected ADD",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CombineIndexManifest(tc.prev, tc.changes, tc.bucketUnaware)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, indexNames(got)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
