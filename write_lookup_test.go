package pkft_test

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/openconfig"
	"github.com/paimon-pkft/pkft/internal/testing/countio"
)

// TestWriteLookupOpensEachFileOnce writes a small batch into a table whose rows lie compacted in
// its top level: new keys that fall between the stored keys (looked up and not found), and
// updates of stored ones. The compaction at commit looks every key up in the levels above its
// output level; the commit must open each data file of those levels at most once, as Java's
// LookupLevels builds one lookup file per data file (a cursor that reopened its file for every
// key it did not find made a 1,767-row write open one file about 500 times).
func TestWriteLookupOpensEachFileOnce(t *testing.T) {
	ctx := context.Background()
	cfs := countio.New(fileio.NewLocal())
	dir := t.TempDir()
	tbl, err := pkft.Create(ctx, dir, pkft.TableDefinition{
		Columns:     []pkft.ColumnDefinition{{Name: "id", Type: "BIGINT"}, {Name: "v", Type: "STRING"}},
		PrimaryKeys: []string{"id"},
		Options:     map[string]string{"bucket": "1", "deletion-vectors.enabled": "true"},
	}, pkft.WithOpenOptions(openconfig.WithFileIO(cfs)))
	if err != nil {
		t.Fatal(err)
	}
	write := func(kind pkft.RowKind, ids []int64, round string) {
		t.Helper()
		w, err := tbl.NewWriter(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if err := w.Write(ctx, kind, []any{id, fmt.Sprintf("%s %d", round, id)}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var stored8 []int64
	for id := int64(0); id < 80000; id += 8 {
		stored8 = append(stored8, id)
	}
	write(pkft.Insert, stored8, "first")
	if _, err := tbl.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	stored := map[string]bool{}
	var report pkft.ScanReport
	if n := scanRows(t, tbl, pkft.WithScanReport(&report)); n != len(stored8) {
		t.Fatalf("the table reads %d rows after the first write, want %d", n, len(stored8))
	}
	for _, f := range report.Files {
		if f.Level > 0 {
			stored[f.File] = true
		}
	}
	if len(stored) == 0 {
		t.Fatal("the compaction left no data file above level 0")
	}

	// Several new keys fall between two stored keys, so a lookup that misses leaves the
	// level's cursor past the next key asked.
	var batch []int64
	added := 0
	for id := int64(0); id < 1600; id++ {
		switch {
		case id%8 != 0:
			batch = append(batch, id) // between stored keys: looked up, not found
			added++
		case id%64 == 0:
			batch = append(batch, id) // a stored key: found
		}
	}
	cfs.Reset()
	write(pkft.Insert, batch, "second")

	looked := 0
	for p, n := range cfs.Opens() {
		name := path.Base(p)
		if !strings.HasSuffix(name, ".parquet") {
			continue
		}
		if stored[name] {
			looked++
		}
		if n > 1 {
			t.Errorf("the commit opened data file %s %d times, want at most once", name, n)
		}
	}
	if looked == 0 {
		t.Errorf("the commit opened none of the %d stored data files: the lookup was not exercised", len(stored))
	}
	if rows, want := scanRows(t, tbl), len(stored8)+added; rows != want {
		t.Errorf("the table reads %d rows after the write, want %d", rows, want)
	}
}

// scanRows counts the rows a scan of the table's latest snapshot returns.
func scanRows(t *testing.T, tbl *pkft.Table, opts ...pkft.ScanOption) int {
	t.Helper()
	rr, err := tbl.Scan(context.Background(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	n := 0
	for rr.Next() {
		n += int(rr.RecordBatch().NumRows())
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestWriteLookupReadsKeysOnly writes a small batch into a deletion-vector table (deduplicate,
// no sequence field) whose rows, with a large text value each, lie compacted in its top level.
// Such a lookup needs a key's existence and position only (Java's PersistPositionProcessor), so
// the commit must read the stored files' key and system columns, not their text: it reads less
// than a quarter of their size, where reading every column reads all of it.
func TestWriteLookupReadsKeysOnly(t *testing.T) {
	ctx := context.Background()
	cfs := countio.New(fileio.NewLocal())
	dir := t.TempDir()
	tbl, err := pkft.Create(ctx, dir, pkft.TableDefinition{
		Columns:     []pkft.ColumnDefinition{{Name: "id", Type: "BIGINT"}, {Name: "v", Type: "STRING"}},
		PrimaryKeys: []string{"id"},
		Options:     map[string]string{"bucket": "1", "deletion-vectors.enabled": "true"},
	}, pkft.WithOpenOptions(openconfig.WithFileIO(cfs)))
	if err != nil {
		t.Fatal(err)
	}
	// text is a value that does not compress away: 1 KiB of hex digits of a mixed sequence.
	text := func(id int64) string {
		var b strings.Builder
		x := uint64(id)*0x9e3779b97f4a7c15 + 1
		for b.Len() < 1024 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			fmt.Fprintf(&b, "%016x", x)
		}
		return b.String()
	}
	write := func(ids []int64) {
		t.Helper()
		w, err := tbl.NewWriter(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if err := w.Write(ctx, pkft.Insert, []any{id, text(id)}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var stored []int64
	for id := int64(0); id < 8000; id += 2 {
		stored = append(stored, id)
	}
	write(stored)
	if _, err := tbl.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	var report pkft.ScanReport
	if n := scanRows(t, tbl, pkft.WithScanReport(&report)); n != len(stored) {
		t.Fatalf("the table reads %d rows, want %d", n, len(stored))
	}
	var storedBytes int64
	for _, f := range report.Files {
		if f.Level > 0 {
			st, err := os.Stat(filepath.Join(dir, "bucket-0", f.File))
			if err != nil {
				t.Fatal(err)
			}
			storedBytes += st.Size()
		}
	}
	if storedBytes < 2<<20 {
		t.Fatalf("the stored files hold %d bytes, too few for the test", storedBytes)
	}
	// New keys between stored ones and updates of stored ones, across the key range.
	var batch []int64
	for id := int64(1); id < 8000; id += 40 {
		batch = append(batch, id, id+1)
	}
	cfs.Reset()
	write(batch)
	looked := 0
	for p := range cfs.Opens() {
		for _, f := range report.Files {
			if f.Level > 0 && path.Base(p) == f.File {
				looked++
			}
		}
	}
	if looked == 0 {
		t.Fatal("the commit opened no stored data file: the lookup was not exercised")
	}
	if read := cfs.BytesRead(); read*4 > storedBytes {
		t.Errorf("the commit read %d bytes; the stored files it looked keys up in hold %d: the lookup read their values", read, storedBytes)
	}
	if rows, want := scanRows(t, tbl), len(stored)+len(batch)/2; rows != want {
		t.Errorf("the table reads %d rows after the write, want %d", rows, want)
	}
}
