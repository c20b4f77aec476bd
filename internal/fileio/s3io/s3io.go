// Package s3io is the FileIO of tables on an S3-compatible object store (paths
// s3://bucket/key and s3a://bucket/key), on the AWS SDK for Go v2.
//
// Reads are ranged GETs (an archive search fetches only the byte ranges it reads), sequential
// reads stream one GET, listings page through ListObjectsV2 with a "/" delimiter (objects are
// files, common prefixes directories), and a file larger than one part is uploaded as a multipart
// upload, one part buffered at a time.
//
// Publication without overwrite. Paimon 2.0.0's Java commit (RenamingSnapshotCommit over
// FileIO#tryToWriteAtomic) writes snapshot-N under a temporary name and renames it; on S3,
// Hadoop's S3AFileSystem.rename is a HEAD of the destination, a COPY and a DELETE, so two writers
// that both pass the HEAD both "win" and the later COPY replaces the earlier snapshot. Go writes
// the final name directly: a single PUT (or the completion of a multipart upload) carrying
// If-None-Match: *, which the server refuses with 412 when the name is taken, so two Go committers
// can never replace each other's snapshot. Nothing is visible under the name before the PUT or the
// completion succeeds. With Config.ConditionalWrites off (servers without the header) the write is
// preceded by a HEAD, which is exactly Java's guarantee and no more.
//
// S3 has no directories: Mkdirs writes nothing, a directory exists when an object lies under its
// prefix (or a "dir/" marker object Hadoop wrote), and Delete removes one object.
package s3io

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/paimon-pkft/pkft/internal/fileio"
)

// minRead is the smallest ranged GET a random-access read issues: a smaller read fetches this
// much and serves the following reads inside it from memory (Parquet footers and archive headers
// are read in pieces of a few bytes).
const minRead = 64 << 10

// Stats counts the requests a FileIO sent and the bytes it moved.
type Stats struct {
	// Gets is the number of GET requests (ranged or whole).
	Gets int64
	// BytesRead is the number of object bytes received by GETs.
	BytesRead int64
	// Puts is the number of PUT, UploadPart and CompleteMultipartUpload requests.
	Puts int64
	// BytesWritten is the number of object bytes sent.
	BytesWritten int64
	// Lists is the number of ListObjectsV2 pages requested.
	Lists int64
}

// FS is the S3 FileIO. It is safe for concurrent use.
type FS struct {
	cli     *s3.Client
	cfg     Config
	gets    atomic.Int64
	read    atomic.Int64
	puts    atomic.Int64
	written atomic.Int64
	lists   atomic.Int64
}

var _ fileio.FileIO = (*FS)(nil)

// New returns the S3 FileIO for cfg.
func New(cfg Config) *FS {
	if cfg.PartSize == 0 {
		cfg.PartSize = DefaultPartSize
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	o := s3.Options{
		Region:       cfg.Region,
		UsePathStyle: cfg.PathStyle,
		// Checksums only where S3 requires them: S3-compatible servers do not all implement the
		// trailing (aws-chunked) checksums the SDK sends by default.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
		HTTPClient:                 &http.Client{Timeout: 10 * time.Minute},
	}
	if cfg.Endpoint != "" {
		o.BaseEndpoint = aws.String(cfg.Endpoint)
	}
	if cfg.AccessKey != "" {
		o.Credentials = credentials.NewStaticCredentialsProvider(cfg.AccessKey, cfg.SecretKey, cfg.SessionToken)
	} else {
		o.Credentials = aws.AnonymousCredentials{}
	}
	return &FS{cli: s3.New(o), cfg: cfg}
}

// Stats returns the counters of the requests sent so far.
func (f *FS) Stats() Stats {
	return Stats{Gets: f.gets.Load(), BytesRead: f.read.Load(), Puts: f.puts.Load(),
		BytesWritten: f.written.Load(), Lists: f.lists.Load()}
}

// Client is the underlying S3 client (for tests and tools that create buckets).
func (f *FS) Client() *s3.Client { return f.cli }

// location is a parsed s3:// path.
type location struct {
	bucket, key string
}

// IsS3Path reports whether p names an object of this FileIO (scheme s3 or s3a).
func IsS3Path(p string) bool {
	i := strings.Index(p, "://")
	if i < 0 {
		return false
	}
	s := strings.ToLower(p[:i])
	return s == "s3" || s == "s3a"
}

func parse(p string) (location, error) {
	if !IsS3Path(p) {
		return location{}, fmt.Errorf("path %q is not an s3:// or s3a:// URI", p)
	}
	rest := p[strings.Index(p, "://")+3:]
	bucket, key, _ := strings.Cut(rest, "/")
	if bucket == "" {
		return location{}, fmt.Errorf("path %q has no bucket", p)
	}
	// Collapse duplicate slashes and drop a trailing one, as Paimon's Path does.
	parts := strings.Split(key, "/")
	kept := parts[:0]
	for _, s := range parts {
		if s != "" {
			kept = append(kept, s)
		}
	}
	return location{bucket: bucket, key: strings.Join(kept, "/")}, nil
}

// isNotFound reports a 404 (NoSuchKey, NotFound, NoSuchBucket).
func isNotFound(err error) bool {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) && re.HTTPStatusCode() == http.StatusNotFound {
		return true
	}
	var nsk *s3types.NoSuchKey
	var nf *s3types.NotFound
	return errors.As(err, &nsk) || errors.As(err, &nf)
}

func httpStatus(err error) int {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// isTaken reports a conditional write refused because the name exists (412 PreconditionFailed).
func isTaken(err error) bool {
	return httpStatus(err) == http.StatusPreconditionFailed || apiCode(err) == "PreconditionFailed"
}

// isConditionalConflict reports AWS's 409 ConditionalRequestConflict: another conditional write
// of the same key was in progress; the request may be retried.
func isConditionalConflict(err error) bool {
	return apiCode(err) == "ConditionalRequestConflict"
}

func notExist(op, p string, err error) error {
	return fmt.Errorf("%s %s: %w (%v)", op, p, fs.ErrNotExist, err)
}

func (f *FS) head(ctx context.Context, loc location) (*s3.HeadObjectOutput, error) {
	return f.cli.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &loc.bucket, Key: &loc.key})
}

// OpenReaderAt opens an object for ranged reads.
func (f *FS) OpenReaderAt(ctx context.Context, p string) (fileio.ReadAtFile, error) {
	loc, err := parse(p)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", p, err)
	}
	if loc.key == "" {
		return nil, fmt.Errorf("open %s: is a directory", p)
	}
	h, err := f.head(ctx, loc)
	if err != nil {
		if isNotFound(err) {
			return nil, notExist("open", p, err)
		}
		return nil, fmt.Errorf("open %s: %w", p, err)
	}
	r := &reader{fs: f, ctx: context.WithoutCancel(ctx), loc: loc, path: p, size: aws.ToInt64(h.ContentLength)}
	if h.ETag != nil {
		r.etag = *h.ETag
	}
	return r, nil
}

// reader is an object opened for random access. Every read is a ranged GET pinned to the ETag
// seen at open (a replaced object fails the read instead of mixing two versions). Reads smaller
// than minRead fetch minRead bytes; the ranges fetched last (up to cacheBytes) are kept, and a
// read inside one is served from memory: the engine reads some blocks of an archive once per hit.
// As with a local file, the reads do not end with the context the file was opened with.
type reader struct {
	fs   *FS
	ctx  context.Context
	loc  location
	path string
	size int64
	etag string

	mu     sync.Mutex
	spans  []span
	cached int64
	closed bool
}

// span is a fetched range of the object.
type span struct {
	start int64
	data  []byte
}

// cacheBytes bounds the fetched ranges one open reader keeps.
const cacheBytes = 8 << 20

func (r *reader) Size() int64 { return r.size }

func (r *reader) Close() error {
	r.mu.Lock()
	r.closed, r.spans, r.cached = true, nil, 0
	r.mu.Unlock()
	return nil
}

func (r *reader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("read %s: negative offset %d", r.path, off)
	}
	if len(p) == 0 {
		return 0, nil
	}
	if off >= r.size {
		return 0, io.EOF
	}
	want := int64(len(p))
	if off+want > r.size {
		want = r.size - off
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return 0, fmt.Errorf("read %s: file closed", r.path)
	}
	for i := len(r.spans) - 1; i >= 0; i-- {
		sp := r.spans[i]
		if off >= sp.start && off+want <= sp.start+int64(len(sp.data)) {
			n := copy(p[:want], sp.data[off-sp.start:])
			r.mu.Unlock()
			return r.result(n, len(p))
		}
	}
	r.mu.Unlock()
	block := max(want, minRead)
	if off+block > r.size {
		block = r.size - off
	}
	buf := make([]byte, block)
	n, err := r.fetch(buf, off)
	if err != nil {
		return 0, err
	}
	buf = buf[:n]
	if int64(n) <= cacheBytes {
		r.mu.Lock()
		r.spans = append(r.spans, span{start: off, data: buf})
		r.cached += int64(n)
		for r.cached > cacheBytes {
			r.cached -= int64(len(r.spans[0].data))
			r.spans = r.spans[1:]
		}
		r.mu.Unlock()
	}
	return r.result(copy(p[:want], buf), len(p))
}

func (r *reader) result(n, asked int) (int, error) {
	if n < asked {
		return n, io.EOF
	}
	return n, nil
}

// fetch reads exactly len(p) bytes at off with one ranged GET.
func (r *reader) fetch(p []byte, off int64) (int, error) {
	rng := fmt.Sprintf("bytes=%d-%d", off, off+int64(len(p))-1)
	in := &s3.GetObjectInput{Bucket: &r.loc.bucket, Key: &r.loc.key, Range: &rng}
	if r.etag != "" {
		in.IfMatch = aws.String(r.etag)
	}
	r.fs.gets.Add(1)
	out, err := r.fs.cli.GetObject(r.ctx, in)
	if err != nil {
		if isNotFound(err) {
			return 0, notExist("read", r.path, err)
		}
		return 0, fmt.Errorf("read %s at %d: %w", r.path, off, err)
	}
	defer out.Body.Close()
	n, err := io.ReadFull(out.Body, p)
	r.fs.read.Add(int64(n))
	if obs := r.fs.cfg.ReadObserver; obs != nil {
		obs(r.path, int64(n))
	}
	if err != nil {
		return n, fmt.Errorf("read %s at %d: %w", r.path, off, err)
	}
	return n, nil
}

// Open streams an object with one GET.
func (f *FS) Open(ctx context.Context, p string) (io.ReadCloser, error) {
	loc, err := parse(p)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", p, err)
	}
	f.gets.Add(1)
	out, err := f.cli.GetObject(ctx, &s3.GetObjectInput{Bucket: &loc.bucket, Key: &loc.key})
	if err != nil {
		if isNotFound(err) {
			return nil, notExist("open", p, err)
		}
		return nil, fmt.Errorf("open %s: %w", p, err)
	}
	return &countingBody{ReadCloser: out.Body, n: &f.read, path: p, obs: f.cfg.ReadObserver}, nil
}

type countingBody struct {
	io.ReadCloser
	n    *atomic.Int64
	path string
	obs  func(string, int64)
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n.Add(int64(n))
	if c.obs != nil && n > 0 {
		c.obs(c.path, int64(n))
	}
	return n, err
}

// ReadFile returns an object's content.
func (f *FS) ReadFile(ctx context.Context, p string) ([]byte, error) {
	rc, err := f.Open(ctx, p)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return b, nil
}

// Create starts a new object that Commit publishes without replacing an existing one.
func (f *FS) Create(ctx context.Context, p string) (fileio.AtomicWriter, error) {
	loc, err := parse(p)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", p, err)
	}
	if loc.key == "" {
		return nil, fmt.Errorf("create %s: is a bucket", p)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("create %s: %w", p, err)
	}
	return &writer{fs: f, ctx: ctx, loc: loc, path: p}, nil
}

// writer buffers one part; the first full part starts a multipart upload.
type writer struct {
	fs   *FS
	ctx  context.Context
	loc  location
	path string

	buf      []byte
	pos      int64
	uploadID *string
	parts    []s3types.CompletedPart
	done     bool
	err      error
}

func (w *writer) Pos() int64   { return w.pos }
func (w *writer) Path() string { return w.path }

func (w *writer) Write(p []byte) (int, error) {
	if w.done {
		return 0, fmt.Errorf("write %s: writer already closed", w.path)
	}
	if w.err != nil {
		return 0, w.err
	}
	written := 0
	for len(p) > 0 {
		room := int(w.fs.cfg.PartSize) - len(w.buf)
		n := min(room, len(p))
		w.buf = append(w.buf, p[:n]...)
		p = p[n:]
		written += n
		w.pos += int64(n)
		if len(w.buf) == int(w.fs.cfg.PartSize) && len(p) > 0 {
			if err := w.uploadPart(); err != nil {
				w.err = err
				return written, err
			}
		}
	}
	return written, nil
}

func (w *writer) uploadPart() error {
	ctx := w.ctx
	if w.uploadID == nil {
		out, err := w.fs.cli.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &w.loc.bucket, Key: &w.loc.key})
		if err != nil {
			return fmt.Errorf("write %s: start multipart upload: %w", w.path, err)
		}
		w.uploadID = out.UploadId
	}
	num := int32(len(w.parts) + 1)
	w.fs.puts.Add(1)
	out, err := w.fs.cli.UploadPart(ctx, &s3.UploadPartInput{
		Bucket: &w.loc.bucket, Key: &w.loc.key, UploadId: w.uploadID, PartNumber: aws.Int32(num),
		Body: bytes.NewReader(w.buf), ContentLength: aws.Int64(int64(len(w.buf))),
	})
	if err != nil {
		return fmt.Errorf("write %s: upload part %d: %w", w.path, num, err)
	}
	w.fs.written.Add(int64(len(w.buf)))
	w.parts = append(w.parts, s3types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(num)})
	w.buf = w.buf[:0]
	return nil
}

func (w *writer) Commit(ctx context.Context) error {
	if w.done {
		return fmt.Errorf("commit %s: writer already closed", w.path)
	}
	err := w.commit(ctx)
	w.done = true
	if err != nil {
		w.abortUpload()
	}
	w.buf = nil
	return err
}

func (w *writer) commit(ctx context.Context) error {
	if w.err != nil {
		return w.err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("commit %s: %w", w.path, err)
	}
	if !w.fs.cfg.ConditionalWrites {
		if _, err := w.fs.head(ctx, w.loc); err == nil {
			return fmt.Errorf("publish %s: %w", w.path, fileio.ErrExists)
		} else if !isNotFound(err) {
			return fmt.Errorf("publish %s: %w", w.path, err)
		}
	}
	var noneMatch *string
	if w.fs.cfg.ConditionalWrites {
		noneMatch = aws.String("*")
	}
	// The publishing request is not abandoned when the caller's context is cancelled: a PUT the
	// client gives up on may still land on the server after the caller has cleaned up (a
	// cancelled sibling task deleting "its" file that then appears), so the request runs to its
	// answer, bounded by publishTimeout, and the caller learns whether the object exists.
	pubCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), publishTimeout)
	defer cancel()
	publish := func() error {
		if w.uploadID == nil {
			w.fs.puts.Add(1)
			_, err := w.fs.cli.PutObject(pubCtx, &s3.PutObjectInput{
				Bucket: &w.loc.bucket, Key: &w.loc.key, Body: bytes.NewReader(w.buf),
				ContentLength: aws.Int64(int64(len(w.buf))), IfNoneMatch: noneMatch,
			})
			if err == nil {
				w.fs.written.Add(int64(len(w.buf)))
			}
			return err
		}
		if len(w.buf) > 0 {
			if err := w.uploadPart(); err != nil {
				return err
			}
		}
		w.fs.puts.Add(1)
		_, err := w.fs.cli.CompleteMultipartUpload(pubCtx, &s3.CompleteMultipartUploadInput{
			Bucket: &w.loc.bucket, Key: &w.loc.key, UploadId: w.uploadID,
			MultipartUpload: &s3types.CompletedMultipartUpload{Parts: w.parts}, IfNoneMatch: noneMatch,
		})
		if err == nil {
			w.uploadID = nil
		}
		return err
	}
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if err = publish(); err == nil || !isConditionalConflict(err) {
			break
		}
		select {
		case <-time.After(time.Duration(50*(attempt+1)) * time.Millisecond):
		case <-ctx.Done():
			return fmt.Errorf("publish %s: %w", w.path, ctx.Err())
		}
	}
	switch {
	case err == nil:
		return nil
	case isTaken(err):
		return fmt.Errorf("publish %s: %w", w.path, fileio.ErrExists)
	case w.fs.cfg.ConditionalWrites && httpStatus(err) == http.StatusNotImplemented:
		return fmt.Errorf("publish %s: the server does not implement If-None-Match (s3.conditional-writes=false publishes after a HEAD instead, as Java does): %w", w.path, err)
	default:
		return fmt.Errorf("publish %s: %w", w.path, err)
	}
}

// publishTimeout bounds a publishing request that runs on after its caller was cancelled.
const publishTimeout = 2 * time.Minute

// abortUpload discards the parts of an unfinished multipart upload.
func (w *writer) abortUpload() {
	if w.uploadID == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(w.ctx), time.Minute)
	defer cancel()
	w.fs.cli.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &w.loc.bucket, Key: &w.loc.key, UploadId: w.uploadID})
	w.uploadID = nil
}

func (w *writer) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	w.abortUpload()
	w.buf = nil
	return nil
}

// WriteFileAtomic writes a new object, refusing an existing name with ErrExists.
func (f *FS) WriteFileAtomic(ctx context.Context, p string, data []byte) error {
	return fileio.WriteNew(ctx, f, p, data)
}

// OverwriteFile replaces an object with one PUT (readers see the old or the new content).
func (f *FS) OverwriteFile(ctx context.Context, p string, data []byte) error {
	loc, err := parse(p)
	if err != nil {
		return fmt.Errorf("overwrite %s: %w", p, err)
	}
	f.puts.Add(1)
	if _, err := f.cli.PutObject(ctx, &s3.PutObjectInput{
		Bucket: &loc.bucket, Key: &loc.key, Body: bytes.NewReader(data), ContentLength: aws.Int64(int64(len(data))),
	}); err != nil {
		return fmt.Errorf("overwrite %s: %w", p, err)
	}
	f.written.Add(int64(len(data)))
	return nil
}

// Exists reports whether an object, or a directory (any object under the prefix), is at p.
func (f *FS) Exists(ctx context.Context, p string) (bool, error) {
	loc, err := parse(p)
	if err != nil {
		return false, fmt.Errorf("stat %s: %w", p, err)
	}
	if loc.key != "" {
		_, err := f.head(ctx, loc)
		if err == nil {
			return true, nil
		}
		if !isNotFound(err) {
			return false, fmt.Errorf("stat %s: %w", p, err)
		}
	}
	prefix := dirPrefix(loc.key)
	f.lists.Add(1)
	out, err := f.cli.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &loc.bucket, Prefix: &prefix, MaxKeys: aws.Int32(1)})
	if err != nil {
		if isNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("stat %s: %w", p, err)
	}
	return len(out.Contents) > 0 || len(out.CommonPrefixes) > 0, nil
}

func dirPrefix(key string) string {
	if key == "" {
		return ""
	}
	return key + "/"
}

// FileSize returns an object's length.
func (f *FS) FileSize(ctx context.Context, p string) (int64, error) {
	loc, err := parse(p)
	if err != nil {
		return 0, fmt.Errorf("stat %s: %w", p, err)
	}
	h, err := f.head(ctx, loc)
	if err != nil {
		if isNotFound(err) {
			return 0, notExist("stat", p, err)
		}
		return 0, fmt.Errorf("stat %s: %w", p, err)
	}
	return aws.ToInt64(h.ContentLength), nil
}

// List lists the objects (files) and common prefixes (directories) directly under dir, page by
// page; a prefix without objects yields no entries.
func (f *FS) List(ctx context.Context, dir string) ([]fileio.FileStatus, error) {
	loc, err := parse(dir)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	prefix := dirPrefix(loc.key)
	base := strings.TrimRight(dir, "/")
	var out []fileio.FileStatus
	in := &s3.ListObjectsV2Input{Bucket: &loc.bucket, Prefix: &prefix, Delimiter: aws.String("/")}
	if f.cfg.ListPageSize > 0 {
		in.MaxKeys = aws.Int32(f.cfg.ListPageSize)
	}
	pager := s3.NewListObjectsV2Paginator(f.cli, in)
	for pager.HasMorePages() {
		f.lists.Add(1)
		page, err := pager.NextPage(ctx)
		if err != nil {
			if isNotFound(err) {
				return nil, nil
			}
			return nil, fmt.Errorf("list %s: %w", dir, err)
		}
		for _, cp := range page.CommonPrefixes {
			name := strings.TrimSuffix(strings.TrimPrefix(aws.ToString(cp.Prefix), prefix), "/")
			if name == "" {
				continue
			}
			out = append(out, fileio.FileStatus{Path: base + "/" + name, Name: name, IsDir: true})
		}
		for _, o := range page.Contents {
			name := strings.TrimPrefix(aws.ToString(o.Key), prefix)
			if name == "" || strings.Contains(name, "/") {
				// The directory's own marker object, or a marker "sub/" of a subdirectory
				// already listed as a common prefix.
				continue
			}
			st := fileio.FileStatus{Path: base + "/" + name, Name: name, Size: aws.ToInt64(o.Size)}
			if o.LastModified != nil {
				st.ModTimeMillis = o.LastModified.UnixMilli()
			}
			out = append(out, st)
		}
	}
	return out, nil
}

// Delete removes one object; a missing object is not an error (S3 reports none). A directory
// made only of a marker object ("dir/") is removed by deleting that marker.
func (f *FS) Delete(ctx context.Context, p string) error {
	loc, err := parse(p)
	if err != nil {
		return fmt.Errorf("delete %s: %w", p, err)
	}
	if loc.key == "" {
		return fmt.Errorf("delete %s: is a bucket", p)
	}
	if _, err := f.cli.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &loc.bucket, Key: &loc.key}); err != nil && !isNotFound(err) {
		return fmt.Errorf("delete %s: %w", p, err)
	}
	return nil
}

// DeleteQuietly removes one object and ignores failures; it runs even when ctx is cancelled,
// because cleanup must still happen then.
func (f *FS) DeleteQuietly(ctx context.Context, p string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	f.Delete(ctx, p)
}

// Mkdirs does nothing: a directory on S3 is the prefix of the objects under it.
func (f *FS) Mkdirs(ctx context.Context, p string) error {
	if _, err := parse(p); err != nil {
		return fmt.Errorf("mkdirs %s: %w", p, err)
	}
	return ctx.Err()
}

// Rename copies src to dst without replacing dst (a conditional copy, or a HEAD first when
// conditional writes are off) and deletes src. It is not atomic: the copy may be visible before
// src is gone.
func (f *FS) Rename(ctx context.Context, src, dst string) error {
	ls, err := parse(src)
	if err != nil {
		return fmt.Errorf("rename %s: %w", src, err)
	}
	ld, err := parse(dst)
	if err != nil {
		return fmt.Errorf("rename %s: %w", dst, err)
	}
	in := &s3.CopyObjectInput{Bucket: &ld.bucket, Key: &ld.key, CopySource: aws.String(ls.bucket + "/" + ls.key)}
	if f.cfg.ConditionalWrites {
		in.IfNoneMatch = aws.String("*")
	} else if _, err := f.head(ctx, ld); err == nil {
		return fmt.Errorf("rename %s to %s: %w", src, dst, fileio.ErrExists)
	} else if !isNotFound(err) {
		return fmt.Errorf("rename %s to %s: %w", src, dst, err)
	}
	if _, err := f.cli.CopyObject(ctx, in); err != nil {
		switch {
		case isTaken(err):
			return fmt.Errorf("rename %s to %s: %w", src, dst, fileio.ErrExists)
		case isNotFound(err):
			return notExist("rename", src, err)
		}
		return fmt.Errorf("rename %s to %s: %w", src, dst, err)
	}
	if err := f.Delete(ctx, src); err != nil {
		return fmt.Errorf("rename %s to %s: %w", src, dst, err)
	}
	return nil
}

// CreateBucket creates a bucket (for tests and setup tools); an existing one owned by the caller
// is not an error.
func (f *FS) CreateBucket(ctx context.Context, bucket string) error {
	_, err := f.cli.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket})
	if err != nil {
		var owned *s3types.BucketAlreadyOwnedByYou
		if errors.As(err, &owned) || apiCode(err) == "BucketAlreadyOwnedByYou" || apiCode(err) == "BucketAlreadyExists" {
			return nil
		}
		return fmt.Errorf("create bucket %s: %w", bucket, err)
	}
	return nil
}
