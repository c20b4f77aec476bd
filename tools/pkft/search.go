package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/paimon-pkft/pkft"
)

func searchCommand() *cobra.Command {
	var (
		query      string
		column     string
		limit      int
		partitions []string
		snapshotID int64
		asJSON     bool
		explain    bool
		full       bool
		timeout    time.Duration
		bounds     pkft.QueryBounds
		requireCov bool
	)
	cmd := &cobra.Command{
		Use:   "search TABLE_PATH --query Q",
		Short: "Search the table's full-text archives",
		Long: `Search the current full-text archives of the table's latest snapshot (or --snapshot) as Paimon's
full-text read path does, deletion vectors applied, and print the best hits: primary key, text and
score. Q is plain words, searched as a match query (rows containing any of them), or the engine's
JSON query as Paimon passes it. ` + plainQueryMeaning + `

A JSON query is checked before the table is read, the same way whether or not the table has
archives: an unknown query type or field (the engine's language: match, multi_match,
match_phrase or phrase, boolean, boost) or a missing required field is a usage error naming it.
--explain prints the engine query Q becomes and what it means, and searches nothing.

Only rows a current archive covers are searched, as in Java Paimon: archives cover data files a
compaction rewrote above level 0. Rows on level 0, in files a compaction moved up without
rewriting them, or on levels without a current archive (or with duplicate archives of concurrent
maintainers) are not searched; when the searched snapshot and partitions hold such rows, a notice
on stderr counts them by reason (--json: "coverage"), and pkft state lists them per bucket. pkft
maintain builds the missing archives; pkft compact --strategy uncovered rewrites the moved-up
files in place and indexes them; level-0 rows wait for a compaction (pkft compact); pkft write
--index-new-rows has a write's rows searched from its commit on. The exit status stays 0, unless
--require-coverage is given: then it is 3 when any such row exists (scripts and health checks
can rely on it).

Queries are bounded (--max-query-bytes, --max-query-terms, --max-query-depth; -1 lifts a bound)
and a search stops at --timeout or on SIGINT/SIGTERM, also while the engine is searching.`,
		Example: `  pkft search /data/warehouse/db.db/docs --query 'lake format'
  pkft search /data/warehouse/db.db/docs --query '{"match_phrase":{"query":"lake format"}}' --limit 20 --json
  pkft search /data/warehouse/db.db/docs --query 'lake format' --explain`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(query) == "" {
				return usagef("--query is required and must not be blank")
			}
			if limit <= 0 {
				return usagef("--limit %d: want a positive number", limit)
			}
			if timeout < 0 {
				return usagef("--timeout %s: want a positive duration (0: none)", timeout)
			}
			// The query is judged before the table is read, the same with or without archives.
			if err := pkft.CheckQuery(query, bounds); err != nil {
				return usageError{fmt.Errorf("--query: %w", err)}
			}
			if explain {
				return explainQuery(cmd, args[0], query, asJSON)
			}
			opts := []pkft.SearchOption{pkft.WithColumn(column), pkft.WithLimit(limit), pkft.WithQueryBounds(bounds)}
			for _, p := range partitions {
				spec, err := parsePartition(p)
				if err != nil {
					return err
				}
				opts = append(opts, pkft.WithPartition(spec))
			}
			if snapshotID != 0 {
				opts = append(opts, pkft.WithSnapshot(snapshotID))
			}
			ctx := cmd.Context()
			if timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeoutCause(ctx, timeout, fmt.Errorf("search timed out after %s (--timeout)", timeout))
				defer cancel()
			}
			tbl, err := pkft.Open(ctx, args[0], fsOptions(ctx)...)
			if err != nil {
				return err
			}
			res, err := tbl.Search(ctx, query, opts...)
			if err != nil {
				return err
			}
			if notice := coverageNotice(res.Coverage); notice != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), notice)
			}
			if asJSON {
				err = writeJSON(cmd.OutOrStdout(), struct {
					Query string `json:"query"`
					*pkft.SearchResult
				}{query, res})
			} else {
				err = writeHits(cmd.OutOrStdout(), res, full)
			}
			if err == nil && requireCov && (res.Coverage.UncoveredRows > 0 || res.Coverage.UncoveredFiles > 0) {
				return uncoveredError{res.Coverage.UncoveredRows, res.Coverage.UncoveredFiles}
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVarP(&query, "query", "q", "", "the query `Q`: plain words (a match query) or the engine's JSON query")
	f.StringVar(&column, "column", "", "the text `COLUMN` (default: the table's full-text column)")
	f.IntVar(&limit, "limit", pkft.DefaultLimit, "number of hits")
	f.StringArrayVar(&partitions, "partition", nil, "search only partition `k=v[,k=v...]` (repeatable)")
	f.Int64Var(&snapshotID, "snapshot", 0, "search this snapshot instead of the latest")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	f.BoolVar(&full, "full", false, "print long values whole in the table (default: cut after 200 characters)")
	f.BoolVar(&explain, "explain", false, "print the engine query Q becomes and what it means instead of searching")
	f.DurationVar(&timeout, "timeout", 0, "stop the search after this long, e.g. 30s (default: no deadline)")
	f.IntVar(&bounds.MaxBytes, "max-query-bytes", pkft.DefaultMaxQueryBytes, "refuse longer queries (bytes; -1: no bound)")
	f.IntVar(&bounds.MaxTerms, "max-query-terms", pkft.DefaultMaxQueryTerms, "refuse queries with more words (-1: no bound)")
	f.BoolVar(&requireCov, "require-coverage", false, "exit with status 3 after the hits when rows of the searched snapshot and partitions are in no full-text archive")
	f.IntVar(&bounds.MaxDepth, "max-query-depth", pkft.DefaultMaxQueryDepth, "refuse JSON queries nested deeper (objects and arrays; -1: no bound)")
	return cmd
}

// writeHits prints the hits as a table: rank, score, the primary key columns and the text.
func writeHits(w io.Writer, res *pkft.SearchResult, full bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := append([]string{"#", "SCORE"}, upper(res.KeyColumns)...)
	fmt.Fprintln(tw, strings.Join(append(header, strings.ToUpper(res.Column)), "\t"))
	for i, h := range res.Hits {
		cells := []string{fmt.Sprint(i + 1), fmt.Sprintf("%.4f", h.Score)}
		for _, k := range h.Key {
			cells = append(cells, formatValue(k, full))
		}
		text := "NULL"
		if h.Text != nil {
			text = cellText(*h.Text, full)
		}
		fmt.Fprintln(tw, strings.Join(append(cells, text), "\t"))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write hits: %w", err)
	}
	if _, err := fmt.Fprintf(w, "%d hit(s) in snapshot %d\n", len(res.Hits), res.SnapshotID); err != nil {
		return fmt.Errorf("write hits: %w", err)
	}
	return nil
}

func upper(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = strings.ToUpper(v)
	}
	return out
}

// invalidAt reports whether s holds an invalid UTF-8 byte at i.
func invalidAt(s string, i int) bool {
	_, size := utf8.DecodeRuneInString(s[i:])
	return size == 1
}

// formatValue is a key or text value as a table cell (cellText for strings).
func formatValue(v any, full bool) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return x.Format(time.DateOnly)
		}
		return x.Format(time.RFC3339Nano)
	case []byte:
		return "0x" + hex.EncodeToString(x)
	case string:
		return cellText(x, full)
	}
	return fmt.Sprint(v)
}

// maxCellRunes is the most characters of a value a table cell of search or scan shows; --full
// shows values whole.
const maxCellRunes = 200

// cellText is s as one table cell of search's and scan's text output: control characters
// escaped (a line break as \n, a tab as \t, ESC as \x1b, so a value cannot move the cursor
// or recolour the terminal) and, unless full, cut after maxCellRunes characters with a note of
// what was left out.
func cellText(s string, full bool) string {
	var b strings.Builder
	n := 0
	for i, r := range s {
		if !full && n == maxCellRunes {
			fmt.Fprintf(&b, "… (%d more bytes; --full)", len(s)-i)
			break
		}
		n++
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == utf8.RuneError && invalidAt(s, i):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r):
			if r < 0x100 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// plainQueryMeaning says what plain words mean as a query. Java Paimon passes the query string
// to the engine verbatim (FullTextSearch#query), and the engine parses only its JSON language,
// so Java has no plain form; pkft wraps plain words as pypaimon 2.0.0's multimodal table does.
const plainQueryMeaning = `Plain words become the engine's match query {"match":{"query":"<words>"}}: the words are split into terms by the archive's analyzer (its tokenizer; lower-cased, stemmed and stop words dropped as the index options configure it, the engine's default being to stem and drop English stop words), a row matches when it holds any of the terms (operator or; {"match":{"query":"lake format","operator":"and"}} wants all), and rows are ranked by BM25. Order and adjacency do not count: it is no phrase search ({"match_phrase":{"query":"lake format"}} is). Java Paimon passes the query string to the engine unchanged and has no plain form (the engine takes only JSON); pkft wraps plain words as pypaimon's full-text search does.`

// jsonQueryMeaning says what a JSON query means.
const jsonQueryMeaning = "A JSON query is passed to the engine unchanged, as Java Paimon passes it."

// explainQuery prints the engine query that q becomes on table path's full-text column and what
// it means, without searching.
func explainQuery(cmd *cobra.Command, path, q string, asJSON bool) error {
	ctx := cmd.Context()
	tbl, err := pkft.Open(ctx, path, fsOptions(ctx)...)
	if err != nil {
		return err
	}
	engine, err := pkft.EngineQuery(q)
	if err != nil {
		return usageError{fmt.Errorf("--query: %w", err)}
	}
	meaning := jsonQueryMeaning
	if engine != q {
		meaning = plainQueryMeaning
	}
	if asJSON {
		return writeJSON(cmd.OutOrStdout(), map[string]string{"query": q, "engineQuery": engine, "column": tbl.FullTextColumn(), "meaning": meaning})
	}
	_, err = fmt.Fprintf(cmd.OutOrStdout(), "engine query: %s\ncolumn: %s\n%s\n", engine, tbl.FullTextColumn(), meaning)
	return err
}
