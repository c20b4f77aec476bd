package pkindex

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/meta"
)

type buildDeleter struct {
	mu    sync.Mutex
	names []string
}

func (d *buildDeleter) DeleteIndexFile(_ context.Context, f *meta.IndexFileMeta) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.names = append(d.names, f.FileName)
	return nil
}

func (d *buildDeleter) deleted() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.names)
}

func awaitBuild(t *testing.T, b *BackgroundBuild) {
	t.Helper()
	select {
	case <-b.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("build did not finish")
	}
}

func TestBackgroundBuildOutcomes(t *testing.T) {
	ctx := context.Background()
	for name, tc := range map[string]struct {
		build   BuildFunc
		wantErr string
		deleted []string
	}{
		"success":           {build: func(context.Context) (*meta.IndexFileMeta, error) { return incPayload("p"), nil }},
		"failure":           {build: func(context.Context) (*meta.IndexFileMeta, error) { return nil, errors.New("boom") }, wantErr: "boom"},
		"failure with file": {build: func(context.Context) (*meta.IndexFileMeta, error) { return incPayload("half"), errors.New("boom") }, wantErr: "boom", deleted: []string{"half"}},
		"nothing":           {build: func(context.Context) (*meta.IndexFileMeta, error) { return nil, nil }, wantErr: "returned no payload"},
		"panic": {build: func(ctx context.Context) (*meta.IndexFileMeta, error) {
			return CallBuilder(ctx, "test payload", func(context.Context) (*meta.IndexFileMeta, error) { panic("bad") })
		}, wantErr: "test payload builder panicked: bad"},
	} {
		d := &buildDeleter{}
		b := StartBackgroundBuild(ctx, "test payload", d, tc.build)
		awaitBuild(t, b)
		payload, finished, err := b.Take(ctx, false, "test")
		if !finished {
			t.Fatalf("%s: not finished after Done", name)
		}
		switch {
		case tc.wantErr == "" && (err != nil || payload == nil || payload.FileName != "p"):
			t.Errorf("%s: %v, %v", name, payload, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr) || payload != nil):
			t.Errorf("%s: %v, %v, want error %q", name, payload, err, tc.wantErr)
		}
		if !slices.Equal(d.deleted(), tc.deleted) {
			t.Errorf("%s: deleted %v, want %v", name, d.deleted(), tc.deleted)
		}
	}
}

// TestBackgroundBuildCancel: a cancelled build's output is deleted exactly once, by Cancel when
// the build had finished, by the build goroutine when it finishes afterwards.
func TestBackgroundBuildCancel(t *testing.T) {
	ctx := context.Background()
	d := &buildDeleter{}
	b := StartBackgroundBuild(ctx, "test payload", d, func(context.Context) (*meta.IndexFileMeta, error) { return incPayload("done"), nil })
	awaitBuild(t, b)
	if err := b.Cancel(ctx, d); err != nil {
		t.Fatal(err)
	}
	if got := d.deleted(); !slices.Equal(got, []string{"done"}) {
		t.Fatalf("deleted %v", got)
	}

	d = &buildDeleter{}
	release := make(chan struct{})
	b = StartBackgroundBuild(ctx, "test payload", d, func(ctx context.Context) (*meta.IndexFileMeta, error) {
		<-release // finishes despite the cancellation
		return incPayload("late"), nil
	})
	if _, finished, err := b.Take(ctx, false, "test"); finished || err != nil {
		t.Fatalf("a running build was taken: %v", err)
	}
	if err := b.Cancel(ctx, d); err != nil {
		t.Fatal(err)
	}
	close(release)
	awaitBuild(t, b)
	if got := d.deleted(); !slices.Equal(got, []string{"late"}) || b.OrphanErr() != nil {
		t.Fatalf("deleted %v (%v)", got, b.OrphanErr())
	}
	if p, _ := b.Result(); p != nil {
		t.Fatal("a cancelled build kept its result")
	}
}

func TestBackgroundBuildWaitEndsWithContext(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	b := StartBackgroundBuild(context.Background(), "test payload", &buildDeleter{}, func(context.Context) (*meta.IndexFileMeta, error) {
		<-release
		return nil, errors.New("released")
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, finished, err := b.Take(ctx, true, "the test build"); finished || !errors.Is(err, context.Canceled) ||
		!strings.Contains(err.Error(), "the test build") {
		t.Fatalf("Take = %v, %v", finished, err)
	}
}

func TestRouteChanges(t *testing.T) {
	p := incPayload("p")
	moved := CompactIncrement{CompactBefore: []*meta.DataFileMeta{{FileName: "d"}}}
	if a, c := RouteChanges(nil, nil, moved); a != nil || c != nil {
		t.Fatal("an increment without changes")
	}
	if a, c := RouteChanges([]*meta.IndexFileMeta{p}, nil, moved); a != nil || c == nil || c.NewIndexFiles[0] != p {
		t.Fatal("a compaction's changes not in the compact increment")
	}
	if a, c := RouteChanges(nil, []*meta.IndexFileMeta{p}, CompactIncrement{}); c != nil || a == nil || a.DeletedIndexFiles[0] != p {
		t.Fatal("other changes not in the append increment")
	}
}
