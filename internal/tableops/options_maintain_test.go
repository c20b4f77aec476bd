package tableops_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/options"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
)

// TestMaintainAcceptsWhatCannotChangeIt sets, on a copy of a Java table given a full-text index,
// options Flink jobs set that the Go writer refuses but that cannot change what an index-only
// commit writes: a write and a compaction still fail naming the key and the value with nothing
// written, and the maintenance builds the archives in one index-only commit. The last case sets
// every key the maintenance accepts and the writer refuses at once.
func TestMaintainAcceptsWhatCannotChangeIt(t *testing.T) {
	eng, _ := engine(t)
	all := map[string]string{}
	for k, v := range refusedSettings(t) {
		if options.New().DecideFor(options.Maintain, k, v).Err == nil {
			all[k] = v
		}
	}
	for _, k := range []string{"changelog-producer", "full-compaction.delta-commits"} {
		if _, ok := all[k]; !ok {
			t.Fatalf("%s is not among the keys the maintenance accepts: %v", k, slices.Sorted(maps.Keys(all)))
		}
	}
	all["owner"] = "team-search"
	for _, c := range []struct {
		name string
		opts map[string]string
	}{
		{"changelog-producer", map[string]string{"changelog-producer": "lookup"}},
		{"changelog-producer-input", map[string]string{"changelog-producer": "input"}},
		{"full-compaction", map[string]string{"full-compaction.delta-commits": "3"}},
		{"owner", map[string]string{"owner": "team-search"}},
		{"all", all},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			root := copyJavaTableWith(t, "two-levels", c.opts)
			tbl := table.Open(fileio.NewLocal(), root)
			base, err := tbl.Latest(ctx)
			if err != nil {
				t.Fatal(err)
			}
			baseContents, err := tbl.Read(ctx, base)
			if err != nil {
				t.Fatal(err)
			}
			before := listFiles(t, root)
			refused := func(op string, err error) {
				t.Helper()
				if !errors.Is(err, tableops.ErrUnsupportedTable) {
					t.Fatalf("%s: %v, want ErrUnsupportedTable", op, err)
				}
				for k, v := range c.opts {
					if !strings.Contains(err.Error(), k) || !strings.Contains(err.Error(), strconv.Quote(v)) {
						t.Errorf("%s: error does not name %s = %q: %v", op, k, v, err)
					}
				}
				if got := listFiles(t, root); !slices.Equal(got, before) {
					t.Fatalf("%s changed the table's files", op)
				}
			}
			w, err := tableops.OpenWriter(ctx, tbl, eng)
			if err == nil {
				w.Abort(ctx)
			}
			refused("write", err)
			_, err = tableops.Compact(ctx, tbl, eng)
			refused("compaction", err)

			res, err := tableops.Maintain(ctx, tbl, eng)
			if err != nil {
				t.Fatalf("maintain: %v", err)
			}
			s := res.Snapshot
			if s == nil || s.ID != base.ID+1 || s.CommitKind != snapshot.CommitAppend || s.DeltaRecordCount != 0 ||
				s.ChangelogManifestList != nil || s.TotalRecordCount != base.TotalRecordCount {
				t.Fatalf("snapshot: %+v", s)
			}
			if latest, err := tbl.Latest(ctx); err != nil || latest.ID != s.ID {
				t.Fatalf("latest %v, %v: not one commit", latest, err)
			}
			var built int
			for _, b := range res.Buckets {
				built += len(b.Built)
			}
			if built == 0 {
				t.Fatal("no archive built")
			}
			after, err := tbl.Read(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			if len(after.Entries) != len(baseContents.Entries) || len(after.DeltaManifests) != 0 {
				t.Errorf("data files changed: %d -> %d, delta manifests %v", len(baseContents.Entries), len(after.Entries), after.DeltaManifests)
			}
			checkAllCurrent(t, tbl, fieldID(t, tbl))
		})
	}
}
