package paths

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
)

func TestEscapePathName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"2024-01-01", "2024-01-01"},
		{"a/b", "a%2Fb"},
		{"k=v", "k%3Dv"},
		{"10:30:00", "10%3A30%3A00"},
		{"100%", "100%25"},
		{"#tag", "%23tag"},
		{"line\nbreak", "line%0Abreak"},
		{"\x01\x1f", "%01%1F"},
		{"del\x7f", "del%7F"},
		{`"'*?\{}[]^`, "%22%27%2A%3F%5C%7B%7D%5B%5D%5E"},
		{"a b", "a b"},
		{"a+b,c;d@e!f~g(h)&", "a+b,c;d@e!f~g(h)&"},
		{"中文/é", "中文%2Fé"},
		{DefaultPartitionName, DefaultPartitionName},
	}
	for _, tt := range tests {
		got, err := EscapePathName(tt.in)
		if err != nil {
			t.Errorf("EscapePathName(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("EscapePathName(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if back := UnescapePathName(got); back != tt.in {
			t.Errorf("UnescapePathName(%q) = %q, want %q", got, back, tt.in)
		}
	}
	if _, err := EscapePathName(""); err == nil {
		t.Error("EscapePathName(\"\") succeeded, want error")
	}
}

func TestUnescapeJavaQuirks(t *testing.T) {
	tests := []struct{ in, want string }{
		{"%zz", "%zz"},   // not hex: literal
		{"a%4", "a%4"},   // fewer than two characters left
		{"%41", "A"},     // exactly two characters left
		{"%+F", "\x0f"},  // Integer.parseInt accepts a sign
		{"%-0", "\x00"},  // -0 == 0 is a valid code
		{"%-1x", "%-1x"}, // negative: literal
		{"%e9", "é"},     // code >= 0x80 becomes that code point
		{"%%41", "%A"},   // first '%' is not followed by hex
	}
	for _, tt := range tests {
		if got := UnescapePathName(tt.in); got != tt.want {
			t.Errorf("UnescapePathName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPartitionPathAndValue(t *testing.T) {
	got, err := PartitionPath([]PartitionKV{{"dt", "2024-01-01"}, {"hr", "10:00"}})
	if err != nil || got != "dt=2024-01-01/hr=10%3A00/" {
		t.Errorf("PartitionPath = %q, %v", got, err)
	}
	if got, err := PartitionPath(nil); got != "" || err != nil {
		t.Errorf("PartitionPath(nil) = %q, %v", got, err)
	}
	if _, err := PartitionPath([]PartitionKV{{"dt", ""}}); err == nil {
		t.Error("empty value accepted")
	}
	if _, err := PartitionPath([]PartitionKV{{"", "x"}}); err == nil {
		t.Error("empty key accepted")
	}

	values := []struct{ in, want string }{
		{"", "__DEFAULT_PARTITION__"},
		{"   ", "__DEFAULT_PARTITION__"},
		{"\t\n\r\x0b\x0c\x1c\x1f", "__DEFAULT_PARTITION__"},
		{"\u3000\u2028\u2029\u2003", "__DEFAULT_PARTITION__"},
		{"\u00a0", "\u00a0"}, // no-break space is not Java whitespace
		{"\u2007", "\u2007"},
		{"\u202f", "\u202f"},
		{" a ", " a "},
		{"null", "null"},
	}
	for _, tt := range values {
		if got := PartitionValue(tt.in, DefaultPartitionName); got != tt.want {
			t.Errorf("PartitionValue(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFormatDate(t *testing.T) {
	tests := []struct {
		days   int32
		legacy bool
		want   string
	}{
		{0, false, "1970-01-01"},
		{19723, false, "2024-01-01"},
		{-1, false, "1969-12-31"},
		{11016, false, "2000-02-29"},
		{2932896, false, "9999-12-31"},
		{2932897, false, "0000-01-01"}, // Java prints only four year digits
		{-719162, false, "0001-01-01"},
		{19723, true, "19723"},
		{-5, true, "-5"},
	}
	for _, tt := range tests {
		if got := FormatDate(tt.days, tt.legacy); got != tt.want {
			t.Errorf("FormatDate(%d, %v) = %q, want %q", tt.days, tt.legacy, got, tt.want)
		}
	}
}

func TestNormalizeJoinNameParent(t *testing.T) {
	norm := []struct{ in, want string }{
		{"/tmp/t", "/tmp/t"},
		{"/tmp/t/", "/tmp/t"},
		{"/tmp//t///x", "/tmp/t/x"},
		{"file:///tmp/t", "file:/tmp/t"},
		{"file:/tmp/t", "file:/tmp/t"},
		{"oss://bucket/a//b/", "oss://bucket/a/b"},
		{"s3://b", "s3://b"},
		{"/", "/"},
	}
	for _, tt := range norm {
		if got := Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := Join("file:/tmp/t/", "dt=1/", "bucket-0", "", "f"); got != "file:/tmp/t/dt=1/bucket-0/f" {
		t.Errorf("Join = %q", got)
	}
	if got := Join("oss://b/root", "x"); got != "oss://b/root/x" {
		t.Errorf("Join = %q", got)
	}
	if got := Name("oss://b/root/x/"); got != "x" {
		t.Errorf("Name = %q", got)
	}
	parents := []struct{ in, want string }{
		{"oss://b/root/x", "oss://b/root"},
		{"/a", "/"},
		{"/", ""},
		{"file:/tmp/t/snapshot", "file:/tmp/t"},
	}
	for _, tt := range parents {
		if got := Parent(tt.in); got != tt.want {
			t.Errorf("Parent(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLayout(t *testing.T) {
	root := "/w/db.db/t"
	tests := []struct{ got, want string }{
		{SchemaPath(root, 0), "/w/db.db/t/schema/schema-0"},
		{SnapshotPath(root, 12), "/w/db.db/t/snapshot/snapshot-12"},
		{SnapshotDirPath(root), "/w/db.db/t/snapshot"},
		{LatestHintPath(root), "/w/db.db/t/snapshot/LATEST"},
		{EarliestHintPath(root), "/w/db.db/t/snapshot/EARLIEST"},
		{BranchPath(root, ""), root},
		{BranchPath(root, "main"), root},
		{BranchPath(root, "dev"), "/w/db.db/t/branch/branch-dev"},
		{BucketDirName(3), "bucket-3"},
		{BucketDirName(PostponeBucket), "bucket-postpone"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	for _, tt := range []struct {
		name string
		n    int64
		ok   bool
	}{{"snapshot-7", 7, true}, {"snapshot-", 0, false}, {"snapshot-x", 0, false}, {"LATEST", 0, false}, {"snapshot-+3", 3, true}} {
		n, ok := ParseVersionedName(tt.name, SnapshotPrefix)
		if n != tt.n || ok != tt.ok {
			t.Errorf("ParseVersionedName(%q) = %d, %v", tt.name, n, ok)
		}
	}
}

func mustOptions(t *testing.T, root string, opts map[string]string) Options {
	t.Helper()
	o, err := OptionsFromTable(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func mustFactory(t *testing.T, o Options) *FileStorePathFactory {
	t.Helper()
	f, err := NewFileStorePathFactoryWithUUID(o, "u")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

const uuidRE = `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`

func TestMetadataFileNames(t *testing.T) {
	f := mustFactory(t, mustOptions(t, "file:/w/t", nil))
	tests := []struct{ got, want string }{
		{f.NewManifestFile(), "file:/w/t/manifest/manifest-u-0"},
		{f.NewManifestFile(), "file:/w/t/manifest/manifest-u-1"},
		{f.NewManifestList(), "file:/w/t/manifest/manifest-list-u-0"},
		{f.NewIndexManifest(), "file:/w/t/manifest/index-manifest-u-0"},
		{f.NewStatisticsFile(), "file:/w/t/statistics/stat-u-0"},
		{f.GlobalIndexPathFactory().NewPath(), "file:/w/t/index/index-u-0"},
		{f.GlobalIndexPathFactory().NewPath(), "file:/w/t/index/index-u-1"},
		{f.GlobalIndexPathFactory().ToPathOf("index-x-0", ""), "file:/w/t/index/index-x-0"},
		{f.GlobalIndexPathFactory().ToPathOf("index-x-0", "oss://b/ext/index-x-0"), "oss://b/ext/index-x-0"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	if f.GlobalIndexPathFactory().IsExternalPath() {
		t.Error("global index factory without external path reports external")
	}
	real, _ := NewFileStorePathFactory(mustOptions(t, "/w/t", nil))
	if !regexp.MustCompile(`^/w/t/manifest/manifest-` + uuidRE + `-0$`).MatchString(real.NewManifestFile()) {
		t.Error("random UUID manifest name has the wrong shape")
	}
}

func TestBucketPaths(t *testing.T) {
	tests := []struct {
		name   string
		opts   map[string]string
		part   []PartitionKV
		bucket int
		want   string
	}{
		{"unpartitioned", nil, nil, 0, "/w/t/bucket-0"},
		{"partitioned", nil, []PartitionKV{{"dt", "2024-01-01"}, {"hr", "10"}}, 3, "/w/t/dt=2024-01-01/hr=10/bucket-3"},
		{"escaped", nil, []PartitionKV{{"p", "a/b=c"}}, 1, "/w/t/p=a%2Fb%3Dc/bucket-1"},
		{"null value", nil, []PartitionKV{{"p", ""}}, 0, "/w/t/p=__DEFAULT_PARTITION__/bucket-0"},
		{"custom default", map[string]string{OptionPartitionDefaultName: "NULL:x"}, []PartitionKV{{"p", " "}}, 0, "/w/t/p=NULL%3Ax/bucket-0"},
		{"postpone", nil, nil, PostponeBucket, "/w/t/bucket-postpone"},
		{"path directory", map[string]string{OptionDataFilePathDirectory: "data"}, []PartitionKV{{"p", "1"}}, 2, "/w/t/data/p=1/bucket-2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustFactory(t, mustOptions(t, "/w/t", tt.opts))
			got, err := f.BucketPath(tt.part, tt.bucket)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("BucketPath = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDataFileNames(t *testing.T) {
	tests := []struct {
		name      string
		opts      map[string]string
		changelog bool
		pattern   string
	}{
		{"default parquet", nil, false, `^/w/t/bucket-0/data-` + uuidRE + `-0\.parquet$`},
		{"changelog", nil, true, `^/w/t/bucket-0/changelog-` + uuidRE + `-0\.parquet$`},
		{"orc upper", map[string]string{OptionFileFormat: "ORC"}, false, `^/w/t/bucket-0/data-` + uuidRE + `-0\.orc$`},
		{"suffix compression", map[string]string{OptionFileSuffixIncludeCompression: "true"}, false, `-0\.zst\.parquet$`},
		{"suffix none", map[string]string{OptionFileSuffixIncludeCompression: "TRUE", OptionFileCompression: "none"}, false, `-0\.parquet$`},
		{"suffix custom", map[string]string{OptionFileSuffixIncludeCompression: "true", OptionFileCompression: "lz4_raw"}, false, `-0\.lz4_raw\.parquet$`},
		{"csv default zstd", map[string]string{OptionFileFormat: "csv"}, false, `-0\.csv\.zst$`},
		{"json gzip", map[string]string{OptionFileFormat: "json", OptionFileCompression: "gzip"}, false, `-0\.json\.gz$`},
		{"prefix", map[string]string{OptionDataFilePrefix: "d_"}, false, `/d_` + uuidRE + `-0\.parquet$`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustFactory(t, mustOptions(t, "/w/t", tt.opts))
			d, err := f.DataFilePathFactory(nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			var got string
			if tt.changelog {
				got = d.NewChangelogPath()
			} else {
				got = d.NewPath()
			}
			if !regexp.MustCompile(tt.pattern).MatchString(got) {
				t.Errorf("path %q does not match %s", got, tt.pattern)
			}
			if d.IsExternalPath() {
				t.Error("IsExternalPath without external paths")
			}
		})
	}

	f := mustFactory(t, mustOptions(t, "/w/t", nil))
	d, _ := f.DataFilePathFactory(nil, 0)
	a, b := d.NewPath(), d.NewChangelogPath()
	if !strings.HasSuffix(a, "-0.parquet") || !strings.HasSuffix(b, "-1.parquet") {
		t.Errorf("data and changelog share one counter in Java; got %q, %q", a, b)
	}
	if got := d.ToPath("data-x-0.parquet", ""); got != "/w/t/bucket-0/data-x-0.parquet" {
		t.Errorf("ToPath = %q", got)
	}
}

func TestFormatIdentifier(t *testing.T) {
	tests := []struct {
		in, want string
		err      bool
	}{
		{"data-u-0.parquet", "parquet", false},
		{"data-u-0.csv.gz", "csv", false},
		{"data-u-0.zst.parquet", "parquet", false},
		{"data-u-0.json.zst", "json", false},
		{"noext", "", true},
		{"x.zst", "", true},
		// The dot Java looks for may be the name's first character (lastIndexOf is 0, not -1).
		{".parquet", "parquet", false},
		{".csv.gz", "csv", false},
	}
	for _, tt := range tests {
		got, err := FormatIdentifier(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("FormatIdentifier(%q) = %q, %v", tt.in, got, err)
		}
	}
}

func TestIndexFileInDataFileDir(t *testing.T) {
	f := mustFactory(t, mustOptions(t, "/w/t", map[string]string{OptionIndexFileInDataFileDir: "true"}))
	i0, err := f.IndexPathFactory([]PartitionKV{{"p", "x"}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	i1, _ := f.IndexPathFactory([]PartitionKV{{"p", "x"}}, 1)
	tests := []struct{ got, want string }{
		{i0.NewPath(), "/w/t/p=x/bucket-0/index-u-0"},
		{i1.NewPath(), "/w/t/p=x/bucket-1/index-u-1"}, // counter shared per FileStorePathFactory
		{i0.NewPath(), "/w/t/p=x/bucket-0/index-u-2"},
		{i0.ToPath("index-a-0"), "/w/t/p=x/bucket-0/index-a-0"},
		{i0.ToPathOf("index-a-0", ""), "/w/t/p=x/bucket-0/index-a-0"},
		{i0.ToPathOf("index-a-0", "oss://b/e/index-a-0"), "oss://b/e/index-a-0"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	if i0.IsExternalPath() {
		t.Error("IsExternalPath without external paths")
	}
}

func TestExternalPaths(t *testing.T) {
	t.Run("round robin", func(t *testing.T) {
		o := mustOptions(t, "/w/t", map[string]string{
			OptionExternalPaths:         "oss://b1/ext, oss://b2/ext/",
			OptionExternalPathsStrategy: "ROUND-ROBIN",
		})
		f := mustFactory(t, o)
		d, err := f.DataFilePathFactory([]PartitionKV{{"p", "1"}}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !d.IsExternalPath() {
			t.Fatal("IsExternalPath = false")
		}
		a, b := d.NewPath(), d.NewPath()
		re := regexp.MustCompile(`^oss://b[12]/ext/p=1/bucket-0/data-` + uuidRE + `-[01]\.parquet$`)
		if !re.MatchString(a) || !re.MatchString(b) || a[:8] == b[:8] {
			t.Errorf("round robin paths %q, %q", a, b)
		}
	})
	t.Run("entropy inject", func(t *testing.T) {
		o := mustOptions(t, "/w/t", map[string]string{
			OptionExternalPaths:          "oss://b1/ext,oss://b2/ext",
			OptionExternalPathsStrategy:  "entropy-inject",
			OptionIndexFileInDataFileDir: "true",
		})
		f := mustFactory(t, o)
		ix, _ := f.IndexPathFactory(nil, 5)
		want := "oss://b2/ext/bucket-5/" + EntropyDirs("index-u-0") + "/index-u-0"
		if got := ix.NewPath(); got != want {
			t.Errorf("first entropy path = %q, want %q (Java advances before use)", got, want)
		}
		if !ix.IsExternalPath() {
			t.Error("IsExternalPath = false")
		}
	})
	t.Run("specific fs", func(t *testing.T) {
		o := mustOptions(t, "/w/t", map[string]string{
			OptionExternalPaths:           "oss://b1/ext,s3://b2/ext",
			OptionExternalPathsStrategy:   "specific-fs",
			OptionExternalPathsSpecificFS: "S3",
		})
		if len(o.ExternalPaths) != 1 || o.ExternalPaths[0] != "s3://b2/ext" {
			t.Errorf("ExternalPaths = %v", o.ExternalPaths)
		}
	})
	t.Run("weighted", func(t *testing.T) {
		o := mustOptions(t, "/w/t", map[string]string{
			OptionExternalPaths:         "oss://b1/ext,oss://b2/ext",
			OptionExternalPathsStrategy: "weight-robin",
			OptionExternalPathsWeights:  "1, 1000000",
		})
		f := mustFactory(t, o)
		d, _ := f.DataFilePathFactory(nil, 0)
		b2 := 0
		for range 100 {
			if strings.HasPrefix(d.NewPath(), "oss://b2/ext/bucket-0/") {
				b2++
			}
		}
		if b2 < 90 {
			t.Errorf("heavily weighted root chosen %d/100 times", b2)
		}
	})
	t.Run("none ignores paths", func(t *testing.T) {
		o := mustOptions(t, "/w/t", map[string]string{OptionExternalPaths: "oss://b1/ext"})
		if len(o.ExternalPaths) != 0 {
			t.Errorf("ExternalPaths = %v with strategy none", o.ExternalPaths)
		}
	})
	t.Run("global index external", func(t *testing.T) {
		f := mustFactory(t, mustOptions(t, "/w/t", map[string]string{OptionGlobalIndexExternalPath: "oss://gi/root/"}))
		g := f.GlobalIndexPathFactory()
		if got := g.NewPath(); got != "oss://gi/root/index-u-0" {
			t.Errorf("NewPath = %q", got)
		}
		if got := g.ToPath("index-u-0"); got != "oss://gi/root/index-u-0" {
			t.Errorf("ToPath = %q", got)
		}
		if got := g.ToPathOf("index-u-0", ""); got != "/w/t/index/index-u-0" {
			t.Errorf("ToPathOf without external = %q", got)
		}
		if !g.IsExternalPath() {
			t.Error("IsExternalPath = false")
		}
	})
}

func TestOptionsErrors(t *testing.T) {
	tests := []map[string]string{
		{OptionExternalPaths: "/no/scheme", OptionExternalPathsStrategy: "round-robin"},
		{OptionExternalPaths: "oss://a", OptionExternalPathsStrategy: "specific-fs"},
		{OptionExternalPaths: "oss://a", OptionExternalPathsStrategy: "specific-fs", OptionExternalPathsSpecificFS: "s3"},
		{OptionExternalPathsWeights: "1,0"},
		{OptionExternalPathsWeights: "1,x"},
		{OptionExternalPathsStrategy: "random"},
		{OptionIndexFileInDataFileDir: "yes"},
		{OptionGlobalIndexExternalPath: "/no/scheme"},
	}
	for _, opts := range tests {
		if _, err := OptionsFromTable("/w/t", opts); err == nil {
			t.Errorf("OptionsFromTable(%v) succeeded, want error", opts)
		}
	}
	o := mustOptions(t, "/w/t", map[string]string{
		OptionExternalPaths: "oss://a,oss://b", OptionExternalPathsStrategy: "weight-robin", OptionExternalPathsWeights: "1,2,3",
	})
	f := mustFactory(t, o)
	if _, err := f.DataFilePathFactory(nil, 0); err == nil {
		t.Error("weights/paths count mismatch accepted")
	}
}

func TestMurmur3(t *testing.T) {
	tests := []struct {
		in   string
		want uint32
	}{
		{"", 0},
		{"hello", 0x248bfa47},
		{"The quick brown fox jumps over the lazy dog", 0x2e4ff723},
	}
	for _, tt := range tests {
		if got := murmur3x86_32([]byte(tt.in), 0); got != tt.want {
			t.Errorf("murmur3(%q) = %#x, want %#x", tt.in, got, tt.want)
		}
	}
	h := murmur3x86_32([]byte("hello"), 0)
	bitsStr := fmt.Sprintf("%020b", h&0xFFFFF)
	want := bitsStr[:4] + "/" + bitsStr[4:8] + "/" + bitsStr[8:12] + "/" + bitsStr[12:]
	if got := EntropyDirs("hello"); got != want {
		t.Errorf("EntropyDirs = %q, want %q", got, want)
	}
}

func TestCountersConcurrent(t *testing.T) {
	f := mustFactory(t, mustOptions(t, "/w/t", nil))
	d, _ := f.DataFilePathFactory(nil, 0)
	g := f.GlobalIndexPathFactory()
	const workers, per = 8, 200
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range per {
				names := []string{f.NewManifestFile(), f.NewManifestList(), g.NewPath(), d.NewPath()}
				mu.Lock()
				for _, n := range names {
					if seen[n] {
						t.Errorf("duplicate name %s", n)
					}
					seen[n] = true
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != 4*workers*per {
		t.Errorf("%d unique names, want %d", len(seen), 4*workers*per)
	}
	if !seen[fmt.Sprintf("/w/t/manifest/manifest-u-%d", workers*per-1)] {
		t.Error("manifest counter did not reach its last value")
	}
}
