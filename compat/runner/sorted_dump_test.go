package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/inspect"
)

// sortedDumpTable is the Java-written table of index/sorted/dump: a primary-key table with a
// pk-btree column (price), a pk-bitmap column (status) and a full-text column (body), deletion
// vectors and one bucket, written and compacted in several steps so that the sorted family's
// payloads exist on more than one level, get replaced, and are partly stale before the last
// compaction.
func sortedDumpTable(ctx context.Context, p *Process, dir string) (string, error) {
	rows := func(from, to int, tag string) []row {
		var out []row
		for i := from; i < to; i++ {
			r := row{"id": i, "price": (i * 7) % 13, "status": []string{"new", "paid", "sent"}[i%3], "body": fmt.Sprintf("%s text %d", tag, i)}
			if i%11 == 0 {
				r["price"] = nil
			}
			out = append(out, r)
		}
		return out
	}
	return createJavaTable(ctx, p, filepath.Join(dir, "sorted-dump"), "sorted-dump",
		[]field{{"id", "INT NOT NULL"}, {"price", "INT"}, {"status", "STRING"}, {"body", "STRING"}},
		[]string{"id"}, nil,
		map[string]string{
			"bucket": "1", "deletion-vectors.enabled": "true",
			"pk-btree.index.columns": "price", "pk-bitmap.index.columns": "status",
			"pk-full-text.index.columns": "body", "num-sorted-run.compaction-trigger": "2",
		},
		[]tableStep{
			{rows: rows(0, 30, "first"), compact: true},
			{rows: rows(20, 50, "second")},
			{rows: rows(45, 60, "third")},
			{rows: rows(10, 25, "fourth")},
			{rows: rows(0, 5, "fifth")},
			{rows: rows(55, 70, "sixth")},
		})
}

// sortedDump is index/sorted/dump (java->go): Go's dump of a Java-written table with pk-btree,
// pk-bitmap and pk-full-text columns equals Java's, including each sorted definition's state
// (Paimon's PkSortedBucketIndexState and PrimaryKeyIndexLevels in the runner, Go's
// internal/pksorted/state and the shared planner) and the payloads' decoded SortedIndexFileMeta;
// the library's Table.State (pkft state) shows the same sorted states; and the table exercises
// the family: both definitions have a current group and a decoded index meta.
func sortedDump(ctx context.Context, jt *javaTables) error {
	path, err := sortedDumpTable(ctx, jt.proc, jt.dir)
	if err != nil {
		return err
	}
	if err := jt.sameDumps(ctx, path); err != nil {
		return err
	}
	j, err := javaDump(ctx, jt.proc, path)
	if err != nil {
		return err
	}
	if err := sortedStateMatchesDump(ctx, path, j); err != nil {
		return err
	}
	return sortedDumpExercised(j)
}

// sortedStateMatchesDump checks the library's Table.State (what pkft state prints) shows each
// bucket's sorted states as Java's dump does.
func sortedStateMatchesDump(ctx context.Context, path string, j *inspect.Dump) error {
	tbl, err := pkft.Open(ctx, path)
	if err != nil {
		return err
	}
	st, err := tbl.State(ctx)
	if err != nil {
		return err
	}
	if len(st.Buckets) != len(j.Buckets) {
		return fmt.Errorf("state has %d buckets, Java's dump %d", len(st.Buckets), len(j.Buckets))
	}
	asJSON := func(v any) (any, error) {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		var out any
		return out, json.Unmarshal(b, &out)
	}
	for i := range st.Buckets {
		got, err := asJSON(st.Buckets[i].Sorted)
		if err != nil {
			return err
		}
		want, err := asJSON(j.Buckets[i].Sorted)
		if err != nil {
			return err
		}
		if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
			return fmt.Errorf("bucket %d: pkft state's sorted states differ from Java's dump (-java +state):\n%s", st.Buckets[i].Bucket, d)
		}
	}
	return nil
}

// sortedDumpExercised checks the dump shows both sorted definitions with a current group and
// payloads whose index meta decoded.
func sortedDumpExercised(d *inspect.Dump) error {
	groups := map[string]int{}
	decoded := map[string]int{}
	for _, b := range d.Buckets {
		for _, s := range b.Sorted {
			if s.Error != "" {
				return fmt.Errorf("bucket %d: %s state failed", b.Bucket, s.IndexType)
			}
			groups[s.IndexType] += len(s.Groups)
		}
		for _, f := range b.IndexFiles {
			if f.GlobalIndex == nil {
				continue
			}
			if m, ok := f.GlobalIndex.IndexMeta.(map[string]any); ok {
				if _, ok := m["hasNulls"]; ok {
					decoded[f.IndexType]++
				}
			}
		}
	}
	for _, typ := range []string{"btree", "bitmap"} {
		if groups[typ] == 0 || decoded[typ] == 0 {
			return errors.New("the table no longer exercises the sorted family: no current " + typ + " group with a decoded index meta")
		}
	}
	return nil
}
