// Package writebuffer is the merge-tree writer's spillable write buffer, after Paimon 2.0.0's
// MemoryPoolFactory, SortBufferWriteBuffer and BinaryExternalSortBuffer: one memory budget per
// writer (write-buffer-size) shared by the buffers of its buckets; a buffer that runs out of
// budget first takes memory from the largest other buffer (which spills its records, as a sorted
// run, to local disk — or, not spillable, is flushed by its owner), then spills itself; its
// records come back merged in key and sequence order.
//
// Runs, the spilled sorted runs and their merge, also serve sorters with their own memory
// accounting (the sorted index build's).
//
// A Pool and its Buffers are used by one goroutine, as Java's writer uses its buffers from one
// thread. The package keeps records opaque: keys are compared by the caller's comparator.
package writebuffer

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/paimon-pkft/pkft/internal/schema"
)

// The table options the write buffer reads (CoreOptions at release-2.0.0).
const (
	OptWriteBufferSize     = "write-buffer-size"
	OptPageSize            = "page-size"
	OptSpillable           = "write-buffer-spillable"
	OptMaxDiskSize         = "write-buffer-spill.max-disk-size"
	OptSortMaxFan          = "local-sort.max-num-file-handles"
	OptSpillCompression    = "spill-compression"
	OptSpillZstdLevel      = "spill-compression.zstd-level"
	defaultWriteBufferSize = 256 << 20
	defaultPageSize        = 64 << 10
)

// Options configure a Pool.
type Options struct {
	// Size is write-buffer-size in bytes (256 mb): the memory of all of a writer's buffers.
	Size int64
	// PageSize is page-size in bytes (64 kb): the unit buffers take memory in.
	PageSize int64
	// Spillable is write-buffer-spillable (true).
	Spillable bool
	// MaxDiskSize is write-buffer-spill.max-disk-size in bytes (unlimited): past it a buffer
	// asked to give back memory does not spill.
	MaxDiskSize int64
	// SortMaxFan is local-sort.max-num-file-handles (128): at that many spilled runs a buffer
	// merges them into one.
	SortMaxFan int
	// Compression is spill-compression: "zstd" (the default) or "none".
	Compression string
	// ZstdLevel is spill-compression.zstd-level (1).
	ZstdLevel int
}

// ParseOptions reads the write buffer's options from a table's options map with Java's
// defaults; a value Java could not parse, or a spill compression pkft does not implement (lzo,
// lz4), is an error naming the option.
func ParseOptions(opts map[string]string) (Options, error) {
	o := Options{Size: defaultWriteBufferSize, PageSize: defaultPageSize, Spillable: true, MaxDiskSize: math.MaxInt64,
		SortMaxFan: 128, Compression: "zstd", ZstdLevel: 1}
	for _, f := range []struct {
		key string
		dst *int64
	}{{OptWriteBufferSize, &o.Size}, {OptPageSize, &o.PageSize}, {OptMaxDiskSize, &o.MaxDiskSize}} {
		if v, ok := opts[f.key]; ok {
			n, err := schema.ParseMemorySize(v)
			if err != nil {
				return Options{}, fmt.Errorf("option %s: %w", f.key, err)
			}
			*f.dst = n
		}
	}
	if v, ok := opts[OptSpillable]; ok {
		switch strings.ToUpper(v) {
		case "TRUE":
			o.Spillable = true
		case "FALSE":
			o.Spillable = false
		default:
			return Options{}, fmt.Errorf("option %s: %q is neither true nor false", OptSpillable, v)
		}
	}
	for _, f := range []struct {
		key string
		dst *int
	}{{OptSortMaxFan, &o.SortMaxFan}, {OptSpillZstdLevel, &o.ZstdLevel}} {
		if v, ok := opts[f.key]; ok {
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				return Options{}, fmt.Errorf("option %s: %q is not a 32-bit integer", f.key, v)
			}
			*f.dst = int(n)
		}
	}
	if v, ok := opts[OptSpillCompression]; ok {
		switch c := strings.ToLower(v); c {
		case "zstd", "none":
			o.Compression = c
		default:
			return Options{}, fmt.Errorf("option %s: %q is not implemented by pkft (zstd or none)", OptSpillCompression, v)
		}
	}
	if err := o.validate(); err != nil {
		return Options{}, err
	}
	return o, nil
}

func (o Options) validate() error {
	switch {
	case o.PageSize <= 0 || o.PageSize > math.MaxInt32:
		return fmt.Errorf("option %s: %d bytes is not a page size", OptPageSize, o.PageSize)
	case o.Size/o.PageSize < 3:
		// SortBufferWriteBuffer's check.
		return fmt.Errorf("option %s: a write buffer requires a minimum of 3 pages of %s (%d bytes)", OptWriteBufferSize, OptPageSize, o.PageSize)
	case o.SortMaxFan < 2:
		return fmt.Errorf("option %s: %d, want at least 2", OptSortMaxFan, o.SortMaxFan)
	case o.MaxDiskSize < 0:
		return errors.New("option " + OptMaxDiskSize + " is negative")
	}
	return nil
}
