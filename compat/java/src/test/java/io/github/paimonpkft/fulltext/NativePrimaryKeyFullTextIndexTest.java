package io.github.paimonpkft.fulltext;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.deletionvectors.BitmapDeletionVector;
import org.apache.paimon.deletionvectors.DeletionVector;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.globalindex.GlobalIndexIOMeta;
import org.apache.paimon.globalindex.GlobalIndexSingleColumnWriter;
import org.apache.paimon.globalindex.GlobalIndexer;
import org.apache.paimon.globalindex.ResultEntry;
import org.apache.paimon.index.GlobalIndexMeta;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.index.pk.PrimaryKeyIndexSourceFile;
import org.apache.paimon.index.pk.PrimaryKeyIndexSourceMeta;
import org.apache.paimon.index.pkfulltext.PrimaryKeyFullTextBucketSearch;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.FileSource;
import org.apache.paimon.options.Options;
import org.apache.paimon.stats.SimpleStats;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.PrimaryKeyFullTextSearchSplit;
import org.apache.paimon.table.source.PrimaryKeySearchPosition;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataTypes;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static io.github.paimonpkft.fulltext.TestArchives.boost;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The behaviours of Paimon's {@code NativePrimaryKeyFullTextIndexTest} (release-2.0.0): the
 * stand-in, found by Paimon's core through the {@code full-text} service, builds a file-aligned
 * primary-key archive, and Paimon's own {@code PrimaryKeyFullTextBucketSearch} searches it.
 */
class NativePrimaryKeyFullTextIndexTest {

    private static final DataField TEXT_FIELD = new DataField(7, "content", DataTypes.STRING());

    @TempDir java.nio.file.Path tempDir;

    private FileIO fileIO;
    private Path dir;

    @BeforeEach
    void before() {
        fileIO = LocalFileIO.create();
        dir = new Path(tempDir.toUri());
    }

    @Test
    void testPreservesNullOrdinalFiltersDeletedRowsAndOrdersByNativeScore() throws Exception {
        Options options = new Options();
        IndexFileMeta archive =
                buildArchive(
                        Arrays.asList(
                                BinaryString.fromString("paimon vector"),
                                null,
                                BinaryString.fromString("paimon lake"),
                                BinaryString.fromString("paimon storage")),
                        options);

        assertEquals("full-text", archive.indexType());
        assertEquals(4, archive.rowCount());
        assertEquals(0, archive.globalIndexMeta().rowRangeStart());
        assertEquals(3, archive.globalIndexMeta().rowRangeEnd());
        assertEquals(TEXT_FIELD.id(), archive.globalIndexMeta().indexFieldId());
        PrimaryKeyIndexSourceMeta sourceMeta = PrimaryKeyIndexSourceMeta.fromIndexFile(archive);
        assertEquals("data-1", sourceMeta.sourceFile().fileName());
        assertEquals(4, sourceMeta.sourceFile().rowCount());

        DataFileMeta dataFile = dataFile(4);
        PrimaryKeyFullTextSearchSplit split =
                new PrimaryKeyFullTextSearchSplit(
                        DataSplit.builder()
                                .withSnapshot(1)
                                .withPartition(BinaryRow.EMPTY_ROW)
                                .withBucket(0)
                                .withBucketPath(dir.toString())
                                .withTotalBuckets(1)
                                .withDataFiles(Collections.singletonList(dataFile))
                                .build(),
                        Collections.singletonList(archive),
                        Collections.emptyList());
        BitmapDeletionVector deletionVector = new BitmapDeletionVector();
        deletionVector.delete(2);
        Map<String, DeletionVector> deletionVectors =
                Collections.singletonMap(dataFile.fileName(), deletionVector);
        GlobalIndexer indexer = GlobalIndexer.create("full-text", TEXT_FIELD, options);
        PrimaryKeyFullTextBucketSearch search =
                new PrimaryKeyFullTextBucketSearch(
                        payload ->
                                indexer.createReader(
                                        TestArchives.fileReader(fileIO),
                                        Collections.singletonList(
                                                new GlobalIndexIOMeta(
                                                        new Path(dir, payload.fileName()),
                                                        payload.fileSize(),
                                                        payload.globalIndexMeta().indexMeta())),
                                        TestArchives.direct()));

        List<List<PrimaryKeySearchPosition>> rankings =
                search.searchRankings(
                        split, deletionVectors, "content", boost("paimon", "vector", 0.1F), 2);

        assertEquals(1, rankings.size());
        List<PrimaryKeySearchPosition> ranking = rankings.get(0);
        assertEquals(2, ranking.size());
        assertEquals(3L, ranking.get(0).rowPosition());
        assertEquals("data-1", ranking.get(0).dataFileName());
        assertEquals(0L, ranking.get(1).rowPosition());
        assertEquals("data-1", ranking.get(1).dataFileName());
        assertTrue(ranking.get(0).score() > ranking.get(1).score());
    }

    @Test
    void testPersistsTokenizerOptionsInPkArchiveMetadata() throws Exception {
        Options options = new Options();
        options.set("full-text.tokenizer", "ngram");
        options.set("full-text.ngram.min-gram", "2");
        options.set("full-text.ngram.max-gram", "2");

        IndexFileMeta archive =
                buildArchive(Collections.singletonList(BinaryString.fromString("中文全文检索")), options);

        Map<String, String> meta = TestArchives.options(archive.globalIndexMeta().indexMeta());
        assertEquals("ngram", meta.get("tokenizer"));
        assertEquals("2", meta.get("ngram.min-gram"));
        assertEquals("2", meta.get("ngram.max-gram"));
    }

    private IndexFileMeta buildArchive(List<BinaryString> texts, Options options) throws Exception {
        GlobalIndexer indexer = GlobalIndexer.create("full-text", TEXT_FIELD, options);
        GlobalIndexSingleColumnWriter writer =
                (GlobalIndexSingleColumnWriter) indexer.createWriter(TestArchives.fileWriter(fileIO, dir));
        for (int i = 0; i < texts.size(); i++) {
            writer.write(texts.get(i), i);
        }
        List<ResultEntry> results = writer.finish();
        assertEquals(1, results.size());
        ResultEntry result = results.get(0);
        return new IndexFileMeta(
                "full-text",
                result.fileName(),
                fileIO.getFileSize(new Path(dir, result.fileName())),
                result.rowCount(),
                new GlobalIndexMeta(
                        0,
                        texts.size() - 1,
                        TEXT_FIELD.id(),
                        null,
                        result.meta(),
                        new PrimaryKeyIndexSourceMeta(
                                        1, new PrimaryKeyIndexSourceFile("data-1", texts.size()))
                                .serialize()),
                null);
    }

    private static DataFileMeta dataFile(long rowCount) {
        return DataFileMeta.forAppend(
                "data-1",
                100,
                rowCount,
                SimpleStats.EMPTY_STATS,
                0,
                1,
                1,
                Collections.emptyList(),
                null,
                FileSource.COMPACT,
                null,
                null,
                null,
                null);
    }
}
