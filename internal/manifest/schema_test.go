package manifest

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/hamba/avro/v2"
)

// The expected schemas below were written by hand from AvroSchemaConverter.convertToSchema
// (release-2.0.0) applied to the Java row types, in the compact form Avro Java's
// Schema.toString() prints: record "type", "name", "namespace" (only when it differs from the
// enclosing one), "fields"; field "name", "type", "default" (null, only for nullable types);
// nested records named "{parent full name}_{field name}"; arrays reuse the field's record name
// for their element; nullable types are ["null", T].

const simpleStatsFields = `[
  {"name":"_MIN_VALUES","type":"bytes"},
  {"name":"_MAX_VALUES","type":"bytes"},
  {"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}
]`

const expectedManifestEntrySchema = `{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[
  {"name":"_VERSION","type":"int"},
  {"name":"_KIND","type":"int"},
  {"name":"_PARTITION","type":"bytes"},
  {"name":"_BUCKET","type":"int"},
  {"name":"_TOTAL_BUCKETS","type":"int"},
  {"name":"_FILE","type":{"type":"record","name":"record__FILE","fields":[
    {"name":"_FILE_NAME","type":"string"},
    {"name":"_FILE_SIZE","type":"long"},
    {"name":"_ROW_COUNT","type":"long"},
    {"name":"_MIN_KEY","type":"bytes"},
    {"name":"_MAX_KEY","type":"bytes"},
    {"name":"_KEY_STATS","type":{"type":"record","name":"record__FILE__KEY_STATS","fields":` + simpleStatsFields + `}},
    {"name":"_VALUE_STATS","type":{"type":"record","name":"record__FILE__VALUE_STATS","fields":` + simpleStatsFields + `}},
    {"name":"_MIN_SEQUENCE_NUMBER","type":"long"},
    {"name":"_MAX_SEQUENCE_NUMBER","type":"long"},
    {"name":"_SCHEMA_ID","type":"long"},
    {"name":"_LEVEL","type":"int"},
    {"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}},
    {"name":"_CREATION_TIME","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},
    {"name":"_DELETE_ROW_COUNT","type":["null","long"],"default":null},
    {"name":"_EMBEDDED_FILE_INDEX","type":["null","bytes"],"default":null},
    {"name":"_FILE_SOURCE","type":["null","int"],"default":null},
    {"name":"_VALUE_STATS_COLS","type":["null",{"type":"array","items":"string"}],"default":null},
    {"name":"_EXTERNAL_PATH","type":["null","string"],"default":null},
    {"name":"_FIRST_ROW_ID","type":["null","long"],"default":null},
    {"name":"_WRITE_COLS","type":["null",{"type":"array","items":"string"}],"default":null}
  ]}}
]}`

const expectedManifestFileMetaSchema = `{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[
  {"name":"_VERSION","type":"int"},
  {"name":"_FILE_NAME","type":"string"},
  {"name":"_FILE_SIZE","type":"long"},
  {"name":"_NUM_ADDED_FILES","type":"long"},
  {"name":"_NUM_DELETED_FILES","type":"long"},
  {"name":"_PARTITION_STATS","type":{"type":"record","name":"record__PARTITION_STATS","fields":` + simpleStatsFields + `}},
  {"name":"_SCHEMA_ID","type":"long"},
  {"name":"_MIN_BUCKET","type":["null","int"],"default":null},
  {"name":"_MAX_BUCKET","type":["null","int"],"default":null},
  {"name":"_MIN_LEVEL","type":["null","int"],"default":null},
  {"name":"_MAX_LEVEL","type":["null","int"],"default":null},
  {"name":"_MIN_ROW_ID","type":["null","long"],"default":null},
  {"name":"_MAX_ROW_ID","type":["null","long"],"default":null}
]}`

const expectedIndexManifestEntrySchema = `{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[
  {"name":"_VERSION","type":"int"},
  {"name":"_KIND","type":"int"},
  {"name":"_PARTITION","type":"bytes"},
  {"name":"_BUCKET","type":"int"},
  {"name":"_INDEX_TYPE","type":"string"},
  {"name":"_FILE_NAME","type":"string"},
  {"name":"_FILE_SIZE","type":"long"},
  {"name":"_ROW_COUNT","type":"long"},
  {"name":"_DELETIONS_VECTORS_RANGES","type":["null",{"type":"array","items":["null",{"type":"record","name":"record__DELETIONS_VECTORS_RANGES","fields":[
    {"name":"f0","type":"string"},
    {"name":"f1","type":"int"},
    {"name":"f2","type":"int"},
    {"name":"_CARDINALITY","type":["null","long"],"default":null}
  ]}]}],"default":null},
  {"name":"_EXTERNAL_PATH","type":["null","string"],"default":null},
  {"name":"_GLOBAL_INDEX","type":["null",{"type":"record","name":"record__GLOBAL_INDEX","fields":[
    {"name":"_ROW_RANGE_START","type":"long"},
    {"name":"_ROW_RANGE_END","type":"long"},
    {"name":"_INDEX_FIELD_ID","type":"int"},
    {"name":"_EXTRA_FIELD_IDS","type":["null",{"type":"array","items":"int"}],"default":null},
    {"name":"_INDEX_META","type":["null","bytes"],"default":null},
    {"name":"_SOURCE_META","type":["null","bytes"],"default":null}
  ]}],"default":null}
]}`

func compact(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("expected schema is not JSON: %v", err)
	}
	return b.String()
}

func TestSchemasMatchJavaConverter(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  string
		want string
	}{
		{"manifest entry", ManifestEntrySchema(), expectedManifestEntrySchema},
		{"manifest file meta", ManifestFileMetaSchema(), expectedManifestFileMetaSchema},
		{"index manifest entry", IndexManifestEntrySchema(), expectedIndexManifestEntrySchema},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := compact(t, tc.want)
			if tc.got != want {
				t.Errorf("schema mismatch\n got: %s\nwant: %s", tc.got, want)
			}
			if _, err := avro.ParseWithCache(tc.got, "", &avro.SchemaCache{}); err != nil {
				t.Errorf("schema does not parse: %v", err)
			}
		})
	}
}
