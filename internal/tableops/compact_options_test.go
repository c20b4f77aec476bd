package tableops_test

import (
	"context"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
)

// TestCompactOptions: the uncovered and the minor compaction exclude each other (each alone
// runs); a parallelism of 0 or less runs one bucket at a time; the commit user given is the
// snapshot's, and a compaction without one commits under a generated one.
func TestCompactOptions(t *testing.T) {
	ctx := context.Background()
	tbl := table.Open(fileio.NewLocal(), copyGolden(t, "two-levels"))
	if _, err := tableops.Compact(ctx, tbl, nil, tableops.WithUncoveredCompaction(), tableops.WithMinorCompaction()); err == nil ||
		!strings.Contains(err.Error(), "the uncovered and minor compactions exclude each other") {
		t.Fatalf("uncovered and minor: %v", err)
	}
	// Alone, the minor compaction runs (the table has no level-0 files: nothing to commit).
	if _, err := tableops.Compact(ctx, tbl, nil, tableops.WithMinorCompaction()); err != nil {
		t.Fatalf("minor: %v", err)
	}
	for _, c := range []struct {
		name string
		opts []tableops.MaintainOption
		user string // "": a generated one
	}{
		{"parallelism 0", []tableops.MaintainOption{tableops.WithParallelism(0), tableops.WithCommitUser("alice")}, "alice"},
		{"parallelism -3", []tableops.MaintainOption{tableops.WithParallelism(-3)}, ""},
	} {
		tbl := table.Open(fileio.NewLocal(), copyGolden(t, "two-levels"))
		before, err := tbl.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tableops.Compact(ctx, tbl, nil, c.opts...); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		after, err := tbl.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if after.ID <= before.ID {
			t.Fatalf("%s: no snapshot committed", c.name)
		}
		if c.user != "" && after.CommitUser != c.user || c.user == "" && (after.CommitUser == "" || after.CommitUser == before.CommitUser) {
			t.Errorf("%s: commit user %q (before %q), want %q", c.name, after.CommitUser, before.CommitUser, c.user)
		}
	}
}
