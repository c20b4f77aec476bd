package runner

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/options"
)

// The table differential's second layer of options: every honoured key the schema and merge
// choices of genTableScript do not already set gets a valid non-default value in some scripts,
// so the 200 seeds of make compat exercise every key pkft says it honours against Java's reads.
// The layer draws from its own generator, so a seed's schema, rows and steps stay those it had
// before the layer existed (the regression seeds keep reproducing their scripts' operations).

// tdExtDir is the placeholder of an external directory in an option value; runTableScript
// replaces it with a directory of the script's own.
const tdExtDir = "{{ext}}"

// tdExtraOption is one honoured key the layer sets: its values, and when a script may take it.
type tdExtraOption struct {
	key    string
	values []string
	// when reports whether the script may set the key (nil: always); the layer's earlier
	// choices are in s.options already.
	when func(s *tdScript) bool
	// oneIn is the chance (one in oneIn) a script that may set the key sets it; 0 means 5.
	oneIn int
}

// dvTable reports whether the script's table has deletion vectors.
func (s *tdScript) dvTable() bool { return s.options["deletion-vectors.enabled"] == "true" }

// needsLookup is CoreOptions#needLookup for the script's options: deletion vectors, force-lookup
// or the first-row engine. A batch read of such a table does not read level 0.
func (s *tdScript) needsLookup() bool {
	return s.dvTable() || s.options["force-lookup"] == "true" || s.engine == "first-row"
}

// tdExtraOptions are the keys of the layer, in the order it decides them.
func tdExtraOptions() []tdExtraOption {
	hasSorted := func(family string) func(s *tdScript) bool {
		return func(s *tdScript) bool { return s.options["pk-"+family+".index.columns"] != "" }
	}
	return []tdExtraOption{
		{key: "file.format", values: []string{"parquet"}},
		{key: "manifest.format", values: []string{"avro"}},
		{key: "changelog-producer", values: []string{"none"}},
		{key: "file.compression.zstd-level", values: []string{"3", "9"}, when: func(s *tdScript) bool {
			c, set := s.options["file.compression"]
			return !set || c == "zstd"
		}},
		{key: "file.compression.per.level", values: []string{"0:lz4", "0:snappy,1:none", "1:gzip,4:zstd"}},
		{key: "file.format.per.level", values: []string{"0:parquet", "1:parquet,3:parquet"}},
		{key: "file.suffix.include.compression", values: []string{"true"}},
		{key: "data-file.prefix", values: []string{"dat-", "part_"}},
		{key: "data-file.path-directory", values: []string{"files"}},
		{key: "data-file.external-paths", values: []string{"file://" + tdExtDir + "/a", "file://" + tdExtDir + "/a,file://" + tdExtDir + "/b"}},
		{key: "data-file.external-paths.strategy", values: []string{"round-robin", "weight-robin"}, when: func(s *tdScript) bool {
			return s.options["data-file.external-paths"] != ""
		}},
		{key: "data-file.external-paths.weights", values: []string{"1,3"}, when: func(s *tdScript) bool {
			return s.options["data-file.external-paths.strategy"] == "weight-robin" && strings.Contains(s.options["data-file.external-paths"], ",")
		}},
		{key: "global-index.external-path", values: []string{"file://" + tdExtDir + "/index"}, when: func(s *tdScript) bool {
			return s.fullText || s.sorted > 0
		}},
		{key: "global-index.enabled", values: []string{"false"}},
		{key: "manifest.compression", values: []string{"snappy", "null", "deflate"}},
		{key: "manifest.target-file-size", values: []string{"2 kb"}},
		{key: "manifest.full-compaction-threshold-size", values: []string{"4 kb"}},
		{key: "manifest.merge-min-count", values: []string{"2", "3"}},
		{key: "partition.default-name", values: []string{"NULL_PART"}},
		{key: "partition.legacy-name", values: []string{"false"}},
		{key: "ignore-update-before", values: []string{"true"}},
		{key: "ignore-delete", values: []string{"true"}, when: func(s *tdScript) bool { return s.engine == "deduplicate" && !s.seqField }},
		{key: "page-size", values: []string{"4 kb"}},
		{key: "write-buffer-size", values: []string{"48 kb", "1 mb"}, when: func(s *tdScript) bool {
			return s.options["page-size"] == "4 kb"
		}},
		{key: "write-buffer-spillable", values: []string{"false", "true"}},
		{key: "write-buffer-spill.max-disk-size", values: []string{"16 kb"}},
		{key: "spill-compression", values: []string{"none", "zstd"}},
		{key: "spill-compression.zstd-level", values: []string{"3"}, when: func(s *tdScript) bool {
			return s.options["spill-compression"] != "none"
		}},
		{key: "local-sort.max-num-file-handles", values: []string{"2", "3"}},
		{key: "target-file-row-num", values: []string{"7", "20"}},
		{key: "compaction.small-file-ratio", values: []string{"0.3", "0.95"}},
		{key: "num-sorted-run.compaction-trigger", values: []string{"2", "3"}},
		{key: "num-levels", values: []string{"3", "4"}},
		{key: "commit.force-compact", values: []string{"true"}},
		{key: "write.sequence-number-init-mode", values: []string{"snapshot"}},
		{key: "compaction.max-size-amplification-percent", values: []string{"50", "400"}},
		{key: "compaction.force-up-level-0", values: []string{"true"}},
		{key: "compaction.size-ratio", values: []string{"0", "10"}},
		{key: "compaction.offpeak.start.hour", values: []string{"0"}},
		{key: "compaction.offpeak.end.hour", values: []string{"23"}, when: func(s *tdScript) bool {
			return s.options["compaction.offpeak.start.hour"] != ""
		}},
		{key: "compaction.offpeak-ratio", values: []string{"5"}},
		{key: "compaction.optimization-interval", values: []string{"1 ms", "1 h"}},
		{key: "compaction.total-size-threshold", values: []string{"1 kb", "1 gb"}},
		{key: "compaction.incremental-size-threshold", values: []string{"1 kb"}},
		{key: "force-lookup", values: []string{"true"}, when: func(s *tdScript) bool { return s.engine == "deduplicate" }},
		{key: "write-only", values: []string{"true"}, when: func(s *tdScript) bool {
			// A write-only writer leaves its rows on level 0, which the batch read of a table
			// that needs lookup does not see until a compaction.
			return !s.needsLookup()
		}},
		{key: "lookup-wait", values: []string{"false"}},
		{key: "lookup-compact", values: []string{"gentle", "radical"}, when: func(s *tdScript) bool {
			// Gentle lookup compaction leaves a commit's rows on level 0 until its interval
			// forces a compaction, so a lookup table's batch read does not see them: the model
			// (every commit visible) holds for gentle only on tables without lookup.
			return !s.needsLookup()
		}, oneIn: 2},
		{key: "lookup-compact.max-interval", values: []string{"2", "4"}, when: func(s *tdScript) bool {
			return s.options["lookup-compact"] == "gentle"
		}, oneIn: 2},
		// Snapshot expiry at every commit of both copies, by counts only: the time window (never
		// passed within a run) keeps every snapshot num-retained.max does not expire, so both
		// sides expire the same snapshots whatever their clocks. num-retained.min comes first
		// (Java refuses a max below the default min of 10), the changelog retention never above
		// the snapshot retention (a decoupled changelog is refused).
		{key: "snapshot.num-retained.min", values: []string{"1", "2"}},
		{key: "snapshot.num-retained.max", values: []string{"2", "4"}, when: func(s *tdScript) bool {
			return s.options["snapshot.num-retained.min"] != ""
		}, oneIn: 2},
		{key: "snapshot.time-retained", values: []string{"1 h", "2 h"}},
		{key: "snapshot.expire.limit", values: []string{"1", "3"}},
		{key: "snapshot.clean-empty-directories", values: []string{"true"}},
		{key: "changelog.num-retained.min", values: []string{"1"}, when: func(s *tdScript) bool {
			return s.options["snapshot.num-retained.min"] != ""
		}},
		{key: "changelog.num-retained.max", values: []string{"2"}, when: func(s *tdScript) bool {
			return s.options["snapshot.num-retained.max"] != ""
		}},
		{key: "changelog.time-retained", values: []string{"1 h"}},
		{key: "metadata.stats-mode.per.level", values: []string{"0:none", "0:full,1:counts"}},
		{key: "metadata.stats-dense-store", values: []string{"false"}},
		{key: "metadata.stats-keep-first-n-columns", values: []string{"2", "5"}},
		{key: "fields.ver.stats-mode", values: []string{"full", "none"}},
		{key: "data-file.thin-mode", values: []string{"true"}},
		{key: "btree-index.compression", values: []string{"zstd", "lz4"}, when: hasSorted("btree")},
		{key: "btree-index.compression-level", values: []string{"3"}, when: func(s *tdScript) bool {
			return hasSorted("btree")(s) && s.options["btree-index.compression"] != ""
		}},
		{key: "btree-index.block-size", values: []string{"1 kb"}, when: hasSorted("btree")},
		{key: "btree-index.fallback-scan-max-size", values: []string{"0", "1 mb"}, when: hasSorted("btree")},
		{key: "bitmap-index.fallback-scan-max-size", values: []string{"0", "1 mb"}, when: hasSorted("bitmap")},
		{key: "bitmap-index.dictionary-block-size", values: []string{"1 kb"}, when: hasSorted("bitmap")},
		{key: "bitmap-index.compression", values: []string{"zstd", "lz4"}, when: hasSorted("bitmap")},
		{key: "bitmap-index.compression-level", values: []string{"3"}, when: func(s *tdScript) bool {
			return hasSorted("bitmap")(s) && s.options["bitmap-index.compression"] != ""
		}},
	}
}

// addExtraOptions sets the layer's options: each key one script in five, from the seed's own
// generator; the column-level sorted options name one of the script's indexed columns.
func (s *tdScript) addExtraOptions() {
	r := rand.New(rand.NewPCG(s.seed, 0x0e7a5))
	for _, o := range tdExtraOptions() {
		if _, set := s.options[o.key]; set || r.IntN(cmp.Or(o.oneIn, 5)) != 0 || (o.when != nil && !o.when(s)) {
			continue
		}
		s.options[o.key] = o.values[r.IntN(len(o.values))]
	}
	for _, family := range []string{"btree", "bitmap"} {
		cols := strings.Split(s.options["pk-"+family+".index.columns"], ",")
		if cols[0] == "" || r.IntN(4) != 0 {
			continue
		}
		// A column option may not contradict the table-level one (Java: "defines conflicting
		// values"): only keys the table leaves unset.
		var kv []string
		for _, k := range map[string][]string{"btree": {"block-size", "compression"}, "bitmap": {"dictionary-block-size"}}[family] {
			if _, set := s.options[family+"-index."+k]; !set {
				kv = append(kv, fmt.Sprintf("%q:%q", k, map[string]string{"block-size": "2 kb", "compression": "zstd", "dictionary-block-size": "2 kb"}[k]))
			}
		}
		if len(kv) > 0 {
			s.options["fields."+cols[r.IntN(len(cols))]+".pk-"+family+".index.options"] = "{" + strings.Join(kv, ",") + "}"
		}
	}
	// Record-level expiry over a time field every row sets to the script's time: nothing is
	// old enough to expire within a run, so the model keeps every record, and the key's reading
	// (the time field's type, the files' statistics) is exercised on Java's tables.
	if r.IntN(8) == 0 {
		s.timeField = true
		s.fields = append(s.fields, field{"ts", "INT"})
		s.options["record-level.expire-time"] = "30 d"
		s.options["record-level.time-field"] = "ts"
	}
}

// tdNotVaried are the honoured keys the differential does not vary, each with the reason.
var tdNotVaried = map[string]string{
	"data-file.external-paths.specific-fs": "Java's specific-fs strategy picks an s3 or oss path; the differential's tables are local",
}

// tdUnexercised returns the honoured keys of the registry no script sets (pattern keys match
// any key of their pattern), leaving out tdNotVaried.
func tdUnexercised(seen map[string]map[string]bool) []string {
	var out []string
	for _, e := range options.New().Entries() {
		if e.Class != options.Honoured {
			continue
		}
		if _, ok := tdNotVaried[e.Key]; ok {
			continue
		}
		hit := seen[e.Key] != nil
		if e.Pattern() {
			for k := range seen {
				if tdMatchPattern(e.Key, k) {
					hit = true
					break
				}
			}
		}
		if !hit {
			out = append(out, e.Key)
		}
	}
	slices.Sort(out)
	return out
}

// tdMatchPattern matches a registry pattern key (fields.*.x, with * one field name) to a key.
func tdMatchPattern(pattern, key string) bool {
	prefix, suffix, ok := strings.Cut(pattern, "*")
	return ok && strings.HasPrefix(key, prefix) && strings.HasSuffix(key, suffix) && len(key) > len(prefix)+len(suffix)
}

// tdOptionsSeen is the set of values each option takes over the scripts.
func tdOptionsSeen(scripts []*tdScript) map[string]map[string]bool {
	seen := map[string]map[string]bool{}
	for _, s := range scripts {
		for k, v := range s.options {
			if seen[k] == nil {
				seen[k] = map[string]bool{}
			}
			seen[k][v] = true
		}
	}
	return seen
}

// TestTableDifferentialVariesEveryHonouredKey checks, without a JVM, that the default 200 scripts
// of table/differential set every honoured key of the registry at least once.
func TestTableDifferentialVariesEveryHonouredKey(t *testing.T) {
	scripts := make([]*tdScript, tableDiffDefaultN)
	for i := range scripts {
		scripts[i] = genTableScript(uint64(i + 1))
	}
	if missing := tdUnexercised(tdOptionsSeen(scripts)); len(missing) > 0 {
		t.Fatalf("no script of seeds 1-%d sets these honoured keys: %s", tableDiffDefaultN, strings.Join(missing, ", "))
	}
	for _, s := range scripts {
		for k, v := range s.options {
			if d := options.New().Decide(k, v); d.Err != nil {
				t.Errorf("seed %d: %v", s.seed, d.Err)
			}
		}
	}
	t.Logf("%d scripts; every honoured key set but %s", len(scripts), strings.Join(slices.Sorted(maps.Keys(tdNotVaried)), ", "))
}
