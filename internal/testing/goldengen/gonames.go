package goldengen

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/paimon-pkft/pkft/internal/inspect"
)

// FileNames maps the data and index file names of a dump to names that do not depend on uuids:
// a data file is named by its partition, bucket, level, sequence range and row count, a
// full-text archive by its partition, bucket and data level, any other index file by its
// partition, bucket and type (each with an ordinal when several share that description, in
// dump order). Two tables made by the same steps get the same names.
type FileNames map[string]string

// CanonicalNames builds the FileNames of d.
func CanonicalNames(d *inspect.Dump) FileNames {
	names := FileNames{}
	seen := map[string]int{}
	add := func(name, desc string) {
		if _, ok := names[name]; ok {
			return
		}
		n := seen[desc]
		seen[desc]++
		names[name] = desc + "#" + strconv.Itoa(n)
	}
	for _, b := range d.Buckets {
		where := bucketLabel(b)
		for _, f := range b.DataFiles {
			add(f.FileName, fmt.Sprintf("data(%s L%d seq %d-%d rows %d)", where, f.Level, f.MinSequenceNumber, f.MaxSequenceNumber, f.RowCount))
		}
		for _, f := range b.IndexFiles {
			desc := fmt.Sprintf("index(%s %s)", where, f.IndexType)
			if f.GlobalIndex != nil && f.GlobalIndex.SourceMeta != nil {
				desc = fmt.Sprintf("index(%s %s L%d)", where, f.IndexType, f.GlobalIndex.SourceMeta.DataLevel)
			}
			add(f.FileName, desc)
		}
	}
	return names
}

func bucketLabel(b inspect.BucketDump) string {
	p, _ := json.Marshal(b.Partition)
	return fmt.Sprintf("%s/%d", p, b.Bucket)
}

// Name returns the canonical name of a file name; a name not in the dump becomes "unknown".
func (n FileNames) Name(name string) string {
	if c, ok := n[name]; ok {
		return c
	}
	return "unknown"
}

// Renamed returns a copy of d with every file name replaced by its canonical name and every
// list whose order follows the names sorted again: buckets by partition and bucket, data and
// index files, source files, deletion-vector ranges, eligible, stale and planned files.
func (n FileNames) Renamed(d *inspect.Dump) (*inspect.Dump, error) {
	data, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	var out inspect.Dump
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	for i := range out.Buckets {
		b := &out.Buckets[i]
		for j := range b.DataFiles {
			b.DataFiles[j].FileName = n.Name(b.DataFiles[j].FileName)
		}
		sort.Slice(b.DataFiles, func(x, y int) bool { return b.DataFiles[x].FileName < b.DataFiles[y].FileName })
		for j := range b.IndexFiles {
			f := &b.IndexFiles[j]
			f.FileName = n.Name(f.FileName)
			for k := range f.DeletionVectors {
				f.DeletionVectors[k].DataFile = n.Name(f.DeletionVectors[k].DataFile)
			}
			sort.Slice(f.DeletionVectors, func(x, y int) bool { return f.DeletionVectors[x].DataFile < f.DeletionVectors[y].DataFile })
			if f.GlobalIndex != nil && f.GlobalIndex.SourceMeta != nil {
				sf := f.GlobalIndex.SourceMeta.Files
				for k := range sf {
					sf[k].FileName = n.Name(sf[k].FileName)
				}
				sort.Slice(sf, func(x, y int) bool { return sf[x].FileName < sf[y].FileName })
			}
		}
		sort.Slice(b.IndexFiles, func(x, y int) bool { return b.IndexFiles[x].FileName < b.IndexFiles[y].FileName })
		if s := b.State; s != nil {
			for lv, files := range s.Eligible {
				s.Eligible[lv] = n.names(files)
			}
			for lv, f := range s.Current {
				s.Current[lv] = n.Name(f)
			}
			s.Stale = n.names(s.Stale)
		}
		if p := b.Plan; p != nil {
			p.Input, p.Files = n.names(p.Input), n.names(p.Files)
		}
	}
	sort.Slice(out.Buckets, func(x, y int) bool {
		return bucketLabel(out.Buckets[x]) < bucketLabel(out.Buckets[y])
	})
	return &out, nil
}

// names renames and sorts a list of file names.
func (n FileNames) names(files []string) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = n.Name(f)
	}
	sort.Strings(out)
	return out
}
