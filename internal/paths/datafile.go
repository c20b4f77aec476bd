package paths

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
)

// hadoopCompressions maps Paimon's HadoopCompressionType values to their
// file extensions ("none" has none).
var hadoopCompressions = []struct{ value, ext string }{
	{"none", ""},
	{"gzip", "gz"},
	{"bzip2", "bz2"},
	{"deflate", "deflate"},
	{"snappy", "snappy"},
	{"lz4", "lz4"},
	{"zstd", "zst"},
}

// compressionExtension is DataFilePathFactory.compressFileExtension: the
// Hadoop extension of a known compression, the compression name itself
// otherwise, and "" for no compression.
func compressionExtension(compression string) string {
	if compression == "" {
		return ""
	}
	for _, h := range hadoopCompressions {
		if strings.EqualFold(h.value, compression) {
			return h.ext
		}
	}
	return compression
}

func isCompressExtension(ext string) bool {
	for _, h := range hadoopCompressions {
		if h.ext != "" && strings.EqualFold(h.ext, ext) {
			return true
		}
	}
	return false
}

func isTextFormat(format string) bool {
	return strings.EqualFold(format, "json") || strings.EqualFold(format, "csv")
}

// DataFileExtension is the extension of new data and changelog files: text
// formats put the compression after the format (".csv.gz"), others put it
// before when file.suffix.include.compression is set (".zst.parquet"), and
// otherwise only the format is used (".parquet").
func DataFileExtension(format, compression string, suffixIncludeCompression bool) string {
	ext := compressionExtension(compression)
	switch {
	case ext != "" && isTextFormat(format):
		return "." + format + "." + ext
	case ext != "" && suffixIncludeCompression:
		return "." + ext + "." + format
	default:
		return "." + format
	}
}

// FormatIdentifier extracts the format of a data file from its name
// (DataFilePathFactory.formatIdentifier): the last extension, or the one
// before it when the last is a compression extension.
func FormatIdentifier(fileName string) (string, error) {
	i := strings.LastIndexByte(fileName, '.')
	if i < 0 {
		return "", fmt.Errorf("%s is not a legal file name", fileName)
	}
	ext := fileName[i+1:]
	if isCompressExtension(ext) {
		j := strings.LastIndexByte(fileName[:i], '.')
		if j < 0 {
			return "", fmt.Errorf("%s is not a legal file name", fileName)
		}
		return fileName[j+1 : i], nil
	}
	return ext, nil
}

// DataFilePathFactory names the data and changelog files of one bucket:
// {prefix}{uuid}-{N}{extension} in the bucket directory, or under an external
// root when external paths are configured. It is safe for concurrent use.
type DataFilePathFactory struct {
	parent          string
	uuid            string
	count           atomic.Int64
	dataPrefix      string
	changelogPrefix string
	extension       string
	external        externalPathProvider
}

func newDataFilePathFactory(parent string, o Options, ext externalPathProvider, id string) *DataFilePathFactory {
	return &DataFilePathFactory{
		parent:          parent,
		uuid:            id,
		dataPrefix:      o.DataFilePrefix,
		changelogPrefix: o.ChangelogFilePrefix,
		extension:       DataFileExtension(o.FileFormat, o.FileCompression, o.FileSuffixIncludeCompression),
		external:        ext,
	}
}

// Parent is the bucket directory.
func (d *DataFilePathFactory) Parent() string { return d.parent }

// UUID is the UUID embedded in the names this factory generates.
func (d *DataFilePathFactory) UUID() string { return d.uuid }

// IsExternalPath reports whether new files go to external roots, in which
// case their full path is recorded as the file's external path.
func (d *DataFilePathFactory) IsExternalPath() bool { return d.external != nil }

func (d *DataFilePathFactory) newName(prefix string) string {
	return prefix + d.uuid + "-" + strconv.FormatInt(d.count.Add(1)-1, 10) + d.extension
}

// NewPath returns the path of a new data file, data-{uuid}-{N}.{format}.
func (d *DataFilePathFactory) NewPath() string { return d.NewPathFromName(d.newName(d.dataPrefix)) }

// NewChangelogPath returns the path of a new changelog file,
// changelog-{uuid}-{N}.{format}.
func (d *DataFilePathFactory) NewChangelogPath() string {
	return d.NewPathFromName(d.newName(d.changelogPrefix))
}

// NewPathWithPrefix returns the path of a new file with another prefix.
func (d *DataFilePathFactory) NewPathWithPrefix(prefix string) string {
	return d.NewPathFromName(d.newName(prefix))
}

// NewPathFromName places a file name: under the next external root when
// external paths are configured, in the bucket directory otherwise.
func (d *DataFilePathFactory) NewPathFromName(fileName string) string {
	if d.external != nil {
		return d.external.next(fileName)
	}
	return Join(d.parent, fileName)
}

// ToPath resolves a recorded file: its external path when set, its name in
// the bucket directory otherwise.
func (d *DataFilePathFactory) ToPath(fileName, externalPath string) string {
	if externalPath != "" {
		return Normalize(externalPath)
	}
	return Join(d.parent, fileName)
}
