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
		full     bool
		explain  bool
		snapshot int64
	)
	cmd := &cobra.Command{
		Use:   "scan TABLE_PATH",
		Short: "Print the rows of the table's latest snapshot",
		Long: `Print the rows of the latest snapshot as Java Paimon's batch read returns them: with deletion
vectors enabled, level-0 files (rows written since the last compaction) are not visible until
compacted and deletion vectors are applied; otherwise every level is merged by primary key.

--where filters rows, in one of two forms:
  k=v[,k=v...]  on partition columns only: selects partitions (given several times, any matches)
  a predicate   in SQL syntax on any columns: =, <>, <, <=, >, >=, [NOT] IN (...), IS [NOT] NULL,
                AND, OR, parentheses; literals are numbers, 'strings', TRUE/FALSE, 'YYYY-MM-DD'
                dates and 'YYYY-MM-DD HH:MM:SS[.f]' timestamps (several predicates: all must hold)
The rows are those Java Paimon's batch read returns with the same filter. With deletion vectors,
files whose statistics rule the predicate out are not read, and the part of it on pk-btree and
pk-bitmap columns is answered by the current sorted payload of each level, so only the selected
rows of those files are kept (a file with none is not opened); files of levels without a current
payload are read whole. Unknown
columns and other syntax (NOT, BETWEEN, LIKE, NULL literals, functions) are refused.

--explain prints, instead of the rows, one JSON object per data file saying how it was read:
"whole", "narrowed" (with the row ranges the index selected), "no-rows" or "pruned".
--columns projects. --json prints one JSON object per row (Arrow's JSON form of the values);
otherwise a table whose cells are printed as search prints them: control characters escaped
(\n, \t, \x1b, ...) and values longer than 200 characters cut with a note (--full: whole).
--snapshot scans an earlier snapshot.`,
		Example: `  pkft scan /data/db.db/docs --limit 20
  pkft scan /data/db.db/docs --where region=eu,dt=2024-01-31 --json
  pkft scan /data/db.db/docs --where "price >= 3 AND tag IN ('x', 'y')"
  pkft scan /data/db.db/docs --where 'price = 10' --explain`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if limit < 0 {
				return usagef("--limit %d is negative", limit)
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
				if spec, ok := partitionSpec(w, s.PartitionKeys); ok {
					opts = append(opts, pkft.WithPartition(spec))
					continue
				}
				opts = append(opts, pkft.Where(w))
			}
			var report pkft.ScanReport
			if explain {
				opts = append(opts, pkft.WithScanReport(&report))
			}
			if len(columns) > 0 {
				opts = append(opts, pkft.WithColumns(columns...))
			}
			if snapshot < 0 {
				return usagef("--snapshot %d is negative", snapshot)
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
			if explain {
				for rr.Next() {
				}
				if err := rr.Err(); err != nil {
					return err
				}
				enc := json.NewEncoder(out)
				for _, f := range report.Files {
					if err := enc.Encode(f); err != nil {
						return err
					}
				}
				return nil
			}
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
					if err := printRow(out, tw, rec, r, full); err != nil {
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
	cmd.Flags().StringArrayVar(&where, "where", nil, "a `FILTER`: partition equalities k=v[,k=v...] or a predicate such as \"price >= 3 AND tag = 'x'\" (repeatable)")
	cmd.Flags().BoolVar(&explain, "explain", false, "print how each data file was read (whole, narrowed by the sorted index, no-rows, pruned) instead of the rows")
	cmd.Flags().StringSliceVar(&columns, "columns", nil, "the `COLUMNS` to print, comma-separated, in order (default all)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "one JSON object per row")
	cmd.Flags().BoolVar(&full, "full", false, "print long values whole in the table (default: cut after 200 characters)")
	cmd.Flags().Int64Var(&snapshot, "snapshot", 0, "scan this snapshot instead of the latest")
	return cmd
}

// partitionSpec reads w as the partition form k=v[,k=v...]: every key a partition column and no
// value quoted. Anything else is a predicate.
func partitionSpec(w string, partitionKeys []string) (map[string]string, bool) {
	if len(partitionKeys) == 0 || strings.ContainsAny(w, "'\"()<>!") {
		return nil, false
	}
	spec, err := parsePartition(w)
	if err != nil {
		return nil, false
	}
	for k, v := range spec {
		if !slices.Contains(partitionKeys, k) || strings.Contains(v, "=") || strings.Contains(strings.ToUpper(" "+v+" "), " AND ") {
			return nil, false
		}
	}
	return spec, true
}

// printRow prints row r of rec: a line of the table tw (cells as search prints them, cut unless
// full), or with tw nil one JSON object.
func printRow(out interface{ Write([]byte) (int, error) }, tw *tabwriter.Writer, rec arrow.RecordBatch, r int, full bool) error {
	if tw != nil {
		cells := make([]string, rec.NumCols())
		for c := range cells {
			col := rec.Column(c)
			if col.IsNull(r) {
				cells[c] = "NULL"
			} else {
				cells[c] = cellText(col.ValueStr(r), full)
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
