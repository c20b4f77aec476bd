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
		{"snapshot.num-retained.min", "3", Honoured, false},
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

// TestDecideForMaintain checks the per-operation classification: the index-only maintenance
// accepts what cannot change what it writes (a changelog producer, full-compaction triggers, data
// file writer settings, user keys outside Paimon's namespaces), while writes and compactions keep
// refusing them; what the maintenance cannot honour stays refused for every operation.
func TestDecideForMaintain(t *testing.T) {
	r := New()
	for _, c := range []struct {
		key, value    string
		maintainClass Class
		maintainOK    bool
		writeOK       bool
	}{
		{"changelog-producer", "lookup", Inert, true, false},
		{"changelog-producer", "input", Inert, true, false},
		{"changelog-producer", "none", Inert, true, true},
		{"full-compaction.delta-commits", "3", Inert, true, false},
		{"compaction.skip-expired-partitions", "true", Inert, true, false},
		{"lookup.remote-file.enabled", "true", Inert, true, false},
		{"file.block-size", "128 mb", Inert, true, false},
		{"parquet.enable.dictionary", "1", Inert, true, false},
		{"parquet.page.size", "1024", Inert, true, false},
		{"file-index.bloom-filter.columns", "k", Inert, true, false},
		{"fields.v.aggregate-function", "collect", Inert, true, false},
		{"fields.v.nested-key", "k", Inert, true, false},
		{"commit.discard-duplicate-files", "true", Inert, true, false},
		{"owner", "team-search", Inert, true, false},
		{"team.contact", "x", Inert, true, false},
		{"snapshot.num-retained.min", "3", Honoured, true, true},
		// Snapshot expiry runs after the index-only commit too: its bounds are checked, and
		// what Go's expiry would do differently is refused.
		{"snapshot.num-retained.min", "0", Honoured, false, false},
		{"snapshot.time-retained", "2 h", Honoured, true, true},
		{"snapshot.expire.execution-mode", "async", Inert, true, true},
		{"consumer.expiration-time", "1 d", Refused, false, false},
		{"bucket", "4", Honoured, true, true},
		// What changes the index files, manifests or snapshots, or what the data files are,
		// stays refused.
		{"bucket", "-1", Honoured, false, false},
		{"pk-vector.index.columns", "v", Refused, false, false},
		{"manifest.compression", "bzip2", Honoured, false, false},
		{"manifest.format", "orc", Honoured, false, false},
		{"manifest-sort.enabled", "true", Refused, false, false},
		// The maintenance reads each data file in the format its name says: Avro is read, an ORC
		// file is refused by name when read (not by the option).
		{"file.format", "orc", Inert, true, false},
		{"file.format", "avro", Inert, true, false},
		{"file.format.per.level", "0:avro", Inert, true, false},
		{"deletion-vectors.bitmap64", "true", Refused, false, false},
		{"metadata.iceberg.storage", "table-location", Refused, false, false},
		{"commit.callbacks", "com.example.Cb", Refused, false, false},
		{"commit.force-create-snapshot", "true", Refused, false, false},
		{"snapshot.ignore-empty-commit", "true", Refused, false, false},
		{"branch", "dev", Refused, false, false},
		{"type", "format-table", Refused, false, false},
		{"row-tracking.enabled", "true", Refused, false, false},
		{"pk-clustering-override", "true", Refused, false, false},
		{"sequence.snapshot-ordering", "true", Refused, false, false},
		// Unknown keys in Paimon's namespaces stay refused.
		{"pk-foo.index.columns", "c", 0, false, false},
		{"sink.no-such-option", "1", 0, false, false},
		{"fields.c.no-such-option", "1", 0, false, false},
		{"orc.x", "1", Inert, true, true},
		{"fs.s3a.endpoint", "x", 0, false, false},
		{"Changelog-Producer.x", "1", 0, false, false},
	} {
		m := r.DecideFor(Maintain, c.key, c.value)
		if m.Class != c.maintainClass || (m.Err == nil) != c.maintainOK || m.Reason == "" && m.Err == nil {
			t.Errorf("maintain %s = %q: class %v, reason %q, err %v; want %v, ok %v", c.key, c.value, m.Class, m.Reason, m.Err, c.maintainClass, c.maintainOK)
		}
		_, rule := errors.AsType[*RuleError](m.Err)
		if m.Err != nil && (errors.Is(m.Err, ErrRefused) == rule || !strings.Contains(m.Err.Error(), c.key) || !strings.Contains(m.Err.Error(), c.value)) {
			t.Errorf("maintain %s = %q: error %q does not name key and value", c.key, c.value, m.Err)
		}
		for _, op := range []Op{Write, Compact} {
			if d := r.DecideFor(op, c.key, c.value); (d.Err == nil) != c.writeOK {
				t.Errorf("%v %s = %q: err %v, want ok %v", op, c.key, c.value, d.Err, c.writeOK)
			}
		}
		if d := r.Decide(c.key, c.value); (d.Err == nil) != c.writeOK {
			t.Errorf("Decide %s = %q: err %v, want ok %v", c.key, c.value, d.Err, c.writeOK)
		}
	}
	err := r.CheckFor(Maintain, map[string]string{"bucket": "2", "changelog-producer": "input", "owner": "x", "pk-vector.index.columns": "v"})
	if err == nil || !strings.Contains(err.Error(), "pk-vector.index.columns") || strings.Contains(err.Error(), "changelog-producer") || strings.Contains(err.Error(), "owner") {
		t.Fatalf("CheckFor(Maintain): %v", err)
	}
}

// TestMaintainInertOnlyWidens checks that a MaintainInert reason is given only where the
// maintenance would otherwise refuse some value (a refused key, or a honoured key with a value
// check), so the per-operation class always differs from the entry's.
func TestMaintainInertOnlyWidens(t *testing.T) {
	n := 0
	for _, e := range New().Entries() {
		if e.MaintainInert == "" {
			continue
		}
		n++
		if e.Class != Refused && e.Accept == nil {
			t.Errorf("%s: %v without a value check, yet marked inert for the maintenance", e.Key, e.Class)
		}
	}
	if n == 0 {
		t.Fatal("no key is inert for the maintenance")
	}
	if New().Foreign("fields.x") || New().Foreign("") || !New().Foreign("owner") {
		t.Fatal("Foreign")
	}
}

// TestPaimonRulesAreNotRefusals: a value Java Paimon's SchemaValidation refuses too is refused
// with Paimon's rule (the option, the value, the bound), wrapping a *RuleError and not
// ErrRefused (no limitation of pkft); a maximum below 1 is left to the check of the minimum
// against it (internal/expire), and a snapshot.expire.limit below 1, which Java accepts, stays a
// pkft refusal that says so. CheckFor names the values Paimon refuses alone.
func TestPaimonRulesAreNotRefusals(t *testing.T) {
	r := New()
	for _, c := range []struct {
		key, value string
		rule       bool
		want       string
	}{
		{"snapshot.num-retained.min", "0", true, `table option snapshot.num-retained.min = "0": snapshot.num-retained.min should be at least 1; Java Paimon's SchemaValidation refuses it too`},
		{"snapshot.num-retained.min", "-3", true, `table option snapshot.num-retained.min = "-3": snapshot.num-retained.min should be at least 1; Java Paimon's SchemaValidation refuses it too`},
		{"changelog.num-retained.min", "0", true, `table option changelog.num-retained.min = "0": changelog.num-retained.min should be at least 1; Java Paimon's SchemaValidation refuses it too`},
		{"snapshot.num-retained.max", "0", false, ""},
		{"changelog.num-retained.max", "0", false, ""},
		{"snapshot.num-retained.max", "many", false, `table option snapshot.num-retained.max = "many": not an integer: table option not supported by pkft`},
		{"snapshot.expire.limit", "0", false, `table option snapshot.expire.limit = "0": below 1, which Java Paimon accepts (its expiry then expires no snapshot) but pkft's expiry does not implement: table option not supported by pkft`},
	} {
		for _, op := range Ops {
			d := r.DecideFor(op, c.key, c.value)
			_, rule := errors.AsType[*RuleError](d.Err)
			switch {
			case c.want == "" && d.Err != nil:
				t.Errorf("%v %s = %q: %v, want accepted here", op, c.key, c.value, d.Err)
			case c.want != "" && (d.Err == nil || d.Err.Error() != c.want):
				t.Errorf("%v %s = %q: %v, want %q", op, c.key, c.value, d.Err, c.want)
			case d.Err != nil && (rule != c.rule || errors.Is(d.Err, ErrRefused) == c.rule):
				t.Errorf("%v %s = %q: rule error %v, ErrRefused %v; want rule %v", op, c.key, c.value, rule, errors.Is(d.Err, ErrRefused), c.rule)
			}
		}
	}
	err := r.CheckFor(Write, map[string]string{"snapshot.num-retained.min": "0", "pk-vector.index.columns": "v"})
	if _, ok := errors.AsType[*RuleError](err); !ok || errors.Is(err, ErrRefused) || strings.Contains(err.Error(), "pk-vector") {
		t.Errorf("CheckFor with a value Paimon refuses and a refused option: %v; want Paimon's rule alone", err)
	}
}
