package bitmap

import "github.com/paimon-pkft/pkft/internal/pksorted/blockcodec"

// The bitmap-index.* options that shape the file.
const (
	OptDictionaryBlockSize = "bitmap-index.dictionary-block-size"
	OptCompression         = "bitmap-index.compression"
	OptCompressionLevel    = "bitmap-index.compression-level"
)

// OptFallbackScanMaxSize bounds the total size of the bitmap index files a reader scans for a
// predicate it cannot look up directly (Java's BitmapGlobalIndexOptions fallback-scan-max-size, default 256 MiB; 0
// turns the fallback scans off). It does not shape the file.
const OptFallbackScanMaxSize = "bitmap-index.fallback-scan-max-size"

// DefaultFallbackScanMaxSize is Java's default of OptFallbackScanMaxSize.
const DefaultFallbackScanMaxSize = 256 << 20

// FallbackScanMaxSize returns the fallback scan budget of an index's option map in bytes.
func FallbackScanMaxSize(opts map[string]string) (int64, error) {
	return blockcodec.MemorySizeOption(opts, "bitmap index", OptFallbackScanMaxSize, DefaultFallbackScanMaxSize)
}

// ParseOptions returns the writer options of an index's option map (see
// blockcodec.FormatOptions): dictionary block size (default 16 KiB), compression and level; any
// other bitmap-index.* key but OptFallbackScanMaxSize (checked here, read by the reader) is refused by
// name.
func ParseOptions(opts map[string]string) (Options, error) {
	size, codec, err := blockcodec.FormatOptions(opts, "bitmap index", "bitmap-index.", OptDictionaryBlockSize, DefaultDictionaryBlockSize, OptFallbackScanMaxSize)
	if err != nil {
		return Options{}, err
	}
	if _, err := FallbackScanMaxSize(opts); err != nil {
		return Options{}, err
	}
	return Options{DictionaryBlockSize: size, Codec: codec}, nil
}
