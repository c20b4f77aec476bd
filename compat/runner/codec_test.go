package runner

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/paimon-pkft/pkft/internal/pkfulltext"
)

// javaCodecs are the file.compression values of write/java-codec/<codec> (java->go): every codec
// the registry honours, as Java writes it.
var javaCodecs = []string{"lz4", "snappy", "gzip", "zstd", "none"}

// javaCodecTable is write/java-codec/<codec>: Java writes (and compacts at commit) a full-text
// table with file.compression = codec; Go reads it as Java does, writes and compacts it (reading
// Java's files), and Java then reads the model's rows and searches as Go. Java's lz4 is Hadoop's
// Lz4Codec framing (Parquet's deprecated LZ4), which arrow-go does not read without
// internal/pqlz4.
func javaCodecTable(ctx context.Context, g *maintainGroup, goP *Process, codec string) error {
	fields := []field{{"id", "INT NOT NULL"}, {"content", "STRING"}}
	opts := map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content", "file.compression": codec}
	name := "java-codec-" + codec
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, name), name, fields, []string{"id"}, nil, opts, nil)
	if err != nil {
		return err
	}
	m := newRowModel([]string{"id"})
	for round := range 3 {
		rows := pkTextRows(uint64(900+round), round*40, round*40+40)
		if len(m.rows) > 0 {
			rows = append(rows, updatesAndDeletes(m, uint64(950+round), 8, 5)...)
		}
		if err := g.proc.Call(ctx, "write", map[string]any{"path": path, "rows": rows}, nil); err != nil {
			return fmt.Errorf("java write: %w", err)
		}
		m.apply(rows)
	}
	if err := goReadsAsJava(ctx, g, goP, path); err != nil {
		return err
	}
	rows := pkTextRows(990, 200, 230)
	rows = append(rows, updatesAndDeletes(m, 991, 10, 5)...)
	if err := goWrite(ctx, goP, path, rows); err != nil {
		return err
	}
	m.apply(rows)
	if err := goCompact(ctx, goP, path); err != nil {
		return err
	}
	if err := roundChecks(ctx, g, goP, path, m, fields, true); err != nil {
		return err
	}
	return g.sameSearchesVia(ctx, goP, path, maintainQueries(), []int{10})
}
