package manifest

import (
	"strconv"
	"strings"
	"sync"

	"github.com/hamba/avro/v2"
)

// typeRoot names the Paimon logical types that appear in manifest schemas.
type typeRoot int

const (
	rootTinyInt typeRoot = iota
	rootInt
	rootBigInt
	rootString
	rootBytes
	rootTimestamp
	rootArray
	rootRow
)

// dataType is the subset of Paimon's DataType needed to describe manifest records.
type dataType struct {
	root      typeRoot
	nullable  bool
	precision int         // rootTimestamp
	elem      *dataType   // rootArray
	fields    []dataField // rootRow
}

// dataField is one named field of a row type. Field ids only matter for the Iceberg name
// mapping, which Paimon does not use for manifests, so they are not kept.
type dataField struct {
	name string
	typ  dataType
}

func tinyInt(nullable bool) dataType { return dataType{root: rootTinyInt, nullable: nullable} }
func intType(nullable bool) dataType { return dataType{root: rootInt, nullable: nullable} }
func bigInt(nullable bool) dataType  { return dataType{root: rootBigInt, nullable: nullable} }
func str(nullable bool) dataType     { return dataType{root: rootString, nullable: nullable} }
func bytesType(nullable bool) dataType {
	return dataType{root: rootBytes, nullable: nullable}
}
func timestamp(nullable bool, precision int) dataType {
	return dataType{root: rootTimestamp, nullable: nullable, precision: precision}
}
func array(nullable bool, elem dataType) dataType {
	return dataType{root: rootArray, nullable: nullable, elem: &elem}
}
func row(nullable bool, fields ...dataField) dataType {
	return dataType{root: rootRow, nullable: nullable, fields: fields}
}
func field(name string, typ dataType) dataField { return dataField{name: name, typ: typ} }

// simpleStatsType is SimpleStats.SCHEMA.
func simpleStatsType() dataType {
	return row(false,
		field("_MIN_VALUES", bytesType(false)),
		field("_MAX_VALUES", bytesType(false)),
		field("_NULL_COUNTS", array(true, bigInt(true))),
	)
}

// dataFileMetaType is DataFileMeta.SCHEMA.
func dataFileMetaType() dataType {
	return row(false,
		field("_FILE_NAME", str(false)),
		field("_FILE_SIZE", bigInt(false)),
		field("_ROW_COUNT", bigInt(false)),
		field("_MIN_KEY", bytesType(false)),
		field("_MAX_KEY", bytesType(false)),
		field("_KEY_STATS", simpleStatsType()),
		field("_VALUE_STATS", simpleStatsType()),
		field("_MIN_SEQUENCE_NUMBER", bigInt(false)),
		field("_MAX_SEQUENCE_NUMBER", bigInt(false)),
		field("_SCHEMA_ID", bigInt(false)),
		field("_LEVEL", intType(false)),
		field("_EXTRA_FILES", array(false, str(false))),
		field("_CREATION_TIME", timestamp(true, 3)),
		field("_DELETE_ROW_COUNT", bigInt(true)),
		field("_EMBEDDED_FILE_INDEX", bytesType(true)),
		field("_FILE_SOURCE", tinyInt(true)),
		field("_VALUE_STATS_COLS", array(true, str(false))),
		field("_EXTERNAL_PATH", str(true)),
		field("_FIRST_ROW_ID", bigInt(true)),
		field("_WRITE_COLS", array(true, str(false))),
	)
}

// versioned prepends the _VERSION field as VersionedObjectSerializer.versionType does.
func versioned(t dataType) dataType {
	fields := append([]dataField{field("_VERSION", intType(false))}, t.fields...)
	return row(false, fields...)
}

// manifestEntryType is ManifestEntry.MANIFEST_ROW_TYPE (version 2).
func manifestEntryType() dataType {
	return versioned(row(false,
		field("_KIND", tinyInt(false)),
		field("_PARTITION", bytesType(false)),
		field("_BUCKET", intType(false)),
		field("_TOTAL_BUCKETS", intType(false)),
		field("_FILE", dataFileMetaType()),
	))
}

// manifestFileMetaType is the versioned ManifestFileMeta.SCHEMA (version 2).
func manifestFileMetaType() dataType {
	return versioned(row(false,
		field("_FILE_NAME", str(false)),
		field("_FILE_SIZE", bigInt(false)),
		field("_NUM_ADDED_FILES", bigInt(false)),
		field("_NUM_DELETED_FILES", bigInt(false)),
		field("_PARTITION_STATS", simpleStatsType()),
		field("_SCHEMA_ID", bigInt(false)),
		field("_MIN_BUCKET", intType(true)),
		field("_MAX_BUCKET", intType(true)),
		field("_MIN_LEVEL", intType(true)),
		field("_MAX_LEVEL", intType(true)),
		field("_MIN_ROW_ID", bigInt(true)),
		field("_MAX_ROW_ID", bigInt(true)),
	))
}

// deletionVectorMetaType is DeletionVectorMeta.SCHEMA (RowType.of, hence nullable).
func deletionVectorMetaType() dataType {
	return row(true,
		field("f0", str(false)),
		field("f1", intType(false)),
		field("f2", intType(false)),
		field("_CARDINALITY", bigInt(true)),
	)
}

// globalIndexMetaType is GlobalIndexMeta.SCHEMA.
func globalIndexMetaType() dataType {
	return row(true,
		field("_ROW_RANGE_START", bigInt(false)),
		field("_ROW_RANGE_END", bigInt(false)),
		field("_INDEX_FIELD_ID", intType(false)),
		field("_EXTRA_FIELD_IDS", array(true, intType(false))),
		field("_INDEX_META", bytesType(true)),
		field("_SOURCE_META", bytesType(true)),
	)
}

// indexManifestEntryType is the versioned IndexManifestEntry.SCHEMA (version 1).
func indexManifestEntryType() dataType {
	return versioned(row(false,
		field("_KIND", tinyInt(false)),
		field("_PARTITION", bytesType(false)),
		field("_BUCKET", intType(false)),
		field("_INDEX_TYPE", str(false)),
		field("_FILE_NAME", str(false)),
		field("_FILE_SIZE", bigInt(false)),
		field("_ROW_COUNT", bigInt(false)),
		field("_DELETIONS_VECTORS_RANGES", array(true, deletionVectorMetaType())),
		field("_EXTERNAL_PATH", str(true)),
		field("_GLOBAL_INDEX", globalIndexMetaType()),
	))
}

// avroRecordName is the top-level record name AvroSchemaConverter.convertToSchema uses.
const avroRecordName = "org.apache.paimon.avro.generated.record"

// avroSchemaJSON renders the Avro schema Paimon's AvroSchemaConverter derives from a row type,
// in the compact JSON form of Avro Java's Schema.toString(): nested records are named
// "{parent}_{field}", nullable types become ["null", T] unions and nullable fields get a null
// default.
func avroSchemaJSON(t dataType) string { return avroSchemaJSONNamed(t, avroRecordName) }

// avroSchemaJSONNamed is avroSchemaJSON with the full record name rowName for a row type.
func avroSchemaJSONNamed(t dataType, rowName string) string {
	var b strings.Builder
	writeAvroType(&b, t, rowName, "")
	return b.String()
}

// writeAvroType writes the schema of t; rowName is the full record name to use if t is a row,
// and enclosingNS is the namespace in effect (Avro omits an equal namespace).
func writeAvroType(b *strings.Builder, t dataType, rowName, enclosingNS string) {
	if t.nullable {
		b.WriteString(`["null",`)
	}
	switch t.root {
	case rootTinyInt, rootInt:
		b.WriteString(`"int"`)
	case rootBigInt:
		b.WriteString(`"long"`)
	case rootString:
		b.WriteString(`"string"`)
	case rootBytes:
		b.WriteString(`"bytes"`)
	case rootTimestamp:
		logical := "timestamp-millis"
		if t.precision > 3 {
			logical = "timestamp-micros"
		}
		b.WriteString(`{"type":"long","logicalType":"` + logical + `"}`)
	case rootArray:
		b.WriteString(`{"type":"array","items":`)
		writeAvroType(b, *t.elem, rowName, enclosingNS)
		b.WriteString(`}`)
	case rootRow:
		ns, name := splitFullName(rowName)
		b.WriteString(`{"type":"record","name":` + strconv.Quote(name))
		if ns != enclosingNS {
			b.WriteString(`,"namespace":` + strconv.Quote(ns))
		}
		b.WriteString(`,"fields":[`)
		for i, f := range t.fields {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`{"name":` + strconv.Quote(f.name) + `,"type":`)
			writeAvroType(b, f.typ, rowName+"_"+f.name, ns)
			if f.typ.nullable {
				b.WriteString(`,"default":null`)
			}
			b.WriteString(`}`)
		}
		b.WriteString(`]}`)
	}
	if t.nullable {
		b.WriteString(`]`)
	}
}

// splitFullName splits an Avro full name at its last dot, as Avro's Schema.Name does.
func splitFullName(full string) (namespace, name string) {
	if i := strings.LastIndexByte(full, '.'); i >= 0 {
		return full[:i], full[i+1:]
	}
	return "", full
}

// ManifestEntrySchema returns the Avro schema JSON of manifest files, as Paimon 2.0.0 writes it.
func ManifestEntrySchema() string { return manifestEntrySchema() }

// ManifestFileMetaSchema returns the Avro schema JSON of manifest lists, as Paimon 2.0.0 writes
// it.
func ManifestFileMetaSchema() string { return manifestFileMetaSchema() }

// IndexManifestEntrySchema returns the Avro schema JSON of index manifests, as Paimon 2.0.0
// writes it.
func IndexManifestEntrySchema() string { return indexManifestEntrySchema() }

// The schema JSON of the three files, built once: every file written carries it, and every file
// read is compared with it (building it took about a fifth of the CPU of reading a small
// manifest).
var (
	manifestEntrySchema      = sync.OnceValue(func() string { return avroSchemaJSON(manifestEntryType()) })
	manifestFileMetaSchema   = sync.OnceValue(func() string { return avroSchemaJSON(manifestFileMetaType()) })
	indexManifestEntrySchema = sync.OnceValue(func() string { return avroSchemaJSON(indexManifestEntryType()) })
)

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func pathOr(path string) string {
	if path == "" {
		return "(root)"
	}
	return path
}

// javaSchemas holds the three schemas Paimon's Java writer puts in the headers (and pkft writes),
// parsed once: parsing a schema took about a fifth of the CPU of a small commit. Parsed schemas
// are immutable.
var javaSchemas = sync.OnceValues(func() (map[string]avro.Schema, error) {
	out := map[string]avro.Schema{}
	for _, js := range []string{ManifestEntrySchema(), ManifestFileMetaSchema(), IndexManifestEntrySchema()} {
		s, err := avro.ParseWithCache(js, "", &avro.SchemaCache{})
		if err != nil {
			return nil, err
		}
		out[js] = s
	}
	return out, nil
})

// parseSchema parses an Avro schema's JSON, taking Java's schemas from javaSchemas.
func parseSchema(js string) (avro.Schema, error) {
	known, err := javaSchemas()
	if err != nil {
		return nil, err
	}
	if s, ok := known[js]; ok {
		return s, nil
	}
	return avro.ParseWithCache(js, "", &avro.SchemaCache{})
}
