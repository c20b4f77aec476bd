// Package search searches a primary-key table's full-text archives, the read path of Paimon
// 2.0.0's primary-key full-text index: the classes FullTextSearchBuilderImpl,
// PrimaryKeyFullTextScan, PrimaryKeyFullTextRead, PrimaryKeyFullTextSearchSplit,
// PrimaryKeyFullTextBucketSearch, PrimaryKeySearchRanker and PrimaryKeySearchPosition of
// org.apache.paimon.table.source and org.apache.paimon.index.pkfulltext.
//
// What Java does, and this package mirrors:
//
// Definition (FullTextSearchBuilderImpl#primaryKeyFullTextDefinition). The column must exist in
// the table's schema. The primary-key path is taken only when data evolution is off and the
// column is one of pk-full-text.index.columns (PrimaryKeyIndexDefinitions#create, which also
// rejects duplicate columns and a column owning two primary-key indexes); otherwise Java falls
// back to its data-evolution full-text path, which pkft does not implement and reports as an
// error. The limit must be positive and full-text-index.search-mode must be FAST
// (PrimaryKeyFullTextRead#checkFastSearchMode; FULL and DETAIL are rejected).
//
// Scan (PrimaryKeyFullTextScan#scan and #plan). One snapshot is read: the latest, or the pinned
// one. Payloads are the index manifest entries of type full-text with global index meta and
// source meta for the definition's field id (#matchesDefinition), restricted by the partition
// filter; a matching entry that is not ADD is an error. Data files come from the batch scan of
// the same snapshot with the same partition filter; splits of bucket < 0 are skipped; within a
// bucket only files PrimaryKeyIndexSourcePolicy#shouldRead admits are kept (file source COMPACT
// and level > 0), so level-0 files and files moved up without a rewrite are never searched, and
// a bucket without such files produces no split. The bucket's payloads are classified against
// those files with PkFullTextBucketIndexState#fromActiveDataFiles: only current archives (one
// per level, covering exactly that level's files, in name order, with their row counts) are
// searched; stale archives, archives of other fields and levels without an archive are skipped
// without an error or fallback, and their files are recorded as uncovered.
//
// Read (PrimaryKeyFullTextRead#read, PrimaryKeyFullTextBucketSearch#searchRankings). Each
// current archive is searched once with the query string as given (the engine receives it
// verbatim; FullTextSearch#column is ignored by the native reader) and the request's limit —
// the limit applies per archive, not per bucket. Deletion vectors of the bucket's data files
// (DeletionVector.factory over the split's deletion files) are applied by passing the engine a
// row-id filter: when some source of the archive is no longer active or has a non-empty
// deletion vector, the filter holds the row ids [offset, offset+rowCount) of every active
// source minus the deleted positions (built from ranges, without enumerating rows; a deleted
// position outside its file is an error), and an archive whose filter is empty is not opened.
// Otherwise no filter is passed. Row ids are archive positions: the source files' rows
// concatenated in source-meta order, so a row id maps back to (file, row id - file offset).
// A returned row id outside the archive or in an inactive source is an error; one outside the
// filter is dropped; scores must be finite. Each archive's hits are sorted by score
// (descending, Float.compare), then data file name, then row position.
//
// Merge (PrimaryKeySearchRanker#topKByScore). The rankings of every archive of every bucket are
// merged: a physical position found twice keeps its best entry, and the limit best positions
// are returned by score (descending), ties broken by PrimaryKeySearchPosition#compareTo —
// partition bytes (unsigned, lexicographic), bucket, data file name (Java String order), row
// position. Scores are not rewritten.
//
// Result (PrimaryKeyScoredResult). Java returns these physical positions; reading them with the
// table's read path yields the rows. This package reads, for each position, the primary key
// columns and the text column of that row from its data file (only those columns, only around
// the wanted rows) and returns them with the score, in the merged order.
//
// Differences: the definition and the table options come from the table's latest schema, as
// Java's FileStoreTable carries it (also when a snapshot is pinned); the schema is resolved through
// restore.NewRestorer (pkfulltext.ResolveDefinition), so its writer-side checks (deletion vectors
// enabled, a CHAR/VARCHAR column, one full-text column) also apply to searches — a table failing
// them cannot hold archives Java wrote.
//
// Additions of pkft: a query that is not a JSON object is taken as plain words and sent as a
// match query, {"match":{"query":"lake format"}} for the words lake format (Paimon's own tests
// build match queries this way); an empty column selects the indexed column; archive searches
// of all buckets run in one bounded pool (global-index.thread-num, default 32, as Java's read
// thread pool) instead of bucket by bucket, which changes nothing in the result. Queries are
// checked against Bounds (size in bytes, number of terms, JSON nesting) before anything is read,
// where Java passes every query to the engine; a search ends when its context does, also
// while the engine is searching an archive (the engine call is abandoned, see package native);
// and a search counts, by reason, the rows of the searched snapshot and partitions that no
// current archive covers (level 0, moved up unrewritten, a level without an archive or with
// duplicate ones: Response.Coverage, derived by package inspect from the classification the
// plan made), where Java skips them without a word.
package search
