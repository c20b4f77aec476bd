package fileio

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

func listNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

func TestLocalPath(t *testing.T) {
	tests := []struct {
		in, want string
		wantErr  bool
	}{
		{in: "/tmp/t", want: "/tmp/t"},
		{in: "rel/a", want: "rel/a"},
		{in: "file:/tmp/t", want: "/tmp/t"},
		{in: "file:///tmp/t", want: "/tmp/t"},
		{in: "file://host/tmp/t", want: "/tmp/t"},
		{in: "/tmp/a:b", want: "/tmp/a:b"},
		{in: "oss://bucket/x", wantErr: true},
		{in: "", wantErr: true},
		{in: "file:", wantErr: true},
	}
	for _, tt := range tests {
		got, err := LocalPath(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("LocalPath(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			continue
		}
		if got != tt.want {
			t.Errorf("LocalPath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWriteFileAtomicDoesNotOverwrite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	fio := NewLocal()
	p := filepath.Join(dir, "snapshot", "snapshot-1")

	if err := fio.WriteFileAtomic(ctx, p, []byte("first")); err != nil {
		t.Fatalf("first write: %v", err)
	}
	err := fio.WriteFileAtomic(ctx, p, []byte("second"))
	if !errors.Is(err, ErrExists) {
		t.Fatalf("second write error = %v, want ErrExists", err)
	}
	got, err := fio.ReadFile(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "first" {
		t.Errorf("content = %q, want first", got)
	}
	if names := listNames(t, filepath.Join(dir, "snapshot")); len(names) != 1 || names[0] != "snapshot-1" {
		t.Errorf("directory holds %v, want only snapshot-1 (temporary file left behind?)", names)
	}
}

func TestConcurrentPublishExactlyOneWins(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	fio := NewLocal()
	p := "file:" + filepath.Join(dir, "snapshot-7")
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = fio.WriteFileAtomic(ctx, p, []byte{byte('a' + i)})
		}()
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		switch {
		case err == nil:
			wins++
		case errors.Is(err, ErrExists):
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	if wins != 1 {
		t.Errorf("%d writers succeeded, want exactly 1", wins)
	}
	if names := listNames(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v, want only the published file", names)
	}
}

func TestCreateAbortAndFailedCommitRemoveTemp(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	fio := NewLocal()

	t.Run("abort", func(t *testing.T) {
		w, err := fio.Create(ctx, filepath.Join(dir, "a", "f"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte("partial")); err != nil {
			t.Fatal(err)
		}
		if w.Pos() != 7 {
			t.Errorf("Pos = %d, want 7", w.Pos())
		}
		if err := w.Abort(); err != nil {
			t.Fatal(err)
		}
		if err := w.Abort(); err != nil {
			t.Fatalf("second Abort: %v", err)
		}
		if names := listNames(t, filepath.Join(dir, "a")); len(names) != 0 {
			t.Errorf("directory holds %v after abort, want nothing", names)
		}
	})

	t.Run("commit onto existing", func(t *testing.T) {
		p := filepath.Join(dir, "b", "f")
		if err := fio.WriteFileAtomic(ctx, p, []byte("x")); err != nil {
			t.Fatal(err)
		}
		w, err := fio.Create(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("y"))
		if err := w.Commit(ctx); !errors.Is(err, ErrExists) {
			t.Fatalf("Commit error = %v, want ErrExists", err)
		}
		if err := w.Abort(); err != nil {
			t.Fatalf("Abort after failed commit: %v", err)
		}
		if names := listNames(t, filepath.Join(dir, "b")); len(names) != 1 {
			t.Errorf("directory holds %v, want only f", names)
		}
	})

	t.Run("cancelled context", func(t *testing.T) {
		p := filepath.Join(dir, "c", "f")
		w, err := fio.Create(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("y"))
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := w.Commit(cctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("Commit error = %v, want context.Canceled", err)
		}
		if names := listNames(t, filepath.Join(dir, "c")); len(names) != 0 {
			t.Errorf("directory holds %v, want nothing", names)
		}
	})
}

func TestTempNameIsHidden(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w, err := NewLocal().Create(ctx, filepath.Join(dir, "snapshot-3"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	names := listNames(t, dir)
	if len(names) != 1 || !strings.HasPrefix(names[0], ".snapshot-3.") || !strings.HasSuffix(names[0], ".tmp") {
		t.Errorf("temporary file names = %v, want .snapshot-3.<uuid>.tmp", names)
	}
}

func TestRenameNoOverwrite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	fio := NewLocal()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "sub", "b")
	os.WriteFile(a, []byte("A"), 0o644)
	if err := fio.Rename(ctx, a, b); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(a, []byte("A2"), 0o644)
	if err := fio.Rename(ctx, a, b); !errors.Is(err, ErrExists) {
		t.Fatalf("Rename onto existing: %v, want ErrExists", err)
	}
	got, _ := os.ReadFile(b)
	if string(got) != "A" {
		t.Errorf("target content = %q, want A", got)
	}
	if err := fio.Rename(ctx, filepath.Join(dir, "missing"), filepath.Join(dir, "c")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Rename of missing source: %v, want fs.ErrNotExist", err)
	}
}

func TestLinkFallback(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("A"), 0o644)
	os.WriteFile(b, []byte("B"), 0o644)
	if err := linkAndUnlink(a, b); !errors.Is(err, ErrExists) {
		t.Fatalf("linkAndUnlink onto existing: %v", err)
	}
	os.Remove(b)
	if err := linkAndUnlink(a, b); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("source still exists after linkAndUnlink")
	}
}

func TestReadListDeleteMkdirs(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	fio := NewLocal()

	missing, err := fio.List(ctx, filepath.Join(dir, "nope"))
	if err != nil || len(missing) != 0 {
		t.Fatalf("List(missing) = %v, %v; want empty, nil", missing, err)
	}
	if err := fio.Mkdirs(ctx, filepath.Join(dir, "x", "y")); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "x", "data")
	if err := fio.WriteFileAtomic(ctx, p, []byte("0123456789")); err != nil {
		t.Fatal(err)
	}
	st, err := fio.List(ctx, filepath.Join(dir, "x"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(st, func(i, j int) bool { return st[i].Name < st[j].Name })
	if len(st) != 2 || st[0].Name != "data" || st[0].Size != 10 || st[0].IsDir || !st[1].IsDir || st[0].Path != p {
		t.Errorf("List = %+v", st)
	}

	f, err := fio.OpenReaderAt(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 3)
	if _, err := f.ReadAt(buf, 4); err != nil || string(buf) != "456" || f.Size() != 10 {
		t.Errorf("ReadAt = %q, %v, size %d", buf, err, f.Size())
	}
	f.Close()

	r, err := fio.Open(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	all, _ := io.ReadAll(r)
	r.Close()
	if string(all) != "0123456789" {
		t.Errorf("Open read %q", all)
	}
	if n, err := fio.FileSize(ctx, p); err != nil || n != 10 {
		t.Errorf("FileSize = %d, %v", n, err)
	}

	if ok, err := fio.Exists(ctx, p); !ok || err != nil {
		t.Errorf("Exists = %v, %v", ok, err)
	}
	if err := fio.Delete(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := fio.Delete(ctx, p); err != nil {
		t.Errorf("Delete(missing) = %v, want nil", err)
	}
	if ok, _ := fio.Exists(ctx, p); ok {
		t.Error("file still exists after Delete")
	}
	if err := fio.Delete(ctx, dir); err == nil {
		t.Error("Delete of a non-empty directory succeeded")
	}
	fio.DeleteQuietly(ctx, filepath.Join(dir, "x", "nothing"))

	if _, err := fio.ReadFile(ctx, p); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(missing) = %v, want fs.ErrNotExist", err)
	}
}

func TestOverwriteFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	fio := NewLocal()
	p := filepath.Join(dir, "snapshot", "LATEST")
	for _, v := range []string{"1", "22", "3"} {
		if err := fio.OverwriteFile(ctx, p, []byte(v)); err != nil {
			t.Fatal(err)
		}
		got, _ := fio.ReadFile(ctx, p)
		if string(got) != v {
			t.Errorf("content = %q, want %q", got, v)
		}
	}
	if names := listNames(t, filepath.Join(dir, "snapshot")); len(names) != 1 {
		t.Errorf("directory holds %v, want only LATEST", names)
	}
}
