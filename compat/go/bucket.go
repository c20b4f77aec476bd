package main

import (
	"context"
	"fmt"
	"maps"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/compat/protocol"
	"github.com/paimon-pkft/pkft/internal/bucketfunc"
	"github.com/paimon-pkft/pkft/internal/convert"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/types"
)

// cmdBucket answers the bucket pkft's writer assigns to each row of a fixed-bucket table, as the
// Java runner's bucket answers Paimon's FixedBucketRowKeyExtractor: rows (objects by field name
// in write's form; _rowKind allowed, a field absent is NULL) over the table's latest schema, with
// function (optional) as its bucket-function.type. Package pkft exposes no bucket of a row, so
// this runs the writer's own routing, internal/tableops's NewBucketer (BucketOf resolved once
// for the request), on the values pkft's ParseValue and Writer.Write make of the JSON. A
// function refused for the bucket-key types is an error whatever the rows, as Paimon refuses it
// when it creates the extractor. The table is read from the local file system. Result:
// {buckets}.
func cmdBucket(ctx context.Context, args protocol.BucketRequest) (protocol.BucketResponse, error) {
	var none protocol.BucketResponse
	if args.Path == "" {
		return none, argErrorf("args.path (the table directory) is required")
	}
	if _, ok := objectStoreBucket(args.Path); ok {
		return none, argErrorf("args.path %s: the Go runner's bucket reads tables of the local file system only", args.Path)
	}
	if args.Rows == nil {
		return none, argErrorf("args.rows is required")
	}
	sch, err := table.Open(fileio.NewLocal(), args.Path).LatestSchema(ctx)
	if err != nil {
		return none, err
	}
	s := *sch
	if args.Function != nil {
		s.Options = maps.Clone(sch.Options)
		s.Options[bucketfunc.Option] = *args.Function
	}
	bucketOf, err := tableops.NewBucketer(&s)
	if err != nil {
		return none, fmt.Errorf("%s %s: %w", bucketfunc.Option, s.Options[bucketfunc.Option], err)
	}
	buckets := make([]int64, len(args.Rows))
	for i, r := range args.Rows {
		vals, err := rowValues(s.Fields, r)
		if err != nil {
			return none, argErrorf("row %d: %v", i, err)
		}
		b, err := bucketOf(vals)
		if err != nil {
			return none, fmt.Errorf("row %d: %w", i, err)
		}
		buckets[i] = int64(b)
	}
	return protocol.BucketResponse{Buckets: buckets}, nil
}

// rowValues are the values of a row object (write's form) in the order of fields, in the form
// pkft's writer holds them: pkft.ParseValue's Go value turned into Paimon's as Writer.Write
// turns it. A key that is no field (nor _rowKind) is refused.
func rowValues(fields []types.DataField, r protocol.Object) ([]any, error) {
	for k := range r {
		if k == pkft.RowKindColumn {
			str, _ := r[k].(string)
			if _, err := pkft.ParseRowKind(str); err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			continue
		}
		known := false
		for _, f := range fields {
			known = known || f.Name == k
		}
		if !known {
			return nil, fmt.Errorf("the table has no column %s", k)
		}
	}
	vals := make([]any, len(fields))
	for j, f := range fields {
		v, err := convert.ParseValue(f.Type, r[f.Name])
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", f.Name, err)
		}
		if vals[j], err = convert.FromGo(f.Type, v); err != nil {
			return nil, fmt.Errorf("column %s: %w", f.Name, err)
		}
	}
	return vals, nil
}
