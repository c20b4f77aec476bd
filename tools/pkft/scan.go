package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/spf13/cobra"

	"github.com/paimon-pkft/pkft"
)

func scanCommand() *cobra.Command {
	var (
		limit    int
		where    []string
		columns  []string
		asJSON   bool
		snapshot int64
	)
	cmd := &cobra.Command{
		Use:   "scan TABLE_PATH",
		Short: "Print the rows of the table's latest snapshot",
		Long: `Print the rows of the latest snapshot as Java Paimon's batch read returns them: with deletion
vectors enabled, level-0 files (rows written since the last compaction) are not visible until
compacted and deletion vectors are applied; otherwise every level is merged by primary key.

--where selects partitions: k=v[,k=v...] on partition columns only (given several times, any
matches); other predicates are refused. --columns projects. --json prints one JSON object per
row (Arrow's JSON form of the values); otherwise a table. --snapshot scans an earlier snapshot.`,
		Example: `  pkft scan /data/db.db/docs --limit 20
  pkft scan /data/db.db/docs --where region=eu,dt=2024-01-31 --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if limit < 0 {
				return fmt.Errorf("--limit %d is negative", limit)
			}
			tbl, err := pkft.Open(ctx, args[0], fsOptions(ctx)...)
			if err != nil {
				return err
			}
			var opts []pkft.ScanOption
			s, err := tbl.Schema(ctx)
			if err != nil {
				return err
			}
			for _, w := range where {
				spec, err := parsePartition(w)
				if err != nil {
					return fmt.Errorf("--where %q: %w", w, err)
				}
				for k := range spec {
					if !slices.Contains(s.PartitionKeys, k) {
						return fmt.Errorf("--where %q: %s is not a partition column (only partition equality is supported)", w, k)
					}
				}
				opts = append(opts, pkft.WithPartition(spec))
			}
			if len(columns) > 0 {
				opts = append(opts, pkft.WithColumns(columns...))
			}
			if snapshot < 0 {
				return fmt.Errorf("--snapshot %d is negative", snapshot)
			}
			if snapshot > 0 {
				opts = append(opts, pkft.WithScanSnapshot(snapshot))
			}
			rr, err := tbl.Scan(ctx, opts...)
			if err != nil {
				return err
			}
			defer rr.Release()
			out := cmd.OutOrStdout()
			var tw *tabwriter.Writer
			if !asJSON {
				tw = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
				names := make([]string, rr.Schema().NumFields())
				for i, f := range rr.Schema().Fields() {
					names[i] = f.Name
				}
				fmt.Fprintln(tw, strings.Join(names, "\t"))
			}
			n := 0
			for rr.Next() && (limit == 0 || n < limit) {
				rec := rr.RecordBatch()
				for r := 0; r < int(rec.NumRows()) && (limit == 0 || n < limit); r++ {
					if err := printRow(out, tw, rec, r); err != nil {
						return err
					}
					n++
				}
			}
			if err := rr.Err(); err != nil {
				return err
			}
			if tw != nil {
				return tw.Flush()
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 0, "print at most N rows (0: all)")
	cmd.Flags().StringArrayVar(&where, "where", nil, "partition filter k=v[,k=v...] (repeatable)")
	cmd.Flags().StringSliceVar(&columns, "columns", nil, "columns to print, in order (default all)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "one JSON object per row")
	cmd.Flags().Int64Var(&snapshot, "snapshot", 0, "scan this snapshot instead of the latest")
	return cmd
}

func printRow(out interface{ Write([]byte) (int, error) }, tw *tabwriter.Writer, rec arrow.RecordBatch, r int) error {
	if tw != nil {
		cells := make([]string, rec.NumCols())
		for c := range cells {
			col := rec.Column(c)
			if col.IsNull(r) {
				cells[c] = "NULL"
			} else {
				cells[c] = col.ValueStr(r)
			}
		}
		_, err := fmt.Fprintln(tw, strings.Join(cells, "\t"))
		return err
	}
	obj := make([]byte, 0, 128)
	obj = append(obj, '{')
	for c := 0; c < int(rec.NumCols()); c++ {
		if c > 0 {
			obj = append(obj, ',')
		}
		name, _ := json.Marshal(rec.ColumnName(c))
		obj = append(obj, name...)
		obj = append(obj, ':')
		v, err := json.Marshal(rec.Column(c).GetOneForMarshal(r))
		if err != nil {
			return fmt.Errorf("column %s: %w", rec.ColumnName(c), err)
		}
		obj = append(obj, v...)
	}
	obj = append(obj, '}', '\n')
	_, err := out.Write(obj)
	return err
}
