package pkindex

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/paimon-pkft/pkft/internal/meta"
)

// BuildFunc builds one index payload. On failure it may return the payload it named together
// with the error; the payload is then deleted.
type BuildFunc func(ctx context.Context) (*meta.IndexFileMeta, error)

// BackgroundBuild is one payload build running in its own goroutine (Java's maintainers'
// PendingBuild over an executor future). Whoever sees the output last deletes it when the build
// was cancelled: Cancel when the build had finished, the build goroutine otherwise.
type BackgroundBuild struct {
	what string
	stop context.CancelFunc
	done chan struct{} // closed when the goroutine has exited

	mu        sync.Mutex
	cancelled bool
	result    *meta.IndexFileMeta
	err       error
	orphanErr error // failure deleting the output of a cancelled build
}

// StartBackgroundBuild runs build in a goroutine with ctx's values but not its cancellation
// (the build outlives the call that starts it). what names the payload kind in errors ("full-text
// archive"). A payload returned with an error is deleted through deleter; a build returning
// neither fails.
func StartBackgroundBuild(ctx context.Context, what string, deleter IndexFileDeleter, build BuildFunc) *BackgroundBuild {
	buildCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	b := &BackgroundBuild{what: what, stop: stop, done: make(chan struct{})}
	go b.run(buildCtx, deleter, build)
	return b
}

func (b *BackgroundBuild) run(ctx context.Context, deleter IndexFileDeleter, build BuildFunc) {
	defer close(b.done)
	defer b.stop()
	payload, err := build(ctx)
	cleanup := context.WithoutCancel(ctx)
	if err != nil && payload != nil {
		if derr := deleter.DeleteIndexFile(cleanup, payload); derr != nil {
			err = errors.Join(err, fmt.Errorf("delete failed %s %s: %w", b.what, payload.FileName, derr))
		}
		payload = nil
	}
	if err == nil && payload == nil {
		err = fmt.Errorf("%s builder returned no payload", b.what)
	}

	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.cancelled {
		b.result, b.err = payload, err
		return
	}
	if payload != nil {
		if derr := deleter.DeleteIndexFile(cleanup, payload); derr != nil {
			b.orphanErr = fmt.Errorf("delete cancelled %s %s: %w", b.what, payload.FileName, derr)
		}
	}
}

// Done is closed when the build goroutine has exited.
func (b *BackgroundBuild) Done() <-chan struct{} { return b.done }

// Result returns the build's payload or failure; call it once Done is closed.
func (b *BackgroundBuild) Result() (*meta.IndexFileMeta, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.result, b.err
}

// Cancel stops the build and deletes its payload if it had already finished; it returns the
// deletion's failure.
func (b *BackgroundBuild) Cancel(ctx context.Context, deleter IndexFileDeleter) error {
	b.mu.Lock()
	b.cancelled = true
	built := b.result
	b.result = nil
	b.mu.Unlock()
	b.stop()
	if built == nil {
		return nil
	}
	if err := deleter.DeleteIndexFile(ctx, built); err != nil {
		return fmt.Errorf("delete cancelled %s %s: %w", b.what, built.FileName, err)
	}
	return nil
}

// OrphanErr returns the failure of deleting the output of a build that finished after Cancel;
// call it once Done is closed.
func (b *BackgroundBuild) OrphanErr() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.orphanErr
}

// Wait waits until Done is closed or ctx ends; what describes the wait in the error.
func (b *BackgroundBuild) Wait(ctx context.Context, what string) error {
	select {
	case <-b.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("wait for %s: %w", what, ctx.Err())
	}
}

// Finished reports, without waiting, whether Done is closed.
func (b *BackgroundBuild) Finished() bool {
	select {
	case <-b.done:
		return true
	default:
		return false
	}
}

// ErrBuilderPanicked is wrapped by CallBuilder's error for a builder that panicked: Java's
// counterpart is an Error, which its maintainers do not retry.
var ErrBuilderPanicked = errors.New("builder panicked")

// CallBuilder calls build, turning a panic into an error wrapping ErrBuilderPanicked, as Java's
// executor turns a thrown error into a failed future; what names the builder in the error.
func CallBuilder(ctx context.Context, what string, build BuildFunc) (payload *meta.IndexFileMeta, err error) {
	defer func() {
		if r := recover(); r != nil {
			payload, err = nil, fmt.Errorf("%s %w: %v", what, ErrBuilderPanicked, r)
		}
	}()
	return build(ctx)
}

// Take returns the build's outcome once it has finished, waiting for it when blocking.
// finished is false when it has not finished (err is then nil, or the wait's failure when ctx
// ended, the build still running); when finished, err is the build's failure. what describes
// the build in a wait error.
func (b *BackgroundBuild) Take(ctx context.Context, blocking bool, what string) (payload *meta.IndexFileMeta, finished bool, err error) {
	if blocking {
		if err := b.Wait(ctx, what); err != nil {
			return nil, false, err
		}
	} else if !b.Finished() {
		return nil, false, nil
	}
	payload, err = b.Result()
	return payload, true, err
}
