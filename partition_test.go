package pkft_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft"
)

// javaGolden is the part of a compat/golden/java/<table>.json record this test reads: Java's
// dump (its partitions, printed by the runner as Java Paimon's dump prints values) and the rows
// Java read.
type javaGolden struct {
	Dump struct {
		Buckets []struct {
			Partition map[string]any `json:"partition"`
			Bucket    int32          `json:"bucket"`
		} `json:"buckets"`
	} `json:"dump"`
	Rows []map[string]any `json:"rows"`
}

func readJavaGolden(t *testing.T, name string) javaGolden {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("compat", "golden", "java", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var g javaGolden
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// jsonHit is a search hit as its JSON reads.
type jsonHit struct {
	Key       []any          `json:"key"`
	Partition map[string]any `json:"partition"`
	Bucket    int32          `json:"bucket"`
}

// searchJSON searches tbl for query (up to 1000 hits, at least one) and decodes the hits' JSON.
func searchJSON(t *testing.T, tbl *pkft.Table, query string) []jsonHit {
	t.Helper()
	hits, err := tbl.Search(context.Background(), query, pkft.WithLimit(1000))
	if err != nil {
		t.Fatal(err)
	}
	if len(hits.Hits) == 0 {
		t.Fatal("no hits")
	}
	data, err := json.Marshal(hits)
	if err != nil {
		t.Fatal(err)
	}
	var decoded struct {
		Hits []jsonHit `json:"hits"`
	}
	if err := json.Unmarshal(data, &decoded); err != nil {
		t.Fatal(err)
	}
	return decoded.Hits
}

// bucketKey is a (partition, bucket) as JSON text: the partition object re-encoded by
// encoding/json, so that key order does not matter.
func bucketKey(t *testing.T, partition any, bucket int32) string {
	t.Helper()
	b, err := json.Marshal(partition)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("partition %s: %v", b, err)
	}
	out, err := json.Marshal(struct {
		P map[string]any
		B int32
	}{m, bucket})
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// jsonBuckets decodes the (partition, bucket)s of a JSON output with a "buckets" array.
func jsonBuckets(t *testing.T, v any) []string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Buckets []struct {
			Partition json.RawMessage `json:"partition"`
			Bucket    int32           `json:"bucket"`
		} `json:"buckets"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	keys := []string{}
	for _, b := range out.Buckets {
		keys = append(keys, bucketKey(t, b.Partition, b.Bucket))
	}
	slices.Sort(keys)
	return keys
}

// TestJSONPartitionsAreJavasDump checks that every JSON output of the library (dump, state,
// maintain dry run and real, search, write, compact) prints partition values (and search prints
// key values) exactly as Java's recorded dump and rows print them:
// DATE as yyyy-mm-dd, DECIMAL in plain notation, TIMESTAMP as Java's LocalDateTime.
func TestJSONPartitionsAreJavasDump(t *testing.T) {
	ctx := context.Background()
	golden := readJavaGolden(t, "partitioned-dv")
	var java []string
	for _, b := range golden.Dump.Buckets {
		java = append(java, bucketKey(t, b.Partition, b.Bucket))
	}
	slices.Sort(java)
	if len(java) == 0 {
		t.Fatal("Java's dump has no bucket")
	}
	tbl, _ := openExample(t, "partitioned-dv")

	dump, err := tbl.Dump(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonBuckets(t, dump); !slices.Equal(got, java) {
		t.Errorf("dump partitions\n got %v\nwant %v", got, java)
	}
	state, err := tbl.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonBuckets(t, state); !slices.Equal(got, java) {
		t.Errorf("state partitions\n got %v\nwant %v", got, java)
	}
	plan, err := tbl.Maintain(ctx, pkft.WithDryRun(true))
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonBuckets(t, plan); !slices.Equal(got, java) {
		t.Errorf("maintain --dry-run partitions\n got %v\nwant %v", got, java)
	}
	res, err := tbl.Maintain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonBuckets(t, res); !slices.Equal(got, java) {
		t.Errorf("maintain partitions\n got %v\nwant %v", got, java)
	}

	for _, h := range searchJSON(t, tbl, "first") {
		if _, ok := slices.BinarySearch(java, bucketKey(t, h.Partition, h.Bucket)); !ok {
			t.Errorf("search hit partition %v bucket %d is not one of Java's dump", h.Partition, h.Bucket)
		}
		// The key (region, dt, id) holds the partition columns: printed the same way.
		if len(h.Key) != 3 || h.Key[0] != h.Partition["region"] || h.Key[1] != h.Partition["dt"] {
			t.Errorf("search hit key %v, partition %v", h.Key, h.Partition)
		}
	}

	w, err := tbl.NewWriter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, dt := range []any{time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC), int32(19782)} {
		if err := w.Write(ctx, pkft.Insert, []any{"us", dt, int32(7000 + i), "written"}); err != nil {
			t.Fatal(err)
		}
	}
	written, err := w.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := jsonBuckets(t, written)
	if len(got) == 0 {
		t.Fatal("the write wrote no bucket")
	}
	for _, k := range got {
		if _, ok := slices.BinarySearch(java, k); !ok {
			t.Errorf("write bucket %s is not one of Java's dump", k)
		}
	}

	compacted, err := tbl.Compact(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got = jsonBuckets(t, compacted)
	if len(got) == 0 {
		t.Fatal("compaction compacted no bucket")
	}
	for _, k := range got {
		if _, ok := slices.BinarySearch(java, k); !ok {
			t.Errorf("compact bucket %s is not one of Java's dump", k)
		}
	}
}

// TestJSONKeysAreJavasRows checks that search prints DECIMAL and TIMESTAMP key values as Java's
// recorded rows print them.
func TestJSONKeysAreJavasRows(t *testing.T) {
	ctx := context.Background()
	golden := readJavaGolden(t, "composite-key")
	type key struct{ price, ts any }
	java := map[key]bool{}
	for _, r := range golden.Rows {
		java[key{r["price"], r["ts"]}] = true
	}
	tbl, _ := openExample(t, "composite-key")
	if _, err := tbl.Maintain(ctx); err != nil {
		t.Fatal(err)
	}
	for _, h := range searchJSON(t, tbl, "first") {
		if len(h.Key) != 2 || !java[key{h.Key[0], h.Key[1]}] {
			t.Errorf("search hit key %v is not a key of Java's rows", h.Key)
		}
	}
}

// TestPartitionJSONRoundTrip checks that a partition decodes back from the JSON object pkft
// writes, keys in order, and that what is not such an object is an error.
func TestPartitionJSONRoundTrip(t *testing.T) {
	in := pkft.Partition{{Key: "region", Value: "eu"}, {Key: "n", Value: int64(-3)}, {Key: "x", Value: 1.5},
		{Key: "ok", Value: true}, {Key: "none", Value: nil}}
	data, err := json.Marshal(struct {
		P pkft.Partition `json:"p"`
	}{in})
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		P pkft.Partition `json:"p"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out.P, in) {
		t.Fatalf("round trip of %s: %#v, want %#v", data, out.P, in)
	}
	var empty pkft.Partition
	if err := json.Unmarshal([]byte(`{}`), &empty); err != nil || empty == nil || len(empty) != 0 {
		t.Fatalf("{} decodes to %#v, %v; want an empty partition", empty, err)
	}
	for _, bad := range []string{`[]`, `"eu"`, `{"a":[1]}`, `{"a":{"b":1}}`, `{"a":1`} {
		var p pkft.Partition
		if err := json.Unmarshal([]byte(bad), &p); err == nil {
			t.Errorf("%s decodes to %#v, want an error", bad, p)
		}
	}
}
