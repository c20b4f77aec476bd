package options

import (
	"errors"
	"strings"
	"testing"
)

func TestDecide(t *testing.T) {
	r := New()
	for _, c := range []struct {
		key, value string
		class      Class
		refused    bool
	}{
		{"bucket", "4", Honoured, false},
		{"bucket", "-1", Honoured, true},
		{"bucket", "-2", Honoured, true},
		{"merge-engine", "deduplicate", Honoured, false},
		{"merge-engine", "Partial-Update", Honoured, false},
		{"merge-engine", "aggregation", Honoured, false},
		{"merge-engine", "lookup-merge", Honoured, true},
		{"partial-update.remove-record-on-delete", "TRUE", Honoured, false},
		{"partial-update.remove-record-on-delete", "yes", Honoured, true},
		{"fields.a,b.sequence-group", "c", Honoured, false},
		{"first-row.ignore-delete", "true", Honoured, false}, // a fallback key of ignore-delete
		{"sequence.field", "ts", Honoured, false},            // the schema check is the writer's (mergetree.ParseMerge)
		{"sequence.field.sort-order", "DESCENDING", Honoured, false},
		{"sequence.field.sort-order", "random", Honoured, true},
		{"sequence.snapshot-ordering", "true", Refused, true},
		{"rowkind.field", "k", Honoured, false}, // the field is the writer's check
		{"compaction.force-rewrite-all-files", "false", Honoured, false},
		{"compaction.force-rewrite-all-files", "TRUE", Honoured, false},
		{"compaction.force-rewrite-all-files", "yes", Honoured, true}, // Java cannot parse it
		{"file.format.per.level", "0:avro", Honoured, true},
		{"file.format.per.level", "0:PARQUET,3:parquet", Honoured, false},
		{"file.format.per.level", "", Honoured, false},
		{"file.compression.per.level", "0:lz4, 1:zstd", Honoured, false},
		{"file.compression.per.level", "0:lzo", Honoured, true},
		{"file.compression.per.level", "x:zstd", Honoured, true},
		{"deletion-vector.index-file.target-size", "2mb", Refused, false}, // the default, spelled otherwise
		{"deletion-vector.index-file.target-size", "4 mb", Refused, true},
		{"snapshot.num-retained.min", "3", Inert, false},
		{"sink.parallelism", "8", Inert, false},
		{"fields.content.pk-full-text.index.options", `{"tokenizer":"jieba"}`, Honoured, false},
		{"fields.v.aggregate-function", "sum", Honoured, false},
		{"fields.v.aggregate-function", "theta_sketch", Honoured, true},
		{"fields.v.aggregate-function", "count", Honoured, true},
		{"fields.v.nested-key", "k", Refused, true},
		{"merge-engine", "AGGREGATION", Honoured, false},
		{"fields.a.b.default-value", "0", Refused, true},
		{"file-index.bloom-filter.columns", "k", Refused, true},
		{"commit.callback.com.example.Cb.param", "x", Inert, false},
		{"parquet.block.size", "1024", Refused, true},
		{"no-such-option", "1", 0, true},
		{"fields..stats-mode", "full", 0, true}, // the column placeholder needs a character
	} {
		d := r.Decide(c.key, c.value)
		if d.Entry.Class != c.class || (d.Err != nil) != c.refused {
			t.Errorf("%s = %q: class %v, err %v; want %v, refused %v", c.key, c.value, d.Entry.Class, d.Err, c.class, c.refused)
		}
		if d.Err != nil && (!errors.Is(d.Err, ErrRefused) || !strings.Contains(d.Err.Error(), c.key) || !strings.Contains(d.Err.Error(), c.value)) {
			t.Errorf("%s = %q: error %q does not name key and value", c.key, c.value, d.Err)
		}
	}
}

func TestCheckNamesEveryRefusal(t *testing.T) {
	err := New().Check(map[string]string{"bucket": "2", "sequence.snapshot-ordering": "true", "changelog-producer": "input", "scan.mode": "latest"})
	if err == nil || !strings.Contains(err.Error(), "sequence.snapshot-ordering") || !strings.Contains(err.Error(), "changelog-producer") || strings.Contains(err.Error(), "scan.mode") {
		t.Fatalf("Check: %v", err)
	}
	if err := New().Check(map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", "pk-full-text.index.columns": "content"}); err != nil {
		t.Fatalf("Check of a plain full-text table: %v", err)
	}
}

// TestEntriesAreComplete checks every entry says why, every honoured key names its test and
// every declared key is classified once.
func TestEntriesAreComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range New().Entries() {
		if seen[e.Key] {
			t.Errorf("%s: classified twice", e.Key)
		}
		seen[e.Key] = true
		if e.Class < Honoured || e.Class > Inert || strings.TrimSpace(e.Reason) == "" {
			t.Errorf("%s: class %v, reason %q", e.Key, e.Class, e.Reason)
		}
		if (e.Class == Honoured) != (e.Test != "") {
			t.Errorf("%s: class %v with test %q", e.Key, e.Class, e.Test)
		}
		if e.Accept != nil && e.Class != Honoured {
			t.Errorf("%s: a value check on a %v key", e.Key, e.Class)
		}
	}
}

func TestMatchWildcard(t *testing.T) {
	for _, c := range []struct {
		pattern, key string
		want         bool
	}{
		{"fields.*.stats-mode", "fields.a.stats-mode", true},
		{"fields.*.stats-mode", "fields.stats-mode", false},
		{"fields.*.map.*", "fields.m.map.storage-layout", true},
		{"fields.*.map.*", "fields.m.map.", false},
		{"parquet.*", "parquet.", false},
		{"parquet.*", "parquet.page.size", true},
		{"commit.callback.#.param", "commit.callback.x.param", true},
		{"commit.callback.#.param", "commit.callback.x.params", false},
	} {
		if got := matchWildcard(c.pattern, c.key); got != c.want {
			t.Errorf("match(%q, %q) = %v", c.pattern, c.key, got)
		}
	}
}

func TestManifestCompressionValues(t *testing.T) {
	r := New()
	for _, v := range []string{"zstd", "ZSTD", "zstandard", "deflate", "snappy", "null"} {
		if d := r.Decide("manifest.compression", v); d.Err != nil {
			t.Errorf("manifest.compression=%s: %v", v, d.Err)
		}
	}
	// none is no Avro codec: Java's writer fails with "Unrecognized codec: none".
	for _, v := range []string{"none", "lz4", "bzip2", "Snappy"} {
		d := r.Decide("manifest.compression", v)
		if !errors.Is(d.Err, ErrRefused) || !strings.Contains(d.Err.Error(), "manifest.compression") {
			t.Errorf("manifest.compression=%s: %v, want a refusal naming the key", v, d.Err)
		}
	}
}
