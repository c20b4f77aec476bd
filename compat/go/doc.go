// Command pkft-runner is pkft's runner of the conformance protocol (compat/PROTOCOL.md): it
// serves, over JSON lines on its standard streams, the commands the Java runner serves to the
// harness, with the same request and response shapes, so that a case runs Go and Java through
// one code path. make go-runner builds it into .cache/go-runner/pkft-runner; the harness knows it
// as implementation go (compat/runner/impls.go, supports file compat/go/go.supports).
//
// Usage:
//
//	pkft-runner serve
//
// The table commands run on package pkft, the API a Go user has:
//
//   - consumer: ping, read, search (ranked positions included), list-index;
//   - writer: create-table, write (rows with _rowKind; dynamicOptions write-only=true only;
//     stringBytes for texts given as their bytes; indexNewRows, pkft's WithIndexNewRows);
//   - compactor: compact (full compaction of every bucket, one commit; uncovered, pkft's
//     WithUncoveredCompaction) and minor-compact (the table's strategy picks; the messages are
//     read from the table's dumps before and after);
//   - maintainer: maintain (Table.Maintain: an index-only commit), rewrite-metadata
//     (Table.RewriteMetadata), expire-snapshots (Table.ExpireSnapshots) and remove-orphan-files
//     (Table.RemoveOrphanFiles);
//   - configure-s3: the later commands open the tables of s3:// and s3a:// paths of the bucket
//     with pkft.WithFileSystemOptions.
//
// Package pkft exposes nothing for the maintainer's unit-level commands, so these are served
// through the same Go code the harness's in-process cases use, not through package pkft:
// maintainer-scenario and sorted-maintainer-scenario run compat/internal/differential's RunGo (the Go
// maintainers of the full-text and sorted families with the differential's deterministic
// builder), source-meta-encode and source-meta-decode run internal/pkindex's SourceMeta, and
// pk-full-text-index-file-build runs internal/pkfulltext's Builder over the table's data files
// (the level's archive written where the table's writer writes index files, nothing committed),
// and the sorted family's sorted-index-build, sorted-index-options and sorted-state run
// internal/pksorted's indexfile.Builder (one level's pk-btree/pk-bitmap payload from given
// values), definition.IndexOptions and state.FromActiveDataFiles.
// Package pkft exposes no decoded metadata either: manifest-values renders what
// internal/manifest's readers decode of the latest snapshot (through internal/table, the reader
// of every table operation: the values a carrying commit writes back), on tables of the local
// file system.
// Package pkft exposes neither the bucket of a row nor compaction picking either: bucket runs the
// writer's routing (internal/tableops's BucketOf, as NewBucketer resolves it once per request)
// on the values pkft's ParseValue and Writer.Write make of the rows (over the table's latest
// schema, the request's bucket function in place of the table's), and pick runs
// compat/internal/pickdiff's Run, internal/mergetree's strategies and TriggerCompaction over the
// request's level layouts, on the runner's own clock and zone.
//
// Every command is a function of its request and response types of package compat/protocol
// (generated from the protocol's JSON Schemas): the request is decoded into the one, unknown
// arguments refused by name, and the result is the other. Where the schemas leave a part
// free-form (a pick's layouts, a scenario's script and trace, a sorted build's sources), the
// runner decodes it further into the Go types it runs on (compat/internal/pickdiff's, compat/internal/differential's).
//
// Not served: the Java runner's other commands (dump, alter-table, ...). An unknown
// command is the error "unknown command: NAME"; the runner stays usable after any error.
package main
