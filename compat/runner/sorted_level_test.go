package runner

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/paimon-pkft/pkft/internal/pksorted/indexfile"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/testing/sortkeytest"
	"github.com/paimon-pkft/pkft/internal/types"
)

// sortedSameLevel is index/sorted/same-level: one level of several data files with random values
// (nulls, many duplicates, unsorted) is built by Paimon's PkSortedIndexBuilder and
// PkSortedIndexFile (the Java runner's sorted-index-build) and by the implementation's runner
// goP (Go's: internal/pksorted/indexfile.Builder): the payloads' IndexFileMeta fields (type,
// size, row count, row range, field id) and index and source meta bytes are equal, the files are
// byte-identical, and Go's reader (in-process) on Java's payload answers every predicate as
// Java's reader (sorted-index-read) on the implementation's. The 3,000-row levels are built a second time through a sort
// buffer of three 1 kb pages that spills every few dozen rows, merging at three runs
// (local-sort.max-num-file-handles): Java's BinaryExternalSortBuffer and Go's sorter must spill
// at the same rows and merge equal values' row ids into the same order for the bytes to match.
func sortedSameLevel(ctx context.Context, p, goP *Process, dir string) error {
	var errs []error
	spill := map[string]string{"write-buffer-size": "3 kb", "page-size": "1 kb", "local-sort.max-num-file-handles": "3"}
	for _, index := range []string{indexfile.TypeBTree, indexfile.TypeBitmap} {
		for ti, typ := range sortkeytest.Types() {
			for _, rows := range []int{5, 40, 3000} {
				d := filepath.Join(dir, fmt.Sprintf("%s-t%d-n%d", index, ti, rows))
				if err := sortedSameLevelOne(ctx, p, goP, d, index, typ, rows, uint64(ti*10000+rows), nil); err != nil {
					errs = append(errs, fmt.Errorf("%s %s, %d rows: %w", index, typeSQL(typ), rows, err))
				}
			}
			d := filepath.Join(dir, fmt.Sprintf("%s-t%d-spill", index, ti))
			if err := sortedSameLevelOne(ctx, p, goP, d, index, typ, 3000, uint64(ti*10000+3000), spill); err != nil {
				errs = append(errs, fmt.Errorf("%s %s, 3000 rows spilled: %w", index, typeSQL(typ), err))
			}
		}
	}
	return errors.Join(errs...)
}

func sortedSameLevelOne(ctx context.Context, p, goP *Process, dir, index string, typ types.DataType, n int, seed uint64, options map[string]string) error {
	if options == nil {
		options = map[string]string{}
	}
	ser, err := sortkey.New(typ)
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(seed, 77))
	// Files named out of order, values unsorted: the build sorts files by name and rows by value.
	names := []string{"data-c", "data-a", "data-b"}
	type sourceJSON struct {
		FileName string    `json:"fileName"`
		Values   []*string `json:"values"`
	}
	var sources []sourceJSON
	for i, name := range names {
		count := n/len(names) + i
		var texts []*string
		for range count {
			var v any
			if r.IntN(7) != 0 {
				v = sortkeytest.Key(typ, r)
			}
			texts = append(texts, keyText(v))
		}
		sources = append(sources, sourceJSON{name, texts})
	}
	goDir, javaDir := filepath.Join(dir, "go"), filepath.Join(dir, "java")
	for _, d := range []string{goDir, javaDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	type payloadJSON struct {
		IndexType     string  `json:"indexType"`
		FileName      string  `json:"fileName"`
		FileSize      int64   `json:"fileSize"`
		RowCount      int64   `json:"rowCount"`
		RowRangeStart int64   `json:"rowRangeStart"`
		RowRangeEnd   int64   `json:"rowRangeEnd"`
		IndexFieldID  int32   `json:"indexFieldId"`
		IndexMeta     string  `json:"indexMeta"`
		SourceMeta    string  `json:"sourceMeta"`
		ExternalPath  *string `json:"externalPath"`
	}
	build := func(p *Process, dir string) (payloadJSON, error) {
		var out payloadJSON
		args := map[string]any{"indexType": index, "type": typeSQL(typ), "fieldId": 7, "options": options,
			"dir": dir, "level": 2, "sources": sources}
		err := p.Call(ctx, "sorted-index-build", args, &out)
		return out, err
	}
	g, err := build(goP, goDir)
	if err != nil {
		return fmt.Errorf("go build: %w", err)
	}
	j, err := build(p, javaDir)
	if err != nil {
		return fmt.Errorf("java build: %w", err)
	}
	if j.IndexType != g.IndexType || j.FileSize != g.FileSize || j.RowCount != g.RowCount || j.RowRangeStart != g.RowRangeStart ||
		j.RowRangeEnd != g.RowRangeEnd || j.IndexFieldID != g.IndexFieldID {
		return fmt.Errorf("payload: java %+v, go %+v", j, g)
	}
	if j.IndexMeta != g.IndexMeta {
		return fmt.Errorf("index meta: java %s, go %s", j.IndexMeta, g.IndexMeta)
	}
	if j.SourceMeta != g.SourceMeta {
		return fmt.Errorf("source meta: java %s, go %s", j.SourceMeta, g.SourceMeta)
	}
	indexMeta, err := base64.StdEncoding.DecodeString(g.IndexMeta)
	if err != nil {
		return fmt.Errorf("go's index meta: %w", err)
	}
	javaPath, goPath := filepath.Join(javaDir, j.FileName), filepath.Join(goDir, g.FileName)
	jb, err := os.ReadFile(javaPath)
	if err != nil {
		return err
	}
	gb, err := os.ReadFile(goPath)
	if err != nil {
		return err
	}
	if !bytes.Equal(jb, gb) {
		return fmt.Errorf("payload bytes differ at %d (java %d bytes, go %d)", firstDiff(jb, gb), len(jb), len(gb))
	}
	// Each side reads the other's payload with the same answers.
	preds := sortkeytest.Predicates(ser, r, 4)
	meta64 := g.IndexMeta
	goOnJava, err := goSortedAnswers(index, ser, javaPath, indexMeta, preds)
	if err != nil {
		return fmt.Errorf("go reads java's payload: %w", err)
	}
	javaOnGo, err := javaSortedAnswers(ctx, p, sortedFormatVariant{index: index, options: map[string]string{}}, typ, goPath, meta64, preds)
	if err != nil {
		return fmt.Errorf("java reads go's payload: %w", err)
	}
	for i, pr := range preds {
		if !slices.Equal(goOnJava[i], javaOnGo[i]) {
			return fmt.Errorf("%s %v: go on java's payload %v, java on go's %v", pr.Op, pr.Literals, goOnJava[i], javaOnGo[i])
		}
	}
	return nil
}
