package io.github.paimonpkft.fulltext;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.globalindex.GlobalIndexSingleColumnWriter;
import org.apache.paimon.globalindex.ResultEntry;
import org.apache.paimon.globalindex.io.GlobalIndexFileWriter;

import java.io.Closeable;
import java.io.IOException;
import java.util.Collections;
import java.util.List;

/**
 * Stand-in for Paimon's {@code org.apache.paimon.fulltext.index.NativeFullTextGlobalIndexWriter}
 * (module {@code paimon-full-text} 2.0.0, not served by the Maven registry reachable here): builds
 * one archive of one text column through the engine ({@link FtIndexEngine}).
 *
 * <p>A null value counts a row but adds no document; {@link BinaryString} and {@link String} are
 * indexed under their relative row id; anything else is rejected. {@link #finish()} returns no
 * entry when no row was written, otherwise exactly one: a file named by the file writer with the
 * prefix {@code full-text}, the row count, and the options' flat JSON as index meta.
 */
public class NativeFullTextGlobalIndexWriter implements GlobalIndexSingleColumnWriter, Closeable {

    private static final String FILE_NAME_PREFIX = "full-text";

    private final GlobalIndexFileWriter fileWriter;
    private final NativeFullTextIndexOptions indexOptions;
    private FtIndexEngine.Writer writer;
    private long rowCount;
    private boolean closed;

    public NativeFullTextGlobalIndexWriter(GlobalIndexFileWriter fileWriter) {
        this(fileWriter, NativeFullTextIndexOptions.defaults());
    }

    public NativeFullTextGlobalIndexWriter(
            GlobalIndexFileWriter fileWriter, NativeFullTextIndexOptions indexOptions) {
        this.fileWriter = fileWriter;
        this.indexOptions = indexOptions;
        // The engine validates the options here: an unknown one fails with the engine's text.
        this.writer = FtIndexEngine.Writer.create(indexOptions.toNativeOptions());
    }

    @Override
    public void write(Object fieldData, long relativeRowId) {
        if (closed) {
            throw new IllegalStateException("NativeFullTextGlobalIndexWriter is already closed.");
        }
        if (fieldData == null) {
            rowCount++;
            return;
        }
        String text;
        if (fieldData instanceof BinaryString) {
            text = fieldData.toString();
        } else if (fieldData instanceof String) {
            text = (String) fieldData;
        } else {
            throw new IllegalArgumentException(
                    "Unsupported field type: " + fieldData.getClass().getName());
        }
        writer.addDocument(relativeRowId, text);
        rowCount++;
    }

    @Override
    public List<ResultEntry> finish() {
        try {
            if (rowCount == 0) {
                return Collections.emptyList();
            }
            return Collections.singletonList(writeArchive());
        } catch (IOException e) {
            throw new RuntimeException("Failed to write native full-text global index", e);
        } finally {
            releaseWriter();
            closed = true;
        }
    }

    private ResultEntry writeArchive() throws IOException {
        String fileName = fileWriter.newFileName(FILE_NAME_PREFIX);
        try (PositionOutputStream out = fileWriter.newOutputStream(fileName)) {
            writer.writeIndex(
                    new FtIndexEngine.Output() {
                        @Override
                        public void write(byte[] buffer, int offset, int length)
                                throws IOException {
                            out.write(buffer, offset, length);
                        }

                        @Override
                        public void flush() throws IOException {
                            out.flush();
                        }
                    });
            out.flush();
        }
        return new ResultEntry(fileName, rowCount, indexOptions.serialize());
    }

    private void releaseWriter() {
        if (writer != null) {
            writer.close();
            writer = null;
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            releaseWriter();
        }
    }
}
