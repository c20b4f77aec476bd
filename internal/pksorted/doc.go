// Package pksorted is the home of Paimon's sorted primary-key index family (pk-btree and
// pk-bitmap). Its subpackages each do one job:
//
//   - sortkey: the global-index key serializer and comparator of each supported column type
//   - filemeta: SortedIndexFileMeta, the first/last key metadata stored in GlobalIndexMeta
//   - blockcodec: block compression, block trailers and their CRCs
//   - sst: the SST blocks and files the BTree index is made of
//   - btree: the BTree global index file (writer, reader, predicate evaluation)
//   - bitmap: the bitmap global index file (writer, reader, predicate evaluation)
//   - state: a bucket's payloads classified against its data files, and the shared level planner
//   - maintainer: one definition's bucket maintainer (Java BucketedSortedIndexMaintainer)
//   - definition: a table's pk-btree and pk-bitmap definitions from its options and fields
//
// Java's org.apache.paimon.globalindex.{btree,bitmap} and org.apache.paimon.sst at
// release-2.0.0 are the specification; files written here are byte-identical to Java's for the
// same input and options when no compression (or none that Java keeps) is used.
package pksorted
