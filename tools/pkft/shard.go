package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/paimon-pkft/pkft"
)

// maxBucketRange bounds how many buckets one --buckets value may name.
const maxBucketRange = 1 << 20

// shardFlags are the --buckets and --shard selections of maintain and compact.
type shardFlags struct {
	ranges string
	shard  string
}

func (s *shardFlags) add(f *pflag.FlagSet, verb string) {
	f.StringVar(&s.ranges, "buckets", "", verb+" only the buckets in these `RANGES`: N or A-B, comma-separated (for example 0-99,200-299)")
	f.StringVar(&s.shard, "shard", "", verb+" only shard `I/N` of the table's (partition, bucket) pairs (0 <= I < N; see pkft.ShardOf): N workers with shards 0..N-1 split the table with no overlap and no gap")
}

// options returns the selections the flags give.
func (s *shardFlags) options() ([]scopeOption, error) {
	var opts []scopeOption
	if s.ranges != "" {
		buckets, err := parseBucketRanges(s.ranges)
		if err != nil {
			return nil, usageError{fmt.Errorf("--buckets %q: %w", s.ranges, err)}
		}
		for _, b := range buckets {
			opts = append(opts, pkft.WithBucket(b))
		}
	}
	if s.shard != "" {
		i, n, err := parseShard(s.shard)
		if err != nil {
			return nil, usageError{fmt.Errorf("--shard %q: %w", s.shard, err)}
		}
		opts = append(opts, pkft.WithShard(i, n))
	}
	return opts, nil
}

// parseBucketRanges reads "0-99,200-299,7": bucket numbers and inclusive ranges (the syntax of
// Paimon's compact procedure's buckets argument).
func parseBucketRanges(v string) ([]int32, error) {
	var out []int32
	seen := map[int32]bool{}
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.ParseInt(strings.TrimSpace(lo), 10, 32)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("%q: want a bucket number >= 0 or a range A-B", part)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseInt(strings.TrimSpace(hi), 10, 32); err != nil || b < a {
				return nil, fmt.Errorf("%q: want a range A-B with A <= B", part)
			}
		}
		if b-a+1+int64(len(out)) > maxBucketRange {
			return nil, fmt.Errorf("more than %d buckets", maxBucketRange)
		}
		for n := a; n <= b; n++ {
			if !seen[int32(n)] {
				seen[int32(n)] = true
				out = append(out, int32(n))
			}
		}
	}
	return out, nil
}

// parseShard reads "I/N" with 0 <= I < N.
func parseShard(v string) (int, int, error) {
	a, b, ok := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("want I/N with 0 <= I < N")
	}
	return i, n, nil
}
