// Package manifest reads and writes Paimon 2.0.0 manifest files, manifest lists and index
// manifests as Avro object container files that Paimon's Java Avro format reads and writes, and
// holds the pure functions that combine manifest entries into the live file set.
//
// Schemas are derived from the Java row types the way AvroSchemaConverter does it, including the
// leading _VERSION field of versioned serializers. Readers decode with the schema stored in the
// file and match fields by name, so files written with fewer fields read the missing ones as
// null, as in Java.
package manifest

import (
	"fmt"
	"io"

	"github.com/paimon-pkft/pkft/internal/meta"
)

// readAll reads r fully and decodes it (expected is the file's Paimon row type, expectedJSON the
// Avro schema Java writes for it), prefixing every error with what and name.
func readAll[A, M any](what, name string, r io.Reader, expected dataType, expectedJSON string, convert func(*A) (M, error)) ([]M, error) {
	fail := func(err error) error {
		if name == "" {
			return fmt.Errorf("read %s: %w", what, err)
		}
		return fmt.Errorf("read %s %s: %w", what, name, err)
	}
	if r == nil {
		return nil, fail(fmt.Errorf("nil reader"))
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fail(err)
	}
	recs, err := decodeOCF[A](data, expected, expectedJSON)
	if err != nil {
		return nil, fail(err)
	}
	out := make([]M, 0, len(recs))
	for i := range recs {
		m, err := convert(&recs[i])
		if err != nil {
			return nil, fail(fmt.Errorf("record %d: %w", i, err))
		}
		out = append(out, m)
	}
	return out, nil
}

// writeAll converts records and writes them, prefixing every error with what.
func writeAll[M, A any](what string, w io.Writer, schema string, opts WriteOptions, recs []M, convert func(*M) (A, error)) error {
	avroRecs := make([]A, len(recs))
	for i := range recs {
		a, err := convert(&recs[i])
		if err != nil {
			return fmt.Errorf("write %s: record %d: %w", what, i, err)
		}
		avroRecs[i] = a
	}
	if err := writeOCF(w, schema, opts, avroRecs); err != nil {
		return fmt.Errorf("write %s: %w", what, err)
	}
	return nil
}

// ReadManifestFile decodes a manifest file. name is only used in error messages (it may be
// empty).
func ReadManifestFile(name string, r io.Reader) ([]meta.ManifestEntry, error) {
	return readAll("manifest file", name, r, manifestEntryType(), ManifestEntrySchema(), fromAvroManifestEntry)
}

// WriteManifestFile writes entries as one manifest file. Nil partitions, keys and stats rows are
// written as the empty BinaryRow, nil extra files and null counts as empty arrays.
func WriteManifestFile(w io.Writer, entries []meta.ManifestEntry, opts WriteOptions) error {
	return writeAll("manifest file", w, ManifestEntrySchema(), opts, entries, toAvroManifestEntry)
}

// ReadManifestList decodes a manifest list. name is only used in error messages.
func ReadManifestList(name string, r io.Reader) ([]meta.ManifestFileMeta, error) {
	return readAll("manifest list", name, r, manifestFileMetaType(), ManifestFileMetaSchema(), fromAvroManifestFileMeta)
}

// WriteManifestList writes metas as one manifest list.
func WriteManifestList(w io.Writer, metas []meta.ManifestFileMeta, opts WriteOptions) error {
	return writeAll("manifest list", w, ManifestFileMetaSchema(), opts, metas,
		func(m *meta.ManifestFileMeta) (avroManifestFileMeta, error) { return toAvroManifestFileMeta(m), nil })
}

// ReadIndexManifest decodes an index manifest. name is only used in error messages.
func ReadIndexManifest(name string, r io.Reader) ([]meta.IndexManifestEntry, error) {
	return readAll("index manifest", name, r, indexManifestEntryType(), IndexManifestEntrySchema(), fromAvroIndexManifestEntry)
}

// WriteIndexManifest writes entries as one index manifest.
func WriteIndexManifest(w io.Writer, entries []meta.IndexManifestEntry, opts WriteOptions) error {
	return writeAll("index manifest", w, IndexManifestEntrySchema(), opts, entries, toAvroIndexManifestEntry)
}
