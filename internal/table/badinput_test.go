package table_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/manifest"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
)

// recordingIO records every path opened for reading.
type recordingIO struct {
	fileio.FileIO
	mu     sync.Mutex
	opened []string
}

func (r *recordingIO) Open(ctx context.Context, p string) (io.ReadCloser, error) {
	r.mu.Lock()
	r.opened = append(r.opened, p)
	r.mu.Unlock()
	return r.FileIO.Open(ctx, p)
}

func (r *recordingIO) ReadFile(ctx context.Context, p string) ([]byte, error) {
	r.mu.Lock()
	r.opened = append(r.opened, p)
	r.mu.Unlock()
	return r.FileIO.ReadFile(ctx, p)
}

func copyGolden(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("..", "..", "testdata", "tables", "java", name)
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// commitMutated commits the latest snapshot's content again as the next snapshot, with its data
// entries and index entries passed through the mutators and written into one new manifest (and a
// new index manifest).
func commitMutated(t *testing.T, root string, data func([]meta.ManifestEntry), index func([]meta.IndexManifestEntry), snap func(*snapshot.Snapshot)) {
	t.Helper()
	ctx := context.Background()
	tbl := table.Open(fileio.NewLocal(), root)
	latest, err := tbl.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := tbl.Read(ctx, latest)
	if err != nil {
		t.Fatal(err)
	}
	entries := append([]meta.ManifestEntry{}, c.Entries...)
	if data != nil {
		data(entries)
	}
	write := func(name string, enc func(io.Writer) error) int64 {
		var buf bytes.Buffer
		if err := enc(&buf); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "manifest", name), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return int64(buf.Len())
	}
	size := write("manifest-bad-0", func(w io.Writer) error { return manifest.WriteManifestFile(w, entries, manifest.WriteOptions{}) })
	mf := meta.ManifestFileMeta{FileName: "manifest-bad-0", FileSize: size, NumAddedFiles: int64(len(entries)), PartitionStats: meta.EmptyStats()}
	if len(c.BaseManifests) > 0 {
		mf.PartitionStats = c.BaseManifests[0].PartitionStats
	}
	baseSize := write("manifest-list-bad-0", func(w io.Writer) error {
		return manifest.WriteManifestList(w, []meta.ManifestFileMeta{mf}, manifest.WriteOptions{})
	})
	deltaSize := write("manifest-list-bad-1", func(w io.Writer) error { return manifest.WriteManifestList(w, nil, manifest.WriteOptions{}) })
	next := *latest
	next.ID++
	next.BaseManifestList, next.BaseManifestListSize = "manifest-list-bad-0", &baseSize
	next.DeltaManifestList, next.DeltaManifestListSize = "manifest-list-bad-1", &deltaSize
	if c.IndexEntries != nil {
		ie := append([]meta.IndexManifestEntry{}, c.IndexEntries...)
		if index != nil {
			index(ie)
		}
		write("index-manifest-bad-0", func(w io.Writer) error { return manifest.WriteIndexManifest(w, ie, manifest.WriteOptions{}) })
		name := "index-manifest-bad-0"
		next.IndexManifest = &name
	}
	if snap != nil {
		snap(&next)
	}
	data2, err := next.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "snapshot", "snapshot-"+strconv.FormatInt(latest.ID+1, 10)), data2, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "snapshot", "LATEST"), []byte(strconv.FormatInt(latest.ID+1, 10)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readLatest(t *testing.T, root string) (*recordingIO, error) {
	t.Helper()
	ctx := context.Background()
	rio := &recordingIO{FileIO: fileio.NewLocal()}
	tbl := table.Open(rio, root)
	latest, err := tbl.Latest(ctx)
	if err != nil {
		return rio, err
	}
	_, err = tbl.Read(ctx, latest)
	return rio, err
}

func TestReadRejectsBadInput(t *testing.T) {
	outside := []string{"../../../outside", "/etc/passwd", "..", "", `..\x`, "file:/tmp/x"}
	for _, bad := range outside {
		t.Run("data-file="+bad, func(t *testing.T) {
			root := copyGolden(t, "two-levels")
			commitMutated(t, root, func(e []meta.ManifestEntry) { e[0].File.FileName = bad }, nil, nil)
			_, err := readLatest(t, root)
			if err == nil || !strings.Contains(err.Error(), "data file name") {
				t.Errorf("got %v", err)
			}
		})
		t.Run("extra-file="+bad, func(t *testing.T) {
			root := copyGolden(t, "two-levels")
			commitMutated(t, root, func(e []meta.ManifestEntry) { e[0].File.ExtraFiles = []string{bad} }, nil, nil)
			if _, err := readLatest(t, root); err == nil || !strings.Contains(err.Error(), "extra file") {
				t.Errorf("got %v", err)
			}
		})
		t.Run("index-file="+bad, func(t *testing.T) {
			root := copyGolden(t, "two-levels")
			commitMutated(t, root, nil, func(e []meta.IndexManifestEntry) { e[0].IndexFile.FileName = bad }, nil)
			if _, err := readLatest(t, root); err == nil || !strings.Contains(err.Error(), "index file name") {
				t.Errorf("got %v", err)
			}
		})
		if bad == "" {
			continue // an empty manifest list name means "none"
		}
		t.Run("manifest-list="+bad, func(t *testing.T) {
			root := copyGolden(t, "two-levels")
			commitMutated(t, root, nil, nil, func(s *snapshot.Snapshot) { s.DeltaManifestList = bad })
			rio, err := readLatest(t, root)
			if err == nil || !strings.Contains(err.Error(), "manifest list name") {
				t.Errorf("got %v", err)
			}
			for _, p := range rio.opened {
				if strings.Contains(p, bad) && bad != ".." {
					t.Errorf("opened %s before rejecting it", p)
				}
			}
		})
		t.Run("index-manifest="+bad, func(t *testing.T) {
			root := copyGolden(t, "two-levels")
			commitMutated(t, root, nil, nil, func(s *snapshot.Snapshot) { s.IndexManifest = &bad })
			if _, err := readLatest(t, root); err == nil || !strings.Contains(err.Error(), "index manifest name") {
				t.Errorf("got %v", err)
			}
		})
	}

	t.Run("manifest-in-list", func(t *testing.T) {
		root := copyGolden(t, "two-levels")
		commitMutated(t, root, nil, nil, nil)
		// Point the manifest list at a manifest outside the manifest directory.
		var buf bytes.Buffer
		if err := manifest.WriteManifestList(&buf, []meta.ManifestFileMeta{{FileName: "../schema/schema-0", FileSize: 1, PartitionStats: meta.EmptyStats()}}, manifest.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "manifest", "manifest-list-bad-0"), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		rio, err := readLatest(t, root)
		if err == nil || !strings.Contains(err.Error(), "manifest name") {
			t.Errorf("got %v", err)
		}
		for _, p := range rio.opened {
			if strings.Contains(p, "schema-0") {
				t.Errorf("opened %s before rejecting it", p)
			}
		}
	})

	t.Run("negative-row-count", func(t *testing.T) {
		root := copyGolden(t, "two-levels")
		commitMutated(t, root, func(e []meta.ManifestEntry) { e[0].File.RowCount = -1 }, nil, nil)
		if _, err := readLatest(t, root); err == nil || !strings.Contains(err.Error(), "negative row count") {
			t.Errorf("got %v", err)
		}
	})

	t.Run("negative-index-row-count", func(t *testing.T) {
		root := copyGolden(t, "two-levels")
		commitMutated(t, root, nil, func(e []meta.IndexManifestEntry) { e[0].IndexFile.RowCount = -5 }, nil)
		if _, err := readLatest(t, root); err == nil || !strings.Contains(err.Error(), "negative row count") {
			t.Errorf("got %v", err)
		}
	})

	t.Run("snapshot-id-mismatch", func(t *testing.T) {
		root := copyGolden(t, "two-levels")
		commitMutated(t, root, nil, nil, func(s *snapshot.Snapshot) { s.ID = 3 })
		_, err := readLatest(t, root)
		if err == nil || !strings.Contains(err.Error(), "disagrees with its name") {
			t.Errorf("got %v", err)
		}
	})
}

func TestCheckFileName(t *testing.T) {
	for _, ok := range []string{"data-8f2c-0.parquet", "index-abc-12", "manifest-list-x-3", "data-é中-0.orc"} {
		if err := paths.CheckFileName("data file", ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "a/b", "../a", "/a", `a\b`, "a\x00b", "s3:x"} {
		if err := paths.CheckFileName("data file", bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
