package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gotest.tools/v3/golden"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/testing/goldengen"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// update reports gotest.tools' -update flag (golden.FlagUpdate): make golden passes it to
// regenerate the golden tables.
func update() bool { return golden.FlagUpdate() }

// casesPypaimon registers the cases against pypaimon, Apache Paimon's official pure-Python
// implementation (an independent implementation, not Java).
func casesPypaimon(ct *caseTable) {
	// pypaimon writes a fresh table; Go's internal/table view of it equals pypaimon's own view.
	ct.add(caseRow{Name: "table/pypaimon-read", Direction: "pypaimon->go", Doc: docTablePypaimonRead,
		Sides: []caseSide{side("pypaimon", Writer), side("go", Consumer)},
		Run: func(ctx context.Context, ce *caseEnv) error {
			p, err := StartPypaimon(ctx)
			if err != nil {
				return unavailable{testenv.RequirePypaimonEnv, err}
			}
			defer p.Close()
			spec := pypaimonReadSpec()
			path, err := goldengen.CreateAndWrite(ctx, p, ce.T.TempDir(), "conformance", spec)
			if err != nil {
				return err
			}
			want, err := pypaimonFiles(ctx, p, path)
			if err != nil {
				return err
			}
			if want.SnapshotID != int64(len(spec.Commits)) || want.CommitKind != "OVERWRITE" {
				return fmt.Errorf("pypaimon reports snapshot %d (%s) after %d commits ending in an overwrite: the scenario did not run as written",
					want.SnapshotID, want.CommitKind, len(spec.Commits))
			}
			tbl := table.Open(fileio.NewLocal(), path)
			got, err := goldengen.GoView(ctx, tbl)
			if err != nil {
				return fmt.Errorf("go view: %w", err)
			}
			if err := sameView(got, want); err != nil {
				return err
			}
			return goldengen.CheckKeyRows(ctx, tbl)
		}})
}

// pypaimonFiles asks the runner for pypaimon's view of the table at path.
func pypaimonFiles(ctx context.Context, p *Process, path string) (*goldengen.Files, error) {
	var raw json.RawMessage
	if err := p.Call(ctx, "files", map[string]any{"path": path}, &raw); err != nil {
		return nil, err
	}
	return goldengen.ParseFiles(raw)
}

// sameView compares Go's view with pypaimon's, printing a diff (-go +pypaimon) on mismatch.
func sameView(goView, pyView *goldengen.Files) error {
	g, err := goView.Canonical()
	if err != nil {
		return err
	}
	w, err := pyView.Canonical()
	if err != nil {
		return err
	}
	if len(w.Buckets) == 0 {
		return fmt.Errorf("pypaimon reports no live files in snapshot %d: nothing compared", w.SnapshotID)
	}
	if d := cmp.Diff(g, w); d != "" {
		return fmt.Errorf("go's view of the table differs from pypaimon's (-go +pypaimon):\n%s", d)
	}
	return nil
}

// pypaimonReadSpec is the table of the pypaimon->go case: partitioned by STRING and DATE, two
// buckets, a composite key with a TIMESTAMP(3), four commits updating earlier rows, and a fifth
// overwriting one partition.
func pypaimonReadSpec() goldengen.Spec {
	regions := []string{"eu-central-1", "ap"}
	days := []string{"2023-12-31", "2024-02-29"}
	commit := func(n, from, to int) goldengen.Commit {
		var rows []map[string]any
		for _, r := range regions {
			for _, d := range days {
				for id := from; id < to; id++ {
					rows = append(rows, map[string]any{
						"region": r, "day": d, "id": id,
						"ts":    fmt.Sprintf("2024-01-01T00:00:%02d.%03d", id%60, id%7),
						"price": fmt.Sprintf("%d.%02d", id*3, id%100),
						"text":  fmt.Sprintf("%s %s id %d version %d", r, d, id, n),
					})
				}
			}
		}
		return goldengen.Commit{Rows: rows}
	}
	overwrite := commit(5, 100, 104)
	overwrite.Overwrite = map[string]any{"region": "ap", "day": "2023-12-31"}
	for i := 0; i < len(overwrite.Rows); {
		if r := overwrite.Rows[i]; r["region"] == "ap" && r["day"] == "2023-12-31" {
			i++
			continue
		}
		overwrite.Rows = append(overwrite.Rows[:i], overwrite.Rows[i+1:]...)
	}
	return goldengen.Spec{
		Name: "pypaimon_read",
		Fields: []goldengen.Field{{Name: "region", Type: "STRING"}, {Name: "day", Type: "DATE"},
			{Name: "id", Type: "BIGINT"}, {Name: "ts", Type: "TIMESTAMP(3)"},
			{Name: "price", Type: "DECIMAL(10, 2)"}, {Name: "text", Type: "STRING"}},
		PrimaryKeys:   []string{"region", "day", "id", "ts"},
		PartitionKeys: []string{"region", "day"},
		Options:       map[string]string{"bucket": "2"},
		Commits:       []goldengen.Commit{commit(1, 0, 20), commit(2, 10, 30), commit(3, 0, 5), commit(4, 25, 40), overwrite},
	}
}

// TestGolden regenerates the golden corpora with -update (make golden): the pypaimon tables
// (testdata/tables/pypaimon, compat/golden/pypaimon), the Java tables (testdata/tables/java,
// compat/golden/java) and the tables Go wrote (testdata/tables/go, compat/golden/go, with Java's
// view of each). Without it, it checks that pypaimon and the Java runner still read every
// checked-in golden table as they did at generation time.
func TestGolden(t *testing.T) {
	t.Run("pypaimon", testGoldenPypaimon)
	t.Run("java", testGoldenJava)
	// After java: two Go-written tables start as copies of Java golden tables.
	t.Run("go", testGoldenGo)
}

func testGoldenPypaimon(t *testing.T) {
	ctx := context.Background()
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	p, err := StartPypaimon(ctx)
	if err != nil {
		if update() {
			t.Fatalf("make golden needs pypaimon: %v", err)
		}
		testenv.Missing(t, testenv.RequirePypaimonEnv, err.Error())
	}
	defer p.Close()
	if update() {
		if err := goldengen.Generate(ctx, p, root, goldengen.Specs()); err != nil {
			t.Fatal(err)
		}
	}
	names, err := goldengen.GoldenTables(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			exp, want, err := goldengen.ReadExpected(root, name)
			if err != nil {
				t.Fatal(err)
			}
			path := goldengen.TablePath(root, name)
			got, err := pypaimonFiles(ctx, p, path)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(got, want); d != "" {
				t.Errorf("pypaimon's files view differs from %s (-now +golden):\n%s", goldengen.ExpectedPath(root, name), d)
			}
			var read struct {
				Rows []map[string]any `json:"rows"`
			}
			if err := p.Call(ctx, "read", map[string]any{"path": path}, &read); err != nil {
				t.Fatal(err)
			}
			var wantRows []map[string]any
			if err := json.Unmarshal(exp.Rows, &wantRows); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(read.Rows, wantRows); d != "" {
				t.Errorf("pypaimon's rows differ from %s (-now +golden):\n%s", goldengen.ExpectedPath(root, name), d)
			}
		})
	}
}

// docTablePypaimonRead describes table/pypaimon-read.
const docTablePypaimonRead = "pypaimon, an independent implementation of the format, writes a partitioned two-bucket " +
	"table with updates and a partition overwrite; Go's view of the latest snapshot equals " +
	"pypaimon's own."
