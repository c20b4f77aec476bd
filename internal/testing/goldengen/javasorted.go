package goldengen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

// MaxJavaSortedTableBytes bounds one sorted-family golden table.
const MaxJavaSortedTableBytes = 200 << 10

// JavaSortedExpected is the content of compat/golden/java/<table>.sorted.json for a Java golden
// table with pk-btree or pk-bitmap index columns: what Paimon's own btree and bitmap readers
// (the runner's sorted-index-read) answered, at generation time, on every sorted payload of the
// table's latest snapshot. Java's classification of the payloads at write time is in the table's
// dump (compat/golden/java/<table>.json, each bucket's "sorted" states, computed by Paimon's
// PkSortedBucketIndexState and PrimaryKeyIndexLevels in the runner).
type JavaSortedExpected struct {
	Generator string `json:"generator"`
	// Payloads holds every btree and bitmap index file of the latest snapshot, in the order of
	// Java's dump (bucket, then index manifest order).
	Payloads []JavaSortedPayload `json:"payloads"`
}

// JavaSortedPayload is one sorted payload and Java's reads of it.
type JavaSortedPayload struct {
	// BucketIndex is the position of the payload's (partition, bucket) among the dump's buckets.
	BucketIndex int    `json:"bucketIndex"`
	Bucket      int32  `json:"bucket"`
	FileName    string `json:"fileName"`
	// Path is the payload's path relative to the table directory.
	Path      string `json:"path"`
	IndexType string `json:"indexType"`
	Column    string `json:"column"`
	FieldID   int32  `json:"fieldId"`
	// Type is the column's Paimon SQL type, as the runner parses it.
	Type  string `json:"type"`
	Level int32  `json:"level"`
	// Reads are Java's answers, each a predicate and the row ids the reader returned.
	Reads []JavaSortedRead `json:"reads"`
}

// JavaSortedRead is one predicate on a payload and Java's answer. Literals are in the runner's
// text form of keys (integers and dates in decimal, booleans as true/false, DOUBLE as the
// unsigned decimal of its IEEE bits, decimals in plain notation, strings as themselves).
type JavaSortedRead struct {
	Op       string    `json:"op"`
	Literals []*string `json:"literals"`
	RowIDs   []int64   `json:"rowIds"`
}

// JavaSortedExpectedPath is where the sorted-family expectations of the Java golden table name
// live under root.
func JavaSortedExpectedPath(root, name string) string {
	return filepath.Join(root, JavaExpectedDir, name+".sorted.json")
}

// ReadJavaSortedExpected reads the sorted-family expectations of the Java golden table name
// strictly; ok is false when the table has none (it has no sorted index).
func ReadJavaSortedExpected(root, name string) (exp *JavaSortedExpected, ok bool, err error) {
	path := JavaSortedExpectedPath(root, name)
	exp = &JavaSortedExpected{}
	if ok, err := readOptionalStrict(path, exp); !ok || err != nil {
		return nil, false, err
	}
	if len(exp.Payloads) == 0 {
		return nil, false, fmt.Errorf("%s records no payloads", path)
	}
	for _, p := range exp.Payloads {
		if len(p.Reads) == 0 {
			return nil, false, fmt.Errorf("%s: payload %s has no reads", path, p.FileName)
		}
	}
	return exp, true, nil
}

// numberList matches an indented JSON array of integers.
var numberList = regexp.MustCompile(`\[[-0-9,\s]*\]`)

// WriteJavaSortedExpected stores exp as the sorted-family expectations of the Java golden table
// name.
func WriteJavaSortedExpected(root, name string, exp *JavaSortedExpected) error {
	data, err := json.MarshalIndent(exp, "", "  ")
	if err != nil {
		return err
	}
	// Row id lists on one line each: the file stays small and reviewable.
	data = numberList.ReplaceAllFunc(data, func(m []byte) []byte {
		return append(append([]byte{'['}, bytes.Join(bytes.Fields(bytes.Trim(m, "[]")), nil)...), ']')
	})
	if err := os.WriteFile(JavaSortedExpectedPath(root, name), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write sorted-family expectations of %s: %w", name, err)
	}
	return nil
}
