package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/fileio/s3io"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/testing/s3server"
	"github.com/paimon-pkft/pkft/internal/types"
)

// s3Bucket is the bucket of the s3/* cases' warehouse.
const s3Bucket = "pkft-conformance"

// s3Commands are the runner commands the s3/* cases need.
var s3Commands = append(slices.Clone(maintainCommands), "configure-s3")

// s3Env is the S3 server of the s3/* cases (SeaweedFS, started by the suite on loopback ports),
// an S3 FileIO on it and the options that reach it through pkft's facade.
type s3Env struct {
	srv  *s3server.Server
	cfg  s3io.Config
	fs   *s3io.FS
	opts map[string]string
	err  error
}

// startS3 starts the SeaweedFS server (its binary built by make s3-up) for the cases; what cannot
// start is recorded in the result.
func startS3(t *testing.T) *s3Env {
	ctx := context.Background()
	bin, err := s3server.Binary()
	if err != nil {
		return &s3Env{err: unavailable{s3server.RequireEnv, err}}
	}
	start := time.Now()
	srv, err := s3server.Start(ctx, bin, t.TempDir())
	if err != nil {
		return &s3Env{err: err}
	}
	t.Cleanup(srv.Stop)
	env := &s3Env{srv: srv, opts: map[string]string{
		"s3.endpoint": srv.Endpoint, "s3.access-key": s3server.AccessKey, "s3.secret-key": s3server.SecretKey,
	}}
	if env.cfg, err = s3io.LoadConfig(env.opts, nil); err != nil {
		return &s3Env{err: err}
	}
	env.fs = s3io.New(env.cfg)
	if err := env.fs.CreateBucket(ctx, s3Bucket); err != nil {
		return &s3Env{err: err}
	}
	report.AddNote(fmt.Sprintf("s3: %s (%s) answered %s after %s", srv.Kind, bin, srv.Endpoint, time.Since(start).Round(10*time.Millisecond)))
	return env
}

// s3Model is the rows a table of partitionedFields must hold: content by region|dt|id.
type s3Model map[string]any

func s3Key(r map[string]any) string { return fmt.Sprintf("%v|%v|%v", r["region"], r["dt"], r["id"]) }

func (m s3Model) apply(rows []row) {
	for _, r := range rows {
		if r["_rowKind"] == "-D" {
			delete(m, s3Key(r))
			continue
		}
		m[s3Key(r)] = r["content"]
	}
}

// javaReadsS3Model checks Java's read of the table is exactly the model's rows.
func (g *maintainGroup) javaReadsS3Model(ctx context.Context, path string, model s3Model) error {
	rows, err := javaRead(ctx, g.proc, path)
	if err != nil {
		return err
	}
	got := s3Model{}
	for _, r := range rows {
		got[s3Key(r)] = r["content"]
	}
	if d := cmp.Diff(map[string]any(model), map[string]any(got)); d != "" {
		return fmt.Errorf("Java reads other rows than the model (-model +java):\n%s", d)
	}
	return nil
}

// s3Table is the table s3/java-written leaves for s3/go-written.
type s3Table struct {
	path  string
	model s3Model
}

// s3Fixture is the group of the S3 cases (a Java runner on the local file system's jars) and
// their S3 server.
type s3Fixture struct {
	g   *maintainGroup
	env *s3Env
}

// need fails unless the S3 server started and the Java runner started, serves cmds and takes
// the server (configure-s3).
func (f s3Fixture) need(ctx context.Context, cmds ...string) error {
	g, env := f.g, f.env
	if env.err != nil {
		return env.err
	}
	if err := g.need(ctx, cmds...); err != nil {
		return err
	}
	return configureS3(ctx, g.proc, env)
}

// configureS3 points runner p at the S3 server (configure-s3).
func configureS3(ctx context.Context, p *Process, env *s3Env) error {
	return p.Call(ctx, "configure-s3", map[string]any{
		"bucket": s3Bucket, "endpoint": env.srv.Endpoint, "accessKey": s3server.AccessKey, "secretKey": s3server.SecretKey,
	}, nil)
}

// testS3 runs s3/java-written (java->go), s3/go-written (go->java), s3/commit-race (go->java),
// scale/shards (go->java) and s3/range-reads (go) on a SeaweedFS warehouse: Java reaches it through Paimon's HadoopFileIO over hadoop-aws's S3A,
// Go through internal/fileio/s3io. The Java runner is a local JVM in every runner mode: the runner's
// container has no network to reach the server with.
func casesS3(ct *caseTable) {
	// The group (a Java runner on the local file system's jars) and the S3 server, started on
	// first use.
	newS3 := func() *fixture[s3Fixture] {
		return newFixture(func(t *testing.T) s3Fixture {
			g := startGroupWith(t, StartLocalJava)
			env := startS3(t)
			if env.err == nil {
				g.fio = env.fs
			}
			return s3Fixture{g, env}
		})
	}
	fx := newS3()
	impls, runners := consumerRunners(ct)
	// s3Producer are the commands of the cases that run a writer, compactor and maintainer
	// through its runner, configured for the S3 server (configureS3).
	s3Producer := []string{"configure-s3", "write", "compact", "maintain", "search"}
	// Every writer, compactor and maintainer: go's rows on the group above, another's on a JVM
	// and an S3 server of its own.
	forProducers(impls, []Role{Writer, Compactor, Maintainer}, fx, newS3, func(p string, pfx *fixture[s3Fixture]) {
		var shared *s3Table
		ct.add(caseRow{Name: "s3/java-written", Direction: as(p, "java->go"), Doc: docS3JavaWritten,
			Sides: []caseSide{side("java", Writer, Compactor), side(p, Compactor, Maintainer, Consumer)},
			Uses:  []caseUse{serving(pfx, s3Commands...), runnerOf(runners, p, s3Producer...)},
			Run: func(ctx context.Context, ce *caseEnv) error {
				f := pfx.in(ce)
				if err := configureS3(ctx, ce.runner(p), f.env); err != nil {
					return err
				}
				tb, err := f.g.s3JavaWritten(ctx, f.env, ce.runner(p))
				shared = tb
				return err
			}})
		ct.add(caseRow{Name: "s3/go-written", Direction: as(p, "go->java"), Doc: docS3GoWritten,
			Sides: []caseSide{side(p, Writer, Compactor, Maintainer, Consumer), side("java", Consumer)}, Needs: []string{"s3/java-written/" + as(p, "java->go")},
			Uses: []caseUse{serving(pfx, s3Commands...), continuing(func() error {
				if shared == nil {
					return fmt.Errorf("s3/java-written/%s did not pass: no table %s compacted to continue", as(p, "java->go"), p)
				}
				return nil
			}), runnerOf(runners, p, s3Producer...)},
			Run: func(ctx context.Context, ce *caseEnv) error {
				f := pfx.in(ce)
				if err := configureS3(ctx, ce.runner(p), f.env); err != nil {
					return err
				}
				return f.g.s3GoWritten(ctx, f.env, shared, ce.runner(p))
			}})
	})
	ct.add(caseRow{Name: "s3/commit-race", Direction: "go->java", Doc: docS3CommitRace,
		Sides: []caseSide{side("go", Writer), side("java", Consumer)},
		Uses:  []caseUse{serving(fx, s3Commands...)},
		Run: func(ctx context.Context, ce *caseEnv) error {
			f := fx.in(ce)
			return f.g.s3CommitRace(ctx, f.env)
		}})
	ct.add(caseRow{Name: "scale/shards", Direction: "go->java", Doc: docScaleShards,
		Sides: []caseSide{side("go", Writer, Compactor, Maintainer), side("java", Consumer)},
		Uses:  []caseUse{serving(fx, s3Commands...)},
		Run: func(ctx context.Context, ce *caseEnv) error {
			f := fx.in(ce)
			return f.g.scaleShards(ctx, f.env)
		}})
	ct.add(caseRow{Name: "s3/range-reads", Direction: "go", Doc: docS3RangeReads,
		Sides: []caseSide{side("go", Maintainer, Consumer)},
		// Java takes no part: the S3 server and the engine alone must be there.
		Uses: []caseUse{madeReady(fx, s3AndEngine), runnerOf(runners, GoName, "maintain")},
		Run: func(ctx context.Context, ce *caseEnv) error {
			f := fx.in(ce)
			return f.g.s3RangeReads(ctx, f.env, ce.runner(GoName))
		}})
}

// s3AndEngine is ready when the S3 server started and the native engine loaded, whatever the
// group's Java runner.
func s3AndEngine(_ context.Context, f s3Fixture) error {
	if f.env.err != nil {
		return f.env.err
	}
	return f.g.engErr
}

// s3JavaWritten is s3/java-written (java->go): Java creates a partitioned 2-bucket table on the
// S3 warehouse (s3a://), writes, compacts, writes updates and deletes and sets the full-text
// index; Go, through its runner goP (s3://), maintains it (Java's dump of Go's snapshot equals Go's, every archive current
// by Java's state, Java reads the same rows, Java's searches equal Go's), then Go compacts and
// maintains it and Java reads exactly the rows written.
func (g *maintainGroup) s3JavaWritten(ctx context.Context, env *s3Env, goP *Process) (*s3Table, error) {
	steps := indexLater([]tableStep{
		{rows: ftPartitionRows(601, 0, 40)},
		{rows: ftPartitionRows(602, 30, 60)},
		{},
		{rows: append(ftPartitionRows(603, 0, 5), deletes(ftPartitionRows(604, 10, 13))...)},
	}, "content", "")
	model := s3Model{}
	for _, s := range steps {
		model.apply(s.rows)
	}
	javaPath, err := createJavaTable(ctx, g.proc, "s3a://"+s3Bucket+"/java", "s3_docs", partitionedFields(),
		[]string{"region", "dt", "id"}, []string{"region", "dt"}, map[string]string{"bucket": "2", "deletion-vectors.enabled": "true"}, steps)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(javaPath, "s3a://"+s3Bucket+"/") {
		return nil, fmt.Errorf("Java created the table at %s, not in the S3 warehouse", javaPath)
	}
	// Java's s3a://bucket/key is Go's s3://bucket/key: the same objects.
	path := "s3://" + strings.TrimPrefix(javaPath, "s3a://")
	tbl := table.Open(env.fs, path)
	before, err := tbl.Latest(ctx)
	if err != nil {
		return nil, fmt.Errorf("go reads the Java table on S3: %w", err)
	}
	if _, err := g.sameState(ctx, javaPath, before.ID); err != nil {
		return nil, fmt.Errorf("before Go's maintenance: %w", err)
	}
	rowsBefore, err := javaRead(ctx, g.proc, javaPath)
	if err != nil {
		return nil, err
	}
	var res maintained
	if err := goP.Call(ctx, "maintain", map[string]any{"path": path}, &res); err != nil {
		return nil, fmt.Errorf("go maintain on S3: %w", err)
	}
	if res.committed() != before.ID+1 {
		return nil, fmt.Errorf("Go's maintenance on S3 committed snapshot %d (0: none), want snapshot %d", res.committed(), before.ID+1)
	}
	j, err := g.sameState(ctx, javaPath, res.committed())
	if err != nil {
		return nil, err
	}
	if err := allCurrent(j); err != nil {
		return nil, fmt.Errorf("Java's state of Go's maintenance on S3: %w", err)
	}
	rowsAfter, err := javaRead(ctx, g.proc, javaPath)
	if err != nil {
		return nil, err
	}
	if d := cmp.Diff(rowsBefore, rowsAfter); d != "" {
		return nil, fmt.Errorf("rows Java reads changed across Go's maintenance (-before +after):\n%s", d)
	}
	if err := g.sameSearchesVia(ctx, goP, javaPath, maintainQueries(), []int{10}); err != nil {
		return nil, err
	}
	// Go compacts (the level-0 updates and deletes Java left) and maintains what that leaves.
	if err := goP.Call(ctx, "compact", map[string]any{"path": path}, nil); err != nil {
		return nil, fmt.Errorf("go compact on S3: %w", err)
	}
	if cs, err := tbl.Latest(ctx); err != nil {
		return nil, err
	} else if cs.ID != res.committed()+1 || cs.CommitKind != snapshot.CommitCompact {
		return nil, fmt.Errorf("Go's compaction on S3 left snapshot %d (%s) after %d: want one COMPACT commit of Java's level-0 updates", cs.ID, cs.CommitKind, res.committed())
	}
	if err := goP.Call(ctx, "maintain", map[string]any{"path": path}, nil); err != nil {
		return nil, fmt.Errorf("go maintain after compaction on S3: %w", err)
	}
	if err := g.s3Settled(ctx, goP, tbl, javaPath, model); err != nil {
		return nil, fmt.Errorf("after Go's compaction: %w", err)
	}
	return &s3Table{path: path, model: model}, nil
}

// s3Settled checks the table's latest snapshot by Java: its dump equals Go's, every archive is
// current, Java reads exactly the model and Java's searches equal Go's.
func (g *maintainGroup) s3Settled(ctx context.Context, goP *Process, tbl *table.Table, javaPath string, model s3Model) error {
	j, err := g.latestState(ctx, tbl, javaPath)
	if err != nil {
		return err
	}
	if err := allCurrent(j); err != nil {
		return fmt.Errorf("Java's state: %w", err)
	}
	if err := g.javaReadsS3Model(ctx, javaPath, model); err != nil {
		return err
	}
	return g.sameSearchesVia(ctx, goP, javaPath, maintainQueries(), []int{10})
}

// s3GoWritten is s3/go-written (go->java): through its runner goP (configure-s3 done; pkft's
// facade on the s3:// path with WithFileSystemOptions), Go writes inserts, updates and deletes into the table
// s3/java-written left, compacts and maintains it; Java reads exactly the model's rows, its dump
// equals Go's with every archive current, and its searches equal Go's.
func (g *maintainGroup) s3GoWritten(ctx context.Context, env *s3Env, st *s3Table, goP *Process) error {
	tbl := table.Open(env.fs, st.path)
	latest := func() (*snapshot.Snapshot, error) { return tbl.Latest(ctx) }
	base, err := latest()
	if err != nil {
		return err
	}
	var rows []row
	for _, batch := range [][]row{ftPartitionRows(605, 100, 130), ftPartitionRows(606, 0, 8), deletes(ftPartitionRows(607, 40, 44))} {
		rows = append(rows, batch...)
	}
	if err := goP.Call(ctx, "write", map[string]any{"path": st.path, "rows": rows}, nil); err != nil {
		return fmt.Errorf("go write on S3: %w", err)
	}
	st.model.apply(rows)
	written, err := latest()
	if err != nil {
		return err
	}
	if written.ID <= base.ID {
		return errors.New("Go's write on S3 committed nothing")
	}
	if err := goP.Call(ctx, "compact", map[string]any{"path": st.path}, nil); err != nil {
		return fmt.Errorf("go compact on S3: %w", err)
	}
	if compacted, err := latest(); err != nil {
		return err
	} else if compacted.ID <= written.ID || compacted.CommitKind != snapshot.CommitCompact {
		return fmt.Errorf("Go's compaction of its own writes on S3 committed nothing (snapshot %d %s after %d)", compacted.ID, compacted.CommitKind, written.ID)
	}
	if err := goP.Call(ctx, "maintain", map[string]any{"path": st.path}, nil); err != nil {
		return fmt.Errorf("go maintain on S3: %w", err)
	}
	javaPath := "s3a://" + strings.TrimPrefix(st.path, "s3://")
	return g.s3Settled(ctx, goP, tbl, javaPath, st.model)
}

// s3RaceRounds is the number of rounds of s3/commit-race.
const s3RaceRounds = 4

// s3CommitRace is s3/commit-race (go->java): two Go committers, each with its own S3 client (as
// two processes), write into one table; in every round both prepare snapshot N+1 and are held
// until both are ready, then publish at once. The conditional PUT lets exactly one have N+1; the
// other sees the conflict, re-bases and commits N+2. Afterwards there is exactly one snapshot per
// id with no gap, one APPEND per committer and round (and the COMPACT snapshots of the writers'
// compactions at commit), and Java reads both writers' rows.
func (g *maintainGroup) s3CommitRace(ctx context.Context, env *s3Env) error {
	path := "s3://" + s3Bucket + "/race/docs"
	def := pkft.TableDefinition{
		Columns:     []pkft.ColumnDefinition{{Name: "id", Type: "INT"}, {Name: "content", Type: "STRING"}},
		PrimaryKeys: []string{"id"},
		Options:     map[string]string{"bucket": "2"},
	}
	if _, err := pkft.Create(ctx, path, def, pkft.WithOpenOptions(pkft.WithFileSystemOptions(env.opts))); err != nil {
		return err
	}
	want := map[string]any{}
	conflicts := 0
	for round := 0; round < s3RaceRounds; round++ {
		var ready sync.WaitGroup
		ready.Add(2)
		released := make(chan struct{})
		go func() { ready.Wait(); close(released) }()
		errs := make([]error, 2)
		stats := make([]tableops.CommitStats, 2)
		var done sync.WaitGroup
		for wi, user := range []string{"racer-a", "racer-b"} {
			done.Add(1)
			go func() {
				defer done.Done()
				held := false
				hook := func(ctx context.Context, _ *snapshot.Snapshot) error {
					if held {
						return nil
					}
					held = true
					ready.Done()
					select {
					case <-released:
						return nil
					case <-time.After(time.Minute):
						return errors.New("the other committer never reached its publication")
					case <-ctx.Done():
						return ctx.Err()
					}
				}
				// Each committer has its own client, as a separate process would.
				tbl := table.Open(s3io.New(env.cfg), path)
				w, err := tableops.OpenWriter(ctx, tbl, g.engine, tableops.WithCommitUser(user), tableops.WithBeforePublish(hook))
				if err != nil {
					errs[wi] = err
					return
				}
				for i := 0; i < 10; i++ {
					id := round*100 + wi*50 + i
					if err := w.Write(ctx, types.RowKind(pkft.Insert), []any{int32(id), fmt.Sprintf("%s round %d row %d", user, round, i)}); err != nil {
						errs[wi] = errors.Join(err, w.Abort(ctx))
						return
					}
				}
				res, err := w.Commit(ctx)
				if err != nil {
					errs[wi] = err
					return
				}
				stats[wi] = res.Commit
			}()
			for i := 0; i < 10; i++ {
				want[fmt.Sprint(round*100+wi*50+i)] = fmt.Sprintf("%s round %d row %d", user, round, i)
			}
		}
		done.Wait()
		if err := errors.Join(errs...); err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		if stats[0].Conflicts+stats[1].Conflicts == 0 {
			return fmt.Errorf("round %d: both committers published without a conflict: the race did not happen", round)
		}
		conflicts += stats[0].Conflicts + stats[1].Conflicts
		if r := stats[0].Replaced + stats[1].Replaced; r != 0 {
			return fmt.Errorf("round %d: %d published snapshots were replaced: the conditional write did not hold", round, r)
		}
	}
	mgr := snapshot.NewManager(env.fs, path, "main")
	ids, err := mgr.IDs(ctx)
	if err != nil {
		return err
	}
	slices.Sort(ids)
	// One snapshot per id with no gap: each write's APPEND, and the COMPACT snapshots of the
	// compactions the writers ran at commit (the strategy picks once the sorted runs pile up).
	if len(ids) < 2*s3RaceRounds || ids[0] != 1 || ids[len(ids)-1] != int64(len(ids)) {
		return fmt.Errorf("snapshots %v, want exactly one per id 1..n, n >= %d", ids, 2*s3RaceRounds)
	}
	byUser := map[string]int{}
	for _, id := range ids {
		s, err := mgr.Snapshot(ctx, id)
		if err != nil {
			return err
		}
		if s.CommitKind == snapshot.CommitAppend {
			byUser[s.CommitUser]++
		}
	}
	if byUser["racer-a"] != s3RaceRounds || byUser["racer-b"] != s3RaceRounds {
		return fmt.Errorf("APPEND snapshots by committer %v, want %d each", byUser, s3RaceRounds)
	}
	rows, err := javaRead(ctx, g.proc, "s3a://"+strings.TrimPrefix(path, "s3://"))
	if err != nil {
		return err
	}
	got := map[string]any{}
	for _, r := range rows {
		got[fmt.Sprint(r["id"])] = r["content"]
	}
	if d := cmp.Diff(want, got); d != "" {
		return fmt.Errorf("Java reads other rows than both committers wrote (-want +java):\n%s", d)
	}
	report.AddNote(fmt.Sprintf("s3/commit-race: %d rounds, %d snapshots, %d conflicts refused by If-None-Match and re-based", s3RaceRounds, len(ids), conflicts))
	return nil
}

// docS3JavaWritten describes s3/java-written.
const docS3JavaWritten = "on a SeaweedFS warehouse the suite starts itself (see [Tables on S3](s3.md)), Java " +
	"(`s3a://`, Paimon's `HadoopFileIO` over hadoop-aws 3.3.6's S3A) creates a partitioned " +
	"2-bucket table, writes, fully compacts, writes updates and deletes and sets the full-text " +
	"index; Go, through its runner (`configure-s3`, then `maintain` of the `s3://` path: pkft's " +
	"facade with `WithFileSystemOptions`), maintains it: Java's dump of Go's snapshot " +
	"equals Go's, every archive is current by Java's state, Java reads the same rows and Java's" +
	" searches equal Go's. Then Go compacts and maintains it and Java reads exactly the rows " +
	"written."

// docS3GoWritten describes s3/go-written.
const docS3GoWritten = "through its runner (`configure-s3`; `write`, `compact`, `maintain`: pkft's facade with " +
	"`WithFileSystemOptions`), Go writes inserts, updates and deletes into that table in one " +
	"commit, compacts and maintains it: Java reads exactly the model's " +
	"rows, its dump equals Go's with every archive current, its searches equal Go's."

// docS3CommitRace describes s3/commit-race.
const docS3CommitRace = "two Go committers, each with its own S3 client, write into one table in 4 rounds; in each " +
	"both prepare snapshot N+1 and are held until both are ready, then publish at once: " +
	"`If-None-Match: *` gives N+1 to one, the other sees the conflict, re-bases and commits " +
	"N+2. Afterwards there is exactly one snapshot per id 1..8 with no gap, 4 by each " +
	"committer, and Java reads both writers' rows. Go runs in-process: the case holds each " +
	"committer between prepare and publish (`tableops.WithBeforePublish`), a hook injected " +
	"into Go itself."

// docScaleShards describes scale/shards.
const docScaleShards = "a 64-bucket table (compat/bench's generator, 300 rows a bucket) whose every bucket has one" +
	" compacted level without an archive is copied to S3 once per n = 1, 2, 4, 8 and maintained" +
	" by n concurrent `pkft maintain --shard i/n --fs-option ...` processes: every level is " +
	"current by Java's state, Java reads every row it read before, and the buckets the shards " +
	"built are exactly the unsharded plan's, each by the one shard `pkft.ShardOf` names. Wall " +
	"time, commits and retries per n go into the matrix notes (on 2 cores the speed-up stops at" +
	" the cores; the case checks correctness)."

// docS3RangeReads describes s3/range-reads.
const docS3RangeReads = "a one-bucket table of 1,000,000 rows (compat/bench's generated table, each row also " +
	"carrying one of 62,500 marker words, so a marker query is selective) with its archive " +
	"(about 30 MB) built by Go's runner (`maintain`) is put on S3; a search through the facade" +
	" (in-process: its S3 FileIO counts the bytes) for one marker word " +
	"(limit 10), and for either of two (limit 20), reads less than 10% of the archive's bytes, " +
	"counted by the S3 FileIO (every byte its GETs received, read-ahead included; about 8.5% " +
	"now, noted in the matrix)."
