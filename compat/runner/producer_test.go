package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"

	"github.com/paimon-pkft/pkft/internal/pkfulltext"
)

// ProducerCommands are the protocol commands an implementation serves as a producer: it creates
// a table and writes rows into it (compat/PROTOCOL.md).
var ProducerCommands = []string{"create-table", "write"}

// producerFields are the columns of the producer cases' table.
var producerFields = []field{{"region", "STRING NOT NULL"}, {"id", "INT NOT NULL"}, {"d", "DATE"}, {"price", "DECIMAL(10, 2)"}, {"content", "STRING"}}

// casesProducers registers producer/<impl> for every implementation whose supports file declares the
// producer commands (pypaimon 2.1.0, paimon-rust 0.4.0): it creates a partitioned primary-key full-text table and
// writes rounds of rows (new keys and updates) into it, which it leaves on level 0 without
// archives; Go (and every other implementation taking the compactor and maintainer roles)
// compacts the table through its runner (building the archives), the implementation writes again and
// Go compacts again. After each Go compaction Java reads the model's rows, Java's state shows
// every archive current and Java's searches equal Go's (<impl>->go->java). Then every consumer
// implementation reads and searches the table as Java does (producer/<impl>/<command>,
// <impl>->go-><consumer>).
func casesProducers(ct *caseTable) {
	impls, runners := consumerRunners(ct)
	// Every compactor and maintainer (go, and any other declaring both roles) compacts every
	// producer's table: <impl>-><compactor>->java.
	forProducers(impls, []Role{Compactor, Maintainer}, groupFixture(), groupFixture, func(c string, gf *fixture[*maintainGroup]) {
		for _, prod := range impls {
			if !prod.Supports.Commands[ProducerCommands[0]] || !prod.Supports.Commands[ProducerCommands[1]] {
				continue
			}
			var tb *consumerTable
			ct.add(caseRow{Name: "producer/" + prod.Name, Direction: prod.Name + "->" + c + "->java", Doc: docProducerImpl,
				Sides: []caseSide{side(prod.Name, Writer), side(c, Compactor, Maintainer, Consumer), side("java", Consumer)},
				// The writer's commands are its supports file's (checked above).
				Uses: []caseUse{serving(gf, writeCommands...), runnerOf(runners, prod.Name), runnerOf(runners, c, "compact", "maintain", "search")},
				Run: func(ctx context.Context, ce *caseEnv) error {
					var err error
					tb, err = producedTable(ctx, gf.in(ce), ce.runner(prod.Name), ce.runner(c), prod.Name)
					return err
				}})
			consumerCasesOf(ct, impls, runners, "producer/"+prod.Name, prod.Name+"->"+c, "producer/"+prod.Name+"/"+prod.Name+"->"+c+"->java", docProducerImpl, func() *consumerTable { return tb })
		}
	})
}

// producedTable runs the producer's part of producer/<name> with p, Go's compactions and
// maintenance through the Go runner goP, and returns the table with Java's answers for the
// consumers.
func producedTable(ctx context.Context, g *maintainGroup, p, goP *Process, name string) (*consumerTable, error) {
	var created struct {
		Path string `json:"path"`
	}
	err := p.Call(ctx, "create-table", map[string]any{
		"warehouse": filepath.Join(g.dir, "producer", name), "database": "conformance", "table": "produced",
		"fields": producerFields, "primaryKeys": []string{"region", "id"}, "partitionKeys": []string{"region"},
		"options": map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content"},
	}, &created)
	if err != nil {
		return nil, fmt.Errorf("%s create-table: %w", name, err)
	}
	path := created.Path
	m := newRowModel([]string{"region", "id"})
	next := 0
	for phase := range 2 {
		for round := range 3 {
			seed := uint64(100*phase + round)
			r := rand.New(rand.NewPCG(seed, 41))
			n := 10 + r.IntN(20)
			rows := producerRows(next, next+n, 7000+seed, r)
			next += n
			if len(m.rows) > 0 {
				for _, u := range updatesAndDeletes(m, 8000+seed, r.IntN(10), 0) {
					u["price"] = fmt.Sprintf("%d.%02d", r.IntN(1000), r.IntN(100))
					rows = append(rows, u)
				}
			}
			if err := p.Call(ctx, "write", map[string]any{"path": path, "rows": rows}, nil); err != nil {
				return nil, fmt.Errorf("%s write (phase %d, round %d): %w", name, phase, round, err)
			}
			m.apply(rows)
		}
		if err := goP.Call(ctx, "compact", map[string]any{"path": path}, nil); err != nil {
			return nil, fmt.Errorf("phase %d: go compact: %w", phase, err)
		}
		if err := roundChecks(ctx, g, goP, path, m, producerFields, true); err != nil {
			return nil, fmt.Errorf("phase %d: %w", phase, err)
		}
		if err := g.sameSearchesVia(ctx, goP, path, maintainQueries(), []int{10}); err != nil {
			return nil, fmt.Errorf("phase %d: %w", phase, err)
		}
	}
	// What Go's compactions built is what pkft maintain would build: it finds nothing to do.
	var res maintained
	if err := goP.Call(ctx, "maintain", map[string]any{"path": path}, &res); err != nil {
		return nil, fmt.Errorf("go maintain: %w", err)
	}
	if res.committed() != 0 {
		return nil, fmt.Errorf("maintain after Go's compaction committed snapshot %d", res.committed())
	}
	return recordJavaAnswers(ctx, g, path, name+"->go", filepath.Base(path), maintainQueries())
}

// recordJavaAnswers reads, dumps and searches (queries, limit 10) the full-text table at path
// with Java, as the consumer cases compare them: the table as PRODUCER/NAME, NAME its
// directory's name (known-upstream lines match errors naming it).
func recordJavaAnswers(ctx context.Context, g *maintainGroup, path, producer, name string, queries []string) (*consumerTable, error) {
	rows, err := javaRead(ctx, g.proc, path)
	if err != nil {
		return nil, err
	}
	dump, err := javaDump(ctx, g.proc, path)
	if err != nil {
		return nil, err
	}
	tb := &consumerTable{producer: producer, name: name, path: path, dump: *dump, limit: 10}
	for _, r := range rows {
		tb.rows = append(tb.rows, r)
	}
	for _, q := range queries {
		var raw json.RawMessage
		if err := g.proc.Call(ctx, "search", map[string]any{"path": path, "query": q, "limit": tb.limit}, &raw); err != nil {
			return nil, fmt.Errorf("java search %s: %w", q, err)
		}
		tb.search = append(tb.search, raw)
	}
	if len(tb.rows) == 0 {
		return nil, fmt.Errorf("Java reads no rows of %s", path)
	}
	return tb, nil
}

// consumerRunners are the implementations of the consumer cases and their runners, each started
// on first use.
func consumerRunners(ct *caseTable) ([]Impl, map[string]*implRunner) {
	root, err := RepoRoot()
	if err != nil {
		ct.errorf("%v", err)
		return nil, nil
	}
	impls, err := Impls(root, ct.environ)
	if err != nil {
		ct.errorf("%v", err)
		return nil, nil
	}
	runners := map[string]*implRunner{}
	for _, impl := range impls {
		runners[impl.Name] = &implRunner{impl: impl, root: root}
	}
	return impls, runners
}

// consumerCasesOf registers NAME/{read,search} (PRODUCER->CONSUMER) for every consumer
// implementation: each reads and searches the table the earlier case (the row needs) left
// (table returns it with Java's answers, or nil when that case did not pass) as Java does.
func consumerCasesOf(ct *caseTable, impls []Impl, runners map[string]*implRunner, name, producer, needs, doc string, table func() *consumerTable) {
	root, err := RepoRoot()
	if err != nil {
		ct.errorf("%v", err)
		return
	}
	for _, cons := range impls {
		for _, cmd := range []string{"read", "search"} {
			ct.add(caseRow{Name: name + "/" + cmd, Direction: producer + "->" + cons.Name, Doc: doc,
				Sides: []caseSide{side(cons.Name, Consumer)}, Needs: []string{needs},
				Run: func(ctx context.Context, ce *caseEnv) error {
					tb := table()
					if tb == nil {
						return fmt.Errorf("the case writing the table of %s did not pass: nothing to read", name)
					}
					return consumerCase(ctx, ce.T, runners[cons.Name], cmd, tb, root)
				}})
		}
	}
}

// producerRows are new rows lo..hi: the corpus texts, two regions, dates and prices with nulls.
func producerRows(lo, hi int, seed uint64, r *rand.Rand) []row {
	rows := pkTextRows(seed, lo, hi)
	for i, x := range rows {
		x["region"] = []string{"eu", "us"}[(lo+i)%2]
		x["d"], x["price"] = nil, nil
		if r.IntN(5) != 0 {
			x["d"] = fmt.Sprintf("2024-%02d-%02d", 1+r.IntN(12), 1+r.IntN(28))
		}
		if r.IntN(5) != 0 {
			x["price"] = fmt.Sprintf("%d.%02d", r.IntN(1000), r.IntN(100))
		}
	}
	return rows
}

// docProducerImpl describes producer/<impl>.
const docProducerImpl = "an implementation that writes (pypaimon 2.1.0 and paimon-rust 0.4.0, through their own catalogs and " +
	"batch writers: level-0 files, no archives) creates a partitioned full-text table and writes rounds of new" +
	" rows and updates; Go compacts it and builds the archives, it writes again and Go compacts" +
	" again; each time Java reads the model's rows, Java's state shows every archive current " +
	"and Java's searches equal Go's. Then every consumer (pypaimon 2.1.0, paimon-rust 0.4.0) " +
	"reads and searches the table as Java does (compat/PROTOCOL.md, \"Producer commands\")."
