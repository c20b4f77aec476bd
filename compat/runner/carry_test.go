package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/testing/goldengen"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// carryCommands are the commands a maintainer serves in the carry cases.
var carryCommands = []string{"manifest-values", "rewrite-metadata"}

// goldenCarryTable is one table of the golden corpus: its producer (the corpus's directory) and
// name.
type goldenCarryTable struct{ producer, name, dir string }

// goldenCarryTables are the tables of the golden corpus of every producer: Java's, Go's and
// pypaimon 2.0's.
func goldenCarryTables(root string) ([]goldenCarryTable, error) {
	var out []goldenCarryTable
	for _, c := range []struct {
		producer string
		names    func(string) ([]string, error)
		path     func(string, string) string
	}{
		{"java", goldengen.JavaGoldenTables, goldengen.JavaTablePath},
		{"go", goldengen.GoGoldenTables, goldengen.GoTablePath},
		{"pypaimon", goldengen.GoldenTables, goldengen.TablePath},
	} {
		names, err := c.names(root)
		if err != nil {
			return nil, err
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("no golden tables of %s", c.producer)
		}
		for _, n := range names {
			out = append(out, goldenCarryTable{c.producer, n, c.path(root, n)})
		}
	}
	return out, nil
}

// carryJava is the Java runner the carry cases of one maintainer share, started on first use.
type carryJava struct {
	proc     *Process
	startErr error
}

func carryJavaFixture() *fixture[*carryJava] {
	return newFixture(func(t *testing.T) *carryJava {
		cj := &carryJava{}
		if p, err := StartJava(context.Background()); err != nil {
			cj.startErr = unavailable{testenv.RequireJavaEnv, err}
		} else {
			t.Cleanup(func() { p.Close() })
			cj.proc = p
		}
		return cj
	})
}

// need fails unless the Java runner started and serves cmds.
func (cj *carryJava) need(ctx context.Context, cmds ...string) error {
	if cj.startErr != nil {
		return cj.startErr
	}
	switch ok, err := HasCommands(ctx, cj.proc, cmds...); {
	case err != nil:
		return err
	case !ok:
		return fmt.Errorf("the Java runner lacks %s: rebuild it (make runner)", strings.Join(cmds, ", "))
	}
	return nil
}

// casesCarry registers the carry cases (issue 43, "carry without loss"): a commit that carries
// another writer's manifest entries writes back exactly the values it read. For every
// maintainer (go, and every implementation declaring the maintainer role), on a copy of every
// table of the golden corpus (metadata/carry/<producer>/<table>) and on a table each writer
// implementation writes through its runner (producer/<writer>/metadata-carry): the maintainer's
// manifest-values equals Java's; it re-encodes the metadata (rewrite-metadata); Java's
// manifest-values of the new snapshot equals Java's of the original, and Java reads the same rows.
func casesCarry(ct *caseTable) {
	root, err := RepoRoot()
	if err != nil {
		ct.errorf("%v", err)
		return
	}
	golden, err := goldenCarryTables(root)
	if err != nil {
		ct.errorf("carry: %v", err)
		return
	}
	impls, runners := consumerRunners(ct)
	writers := producerImpls(impls, Writer)
	forProducers(impls, []Role{Maintainer}, carryJavaFixture(), carryJavaFixture, func(m string, jf *fixture[*carryJava]) {
		for _, g := range golden {
			ct.add(caseRow{Name: "metadata/carry/" + g.producer + "/" + g.name, Direction: as(m, "golden->go->java"), Doc: docMetadataCarry,
				Sides: []caseSide{side(m, Maintainer), side("java", Consumer)},
				Uses:  []caseUse{runnerOf(runners, m, carryCommands...), serving(jf, "manifest-values")},
				Run: func(ctx context.Context, ce *caseEnv) error {
					path := filepath.Join(ce.T.TempDir(), g.name)
					if err := copyTable(g.dir, path); err != nil {
						return err
					}
					return carry(ctx, jf.in(ce).proc, ce.runner(m), m, path)
				}})
		}
		for _, w := range writers {
			sides := []caseSide{side(w, Writer), side(m, Maintainer), side("java", Consumer)}
			if w == m {
				sides = []caseSide{side(m, Writer, Maintainer), side("java", Consumer)}
			}
			ct.add(caseRow{Name: "producer/" + w + "/metadata-carry", Direction: w + "->" + m + "->java", Doc: docMetadataCarry,
				Sides: sides,
				Uses:  []caseUse{runnerOf(runners, w, ProducerCommands...), runnerOf(runners, m, carryCommands...), serving(jf, "manifest-values")},
				Run: func(ctx context.Context, ce *caseEnv) error {
					path, err := carryWrittenTable(ctx, ce.runner(w), w, ce.T.TempDir())
					if err != nil {
						return err
					}
					return carry(ctx, jf.in(ce).proc, ce.runner(m), m, path)
				}})
		}
	})
}

// carryWrittenTable creates a partitioned primary-key full-text table with deletion vectors
// through the writer's runner wp and writes three rounds of rows into it (new keys, then
// updates and deletes of earlier ones); it returns the table's path.
func carryWrittenTable(ctx context.Context, wp *Process, w, dir string) (string, error) {
	var created struct {
		Path string `json:"path"`
	}
	err := wp.Call(ctx, "create-table", map[string]any{
		"warehouse": filepath.Join(dir, "wh"), "database": "conformance", "table": "carried",
		"fields": producerFields, "primaryKeys": []string{"region", "id"}, "partitionKeys": []string{"region"},
		"options": map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content"},
	}, &created)
	if err != nil {
		return "", fmt.Errorf("%s create-table: %w", w, err)
	}
	m := newRowModel([]string{"region", "id"})
	next := 0
	for round := range 3 {
		r := rand.New(rand.NewPCG(uint64(round), 43))
		n := 10 + r.IntN(20)
		rows := producerRows(next, next+n, 9000+uint64(round), r)
		next += n
		if len(m.rows) > 0 {
			rows = append(rows, updatesAndDeletes(m, 9100+uint64(round), r.IntN(8), 1+r.IntN(3))...)
		}
		if err := wp.Call(ctx, "write", map[string]any{"path": created.Path, "rows": rows}, nil); err != nil {
			return "", fmt.Errorf("%s write (round %d): %w", w, round, err)
		}
		m.apply(rows)
	}
	return created.Path, nil
}

// carry runs one carry case on the table at path: the maintainer mp (implementation m) decodes
// the values Java decodes, re-encodes them as the next snapshot, and Java reads back the same
// values and rows.
func carry(ctx context.Context, jp, mp *Process, m, path string) error {
	before, err := manifestValuesOf(ctx, jp, path)
	if err != nil {
		return fmt.Errorf("java manifest-values: %w", err)
	}
	if len(before.Entries) == 0 {
		return errors.New("the table's snapshot has no manifest entries: nothing compared")
	}
	mine, err := manifestValuesOf(ctx, mp, path)
	if err != nil {
		return fmt.Errorf("%s manifest-values: %w", m, err)
	}
	if d := diffValues(before, mine); d != "" {
		return fmt.Errorf("%s decodes other values than Java (-java +%s):\n%s", m, m, d)
	}
	rowsBefore, readErrBefore := javaRead(ctx, jp, path)
	var snap rewriteAnswer
	if err := mp.Call(ctx, "rewrite-metadata", map[string]any{"path": path}, &snap); err != nil {
		return fmt.Errorf("%s rewrite-metadata: %w", m, err)
	}
	if snap.SnapshotBefore != before.SnapshotID || snap.SnapshotAfter != before.SnapshotID+1 {
		return fmt.Errorf("%s's rewrite committed snapshot %d on %d, want the next of Java's %d", m, snap.SnapshotAfter, snap.SnapshotBefore, before.SnapshotID)
	}
	after, err := manifestValuesOf(ctx, jp, path)
	if err != nil {
		return fmt.Errorf("java manifest-values of %s's snapshot: %w", m, err)
	}
	if after.SnapshotID != snap.SnapshotAfter {
		return fmt.Errorf("Java reads snapshot %d, want %s's %d", after.SnapshotID, m, snap.SnapshotAfter)
	}
	want := *before
	want.SnapshotID = after.SnapshotID
	if d := diffValues(&want, after); d != "" {
		return fmt.Errorf("the values Java reads changed across %s's rewrite (-before +after):\n%s", m, d)
	}
	rowsAfter, readErrAfter := javaRead(ctx, jp, path)
	switch {
	case readErrBefore != nil && readErrAfter != nil:
		// A golden table kept without its data files: Java fails as it failed before.
		if readErrBefore.Error() != readErrAfter.Error() {
			return fmt.Errorf("Java's read failed with %v before %s's rewrite, with %v after", readErrBefore, m, readErrAfter)
		}
	case readErrBefore != nil || readErrAfter != nil:
		return fmt.Errorf("Java's read across %s's rewrite: before %v, after %v", m, readErrBefore, readErrAfter)
	default:
		if d := cmp.Diff(rowsBefore, rowsAfter); d != "" {
			return fmt.Errorf("rows Java reads changed across %s's rewrite (-before +after):\n%s", m, clip(d))
		}
	}
	return nil
}

// carriedValues is a runner's answer to manifest-values (compat/protocol/manifest-values.response.json).
type carriedValues struct {
	SnapshotID    int64             `json:"snapshotId"`
	DataManifests []json.RawMessage `json:"dataManifests"`
	Entries       []json.RawMessage `json:"entries"`
	IndexEntries  []json.RawMessage `json:"indexEntries"`
}

func manifestValuesOf(ctx context.Context, p *Process, path string) (*carriedValues, error) {
	var v carriedValues
	if err := p.Call(ctx, "manifest-values", map[string]any{"path": path}, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// diffValues compares two answers element by element (each decoded, so that key order and
// number spelling do not matter), the lists in the order the runners sorted them.
func diffValues(a, b *carriedValues) string {
	decode := func(v *carriedValues) any {
		out := map[string]any{"snapshotId": v.SnapshotID}
		for name, list := range map[string][]json.RawMessage{"dataManifests": v.DataManifests, "entries": v.Entries, "indexEntries": v.IndexEntries} {
			vals := make([]any, len(list))
			for i, raw := range list {
				if err := json.Unmarshal(raw, &vals[i]); err != nil {
					vals[i] = "undecodable: " + string(raw)
				}
			}
			out[name] = vals
		}
		return out
	}
	return clip(cmp.Diff(decode(a), decode(b)))
}

// clip shortens a long diff to its first 6,000 bytes.
func clip(d string) string {
	const limit = 6000
	if len(d) <= limit {
		return d
	}
	return d[:limit] + fmt.Sprintf("\n... (%d bytes more)", len(d)-limit)
}

// docMetadataCarry describes metadata/carry/<producer>/<table> and producer/<writer>/metadata-carry.
const docMetadataCarry = "carry without loss: on a copy of every golden table (Java's, Go's, pypaimon 2.0's) and on a " +
	"table each writer implementation writes through its runner (three rounds of new keys, updates and deletes into a " +
	"partitioned full-text table with deletion vectors), the maintainer's `manifest-values` (every data manifest's " +
	"values but its name and size, every manifest entry with its whole `DataFileMeta`, every index manifest entry) " +
	"equals the Java runner's (Paimon's `ManifestList`, `ManifestFile`, `IndexManifestFile` readers); after the " +
	"maintainer's `rewrite-metadata` Java's `manifest-values` of the new snapshot equals Java's of the original and " +
	"Java reads the same rows (or, on the golden table kept without its data files, fails as it failed before)."
