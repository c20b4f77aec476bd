package fulltext

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
)

// EnvelopeMagic opens every paimon-ftindex v1 archive.
const EnvelopeMagic = "PFTIDX01"

// maxHeaderLen is the largest header the engine's readers accept.
const maxHeaderLen = 16 << 20

// Envelope is the self-describing header of a paimon-ftindex archive (docs/storage-format.md of
// apache/paimon-full-text): the analyzer configuration the archive was built with, its document
// count, the tantivy version, and the directory of the tantivy files in the body.
type Envelope struct {
	Version  uint32
	Metadata struct {
		Config         json.RawMessage `json:"config"`
		DocumentCount  uint64          `json:"document_count"`
		TantivyVersion string          `json:"tantivy_version"`
	} `json:"metadata"`
	Files []struct {
		Name   string `json:"name"`
		Offset uint64 `json:"offset"`
		Length uint64 `json:"length"`
	} `json:"files"`
}

// ReadEnvelope decodes the header of the archive held by r (size bytes) without the engine.
func ReadEnvelope(r io.ReaderAt, size int64) (*Envelope, error) {
	var prefix [16]byte
	if size < int64(len(prefix)) {
		return nil, fmt.Errorf("full-text archive of %d bytes is shorter than its 16-byte prefix", size)
	}
	if _, err := r.ReadAt(prefix[:], 0); err != nil {
		return nil, fmt.Errorf("read full-text archive prefix: %w", err)
	}
	if string(prefix[:8]) != EnvelopeMagic {
		return nil, fmt.Errorf("not a full-text archive: magic %q", prefix[:8])
	}
	env := &Envelope{Version: binary.BigEndian.Uint32(prefix[8:12])}
	if env.Version != 1 {
		return nil, fmt.Errorf("full-text archive version %d is not supported", env.Version)
	}
	n := int64(binary.BigEndian.Uint32(prefix[12:16]))
	if n > maxHeaderLen || n > size-16 {
		return nil, fmt.Errorf("full-text archive header of %d bytes does not fit (archive %d bytes, limit %d)", n, size, maxHeaderLen)
	}
	header := make([]byte, n)
	if _, err := r.ReadAt(header, 16); err != nil && !(err == io.EOF && int64(len(header)) == n) {
		return nil, fmt.Errorf("read full-text archive header: %w", err)
	}
	if err := json.Unmarshal(header, env); err != nil {
		return nil, fmt.Errorf("decode full-text archive header: %w", err)
	}
	return env, nil
}
