package main

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/compat/protocol"
)

// storage is the S3 settings configure-s3 gave the session, by bucket: later commands open the
// tables of s3://BUCKET/... and s3a://BUCKET/... paths with them (pkft.WithFileSystemOptions).
// One value lives in the context of serve: there is no state beyond the session.
type storage struct {
	mu      sync.Mutex
	buckets map[string]map[string]string
}

// storageKey is the context key of the session's storage.
type storageKey struct{}

// withStorage returns ctx carrying a new, empty storage.
func withStorage(ctx context.Context) context.Context {
	return context.WithValue(ctx, storageKey{}, &storage{buckets: map[string]map[string]string{}})
}

// objectStoreBucket returns the bucket of an s3:// or s3a:// path, and whether path is one.
func objectStoreBucket(path string) (string, bool) {
	for _, scheme := range []string{"s3://", "s3a://"} {
		if rest, ok := strings.CutPrefix(path, scheme); ok {
			bucket, _, _ := strings.Cut(rest, "/")
			return bucket, true
		}
	}
	return "", false
}

// openOptions are the options of pkft.Open for the table at path: the file-system options
// configure-s3 gave its bucket, none for a local path. An s3 path of a bucket configure-s3 did
// not configure is opened with none (pkft then reads the AWS_* environment).
func openOptions(ctx context.Context, path string) []pkft.OpenOption {
	bucket, ok := objectStoreBucket(path)
	st, _ := ctx.Value(storageKey{}).(*storage)
	if !ok || st == nil {
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if opts := st.buckets[bucket]; opts != nil {
		return []pkft.OpenOption{pkft.WithFileSystemOptions(opts)}
	}
	return nil
}

// cmdConfigureS3 records the S3 settings of one bucket for the commands after it: the tables of
// s3://BUCKET/... and s3a://BUCKET/... paths are opened with pkft's s3.endpoint, s3.access-key,
// s3.secret-key, s3.path.style.access and s3.region. Result: {bucket}.
func cmdConfigureS3(ctx context.Context, args protocol.ConfigureS3Request) (protocol.ConfigureS3Response, error) {
	var none protocol.ConfigureS3Response
	if args.Bucket == "" || args.Endpoint == "" {
		return none, argErrorf("args.bucket and args.endpoint are required")
	}
	st, _ := ctx.Value(storageKey{}).(*storage)
	if st == nil {
		return none, argErrorf("configure-s3 outside a session")
	}
	opts := map[string]string{"s3.endpoint": args.Endpoint, "s3.access-key": args.AccessKey, "s3.secret-key": args.SecretKey}
	if args.PathStyle != nil {
		opts["s3.path.style.access"] = strconv.FormatBool(*args.PathStyle)
	}
	if args.Region != nil && *args.Region != "" {
		opts["s3.region"] = *args.Region
	}
	st.mu.Lock()
	st.buckets[args.Bucket] = opts
	st.mu.Unlock()
	return protocol.ConfigureS3Response{Bucket: args.Bucket}, nil
}
