// Package restore restores the buckets of a table snapshot the way a Java writer does
// (FileSystemWriteRestore#restoreFiles): a bucket's live data and index files, its path
// factories, its deletion vectors, and the full-text definition of the writer's schema. Both the
// table operations (internal/tableops) and the read path (internal/search) start from it.
package restore
