// Package mergetree is the merge tree's compaction picking and merging, ported from Apache Paimon
// 2.0.0 (org.apache.paimon.mergetree and its compact package): the sorted runs of a bucket's levels
// (Levels, LevelSortedRun), the compaction strategies that choose what to compact next
// (UniversalCompaction with its early full compaction and off-peak hours, ForceUpLevel0Compaction
// for tables that need lookup, CompactStrategy#pickFullCompaction), the options they read with
// Java's keys and defaults, the way Java's writer selects its strategy
// (MergeTreeCompactManagerFactory#createCompactStrategy) and what its compact manager makes of a
// pick (MergeTreeCompactManager#triggerCompaction), and how the records of one key merge (Merge:
// the deduplicate, first-row, partial-update and aggregation merge functions,
// ReducerMergeFunctionWrapper, LookupMergeFunction and the lookup wrappers' results,
// UserDefinedSeqComparator's order), and how a compaction reads what it merges: the sections of
// overlapping files (IntervalPartition) and the merge reader over a section's sorted runs
// (MergeReader, reading each file through the caller's OpenFile). The writer's spillable write
// buffer is the subpackage writebuffer; the aggregation engine's field aggregators are the
// subpackage aggregate.
//
// It decides and reads; it writes no files. Java's strategies read the wall clock
// (System.currentTimeMillis for the optimization interval, the local hour for off-peak hours):
// here the clock is an explicit input of every pick (Clock). A strategy keeps state between picks
// as Java's does (the time of the last full compaction, the gentle lookup-compaction counter), so
// one strategy serves one bucket's writer and is not safe for concurrent use.
package mergetree
