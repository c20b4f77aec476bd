package table_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/testing/goldengen"
)

// TestPypaimonGolden reads every golden table pypaimon wrote (testdata/tables/pypaimon, made by
// make golden) with Read and checks the latest snapshot's live files equal pypaimon's own view of
// them recorded at generation time (compat/golden/pypaimon/<table>.json): snapshot id, commit
// kind, the (partition, bucket) set with partitions decoded by Go from the schema's partition
// type, and per bucket the data files with their size, level, row count, sequence range, schema
// id, file source and key range. It also checks Go's BinaryRow encoder and bucket function agree
// with the partition and key rows pypaimon stored. No Python is needed.
func TestPypaimonGolden(t *testing.T) {
	root, err := goldengen.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	names, err := goldengen.GoldenTables(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			_, want, err := goldengen.ReadExpected(root, name)
			if err != nil {
				t.Fatal(err)
			}
			tbl := table.Open(fileio.NewLocal(), goldengen.TablePath(root, name))
			got, err := goldengen.GoView(ctx, tbl)
			if err != nil {
				t.Fatal(err)
			}
			g, err := got.Canonical()
			if err != nil {
				t.Fatal(err)
			}
			w, err := want.Canonical()
			if err != nil {
				t.Fatal(err)
			}
			if len(w.Buckets) == 0 {
				t.Fatalf("%s records no live files: nothing to compare", goldengen.ExpectedPath(root, name))
			}
			if d := cmp.Diff(g, w); d != "" {
				t.Errorf("Go's view differs from pypaimon's (-go +pypaimon):\n%s", d)
			}
			if err := goldengen.CheckKeyRows(ctx, tbl); err != nil {
				t.Errorf("pypaimon's stored rows vs Go's encoder: %v", err)
			}
		})
	}
}
