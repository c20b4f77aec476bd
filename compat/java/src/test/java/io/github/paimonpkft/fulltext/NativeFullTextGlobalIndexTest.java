package io.github.paimonpkft.fulltext;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.globalindex.GlobalIndexIOMeta;
import org.apache.paimon.globalindex.ResultEntry;
import org.apache.paimon.globalindex.ScoredGlobalIndexResult;
import org.apache.paimon.options.Options;
import org.apache.paimon.predicate.FullTextSearch;
import org.apache.paimon.utils.RoaringNavigableMap64;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.github.paimonpkft.fulltext.TestArchives.boost;
import static io.github.paimonpkft.fulltext.TestArchives.direct;
import static io.github.paimonpkft.fulltext.TestArchives.fileReader;
import static io.github.paimonpkft.fulltext.TestArchives.fileWriter;
import static io.github.paimonpkft.fulltext.TestArchives.ioMetas;
import static io.github.paimonpkft.fulltext.TestArchives.match;
import static io.github.paimonpkft.fulltext.TestArchives.options;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The behaviours of Paimon's {@code NativeFullTextGlobalIndexTest} (release-2.0.0), one test per
 * method of the same name, on the runner's stand-in writer and reader.
 */
class NativeFullTextGlobalIndexTest {

    @TempDir java.nio.file.Path tempDir;

    private FileIO fileIO;
    private Path dir;

    @BeforeEach
    void setup() {
        fileIO = LocalFileIO.create();
        dir = new Path(tempDir.toString());
    }

    private NativeFullTextGlobalIndexWriter writer() {
        return new NativeFullTextGlobalIndexWriter(fileWriter(fileIO, dir));
    }

    private NativeFullTextGlobalIndexWriter writer(Options options) {
        return new NativeFullTextGlobalIndexWriter(
                fileWriter(fileIO, dir),
                new NativeFullTextIndexOptions(
                        options.removePrefix(NativeFullTextIndexOptions.FULL_TEXT_PREFIX).toMap()));
    }

    private NativeFullTextGlobalIndexReader reader(List<ResultEntry> results) throws IOException {
        List<GlobalIndexIOMeta> metas = ioMetas(fileIO, results, dir);
        return new NativeFullTextGlobalIndexReader(fileReader(fileIO), metas, direct());
    }

    private static ScoredGlobalIndexResult search(
            NativeFullTextGlobalIndexReader reader, FullTextSearch search) {
        Optional<ScoredGlobalIndexResult> result = reader.visitFullTextSearch(search).join();
        assertTrue(result.isPresent());
        return result.get();
    }

    @Test
    void testEndToEnd() throws IOException {
        NativeFullTextGlobalIndexWriter writer = writer();
        writer.write(BinaryString.fromString("Apache Paimon is a streaming data lake platform"), 0);
        writer.write(BinaryString.fromString("Native full-text search runs in Rust"), 1);
        writer.write(BinaryString.fromString("Paimon supports real-time data ingestion"), 2);
        List<ResultEntry> results = writer.finish();
        assertEquals(1, results.size());
        assertEquals(3, results.get(0).rowCount());

        try (NativeFullTextGlobalIndexReader reader = reader(results)) {
            ScoredGlobalIndexResult scored =
                    search(reader, new FullTextSearch("text", match("paimon"), 10));
            RoaringNavigableMap64 rowIds = scored.results();
            assertEquals(2, rowIds.getLongCardinality());
            assertTrue(rowIds.contains(0L));
            assertTrue(rowIds.contains(2L));
            assertTrue(scored.scoreGetter().score(0L) > 0);
            assertTrue(scored.scoreGetter().score(2L) > 0);
        }
    }

    @Test
    void testWriterPersistsTokenizerMeta() {
        Options options = new Options();
        options.set("full-text.tokenizer", "ngram");
        options.set("full-text.ngram.min-gram", "2");
        options.set("full-text.ngram.max-gram", "2");
        NativeFullTextGlobalIndexWriter writer = writer(options);
        writer.write(BinaryString.fromString("Apache Paimon supports Chinese text"), 0);
        List<ResultEntry> results = writer.finish();

        assertEquals(1, results.size());
        Map<String, String> meta = options(results.get(0).meta());
        assertEquals("ngram", meta.get("tokenizer"));
        assertEquals("2", meta.get("ngram.min-gram"));
        assertEquals("2", meta.get("ngram.max-gram"));
    }

    @Test
    void testJiebaTokenizerFindsChineseWord() throws IOException {
        Options options = new Options();
        options.set("full-text.tokenizer", "jieba");
        NativeFullTextGlobalIndexWriter writer = writer(options);
        writer.write(BinaryString.fromString("张华在百货公司当售货员"), 0);
        writer.write(BinaryString.fromString("Apache Paimon supports full text search"), 1);
        List<ResultEntry> results = writer.finish();
        assertEquals("jieba", options(results.get(0).meta()).get("tokenizer"));

        try (NativeFullTextGlobalIndexReader reader = reader(results)) {
            RoaringNavigableMap64 rowIds =
                    search(reader, new FullTextSearch("text", match("售货员"), 10)).results();
            assertEquals(1, rowIds.getLongCardinality());
            assertTrue(rowIds.contains(0L));
        }
    }

    @Test
    void testSearchNoResults() throws IOException {
        NativeFullTextGlobalIndexWriter writer = writer();
        writer.write(BinaryString.fromString("Hello world"), 0);
        writer.write(BinaryString.fromString("Foo bar baz"), 1);
        List<ResultEntry> results = writer.finish();

        try (NativeFullTextGlobalIndexReader reader = reader(results)) {
            RoaringNavigableMap64 rowIds =
                    search(reader, new FullTextSearch("text", match("nonexistent"), 10)).results();
            assertEquals(0, rowIds.getLongCardinality());
        }
    }

    @Test
    void testNullFieldSkipped() throws IOException {
        NativeFullTextGlobalIndexWriter writer = writer();
        writer.write(BinaryString.fromString("Paimon data lake"), 0);
        writer.write(null, 1);
        writer.write(BinaryString.fromString("Paimon streaming"), 2);
        List<ResultEntry> results = writer.finish();
        assertEquals(3, results.get(0).rowCount());

        try (NativeFullTextGlobalIndexReader reader = reader(results)) {
            RoaringNavigableMap64 rowIds =
                    search(reader, new FullTextSearch("text", match("paimon"), 10)).results();
            assertEquals(2, rowIds.getLongCardinality());
            assertTrue(rowIds.contains(0L));
            assertFalse(rowIds.contains(1L));
            assertTrue(rowIds.contains(2L));
        }
    }

    @Test
    void testEmptyIndex() {
        assertTrue(writer().finish().isEmpty());
    }

    @Test
    void testLargeDataset() throws IOException {
        NativeFullTextGlobalIndexWriter writer = writer();
        int docs = 500;
        for (int i = 0; i < docs; i++) {
            String text = "document number " + i + " with some searchable content";
            if (i % 10 == 0) {
                text += " special_keyword";
            }
            writer.write(BinaryString.fromString(text), i);
        }
        List<ResultEntry> results = writer.finish();
        assertEquals(docs, results.get(0).rowCount());

        try (NativeFullTextGlobalIndexReader reader = reader(results)) {
            RoaringNavigableMap64 rowIds =
                    search(reader, new FullTextSearch("text", match("special_keyword"), 1000))
                            .results();
            assertEquals(50, rowIds.getLongCardinality());
            assertTrue(rowIds.contains(0L));
            assertTrue(rowIds.contains(10L));
            assertTrue(rowIds.contains(490L));
            assertFalse(rowIds.contains(1L));
        }
    }

    @Test
    void testLimitRespected() throws IOException {
        NativeFullTextGlobalIndexWriter writer = writer();
        for (int i = 0; i < 20; i++) {
            writer.write(BinaryString.fromString("paimon document " + i), i);
        }
        List<ResultEntry> results = writer.finish();

        try (NativeFullTextGlobalIndexReader reader = reader(results)) {
            RoaringNavigableMap64 rowIds =
                    search(reader, new FullTextSearch("text", match("paimon"), 5)).results();
            assertEquals(5, rowIds.getLongCardinality());
        }
    }

    @Test
    void testIncludeRowIdsSearchesFullShardBeforeTopK() throws IOException {
        NativeFullTextGlobalIndexWriter writer = writer();
        writer.write(BinaryString.fromString("paimon paimon paimon paimon"), 0);
        writer.write(BinaryString.fromString("paimon paimon"), 1);
        writer.write(BinaryString.fromString("paimon"), 2);
        List<ResultEntry> results = writer.finish();

        RoaringNavigableMap64 include = new RoaringNavigableMap64();
        include.add(2L);
        FullTextSearch search =
                new FullTextSearch("text", match("paimon"), 1).withIncludeRowIds(include);
        try (NativeFullTextGlobalIndexReader reader = reader(results)) {
            RoaringNavigableMap64 rowIds = search(reader, search).results();
            assertEquals(1, rowIds.getLongCardinality());
            assertTrue(rowIds.contains(2L));
        }
    }

    @Test
    void testRepeatedReadersReturnConsistentResults() throws IOException {
        NativeFullTextGlobalIndexWriter writer = writer();
        writer.write(BinaryString.fromString("Apache Paimon streaming lake"), 0);
        writer.write(BinaryString.fromString("Native full-text search"), 1);
        List<ResultEntry> results = writer.finish();
        FullTextSearch search = new FullTextSearch("text", match("paimon"), 10);

        try (NativeFullTextGlobalIndexReader reader = reader(results)) {
            assertTrue(search(reader, search).results().contains(0L));
        }
        try (NativeFullTextGlobalIndexReader reader = reader(results)) {
            RoaringNavigableMap64 rowIds = search(reader, search).results();
            assertEquals(1, rowIds.getLongCardinality());
            assertTrue(rowIds.contains(0L));
        }
    }

    @Test
    void testViaIndexer() throws IOException {
        NativeFullTextGlobalIndexer indexer = new NativeFullTextGlobalIndexer();
        NativeFullTextGlobalIndexWriter writer =
                assertInstanceOf(
                        NativeFullTextGlobalIndexWriter.class,
                        indexer.createWriter(fileWriter(fileIO, dir)));
        writer.write(BinaryString.fromString("test via indexer factory"), 0);
        List<ResultEntry> results = writer.finish();
        assertEquals(1, results.size());

        try (NativeFullTextGlobalIndexReader reader =
                assertInstanceOf(
                        NativeFullTextGlobalIndexReader.class,
                        indexer.createReader(
                                fileReader(fileIO), ioMetas(fileIO, results, dir), direct()))) {
            RoaringNavigableMap64 rowIds =
                    search(reader, new FullTextSearch("text", match("indexer"), 10)).results();
            assertEquals(1, rowIds.getLongCardinality());
            assertTrue(rowIds.contains(0L));
        }
    }

    @Test
    void testStructuredBoostQueryDemotesNegativeMatches() throws IOException {
        NativeFullTextGlobalIndexWriter writer = writer();
        writer.write(BinaryString.fromString("paimon lake"), 0);
        writer.write(BinaryString.fromString("paimon vector"), 1);
        List<ResultEntry> results = writer.finish();

        try (NativeFullTextGlobalIndexReader reader = reader(results)) {
            ScoredGlobalIndexResult scored =
                    search(reader, new FullTextSearch("text", boost("paimon", "vector", 0.5f), 10));
            assertTrue(scored.results().contains(0L));
            assertTrue(scored.results().contains(1L));
            assertTrue(scored.scoreGetter().score(0L) > scored.scoreGetter().score(1L));
        }
    }
}
