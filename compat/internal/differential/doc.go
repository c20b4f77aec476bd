// Package differential is the decision differential of the primary-key index maintainers:
// scripted scenarios that Java's BucketedFullTextIndexMaintainer (inside the Java runner, command
// maintainer-scenario) and Go's pkfulltext.Maintainer (RunGo) both execute, the per-step traces
// they produce, a seeded generator of adversarial scenarios (Generate), and invariants every
// correct maintainer satisfies on any trace (Check). The sorted family has the same differential
// (see "The sorted family" below): Java's BucketedSortedIndexMaintainer (command
// sorted-maintainer-scenario) against Go's pksorted maintainer, scripts from GenerateSorted and
// invariants CheckSorted.
//
// # Script
//
// A Script is JSON. Both runners must execute it literally, as follows.
//
//	{
//	  "seed": 42,                        // informational: the generator seed
//	  "fieldId": 7,                      // the indexed text field id
//	  "restore": {
//	    "dataFiles": [ DataFile... ],    // restoredDataFiles, in this order
//	    "payloads":  [ Payload... ]      // restoredPayloads, in this order
//	  },
//	  "steps": [ Step... ]
//	}
//
// DataFile is {"name", "level", "rows", "source"}: a DataFileMeta with that file name, level,
// row count and file source ("APPEND", "COMPACT", or "" for null). Its other fields carry no
// decision (the maintainer reads only name, level, row count and source): file size = 100 ×
// rows, schema id 0, sequence numbers 0, empty key and value stats, no extra files, every
// nullable field null.
//
// Payload is {"name", "level", "files": [{"name", "rows"}...], "corrupt": [tag...]}: a full-text
// IndexFileMeta recorded by the payload rule below for source meta v1 (level, files in the given
// order), then altered by each corruption tag:
//
//	rowCount          rowCount = total + 1 (row range unchanged)
//	rowRange          rowRangeEnd = total (row count unchanged)
//	otherField        indexFieldId = fieldId + 1
//	otherFieldNoMeta  indexFieldId = fieldId + 1 and sourceMeta = null
//	unparsableMeta    the source meta's leading int (the version) is 99
//	trailingBytes     one zero byte appended to the source meta
//	noGlobalMeta      globalIndexMeta = null
//	otherType         indexType = "btree"
//	duplicate         the payload appears twice in a row in restoredPayloads
//
// Tags apply in the order listed; one that alters the source meta does nothing once it is null.
// A level of 0 or less, or an empty file list, is encoded as given (Java rejects it on decode).
// Absent or null lists anywhere in a script are empty.
//
// Step is {"op": "prepareCommit" | "abort", ...}. prepareCommit has "append" (DataFile list:
// DataIncrement.newFiles, no deleted or changelog files), "compactBefore" (names), "compactAfter"
// (DataFile list), "wait" (waitCompaction) and "builds" (outcomes, below). A compactBefore name is
// turned into the DataFile last introduced under that name before it (by the restore, an earlier
// step's append or compactAfter, or this step's append), or into {name, level 0, rows 1, APPEND}
// when there is none; the maintainer reads only the name. abort calls abort on the FullTextIndexCommit the
// immediately preceding step returned; when that step was not a successful prepareCommit the
// abort is skipped (recorded, nothing called).
//
// After the last step the runner calls close.
//
// # The deterministic builder
//
// Every build the maintainer requests (PkFullTextIndexBuilder.build of one file or a list; Go
// ArchiveBuilder.Build) takes the next outcome of the current step's "builds" list; requests
// beyond the list succeed. The request's key is "ft-L<level>-<hex>", level being the first
// file's level and hex the first 8 lowercase hex digits of the SHA-1 of the UTF-8 text made of
// "<name>:<rows>\n" for each requested file in the given order. An archive generated for a key
// is named "<key>-<attempt>", attempt counting the archives this builder generated for that key
// so far in the scenario, from 1. Outcomes:
//
//	succeed      at once: the archive the payload rule describes for the requested files
//	fail         at once: the build fails (throws), generating nothing
//	wrongField   at once: an archive for field id fieldId + 1 (the maintainer must reject it)
//	wrongRows    at once: an archive whose row count is one too many (must be rejected)
//	finishLater  as succeed, but only at the start of the next step (or of close)
//	failLater    as fail, but only at the start of the next step (or of close)
//
// "At once" means the build completes before the request returns control (Java: the runner's
// executor runs the task inside submit, so the future is done when start returns); a later build
// is queued and run at the start of the next step, before that step's call (Java: the executor
// queues the task; Go: the builder blocks until released). A waiting step may not use the later
// outcomes. A build cancelled before it ran generates nothing.
//
// # The payload rule
//
// An archive over files f1..fn (names and row counts) on level L, for field F, named N:
// indexType "full-text", fileName N, fileSize = total rows, rowCount = total rows, no
// deletion-vector ranges (null), no external path, globalIndexMeta with rowRangeStart 0,
// rowRangeEnd total - 1, indexFieldId F, extraFieldIds null, indexMeta null and sourceMeta the v1
// encoding of (L, f1..fn).
//
// # Trace
//
// A Trace records the restore (state, or error class), then per step: the append and compact
// increments (null when the commit carries none, i.e. Java's Optional.empty(); otherwise
// newIndexFiles and deletedIndexFiles as name lists, possibly empty), the error class, the
// archives the builder generated during the step (with outcome), the archives deleted during the
// step (in call order), and the state after the step: current payloads in the maintainer's list
// order with their levels, retired payload names in order, the active eligible source files
// sorted by name, and whether a build is pending. Close records its generated and deleted
// archives. Messages are kept for people but never compared (see Diff).
//
// Error classes are what can be compared across languages: "" (no error), "invalidAppend" (the
// append increment holds an index source: Java's IllegalArgumentException "Append files must not
// be primary-key full-text index sources."), "buildFailed" (the deterministic builder's failure
// surfaced: Java's exception whose cause chain holds the runner's build-failure exception, Go's
// error wrapping ErrBuildFailed), "other" (anything else).
//
// # The sorted family
//
// A script with "family": "btree" or "bitmap" drives the sorted maintainer of that index type for
// fieldId (Java BucketedSortedIndexMaintainer, Go pksorted/maintainer). The rules above hold with
// these differences:
//
//   - payloads (restored and built) have that index type; otherType gives a restored payload the
//     other sorted type (bitmap for btree, btree for bitmap). The maintainer ignores payloads of
//     another type or field, so those are neither used nor deleted;
//   - a prepareCommit step may have "noBuildStart": true (allowBuildStart = false);
//   - the maintainer tries a build up to three times: an outcome belongs to the request (Java: the
//     task the executor runs, at once or at the start of the next step as above), and every
//     attempt of it calls the builder. fail and failLater fail every attempt; "failOnce" fails the
//     first attempt only; "wrongLevel" succeeds with an output whose source meta records level + 1
//     (the maintainer must delete it); the other outcomes succeed on the first attempt. Every
//     attempt is recorded with "attempt" (1, 2, 3); full-text records have none;
//   - the state lists as current the payloads of the maintainer's groups in its list order, each
//     with its group's level; as retired the restored payloads awaiting deletion; and adds
//     "pendingMaintenance" (hasPendingMaintenance());
//   - "invalidAppend" is Java's IllegalArgumentException "Append files must not be primary-key
//     sorted index sources.".
//
// GenerateSorted turns Generate's script of a seed into a sorted one (btree for odd seeds, bitmap
// for even), adding calls without build start and failOnce / wrongLevel outcomes.
//
// # Runner command
//
// maintainer-scenario takes a full-text Script as its args and returns its Trace as the result;
// sorted-maintainer-scenario does the same for a sorted-family script. Each refuses the other
// family's scripts.
package differential
