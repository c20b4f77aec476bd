package org.apache.paimon.index.pksorted;

import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.index.IndexPathFactory;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.FileSource;
import org.apache.paimon.options.Options;
import org.apache.paimon.stats.SimpleStats;
import org.apache.paimon.types.DataField;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The runner's entry into Paimon's own {@link PkSortedIndexBuilder} and {@link
 * PkSortedIndexFile}: the builder's reader factory is package-private, so this shim lives in
 * Paimon's package. It feeds given per-file (value, position) rows to the real builder (its sort
 * buffer, its index file, Paimon's btree/bitmap writers) and returns the payload it publishes.
 */
public final class RunnerSortedBuild {

    private RunnerSortedBuild() {}

    /** One source data file: its name, row count and its rows in physical order. */
    public static final class Source {
        final String fileName;
        final List<Object> values;

        public Source(String fileName, List<Object> values) {
            this.fileName = fileName;
            this.values = values;
        }
    }

    /** Builds the level's payload into dir with index-{uuid} names; returns its metadata. */
    public static IndexFileMeta build(
            String dir, int level, DataField field, String indexType, Map<String, String> options, List<Source> sources)
            throws Exception {
        LocalFileIO fileIO = LocalFileIO.create();
        Path base = new Path(dir);
        IndexPathFactory paths =
                new IndexPathFactory() {
                    @Override
                    public Path toPath(String fileName) {
                        return new Path(base, fileName);
                    }

                    @Override
                    public Path newPath() {
                        return new Path(base, "index-" + UUID.randomUUID() + "-0");
                    }

                    @Override
                    public boolean isExternalPath() {
                        return false;
                    }
                };
        List<DataFileMeta> files = new ArrayList<>();
        for (Source s : sources) {
            files.add(dataFile(s.fileName, s.values.size(), level, true));
        }
        PkSortedIndexBuilder builder =
                new PkSortedIndexBuilder(
                        dataFile -> {
                            for (Source s : sources) {
                                if (s.fileName.equals(dataFile.fileName())) {
                                    return reader(s);
                                }
                            }
                            throw new IllegalArgumentException("no rows for " + dataFile.fileName());
                        },
                        new PkSortedIndexFile(fileIO, paths),
                        field,
                        indexType,
                        Options.fromMap(options),
                        null);
        return builder.build(files);
    }

    /** A data file of a bucket, as the classification sees it. */
    public static DataFileMeta dataFile(String name, long rowCount, int level, boolean compact) {
        DataFileMeta f =
                DataFileMeta.forAppend(
                        name,
                        100,
                        rowCount,
                        SimpleStats.EMPTY_STATS,
                        0,
                        0,
                        1,
                        Collections.emptyList(),
                        null,
                        compact ? FileSource.COMPACT : FileSource.APPEND,
                        null,
                        null,
                        null,
                        null);
        return level > 0 ? f.upgrade(level) : f;
    }

    private static PkSortedIndexBuilder.Reader reader(Source s) {
        Iterator<Object> it = s.values.iterator();
        return new PkSortedIndexBuilder.Reader() {
            private long position;

            @Override
            public long rowCount() {
                return s.values.size();
            }

            @Override
            public PkSortedDataFileReader.Entry readNext() {
                if (!it.hasNext()) {
                    return null;
                }
                return new PkSortedDataFileReader.Entry(it.next(), position++);
            }

            @Override
            public void close() {}
        };
    }
}
