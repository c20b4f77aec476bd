package io.github.paimonpkft.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.KeyValueFileStore;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.deletionvectors.BucketedDvMaintainer;
import org.apache.paimon.deletionvectors.DeletionVector;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.index.IndexFileHandler;
import org.apache.paimon.index.pk.BucketedPrimaryKeyIndexMaintainer;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.operation.FileSystemWriteRestore;
import org.apache.paimon.operation.RestoreFiles;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.utils.Pair;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * maintain: index-only maintenance of a primary-key table, on Paimon's own maintainer. For every
 * (partition, bucket) of the latest snapshot it restores the bucket as a writer does
 * ({@code FileSystemWriteRestore#restoreFiles}: data files, deletion vectors, source index
 * payloads), creates the bucket's {@code BucketedPrimaryKeyIndexMaintainer} through the factory
 * {@code KeyValueFileStore#newWrite} uses, and calls its {@code prepareCommit} with empty data
 * and compaction increments and {@code waitCompaction} (a batch commit waits): what a writer's
 * {@code prepareCommit} does for a bucket no row reached and no compaction changed. The index
 * changes it returns (archives built for complete levels lacking a current one, archives
 * retired) are committed alone, one commit for the table; no change commits nothing.
 *
 * <p>Paimon 2.0.0 has no job that maintains without writing or compacting; this command runs its
 * maintainer the way its writer does, without a writer around it.
 */
final class MaintainCommands {

    private MaintainCommands() {}

    static void register(Map<String, Main.Command> commands) {
        commands.put("maintain", MaintainCommands::maintain);
    }

    /**
     * args: path, dynamicOptions (table options for this job, as for write). Result:
     * {snapshotBefore, snapshotAfter} (0 when the table has none; equal when nothing changed).
     */
    private static JsonNode maintain(JsonNode args) throws Exception {
        FileStoreTable table = TableCommands.withDynamicOptions(TableCommands.open(args), args);
        ObjectNode out = Main.JSON.createObjectNode();
        Snapshot before = table.snapshotManager().latestSnapshot();
        out.put("snapshotBefore", before == null ? 0L : before.id());
        if (before == null) {
            return out.put("snapshotAfter", 0L);
        }
        if (!(table.store() instanceof KeyValueFileStore)) {
            throw new IllegalArgumentException("maintain: " + table.name() + " is not a primary-key table");
        }
        KeyValueFileStore store = (KeyValueFileStore) table.store();
        CoreOptions options = new CoreOptions(table.schema().options());
        IndexFileHandler handler = store.newIndexFileHandler();
        BucketedPrimaryKeyIndexMaintainer.Factory factory =
                BucketedPrimaryKeyIndexMaintainer.Factory.create(
                        handler, store.newReaderFactoryBuilder(), table.schema());
        BucketedDvMaintainer.Factory dvFactory =
                options.deletionVectorsEnabled() ? BucketedDvMaintainer.factory(handler) : null;
        FileSystemWriteRestore restore =
                new FileSystemWriteRestore(
                        options, table.snapshotManager(), store.newScan(), handler, before.id());
        List<CommitMessage> messages = new ArrayList<>();
        ExecutorService executor = Executors.newSingleThreadExecutor();
        java.nio.file.Path ioDir = Files.createTempDirectory("pkft-runner-io");
        List<BucketedPrimaryKeyIndexMaintainer> maintainers = new ArrayList<>();
        try (IOManager io = IOManager.create(ioDir.toString())) {
            for (Pair<BinaryRow, Integer> pb : buckets(table)) {
                RestoreFiles restored = restore.restoreFiles(pb.getLeft(), pb.getRight(), false, dvFactory != null, true);
                BucketedDvMaintainer dv =
                        dvFactory == null
                                ? null
                                : dvFactory.create(pb.getLeft(), pb.getRight(), restored.deleteVectorsIndex());
                BucketedPrimaryKeyIndexMaintainer maintainer =
                        factory.create(
                                pb.getLeft(),
                                pb.getRight(),
                                restored.dataFiles(),
                                restored.sourceIndexPayloads(),
                                executor,
                                io,
                                DeletionVector.factory(dv));
                maintainers.add(maintainer);
                DataIncrement append =
                        new DataIncrement(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
                CompactIncrement compact =
                        new CompactIncrement(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
                maintainer.prepareCommit(append, compact, true);
                if (!append.isEmpty() || !compact.isEmpty()) {
                    messages.add(new CommitMessageImpl(pb.getLeft(), pb.getRight(), restored.totalBuckets(), append, compact));
                }
            }
            if (!messages.isEmpty()) {
                try (BatchTableCommit commit = table.newBatchWriteBuilder().newCommit()) {
                    commit.commit(messages);
                }
            }
        } finally {
            maintainers.forEach(BucketedPrimaryKeyIndexMaintainer::close);
            executor.shutdownNow();
            TableCommands.deleteRecursively(ioDir.toFile());
        }
        Snapshot after = table.snapshotManager().latestSnapshot();
        return out.put("snapshotAfter", after == null ? 0L : after.id());
    }

    /** The (partition, bucket) pairs with live files in the latest snapshot. */
    private static Set<Pair<BinaryRow, Integer>> buckets(FileStoreTable table) {
        Set<Pair<BinaryRow, Integer>> out = new LinkedHashSet<>();
        for (ManifestEntry e : table.store().newScan().plan().files()) {
            out.add(Pair.of(e.partition(), e.bucket()));
        }
        return out;
    }
}
