package io.github.paimonpkft.fulltext;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.globalindex.ResultEntry;
import org.apache.paimon.globalindex.io.GlobalIndexFileWriter;
import org.apache.paimon.predicate.FullTextSearch;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static io.github.paimonpkft.fulltext.TestArchives.match;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runner-only tests of the JNI bridge: bad input surfaces as Java exceptions carrying the
 * engine's text (never a crash), callbacks from the engine's threads work, texts cross as UTF-8.
 */
class FtIndexEngineTest {

    @TempDir java.nio.file.Path tempDir;

    private FileIO fileIO;
    private Path dir;

    @BeforeEach
    void setup() {
        fileIO = LocalFileIO.create();
        dir = new Path(tempDir.toString());
    }

    private String build(String... texts) {
        NativeFullTextGlobalIndexWriter writer =
                new NativeFullTextGlobalIndexWriter(TestArchives.fileWriter(fileIO, dir));
        for (int i = 0; i < texts.length; i++) {
            writer.write(texts[i] == null ? null : BinaryString.fromString(texts[i]), i);
        }
        List<ResultEntry> results = writer.finish();
        return new Path(dir, results.get(0).fileName()).toString();
    }

    private static FtIndexEngine.Reader open(String path) throws IOException {
        RandomAccessFile file = new RandomAccessFile(path.replaceFirst("^file:", ""), "r");
        return new FtIndexEngine.Reader(
                (pos, buf, off, len) -> {
                    synchronized (file) {
                        file.seek(pos);
                        file.readFully(buf, off, len);
                    }
                });
    }

    @Test
    void testInvalidOptionFailsWithEngineText() {
        RuntimeException e =
                assertThrows(
                        RuntimeException.class,
                        () ->
                                new NativeFullTextGlobalIndexWriter(
                                        TestArchives.fileWriter(fileIO, dir),
                                        new NativeFullTextIndexOptions(
                                                Collections.singletonMap("tokenizer", "bogus"))));
        assertTrue(e.getMessage().contains("unsupported tokenizer 'bogus'"), e.getMessage());
    }

    @Test
    void testMalformedQueryFailsWithEngineText() throws IOException {
        try (FtIndexEngine.Reader reader = open(build("paimon lake"))) {
            RuntimeException e = assertThrows(RuntimeException.class, () -> reader.search("{bad", 10));
            assertTrue(e.getMessage().contains("json error"), e.getMessage());
            // The reader stays usable after a failed search.
            assertEquals(1, reader.search(match("paimon"), 10).size());
        }
    }

    @Test
    void testSearchOnClosedReaderFails() throws IOException {
        FtIndexEngine.Reader reader = open(build("paimon lake"));
        reader.close();
        reader.close();
        IllegalStateException e =
                assertThrows(IllegalStateException.class, () -> reader.search(match("paimon"), 10));
        assertEquals("FullTextIndexReader is closed", e.getMessage());
    }

    @Test
    void testUnsupportedFieldTypeAndWriteAfterFinishFail() {
        NativeFullTextGlobalIndexWriter writer =
                new NativeFullTextGlobalIndexWriter(TestArchives.fileWriter(fileIO, dir));
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> writer.write(42, 0));
        assertEquals("Unsupported field type: java.lang.Integer", e.getMessage());
        writer.write("paimon", 0);
        assertEquals(1, writer.finish().size());
        assertThrows(IllegalStateException.class, () -> writer.write("again", 1));
    }

    @Test
    void testNulCharacterIsIndexedAsAControlCharacterNotTruncated() {
        // The JNI binding passes the whole string; the text after a NUL must stay searchable.
        assertArrayEquals(
                "a\u0001b".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                FtIndexEngine.documentBytes("a\0b"));
        NativeFullTextGlobalIndexWriter writer =
                new NativeFullTextGlobalIndexWriter(TestArchives.fileWriter(fileIO, dir));
        writer.write("apple\0banana", 0);
        assertEquals(1, writer.finish().size());
        writer.close();
    }

    @Test
    void testReadFailureOnEngineThreadsBecomesTheCause() {
        IOException failure = new IOException("disk gone");
        RuntimeException e =
                assertThrows(
                        RuntimeException.class,
                        () ->
                                new FtIndexEngine.Reader(
                                        (pos, buf, off, len) -> {
                                            throw failure;
                                        }));
        assertInstanceOf(IOException.class, e.getCause());
        assertEquals("disk gone", e.getCause().getMessage());
    }

    @Test
    void testOutputFailureBecomesTheCauseAndLeavesTheWriterFinished() {
        IOException failure = new IOException("no space");
        GlobalIndexFileWriter failing =
                new GlobalIndexFileWriter() {
                    @Override
                    public String newFileName(String prefix) {
                        return prefix + "-x";
                    }

                    @Override
                    public PositionOutputStream newOutputStream(String fileName) {
                        return new PositionOutputStream() {
                            @Override
                            public long getPos() {
                                return 0;
                            }

                            @Override
                            public void write(int b) throws IOException {
                                throw failure;
                            }

                            @Override
                            public void write(byte[] b) throws IOException {
                                throw failure;
                            }

                            @Override
                            public void write(byte[] b, int off, int len) throws IOException {
                                throw failure;
                            }

                            @Override
                            public void flush() {}

                            @Override
                            public void close() {}
                        };
                    }
                };
        NativeFullTextGlobalIndexWriter writer = new NativeFullTextGlobalIndexWriter(failing);
        writer.write("paimon", 0);
        RuntimeException e = assertThrows(RuntimeException.class, writer::finish);
        Throwable cause = e;
        while (cause != null && cause != failure) {
            cause = cause.getCause();
        }
        assertTrue(cause == failure, "the output failure is in the cause chain: " + e);
        assertThrows(IllegalStateException.class, () -> writer.write("again", 1));
    }

    @Test
    void testUtf8TextsCrossIntact() throws IOException {
        String path = build("Zürich café", null, "𝔘nicode 😀 paimon", "中文全文检索 paimon");
        try (FtIndexEngine.Reader reader = open(path)) {
            assertArrayEquals(new long[] {0}, reader.search(match("zurich"), 10).rowIds());
            long[] ids = reader.search(match("paimon"), 10).rowIds();
            Arrays.sort(ids);
            assertArrayEquals(new long[] {2, 3}, ids);
        }
    }

    @Test
    void testConcurrentSearchesAgree() throws Exception {
        String[] texts = new String[400];
        for (int i = 0; i < texts.length; i++) {
            texts[i] = "row " + i + (i % 3 == 0 ? " paimon" : " lake") + (i % 7 == 0 ? " fox" : "");
        }
        String path = build(texts);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try (FtIndexEngine.Reader reader = open(path)) {
            FtIndexEngine.Hits want = reader.search(match("paimon fox"), 50);
            List<Future<FtIndexEngine.Hits>> futures = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                futures.add(pool.submit(() -> reader.search(match("paimon fox"), 50)));
            }
            for (Future<FtIndexEngine.Hits> f : futures) {
                FtIndexEngine.Hits got = f.get();
                assertArrayEquals(want.rowIds(), got.rowIds());
                assertArrayEquals(want.scores(), got.scores());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void testMoreHitsThanTheFirstResultBufferHolds() throws IOException {
        String[] texts = new String[3000];
        for (int i = 0; i < texts.length; i++) {
            texts[i] = "paimon row " + i;
        }
        try (FtIndexEngine.Reader reader = open(build(texts))) {
            FtIndexEngine.Hits hits = reader.search(match("paimon"), Integer.MAX_VALUE);
            assertEquals(3000, hits.size());
            long[] ids = hits.rowIds().clone();
            Arrays.sort(ids);
            for (int i = 0; i < ids.length; i++) {
                assertEquals(i, ids[i]);
            }
            assertEquals(2999, reader.search(match("paimon"), 2999).size());
        }
    }

    @Test
    void testEmptyIncludeFilterReturnsNothingWithoutSearching() throws IOException {
        String path = build("paimon");
        try (NativeFullTextGlobalIndexReader reader =
                new NativeFullTextGlobalIndexReader(
                        TestArchives.fileReader(fileIO),
                        TestArchives.ioMetas(
                                fileIO,
                                Collections.singletonList(
                                        new ResultEntry(new Path(path).getName(), 1, null)),
                                dir),
                        TestArchives.direct())) {
            FullTextSearch search =
                    new FullTextSearch("text", "{not json", 5)
                            .withIncludeRowIds(new org.apache.paimon.utils.RoaringNavigableMap64());
            assertTrue(reader.visitFullTextSearch(search).join().get().results().isEmpty());
        }
    }
}
