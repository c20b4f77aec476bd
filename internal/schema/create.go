package schema

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/paimon-pkft/pkft/internal/types"
)

// Declaration is a table as its creator declares it, the parts of Java's Schema a user gives:
// columns, partition and primary keys, options and comment.
type Declaration struct {
	// Columns are the table's columns in order.
	Columns []Column
	// PrimaryKeys and PartitionKeys name key columns; either may instead be given as the table
	// option primary-key or partition (comma-separated), not both.
	PrimaryKeys, PartitionKeys []string
	// Options are the table options.
	Options map[string]string
	// Comment is the table comment; empty for none.
	Comment string
}

// Column is one declared column.
type Column struct {
	Name string
	// Type is Paimon's SQL text of the type, for example "DECIMAL(10, 2) NOT NULL".
	Type string
	// Description is the column comment; empty for none.
	Description string
}

// CreateChecks are the caller's own refusals, run where Create reaches what they check; a nil
// check is skipped.
type CreateChecks struct {
	// Options checks the table options once the primary-key and partition options are taken
	// out of them, before the columns are read.
	Options func(options map[string]string) error
	// Type checks each column's type once it is parsed; its error is returned naming the column.
	Type func(t types.DataType) error
}

// Create is the schema Java's SchemaManager#createTable writes for d as schema 0, created at now:
// Schema's normalization (keys from the primary-key and partition options, primary-key columns
// made NOT NULL), then TableSchema.create(0, schema) (version 3, field ids from 0 in column order,
// highestFieldId the largest), validated (Validate). It refuses a definition without columns,
// a column without a name or given twice, a type that does not parse, and key columns that are
// given twice or are no column. It writes nothing.
func Create(d Declaration, now time.Time, checks CreateChecks) (*TableSchema, error) {
	if len(d.Columns) == 0 {
		return nil, errors.New("the table has no columns")
	}
	options := make(map[string]string, len(d.Options))
	maps.Copy(options, d.Options)
	primaryKeys, err := keysFromOption(options, "primary-key", d.PrimaryKeys, "primary key")
	if err != nil {
		return nil, err
	}
	partitionKeys, err := keysFromOption(options, "partition", d.PartitionKeys, "partition")
	if err != nil {
		return nil, err
	}
	if checks.Options != nil {
		if err := checks.Options(options); err != nil {
			return nil, err
		}
	}
	s := &TableSchema{Version: CurrentVersion, ID: 0, HighestFieldID: -1,
		PartitionKeys: partitionKeys, PrimaryKeys: primaryKeys, Options: options, TimeMillis: now.UnixMilli()}
	if d.Comment != "" {
		c := d.Comment
		s.Comment = &c
	}
	names := map[string]bool{}
	for i, c := range d.Columns {
		if c.Name == "" {
			return nil, fmt.Errorf("column %d has no name", i)
		}
		if names[c.Name] {
			return nil, fmt.Errorf("table column %s is given twice", c.Name)
		}
		names[c.Name] = true
		t, err := types.ParseSQLString(c.Type)
		if err != nil {
			return nil, fmt.Errorf("column %s: type %q: %w", c.Name, c.Type, err)
		}
		if checks.Type != nil {
			if err := checks.Type(t); err != nil {
				return nil, fmt.Errorf("column %s: %w", c.Name, err)
			}
		}
		f := types.DataField{ID: i, Name: c.Name, Type: t}
		if c.Description != "" {
			d := c.Description
			f.Description = &d
		}
		s.Fields = append(s.Fields, f)
		s.HighestFieldID = i
	}
	for _, l := range []struct {
		what string
		keys []string
	}{{"partition key", partitionKeys}, {"primary key", primaryKeys}} {
		seen := map[string]bool{}
		for _, k := range l.keys {
			if seen[k] {
				return nil, fmt.Errorf("%s %s is given twice", l.what, k)
			}
			seen[k] = true
			if !names[k] {
				return nil, fmt.Errorf("%s %s is not a column", l.what, k)
			}
		}
	}
	for i := range s.Fields {
		for _, k := range primaryKeys {
			if s.Fields[i].Name == k {
				s.Fields[i].Type.NotNull = true
			}
		}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// keysFromOption is Schema#normalizePrimaryKeys / normalizePartitionKeys: keys may be given in
// the table option key instead of the definition, not both; the option is then removed.
func keysFromOption(options map[string]string, key string, declared []string, what string) ([]string, error) {
	v, ok := options[key]
	if !ok {
		if declared == nil {
			return []string{}, nil
		}
		return append([]string{}, declared...), nil
	}
	if len(declared) > 0 {
		return nil, fmt.Errorf("cannot define %s on DDL and table options at the same time", what)
	}
	out := []string{}
	for _, k := range strings.Split(v, ",") {
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, k)
		}
	}
	delete(options, key)
	return out, nil
}
