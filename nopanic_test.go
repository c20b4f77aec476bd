package pkft_test

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-pkft/pkft"
)

// exportedAPI lists the exported functions of package pkft and the exported methods of its
// exported types, as "Func" and "Type.Method", from the package's non-test sources.
func exportedAPI(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var names []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !fd.Name.IsExported() {
				continue
			}
			if fd.Recv == nil {
				names = append(names, fd.Name.Name)
				continue
			}
			typ := fd.Recv.List[0].Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			if id, ok := typ.(*ast.Ident); ok && id.IsExported() {
				names = append(names, id.Name+"."+fd.Name.Name)
			}
		}
	}
	sort.Strings(names)
	return names
}

// TestNoPanicOnEmptyInput calls every exported function and method of package pkft with empty,
// nil and zero inputs — empty strings, nil and zero options, nil slices and maps, a nil and a
// 0-row Arrow batch, a table with no snapshot and a closed table — and checks that each returns
// an error or does nothing, and never panics. A new exported function or method fails the test
// until it is called here.
func TestNoPanicOnEmptyInput(t *testing.T) {
	ctx := context.Background()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	dir := t.TempDir()
	empty := t.TempDir()
	tbl, err := pkft.Create(ctx, filepath.Join(dir, "t"), pkft.TableDefinition{
		Columns:     []pkft.ColumnDefinition{{Name: "id", Type: "BIGINT"}, {Name: "content", Type: "STRING"}},
		PrimaryKeys: []string{"id"},
		Options:     map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", "pk-full-text.index.columns": "content"},
	})
	if err != nil {
		t.Fatal(err)
	}
	closed, err := pkft.Open(ctx, tbl.Path())
	if err != nil {
		t.Fatal(err)
	}
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	tables := map[string]*pkft.Table{"no snapshot": tbl, "closed": closed}
	sch := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "content", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	noRows := b.NewRecordBatch()
	b.Release()
	t.Cleanup(noRows.Release)

	// each runs fn over every table of tables.
	each := func(fn func(*pkft.Table) error) func() error {
		return func() error {
			var errs []string
			for name, tb := range tables {
				if err := fn(tb); err != nil {
					errs = append(errs, name+": "+err.Error())
				}
			}
			return fmt.Errorf("%s", strings.Join(errs, "; "))
		}
	}
	writer := func(tb *pkft.Table, use func(w *pkft.Writer) error) error {
		w, err := tb.NewWriter(ctx, nil)
		if err != nil {
			return err
		}
		defer w.Abort(ctx)
		return use(w)
	}
	var nilOpen []pkft.OpenOption
	calls := map[string]func() error{
		"ArrowDefinition": func() error {
			if _, err := pkft.ArrowDefinition(nil); err == nil {
				return fmt.Errorf("a nil schema was accepted")
			}
			_, err := pkft.ArrowDefinition(arrow.NewSchema(nil, nil))
			return err
		},
		"Create": func() error {
			_, err1 := pkft.Create(ctx, "", pkft.TableDefinition{})
			_, err2 := pkft.Create(ctx, filepath.Join(dir, "zero"), pkft.TableDefinition{}, nil, pkft.WithOpenOptions(nil))
			if _, err := os.Stat(filepath.Join(dir, "zero", "schema")); err == nil {
				return fmt.Errorf("an empty definition created a table")
			}
			return fmt.Errorf("%v; %v", err1, err2)
		},
		"WithOpenOptions": func() error { pkft.WithOpenOptions(); pkft.WithOpenOptions(nil); return nil },
		"ParseTableDefinition": func() error {
			_, err1 := pkft.ParseTableDefinition(nil)
			_, err2 := pkft.ParseTableDefinition([]byte{})
			return fmt.Errorf("%v; %v", err1, err2)
		},
		"UseEngineTempDir": func() error {
			release, _, _, err := pkft.UseEngineTempDir()
			if err == nil {
				return release()
			}
			return err
		},
		"Open": func() error {
			_, err1 := pkft.Open(ctx, "", nilOpen...)
			_, err2 := pkft.Open(ctx, empty, nil)
			return fmt.Errorf("%v; %v", err1, err2)
		},
		"FindEngine": func() error {
			_, err1 := pkft.FindEngine(ctx, nilOpen...)
			_, err2 := pkft.FindEngine(ctx, nil, pkft.WithEngineLibrary(""))
			return fmt.Errorf("%v; %v", err1, err2)
		},
		"TableOptions": func() error {
			_, err1 := pkft.TableOptions(ctx, "", nil)
			_, err2 := pkft.TableOptions(ctx, empty)
			return fmt.Errorf("%v; %v", err1, err2)
		},
		"DecideOptions":           func() error { pkft.DecideOptions(nil); pkft.DecideOptions(map[string]string{}); return nil },
		"WithFileSystemOptions":   func() error { pkft.WithFileSystemOptions(nil); return nil },
		"KeepArchivesOpen":        func() error { pkft.KeepArchivesOpen(); return nil },
		"WithEngineLibrary":       func() error { pkft.WithEngineLibrary(""); return nil },
		"WithWriteOnly":           func() error { pkft.WithWriteOnly(); return nil },
		"WithMinorCompaction":     func() error { pkft.WithMinorCompaction(); return nil },
		"WithUncoveredCompaction": func() error { pkft.WithUncoveredCompaction(); return nil },
		"WithIndexNewRows":        func() error { pkft.WithIndexNewRows(); return nil },
		"WithPartition":           func() error { pkft.WithPartition(nil); return nil },
		"WithBucket":              func() error { pkft.WithBucket(0); return nil },
		"WithShard":               func() error { pkft.WithShard(0, 0); return nil },
		"WithRetainMax":           func() error { pkft.WithRetainMax(0); return nil },
		"WithRetainMin":           func() error { pkft.WithRetainMin(0); return nil },
		"WithMaxDeletes":          func() error { pkft.WithMaxDeletes(0); return nil },
		"WithOlderThan":           func() error { pkft.WithOlderThan(time.Time{}); return nil },
		"WithExpireClock":         func() error { pkft.WithExpireClock(nil); return nil },
		"WithClock":               func() error { pkft.WithClock(nil); return nil },
		"ShardOf": func() error {
			if s := pkft.ShardOf("", 0, 0); s >= 0 {
				return fmt.Errorf("ShardOf with no shards = %d, want a negative index", s)
			}
			return nil
		},
		"WithParallelism":   func() error { pkft.WithParallelism(0); return nil },
		"WithProgress":      func() error { pkft.WithProgress(nil); return nil },
		"WithCommitUser":    func() error { pkft.WithCommitUser(""); return nil },
		"WithDryRun":        func() error { pkft.WithDryRun(false); return nil },
		"WithColumn":        func() error { pkft.WithColumn(""); return nil },
		"WithLimit":         func() error { pkft.WithLimit(0); return nil },
		"WithSnapshot":      func() error { pkft.WithSnapshot(0); return nil },
		"WithColumns":       func() error { pkft.WithColumns(); return nil },
		"WithBatchRows":     func() error { pkft.WithBatchRows(0); return nil },
		"Where":             func() error { pkft.Where(""); return nil },
		"WithScanReport":    func() error { pkft.WithScanReport(nil); return nil },
		"WithScanSnapshot":  func() error { pkft.WithScanSnapshot(0); return nil },
		"WithQueryBounds":   func() error { pkft.WithQueryBounds(pkft.QueryBounds{}); return nil },
		"WithPollInterval":  func() error { pkft.WithPollInterval(0); return nil },
		"WithMaxBackoff":    func() error { pkft.WithMaxBackoff(0); return nil },
		"WithWatchMaintain": func() error { pkft.WithWatchMaintain(); pkft.WithWatchMaintain(nil); return nil },
		"WithWatchEvents":   func() error { pkft.WithWatchEvents(nil); return nil },
		"WithRowKind":       func() error { pkft.WithRowKind(0); return nil },
		"ParseValue":        func() error { _, err := pkft.ParseValue(pkft.DataType{}, nil); return err },
		"ParseRowKind":      func() error { _, err := pkft.ParseRowKind(""); return err },
		"DataType.String":   func() error { _ = pkft.DataType{}.String(); return nil },
		"RowKind.String":    func() error { _ = pkft.RowKind(0).String(); return nil },
		"Partition.String":  func() error { _ = pkft.Partition(nil).String(); return nil },
		"Partition.MarshalJSON": func() error {
			_, err := pkft.Partition(nil).MarshalJSON()
			return err
		},
		"Partition.UnmarshalJSON": func() error {
			var p pkft.Partition
			err1 := p.UnmarshalJSON(nil)
			err2 := p.UnmarshalJSON([]byte{})
			return fmt.Errorf("%v; %v", err1, err2)
		},
		"UncoveredReason.Explain":     func() error { _ = pkft.UncoveredReason("").Explain(); return nil },
		"Hit.MarshalJSON":             func() error { _, err := pkft.Hit{}.MarshalJSON(); return err },
		"Schema.Column":               func() error { _, _ = (&pkft.Schema{}).Column(""); return nil },
		"ScanReport.Narrowed":         func() error { _ = (&pkft.ScanReport{}).Narrowed(); return nil },
		"SearchResult.RecordBatch":    func() error { _, err := (&pkft.SearchResult{}).RecordBatch(); return err },
		"MaintainResult.Totals":       func() error { (&pkft.MaintainResult{}).Totals(); return nil },
		"BucketResult.Changed":        func() error { (&pkft.BucketResult{}).Changed(); return nil },
		"WatchEvent.SnapshotsBehind":  func() error { (&pkft.WatchEvent{}).SnapshotsBehind(); return nil },
		"UncertainCommitError.Error":  func() error { _ = (&pkft.UncertainCommitError{Err: fmt.Errorf("x")}).Error(); return nil },
		"UncertainCommitError.Unwrap": func() error { _ = (&pkft.UncertainCommitError{}).Unwrap(); return nil },
		"Table.Path":                  each(func(tb *pkft.Table) error { _ = tb.Path(); return nil }),
		"Table.FullTextColumn":        each(func(tb *pkft.Table) error { _ = tb.FullTextColumn(); return nil }),
		"Table.Close":                 each(func(tb *pkft.Table) error { return tb.Close() }),
		"Table.Schema":                each(func(tb *pkft.Table) error { _, err := tb.Schema(ctx); return err }),
		"Table.Dump": each(func(tb *pkft.Table) error {
			_, err1 := tb.Dump(ctx)
			_, err2 := tb.Dump(ctx, nil, pkft.WithInspectSnapshot(-1))
			_, err3 := tb.Dump(ctx, pkft.WithInspectSnapshot(7))
			return fmt.Errorf("%v; %v; %v", err1, err2, err3)
		}),
		"Table.State": each(func(tb *pkft.Table) error {
			_, err1 := tb.State(ctx)
			_, err2 := tb.State(ctx, nil, pkft.WithInspectSnapshot(-1))
			_, err3 := tb.State(ctx, pkft.WithInspectSnapshot(7))
			return fmt.Errorf("%v; %v; %v", err1, err2, err3)
		}),
		"WithInspectSnapshot": func() error { pkft.WithInspectSnapshot(0); return nil },
		"CheckQuery": func() error {
			return fmt.Errorf("%v; %v", pkft.CheckQuery("", pkft.QueryBounds{}), pkft.CheckQuery("{}", pkft.QueryBounds{}))
		},
		"EngineQuery":           func() error { _, err := pkft.EngineQuery(""); return err },
		"Table.RewriteMetadata": each(func(tb *pkft.Table) error { _, err := tb.RewriteMetadata(ctx); return err }),
		"Table.Maintain":        each(func(tb *pkft.Table) error { _, err := tb.Maintain(ctx, nil); return err }),
		"Table.Compact":         each(func(tb *pkft.Table) error { _, err := tb.Compact(ctx, nil); return err }),
		"Table.RemoveOrphanFiles": each(func(tb *pkft.Table) error {
			_, err1 := tb.RemoveOrphanFiles(ctx, nil)
			_, err2 := tb.RemoveOrphanFiles(ctx, pkft.WithOlderThan(time.Time{}), pkft.WithDryRun(true), pkft.WithParallelism(0))
			return fmt.Errorf("%v; %v", err1, err2)
		}),
		"Table.ExpireSnapshots": each(func(tb *pkft.Table) error {
			_, err1 := tb.ExpireSnapshots(ctx, nil)
			_, err2 := tb.ExpireSnapshots(ctx, pkft.WithRetainMin(0), pkft.WithRetainMax(-1), pkft.WithMaxDeletes(0), pkft.WithExpireClock(nil), pkft.WithOlderThan(time.Time{}))
			return fmt.Errorf("%v; %v", err1, err2)
		}),
		"Table.Search": each(func(tb *pkft.Table) error {
			_, err1 := tb.Search(ctx, "", nil)
			_, err2 := tb.Search(ctx, "x", pkft.WithLimit(0), pkft.WithColumn(""))
			return fmt.Errorf("%v; %v", err1, err2)
		}),
		"Table.Scan": each(func(tb *pkft.Table) error {
			rr, err := tb.Scan(ctx, nil, pkft.WithColumns(), pkft.Where(""))
			if err != nil {
				return err
			}
			defer rr.Release()
			for rr.Next() {
			}
			return rr.Err()
		}),
		"Table.Watch": each(func(tb *pkft.Table) error {
			return tb.Watch(cancelled, nil, pkft.WithPollInterval(0), pkft.WithWatchMaintain(nil))
		}),
		"Table.NewWriter": each(func(tb *pkft.Table) error {
			return writer(tb, func(*pkft.Writer) error { return nil })
		}),
		"Writer.Schema": each(func(tb *pkft.Table) error {
			return writer(tb, func(w *pkft.Writer) error { _ = w.Schema(); return nil })
		}),
		"Writer.Write": each(func(tb *pkft.Table) error {
			return writer(tb, func(w *pkft.Writer) error {
				err1 := w.Write(ctx, 0, nil)
				err2 := w.Write(ctx, 0, []any{})
				return fmt.Errorf("%v; %v", err1, err2)
			})
		}),
		"Writer.WriteRecord": each(func(tb *pkft.Table) error {
			return writer(tb, func(w *pkft.Writer) error {
				if err := w.WriteRecord(ctx, noRows, nil); err != nil {
					return fmt.Errorf("a 0-row batch: %w", err)
				}
				if err := w.WriteRecord(ctx, nil); err == nil {
					return fmt.Errorf("a nil batch was accepted")
				}
				return nil
			})
		}),
		"Writer.PrepareCommit": each(func(tb *pkft.Table) error {
			return writer(tb, func(w *pkft.Writer) error { return w.PrepareCommit(ctx) })
		}),
		"Writer.Commit": each(func(tb *pkft.Table) error {
			return writer(tb, func(w *pkft.Writer) error {
				_, err1 := w.Commit(ctx)
				_, err2 := w.Commit(ctx) // a second commit of the same writer
				return fmt.Errorf("%v; %v", err1, err2)
			})
		}),
		"Writer.Abort": each(func(tb *pkft.Table) error {
			return writer(tb, func(w *pkft.Writer) error {
				err1 := w.Abort(ctx)
				err2 := w.Abort(ctx)
				_, err3 := w.Commit(ctx) // a commit after an abort
				return fmt.Errorf("%v; %v; %v", err1, err2, err3)
			})
		}),
	}

	api := exportedAPI(t)
	known := map[string]bool{}
	for _, name := range api {
		known[name] = true
		call, ok := calls[name]
		if !ok {
			t.Errorf("%s is exported but not called here: add it to TestNoPanicOnEmptyInput", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s panicked on empty input: %v", name, r)
				}
			}()
			if err := call(); err != nil {
				t.Logf("%s: %v", name, err)
			}
		})
	}
	for name := range calls {
		if !known[name] {
			t.Errorf("%s is called here but is not an exported function or method of package pkft", name)
		}
	}
	if snaps, _ := filepath.Glob(filepath.Join(tbl.Path(), "snapshot", "snapshot-*")); len(snaps) != 0 {
		t.Errorf("empty input committed %d snapshots: %v", len(snaps), snaps)
	}
}
