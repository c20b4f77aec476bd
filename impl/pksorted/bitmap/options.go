package bitmap

import "github.com/paimon-pkft/pkft/impl/pksorted/blockcodec"

// The bitmap-index.* options that shape the file.
const (
	OptDictionaryBlockSize = "bitmap-index.dictionary-block-size"
	OptCompression         = "bitmap-index.compression"
	OptCompressionLevel    = "bitmap-index.compression-level"
)

// ParseOptions returns the writer options of an index's option map (see
// blockcodec.FormatOptions): dictionary block size (default 16 KiB), compression and level; any
// other bitmap-index.* key is refused by name.
func ParseOptions(opts map[string]string) (Options, error) {
	size, codec, err := blockcodec.FormatOptions(opts, "bitmap index", "bitmap-index.", OptDictionaryBlockSize, DefaultDictionaryBlockSize)
	if err != nil {
		return Options{}, err
	}
	return Options{DictionaryBlockSize: size, Codec: codec}, nil
}
