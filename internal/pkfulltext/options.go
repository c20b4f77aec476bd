// Package pkfulltext ports Paimon 2.0.0's primary-key full-text index maintenance
// (org.apache.paimon.index.pkfulltext): the index definition a schema configures (with the checks
// of Java's SchemaValidation), the analyzer options of the indexed column, the archive builder,
// the bucket index state and the bucket maintainer.
package pkfulltext

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/javacompat"
	"github.com/paimon-pkft/pkft/internal/javaio"
	"github.com/paimon-pkft/pkft/internal/mutation"
	"github.com/paimon-pkft/pkft/internal/pkindex"
)

// Table option keys that configure the primary-key full-text index.
const (
	// ColumnsOption lists the indexed columns (comma-separated; the first release supports one).
	ColumnsOption = pkindex.FullTextColumnsOption
	// optionPrefix qualifies engine options in table options and in the index meta's source.
	optionPrefix = "full-text."
	// IndexType is the index type recorded in IndexFileMeta for full-text archives.
	IndexType = "full-text"
)

// FieldOptionsKey is the table option holding a JSON object of analyzer options for column.
func FieldOptionsKey(column string) string {
	return "fields." + column + ".pk-full-text.index.options"
}

// IndexColumns returns the columns named by pk-full-text.index.columns as Java splits them
// (every comma separates, each part trimmed, empty parts kept), or nil when the option is unset.
func IndexColumns(tableOptions map[string]string) []string {
	return pkindex.IndexColumns(tableOptions, ColumnsOption)
}

// AnalyzerOptions are the engine options of one indexed column, in the order Java records them
// in the index meta.
type AnalyzerOptions []fulltext.Option

// ResolveAnalyzerOptions resolves the engine options of column from table options as
// CoreOptions#primaryKeyFullTextIndexOptions and NativeFullTextGlobalIndexerFactory do in Paimon
// 2.0.0: every table option starting with "full-text.", overlaid with the column's JSON object
// (unqualified keys are scoped to "full-text."; a key may not contradict a table option), then
// the prefix removed. Errors carry Java's messages.
func ResolveAnalyzerOptions(tableOptions map[string]string, column string) (AnalyzerOptions, error) {
	resolved := map[string]string{}
	for k, v := range tableOptions {
		if strings.HasPrefix(k, optionPrefix) {
			resolved[k] = v
		}
	}
	key := FieldOptionsKey(column)
	if serialized, ok := tableOptions[key]; ok && javacompat.Trim(serialized) != "" {
		keys, values, err := parseJSONStringMap(serialized)
		if err != nil {
			return nil, fmt.Errorf("%s must be a JSON object of option key-value pairs. (%w)", key, err)
		}
		for i, k := range keys {
			if javacompat.Trim(k) == "" {
				return nil, fmt.Errorf("%s contains an empty option key.", key)
			}
			q := k
			if !strings.HasPrefix(k, optionPrefix) {
				q = optionPrefix + k
			}
			if prev, ok := resolved[q]; ok && prev != values[i] {
				return nil, fmt.Errorf("%s defines conflicting values for %s.", key, q)
			}
			resolved[q] = values[i]
		}
	}
	// Java: a TreeMap (sorted) becomes the HashMap of an Options; removePrefix collects the
	// stripped keys into a new HashMap in that map's order; the indexer copies that order into a
	// LinkedHashMap. Reproduce each hop's iteration order.
	sorted := make([]string, 0, len(resolved))
	for k := range resolved {
		sorted = append(sorted, k)
	}
	sort.Slice(sorted, func(i, j int) bool { return javaio.CompareJava(sorted[i], sorted[j]) < 0 })
	qualified, err := javacompat.HashMapOrder(sorted)
	if err != nil {
		return nil, fmt.Errorf("order analyzer options of %s: %w", column, err)
	}
	stripped := make([]string, 0, len(qualified))
	for _, k := range qualified {
		stripped = append(stripped, strings.TrimPrefix(k, optionPrefix))
	}
	order, err := javacompat.HashMapOrder(stripped)
	if err != nil {
		return nil, fmt.Errorf("order analyzer options of %s: %w", column, err)
	}
	opts := make(AnalyzerOptions, len(order))
	for i, k := range order {
		opts[i] = fulltext.Option{Key: k, Value: resolved[optionPrefix+k]}
	}
	return opts, nil
}

// IndexMeta is the GlobalIndexMeta index meta Java records for archives built with these
// options: the flat JSON object of the options (NativeFullTextIndexOptions#serialize).
func (o AnalyzerOptions) IndexMeta() []byte {
	keys := make([]string, len(o))
	values := make([]string, len(o))
	for i, opt := range o {
		keys[i], values[i] = opt.Key, opt.Value
		if mutation.On("indexmeta-prefixed") {
			// The options recorded with their "full-text." prefix.
			keys[i] = optionPrefix + opt.Key
		}
	}
	return []byte(javacompat.FlatJSONStringMap(keys, values))
}

// parseJSONStringMap reads a JSON object the way JsonSerdeUtil#parseJsonMap(json, String.class)
// does: members in order (a repeated key keeps its first position and takes the last value),
// string values as they are, any other value as its JSON text (numbers in Java's rendering,
// null as "null"), and anything after the object ignored.
func parseJSONStringMap(s string) (keys, values []string, err error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, errors.New("not a JSON object")
	}
	index := map[string]int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, err
		}
		v, err := jsonValueAsJavaString(raw)
		if err != nil {
			return nil, nil, err
		}
		if i, ok := index[k]; ok {
			values[i] = v
			continue
		}
		index[k] = len(keys)
		keys = append(keys, k)
		values = append(values, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, err
	}
	return keys, values, nil
}

// jsonValueAsJavaString converts one JSON value as Jackson does when Paimon asks for a String:
// strings unchanged, other values re-serialized compactly.
func jsonValueAsJavaString(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) > 0 && raw[0] == '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case bytes.Equal(raw, []byte("null")), bytes.Equal(raw, []byte("true")), bytes.Equal(raw, []byte("false")):
		return string(raw), nil
	case len(raw) > 0 && (raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')):
		return javaNumberString(string(raw))
	default:
		// Objects and arrays: Jackson re-serializes them compactly, keys in order.
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return "", err
		}
		return buf.String(), nil
	}
}

// javaNumberString renders a JSON number as Jackson reads it (int, long or BigInteger for
// integers, double for the rest) and writes it back.
func javaNumberString(n string) (string, error) {
	if !strings.ContainsAny(n, ".eE") {
		if v, err := strconv.ParseInt(n, 10, 64); err == nil {
			return strconv.FormatInt(v, 10), nil
		}
		return n, nil // BigInteger keeps its digits
	}
	f, err := strconv.ParseFloat(n, 64)
	if err != nil {
		return "", err
	}
	return javacompat.DoubleToString(f), nil
}
