// Package restore restores the buckets of a table snapshot the way a Java writer does
// (FileSystemWriteRestore#restoreFiles): a bucket's live data and index files, its path
// factories, its deletion vectors, and the builders and maintainers of its primary-key indexes,
// for the index definitions of the writer's schema (resolved by internal/pkfulltext and
// internal/pksorted/definition). Both the table operations (internal/tableops) and the read
// paths (internal/scan, internal/search) start from it.
package restore
