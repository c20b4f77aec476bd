package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// partitionsOf collects the (partition, bucket)s a JSON output lists, under "buckets" or, for
// search, "hits", each as the JSON text of {"p": partition, "b": bucket}.
func partitionsOf(t *testing.T, out string) []string {
	t.Helper()
	var doc struct {
		Buckets []struct {
			Partition map[string]any `json:"partition"`
			Bucket    int32          `json:"bucket"`
		} `json:"buckets"`
		Hits []struct {
			Partition map[string]any `json:"partition"`
			Bucket    int32          `json:"bucket"`
		} `json:"hits"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	var keys []string
	add := func(p map[string]any, b int32) {
		k, err := json.Marshal(map[string]any{"p": p, "b": b})
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, string(k))
	}
	for _, b := range doc.Buckets {
		add(b.Partition, b.Bucket)
	}
	for _, h := range doc.Hits {
		add(h.Partition, h.Bucket)
	}
	return keys
}

// TestJSONPartitionsAreJavasDump runs every command with JSON output on a copy of the Java
// table partitioned-dv (partitioned by STRING and DATE): each prints its partitions exactly as
// Java's dump of the table, recorded in compat/golden/java/partitioned-dv.json, prints them.
func TestJSONPartitionsAreJavasDump(t *testing.T) {
	testenv.Native(t)
	data, err := os.ReadFile(filepath.Join("..", "..", "compat", "golden", "java", "partitioned-dv.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Dump json.RawMessage `json:"dump"`
	}
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	java := partitionsOf(t, string(golden.Dump))
	slices.Sort(java)
	if len(java) == 0 {
		t.Fatal("Java's dump lists no bucket")
	}
	dir := goldenTable(t, "partitioned-dv", true)
	run := func(stdin string, args ...string) string {
		t.Helper()
		out, err := pkftRunIn(t, stdin, args...)
		if err != nil {
			t.Fatalf("pkft %v: %v", args, err)
		}
		return out
	}
	for _, c := range []struct {
		name string
		args []string
		// all: the output lists every bucket (else a subset).
		all   bool
		stdin string
	}{
		{"dump", []string{"dump", dir}, true, ""},
		{"state", []string{"state", dir, "--json"}, true, ""},
		{"maintain --dry-run", []string{"maintain", dir, "--dry-run", "--json"}, true, ""},
		{"maintain", []string{"maintain", dir, "--json", "--progress", "never"}, true, ""},
		{"search", []string{"search", dir, "--query", "first", "--limit", "1000", "--json"}, false, ""},
		{"write", []string{"write", dir, "--json"}, false,
			`{"region":"us","dt":"2024-02-29","id":7001,"content":"written"}` + "\n" + `{"region":"eu","dt":19753,"id":7002,"content":"written"}` + "\n"},
		{"compact", []string{"compact", dir, "--json", "--progress", "never"}, false, ""},
	} {
		got := partitionsOf(t, run(c.stdin, c.args...))
		if len(got) == 0 {
			t.Errorf("%s lists no partition", c.name)
		}
		for _, k := range got {
			if _, ok := slices.BinarySearch(java, k); !ok {
				t.Errorf("%s prints %s, not a (partition, bucket) of Java's dump %v", c.name, k, java)
			}
		}
		if c.all {
			slices.Sort(got)
			if got = slices.Compact(got); !slices.Equal(got, java) {
				t.Errorf("%s prints %v, Java's dump %v", c.name, got, java)
			}
		}
	}
}
