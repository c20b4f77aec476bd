package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
)

// casesExpire registers the expiry differential: copies of one Java-written table (deletion vectors,
// full compactions that replace files, a tag) are expired by Java's ExpireSnapshotsImpl and by
// Go's expiry with the same bounds and the same clock; both keep the same snapshots, the same
// EARLIEST hint and the same files. Java then reads every retained snapshot of Go's copy as of
// Java's, and fails on an expired one as it fails on Java's copy.
func casesExpire(ct *caseTable) {
	impls, runners := consumerRunners(ct)
	for _, impl := range producerImpls(impls, Maintainer) {
		ct.add(caseRow{Name: "expire/differential", Direction: as(impl, "go<->java"), Doc: docExpireDifferential,
			Sides: []caseSide{side(impl, Maintainer), side("java", Writer, Maintainer, Consumer)},
			Uses:  []caseUse{runnerOf(runners, impl, "expire-snapshots"), ownJava(nil)},
			Run: func(ctx context.Context, ce *caseEnv) error {
				p := ce.runner("java")
				dir := ce.T.TempDir()
				fields := []field{{"id", "INT NOT NULL"}, {"content", "STRING"}}
				// With the default retention, the writes themselves expire nothing (every snapshot is
				// younger than snapshot.time-retained).
				opts := map[string]string{"bucket": "2", "deletion-vectors.enabled": "true"}
				base, err := createJavaTable(ctx, p, filepath.Join(dir, "wh"), "expire", fields, []string{"id"}, nil, opts, nil)
				if err != nil {
					return err
				}
				for step := range 8 {
					rows := textRows(step*10, step*10+40, uint64(500+step))
					args := map[string]any{"path": base, "rows": rows}
					if step%3 == 2 {
						args["compact"] = "full"
					}
					if err := p.Call(ctx, "write", args, nil); err != nil {
						return fmt.Errorf("write %d: %w", step, err)
					}
					time.Sleep(3 * time.Millisecond) // distinct commit times
				}
				ids, err := snapshotFileIDs(base)
				if err != nil {
					return err
				}
				if len(ids) < 10 {
					return fmt.Errorf("the writes made %d snapshots, want at least 10", len(ids))
				}
				// A tag of snapshot 3 (a tag file is its snapshot's JSON): its files must survive.
				data, err := os.ReadFile(filepath.Join(base, "snapshot", "snapshot-3"))
				if err != nil {
					return err
				}
				if err := os.MkdirAll(filepath.Join(base, "tag"), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(base, "tag", "tag-t3"), data, 0o644); err != nil {
					return err
				}
				// The clock: just after the commit of the snapshot two before the latest, so that the time
				// window (not only the counts) decides where the expiry stops.
				var pivot struct {
					TimeMillis int64 `json:"timeMillis"`
				}
				last := ids[len(ids)-1]
				data, err = os.ReadFile(filepath.Join(base, "snapshot", "snapshot-"+strconv.FormatInt(last-2, 10)))
				if err != nil {
					return err
				}
				if err := json.Unmarshal(data, &pivot); err != nil {
					return err
				}
				olderThan := pivot.TimeMillis + 1
				javaCopy, goCopy := base+"-java", base+"-go"
				for _, c := range []string{javaCopy, goCopy} {
					if err := copyTable(base, c); err != nil {
						return err
					}
				}
				const retainMax, retainMin, maxDeletes = 8, 1, 50
				var jres struct {
					Deleted int `json:"deleted"`
				}
				if err := p.Call(ctx, "expire-snapshots", map[string]any{"path": javaCopy, "retainMax": retainMax, "retainMin": retainMin,
					"olderThanMillis": olderThan, "maxDeletes": maxDeletes}, &jres); err != nil {
					return fmt.Errorf("java expire: %w", err)
				}
				var gres struct {
					Deleted int `json:"deleted"`
				}
				if err := ce.runner(impl).Call(ctx, "expire-snapshots", map[string]any{"path": goCopy, "retainMax": retainMax, "retainMin": retainMin,
					"olderThanMillis": olderThan, "maxDeletes": maxDeletes}, &gres); err != nil {
					return fmt.Errorf("go expire: %w", err)
				}
				if gres.Deleted != jres.Deleted {
					return fmt.Errorf("go expired %d snapshots, java %d", gres.Deleted, jres.Deleted)
				}
				if jres.Deleted == 0 {
					return fmt.Errorf("nothing expired: the case compares nothing")
				}
				jfiles, err := tableFiles(javaCopy)
				if err != nil {
					return err
				}
				gfiles, err := tableFiles(goCopy)
				if err != nil {
					return err
				}
				if d := cmp.Diff(jfiles, gfiles); d != "" {
					return fmt.Errorf("the copies keep other files (-java +go):\n%s", d)
				}
				kept, err := snapshotFileIDs(goCopy)
				if err != nil {
					return err
				}
				// Java reads every retained snapshot of Go's copy as of Java's copy; an expired snapshot
				// fails on both.
				for _, id := range ids {
					var jr, gr json.RawMessage
					jerr := p.Call(ctx, "read", map[string]any{"path": javaCopy, "snapshotId": id}, &jr)
					gerr := p.Call(ctx, "read", map[string]any{"path": goCopy, "snapshotId": id}, &gr)
					retained := slices.Contains(kept, id)
					switch {
					case retained && (jerr != nil || gerr != nil):
						return fmt.Errorf("snapshot %d (retained): java reads java's copy: %v, go's copy: %v", id, jerr, gerr)
					case retained && string(jr) != string(gr):
						return fmt.Errorf("snapshot %d: java reads other rows from go's copy than from java's", id)
					case !retained && (jerr == nil || gerr == nil):
						return fmt.Errorf("snapshot %d (expired): java's read of java's copy: %v, of go's copy: %v; want both to fail", id, jerr, gerr)
					case !retained && strings.ReplaceAll(jerr.Error(), javaCopy, "TABLE") != strings.ReplaceAll(gerr.Error(), goCopy, "TABLE"):
						return fmt.Errorf("snapshot %d (expired): java fails differently:\njava's copy: %v\ngo's copy:   %v", id, jerr, gerr)
					}
				}
				return nil
			}})
	}
}

// snapshotFileIDs lists the ids of the snapshot files of the table at root, ascending.
func snapshotFileIDs(root string) ([]int64, error) {
	entries, err := os.ReadDir(filepath.Join(root, "snapshot"))
	if err != nil {
		return nil, err
	}
	var ids []int64
	for _, e := range entries {
		if n, ok := strings.CutPrefix(e.Name(), "snapshot-"); ok {
			id, err := strconv.ParseInt(n, 10, 64)
			if err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// tableFiles lists every file under root (relative paths) with the EARLIEST and LATEST hints'
// contents.
func tableFiles(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if d.Name() == "EARLIEST" || d.Name() == "LATEST" {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel += "=" + string(data)
		}
		if strings.HasPrefix(d.Name(), ".") {
			return nil // checksum files of Hadoop's local file system
		}
		out = append(out, rel)
		return nil
	})
	return out, err
}

// docExpireDifferential describes expire/differential.
const docExpireDifferential = "copies of one Java-written table (two buckets, deletion vectors, full compactions, a tag) " +
	"are expired by Java's `ExpireSnapshotsImpl` (runner `expire-snapshots`) and by Go's " +
	"`Table.ExpireSnapshots` (the Go runner's `expire-snapshots`) with the same retain max, retain min, max deletes and clock (older" +
	" than just after a recent commit): the same number expired, the same files left (EARLIEST " +
	"and LATEST hints included); Java reads every retained snapshot of Go's copy (runner `read`" +
	" with `snapshotId`) as of Java's, and fails on every expired one as on Java's."
