package main

import (
	"slices"
	"strings"
	"testing"
)

func TestParseBucketRanges(t *testing.T) {
	got, err := parseBucketRanges("0-2, 7,2-3")
	if err != nil || !slices.Equal(got, []int32{0, 1, 2, 7, 3}) {
		t.Fatalf("got %v, %v", got, err)
	}
	for _, bad := range []string{"", "a", "3-1", "-1", "1-", "0-2000000"} {
		if _, err := parseBucketRanges(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	for _, c := range []struct {
		in   string
		i, n int
		ok   bool
	}{{"0/1", 0, 1, true}, {"3/4", 3, 4, true}, {"4/4", 0, 0, false}, {"-1/2", 0, 0, false}, {"1", 0, 0, false}, {"0/0", 0, 0, false}} {
		i, n, err := parseShard(c.in)
		if (err == nil) != c.ok || i != c.i || n != c.n {
			t.Errorf("parseShard(%q) = %d, %d, %v", c.in, i, n, err)
		}
	}
}

// TestShardFlagsAreUsageErrors checks bad --buckets, --shard and --fs-option values exit with
// status 2 and name the flag, before the table is opened.
func TestShardFlagsAreUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"compact", dir, "--shard", "2/2"},
		{"maintain", dir, "--buckets", "5-1"},
		{"--fs-option", "novalue", "compact", dir},
	} {
		code, _, stderr := pkftRun(t, args...)
		flag := args[2]
		if args[0] == "--fs-option" {
			flag = args[0]
		}
		if code != 2 || !strings.Contains(stderr, flag) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %s", args, code, stderr, flag)
		}
	}
	code, _, stderr := pkftRun(t, "--fs-option", "s3.endpoint=http://127.0.0.1:1", "dump", dir)
	if code != 1 || !strings.Contains(stderr, "takes no file-system options") {
		t.Errorf("S3 option on a local table: exit %d, stderr %q", code, stderr)
	}
}
