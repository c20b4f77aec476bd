package runner

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/javaio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// indexFileCommands are the runner commands the same-level cases need.
var indexFileCommands = []string{"pk-full-text-index-file-build", "archive-search"}

// casesSameLevelArchives registers index-file/same-level/<table> (java<->go) on every full-text table
// of the Java corpus: for every (partition, bucket, level) with eligible files, Paimon's
// PkFullTextIndexFile (the runner's pk-full-text-index-file-build) and Go's pkfulltext.IndexFile
// (over the production DataFileReaders and the native engine) build the level's archive; the two
// must carry the same GlobalIndexMeta (row range, field id, extra field ids, index meta as
// options in any order, source meta bytes) and row count, record the same analyzer configuration
// and document count, and answer the engine corpus queries with the same row ids and scores (within 1e-5 relative),
// whichever side searches. Every implementation taking the maintainer role builds Go's side
// through its runner: go on the tables of gf (gcorpus shares the format corpus's builds), any
// other on tables of its own.
func casesSameLevelArchives(ct *caseTable, gf *fixture[*javaTables], gcorpus []*corpusTable, impls []Impl, runners map[string]*implRunner) {
	for _, p := range producerImpls(impls, Maintainer) {
		jtf, corpus := gf, gcorpus
		if p != GoName {
			jtf, corpus = javaTablesFixture(javaCorpus()), nil // tables of its own
		}
		for _, c := range javaFullTextCorpus() {
			// The ngram table is in the format corpus too: build it once.
			if i := slices.IndexFunc(corpus, func(o *corpusTable) bool { return o.name == c.name }); i >= 0 {
				c = corpus[i]
			}
			ct.add(caseRow{Name: "index-file/same-level/" + c.name, Direction: as(p, "java<->go"), Doc: docIndexFileSameLevelTable,
				Sides: []caseSide{side("java", Maintainer), side(p, Maintainer)},
				Uses: []caseUse{engine(), madeReady(jtf, func(ctx context.Context, jt *javaTables) error {
					if err := jt.need(ctx, tableCommands...); err != nil {
						return err
					}
					switch ok, err := HasCommands(ctx, jt.proc, indexFileCommands...); {
					case err != nil:
						return err
					case !ok:
						return unavailable{testenv.RequireJavaFullTextEnv, fmt.Errorf("the Java runner lacks one of %v: rebuild it (make runner)", indexFileCommands)}
					}
					return nil
				}), runnerOf(runners, p, "pk-full-text-index-file-build")},
				Run: func(ctx context.Context, ce *caseEnv) error {
					jt := jtf.in(ce)
					if err := jt.build(ctx, c); err != nil {
						return err
					}
					return sameLevelArchives(ctx, jt.proc, ce.runner(p), ce.lib, c.path)
				}})
		}
	}
}

// javaIndexFileBuild is the result of the runner's pk-full-text-index-file-build.
type javaIndexFileBuild struct {
	Sources []struct {
		FileName string `json:"fileName"`
		RowCount int64  `json:"rowCount"`
	} `json:"sources"`
	ArchivePath string `json:"archivePath"`
	IndexFile   struct {
		IndexType    string  `json:"indexType"`
		FileName     string  `json:"fileName"`
		FileSize     int64   `json:"fileSize"`
		RowCount     int64   `json:"rowCount"`
		ExternalPath *string `json:"externalPath"`
		GlobalIndex  struct {
			RowRangeStart int64   `json:"rowRangeStart"`
			RowRangeEnd   int64   `json:"rowRangeEnd"`
			IndexFieldID  int32   `json:"indexFieldId"`
			ExtraFieldIDs []int32 `json:"extraFieldIds"`
			IndexMeta     *string `json:"indexMeta"`
			SourceMeta    *string `json:"sourceMeta"`
		} `json:"globalIndex"`
	} `json:"indexFile"`
}

// sameLevelArchives builds every eligible level of the table at path on both sides, Java's with
// the Java runner p and Go's with the Go runner goP (the protocol's pk-full-text-index-file-build;
// each writes its archive where its table writer writes index files, uncommitted), and compares
// them; lib searches the archives on Go's side.
func sameLevelArchives(ctx context.Context, p, goP *Process, lib *native.Library, path string) error {
	gd, err := goDump(ctx, path)
	if err != nil {
		return err
	}
	tb := table.Open(fileio.NewLocal(), path)
	snap, err := tb.Latest(ctx)
	if err != nil {
		return err
	}
	sch, err := tb.Schema(ctx, snap.SchemaID)
	if err != nil {
		return err
	}
	cols := pkfulltext.IndexColumns(sch.Options)
	if len(cols) != 1 {
		return fmt.Errorf("the latest snapshot's schema indexes %v, want one column", cols)
	}
	field, ok := sch.FieldByName(cols[0])
	if !ok {
		return fmt.Errorf("no column %s", cols[0])
	}
	fieldID := int32(field.ID)
	contents, err := tb.Read(ctx, snap)
	if err != nil {
		return err
	}
	if len(contents.Buckets) != len(gd.Buckets) {
		return fmt.Errorf("%d buckets, the dump has %d", len(contents.Buckets), len(gd.Buckets))
	}
	goSide, javaSide := GoSide{Lib: lib}, RunnerSide{Label: "java", Proc: p}
	queries := engineQueries()
	levels, nonEmpty := 0, 0
	for i, b := range contents.Buckets {
		view, err := pkfulltext.InspectBucket(fieldID, b.DataFiles, b.IndexFiles)
		if err != nil {
			return err
		}
		byLevel := map[int32][]*meta.DataFileMeta{}
		for _, f := range view.Eligible {
			byLevel[f.Level] = append(byLevel[f.Level], f)
		}
		for _, level := range sortedKeys(byLevel) {
			where := fmt.Sprintf("partition %v bucket %d level %d", gd.Buckets[i].Partition, b.Bucket, level)
			files := byLevel[level]
			slices.SortFunc(files, func(a, b *meta.DataFileMeta) int { return javaio.CompareJava(a.FileName, b.FileName) })

			args := map[string]any{"path": path, "partition": gd.Buckets[i].Partition, "bucket": b.Bucket, "level": level}
			var j, gb javaIndexFileBuild
			if err := p.Call(ctx, "pk-full-text-index-file-build", args, &j); err != nil {
				return fmt.Errorf("%s: Java build: %w", where, err)
			}
			if err := goP.Call(ctx, "pk-full-text-index-file-build", args, &gb); err != nil {
				return fmt.Errorf("%s: Go build: %w", where, err)
			}
			var javaSources, goSources, wantSources []string
			for _, s := range j.Sources {
				javaSources = append(javaSources, s.FileName)
			}
			for _, s := range gb.Sources {
				goSources = append(goSources, s.FileName)
			}
			for _, f := range files {
				wantSources = append(wantSources, f.FileName)
			}
			if !slices.Equal(javaSources, goSources) || !slices.Equal(javaSources, wantSources) {
				return fmt.Errorf("%s: Java builds over %v, Go over %v, the level's eligible files are %v", where, javaSources, goSources, wantSources)
			}
			g, err := buildMeta(&gb)
			if err != nil {
				return fmt.Errorf("%s: Go build: %w", where, err)
			}
			if err := sameArchiveMeta(g, &j); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
			javaPath := strings.TrimPrefix(j.ArchivePath, "file:")
			goPath := strings.TrimPrefix(gb.ArchivePath, "file:")
			if err := sameEnvelope(javaPath, goPath); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
			for _, q := range queries {
				want, err := javaSide.Search(ctx, javaPath, q, ftGoldenLimit)
				if err != nil {
					return fmt.Errorf("%s: query %s: Java on Java's archive: %w", where, q, err)
				}
				for _, s := range []struct {
					what   string
					search func() ([]fulltext.Hit, error)
				}{
					{"Go on Go's archive", func() ([]fulltext.Hit, error) { return goSide.Search(ctx, goPath, q, ftGoldenLimit) }},
					{"Java on Go's archive", func() ([]fulltext.Hit, error) { return javaSide.Search(ctx, goPath, q, ftGoldenLimit) }},
					{"Go on Java's archive", func() ([]fulltext.Hit, error) { return goSide.Search(ctx, javaPath, q, ftGoldenLimit) }},
				} {
					got, err := s.search()
					if err != nil {
						return fmt.Errorf("%s: query %s: %s: %w", where, q, s.what, err)
					}
					if err := sameScoredSet(got, want); err != nil {
						return fmt.Errorf("%s: query %s: %s, against Java on Java's archive: %w", where, q, s.what, err)
					}
				}
				if len(want) > 0 {
					nonEmpty++
				}
			}
			levels++
		}
	}
	if levels == 0 || nonEmpty == 0 {
		return fmt.Errorf("%d levels built, %d non-empty results: the table exercises nothing", levels, nonEmpty)
	}
	return nil
}

// buildMeta is the index file meta of a runner's pk-full-text-index-file-build result.
func buildMeta(b *javaIndexFileBuild) (*meta.IndexFileMeta, error) {
	decode := func(s *string) ([]byte, error) {
		if s == nil {
			return nil, nil
		}
		return base64.StdEncoding.DecodeString(*s)
	}
	g := b.IndexFile.GlobalIndex
	indexMeta, err := decode(g.IndexMeta)
	if err != nil {
		return nil, err
	}
	sourceMeta, err := decode(g.SourceMeta)
	if err != nil {
		return nil, err
	}
	return &meta.IndexFileMeta{
		IndexType: b.IndexFile.IndexType, FileName: b.IndexFile.FileName, FileSize: b.IndexFile.FileSize,
		RowCount: b.IndexFile.RowCount, ExternalPath: b.IndexFile.ExternalPath,
		GlobalIndex: &meta.GlobalIndexMeta{RowRangeStart: g.RowRangeStart, RowRangeEnd: g.RowRangeEnd, IndexFieldID: g.IndexFieldID,
			ExtraFieldIDs: g.ExtraFieldIDs, IndexMeta: indexMeta, SourceMeta: sourceMeta},
	}, nil
}

// sameArchiveMeta compares Go's archive metadata with the runner's build of the same level.
func sameArchiveMeta(g *meta.IndexFileMeta, j *javaIndexFileBuild) error {
	decode := func(s *string) ([]byte, error) {
		if s == nil {
			return nil, nil
		}
		return base64.StdEncoding.DecodeString(*s)
	}
	indexMeta, err := decode(j.IndexFile.GlobalIndex.IndexMeta)
	if err != nil {
		return err
	}
	sourceMeta, err := decode(j.IndexFile.GlobalIndex.SourceMeta)
	if err != nil {
		return err
	}
	jg, gg := j.IndexFile.GlobalIndex, g.GlobalIndex
	switch {
	case gg == nil:
		return errors.New("Go's archive has no global index meta")
	case g.IndexType != j.IndexFile.IndexType:
		return fmt.Errorf("index type: Go %s, Java %s", g.IndexType, j.IndexFile.IndexType)
	case g.RowCount != j.IndexFile.RowCount:
		return fmt.Errorf("row count: Go %d, Java %d", g.RowCount, j.IndexFile.RowCount)
	case gg.RowRangeStart != jg.RowRangeStart || gg.RowRangeEnd != jg.RowRangeEnd:
		return fmt.Errorf("row range: Go [%d, %d], Java [%d, %d]", gg.RowRangeStart, gg.RowRangeEnd, jg.RowRangeStart, jg.RowRangeEnd)
	case gg.IndexFieldID != jg.IndexFieldID:
		return fmt.Errorf("field id: Go %d, Java %d", gg.IndexFieldID, jg.IndexFieldID)
	case !slices.Equal(gg.ExtraFieldIDs, jg.ExtraFieldIDs) || (gg.ExtraFieldIDs == nil) != (jg.ExtraFieldIDs == nil):
		return fmt.Errorf("extra field ids: Go %v, Java %v", gg.ExtraFieldIDs, jg.ExtraFieldIDs)
	case !sameIndexMeta(gg.IndexMeta, indexMeta):
		return fmt.Errorf("index meta: Go %q, Java %q", gg.IndexMeta, indexMeta)
	case !bytes.Equal(gg.SourceMeta, sourceMeta):
		return fmt.Errorf("source meta: Go %x, Java %x", gg.SourceMeta, sourceMeta)
	case (g.ExternalPath == nil) != (j.IndexFile.ExternalPath == nil):
		return fmt.Errorf("external path: Go %v, Java %v", g.ExternalPath, j.IndexFile.ExternalPath)
	}
	return nil
}

// sameIndexMeta reports whether two archives' index meta record the same analyzer options: the
// same members of one JSON object, in any order (Paimon never reads a primary-key archive's index
// meta back, so its key order is not part of the format: scenario/go-indexmeta-order), or, when
// either is no such object, the same bytes.
func sameIndexMeta(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	_, ma, errA := jsonStringMap(a)
	_, mb, errB := jsonStringMap(b)
	return errA == nil && errB == nil && maps.Equal(ma, mb)
}

// sameScoredSet compares two complete result lists as scored row sets: the same row ids, each
// with a score equal within 1e-5 relative (equal scores may come in either order).
func sameScoredSet(got, want []fulltext.Hit) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d hits, want %d", len(got), len(want))
	}
	scores := map[int64]float32{}
	for _, h := range want {
		scores[h.RowID] = h.Score
	}
	for _, h := range got {
		w, ok := scores[h.RowID]
		if !ok {
			return fmt.Errorf("row %d is a hit, not in the reference", h.RowID)
		}
		a, b := float64(h.Score), float64(w)
		if math.Abs(a-b) > 1e-5*math.Max(math.Abs(a), math.Abs(b)) {
			return fmt.Errorf("row %d: score %v, want %v", h.RowID, a, b)
		}
	}
	return nil
}

func sortedKeys[V any](m map[int32]V) []int32 {
	var keys []int32
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// docIndexFileSameLevelTable describes index-file/same-level/<table>.
const docIndexFileSameLevelTable = "on every full-text table of the Java corpus, for every (partition, bucket, level) with " +
	"eligible files, Paimon's `PkFullTextIndexFile` (the runner's " +
	"`pk-full-text-index-file-build`) and Go's `pkfulltext.IndexFile` (through the Go runner, " +
	"over the production data file readers and the native engine) build the level's archive; " +
	"the two must carry the same `GlobalIndexMeta` (row range, field id, extra field ids, index" +
	" meta as the same options in any order, source meta bytes) and row count, record the same analyzer configuration and " +
	"document count, and answer the engine corpus queries with the same row ids and scores " +
	"(within 1e-5 relative), whichever side searches."
