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

// session serves the requests (cmd, args) in one runner and returns the decoded responses.
func session(t *testing.T, reqs ...[2]any) []response {
	t.Helper()
	var in bytes.Buffer
	for i, r := range reqs {
		b, err := json.Marshal(map[string]any{"id": i + 1, "cmd": r[0], "args": r[1]})
		if err != nil {
			t.Fatal(err)
		}
		in.Write(append(b, '\n'))
	}
	var out, errOut bytes.Buffer
	if err := serve(t.Context(), &in, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	var resps []response
	dec := json.NewDecoder(&out)
	dec.UseNumber()
	for dec.More() {
		var r response
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

// TestServeFraming: ping lists every command; an unknown command, a malformed argument or one
// the runner does not honour is an error response naming it, and the runner answers the next
// request.
func TestServeFraming(t *testing.T) {
	resps := session(t,
		[2]any{"ping", nil},
		[2]any{"no-such-command", nil},
		[2]any{"read", map[string]any{"path": "x", "snapshot": 3}},
		[2]any{"write", map[string]any{"path": "x", "compact": "full"}},
		[2]any{"write", map[string]any{"path": "x", "dynamicOptions": map[string]any{"bucket": "3"}}},
		[2]any{"compact", map[string]any{"path": "x", "dynamicOptions": map[string]any{"write-only": "false"}}},
		[2]any{"search", map[string]any{"path": "x", "query": " "}},
		[2]any{"maintainer-scenario", map[string]any{"family": "btree"}},
		[2]any{"source-meta-decode", map[string]any{"bytes": "%%"}},
		[2]any{"configure-s3", map[string]any{"bucket": "b", "endpoint": "http://127.0.0.1:1", "accessKey": "a", "secretKey": "s", "sessionToken": "t"}},
		[2]any{"configure-s3", map[string]any{"bucket": "b", "endpoint": "http://127.0.0.1:1", "accessKey": "a", "secretKey": "s", "pathStyle": true}},
		[2]any{"ping", nil},
	)
	var ping struct {
		Runner          string   `json:"runner"`
		ProtocolVersion string   `json:"protocolVersion"`
		Commands        []string `json:"commands"`
	}
	b, _ := json.Marshal(resps[0].Result)
	if err := json.Unmarshal(b, &ping); err != nil || !resps[0].OK || ping.Runner != "go" || ping.ProtocolVersion != protocol.Version {
		t.Fatalf("ping: %+v %v", resps[0], err)
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
	} {
		r := resps[i+1]
		if r.OK || !strings.HasPrefix(r.Error, want) && !strings.Contains(r.Error, want) {
			t.Errorf("request %d: %+v, want an error with %q", i+2, r, want)
		}
	}
	if r := resps[len(resps)-2]; !r.OK || fmt.Sprint(r.Result) != "map[bucket:b]" {
		t.Fatalf("configure-s3: %+v", r)
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
	rows := []map[string]any{}
	for i := range 20 {
		rows = append(rows, map[string]any{"id": i, "d": fmt.Sprintf("2024-01-%02d", 1+i%28), "price": fmt.Sprintf("%d.5", i),
			"content": fmt.Sprintf("apache paimon row %d", i)})
	}
	resps := session(t,
		[2]any{"create-table", map[string]any{"warehouse": wh, "database": "db", "table": "t",
			"fields": []map[string]string{{"name": "id", "type": "INT NOT NULL"}, {"name": "d", "type": "DATE"},
				{"name": "price", "type": "DECIMAL(10, 2)"}, {"name": "content", "type": "STRING"}},
			"primaryKeys": []string{"id"}, "partitionKeys": []string{},
			"options": map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", "pk-full-text.index.columns": "content"}}},
		[2]any{"write", map[string]any{"path": path, "rows": rows}},
		// content of id 4 as base64 of its bytes (stringBytes): read back as the text.
		[2]any{"write", map[string]any{"path": path, "stringBytes": []string{"content"}, "rows": []map[string]any{
			{"_rowKind": "-D", "id": 3}, {"_rowKind": "+U", "id": 4, "content": "bGFrZSBmb3JtYXQ="}}}},
		[2]any{"compact", map[string]any{"path": path}},
		[2]any{"read", map[string]any{"path": path}},
		[2]any{"search", map[string]any{"path": path, "query": "paimon", "limit": 100}},
		[2]any{"search", map[string]any{"path": path, "query": "lake", "ranked": true}},
		[2]any{"list-index", map[string]any{"path": path}},
		[2]any{"maintain", map[string]any{"path": path}},
		[2]any{"rewrite-metadata", map[string]any{"path": path}},
		[2]any{"read", map[string]any{"path": path}},
		[2]any{"expire-snapshots", map[string]any{"path": path, "retainMax": 1, "retainMin": 1, "olderThanMillis": time.Now().Add(time.Hour).UnixMilli()}},
		[2]any{"remove-orphan-files", map[string]any{"path": path, "olderThanMillis": time.Now().Add(-time.Minute).UnixMilli(), "dryRun": true}},
		// stringBytes naming a column that is not a string is refused by name.
		[2]any{"write", map[string]any{"path": path, "stringBytes": []string{"price"}, "rows": []map[string]any{{"id": 1}}}},
	)
	if last := resps[len(resps)-1]; last.OK || !strings.Contains(last.Error, "stringBytes: price") {
		t.Fatalf("write with stringBytes [price]: %+v", last)
	}
	resps = resps[:len(resps)-1]
	for i, r := range resps {
		if !r.OK {
			t.Fatalf("request %d: %s (%s)", i+1, r.Error, path)
		}
	}
	var got struct {
		Path string           `json:"path"`
		Rows []map[string]any `json:"rows"`
		Res  []struct {
			Key      map[string]any `json:"key"`
			Text     *string        `json:"text"`
			Score    float64        `json:"score"`
			DataFile string         `json:"dataFile"`
		} `json:"results"`
		Archives []map[string]any `json:"archives"`
		Snapshot int64            `json:"snapshotId"`
		Before   int64            `json:"snapshotBefore"`
		After    int64            `json:"snapshotAfter"`
		Kind     string           `json:"commitKind"`
	}
	decode := func(i int) {
		got.Rows, got.Res, got.Archives = nil, nil, nil
		b, _ := json.Marshal(resps[i].Result)
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
	}
	decode(0)
	if got.Path != path {
		t.Fatalf("create-table path %s, want %s", got.Path, path)
	}
	decode(4)
	if len(got.Rows) != 19 || got.Rows[0]["id"] != float64(0) || got.Rows[0]["d"] != "2024-01-01" || got.Rows[0]["price"] != "0.50" {
		t.Fatalf("read: %v", got.Rows)
	}
	for _, r := range got.Rows {
		if r["id"] == float64(3) || (r["id"] == float64(4) && (r["content"] != "lake format" || r["d"] != nil)) {
			t.Fatalf("read after the delete and update: %v", r)
		}
	}
	decode(5)
	if len(got.Res) != 18 || got.Res[0].DataFile != "" {
		t.Fatalf("search paimon: %+v", got.Res)
	}
	for i := 1; i < len(got.Res); i++ {
		if got.Res[i].Score > got.Res[i-1].Score {
			t.Fatalf("search results not by score: %+v", got.Res)
		}
	}
	decode(6)
	if len(got.Res) != 1 || got.Res[0].Key["id"] != float64(4) || got.Res[0].DataFile == "" || *got.Res[0].Text != "lake format" {
		t.Fatalf("ranked search lake: %+v", got.Res)
	}
	decode(7)
	if len(got.Archives) != 1 || got.Archives[0]["status"] != "current" {
		t.Fatalf("list-index after a full compaction: %v", got.Archives)
	}
	decode(8)
	if got.Before == 0 || got.After != got.Before {
		t.Fatalf("maintain after a full compaction: snapshot %d -> %d, want no commit", got.Before, got.After)
	}
	maintained := got.After
	decode(9)
	if got.Before != maintained || got.After != maintained+1 || got.Kind != "COMPACT" {
		t.Fatalf("rewrite-metadata on snapshot %d: %d -> %d (%s), want the next snapshot, COMPACT", maintained, got.Before, got.After, got.Kind)
	}
	var cleaned struct {
		Deleted      json.RawMessage `json:"deleted"`
		DeletedCount *int            `json:"deletedCount"`
	}
	cb, _ := json.Marshal(resps[11].Result)
	if err := json.Unmarshal(cb, &cleaned); err != nil || string(cleaned.Deleted) == "0" {
		t.Fatalf("expire-snapshots with retainMax 1 on a table of several snapshots: %s", cb)
	}
	cb, _ = json.Marshal(resps[12].Result)
	if err := json.Unmarshal(cb, &cleaned); err != nil || cleaned.DeletedCount == nil {
		t.Fatalf("remove-orphan-files (dry run) after an expiry: %s", cb)
	}
	before, _ := json.Marshal(resps[4].Result)
	after, _ := json.Marshal(resps[10].Result)
	if !bytes.Equal(before, after) || !bytes.Contains(after, []byte("lake format")) {
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
	resps = session(t, [2]any{"pk-full-text-index-file-build", map[string]any{"path": path, "partition": map[string]any{}, "bucket": 0, "level": level}})
	if !resps[0].OK {
		t.Fatalf("pk-full-text-index-file-build of level %d: %s", level, resps[0].Error)
	}
	var build struct {
		Sources     []sourceFileJSON `json:"sources"`
		ArchivePath string           `json:"archivePath"`
		IndexFile   struct {
			IndexType   string `json:"indexType"`
			RowCount    int64  `json:"rowCount"`
			GlobalIndex struct {
				SourceMeta string `json:"sourceMeta"`
			} `json:"globalIndex"`
		} `json:"indexFile"`
	}
	b, _ := json.Marshal(resps[0].Result)
	if err := json.Unmarshal(b, &build); err != nil {
		t.Fatal(err)
	}
	if len(build.Sources) == 0 || build.IndexFile.IndexType != "full-text" || build.IndexFile.RowCount != 19 ||
		build.IndexFile.GlobalIndex.SourceMeta == "" || !strings.HasPrefix(build.ArchivePath, filepath.Join(path, "index")) {
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
		rows := []map[string]any{}
		for i := lo; i < hi; i++ {
			rows = append(rows, map[string]any{"id": i, "content": fmt.Sprintf("minor row %d", i)})
		}
		return [2]any{"write", map[string]any{"path": path, "rows": rows}}
	}
	resps := session(t,
		[2]any{"create-table", map[string]any{"warehouse": wh, "database": "db", "table": "t",
			"fields":      []map[string]string{{"name": "id", "type": "INT NOT NULL"}, {"name": "content", "type": "STRING"}},
			"primaryKeys": []string{"id"}, "partitionKeys": []string{},
			"options": map[string]string{"bucket": "1", "write-only": "true", "num-sorted-run.compaction-trigger": "3"}}},
		write(0, 10),
		[2]any{"minor-compact", map[string]any{"path": path}},
		write(5, 15), write(10, 20),
		[2]any{"minor-compact", map[string]any{"path": path}},
		[2]any{"minor-compact", map[string]any{"path": "", "x": 1}},
	)
	var got []struct {
		Before   int64            `json:"snapshotBefore"`
		After    int64            `json:"snapshotAfter"`
		Messages []map[string]any `json:"messages"`
	}
	for i, r := range resps[:6] {
		if !r.OK {
			t.Fatalf("request %d: %s", i+1, r.Error)
		}
		var g struct {
			Before   int64            `json:"snapshotBefore"`
			After    int64            `json:"snapshotAfter"`
			Messages []map[string]any `json:"messages"`
		}
		b, _ := json.Marshal(r.Result)
		if err := json.Unmarshal(b, &g); err != nil {
			t.Fatal(err)
		}
		got = append(got, g)
	}
	if resps[6].OK || !strings.Contains(resps[6].Error, "x") {
		t.Fatalf("minor-compact with an unknown argument: %+v", resps[6])
	}
	one := got[2]
	if one.Before != 1 || one.After != 1 || len(one.Messages) != 1 {
		t.Fatalf("minor-compact of one sorted run: %+v, want no commit and one message", one)
	}
	for k, v := range one.Messages[0] {
		if l, ok := v.([]any); ok && len(l) > 0 {
			t.Fatalf("minor-compact of one sorted run lists %s: %v", k, l)
		}
	}
	three := got[5]
	if three.Before != 3 || three.After != 4 || len(three.Messages) != 1 {
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
		[2]any{"create-table", map[string]any{"warehouse": wh, "database": "db", "table": "t",
			"fields":      []map[string]string{{"name": "id", "type": "INT NOT NULL"}, {"name": "content", "type": "STRING"}},
			"primaryKeys": []string{"id"}, "partitionKeys": []string{},
			"options": map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", "pk-full-text.index.columns": "content"}}},
		[2]any{"write", map[string]any{"path": path, "indexNewRows": true, "rows": []map[string]any{{"id": 1, "content": "new indexed row"}}}},
		[2]any{"search", map[string]any{"path": path, "query": "indexed"}},
		[2]any{"compact", map[string]any{"path": path, "uncovered": true}},
		[2]any{"list-index", map[string]any{"path": path}},
	)
	for i, r := range resps {
		if !r.OK {
			t.Fatalf("request %d: %s", i+1, r.Error)
		}
	}
	if b, _ := json.Marshal(resps[2].Result); !bytes.Contains(b, []byte("new indexed row")) {
		t.Fatalf("search after a write with indexNewRows: %s", b)
	}
	if b, _ := json.Marshal(resps[4].Result); !bytes.Contains(b, []byte(`"current"`)) {
		t.Fatalf("list-index after the uncovered compaction: %s", b)
	}
}
