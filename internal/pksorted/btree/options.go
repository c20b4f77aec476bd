package btree

import "github.com/paimon-pkft/pkft/internal/pksorted/blockcodec"

// The btree-index.* options that shape the file.
const (
	OptBlockSize        = "btree-index.block-size"
	OptCompression      = "btree-index.compression"
	OptCompressionLevel = "btree-index.compression-level"
)

// OptFallbackScanMaxSize bounds the total size of the BTree index files a reader scans for a
// predicate it cannot look up directly (Java's BTreeIndexOptions fallback-scan-max-size, default 256 MiB; 0
// turns the fallback scans off). It does not shape the file.
const OptFallbackScanMaxSize = "btree-index.fallback-scan-max-size"

// The reader's block cache options (Java's btree-index.cache-size and
// btree-index.high-priority-pool-ratio): Go's reader has no block cache, and neither key changes
// a file or an answer, so both are accepted and not read.
const (
	OptCacheSize             = "btree-index.cache-size"
	OptHighPriorityPoolRatio = "btree-index.high-priority-pool-ratio"
)

// DefaultFallbackScanMaxSize is Java's default of OptFallbackScanMaxSize.
const DefaultFallbackScanMaxSize = 256 << 20

// FallbackScanMaxSize returns the fallback scan budget of an index's option map in bytes.
func FallbackScanMaxSize(opts map[string]string) (int64, error) {
	return blockcodec.MemorySizeOption(opts, "btree index", OptFallbackScanMaxSize, DefaultFallbackScanMaxSize)
}

// ParseOptions returns the writer options of an index's option map (see
// blockcodec.FormatOptions): block size (default 64 KiB), compression and level; any other
// btree-index.* key but OptFallbackScanMaxSize (checked here, read by the reader) and the cache
// options is refused by name.
func ParseOptions(opts map[string]string) (Options, error) {
	size, codec, err := blockcodec.FormatOptions(opts, "btree index", "btree-index.", OptBlockSize, DefaultBlock, OptFallbackScanMaxSize, OptCacheSize, OptHighPriorityPoolRatio)
	if err != nil {
		return Options{}, err
	}
	if _, err := FallbackScanMaxSize(opts); err != nil {
		return Options{}, err
	}
	return Options{BlockSize: size, Codec: codec}, nil
}
