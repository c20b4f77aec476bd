// Package kvfile writes and reads the key-value data files of Paimon primary-key tables in
// Parquet, laid out as Paimon 2.0.0 writes them (KeyValue#schema, KeyValueDataFileWriter): the
// trimmed primary key fields prefixed with _KEY_ (omitted in data-file.thin-mode), then
// _SEQUENCE_NUMBER (BIGINT) and _VALUE_KIND (TINYINT), then every table field, each Parquet field
// carrying its Paimon field id. The writer computes the file metadata (min/max key, key and value
// statistics for the table's stats mode, sequence range, delete row count) as Java's writer does;
// the reader streams the records of a file back in file order, from Parquet data files and from
// the Avro data files Java writes with file.format=avro (package dataformat); an ORC data file is
// refused by name.
//
// Values use the Go forms of package binrow (int32 for INT and DATE, string for VARCHAR,
// binrow.Decimal, binrow.Timestamp, ...), nil meaning SQL NULL.
package kvfile

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// Special field names and ids of Paimon (SpecialFields).
const (
	// KeyFieldPrefix prefixes the key columns of a key-value file.
	KeyFieldPrefix = "_KEY_"
	// KeyFieldIDStart is added to a key field's id to form its key column's id.
	KeyFieldIDStart = math.MaxInt32 / 2
	// SequenceNumberName is the sequence number column.
	SequenceNumberName = "_SEQUENCE_NUMBER"
	// SequenceNumberFieldID is the id of _SEQUENCE_NUMBER.
	SequenceNumberFieldID = math.MaxInt32 - 1
	// ValueKindName is the row kind column.
	ValueKindName = "_VALUE_KIND"
	// ValueKindFieldID is the id of _VALUE_KIND.
	ValueKindFieldID = math.MaxInt32 - 2
)

// Table options the layout and the writer read (CoreOptions).
const (
	ThinModeOption         = "data-file.thin-mode"
	StatsModeOption        = "metadata.stats-mode"
	StatsModePerLevel      = "metadata.stats-mode.per.level"
	StatsDenseStoreOption  = "metadata.stats-dense-store"
	StatsKeepFirstNOption  = "metadata.stats-keep-first-n-columns"
	FileCompressionOption  = "file.compression"
	CompressionPerLevel    = "file.compression.per.level"
	ZstdLevelOption        = "file.compression.zstd-level"
	FileFormatOption       = "file.format"
	FormatPerLevel         = "file.format.per.level"
	TargetFileSizeOption   = "target-file-size"
	TargetFileRowNumOption = "target-file-row-num"
	DefaultStatsMode       = "truncate(16)"
	defaultTargetFileSize  = 128 << 20
	systemFieldStatsLength = 128
)

// KeyValue is one record of a key-value file.
type KeyValue struct {
	// Key holds the trimmed primary key values.
	Key []any
	// Seq is the sequence number.
	Seq int64
	// Kind is the row kind (_VALUE_KIND).
	Kind types.RowKind
	// Value holds every table field.
	Value []any
}

// IsRetract reports whether the record retracts a row (-U or -D).
func (kv *KeyValue) IsRetract() bool {
	return kv.Kind == types.UpdateBefore || kv.Kind == types.Delete
}

// column is one written column.
type column struct {
	name string
	id   int
	typ  types.DataType
	// statsMode is the collector mode of the column: "none", "counts", "full" or "truncate(N)".
	statsMode string
}

// Layout is the key-value file layout of one table schema.
type Layout struct {
	// Schema is the table schema the layout is for.
	Schema *schema.TableSchema
	// KeyType is the ROW of the trimmed primary key fields.
	KeyType types.DataType
	// ValueType is the ROW of the table's fields.
	ValueType types.DataType
	// KeyIndexes are the positions of the key fields in the value row.
	KeyIndexes []int
	// Thin reports data-file.thin-mode: no _KEY_ columns.
	Thin bool

	statsMode string
	perLevel  map[int]string
	// compressionPerLevel is file.compression.per.level: each level's codec where it differs
	// from file.compression.
	compressionPerLevel map[int]string
	denseStore          bool
	keepFirstN          int
	fieldModes          map[string]string
}

// NewLayout resolves the layout of the data files a writer writes for a primary-key table, from
// its schema and options: Parquet only (a file.format of avro or orc is refused).
func NewLayout(s *schema.TableSchema) (*Layout, error) { return newLayout(s, true) }

// NewLayoutForRead resolves the layout of a primary-key table's data files to read them: unlike
// NewLayout it accepts every file.format, since the format of each file is the one its name
// says (Parquet and Avro are read, ORC is refused by name when a file is opened).
func NewLayoutForRead(s *schema.TableSchema) (*Layout, error) { return newLayout(s, false) }

func newLayout(s *schema.TableSchema, write bool) (*Layout, error) {
	if len(s.PrimaryKeys) == 0 {
		return nil, fmt.Errorf("table has no primary key: key-value files need one")
	}
	keyType, err := s.TrimmedPrimaryKeyType()
	if err != nil {
		return nil, err
	}
	l := &Layout{Schema: s, KeyType: keyType, ValueType: s.RowType(), statsMode: DefaultStatsMode,
		denseStore: true, keepFirstN: -1, fieldModes: map[string]string{}}
	for _, kf := range keyType.Fields {
		i := slices.IndexFunc(s.Fields, func(f types.DataField) bool { return f.Name == kf.Name })
		if i < 0 {
			return nil, fmt.Errorf("key field %s is not a table field", kf.Name)
		}
		l.KeyIndexes = append(l.KeyIndexes, i)
	}
	if format := strings.ToLower(strings.TrimSpace(s.Options[FileFormatOption])); write && format != "" && format != "parquet" {
		return nil, fmt.Errorf("file.format %q: only parquet data files are written", format)
	}
	if l.Thin, err = schema.BoolOption(s.Options, ThinModeOption, false); err != nil {
		return nil, err
	}
	if l.denseStore, err = schema.BoolOption(s.Options, StatsDenseStoreOption, true); err != nil {
		return nil, err
	}
	if v, ok := s.Options[StatsKeepFirstNOption]; ok {
		if l.keepFirstN, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
			return nil, fmt.Errorf("option %s: %w", StatsKeepFirstNOption, err)
		}
	}
	if v, ok := s.Options[StatsModeOption]; ok {
		l.statsMode = v
	}
	if _, err := parseStatsMode(l.statsMode); err != nil {
		return nil, fmt.Errorf("option %s: %w", StatsModeOption, err)
	}
	if l.perLevel, err = parseLevelMap(s.Options, StatsModePerLevel, func(m string) error {
		_, err := parseStatsMode(m)
		return err
	}); err != nil {
		return nil, err
	}
	if l.compressionPerLevel, err = parseLevelMap(s.Options, CompressionPerLevel, func(c string) error {
		_, err := parquetCodec(c)
		return err
	}); err != nil {
		return nil, err
	}
	// KeyValueFileWriterFactory picks each level's format from file.format.per.level; Go writes
	// Parquet only, so a level in another format is refused by name.
	if _, err := parseLevelMap(s.Options, FormatPerLevel, func(f string) error {
		if write && !strings.EqualFold(f, "parquet") {
			return fmt.Errorf("format %q: the Go writer writes Parquet only", f)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	for k, v := range s.Options {
		if rest, ok := strings.CutPrefix(k, "fields."); ok {
			if name, ok := strings.CutSuffix(rest, ".stats-mode"); ok {
				if _, err := parseStatsMode(v); err != nil {
					return nil, fmt.Errorf("option %s: %w", k, err)
				}
				l.fieldModes[name] = v
			}
		}
	}
	for _, f := range s.Fields {
		if err := checkWritable(f.Type); err != nil {
			if !write {
				return nil, fmt.Errorf("field %s: type %s is not read by the Go key-value file reader", f.Name, f.Type.SQLString())
			}
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
	}
	return l, nil
}

func checkWritable(t types.DataType) error {
	switch t.Root {
	case types.RootBoolean, types.RootTinyInt, types.RootSmallInt, types.RootInt, types.RootBigInt,
		types.RootFloat, types.RootDouble, types.RootChar, types.RootVarChar, types.RootBinary,
		types.RootVarBinary, types.RootDecimal, types.RootDate, types.RootTime, types.RootTimestamp,
		types.RootTimestampLTZ:
		return nil
	}
	return fmt.Errorf("type %s is not supported by the Go key-value file writer", t.SQLString())
}

// parseLevelMap reads the map option key ("level:value,level:value", CoreOptions' map type with
// integer keys), checking each trimmed value with check; an unset or blank option is empty.
func parseLevelMap(opts map[string]string, key string, check func(string) error) (map[int]string, error) {
	out := map[int]string{}
	v, ok := opts[key]
	if !ok || strings.TrimSpace(v) == "" {
		return out, nil
	}
	for _, kv := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(kv, ":")
		if !ok {
			return nil, fmt.Errorf("option %s: %q is not level:value", key, kv)
		}
		lvl, err := strconv.Atoi(strings.TrimSpace(k))
		if err != nil {
			return nil, fmt.Errorf("option %s: %w", key, err)
		}
		val = strings.TrimSpace(val)
		if err := check(val); err != nil {
			return nil, fmt.Errorf("option %s: %w", key, err)
		}
		out[lvl] = val
	}
	return out, nil
}

// compression is the codec of a file at level: file.compression.per.level's, else
// file.compression (KeyValueFileWriterFactory's key2Compress).
func (l *Layout) compression(level int) string {
	if c, ok := l.compressionPerLevel[level]; ok {
		return c
	}
	return l.Schema.Options[FileCompressionOption]
}

// columns returns the written columns for a file at level, with their stats collector modes
// (StatsCollectorFactories#createStatsFactories).
func (l *Layout) columns(level int) []column {
	var cols []column
	if !l.Thin {
		for _, f := range l.KeyType.Fields {
			t := f.Type
			t.NotNull = true
			cols = append(cols, column{name: KeyFieldPrefix + f.Name, id: f.ID + KeyFieldIDStart, typ: t})
		}
	}
	cols = append(cols,
		column{name: SequenceNumberName, id: SequenceNumberFieldID, typ: types.DataType{Root: types.RootBigInt, NotNull: true}},
		column{name: ValueKindName, id: ValueKindFieldID, typ: types.DataType{Root: types.RootTinyInt, NotNull: true}})
	for _, f := range l.ValueType.Fields {
		cols = append(cols, column{name: f.Name, id: f.ID, typ: f.Type})
	}
	mode := l.statsMode
	if m, ok := l.perLevel[level]; ok {
		mode = m
	}
	var keyNames []string
	if l.Thin {
		for _, f := range l.KeyType.Fields {
			keyNames = append(keyNames, f.Name)
		}
	}
	count := 0
	for i := range cols {
		c := &cols[i]
		if m, ok := l.fieldModes[c.name]; ok {
			c.statsMode = m
			count++
		} else if strings.HasPrefix(c.name, KeyFieldPrefix) || c.name == SequenceNumberName ||
			c.name == ValueKindName || slices.Contains(keyNames, c.name) {
			c.statsMode = "truncate(128)"
		} else {
			if l.keepFirstN >= 0 && count >= l.keepFirstN {
				c.statsMode = "none"
			} else {
				c.statsMode = mode
			}
			count++
		}
	}
	return cols
}

// statsMode is a parsed collector mode.
type statsMode struct {
	kind     string // none, counts, full, truncate
	truncate int
}

func parseStatsMode(s string) (statsMode, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	switch u {
	case "NONE":
		return statsMode{kind: "none"}, nil
	case "COUNTS":
		return statsMode{kind: "counts"}, nil
	case "FULL":
		return statsMode{kind: "full"}, nil
	}
	if n, ok := strings.CutPrefix(u, "TRUNCATE("); ok {
		if n, ok := strings.CutSuffix(n, ")"); ok {
			v, err := strconv.Atoi(n)
			if err == nil && v > 0 {
				return statsMode{kind: "truncate", truncate: v}, nil
			}
		}
	}
	return statsMode{}, fmt.Errorf("unexpected stats mode %q", s)
}
