package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/compat/protocol"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// session serves the requests (cmd, args) in one runner and returns the decoded responses. The
// args are a request type of package protocol, or a map where a test sends what no request type
// can hold (an unknown argument).
func session(t *testing.T, reqs ...[2]any) []protocol.EnvelopeResponse {
	t.Helper()
	var in bytes.Buffer
	for i, r := range reqs {
		args, err := json.Marshal(r[1])
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(protocol.EnvelopeRequest{ID: int64(i + 1), Cmd: r[0].(string), Args: args})
		if err != nil {
			t.Fatal(err)
		}
		in.Write(append(b, '\n'))
	}
	var out, errOut bytes.Buffer
	if err := serve(t.Context(), &in, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	var resps []protocol.EnvelopeResponse
	dec := json.NewDecoder(&out)
	for dec.More() {
		var r protocol.EnvelopeResponse
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("stdout is not JSON lines: %v\n%s", err, out.String())
		}
		resps = append(resps, r)
	}
	if len(resps) != len(reqs) {
		t.Fatalf("%d responses to %d requests: %s", len(resps), len(reqs), out.String())
	}
	for i, r := range resps {
		if r.ID != int64(i+1) {
			t.Fatalf("response %d has id %d", i, r.ID)
		}
	}
	return resps
}

// errText is the error of a response, "" for none.
func errText(r protocol.EnvelopeResponse) string {
	if r.Error == nil {
		return ""
	}
	return *r.Error
}

// result decodes a response's result into v, failing unless the response is OK.
func result(t *testing.T, name string, r protocol.EnvelopeResponse, v any) {
	t.Helper()
	if !r.OK {
		t.Fatalf("%s: %s", name, errText(r))
	}
	if err := json.Unmarshal(r.Result, v); err != nil {
		t.Fatalf("%s: %v in %s", name, err, r.Result)
	}
}

// TestServeFraming: ping lists every command; an unknown command, a malformed argument or one
// the runner does not honour is an error response naming it, and the runner answers the next
// request.
func TestServeFraming(t *testing.T) {
	resps := session(t,
		[2]any{"ping", nil},
		[2]any{"no-such-command", nil},
		// An unknown argument is sent as a map: no request type holds one.
		[2]any{"read", map[string]any{"path": "x", "snapshot": 3}},
		[2]any{"write", protocol.WriteRequest{Path: "x", Compact: "full"}},
		[2]any{"write", protocol.WriteRequest{Path: "x", DynamicOptions: map[string]*string{"bucket": new("3")}}},
		[2]any{"compact", protocol.CompactRequest{Path: "x", DynamicOptions: map[string]*string{"write-only": new("false")}}},
		[2]any{"search", protocol.SearchRequest{Path: "x", Query: " "}},
		[2]any{"maintainer-scenario", protocol.MaintainerScenarioRequest{Family: new("btree")}},
		[2]any{"source-meta-decode", protocol.SourceMetaDecodeRequest{Bytes: "%%"}},
		[2]any{"configure-s3", map[string]any{"bucket": "b", "endpoint": "http://127.0.0.1:1", "accessKey": "a", "secretKey": "s", "sessionToken": "t"}},
		// A required argument left out (sent as a map: the type would send its zero value).
		[2]any{"remove-orphan-files", map[string]any{"path": "x"}},
		[2]any{"configure-s3", protocol.ConfigureS3Request{Bucket: "b", Endpoint: "http://127.0.0.1:1", AccessKey: "a", SecretKey: "s", PathStyle: new(true)}},
		[2]any{"ping", nil},
	)
	var ping protocol.PingResponse
	result(t, "ping", resps[0], &ping)
	if ping.Runner != "go" || ping.PKFTVersion == nil || ping.ProtocolVersion != protocol.Version {
		t.Fatalf("ping: %+v", ping)
	}
	if len(ping.Commands) != len(commands(&searchTables{})) {
		t.Fatalf("ping lists %v, the runner serves %d commands", ping.Commands, len(commands(&searchTables{})))
	}
	for i, want := range []string{
		"unknown command: no-such-command",
		`IllegalArgumentException: args: json: unknown field "snapshot"`,
		"IllegalArgumentException: args.compact is not supported",
		"IllegalArgumentException: args.dynamicOptions bucket=3 is not supported",
		"IllegalArgumentException: args.dynamicOptions is not supported",
		"IllegalArgumentException: args.query must not be blank",
		`maintainer-scenario runs scripts of family [""], not "btree"`,
		"IllegalArgumentException: args.bytes",
		`IllegalArgumentException: args: json: unknown field "sessionToken"`,
		`IllegalArgumentException: args: missing required argument "olderThanMillis"`,
	} {
		r := resps[i+1]
		if r.OK || !strings.HasPrefix(errText(r), want) && !strings.Contains(errText(r), want) {
			t.Errorf("request %d: %+v, want an error with %q", i+2, r, want)
		}
	}
	var configured protocol.ConfigureS3Response
	if result(t, "configure-s3", resps[len(resps)-2], &configured); configured.Bucket != "b" {
		t.Fatalf("configure-s3: %+v", configured)
	}
	if !resps[len(resps)-1].OK {
		t.Fatalf("the runner does not answer after errors: %+v", resps[len(resps)-1])
	}
}

// TestRender: values take the forms of the Java runner's Values.java.
func TestRender(t *testing.T) {
	for _, c := range []struct {
		unscaled int64
		scale    int
		want     string
	}{{150, 2, "1.50"}, {-5, 3, "-0.005"}, {0, 2, "0.00"}, {42, 0, "42"}, {-1234, 1, "-123.4"}} {
		if got := plainDecimal(big.NewInt(c.unscaled), c.scale); got != c.want {
			t.Errorf("plainDecimal(%d, %d) = %s, want %s", c.unscaled, c.scale, got, c.want)
		}
	}
	for _, c := range []struct {
		t    time.Time
		want string
	}{
		{time.Date(2024, 1, 31, 8, 30, 0, 0, time.UTC), "2024-01-31T08:30:00"},
		{time.Date(2024, 1, 31, 8, 30, 0, 500_000_000, time.UTC), "2024-01-31T08:30:00.5"},
		{time.Date(1969, 2, 27, 21, 23, 54, 236709209, time.UTC), "1969-02-27T21:23:54.236709209"},
	} {
		if got := javaTimestamp(c.t); got != c.want {
			t.Errorf("javaTimestamp(%v) = %s, want %s", c.t, got, c.want)
		}
	}
	if c := compareRendered(json.Number("10"), int64(9)); c <= 0 {
		t.Errorf("10 sorts before 9 (%d): numbers must compare by value", c)
	}
	if c := compareRendered(nil, "a"); c >= 0 {
		t.Errorf("null sorts after a value (%d)", c)
	}
}

// TestTableCommands: create-table, write (updates and deletes by _rowKind), compact, read,
// search, list-index, maintain and source meta round trip on a real table with the engine.
func TestTableCommands(t *testing.T) {
	testenv.Native(t)
	wh := t.TempDir()
	path := filepath.Join(wh, "db.db", "t")
	rows := []protocol.Object{}
	for i := range 20 {
		rows = append(rows, protocol.Object{"id": i, "d": fmt.Sprintf("2024-01-%02d", 1+i%28), "price": fmt.Sprintf("%d.5", i),
			"content": fmt.Sprintf("apache paimon row %d", i)})
	}
	resps := session(t,
		[2]any{"create-table", protocol.CreateTableRequest{Warehouse: wh, Database: "db", Table: "t",
			Fields: []protocol.CreateTableRequestField{{Name: "id", Type: "INT NOT NULL"}, {Name: "d", Type: "DATE"},
				{Name: "price", Type: "DECIMAL(10, 2)"}, {Name: "content", Type: "STRING"}},
			PrimaryKeys: []string{"id"}, PartitionKeys: []string{},
			Options: map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", "pk-full-text.index.columns": "content"}}},
		[2]any{"write", protocol.WriteRequest{Path: path, Rows: rows}},
		// content of id 4 as base64 of its bytes (stringBytes): read back as the text.
		[2]any{"write", protocol.WriteRequest{Path: path, StringBytes: []string{"content"}, Rows: []protocol.Object{
			{"_rowKind": "-D", "id": 3}, {"_rowKind": "+U", "id": 4, "content": "bGFrZSBmb3JtYXQ="}}}},
		[2]any{"compact", protocol.CompactRequest{Path: path}},
		[2]any{"read", protocol.ReadRequest{Path: path}},
		[2]any{"search", protocol.SearchRequest{Path: path, Query: "paimon", Limit: 100}},
		[2]any{"search", protocol.SearchRequest{Path: path, Query: "lake", Ranked: new(true)}},
		[2]any{"list-index", protocol.ListIndexRequest{Path: path}},
		[2]any{"maintain", protocol.MaintainRequest{Path: path}},
		[2]any{"rewrite-metadata", protocol.RewriteMetadataRequest{Path: path}},
		[2]any{"read", protocol.ReadRequest{Path: path}},
		[2]any{"expire-snapshots", protocol.ExpireSnapshotsRequest{Path: path, RetainMax: new(int64(1)), RetainMin: new(int64(1)), OlderThanMillis: new(time.Now().Add(time.Hour).UnixMilli())}},
		[2]any{"remove-orphan-files", protocol.RemoveOrphanFilesRequest{Path: path, OlderThanMillis: time.Now().Add(-time.Minute).UnixMilli(), DryRun: new(true)}},
		// stringBytes naming a column that is not a string is refused by name.
		[2]any{"write", protocol.WriteRequest{Path: path, StringBytes: []string{"price"}, Rows: []protocol.Object{{"id": 1}}}},
	)
	if last := resps[len(resps)-1]; last.OK || !strings.Contains(errText(last), "stringBytes: price") {
		t.Fatalf("write with stringBytes [price]: %+v", last)
	}
	resps = resps[:len(resps)-1]
	for i, r := range resps {
		if !r.OK {
			t.Fatalf("request %d: %s (%s)", i+1, errText(r), path)
		}
	}
	var created protocol.CreateTableResponse
	if result(t, "create-table", resps[0], &created); created.Path != path {
		t.Fatalf("create-table path %s, want %s", created.Path, path)
	}
	var read protocol.ReadResponse
	result(t, "read", resps[4], &read)
	if len(read.Rows) != 19 || read.Rows[0]["id"] != float64(0) || read.Rows[0]["d"] != "2024-01-01" || read.Rows[0]["price"] != "0.50" {
		t.Fatalf("read: %v", read.Rows)
	}
	for _, r := range read.Rows {
		if r["id"] == float64(3) || (r["id"] == float64(4) && (r["content"] != "lake format" || r["d"] != nil)) {
			t.Fatalf("read after the delete and update: %v", r)
		}
	}
	var found protocol.SearchResponse
	result(t, "search paimon", resps[5], &found)
	if len(found.Results) != 18 || found.Results[0].DataFile != "" {
		t.Fatalf("search paimon: %+v", found.Results)
	}
	for i := 1; i < len(found.Results); i++ {
		if found.Results[i].Score > found.Results[i-1].Score {
			t.Fatalf("search results not by score: %+v", found.Results)
		}
	}
	result(t, "ranked search lake", resps[6], &found)
	if len(found.Results) != 1 || found.Results[0].Key["id"] != float64(4) || found.Results[0].DataFile == "" || string(found.Results[0].Text) != `"lake format"` {
		t.Fatalf("ranked search lake: %+v", found.Results)
	}
	var listed protocol.ListIndexResponse
	if result(t, "list-index", resps[7], &listed); len(listed.Archives) != 1 || listed.Archives[0].Status != "current" {
		t.Fatalf("list-index after a full compaction: %v", listed.Archives)
	}
	var maintained protocol.MaintainResponse
	if result(t, "maintain", resps[8], &maintained); maintained.SnapshotBefore == 0 || maintained.SnapshotAfter != maintained.SnapshotBefore {
		t.Fatalf("maintain after a full compaction: snapshot %d -> %d, want no commit", maintained.SnapshotBefore, maintained.SnapshotAfter)
	}
	var rewritten protocol.RewriteMetadataResponse
	result(t, "rewrite-metadata", resps[9], &rewritten)
	if m := maintained.SnapshotAfter; rewritten.SnapshotBefore != m || rewritten.SnapshotAfter != m+1 || rewritten.CommitKind != "COMPACT" {
		t.Fatalf("rewrite-metadata on snapshot %d: %d -> %d (%s), want the next snapshot, COMPACT", m, rewritten.SnapshotBefore, rewritten.SnapshotAfter, rewritten.CommitKind)
	}
	var expired protocol.ExpireSnapshotsResponse
	if result(t, "expire-snapshots", resps[11], &expired); expired.Deleted == 0 {
		t.Fatalf("expire-snapshots with retainMax 1 on a table of several snapshots: %s", resps[11].Result)
	}
	var cleaned protocol.RemoveOrphanFilesResponse
	if result(t, "remove-orphan-files", resps[12], &cleaned); cleaned.DeletedCount != int64(len(cleaned.Deleted)) {
		t.Fatalf("remove-orphan-files (dry run) after an expiry: %s", resps[12].Result)
	}
	if before, after := resps[4].Result, resps[10].Result; !bytes.Equal(before, after) || !bytes.Contains(after, []byte("lake format")) {
		t.Fatalf("rows changed across rewrite-metadata: %s, then %s", before, after)
	}
	// The full compaction left every file on the top level: build that level's archive again.
	tbl, err := pkft.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	raw, err := tbl.Dump(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var dump struct {
		Buckets []struct {
			DataFiles []struct {
				Level int32 `json:"level"`
			} `json:"dataFiles"`
		} `json:"buckets"`
	}
	if err := json.Unmarshal(raw, &dump); err != nil || len(dump.Buckets) != 1 || len(dump.Buckets[0].DataFiles) == 0 {
		t.Fatalf("dump: %v %s", err, raw)
	}
	level := dump.Buckets[0].DataFiles[0].Level
	resps = session(t, [2]any{"pk-full-text-index-file-build", protocol.PKFullTextIndexFileBuildRequest{Path: path, Partition: protocol.Object{}, Bucket: 0, Level: int64(level)}})
	var build protocol.PKFullTextIndexFileBuildResponse
	result(t, fmt.Sprintf("pk-full-text-index-file-build of level %d", level), resps[0], &build)
	// The schema leaves the index file free-form (the Java runner's IndexFileMeta as it renders it).
	var indexFile struct {
		IndexType   string `json:"indexType"`
		RowCount    int64  `json:"rowCount"`
		GlobalIndex struct {
			SourceMeta string `json:"sourceMeta"`
		} `json:"globalIndex"`
	}
	if err := reshape(build.IndexFile, &indexFile, false); err != nil {
		t.Fatal(err)
	}
	if len(build.Sources) == 0 || indexFile.IndexType != "full-text" || indexFile.RowCount != 19 ||
		indexFile.GlobalIndex.SourceMeta == "" || !strings.HasPrefix(build.ArchivePath, filepath.Join(path, "index")) {
		t.Fatalf("pk-full-text-index-file-build of level %d: %+v", level, build)
	}
	if _, err := os.Stat(build.ArchivePath); err != nil {
		t.Fatalf("the built archive: %v", err)
	}
}

// TestMinorCompact: minor-compact lets the table's strategy pick. With one sorted run nothing is
// picked and nothing is committed; with more sorted runs than num-sorted-run.compaction-trigger
// the runs are merged in one COMPACT commit, and the messages list exactly the data files that
// left and joined the bucket.
func TestMinorCompact(t *testing.T) {
	wh := t.TempDir()
	path := filepath.Join(wh, "db.db", "t")
	write := func(lo, hi int) [2]any {
		rows := []protocol.Object{}
		for i := lo; i < hi; i++ {
			rows = append(rows, protocol.Object{"id": i, "content": fmt.Sprintf("minor row %d", i)})
		}
		return [2]any{"write", protocol.WriteRequest{Path: path, Rows: rows}}
	}
	resps := session(t,
		[2]any{"create-table", protocol.CreateTableRequest{Warehouse: wh, Database: "db", Table: "t",
			Fields:      []protocol.CreateTableRequestField{{Name: "id", Type: "INT NOT NULL"}, {Name: "content", Type: "STRING"}},
			PrimaryKeys: []string{"id"}, PartitionKeys: []string{},
			Options: map[string]string{"bucket": "1", "write-only": "true", "num-sorted-run.compaction-trigger": "3"}}},
		write(0, 10),
		[2]any{"minor-compact", protocol.MinorCompactRequest{Path: path}},
		write(5, 15), write(10, 20),
		[2]any{"minor-compact", protocol.MinorCompactRequest{Path: path}},
		[2]any{"minor-compact", map[string]any{"path": "", "x": 1}},
	)
	var got []protocol.MinorCompactResponse
	for i, r := range resps[:6] {
		if !r.OK {
			t.Fatalf("request %d: %s", i+1, errText(r))
		}
		var g protocol.MinorCompactResponse
		if i == 2 || i == 5 {
			result(t, "minor-compact", r, &g)
		}
		got = append(got, g)
	}
	if resps[6].OK || !strings.Contains(errText(resps[6]), "x") {
		t.Fatalf("minor-compact with an unknown argument: %+v", resps[6])
	}
	one := got[2]
	if one.SnapshotBefore != 1 || one.SnapshotAfter != 1 || len(one.Messages) != 1 {
		t.Fatalf("minor-compact of one sorted run: %+v, want no commit and one message", one)
	}
	for k, v := range one.Messages[0] {
		if l, ok := v.([]any); ok && len(l) > 0 {
			t.Fatalf("minor-compact of one sorted run lists %s: %v", k, l)
		}
	}
	three := got[5]
	if three.SnapshotBefore != 3 || three.SnapshotAfter != 4 || len(three.Messages) != 1 {
		t.Fatalf("minor-compact of three sorted runs: %+v, want one commit and one message", three)
	}
	m := three.Messages[0]
	before, _ := m["compactBefore"].([]any)
	after, _ := m["compactAfter"].([]any)
	if len(before) != 3 || len(after) == 0 {
		t.Fatalf("minor-compact of three sorted runs: compactBefore %v, compactAfter %v: want the three level-0 files out and the merged files in", before, after)
	}
	for _, k := range []string{"newFiles", "deletedFiles", "changelogFiles", "newIndexFiles", "deletedIndexFiles", "compactChangelogFiles"} {
		if l, _ := m[k].([]any); len(l) != 0 {
			t.Fatalf("minor-compact lists %s %v: pkft's compaction commits one COMPACT snapshot", k, l)
		}
	}
	tbl, err := pkft.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	raw, err := tbl.Dump(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var dump struct {
		CommitKind string `json:"commitKind"`
		Buckets    []struct {
			DataFiles []struct {
				FileName string `json:"fileName"`
			} `json:"dataFiles"`
		} `json:"buckets"`
	}
	if err := json.Unmarshal(raw, &dump); err != nil || len(dump.Buckets) != 1 {
		t.Fatalf("dump: %v %s", err, raw)
	}
	live := map[string]bool{}
	for _, f := range dump.Buckets[0].DataFiles {
		live[f.FileName] = true
	}
	for _, f := range after {
		if !live[f.(string)] {
			t.Fatalf("compactAfter lists %v, not a live file of the table (%v)", f, live)
		}
	}
	for _, f := range before {
		if live[f.(string)] {
			t.Fatalf("compactBefore lists %v, still a live file of the table", f)
		}
	}
	if dump.CommitKind != "COMPACT" {
		t.Fatalf("the minor compaction committed a %s snapshot, want COMPACT", dump.CommitKind)
	}
}

// TestPkftOptions: write's indexNewRows indexes the write's rows at its commit (its search finds
// them before any compaction), and compact's uncovered finds nothing to rewrite then.
func TestPkftOptions(t *testing.T) {
	testenv.Native(t)
	wh := t.TempDir()
	path := filepath.Join(wh, "db.db", "t")
	resps := session(t,
		[2]any{"create-table", protocol.CreateTableRequest{Warehouse: wh, Database: "db", Table: "t",
			Fields:      []protocol.CreateTableRequestField{{Name: "id", Type: "INT NOT NULL"}, {Name: "content", Type: "STRING"}},
			PrimaryKeys: []string{"id"}, PartitionKeys: []string{},
			Options: map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", "pk-full-text.index.columns": "content"}}},
		[2]any{"write", protocol.WriteRequest{Path: path, IndexNewRows: new(true), Rows: []protocol.Object{{"id": 1, "content": "new indexed row"}}}},
		[2]any{"search", protocol.SearchRequest{Path: path, Query: "indexed"}},
		[2]any{"compact", protocol.CompactRequest{Path: path, Uncovered: new(true)}},
		[2]any{"list-index", protocol.ListIndexRequest{Path: path}},
	)
	for i, r := range resps {
		if !r.OK {
			t.Fatalf("request %d: %s", i+1, errText(r))
		}
	}
	var found protocol.SearchResponse
	if result(t, "search", resps[2], &found); len(found.Results) != 1 || string(found.Results[0].Text) != `"new indexed row"` {
		t.Fatalf("search after a write with indexNewRows: %s", resps[2].Result)
	}
	var listed protocol.ListIndexResponse
	if result(t, "list-index", resps[4], &listed); len(listed.Archives) == 0 || listed.Archives[0].Status != "current" {
		t.Fatalf("list-index after the uncovered compaction: %s", resps[4].Result)
	}
}
