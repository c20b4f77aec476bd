package goldengen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// MaxJavaCorpusBytes bounds the whole Java corpus on disk: the tables under JavaTablesDir and
// the expected outputs under JavaExpectedDir.
const MaxJavaCorpusBytes = 5 << 20

// JavaFullTextExpected is the content of compat/golden/java/<table>.fulltext.json for a Java
// golden table with pk-full-text.index.columns: what the Java runner returned, at generation
// time, for a fixed query set, through the table's full-text read path (search) and through the
// full-text indexer on each archive of the table (archive-search).
type JavaFullTextExpected struct {
	Generator string `json:"generator"`
	// Limit is the search limit of every query.
	Limit int `json:"limit"`
	// Queries are the engine JSON queries, in the order Search and every archive's Hits hold
	// their results.
	Queries []string `json:"queries"`
	// Search holds the runner's search result of each query verbatim ({snapshotId, column,
	// query, results: [{key, text, score}]}).
	Search []json.RawMessage `json:"search"`
	// Archives holds every full-text archive of the latest snapshot, in the order of Java's dump.
	Archives []JavaArchiveHits `json:"archives"`
}

// JavaArchiveHits is one archive of a Java golden table and Java's hits on it per query.
type JavaArchiveHits struct {
	Bucket   int32  `json:"bucket"`
	FileName string `json:"fileName"`
	// Path is the archive's path relative to the table directory.
	Path     string `json:"path"`
	Level    int32  `json:"level"`
	RowCount int64  `json:"rowCount"`
	// Hits holds, per query of JavaFullTextExpected.Queries, the row ids and scores the
	// runner's archive-search returned, best first (ties by row id).
	Hits []JavaArchiveSearch `json:"hits"`
}

// JavaArchiveSearch is one archive-search result.
type JavaArchiveSearch struct {
	RowIDs []int64   `json:"rowIds"`
	Scores []float32 `json:"scores"`
}

// JavaFullTextExpectedPath is where the full-text expectations of the Java golden table name
// live under root.
func JavaFullTextExpectedPath(root, name string) string {
	return filepath.Join(root, JavaExpectedDir, name+".fulltext.json")
}

// ReadJavaFullTextExpected reads the full-text expectations of the Java golden table name
// strictly; ok is false when the table has none (it indexes no text).
func ReadJavaFullTextExpected(root, name string) (exp *JavaFullTextExpected, ok bool, err error) {
	path := JavaFullTextExpectedPath(root, name)
	exp = &JavaFullTextExpected{}
	if ok, err := readOptionalStrict(path, exp); !ok || err != nil {
		return nil, false, err
	}
	if len(exp.Queries) == 0 || len(exp.Search) != len(exp.Queries) || len(exp.Archives) == 0 {
		return nil, false, fmt.Errorf("%s: %d queries, %d search results, %d archives", path, len(exp.Queries), len(exp.Search), len(exp.Archives))
	}
	for _, a := range exp.Archives {
		if len(a.Hits) != len(exp.Queries) {
			return nil, false, fmt.Errorf("%s: archive %s has %d results for %d queries", path, a.FileName, len(a.Hits), len(exp.Queries))
		}
		for i, h := range a.Hits {
			if len(h.RowIDs) != len(h.Scores) {
				return nil, false, fmt.Errorf("%s: archive %s, query %d: %d row ids, %d scores", path, a.FileName, i, len(h.RowIDs), len(h.Scores))
			}
		}
	}
	return exp, true, nil
}

// WriteJavaFullTextExpected stores exp as the full-text expectations of the Java golden table
// name.
func WriteJavaFullTextExpected(root, name string, exp *JavaFullTextExpected) error {
	data, err := json.MarshalIndent(exp, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(JavaFullTextExpectedPath(root, name), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write full-text expectations of %s: %w", name, err)
	}
	return nil
}

// readOptionalStrict decodes the JSON file at path into v, an unknown member being an error; ok
// is false when there is no such file.
func readOptionalStrict(path string, v any) (ok bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return false, fmt.Errorf("parse %s: %w", path, err)
	}
	return true, nil
}
