// Package pkindex holds the pieces every Paimon primary-key index family shares (full-text and
// the sorted pk-btree and pk-bitmap, and in Java also the vector index): the identity of a
// covered data file ([SourceFile]), the binary source meta an index payload records
// ([SourceMeta]), which data files may feed an index ([ShouldWrite], [ShouldReadDataFile]),
// per-level rebuild planning ([Levels]), and the table options naming each family's columns
// with their shared checks ([IndexColumns], [ValidateIndexColumns]). It ports
// org.apache.paimon.index.pk of Apache Paimon 2.0.0.
//
// # Inputs
//
// Level planning is generic over both the payload type T (like Java's PrimaryKeyIndexLevels<T>)
// and the caller's data-file type F; the caller supplies a function projecting F onto a
// [FileInfo] (name, row count, level), and plans hand back the caller's own F values, as
// Java's plans hand back its DataFileMeta objects. For the format layer's *meta.DataFileMeta,
// [DataFileInfo] is that projection. The source policy works on meta.FileSource.
//
// File names are ordered as Java's String.compareTo orders them (by UTF-16 code unit, see
// javaio.CompareJava), which differs from Go's byte order only for names mixing runes above
// U+FFFF with runes in U+E000..U+FFFF.
//
// # Errors
//
// Java throws IllegalArgumentException for every rule in this package; here each becomes a
// returned error whose text keeps the Java message's meaning. Nothing panics on bad input.
package pkindex
