package pkft

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-pkft/pkft/internal/convert"
	"github.com/paimon-pkft/pkft/internal/expire"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/options"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pksorted/definition"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/types"
)

// ErrTableExists reports a [Create] on a directory that already holds a schema, as Java's
// SchemaManager#createTable refuses it ("Schema in filesystem exists, creation is not allowed").
var ErrTableExists = errors.New("schema in filesystem exists, creation is not allowed")

// TableDefinition is the schema of a table to [Create]: its columns, keys, options and comment,
// the parts of Paimon's Schema a user declares.
type TableDefinition struct {
	// Columns are the table's columns in order; field ids are assigned from 0 in this order, as
	// Java's Schema.Builder assigns them.
	Columns []ColumnDefinition `json:"columns"`
	// PrimaryKeys name the primary-key columns (made NOT NULL, as Java does); PartitionKeys the
	// partition columns.
	PrimaryKeys   []string `json:"primaryKeys,omitempty"`
	PartitionKeys []string `json:"partitionKeys,omitempty"`
	// Options are the table options (for example "bucket", "deletion-vectors.enabled",
	// "pk-full-text.index.columns").
	Options map[string]string `json:"options,omitempty"`
	// Comment is the table comment; empty for none.
	Comment string `json:"comment,omitempty"`
}

// ColumnDefinition is one column of a [TableDefinition].
type ColumnDefinition struct {
	Name string `json:"name"`
	// Type is Paimon's SQL text of the type, for example "INT NOT NULL", "STRING",
	// "DECIMAL(10, 2)", "TIMESTAMP(3)" (see [ArrowDefinition] for Arrow types).
	Type string `json:"type"`
	// Description is the column comment; empty for none.
	Description string `json:"description,omitempty"`
}

// ArrowDefinition returns the columns of an Arrow schema as a [TableDefinition] (keys and
// options left for the caller). Arrow types map to Paimon's: bool BOOLEAN, int8..int64
// TINYINT..BIGINT, float32 FLOAT, float64 DOUBLE, utf8 / large_utf8 / string_view STRING,
// binary / large_binary / binary_view BYTES, fixed_size_binary(n) BINARY(n), decimal128(p, s)
// DECIMAL(p, s), date32 DATE, time32 TIME(0) or TIME(3), timestamp without a time zone
// TIMESTAMP(0/3/6/9) and with one TIMESTAMP_LTZ; a non-nullable field is NOT NULL. Other Arrow
// types are refused by name.
func ArrowDefinition(s *arrow.Schema) (TableDefinition, error) {
	if s == nil {
		return TableDefinition{}, errors.New("arrow definition: nil schema")
	}
	def := TableDefinition{Columns: make([]ColumnDefinition, 0, s.NumFields())}
	for _, f := range s.Fields() {
		t, err := convert.FromArrowType(f.Type)
		if err != nil {
			return TableDefinition{}, fmt.Errorf("column %s: %w", f.Name, err)
		}
		t.NotNull = !f.Nullable
		def.Columns = append(def.Columns, ColumnDefinition{Name: f.Name, Type: t.SQLString()})
	}
	return def, nil
}

// CreateOption configures [Create].
type CreateOption interface{ applyCreate(*createConfig) }

type createConfig struct {
	open []OpenOption
	now  func() time.Time
}

// WithOpenOptions passes options to the [Open] of the created table that [Create] returns.
func WithOpenOptions(opts ...OpenOption) CreateOption {
	return createOpenOptions(opts)
}

type createOpenOptions []OpenOption

func (o createOpenOptions) applyCreate(c *createConfig) { c.open = append(c.open, o...) }

// Create creates a Paimon table at path from def and opens it: it writes schema/schema-0 exactly
// as Java's SchemaManager#createTable does (schema version 3, field ids from 0 in column order,
// highestFieldId the largest, primary-key columns NOT NULL, the options in Java's HashMap order,
// the creation time in timeMillis) and nothing else. A directory that already holds a schema is
// [ErrTableExists]. The definition is checked as Java checks it (duplicate or unknown key
// columns, primary keys that are all partition keys, bucket keys, the primary-key full-text
// index's requirements such as deletion-vectors.enabled=true), and every table option through
// pkft's option registry (internal/options): an option pkft does not know or does not implement
// (among them the vector primary-key index, pk-vector; [DecideOptions] tells which) is refused by
// name ([ErrUnsupportedTable]). On failure nothing is left behind.
func Create(ctx context.Context, path string, def TableDefinition, opts ...CreateOption) (*Table, error) {
	cfg := createConfig{now: time.Now}
	for _, o := range opts {
		if o == nil {
			continue
		}
		o.applyCreate(&cfg)
	}
	if path == "" {
		return nil, errors.New("create table: empty path")
	}
	s, err := def.tableSchema(cfg.now())
	if err != nil {
		return nil, fmt.Errorf("create table %s: %w", path, err)
	}
	path = tablePath(path, openConfigOf(cfg.open))
	fio, err := fileIOFor(path, openConfigOf(cfg.open))
	if err != nil {
		return nil, fmt.Errorf("create table: %w", err)
	}
	t := table.Open(fio, path)
	if _, err := t.LatestSchema(ctx); err == nil {
		return nil, fmt.Errorf("create table %s: %w", path, ErrTableExists)
	}
	if outer, err := enclosingTable(ctx, fio, t.Root); err != nil {
		return nil, fmt.Errorf("create table %s: %w", path, err)
	} else if outer != "" {
		return nil, fmt.Errorf("create table %s: the path is inside the table at %s", path, outer)
	}
	if err := fio.WriteFileAtomic(ctx, paths.SchemaPath(t.Root, 0), s.Marshal()); err != nil {
		if errors.Is(err, fileio.ErrExists) {
			return nil, fmt.Errorf("create table %s: %w", path, ErrTableExists)
		}
		return nil, fmt.Errorf("create table %s: write schema: %w", path, err)
	}
	return Open(ctx, path, cfg.open...)
}

// tableSchema is SchemaManager#createTable's schema for def (schema.Create, refusing the types
// and options pkft does not write), with the checks Java's SchemaValidation makes of the
// primary-key indexes and the merge options.
func (def TableDefinition) tableSchema(now time.Time) (*schema.TableSchema, error) {
	d := schema.Declaration{PrimaryKeys: def.PrimaryKeys, PartitionKeys: def.PartitionKeys, Options: def.Options,
		Comment: def.Comment, Columns: make([]schema.Column, len(def.Columns))}
	for i, c := range def.Columns {
		d.Columns[i] = schema.Column{Name: c.Name, Type: c.Type, Description: c.Description}
	}
	s, err := schema.Create(d, now, schema.CreateChecks{Options: validateOptions, Type: checkFlat})
	if err != nil {
		return nil, err
	}
	if _, err := pkfulltext.ResolveDefinition(s); err != nil && !errors.Is(err, pkfulltext.ErrNoIndex) {
		return nil, err
	}
	if _, err := definition.Resolve(s); err != nil {
		return nil, err
	}
	if err := tableops.ValidateMergeOptions(s); err != nil {
		return nil, err
	}
	return s, nil
}

// enclosingTable returns the table directory root lies in (an ancestor holding a schema), or ""
// when no ancestor is a table: a table created inside another's directory would mix its files
// with the other's, and Paimon's orphan-file cleanup of the outer table would delete them. An
// ancestor that cannot be read (an object store prefix the credentials may not list) counts as
// no table; only ctx ending is an error.
func enclosingTable(ctx context.Context, fio fileio.FileIO, root string) (string, error) {
	for dir := paths.Parent(root); dir != "" && dir != root; dir = paths.Parent(dir) {
		if _, err := table.Open(fio, dir).LatestSchema(ctx); err == nil {
			return dir, nil
		}
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if paths.Parent(dir) == dir {
			break
		}
	}
	return "", nil
}

// validateOptions is the single place table options are checked at creation: internal/options'
// registry refuses every option pkft does not know and every one it does not implement (with
// its reason), as writing, compacting and maintaining the table would.
func validateOptions(opts map[string]string) error {
	if err := options.New().Check(opts); errors.Is(err, options.ErrRefused) {
		return fmt.Errorf("%w: %w", ErrUnsupportedTable, err)
	} else if err != nil {
		return err // values Java Paimon refuses as well (options.RuleError): no limitation of pkft
	}
	// The retention bounds Java's SchemaValidation checks together (num-retained.min at least
	// 1 and at most num-retained.max), and a changelog retention the expiry cannot honour.
	if _, err := expire.FromOptions(opts); err != nil {
		if _, ok := errors.AsType[*expire.RetentionError](err); ok {
			return err // Java refuses it as well: no limitation of the Go writer
		}
		return fmt.Errorf("%w: %w", ErrUnsupportedTable, err)
	}
	return nil
}

// checkFlat refuses nested types: field ids of nested types are assigned by Java's
// ReassignFieldId, which Create does not port, and Go's writer writes no nested values.
func checkFlat(t types.DataType) error {
	if kindOfRoot[t.Root] == KindOther {
		return fmt.Errorf("type %s is not one pkft writes (nested, VARIANT, BLOB and VECTOR types are not supported)", t.SQLString())
	}
	return nil
}

// ParseTableDefinition reads a table definition from JSON: either the [TableDefinition] form
// ({"columns": [{"name", "type"}], "primaryKeys", "partitionKeys", "options", "comment"}) or
// the form of Java's schema files and Schema JSON ({"fields": [{"id", "name", "type"}], ...}).
// In Java's form field ids, highestFieldId, version, id and timeMillis are ignored: [Create]
// assigns them as Java's createTable does. Unknown members are refused.
func ParseTableDefinition(data []byte) (TableDefinition, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return TableDefinition{}, fmt.Errorf("parse table definition: %w", err)
	}
	if probe == nil {
		return TableDefinition{}, errors.New("parse table definition: not a JSON object")
	}
	_, hasColumns := probe["columns"]
	_, hasFields := probe["fields"]
	switch {
	case hasColumns && hasFields:
		return TableDefinition{}, errors.New("parse table definition: both columns and fields are given")
	case hasColumns:
		var def TableDefinition
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&def); err != nil {
			return TableDefinition{}, fmt.Errorf("parse table definition: %w", err)
		}
		return def, nil
	case hasFields:
		var def TableDefinition
		for name, raw := range probe {
			var err error
			switch name {
			case "fields":
				var fields []json.RawMessage
				if err = json.Unmarshal(raw, &fields); err != nil {
					break
				}
				for i, rf := range fields {
					f, ferr := types.ParseFieldJSON(rf)
					if ferr != nil {
						return TableDefinition{}, fmt.Errorf("parse table definition: field %d: %w", i, ferr)
					}
					c := ColumnDefinition{Name: f.Name, Type: f.Type.SQLString()}
					if f.Description != nil {
						c.Description = *f.Description
					}
					if f.DefaultValue != nil {
						return TableDefinition{}, fmt.Errorf("parse table definition: field %s: default values are not supported", f.Name)
					}
					def.Columns = append(def.Columns, c)
				}
			case "partitionKeys":
				err = json.Unmarshal(raw, &def.PartitionKeys)
			case "primaryKeys":
				err = json.Unmarshal(raw, &def.PrimaryKeys)
			case "options":
				var opts map[string]string
				if opts, _, err = schema.ParseOptions(raw); err == nil {
					def.Options = opts
				}
			case "comment":
				var c *string
				if err = json.Unmarshal(raw, &c); err == nil && c != nil {
					def.Comment = *c
				}
			case "version", "id", "highestFieldId", "timeMillis":
			default:
				err = fmt.Errorf("unknown member %q", name)
			}
			if err != nil {
				return TableDefinition{}, fmt.Errorf("parse table definition: %s: %w", name, err)
			}
		}
		return def, nil
	}
	return TableDefinition{}, errors.New("parse table definition: neither columns nor fields is given")
}

// createNow fixes the creation time (tests compare schema files byte for byte).
type createNow time.Time

func (o createNow) applyCreate(c *createConfig) { c.now = func() time.Time { return time.Time(o) } }

// Schema reads the table's latest schema.
func (t *Table) Schema(ctx context.Context) (*Schema, error) {
	s, err := t.latestSchema(ctx)
	if err != nil {
		return nil, err
	}
	return schemaOf(s), nil
}
