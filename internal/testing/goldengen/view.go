package goldengen

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/types"
)

// Files is one implementation's view of a table's latest snapshot: what compat/python/
// table_runner.py's files command prints for pypaimon, and what GoView builds from internal/table.
// Values (partition values, keys) are in the runner's JSON forms, so the two views compare with
// plain equality once both went through Canonical.
type Files struct {
	SnapshotID    int64    `json:"snapshotId"`
	CommitKind    string   `json:"commitKind"`
	SchemaID      int64    `json:"schemaId"`
	PartitionKeys []string `json:"partitionKeys"`
	Buckets       []Bucket `json:"buckets"`
}

// Bucket is the live data files of one (partition, bucket).
type Bucket struct {
	Partition    []any  `json:"partition"`
	Bucket       int32  `json:"bucket"`
	TotalBuckets int32  `json:"totalBuckets"`
	DataFiles    []File `json:"dataFiles"`
}

// File is one live data file.
type File struct {
	FileName          string `json:"fileName"`
	FileSize          int64  `json:"fileSize"`
	Level             int32  `json:"level"`
	RowCount          int64  `json:"rowCount"`
	MinSequenceNumber int64  `json:"minSequenceNumber"`
	MaxSequenceNumber int64  `json:"maxSequenceNumber"`
	SchemaID          int64  `json:"schemaId"`
	FileSource        *int   `json:"fileSource"`
	DeleteRowCount    *int64 `json:"deleteRowCount"`
	MinKey            []any  `json:"minKey"`
	MaxKey            []any  `json:"maxKey"`
}

// Canonical returns f with its values as encoding/json decodes them (numbers float64, empty
// lists kept distinct from null), buckets ordered by (partition, bucket) and files by (level,
// name): the form in which two views are compared.
func (f *Files) Canonical() (*Files, error) {
	data, err := json.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("canonical files view: %w", err)
	}
	var out Files
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("canonical files view: %w", err)
	}
	keys := make([]string, len(out.Buckets))
	for i := range out.Buckets {
		b := &out.Buckets[i]
		p, _ := json.Marshal(b.Partition)
		keys[i] = fmt.Sprintf("%s\x00%011d", p, b.Bucket)
		sort.Slice(b.DataFiles, func(x, y int) bool {
			fx, fy := b.DataFiles[x], b.DataFiles[y]
			if fx.Level != fy.Level {
				return fx.Level < fy.Level
			}
			return fx.FileName < fy.FileName
		})
	}
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(x, y int) bool { return keys[idx[x]] < keys[idx[y]] })
	sorted := make([]Bucket, len(idx))
	for i, j := range idx {
		sorted[i] = out.Buckets[j]
	}
	out.Buckets = sorted
	return &out, nil
}

// GoView builds the files view of the latest snapshot of t with internal/table: manifests read and
// merged by Go, partitions and keys decoded by binrow with the types of the table's schema.
func GoView(ctx context.Context, t *table.Table) (*Files, error) {
	snap, err := t.Latest(ctx)
	if err != nil {
		return nil, err
	}
	contents, err := t.Read(ctx, snap)
	if err != nil {
		return nil, err
	}
	schemas := map[int64]*schema.TableSchema{}
	schemaOf := func(id int64) (*schema.TableSchema, error) {
		if s, ok := schemas[id]; ok {
			return s, nil
		}
		s, err := t.Schema(ctx, id)
		if err != nil {
			return nil, err
		}
		schemas[id] = s
		return s, nil
	}
	latest, err := schemaOf(snap.SchemaID)
	if err != nil {
		return nil, err
	}
	v := &Files{SnapshotID: snap.ID, CommitKind: string(snap.CommitKind), SchemaID: snap.SchemaID,
		PartitionKeys: append([]string{}, latest.PartitionKeys...)}
	for _, b := range contents.Buckets {
		part, err := DecodeRow(latest.PartitionType(), b.Partition)
		if err != nil {
			return nil, fmt.Errorf("partition of bucket %d: %w", b.Bucket, err)
		}
		vb := Bucket{Partition: part, Bucket: b.Bucket, TotalBuckets: b.TotalBuckets, DataFiles: []File{}}
		for _, f := range b.DataFiles {
			s, err := schemaOf(f.SchemaID)
			if err != nil {
				return nil, err
			}
			keyType, err := s.TrimmedPrimaryKeyType()
			if err != nil {
				return nil, fmt.Errorf("schema %d: %w", f.SchemaID, err)
			}
			vf := File{FileName: f.FileName, FileSize: f.FileSize, Level: f.Level, RowCount: f.RowCount,
				MinSequenceNumber: f.MinSequenceNumber, MaxSequenceNumber: f.MaxSequenceNumber,
				SchemaID: f.SchemaID, DeleteRowCount: f.DeleteRowCount}
			if f.FileSource != nil {
				src := int(*f.FileSource)
				vf.FileSource = &src
			}
			if vf.MinKey, err = DecodeRow(keyType, f.MinKey); err != nil {
				return nil, fmt.Errorf("min key of %s: %w", f.FileName, err)
			}
			if vf.MaxKey, err = DecodeRow(keyType, f.MaxKey); err != nil {
				return nil, fmt.Errorf("max key of %s: %w", f.FileName, err)
			}
			vb.DataFiles = append(vb.DataFiles, vf)
		}
		v.Buckets = append(v.Buckets, vb)
	}
	return v, nil
}

// DecodeRow decodes a serialized BinaryRow (as manifests store partitions and keys) of rowType
// into the runner's JSON forms of its values.
func DecodeRow(rowType types.DataType, serialized []byte) ([]any, error) {
	row, err := binrow.DeserializeBinaryRow(serialized)
	if err != nil {
		return nil, err
	}
	vals, err := row.Decode(rowType)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(vals))
	for i, f := range rowType.Fields {
		if out[i], err = JSONValue(f.Type, vals[i]); err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
	}
	return out, nil
}

// JSONValue converts a value binrow decoded for t to the runner's JSON form: DATE as
// "YYYY-MM-DD", TIMESTAMP as "YYYY-MM-DDTHH:MM:SS.ffffff" (UTC wall clock, microseconds),
// DECIMAL as plain decimal text, binary as base64.
func JSONValue(t types.DataType, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch t.Root {
	case types.RootDate:
		return time.Unix(int64(v.(int32))*86400, 0).UTC().Format("2006-01-02"), nil
	case types.RootTimestamp, types.RootTimestampLTZ:
		ts := v.(binrow.Timestamp)
		return time.UnixMilli(ts.Millis).UTC().Add(time.Duration(ts.NanoOfMilli)).Format("2006-01-02T15:04:05.000000"), nil
	case types.RootDecimal:
		return v.(binrow.Decimal).String(), nil
	case types.RootBinary, types.RootVarBinary:
		return base64.StdEncoding.EncodeToString(v.([]byte)), nil
	case types.RootFloat, types.RootDouble:
		f, _ := v.(float64)
		if f32, ok := v.(float32); ok {
			f = float64(f32)
		}
		if math.IsNaN(f) {
			return "NaN", nil
		}
		return v, nil
	case types.RootTime, types.RootRow:
		return nil, fmt.Errorf("type %s has no JSON form in the table runner", t.SQLString())
	}
	return v, nil
}

// CheckKeyRows checks the binary rows a writer stored in the latest snapshot of t against Go's
// encoder, which follows Java's BinaryRowWriter: every partition and every file's min and max
// key, decoded and re-encoded by binrow, must give back the stored bytes, and (when the bucket
// key is the trimmed primary key, as by default) the bucket DefaultBucketFunction computes from
// the re-encoded key must be the file's bucket. A writer producing other bytes for the same
// values would make Java see different partitions or route keys to other buckets.
func CheckKeyRows(ctx context.Context, t *table.Table) error {
	snap, err := t.Latest(ctx)
	if err != nil {
		return err
	}
	contents, err := t.Read(ctx, snap)
	if err != nil {
		return err
	}
	s, err := t.Schema(ctx, snap.SchemaID)
	if err != nil {
		return err
	}
	keyType, err := s.TrimmedPrimaryKeyType()
	if err != nil {
		return err
	}
	bucketType, err := s.BucketKeyType()
	if err != nil {
		return err
	}
	checkBuckets := bucketType.Equal(keyType)
	for _, b := range contents.Buckets {
		if err := reencodes(s.PartitionType(), b.Partition); err != nil {
			return fmt.Errorf("partition of bucket %d: %w", b.Bucket, err)
		}
		for _, f := range b.DataFiles {
			if f.SchemaID != snap.SchemaID {
				continue
			}
			for _, k := range []struct {
				name string
				row  []byte
			}{{"min key", f.MinKey}, {"max key", f.MaxKey}} {
				if err := reencodes(keyType, k.row); err != nil {
					return fmt.Errorf("%s of %s: %w", k.name, f.FileName, err)
				}
				if !checkBuckets || b.TotalBuckets <= 0 {
					continue
				}
				got, err := binrow.Bucket(k.row[4:], int(b.TotalBuckets))
				if err != nil {
					return err
				}
				if got != int(b.Bucket) {
					return fmt.Errorf("%s of %s (bucket %d of %d): Go's bucket function gives bucket %d",
						k.name, f.FileName, b.Bucket, b.TotalBuckets, got)
				}
			}
		}
	}
	return nil
}

// reencodes decodes a serialized row of rowType and checks binrow encodes the values to the same
// bytes.
func reencodes(rowType types.DataType, serialized []byte) error {
	row, err := binrow.DeserializeBinaryRow(serialized)
	if err != nil {
		return err
	}
	vals, err := row.Decode(rowType)
	if err != nil {
		return err
	}
	again, err := binrow.NewBinaryRow(rowType, vals)
	if err != nil {
		return fmt.Errorf("re-encode %v: %w", vals, err)
	}
	if !bytes.Equal(again.Serialize(), serialized) {
		return fmt.Errorf("stored row %x, Go's encoding of the same values %v is %x", serialized, vals, again.Serialize())
	}
	return nil
}
