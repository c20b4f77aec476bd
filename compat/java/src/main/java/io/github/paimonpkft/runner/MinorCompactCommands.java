package io.github.paimonpkft.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.utils.Pair;

import java.nio.file.Files;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * minor-compact: a batch writer asks every (partition, bucket) of the latest snapshot for a
 * compaction that is not full ({@code write.compact(partition, bucket, false)}, what a batch
 * compact job without full compaction asks), then commits what {@code prepareCommit} returns.
 *
 * <p>When the compaction strategy picks nothing, the writers change no data file; their
 * primary-key index maintainers still run in {@code AbstractFileStoreWrite#prepareCommit} with
 * {@code waitCompaction} (a batch commit waits) and empty increments, so a bucket with a level
 * lacking a current archive builds it and the commit carries only index changes, in the append
 * increment ({@code BucketedFullTextIndexMaintainer#prepareCommit}): an APPEND snapshot of index
 * changes only, the situation Go's maintenance commit reproduces.
 */
final class MinorCompactCommands {

    private MinorCompactCommands() {}

    static void register(Map<String, Main.Command> commands) {
        commands.put("minor-compact", MinorCompactCommands::minorCompact);
    }

    /**
     * args: path. Result: {snapshotBefore, snapshotAfter (0 when the table has none), messages:
     * [{bucket, newFiles, deletedFiles, changelogFiles, newIndexFiles, deletedIndexFiles,
     * compactBefore, compactAfter, compactChangelogFiles, compactNewIndexFiles,
     * compactDeletedIndexFiles}]} where each list is the file names of that part of the bucket's
     * commit message.
     */
    private static JsonNode minorCompact(JsonNode args) throws Exception {
        FileStoreTable table = TableCommands.open(args);
        ObjectNode out = Main.JSON.createObjectNode();
        Snapshot before = table.snapshotManager().latestSnapshot();
        out.put("snapshotBefore", before == null ? 0L : before.id());
        ArrayNode messages = out.putArray("messages");
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        java.nio.file.Path ioDir = Files.createTempDirectory("pkft-runner-io");
        try (BatchTableWrite write = builder.newWrite();
                BatchTableCommit commit = builder.newCommit()) {
            write.withIOManager(IOManager.create(ioDir.toString()));
            for (Pair<BinaryRow, Integer> bucket : buckets(table)) {
                write.compact(bucket.getLeft(), bucket.getRight(), false);
            }
            List<CommitMessage> prepared = write.prepareCommit();
            for (CommitMessage m : prepared) {
                CommitMessageImpl impl = (CommitMessageImpl) m;
                ObjectNode j = messages.addObject();
                j.put("bucket", impl.bucket());
                DataIncrement d = impl.newFilesIncrement();
                CompactIncrement c = impl.compactIncrement();
                names(j.putArray("newFiles"), d.newFiles());
                names(j.putArray("deletedFiles"), d.deletedFiles());
                names(j.putArray("changelogFiles"), d.changelogFiles());
                indexNames(j.putArray("newIndexFiles"), d.newIndexFiles());
                indexNames(j.putArray("deletedIndexFiles"), d.deletedIndexFiles());
                names(j.putArray("compactBefore"), c.compactBefore());
                names(j.putArray("compactAfter"), c.compactAfter());
                names(j.putArray("compactChangelogFiles"), c.changelogFiles());
                indexNames(j.putArray("compactNewIndexFiles"), c.newIndexFiles());
                indexNames(j.putArray("compactDeletedIndexFiles"), c.deletedIndexFiles());
            }
            commit.commit(prepared);
        } finally {
            TableCommands.deleteRecursively(ioDir.toFile());
        }
        Snapshot after = table.snapshotManager().latestSnapshot();
        out.put("snapshotAfter", after == null ? 0L : after.id());
        return out;
    }

    private static void names(ArrayNode out, List<org.apache.paimon.io.DataFileMeta> files) {
        files.forEach(f -> out.add(f.fileName()));
    }

    private static void indexNames(ArrayNode out, List<org.apache.paimon.index.IndexFileMeta> files) {
        files.forEach(f -> out.add(f.indexType() + ":" + f.fileName()));
    }

    /** The (partition, bucket) pairs with live files in the latest snapshot. */
    private static Set<Pair<BinaryRow, Integer>> buckets(FileStoreTable table) {
        Set<Pair<BinaryRow, Integer>> out = new LinkedHashSet<>();
        if (table.snapshotManager().latestSnapshot() == null) {
            return out;
        }
        for (ManifestEntry e : table.store().newScan().plan().files()) {
            out.add(Pair.of(e.partition(), e.bucket()));
        }
        return out;
    }
}
