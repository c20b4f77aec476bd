package paths

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/paimon-pkft/pkft/internal/mutation"
)

// Table option keys (CoreOptions) that shape the layout.
const (
	OptionFileFormat                   = "file.format"
	OptionFileCompression              = "file.compression"
	OptionFileSuffixIncludeCompression = "file.suffix.include.compression"
	OptionDataFilePrefix               = "data-file.prefix"
	OptionChangelogFilePrefix          = "changelog-file.prefix"
	OptionDataFilePathDirectory        = "data-file.path-directory"
	OptionPartitionDefaultName         = "partition.default-name"
	OptionPartitionLegacyName          = "partition.legacy-name"
	OptionExternalPaths                = "data-file.external-paths"
	OptionExternalPathsStrategy        = "data-file.external-paths.strategy"
	OptionExternalPathsSpecificFS      = "data-file.external-paths.specific-fs"
	OptionExternalPathsWeights         = "data-file.external-paths.weights"
	OptionIndexFileInDataFileDir       = "index-file-in-data-file-dir"
	OptionGlobalIndexExternalPath      = "global-index.external-path"
)

// Options is the part of a table's configuration the path factories need.
// Build it with OptionsFromTable to get Paimon's defaults.
type Options struct {
	// Root is the table root path.
	Root string
	// FileFormat is the data file format identifier, lower case ("parquet").
	FileFormat string
	// FileCompression is file.compression ("zstd" by default).
	FileCompression string
	// FileSuffixIncludeCompression puts the compression extension into data
	// file names.
	FileSuffixIncludeCompression bool
	// DataFilePrefix is the data file name prefix ("data-").
	DataFilePrefix string
	// ChangelogFilePrefix is the changelog file name prefix ("changelog-").
	ChangelogFilePrefix string
	// DataFilePathDirectory is an optional directory under the root holding
	// all partitions and buckets.
	DataFilePathDirectory string
	// PartitionDefaultName replaces null, empty and whitespace-only
	// partition values.
	PartitionDefaultName string
	// LegacyPartitionName is partition.legacy-name; it only matters to
	// whoever formats typed partition values (see FormatDate).
	LegacyPartitionName bool
	// ExternalPaths are the data-file external roots selected for writing
	// (already filtered by strategy); empty when not configured.
	ExternalPaths []string
	// ExternalPathStrategy is how a new data or index file chooses among
	// ExternalPaths.
	ExternalPathStrategy ExternalPathStrategy
	// ExternalPathWeights are the weights of the weighted strategy.
	ExternalPathWeights []int
	// IndexFileInDataFileDir places index files in the bucket directory.
	IndexFileInDataFileDir bool
	// GlobalIndexExternalPath is an optional root for index files that are
	// not placed in data file directories.
	GlobalIndexExternalPath string
}

func boolOption(opts map[string]string, key string, def bool) (bool, error) {
	v, ok := opts[key]
	if !ok {
		return def, nil
	}
	switch strings.ToUpper(v) {
	case "TRUE":
		return true, nil
	case "FALSE":
		return false, nil
	}
	return false, fmt.Errorf("option %s: cannot parse %q as a boolean", key, v)
}

func stringOption(opts map[string]string, key, def string) string {
	if v, ok := opts[key]; ok {
		return v
	}
	return def
}

// OptionsFromTable reads the layout options of a table from its option map,
// applying Paimon 2.0.0 defaults and the checks AbstractFileStore and
// CoreOptions perform (external paths need a scheme, positive weights, ...).
func OptionsFromTable(root string, opts map[string]string) (Options, error) {
	o := Options{
		Root:                  root,
		FileFormat:            strings.ToLower(stringOption(opts, OptionFileFormat, "parquet")),
		FileCompression:       stringOption(opts, OptionFileCompression, "zstd"),
		DataFilePrefix:        stringOption(opts, OptionDataFilePrefix, "data-"),
		ChangelogFilePrefix:   stringOption(opts, OptionChangelogFilePrefix, "changelog-"),
		DataFilePathDirectory: opts[OptionDataFilePathDirectory],
		PartitionDefaultName:  stringOption(opts, OptionPartitionDefaultName, DefaultPartitionName),
	}
	var err error
	if o.FileSuffixIncludeCompression, err = boolOption(opts, OptionFileSuffixIncludeCompression, false); err != nil {
		return Options{}, err
	}
	if o.LegacyPartitionName, err = boolOption(opts, OptionPartitionLegacyName, true); err != nil {
		return Options{}, err
	}
	if o.IndexFileInDataFileDir, err = boolOption(opts, OptionIndexFileInDataFileDir, false); err != nil {
		return Options{}, err
	}
	if o.ExternalPathStrategy, err = ParseExternalPathStrategy(stringOption(opts, OptionExternalPathsStrategy, "none")); err != nil {
		return Options{}, err
	}
	if w, ok := opts[OptionExternalPathsWeights]; ok {
		for _, part := range strings.Split(w, ",") {
			n, err := strconv.ParseInt(strings.TrimSpace(part), 10, 32)
			if err != nil {
				return Options{}, fmt.Errorf("option %s: %w", OptionExternalPathsWeights, err)
			}
			if n <= 0 {
				return Options{}, fmt.Errorf("option %s: weight must be positive, got: %d", OptionExternalPathsWeights, n)
			}
			o.ExternalPathWeights = append(o.ExternalPathWeights, int(n))
		}
	}
	if ext := opts[OptionExternalPaths]; ext != "" && o.ExternalPathStrategy != StrategyNone {
		specificFS, hasSpecific := opts[OptionExternalPathsSpecificFS]
		for _, s := range strings.Split(ext, ",") {
			p := Normalize(strings.TrimSpace(s))
			scheme := Scheme(p)
			if scheme == "" {
				return Options{}, fmt.Errorf("option %s: scheme should not be null: %s", OptionExternalPaths, p)
			}
			if o.ExternalPathStrategy == StrategySpecificFS {
				if !hasSpecific {
					return Options{}, errors.New("external path specificFS should not be null when strategy is specificFS")
				}
				if !strings.EqualFold(scheme, specificFS) {
					continue
				}
			}
			o.ExternalPaths = append(o.ExternalPaths, p)
		}
		if len(o.ExternalPaths) == 0 {
			return Options{}, errors.New("external paths should not be empty")
		}
	}
	if g := opts[OptionGlobalIndexExternalPath]; g != "" {
		p := Normalize(g)
		if Scheme(p) == "" {
			return Options{}, fmt.Errorf("option %s: scheme should not be null: %s", OptionGlobalIndexExternalPath, p)
		}
		o.GlobalIndexExternalPath = p
	}
	return o, nil
}

// FileStorePathFactory produces the paths of one table, like Java's
// FileStorePathFactory. Each instance has its own UUID and counters, so
// names it generates never collide with another instance's; it is safe for
// concurrent use.
type FileStorePathFactory struct {
	opts Options
	uuid string

	manifestFileCount  atomic.Int64
	manifestListCount  atomic.Int64
	indexManifestCount atomic.Int64
	indexFileCount     atomic.Int64
	statsFileCount     atomic.Int64
}

// NewFileStorePathFactory returns a factory with a fresh random UUID.
func NewFileStorePathFactory(opts Options) (*FileStorePathFactory, error) {
	return NewFileStorePathFactoryWithUUID(opts, uuid.NewString())
}

// NewTableFactory is the path factory of the table at root with the given table options
// ([OptionsFromTable], then [NewFileStorePathFactory]).
func NewTableFactory(root string, options map[string]string) (*FileStorePathFactory, error) {
	opts, err := OptionsFromTable(root, options)
	if err != nil {
		return nil, fmt.Errorf("table options: %w", err)
	}
	return NewFileStorePathFactory(opts)
}

// NewFileStorePathFactoryWithUUID returns a factory using the given UUID in
// generated names; tests use it for deterministic names.
func NewFileStorePathFactoryWithUUID(opts Options, id string) (*FileStorePathFactory, error) {
	if opts.Root == "" {
		return nil, errors.New("path factory: empty table root")
	}
	if opts.FileFormat == "" {
		return nil, errors.New("path factory: empty file format")
	}
	if opts.PartitionDefaultName == "" {
		opts.PartitionDefaultName = DefaultPartitionName
	}
	opts.Root = Normalize(opts.Root)
	return &FileStorePathFactory{opts: opts, uuid: id}, nil
}

func (f *FileStorePathFactory) next(counter *atomic.Int64) string {
	return f.uuid + "-" + strconv.FormatInt(counter.Add(1)-1, 10)
}

// UUID is the UUID embedded in names this factory generates.
func (f *FileStorePathFactory) UUID() string { return f.uuid }

// Options returns the options the factory was built with.
func (f *FileStorePathFactory) Options() Options { return f.opts }

// Root is the table root.
func (f *FileStorePathFactory) Root() string { return f.opts.Root }

// ManifestDir is root/manifest.
func (f *FileStorePathFactory) ManifestDir() string { return Join(f.opts.Root, ManifestDir) }

// IndexDir is root/index.
func (f *FileStorePathFactory) IndexDir() string { return Join(f.opts.Root, IndexDir) }

// GlobalIndexRootDir is where index files not kept in bucket directories are
// created: global-index.external-path when set, root/index otherwise.
func (f *FileStorePathFactory) GlobalIndexRootDir() string {
	if f.opts.GlobalIndexExternalPath != "" {
		return f.opts.GlobalIndexExternalPath
	}
	return f.IndexDir()
}

// StatisticsDir is root/statistics.
func (f *FileStorePathFactory) StatisticsDir() string { return Join(f.opts.Root, StatisticsDir) }

// DataFileDir is the directory holding partitions and buckets: the root, or
// root/data-file.path-directory.
func (f *FileStorePathFactory) DataFileDir() string {
	return Join(f.opts.Root, f.opts.DataFilePathDirectory)
}

// NewManifestFile returns the path of a new manifest file,
// root/manifest/manifest-{uuid}-{N}.
func (f *FileStorePathFactory) NewManifestFile() string {
	return f.ManifestFilePath(ManifestPrefix + f.next(&f.manifestFileCount))
}

// NewManifestList returns the path of a new manifest list,
// root/manifest/manifest-list-{uuid}-{N}.
func (f *FileStorePathFactory) NewManifestList() string {
	return f.ManifestFilePath(ManifestListPrefix + f.next(&f.manifestListCount))
}

// NewIndexManifest returns the path of a new index manifest,
// root/manifest/index-manifest-{uuid}-{N}.
func (f *FileStorePathFactory) NewIndexManifest() string {
	return f.ManifestFilePath(IndexManifestPrefix + f.next(&f.indexManifestCount))
}

// NewStatisticsFile returns the path of a new statistics file,
// root/statistics/stat-{uuid}-{N}.
func (f *FileStorePathFactory) NewStatisticsFile() string {
	return Join(f.StatisticsDir(), StatisticsPrefix+f.next(&f.statsFileCount))
}

// ManifestFilePath resolves a manifest, manifest list or index manifest name
// in root/manifest.
func (f *FileStorePathFactory) ManifestFilePath(name string) string {
	return Join(f.ManifestDir(), name)
}

// PartitionPath is the escaped partition directory ("k=v/..." with a trailing
// slash, "" for an unpartitioned table) after the default-name substitution.
func (f *FileStorePathFactory) PartitionPath(partition []PartitionKV) (string, error) {
	spec := make([]PartitionKV, len(partition))
	for i, kv := range partition {
		spec[i] = PartitionKV{Key: kv.Key, Value: PartitionValue(kv.Value, f.opts.PartitionDefaultName)}
	}
	return PartitionPath(spec)
}

// RelativeBucketPath is [data-file.path-directory/]partition/bucket-N,
// relative to the table root.
func (f *FileStorePathFactory) RelativeBucketPath(partition []PartitionKV, bucket int) (string, error) {
	part, err := f.PartitionPath(partition)
	if err != nil {
		return "", err
	}
	rel := BucketDirName(bucket)
	if part != "" {
		rel = part + rel
	}
	if f.opts.DataFilePathDirectory != "" {
		rel = f.opts.DataFilePathDirectory + "/" + rel
	}
	return Normalize(rel), nil
}

// BucketPath is the absolute bucket directory.
func (f *FileStorePathFactory) BucketPath(partition []PartitionKV, bucket int) (string, error) {
	rel, err := f.RelativeBucketPath(partition, bucket)
	if err != nil {
		return "", err
	}
	return Join(f.opts.Root, rel), nil
}

// DataFilePathFactory returns a new data file path factory for one bucket;
// it has its own UUID and counter, as in Java.
func (f *FileStorePathFactory) DataFilePathFactory(partition []PartitionKV, bucket int) (*DataFilePathFactory, error) {
	rel, err := f.RelativeBucketPath(partition, bucket)
	if err != nil {
		return nil, err
	}
	provider, err := newExternalPathProvider(f.opts.ExternalPathStrategy, f.opts.ExternalPaths, rel, f.opts.ExternalPathWeights)
	if err != nil {
		return nil, err
	}
	return newDataFilePathFactory(Join(f.opts.Root, rel), f.opts, provider, uuid.NewString()), nil
}

// IndexPathFactory returns the index path factory of one bucket: index files
// go to the bucket directory (and its external paths) when
// index-file-in-data-file-dir is set, to the global index root otherwise.
// Names are index-{uuid}-{N} with this factory's UUID and a counter shared by
// all index path factories of this FileStorePathFactory.
func (f *FileStorePathFactory) IndexPathFactory(partition []PartitionKV, bucket int) (IndexPathFactory, error) {
	if !f.opts.IndexFileInDataFileDir || mutation.On("index-in-index-dir") {
		// (The mutation ignores index-file-in-data-file-dir: index files go to the index root.)
		return f.GlobalIndexPathFactory(), nil
	}
	d, err := f.DataFilePathFactory(partition, bucket)
	if err != nil {
		return nil, err
	}
	return &bucketIndexPathFactory{owner: f, data: d}, nil
}

// GlobalIndexPathFactory returns the factory of index files kept in the
// global index root (root/index unless global-index.external-path is set).
func (f *FileStorePathFactory) GlobalIndexPathFactory() IndexPathFactory {
	return globalIndexPathFactory{owner: f}
}

// IndexPathFactory names and locates index files (deletion vectors, hash
// indexes, primary-key full-text archives, ...).
type IndexPathFactory interface {
	// NewPath returns the path of a new index file index-{uuid}-{N}.
	NewPath() string
	// ToPath resolves an index file name in this factory's directory (Java
	// IndexPathFactory.toPath(String)).
	ToPath(fileName string) string
	// ToPathOf resolves a recorded index file: its external path when set,
	// otherwise its name in the table's own directory for such files (Java
	// IndexPathFactory.toPath(IndexFileMeta)).
	ToPathOf(fileName, externalPath string) string
	// IsExternalPath reports whether new files go to an external location,
	// in which case the full path must be recorded as the external path.
	IsExternalPath() bool
}

type globalIndexPathFactory struct{ owner *FileStorePathFactory }

func (g globalIndexPathFactory) NewPath() string {
	return g.ToPath(IndexPrefix + g.owner.next(&g.owner.indexFileCount))
}

func (g globalIndexPathFactory) ToPath(fileName string) string {
	return Join(g.owner.GlobalIndexRootDir(), fileName)
}

// ToPathOf falls back to root/index, not to the global index root, because
// the external root may have been changed by ALTER TABLE since the file was
// written.
func (g globalIndexPathFactory) ToPathOf(fileName, externalPath string) string {
	if externalPath != "" {
		return Normalize(externalPath)
	}
	return Join(g.owner.IndexDir(), fileName)
}

func (g globalIndexPathFactory) IsExternalPath() bool {
	return g.owner.opts.GlobalIndexExternalPath != ""
}

type bucketIndexPathFactory struct {
	owner *FileStorePathFactory
	data  *DataFilePathFactory
}

func (b *bucketIndexPathFactory) NewPath() string {
	return b.data.NewPathFromName(IndexPrefix + b.owner.next(&b.owner.indexFileCount))
}

// ToPath mirrors Java IndexInDataFileDirPathFactory.toPath(String), which
// goes through the data file factory's path allocation (so with external
// paths it picks the next external root).
func (b *bucketIndexPathFactory) ToPath(fileName string) string {
	return b.data.NewPathFromName(fileName)
}

func (b *bucketIndexPathFactory) ToPathOf(fileName, externalPath string) string {
	return b.data.ToPath(fileName, externalPath)
}

func (b *bucketIndexPathFactory) IsExternalPath() bool { return b.data.IsExternalPath() }
