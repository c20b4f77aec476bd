package schema

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/types"
)

// TestCreate checks Schema's normalization and TableSchema.create(0, schema): keys taken from
// the primary-key and partition options (which are removed), primary-key columns made NOT NULL,
// field ids from 0 in column order, the comment and the creation time.
func TestCreate(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	var seen map[string]string
	s, err := Create(Declaration{
		Columns: []Column{{Name: "id", Type: "INT"}, {Name: "dt", Type: "STRING"}, {Name: "v", Type: "DECIMAL(10, 2)", Description: "value"}},
		Options: map[string]string{"primary-key": " id , dt", "partition": "dt", "bucket": "2"},
		Comment: "a table",
	}, now, CreateChecks{Options: func(o map[string]string) error { seen = o; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.PrimaryKeys, []string{"id", "dt"}) || !slices.Equal(s.PartitionKeys, []string{"dt"}) {
		t.Errorf("keys %v, partitions %v", s.PrimaryKeys, s.PartitionKeys)
	}
	if len(seen) != 1 || seen["bucket"] != "2" || len(s.Options) != 1 {
		t.Errorf("options checked %v, kept %v: want only bucket", seen, s.Options)
	}
	if s.Version != CurrentVersion || s.ID != 0 || s.HighestFieldID != 2 || s.TimeMillis != now.UnixMilli() ||
		s.Comment == nil || *s.Comment != "a table" {
		t.Errorf("schema %+v", s)
	}
	for i, f := range s.Fields {
		if f.ID != i {
			t.Errorf("field %s has id %d, want %d", f.Name, f.ID, i)
		}
	}
	if !s.Fields[0].Type.NotNull || !s.Fields[1].Type.NotNull || s.Fields[2].Type.NotNull {
		t.Errorf("NOT NULL: %v %v %v, want the primary-key columns only", s.Fields[0].Type, s.Fields[1].Type, s.Fields[2].Type)
	}
	if s.Fields[2].Description == nil || *s.Fields[2].Description != "value" {
		t.Errorf("description %v", s.Fields[2].Description)
	}
	if declared, err := Create(Declaration{Columns: []Column{{Name: "id", Type: "INT"}}}, now, CreateChecks{}); err != nil ||
		declared.PrimaryKeys == nil || declared.PartitionKeys == nil || len(declared.PrimaryKeys)+len(declared.PartitionKeys) != 0 {
		t.Errorf("no keys: %+v, %v; want empty, not nil, key lists", declared, err)
	}
}

// TestCreateRefuses checks what Create refuses, and that the caller's checks run and name the
// column.
func TestCreateRefuses(t *testing.T) {
	cols := []Column{{Name: "id", Type: "INT"}, {Name: "p", Type: "STRING"}}
	refuseBooleans := errors.New("no booleans")
	checks := CreateChecks{Type: func(t types.DataType) error {
		if t.Root == types.RootBoolean {
			return refuseBooleans
		}
		return nil
	}}
	for _, c := range []struct {
		name string
		d    Declaration
		want string
	}{
		{"no columns", Declaration{}, "the table has no columns"},
		{"no name", Declaration{Columns: []Column{{Type: "INT"}}}, "column 0 has no name"},
		{"column twice", Declaration{Columns: append(cols, Column{Name: "p", Type: "INT"})}, "table column p is given twice"},
		{"bad type", Declaration{Columns: []Column{{Name: "id", Type: "INTEGR"}}}, `column id: type "INTEGR"`},
		{"type check", Declaration{Columns: []Column{{Name: "b", Type: "BOOLEAN"}}}, "column b: no booleans"},
		{"keys twice", Declaration{Columns: cols, PrimaryKeys: []string{"id"}, Options: map[string]string{"primary-key": "id"}},
			"cannot define primary key on DDL and table options at the same time"},
		{"partitions twice", Declaration{Columns: cols, PartitionKeys: []string{"p"}, Options: map[string]string{"partition": "p"}},
			"cannot define partition on DDL and table options at the same time"},
		{"key given twice", Declaration{Columns: cols, PrimaryKeys: []string{"id", "id"}}, "primary key id is given twice"},
		{"unknown partition key", Declaration{Columns: cols, PartitionKeys: []string{"nope"}}, "partition key nope is not a column"},
		{"keys only partitions", Declaration{Columns: cols, PrimaryKeys: []string{"p"}, PartitionKeys: []string{"p"}}, "should not be same with partition fields"},
		{"bad bucket", Declaration{Columns: cols, Options: map[string]string{"bucket": "x"}}, "bucket"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Create(c.d, time.Now(), checks); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	optionsErr := errors.New("refused option")
	_, err := Create(Declaration{Columns: []Column{{Name: "id", Type: "INTEGR"}}}, time.Now(),
		CreateChecks{Options: func(map[string]string) error { return optionsErr }})
	if !errors.Is(err, optionsErr) {
		t.Errorf("options are checked before the columns: %v", err)
	}
}
