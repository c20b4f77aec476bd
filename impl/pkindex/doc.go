// Package pkindex holds the pieces every Paimon primary-key index family shares (full-text,
// and in Java also the sorted and vector indexes): the identity of a covered data file
// ([SourceFile]), the binary source meta an index payload records ([SourceMeta]), which data
// files may feed an index ([ShouldRead], [ShouldWrite]), and per-level rebuild planning
// ([Levels]). It ports org.apache.paimon.index.pk of Apache Paimon 2.0.0.
//
// # Inputs
//
// The package does not import the data-file metadata type. Level planning is generic over
// both the payload type T (like Java's PrimaryKeyIndexLevels<T>) and the caller's data-file
// type F; the caller supplies a function projecting F onto a [FileInfo] (name, row count,
// level), and plans hand back the caller's own F values, as Java's plans hand back its
// DataFileMeta objects. The policy takes the file source and level directly, with
// [FileSource] carrying the byte values of Java's FileSource enum. This keeps pkindex free
// of the format layer's shape while letting any DataFileMeta representation plug in with a
// one-line projection. For the format layer's own type, [DataFileInfo] is that projection
// and [ShouldReadDataFile] the policy over *meta.DataFileMeta.
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
