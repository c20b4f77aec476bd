package pkfulltext

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkindex"
)

// --- Ports of BucketedFullTextIndexMaintainerTest (release-2.0.0) ---

func TestMaintainer_ReplacesArchiveWithCompactSourceWithoutMergingArchives(t *testing.T) {
	oldData, newData := mntDataFile("old-data"), mntDataFile("new-data")
	oldPayload := mntPayload(t, "old-payload", oldData)
	newPayload := mntPayload(t, "new-payload", newData)
	builder := scripted(returns(newPayload))
	m := mntRestore(t, builder, &recordingDeleter{}, []*meta.DataFileMeta{oldData}, []*meta.IndexFileMeta{oldPayload})

	commit, err := m.PrepareCommit(mntCtx(t), DataIncrement{},
		CompactIncrement{CompactBefore: []*meta.DataFileMeta{oldData}, CompactAfter: []*meta.DataFileMeta{newData}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if commit.CompactIncrement == nil || commit.AppendIncrement != nil {
		t.Fatalf("commit = %+v, want a compact increment only", commit)
	}
	wantPayloads(t, "new", commit.CompactIncrement.NewIndexFiles, newPayload)
	wantPayloads(t, "deleted", commit.CompactIncrement.DeletedIndexFiles, oldPayload)
	wantCoveredSources(t, m, "new-data")
	builder.wantCalls(t, "new-data")
}

func TestMaintainer_RebuildsDuplicateLevelArchivesAsCompleteLevel(t *testing.T) {
	first, second := mntDataFile("data-1"), mntDataFile("data-2")
	firstPayload := mntPayload(t, "payload-1", first)
	secondPayload := mntPayload(t, "payload-2", second)
	merged := mntPayload(t, "merged", first, second)
	builder := scripted(returns(merged))
	m := mntRestore(t, builder, &recordingDeleter{}, []*meta.DataFileMeta{first, second},
		[]*meta.IndexFileMeta{firstPayload, secondPayload})

	commit, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if commit.AppendIncrement == nil || commit.CompactIncrement != nil {
		t.Fatalf("commit = %+v, want an append increment only", commit)
	}
	wantPayloads(t, "new", commit.AppendIncrement.NewIndexFiles, merged)
	wantPayloads(t, "deleted", commit.AppendIncrement.DeletedIndexFiles, firstPayload, secondPayload)
	wantCoveredSources(t, m, "data-1", "data-2")
	wantPayloads(t, "payloads", m.Payloads(), merged)
	builder.wantCalls(t, "data-1,data-2")
}

func TestMaintainer_RebuildsArchiveAtConfiguredStaleRatio(t *testing.T) {
	active, removed := mntDataFile("active"), mntDataFile("removed")
	oldPayload := mntPayload(t, "old-payload", active, removed)
	rebuilt := mntPayload(t, "rebuilt", active)
	builder := scripted(returns(rebuilt))
	m := mntRestore(t, builder, &recordingDeleter{}, []*meta.DataFileMeta{active}, []*meta.IndexFileMeta{oldPayload})

	commit, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if commit.AppendIncrement == nil {
		t.Fatal("no append increment")
	}
	wantPayloads(t, "new", commit.AppendIncrement.NewIndexFiles, rebuilt)
	wantPayloads(t, "deleted", commit.AppendIncrement.DeletedIndexFiles, oldPayload)
	wantPayloads(t, "payloads", m.Payloads(), rebuilt)
	builder.wantCalls(t, "active")
}

func TestMaintainer_RetriesBuildAfterFailure(t *testing.T) {
	data := mntDataFile("data")
	newPayload := mntPayload(t, "new-payload", data)
	builder := scripted(fails(errors.New("first failure")), returns(newPayload))
	m := mntRestore(t, builder, &recordingDeleter{}, []*meta.DataFileMeta{data}, nil)

	_, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{}, true)
	wantError(t, err, "first failure")

	commit, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if commit.AppendIncrement == nil {
		t.Fatal("no append increment")
	}
	wantPayloads(t, "new", commit.AppendIncrement.NewIndexFiles, newPayload)
	wantPayloads(t, "deleted", commit.AppendIncrement.DeletedIndexFiles)
	builder.wantCalls(t, "data", "data")
}

func TestMaintainer_NonBlockingBuildPublishesOnALaterAppendIncrement(t *testing.T) {
	data := mntDataFile("data")
	payload := mntPayload(t, "payload", data)
	started, allow := make(chan struct{}), make(chan struct{})
	builder := scripted(func(ctx context.Context, _ []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
		close(started)
		select {
		case <-allow:
			return payload, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	m := mntRestore(t, builder, &recordingDeleter{}, nil, nil)
	defer func() { _ = m.Close(context.Background()) }()

	first, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{CompactAfter: []*meta.DataFileMeta{data}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if first.CompactIncrement != nil || first.AppendIncrement != nil {
		t.Fatalf("first commit = %+v, want no changes", first)
	}
	mntAwait(t, started, "build start")
	if !m.BuildNotCompleted() {
		t.Fatal("BuildNotCompleted = false during the build")
	}
	close(allow)

	second, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if second.AppendIncrement == nil {
		t.Fatal("no append increment")
	}
	wantPayloads(t, "new", second.AppendIncrement.NewIndexFiles, payload)
	if m.BuildNotCompleted() {
		t.Fatal("BuildNotCompleted = true after publishing")
	}
}

func TestMaintainer_CoordinatorAbortRestoresStateAndDeletesGeneratedArchive(t *testing.T) {
	data := mntDataFile("data")
	payload := mntPayload(t, "payload", data)
	deleter := &recordingDeleter{}
	m := mntRestore(t, scripted(returns(payload)), deleter, nil, nil)

	commit, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{CompactAfter: []*meta.DataFileMeta{data}}, true)
	if err != nil {
		t.Fatal(err)
	}
	wantPayloads(t, "payloads", m.Payloads(), payload)

	if err := commit.Abort(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantPayloads(t, "payloads", m.Payloads())
	deleter.wantDeleted(t, "payload")
}

func TestMaintainer_AbortDoesNotDeleteRejectedArchiveTwice(t *testing.T) {
	data := mntDataFile("data")
	rejected := mntPayload(t, "rejected", mntDataFile("other"))
	accepted := mntPayload(t, "accepted", data)
	deleter := &recordingDeleter{}
	m := mntRestore(t, scripted(returns(rejected), returns(accepted)), deleter, nil, nil)

	commit, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{CompactAfter: []*meta.DataFileMeta{data}}, true)
	if err != nil {
		t.Fatal(err)
	}
	deleter.wantDeleted(t, "rejected")

	if err := commit.Abort(context.Background()); err != nil {
		t.Fatal(err)
	}
	deleter.wantDeleted(t, "rejected", "accepted")
}

// --- Further behaviour read from the Java source ---

func TestMaintainerRemovesArchiveOfEmptiedLevelWithoutBuilding(t *testing.T) {
	data := mntDataFile("data")
	payload := mntPayload(t, "payload", data)
	builder := scripted(fails(errors.New("must not build")))
	m := mntRestore(t, builder, &recordingDeleter{}, []*meta.DataFileMeta{data}, []*meta.IndexFileMeta{payload})

	// A compaction that only removes files still routes to the compact snapshot.
	commit, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{CompactBefore: []*meta.DataFileMeta{data}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if commit.CompactIncrement == nil || commit.AppendIncrement != nil {
		t.Fatalf("commit = %+v, want a compact increment only", commit)
	}
	wantPayloads(t, "new", commit.CompactIncrement.NewIndexFiles)
	wantPayloads(t, "deleted", commit.CompactIncrement.DeletedIndexFiles, payload)
	wantPayloads(t, "payloads", m.Payloads())
	builder.wantCalls(t)
}

// TestMaintainerRemovesEmptiedLevelThenBuildsAnother: in one blocking call, the archive of a
// level compaction emptied is removed and the level its files moved to is built, not left for a
// later call.
func TestMaintainerRemovesEmptiedLevelThenBuildsAnother(t *testing.T) {
	old, moved := mntDataFileAt("data-old", 2, 1), mntDataFileAt("data-moved", 2, 2)
	oldPayload := mntPayload(t, "old-payload", old)
	newPayload := mntPayload(t, "new-payload", moved)
	builder := scripted(returns(newPayload))
	m := mntRestore(t, builder, &recordingDeleter{}, []*meta.DataFileMeta{old}, []*meta.IndexFileMeta{oldPayload})

	commit, err := m.PrepareCommit(mntCtx(t), DataIncrement{},
		CompactIncrement{CompactBefore: []*meta.DataFileMeta{old}, CompactAfter: []*meta.DataFileMeta{moved}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if commit.CompactIncrement == nil {
		t.Fatalf("commit = %+v, want a compact increment", commit)
	}
	wantPayloads(t, "new", commit.CompactIncrement.NewIndexFiles, newPayload)
	wantPayloads(t, "deleted", commit.CompactIncrement.DeletedIndexFiles, oldPayload)
	wantPayloads(t, "payloads", m.Payloads(), newPayload)
	builder.wantCalls(t, "data-moved")
}

// TestCommitAbortWithoutChanges: aborting a commit that generated nothing (or no commit) is a no-op.
func TestCommitAbortWithoutChanges(t *testing.T) {
	var none *Commit
	if err := none.Abort(mntCtx(t)); err != nil {
		t.Fatalf("abort of no commit: %v", err)
	}
	if err := (&Commit{}).Abort(mntCtx(t)); err != nil {
		t.Fatalf("abort of an empty commit: %v", err)
	}
}

func TestMaintainerKeepsFilesThatCompactionReAdds(t *testing.T) {
	data := mntDataFile("data")
	payload := mntPayload(t, "payload", data)
	appended := meta.FileSourceAppend
	upgraded := &meta.DataFileMeta{FileName: "data", RowCount: 1, Level: 2, FileSource: &appended}
	m := mntRestore(t, scripted(fails(errors.New("must not build"))), &recordingDeleter{},
		[]*meta.DataFileMeta{data}, []*meta.IndexFileMeta{payload})

	// compactBefore names a file compactAfter re-adds as a non-source: Java leaves the old
	// active entry untouched, so the archive stays current.
	commit, err := m.PrepareCommit(mntCtx(t), DataIncrement{},
		CompactIncrement{CompactBefore: []*meta.DataFileMeta{data}, CompactAfter: []*meta.DataFileMeta{upgraded}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if commit.AppendIncrement != nil || commit.CompactIncrement != nil {
		t.Fatalf("commit = %+v, want no changes", commit)
	}
	wantPayloads(t, "payloads", m.Payloads(), payload)
}

func TestMaintainerRejectsEligibleAppendFiles(t *testing.T) {
	m := mntRestore(t, scripted(), &recordingDeleter{}, nil, nil)
	_, err := m.PrepareCommit(mntCtx(t), DataIncrement{NewFiles: []*meta.DataFileMeta{mntDataFile("data")}}, CompactIncrement{}, true)
	wantError(t, err, "append files must not be primary-key full-text index sources")

	appended := meta.FileSourceAppend
	level0 := &meta.DataFileMeta{FileName: "l0", RowCount: 1, FileSource: &appended}
	if _, err := m.PrepareCommit(mntCtx(t), DataIncrement{NewFiles: []*meta.DataFileMeta{level0}}, CompactIncrement{}, true); err != nil {
		t.Fatal(err)
	}
	_, err = m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{CompactAfter: []*meta.DataFileMeta{nil}}, true)
	wantError(t, err, "nil data file")
}

func TestMaintainerRetiredPayloadsLeaveInFirstCommit(t *testing.T) {
	data := mntDataFile("data")
	current := mntPayload(t, "current", data)
	stale := mntPayload(t, "stale", mntDataFile("gone"))
	m := mntRestore(t, scripted(), &recordingDeleter{}, []*meta.DataFileMeta{data}, []*meta.IndexFileMeta{stale, current})

	commit, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if commit.AppendIncrement == nil {
		t.Fatal("no append increment")
	}
	wantPayloads(t, "deleted", commit.AppendIncrement.DeletedIndexFiles, stale)
	commit, err = m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{}, false)
	if err != nil || commit.AppendIncrement != nil {
		t.Fatalf("second commit = %+v, %v; want no changes", commit, err)
	}
}

func TestMaintainerRestoreWithCorruptPayloads(t *testing.T) {
	a, b, c := mntDataFileAt("a", 2, 1), mntDataFileAt("b", 3, 1), mntDataFileAt("c", 4, 2)
	good := mntPayload(t, "good", c)
	wrongRows := mntPayload(t, "wrong-rows", a, b)
	wrongRows.RowCount = 4
	twoOnLevelX := mntPayload(t, "x", a, b)
	twoOnLevelY := mntPayload(t, "y", a, b)
	otherField := mntPayload(t, "other-field", c)
	otherField.GlobalIndex.IndexFieldID = 8
	unparsable := mntPayload(t, "unparsable", c)
	unparsable.GlobalIndex.SourceMeta = []byte("not a source meta")
	removedFile := mntPayload(t, "removed-file", a, mntDataFileAt("removed", 3, 1))
	mixing := mntPayload(t, "mixing", a, b, c)

	rebuilt := mntPayload(t, "rebuilt", a, b)
	builder := scripted(returns(rebuilt))
	m := mntRestore(t, builder, &recordingDeleter{}, []*meta.DataFileMeta{c, b, a},
		[]*meta.IndexFileMeta{wrongRows, twoOnLevelX, good, otherField, unparsable, removedFile, mixing, twoOnLevelY})

	wantPayloads(t, "restored payloads", m.Payloads(), good)
	commit, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{}, true)
	if err != nil {
		t.Fatal(err)
	}
	// Stale in input order, then the contested level-1 candidates; then the rebuild of level 1.
	wantPayloads(t, "deleted", commit.AppendIncrement.DeletedIndexFiles,
		wrongRows, otherField, unparsable, removedFile, mixing, twoOnLevelX, twoOnLevelY)
	wantPayloads(t, "new", commit.AppendIncrement.NewIndexFiles, rebuilt)
	wantPayloads(t, "payloads", m.Payloads(), good, rebuilt)
	builder.wantCalls(t, "a,b")
}

func TestMaintainerRestoreErrors(t *testing.T) {
	if _, err := NewMaintainer(7, nil, &recordingDeleter{}, nil, nil); err == nil {
		t.Error("nil builder accepted")
	}
	if _, err := NewMaintainer(7, scripted(), &recordingDeleter{}, []*meta.DataFileMeta{nil}, nil); err == nil {
		t.Error("nil data file accepted")
	}
	if _, err := NewMaintainer(7, scripted(), &recordingDeleter{}, nil, []*meta.IndexFileMeta{nil}); err == nil {
		t.Error("nil payload accepted")
	}
}

func TestMaintainerRejectsOutputForOtherLevelOrField(t *testing.T) {
	data := mntDataFile("data")
	wrongField := mntPayload(t, "wrong-field", data)
	wrongField.GlobalIndex.IndexFieldID = 8
	wrongRows := mntPayload(t, "wrong-rows", data)
	wrongRows.RowCount = 2
	accepted := mntPayload(t, "accepted", data)
	deleter := &recordingDeleter{}
	builder := scripted(returns(wrongField), returns(wrongRows), returns(accepted))
	m := mntRestore(t, builder, deleter, []*meta.DataFileMeta{data}, nil)

	commit, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{}, true)
	if err != nil {
		t.Fatal(err)
	}
	wantPayloads(t, "new", commit.AppendIncrement.NewIndexFiles, accepted)
	deleter.wantDeleted(t, "wrong-field", "wrong-rows")
	builder.wantCalls(t, "data", "data", "data")
}

// TestMaintainerRejectsOutputListingSourcesInAnotherOrder: an archive over the planned files
// must list them in the planned order (archive row ids follow it); one listing the same files,
// of the same row counts, in another order is rejected and deleted.
func TestMaintainerRejectsOutputListingSourcesInAnotherOrder(t *testing.T) {
	a, b := mntDataFileAt("data-a", 2, 1), mntDataFileAt("data-b", 2, 1)
	swapped := mntPayload(t, "swapped", b, a)
	accepted := mntPayload(t, "accepted", a, b)
	deleter := &recordingDeleter{}
	builder := scripted(returns(swapped), returns(accepted))
	m := mntRestore(t, builder, deleter, []*meta.DataFileMeta{a, b}, nil)

	commit, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{}, true)
	if err != nil {
		t.Fatal(err)
	}
	wantPayloads(t, "new", commit.AppendIncrement.NewIndexFiles, accepted)
	deleter.wantDeleted(t, "swapped")
	builder.wantCalls(t, "data-a,data-b", "data-a,data-b")
}

func TestMaintainerDiscardsBuildOvertakenByCompaction(t *testing.T) {
	oldData, newData := mntDataFile("old"), mntDataFile("new")
	oldArchive, newArchive := mntPayload(t, "old-archive", oldData), mntPayload(t, "new-archive", newData)
	allow := make(chan struct{})
	builder := scripted(
		func(ctx context.Context, _ []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
			<-allow
			return oldArchive, nil
		},
		returns(newArchive))
	deleter := &recordingDeleter{}
	m := mntRestore(t, builder, deleter, nil, nil)

	if _, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{CompactAfter: []*meta.DataFileMeta{oldData}}, false); err != nil {
		t.Fatal(err)
	}
	close(allow)
	commit, err := m.PrepareCommit(mntCtx(t), DataIncrement{},
		CompactIncrement{CompactBefore: []*meta.DataFileMeta{oldData}, CompactAfter: []*meta.DataFileMeta{newData}}, true)
	if err != nil {
		t.Fatal(err)
	}
	deleter.wantDeleted(t, "old-archive")
	wantPayloads(t, "new", commit.CompactIncrement.NewIndexFiles, newArchive)
	wantPayloads(t, "deleted", commit.CompactIncrement.DeletedIndexFiles)
	builder.wantCalls(t, "old", "new")
}

// --- Behaviour Java leaves untested ---

func TestMaintainerCancellationDuringBuild(t *testing.T) {
	oldData, newData := mntDataFile("old-data"), mntDataFile("new-data")
	oldPayload := mntPayload(t, "old-payload", oldData)
	late := mntPayload(t, "late", newData)
	started := make(chan struct{})
	sawCancel := make(chan struct{})
	builder := scripted(func(ctx context.Context, _ []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
		close(started)
		<-ctx.Done()
		close(sawCancel)
		return late, nil // finished writing anyway
	}, returns(mntPayload(t, "retried", newData)))
	deleter := &recordingDeleter{}
	m := mntRestore(t, builder, deleter, []*meta.DataFileMeta{oldData}, []*meta.IndexFileMeta{oldPayload})

	ctx, cancel := context.WithCancel(mntCtx(t))
	go func() {
		<-started
		cancel()
	}()
	compact := CompactIncrement{CompactBefore: []*meta.DataFileMeta{oldData}, CompactAfter: []*meta.DataFileMeta{newData}}
	_, err := m.PrepareCommit(ctx, DataIncrement{}, compact, true)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	mntAwait(t, sawCancel, "builder cancellation")
	deleter.awaitDeleted(t, "late")
	if m.BuildNotCompleted() {
		t.Fatal("build still pending after a failed call")
	}
	wantPayloads(t, "payloads", m.Payloads(), oldPayload)
	wantCoveredSources(t, m, "old-data")

	commit, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, compact, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := payloadNames(commit.CompactIncrement.NewIndexFiles); !slices.Equal(got, []string{"retried"}) {
		t.Fatalf("new = %v", got)
	}
}

func TestMaintainerCloseDeletesPendingOutput(t *testing.T) {
	data := mntDataFile("data")
	t.Run("build running", func(t *testing.T) {
		payload := mntPayload(t, "running", data)
		started := make(chan struct{})
		deleter := &recordingDeleter{}
		m := mntRestore(t, scripted(func(ctx context.Context, _ []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
			close(started)
			<-ctx.Done()
			return payload, nil
		}), deleter, []*meta.DataFileMeta{data}, nil)
		if _, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{}, false); err != nil {
			t.Fatal(err)
		}
		mntAwait(t, started, "build start")
		if err := m.Close(mntCtx(t)); err != nil {
			t.Fatal(err)
		}
		deleter.wantDeleted(t, "running")
		if m.BuildNotCompleted() {
			t.Fatal("build pending after Close")
		}
	})
	t.Run("build finished", func(t *testing.T) {
		payload := mntPayload(t, "finished", data)
		deleter := &recordingDeleter{}
		m := mntRestore(t, scripted(returns(payload)), deleter, []*meta.DataFileMeta{data}, nil)
		if _, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{}, false); err != nil {
			t.Fatal(err)
		}
		m.mu.Lock()
		done := m.pending.Done()
		m.mu.Unlock()
		mntAwait(t, done, "build end")
		if err := m.Close(mntCtx(t)); err != nil {
			t.Fatal(err)
		}
		deleter.wantDeleted(t, "finished")
		if err := m.Close(mntCtx(t)); err != nil {
			t.Fatal(err)
		}
		deleter.wantDeleted(t, "finished")
	})
	t.Run("delete failure reported", func(t *testing.T) {
		payload := mntPayload(t, "undeletable", data)
		deleter := &recordingDeleter{fail: errors.New("disk gone")}
		m := mntRestore(t, scripted(func(ctx context.Context, _ []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
			<-ctx.Done()
			return payload, nil
		}), deleter, []*meta.DataFileMeta{data}, nil)
		if _, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{}, false); err != nil {
			t.Fatal(err)
		}
		wantError(t, m.Close(mntCtx(t)), "undeletable", "disk gone")
	})
}

func TestMaintainerPartiallyWrittenFailedBuild(t *testing.T) {
	oldData, newData := mntDataFile("old-data"), mntDataFile("new-data")
	oldPayload := mntPayload(t, "old-payload", oldData)
	compact := CompactIncrement{CompactBefore: []*meta.DataFileMeta{oldData}, CompactAfter: []*meta.DataFileMeta{newData}}

	t.Run("builder hands back its partial file", func(t *testing.T) {
		store := &fakeStore{}
		partial := mntPayload(t, "partial", newData)
		builder := scripted(func(context.Context, []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
			store.write(partial.FileName)
			return partial, errors.New("engine crashed mid-write")
		})
		m := mntRestore(t, builder, store, []*meta.DataFileMeta{oldData}, []*meta.IndexFileMeta{oldPayload})
		_, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, compact, true)
		wantError(t, err, "engine crashed mid-write")
		store.wantFiles(t)
		wantPayloads(t, "payloads", m.Payloads(), oldPayload)
		wantCoveredSources(t, m, "old-data")
	})
	t.Run("builder cleans up itself", func(t *testing.T) {
		store := &fakeStore{}
		builder := scripted(func(context.Context, []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
			store.write("partial")
			_ = store.DeleteIndexFile(context.Background(), &meta.IndexFileMeta{FileName: "partial"})
			return nil, errors.New("engine crashed mid-write")
		})
		m := mntRestore(t, builder, store, []*meta.DataFileMeta{oldData}, []*meta.IndexFileMeta{oldPayload})
		_, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, compact, true)
		wantError(t, err, "engine crashed mid-write")
		store.wantFiles(t)
		wantPayloads(t, "payloads", m.Payloads(), oldPayload)
	})
	t.Run("failure after an accepted level deletes it", func(t *testing.T) {
		store := &fakeStore{}
		l1, l2 := mntDataFileAt("l1", 1, 1), mntDataFileAt("l2", 1, 2)
		first := mntPayload(t, "first", l1)
		builder := scripted(func(context.Context, []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
			store.write("first")
			return first, nil
		}, func(context.Context, []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
			return nil, errors.New("second level failed")
		})
		m := mntRestore(t, builder, store, []*meta.DataFileMeta{l1, l2}, nil)
		_, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{}, true)
		wantError(t, err, "second level failed", "data level 2")
		store.wantFiles(t)
		wantPayloads(t, "payloads", m.Payloads())
	})
	t.Run("panicking builder", func(t *testing.T) {
		m := mntRestore(t, scripted(func(context.Context, []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
			panic("boom")
		}), &recordingDeleter{}, []*meta.DataFileMeta{newData}, nil)
		_, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{}, true)
		wantError(t, err, "panicked", "boom")
	})
	t.Run("builder returning nothing", func(t *testing.T) {
		m := mntRestore(t, scripted(returns(nil)), &recordingDeleter{}, []*meta.DataFileMeta{newData}, nil)
		_, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{}, true)
		wantError(t, err, "returned no payload")
	})
}

func TestMaintainerAbortAfterNonBlockingCall(t *testing.T) {
	data := mntDataFile("data")
	stale := mntPayload(t, "stale", mntDataFile("gone"))
	started := make(chan struct{})
	payload := mntPayload(t, "in-flight", data)
	deleter := &recordingDeleter{}
	m := mntRestore(t, scripted(func(ctx context.Context, _ []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
		close(started)
		<-ctx.Done()
		return payload, nil
	}, returns(mntPayload(t, "second", data))), deleter, []*meta.DataFileMeta{data}, []*meta.IndexFileMeta{stale})

	commit, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{}, false)
	if err != nil {
		t.Fatal(err)
	}
	wantPayloads(t, "deleted", commit.AppendIncrement.DeletedIndexFiles, stale)
	mntAwait(t, started, "build start")

	if err := commit.Abort(context.Background()); err != nil {
		t.Fatal(err)
	}
	if m.BuildNotCompleted() {
		t.Fatal("build pending after abort")
	}
	deleter.awaitDeleted(t, "in-flight")

	// The retired payload is retired again and leaves with the next commit.
	commit, err = m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{}, true)
	if err != nil {
		t.Fatal(err)
	}
	wantPayloads(t, "deleted", commit.AppendIncrement.DeletedIndexFiles, stale)
	if got := payloadNames(commit.AppendIncrement.NewIndexFiles); !slices.Equal(got, []string{"second"}) {
		t.Fatalf("new = %v", got)
	}
}

func TestMaintainerWaitingEndsWithContextWhenOutputIsAlwaysRejected(t *testing.T) {
	// Java retries a rejected build for as long as the call waits; ctx is the way out.
	data := mntDataFile("data")
	deleter := &recordingDeleter{}
	var n int
	var mu sync.Mutex
	builder := scripted(func(context.Context, []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
		mu.Lock()
		defer mu.Unlock()
		n++
		return mntPayload(t, fmt.Sprintf("rejected-%d", n), mntDataFile("other")), nil
	})
	m := mntRestore(t, builder, deleter, []*meta.DataFileMeta{data}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := m.PrepareCommit(ctx, DataIncrement{}, CompactIncrement{}, true)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
	if m.BuildNotCompleted() {
		t.Fatal("build pending after a failed call")
	}
	// The last build may still be deleting its own output after cancellation.
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		built := n
		mu.Unlock()
		deleted := deleter.names()
		if len(deleted) == built && len(slices.Compact(slices.Sorted(slices.Values(deleted)))) == built {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("deleted %q after %d builds, want each rejected archive once", deleted, built)
		}
		time.Sleep(time.Millisecond)
	}
	wantPayloads(t, "payloads", m.Payloads())
}

func TestMaintainerConcurrentCallers(t *testing.T) {
	var active []*meta.DataFileMeta
	for level := int32(1); level <= 4; level++ {
		active = append(active, mntDataFileAt(fmt.Sprintf("data-%d-a", level), 2, level),
			mntDataFileAt(fmt.Sprintf("data-%d-b", level), 3, level))
	}
	builder := &deterministicBuilder{t: t}
	deleter := &recordingDeleter{}
	m := mntRestore(t, builder, deleter, active, nil)

	var wg sync.WaitGroup
	commits := make(chan *Commit, 64)
	for i := range 8 {
		wg.Go(func() {
			for j := range 4 {
				c, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{}, (i+j)%3 == 0)
				if err != nil {
					t.Error(err)
					return
				}
				commits <- c
				_ = m.BuildNotCompleted()
				_ = m.Payloads()
				if _, err := m.State(); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	final, err := m.PrepareCommit(mntCtx(t), DataIncrement{}, CompactIncrement{}, true)
	if err != nil {
		t.Fatal(err)
	}
	commits <- final
	close(commits)

	published := map[string]int{}
	for c := range commits {
		if c.CompactIncrement != nil {
			t.Fatal("compact increment without a compact transition")
		}
		if c.AppendIncrement == nil {
			continue
		}
		for _, p := range c.AppendIncrement.NewIndexFiles {
			published[p.FileName]++
		}
		for _, p := range c.AppendIncrement.DeletedIndexFiles {
			published[p.FileName]--
		}
	}
	state, err := m.State()
	if err != nil {
		t.Fatal(err)
	}
	if len(state.CurrentPayloads()) != 4 || len(state.StalePayloads()) != 0 || len(state.PayloadBySourceFile()) != 8 {
		t.Fatalf("final state: current %v, stale %v", payloadNames(state.CurrentPayloads()), payloadNames(state.StalePayloads()))
	}
	for _, p := range m.Payloads() {
		if published[p.FileName] != 1 {
			t.Fatalf("payload %s published %d times", p.FileName, published[p.FileName])
		}
		delete(published, p.FileName)
	}
	for name, n := range published {
		if n != 0 {
			t.Fatalf("payload %s net published %d times but not current", name, n)
		}
	}
	if got := len(deleter.names()); got != 0 {
		t.Fatalf("deleted %v, want nothing", deleter.names())
	}
	if m.BuildNotCompleted() {
		t.Fatal("build pending after waiting")
	}
}

// --- test doubles and helpers ---

type buildStep func(ctx context.Context, files []*meta.DataFileMeta) (*meta.IndexFileMeta, error)

// scriptedBuilder plays the role of the Java tests' mocked PkFullTextIndexBuilder: call i runs
// step i, and the last step repeats, as Mockito's thenReturn(a, b) does.
type scriptedBuilder struct {
	mu    sync.Mutex
	steps []buildStep
	calls []string
}

func scripted(steps ...buildStep) *scriptedBuilder { return &scriptedBuilder{steps: steps} }

func returns(p *meta.IndexFileMeta) buildStep {
	return func(context.Context, []*meta.DataFileMeta) (*meta.IndexFileMeta, error) { return p, nil }
}

func fails(err error) buildStep {
	return func(context.Context, []*meta.DataFileMeta) (*meta.IndexFileMeta, error) { return nil, err }
}

func (b *scriptedBuilder) Build(ctx context.Context, files []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
	b.mu.Lock()
	b.calls = append(b.calls, joinNames(files))
	i := min(len(b.calls), len(b.steps)) - 1
	b.mu.Unlock()
	if i < 0 {
		return nil, errors.New("unexpected build")
	}
	return b.steps[i](ctx, files)
}

func (b *scriptedBuilder) wantCalls(t *testing.T, want ...string) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if !slices.Equal(b.calls, want) {
		t.Fatalf("builder calls = %q, want %q", b.calls, want)
	}
}

// deterministicBuilder builds the archive a real builder would describe for files, named after
// the files so repeated builds of the same input are equal values.
type deterministicBuilder struct{ t *testing.T }

func (b *deterministicBuilder) Build(ctx context.Context, files []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return mntPayload(b.t, "index-"+joinNames(files), files...), nil
}

// recordingDeleter plays the mocked PkFullTextIndexFile and records deletions in order.
type recordingDeleter struct {
	mu      sync.Mutex
	deleted []string
	fail    error
}

func (d *recordingDeleter) DeleteIndexFile(_ context.Context, f *meta.IndexFileMeta) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.deleted = append(d.deleted, f.FileName)
	return d.fail
}

func (d *recordingDeleter) names() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.deleted)
}

func (d *recordingDeleter) wantDeleted(t *testing.T, want ...string) {
	t.Helper()
	if got := d.names(); !slices.Equal(got, want) {
		t.Fatalf("deleted = %q, want %q", got, want)
	}
}

// awaitDeleted waits for a deletion done by a build goroutine.
func (d *recordingDeleter) awaitDeleted(t *testing.T, want ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Equal(d.names(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("deleted = %q, want %q", d.names(), want)
		}
		time.Sleep(time.Millisecond)
	}
}

// fakeStore is an index directory: builders write names into it and the deleter removes them.
type fakeStore struct {
	mu    sync.Mutex
	files []string
}

func (s *fakeStore) write(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files = append(s.files, name)
}

func (s *fakeStore) DeleteIndexFile(_ context.Context, f *meta.IndexFileMeta) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files = slices.DeleteFunc(s.files, func(n string) bool { return n == f.FileName })
	return nil
}

func (s *fakeStore) wantFiles(t *testing.T, want ...string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Equal(s.files, want) {
		t.Fatalf("files = %q, want %q", s.files, want)
	}
}

func joinNames(files []*meta.DataFileMeta) string {
	var s string
	for i, f := range files {
		if i > 0 {
			s += ","
		}
		s += f.FileName
	}
	return s
}

// mntDataFile mirrors the Java test's dataFile(name): a COMPACT file of one row upgraded to
// level 1.
func mntDataFile(name string) *meta.DataFileMeta { return mntDataFileAt(name, 1, 1) }

func mntDataFileAt(name string, rows int64, level int32) *meta.DataFileMeta {
	compact := meta.FileSourceCompact
	return &meta.DataFileMeta{
		FileName: name, FileSize: 100, RowCount: rows, Level: level, FileSource: &compact,
		MinSequenceNumber: 1, MaxSequenceNumber: 1, KeyStats: meta.EmptyStats(), ValueStats: meta.EmptyStats(),
	}
}

// mntPayload mirrors the Java test's payload(name, sources): an archive of field 7 over
// sources, on the level of the first source (Java always uses level 1).
func mntPayload(t *testing.T, name string, sources ...*meta.DataFileMeta) *meta.IndexFileMeta {
	t.Helper()
	var files []pkindex.SourceFile
	var rows int64
	for _, s := range sources {
		files = append(files, stateSource(t, s.FileName, s.RowCount))
		rows += s.RowCount
	}
	return statePayload(t, name, 7, rows, stateSourceMeta(t, sources[0].Level, files...))
}

func mntRestore(t *testing.T, b ArchiveBuilder, d IndexFileDeleter, data []*meta.DataFileMeta, payloads []*meta.IndexFileMeta) *Maintainer {
	t.Helper()
	m, err := NewMaintainer(7, b, d, data, payloads)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mntCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func mntAwait(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

func wantCoveredSources(t *testing.T, m *Maintainer, want ...string) {
	t.Helper()
	state, err := m.State()
	if err != nil {
		t.Fatal(err)
	}
	got := state.CoveredSourceFiles()
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("payloadBySourceFile keys = %v, want %v", got, want)
	}
}

// deleteRecorder is an IndexFileDeleter that records the names it deletes.
type deleteRecorder struct{ names []string }

func (d *deleteRecorder) DeleteIndexFile(_ context.Context, f *meta.IndexFileMeta) error {
	d.names = append(d.names, f.FileName)
	return nil
}

// TestRemovePayloadsDeletesWhatTheCallCreated: removing a call's inputs deletes an archive the
// same call created (it was never committed) and reports the others as removed, every input
// dropped from the current archives, whatever the order.
func TestRemovePayloadsDeletesWhatTheCallCreated(t *testing.T) {
	a, b, c := &meta.IndexFileMeta{FileName: "a"}, &meta.IndexFileMeta{FileName: "b"}, &meta.IndexFileMeta{FileName: "c"}
	rec := &deleteRecorder{}
	m := &Maintainer{deleter: rec, current: []*meta.IndexFileMeta{a, b, c}}
	call := &callChanges{created: []*meta.IndexFileMeta{a}, generated: []*meta.IndexFileMeta{a}}
	if err := m.removePayloads(context.Background(), []*meta.IndexFileMeta{a, b}, call); err != nil {
		t.Fatal(err)
	}
	names := func(fs []*meta.IndexFileMeta) []string {
		out := []string{}
		for _, f := range fs {
			out = append(out, f.FileName)
		}
		return out
	}
	for _, c := range []struct {
		what      string
		got, want []string
	}{
		{"current", names(m.current), []string{"c"}},
		{"created", names(call.created), []string{}},
		{"generated", names(call.generated), []string{}},
		{"removed", names(call.removed), []string{"b"}},
		{"deleted", rec.names, []string{"a"}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
		}
	}
	if err := m.removePayloads(context.Background(), []*meta.IndexFileMeta{a}, call); err == nil {
		t.Error("removing an archive no longer current: no error")
	}
}
