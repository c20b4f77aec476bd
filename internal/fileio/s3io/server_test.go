package s3io

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"sync"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/testing/s3server"
)

// newServerFS starts SeaweedFS and returns an S3 FileIO on a fresh bucket of it, with the
// bucket's root path.
func newServerFS(t *testing.T, mod func(*Config)) (*FS, string) {
	t.Helper()
	srv := s3server.ForTest(t)
	cfg, err := LoadConfig(map[string]string{
		"s3.endpoint": srv.Endpoint, "s3.access-key": s3server.AccessKey, "s3.secret-key": s3server.SecretKey,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if mod != nil {
		mod(&cfg)
	}
	f := New(cfg)
	if err := f.CreateBucket(context.Background(), "pkft"); err != nil {
		t.Fatal(err)
	}
	return f, "s3://pkft"
}

func TestServer(t *testing.T) {
	f, root := newServerFS(t, func(c *Config) { c.PartSize = MinPartSize; c.ListPageSize = 7 })
	ctx := context.Background()

	t.Run("publish-without-overwrite", func(t *testing.T) {
		p := root + "/t/snapshot/snapshot-1"
		if err := f.WriteFileAtomic(ctx, p, []byte("first")); err != nil {
			t.Fatal(err)
		}
		err := f.WriteFileAtomic(ctx, p, []byte("second"))
		if !errors.Is(err, fileio.ErrExists) {
			t.Fatalf("second publication: %v, want ErrExists", err)
		}
		if b, err := f.ReadFile(ctx, p); err != nil || string(b) != "first" {
			t.Fatalf("content %q, %v; the first publication must stay", b, err)
		}
	})

	t.Run("without-conditional-writes", func(t *testing.T) {
		cfg := f.cfg
		cfg.ConditionalWrites = false
		plain := New(cfg)
		p := root + "/t/snapshot/snapshot-9"
		if err := plain.WriteFileAtomic(ctx, p, []byte("first")); err != nil {
			t.Fatal(err)
		}
		// The HEAD before the PUT refuses the taken name, as Java's check does.
		if err := plain.WriteFileAtomic(ctx, p, []byte("second")); !errors.Is(err, fileio.ErrExists) {
			t.Fatalf("second publication: %v, want ErrExists", err)
		}
		if err := plain.Rename(ctx, p, root+"/t/snapshot/snapshot-1"); !errors.Is(err, fileio.ErrExists) {
			t.Fatalf("rename onto a taken name: %v, want ErrExists", err)
		}
	})

	t.Run("racing-publications-one-wins", func(t *testing.T) {
		p := root + "/t/snapshot/snapshot-2"
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = f.WriteFileAtomic(ctx, p, []byte(fmt.Sprintf("writer-%d", i)))
			}()
		}
		wg.Wait()
		won := -1
		for i, err := range errs {
			switch {
			case err == nil:
				if won >= 0 {
					t.Fatalf("writers %d and %d both published", won, i)
				}
				won = i
			case !errors.Is(err, fileio.ErrExists):
				t.Fatalf("writer %d: %v", i, err)
			}
		}
		if won < 0 {
			t.Fatal("no writer published")
		}
		if b, _ := f.ReadFile(ctx, p); string(b) != fmt.Sprintf("writer-%d", won) {
			t.Fatalf("content %q is not the winner's (writer-%d)", b, won)
		}
	})

	t.Run("multipart", func(t *testing.T) {
		data := make([]byte, 2*MinPartSize+12345)
		for i := range data {
			data[i] = byte(i * 7)
		}
		p := root + "/t/data/big.bin"
		before := f.Stats().Puts
		w, err := f.Create(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off < len(data); off += 1 << 20 {
			if _, err := w.Write(data[off:min(off+1<<20, len(data))]); err != nil {
				t.Fatal(err)
			}
		}
		if ok, _ := f.Exists(ctx, p); ok {
			t.Fatal("object visible before Commit")
		}
		if err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if puts := f.Stats().Puts - before; puts != 4 {
			t.Fatalf("%d part/complete requests, want 3 parts + 1 completion", puts)
		}
		got, err := f.ReadFile(ctx, p)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("multipart round trip: %d bytes, %v", len(got), err)
		}
		// A second multipart publication of the same name is refused at completion.
		w, _ = f.Create(ctx, p)
		w.Write(data)
		if err := w.Commit(ctx); !errors.Is(err, fileio.ErrExists) {
			t.Fatalf("second multipart publication: %v, want ErrExists", err)
		}
		// An aborted upload leaves nothing.
		q := root + "/t/data/aborted.bin"
		w, _ = f.Create(ctx, q)
		w.Write(data)
		if err := w.Abort(); err != nil {
			t.Fatal(err)
		}
		if ok, _ := f.Exists(ctx, q); ok {
			t.Fatal("aborted upload left an object")
		}
	})

	t.Run("ranged-reads", func(t *testing.T) {
		data := make([]byte, 1<<20)
		for i := range data {
			data[i] = byte(i)
		}
		p := root + "/t/index/archive"
		if err := f.WriteFileAtomic(ctx, p, data); err != nil {
			t.Fatal(err)
		}
		r, err := f.OpenReaderAt(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if r.Size() != int64(len(data)) {
			t.Fatalf("size %d", r.Size())
		}
		before := f.Stats()
		buf := make([]byte, 100)
		for _, off := range []int64{500000, 500100, 10} {
			if n, err := r.ReadAt(buf, off); n != 100 || err != nil || !bytes.Equal(buf, data[off:off+100]) {
				t.Fatalf("ReadAt(%d) = %d, %v", off, n, err)
			}
		}
		st := f.Stats()
		if gets, read := st.Gets-before.Gets, st.BytesRead-before.BytesRead; gets != 2 || read != 2*minRead {
			t.Fatalf("three small reads (two within one block) took %d GETs and %d bytes, want 2 and %d", gets, read, 2*minRead)
		}
		// A large read, then the same range again: the second comes from the kept range.
		before = f.Stats()
		big := make([]byte, 100_000)
		for i := 0; i < 3; i++ {
			if n, err := r.ReadAt(big, 300_000); n != len(big) || err != nil || !bytes.Equal(big, data[300_000:400_000]) {
				t.Fatalf("ReadAt(300000) = %d, %v", n, err)
			}
		}
		if gets := f.Stats().Gets - before.Gets; gets != 1 {
			t.Fatalf("three reads of one range took %d GETs, want 1", gets)
		}
		n, err := r.ReadAt(make([]byte, 10), int64(len(data)-4))
		if n != 4 || err != io.EOF {
			t.Fatalf("read past the end: %d, %v", n, err)
		}
	})

	t.Run("listing-pages-and-directories", func(t *testing.T) {
		dir := root + "/list"
		var want []string
		for i := 0; i < 20; i++ {
			name := fmt.Sprintf("f-%02d", i)
			want = append(want, name)
			if err := f.WriteFileAtomic(ctx, dir+"/"+name, []byte(name)); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.WriteFileAtomic(ctx, dir+"/sub/x", []byte("x")); err != nil {
			t.Fatal(err)
		}
		want = append(want, "sub")
		before := f.Stats().Lists
		got, err := f.List(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		if pages := f.Stats().Lists - before; pages < 3 {
			t.Fatalf("21 entries at 7 keys a page took %d pages", pages)
		}
		var names []string
		for _, st := range got {
			names = append(names, st.Name)
			if st.Path != dir+"/"+st.Name || st.IsDir != (st.Name == "sub") || (!st.IsDir && st.Size != 4) {
				t.Fatalf("entry %+v", st)
			}
		}
		sort.Strings(names)
		if fmt.Sprint(names) != fmt.Sprint(want) {
			t.Fatalf("listed %v, want %v", names, want)
		}
		if ok, err := f.Exists(ctx, dir+"/sub"); !ok || err != nil {
			t.Fatalf("directory sub: %v, %v", ok, err)
		}
		if got, err := f.List(ctx, root+"/missing"); len(got) != 0 || err != nil {
			t.Fatalf("missing directory: %v, %v", got, err)
		}
	})

	t.Run("missing-overwrite-delete-rename", func(t *testing.T) {
		p := root + "/misc/LATEST"
		if _, err := f.ReadFile(ctx, p); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("missing read: %v", err)
		}
		if _, err := f.OpenReaderAt(ctx, p); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("missing open: %v", err)
		}
		if _, err := f.FileSize(ctx, p); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("missing size: %v", err)
		}
		for _, v := range []string{"1", "2"} {
			if err := f.OverwriteFile(ctx, p, []byte(v)); err != nil {
				t.Fatal(err)
			}
		}
		if b, _ := f.ReadFile(ctx, p); string(b) != "2" {
			t.Fatalf("overwritten content %q", b)
		}
		q := root + "/misc/moved"
		if err := f.Rename(ctx, p, q); err != nil {
			t.Fatal(err)
		}
		if ok, _ := f.Exists(ctx, p); ok {
			t.Fatal("rename kept the source")
		}
		f.WriteFileAtomic(ctx, p, []byte("3"))
		if err := f.Rename(ctx, p, q); !errors.Is(err, fileio.ErrExists) {
			t.Fatalf("rename onto an existing object: %v", err)
		}
		if err := f.Delete(ctx, q); err != nil {
			t.Fatal(err)
		}
		if err := f.Delete(ctx, q); err != nil {
			t.Fatalf("deleting a missing object: %v", err)
		}
	})
}
