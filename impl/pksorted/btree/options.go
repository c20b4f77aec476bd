package btree

import "github.com/paimon-pkft/pkft/impl/pksorted/blockcodec"

// The btree-index.* options that shape the file.
const (
	OptBlockSize        = "btree-index.block-size"
	OptCompression      = "btree-index.compression"
	OptCompressionLevel = "btree-index.compression-level"
)

// ParseOptions returns the writer options of an index's option map (see
// blockcodec.FormatOptions): block size (default 64 KiB), compression and level; any other
// btree-index.* key is refused by name.
func ParseOptions(opts map[string]string) (Options, error) {
	size, codec, err := blockcodec.FormatOptions(opts, "btree index", "btree-index.", OptBlockSize, DefaultBlock)
	if err != nil {
		return Options{}, err
	}
	return Options{BlockSize: size, Codec: codec}, nil
}
