package pkmaintain

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	sorted "github.com/paimon-pkft/pkft/internal/pksorted/maintainer"
	"github.com/paimon-pkft/pkft/internal/testing/pksortedtest"
)

// buildFunc adapts a function to the builders of both families.
type buildFunc func(ctx context.Context, files []*meta.DataFileMeta) (*meta.IndexFileMeta, error)

func (f buildFunc) Build(ctx context.Context, files []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
	return f(ctx, files)
}

// deletions records the index files deleted.
type deletions struct {
	mu    sync.Mutex
	names []string
}

func (d *deletions) DeleteIndexFile(_ context.Context, f *meta.IndexFileMeta) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.names = append(d.names, f.FileName)
	return nil
}

func (d *deletions) list() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.names)
}

func compactAfter(files ...*meta.DataFileMeta) pkindex.CompactIncrement {
	return pkindex.CompactIncrement{CompactAfter: files}
}

func newSorted(t *testing.T, fieldID int32, indexType string, del *deletions, build buildFunc, files []*meta.DataFileMeta, payloads []*meta.IndexFileMeta) *sorted.Maintainer {
	t.Helper()
	m, err := sorted.NewMaintainer(fieldID, indexType, build, del, files, payloads, sorted.WithRetryBackoff(0))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// newFullText is a full-text maintainer (field 1) with no restored files whose builds return an
// archive named name of rows rows over source on level 1.
func newFullText(t *testing.T, del *deletions, name string, rows int64, source *meta.DataFileMeta) *pkfulltext.Maintainer {
	t.Helper()
	ft, err := pkfulltext.NewMaintainer(1, buildFunc(func(context.Context, []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
		return pksortedtest.Payload(t, pkfulltext.IndexType, name, 1, 1, rows, source), nil
	}), del, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ft
}

func names(files []*meta.IndexFileMeta) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.FileName)
	}
	return out
}

// Java testDelegatesFullTextLifecycleAndMergesCommit: the full-text maintainer's archive of a
// compaction's output travels in the compact increment.
func TestDelegatesFullTextLifecycleAndMergesCommit(t *testing.T) {
	ctx := context.Background()
	source := pksortedtest.DataFile("data-1", 1, 1)
	del := &deletions{}
	ft := newFullText(t, del, "payload", 1, source)
	b, err := New(ft, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := b.PrepareCommit(ctx, pkindex.DataIncrement{}, compactAfter(source), true)
	if err != nil {
		t.Fatal(err)
	}
	if c.AppendIncrement != nil || c.CompactIncrement == nil || !slices.Equal(names(c.CompactIncrement.NewIndexFiles), []string{"payload"}) {
		t.Fatalf("commit %+v", c)
	}
	if b.BuildNotCompleted() {
		t.Error("a build is still pending after a waiting prepare")
	}
	if err := b.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestNoDefinition: a coordinator needs a maintainer (Java's factory refuses a schema without
// a primary-key index definition).
func TestNoDefinition(t *testing.T) {
	if _, err := New(nil, nil); err == nil || !strings.Contains(err.Error(), "No primary-key index definition") {
		t.Fatalf("error %v", err)
	}
}

// Java testLaterDefinitionFailureAbortsPreparedFullTextCommit: a sorted definition failing after
// the full-text maintainer prepared its archive aborts that archive.
func TestLaterDefinitionFailureAbortsPreparedFullTextCommit(t *testing.T) {
	ctx := context.Background()
	source := pksortedtest.DataFile("data-1", 3, 1)
	del := &deletions{}
	ft := newFullText(t, del, "archive", 3, source)
	failing := newSorted(t, 8, "bitmap", del, func(context.Context, []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
		return nil, errors.New("expected sorted failure")
	}, nil, nil)
	b, err := New(ft, []*sorted.Maintainer{failing})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.PrepareCommit(ctx, pkindex.DataIncrement{}, compactAfter(source), true)
	if err == nil || !strings.Contains(err.Error(), "expected sorted failure") {
		t.Fatalf("error %v", err)
	}
	if !slices.Contains(del.list(), "archive") {
		t.Errorf("the full-text archive was not deleted by the abort: deleted %v", del.list())
	}
	if len(ft.Payloads()) != 0 {
		t.Errorf("the full-text maintainer kept %v after the abort", names(ft.Payloads()))
	}
}

// Java testScalarFailureAbortsOtherDefinitionsAndVector (without the vector family): the btree
// definition (field 7) is tried first whatever order the maintainers come in, fails all three
// attempts, the bitmap one never builds, and nothing is committed.
func TestScalarFailureAbortsOtherDefinitions(t *testing.T) {
	ctx := context.Background()
	source := pksortedtest.DataFile("data-1", 3, 1)
	del := &deletions{}
	var mu sync.Mutex
	var order []string
	record := func(s string) {
		mu.Lock()
		order = append(order, s)
		mu.Unlock()
	}
	btree := newSorted(t, 7, "btree", del, func(context.Context, []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
		record("btree")
		return nil, errors.New("expected BTree failure")
	}, nil, nil)
	bitmap := newSorted(t, 8, "bitmap", del, func(context.Context, []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
		record("bitmap")
		return pksortedtest.Payload(t, "bitmap", "bitmap", 8, 1, 3, source), nil
	}, nil, nil)
	b, err := New(nil, []*sorted.Maintainer{bitmap, btree})
	if err != nil {
		t.Fatal(err)
	}
	c, err := b.PrepareCommit(ctx, pkindex.DataIncrement{}, compactAfter(source), true)
	if err == nil || !strings.Contains(err.Error(), "expected BTree failure") || c != nil {
		t.Fatalf("commit %v, error %v", c, err)
	}
	if !slices.Equal(order, []string{"btree", "btree", "btree"}) {
		t.Errorf("build order %v", order)
	}
	if b.BuildNotCompleted() {
		t.Error("a build is pending after the failure")
	}
}

// Java testScalarDefinitionsNeverBuildConcurrently: without wait, one sorted definition builds
// at a time; the next starts only once the running one is accepted.
func TestScalarDefinitionsNeverBuildConcurrently(t *testing.T) {
	ctx := context.Background()
	source := pksortedtest.DataFile("data-1", 3, 1)
	del := &deletions{}
	var active, peak atomic.Int32
	enter := func() {
		n := active.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				return
			}
		}
	}
	firstStarted, releaseFirst, secondStarted := make(chan struct{}), make(chan struct{}), make(chan struct{})
	first := newSorted(t, 7, "btree", del, func(context.Context, []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
		enter()
		close(firstStarted)
		<-releaseFirst
		active.Add(-1)
		return pksortedtest.Payload(t, "btree", "btree", 7, 1, 3, source), nil
	}, nil, nil)
	second := newSorted(t, 8, "bitmap", del, func(context.Context, []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
		enter()
		close(secondStarted)
		active.Add(-1)
		return pksortedtest.Payload(t, "bitmap", "bitmap", 8, 1, 3, source), nil
	}, nil, nil)
	b, err := New(nil, []*sorted.Maintainer{second, first})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.PrepareCommit(ctx, pkindex.DataIncrement{}, compactAfter(source), false); err != nil {
		t.Fatal(err)
	}
	select {
	case <-firstStarted:
	case <-time.After(5 * time.Second):
		t.Fatal("the first build did not start")
	}
	select {
	case <-secondStarted:
		t.Fatal("the second build started while the first runs")
	default:
	}
	if !b.BuildNotCompleted() {
		t.Error("no build reported running")
	}
	close(releaseFirst)
	deadline := time.Now().Add(5 * time.Second)
	started := false
	for !started && time.Now().Before(deadline) {
		if _, err := b.PrepareCommit(ctx, pkindex.DataIncrement{}, pkindex.CompactIncrement{}, false); err != nil {
			t.Fatal(err)
		}
		select {
		case <-secondStarted:
			started = true
		case <-time.After(10 * time.Millisecond):
		}
	}
	if !started {
		t.Fatal("the second build never started")
	}
	if _, err := b.PrepareCommit(ctx, pkindex.DataIncrement{}, pkindex.CompactIncrement{}, true); err != nil {
		t.Fatal(err)
	}
	if peak.Load() != 1 {
		t.Errorf("peak concurrent builds %d, want 1", peak.Load())
	}
	if b.BuildNotCompleted() {
		t.Error("a build is pending after a waiting prepare")
	}
}

// Java testNonBlockingCoordinatorStartsCoveredFanoutMaintenance: two restored payloads on one
// level are rejected, and a non-waiting prepare starts the rebuild.
func TestNonBlockingCoordinatorStartsCoveredFanoutMaintenance(t *testing.T) {
	ctx := context.Background()
	a, bf := pksortedtest.DataFile("data-a", 3, 1), pksortedtest.DataFile("data-b", 3, 1)
	pa := pksortedtest.Payload(t, "btree", "index-a", 7, 1, 3, a)
	pb := pksortedtest.Payload(t, "btree", "index-b", 7, 1, 3, bf)
	started, release := make(chan struct{}), make(chan struct{})
	m := newSorted(t, 7, "btree", &deletions{}, func(context.Context, []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
		close(started)
		<-release
		return pksortedtest.Payload(t, "btree", "index-ab", 7, 1, 6, a, bf), nil
	}, []*meta.DataFileMeta{a, bf}, []*meta.IndexFileMeta{pa, pb})
	b, err := New(nil, []*sorted.Maintainer{m})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.PrepareCommit(ctx, pkindex.DataIncrement{}, pkindex.CompactIncrement{}, false); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(time.Second):
		t.Error("the rebuild did not start")
	}
	close(release)
	if err := b.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// Java testBlockingPrepareRollsBackAllDefinitionsAfterInterruption (a cancelled context for
// Java's interrupt): a waiting prepare cancelled while the bitmap build runs rolls back the
// btree payload it already accepted; the retry builds both again, btree first.
func TestBlockingPrepareRollsBackAllDefinitionsAfterCancellation(t *testing.T) {
	source := pksortedtest.DataFile("data-1", 3, 1)
	del := &deletions{}
	var firstBuilds, secondBuilds atomic.Int32
	secondStarted := make(chan struct{})
	first := newSorted(t, 7, "btree", del, func(context.Context, []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
		n := firstBuilds.Add(1)
		return pksortedtest.Payload(t, "btree", "btree-"+string(rune('0'+n)), 7, 1, 3, source), nil
	}, nil, nil)
	second := newSorted(t, 8, "bitmap", del, func(ctx context.Context, _ []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
		n := secondBuilds.Add(1)
		if n == 1 {
			close(secondStarted)
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return pksortedtest.Payload(t, "bitmap", "bitmap-"+string(rune('0'+n)), 8, 1, 3, source), nil
	}, nil, nil)
	b, err := New(nil, []*sorted.Maintainer{second, first})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := b.PrepareCommit(ctx, pkindex.DataIncrement{}, compactAfter(source), true)
		done <- err
	}()
	select {
	case <-secondStarted:
	case <-time.After(5 * time.Second):
		t.Fatal("the bitmap build did not start")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want cancellation", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled prepare did not return")
	}
	if len(first.Groups()) != 0 || len(second.Groups()) != 0 {
		t.Errorf("groups after the rollback: btree %v, bitmap %v", first.Groups(), second.Groups())
	}
	if !slices.Contains(del.list(), "btree-1") {
		t.Errorf("the rolled-back btree payload was not deleted: %v", del.list())
	}
	c, err := b.PrepareCommit(context.Background(), pkindex.DataIncrement{}, compactAfter(source), true)
	if err != nil {
		t.Fatal(err)
	}
	if firstBuilds.Load() != 2 || secondBuilds.Load() != 2 {
		t.Errorf("builds: btree %d, bitmap %d, want 2 each", firstBuilds.Load(), secondBuilds.Load())
	}
	if c.CompactIncrement == nil || !slices.Equal(names(c.CompactIncrement.NewIndexFiles), []string{"btree-2", "bitmap-2"}) {
		t.Errorf("retry commit %+v", c)
	}
}

// TestMergeOrderAndAbortOrder: the merged increments list the full-text changes first, then each
// sorted definition's by field id, and Abort undoes every family.
func TestMergeOrderAndAbortOrder(t *testing.T) {
	ctx := context.Background()
	source := pksortedtest.DataFile("data-1", 3, 1)
	del := &deletions{}
	ft := newFullText(t, del, "archive", 3, source)
	mk := func(field int32, typ string) *sorted.Maintainer {
		return newSorted(t, field, typ, del, func(context.Context, []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
			return pksortedtest.Payload(t, typ, typ+"-payload", field, 1, 3, source), nil
		}, nil, nil)
	}
	b, err := New(ft, []*sorted.Maintainer{mk(9, "bitmap"), mk(3, "btree")})
	if err != nil {
		t.Fatal(err)
	}
	c, err := b.PrepareCommit(ctx, pkindex.DataIncrement{}, compactAfter(source), true)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(c.CompactIncrement.NewIndexFiles); !slices.Equal(got, []string{"archive", "btree-payload", "bitmap-payload"}) {
		t.Fatalf("merged new files %v", got)
	}
	if got := names(b.Payloads()); !slices.Equal(got, []string{"archive", "btree-payload", "bitmap-payload"}) {
		t.Errorf("payloads %v", got)
	}
	if err := c.Abort(ctx); err != nil {
		t.Fatal(err)
	}
	if got := del.list(); !slices.Equal(got, []string{"bitmap-payload", "btree-payload", "archive"}) {
		t.Errorf("abort deleted %v, want the sorted payloads (last first) then the archive", got)
	}
	if len(b.Payloads()) != 0 {
		t.Errorf("payloads after abort %v", names(b.Payloads()))
	}
}
