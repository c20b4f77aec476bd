package io.github.paimonpkft.runner;

import com.fasterxml.jackson.databind.JsonNode;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.options.ExpireConfig;
import org.apache.paimon.table.ExpireSnapshotsImpl;
import org.apache.paimon.table.FileStoreTable;

import java.time.Duration;
import java.util.Map;

/**
 * Snapshot expiry commands.
 *
 * <ul>
 *   <li>expire-snapshots: args path, retainMax, retainMin, olderThanMillis, maxDeletes (each
 *       optional; an absent bound is the table's option, as Paimon's expire_snapshots procedure
 *       fills them in with ProcedureUtils#fillInSnapshotOptions). olderThanMillis fixes the
 *       clock: the expiry runs as if it were that instant with no time window, so it expires only
 *       snapshots whose successor was committed before it. Runs Paimon's ExpireSnapshotsImpl.
 *       Result: {deleted} (the number of snapshots expired).
 * </ul>
 */
final class ExpireCommands {

    private ExpireCommands() {}

    static void register(Map<String, Main.Command> commands) {
        commands.put("expire-snapshots", ExpireCommands::expireSnapshots);
    }

    private static JsonNode expireSnapshots(JsonNode args) throws Exception {
        FileStoreTable table = TableCommands.open(args);
        CoreOptions options = table.coreOptions();
        ExpireConfig.Builder config =
                ExpireConfig.builder()
                        .snapshotRetainMax(
                                args.has("retainMax")
                                        ? args.get("retainMax").asInt()
                                        : options.snapshotNumRetainMax())
                        .snapshotRetainMin(
                                args.has("retainMin")
                                        ? args.get("retainMin").asInt()
                                        : options.snapshotNumRetainMin())
                        .snapshotMaxDeletes(
                                args.has("maxDeletes")
                                        ? args.get("maxDeletes").asInt()
                                        : options.snapshotExpireLimit())
                        .snapshotTimeRetain(options.snapshotTimeRetain());
        ExpireSnapshotsImpl expire = (ExpireSnapshotsImpl) table.newExpireSnapshots();
        if (args.has("olderThanMillis")) {
            long olderThan = args.get("olderThanMillis").asLong();
            config.snapshotTimeRetain(Duration.ZERO);
            expire.setCurrentTimeMillis(() -> olderThan);
        }
        int deleted = expire.config(config.build()).expire();
        return Main.JSON.createObjectNode().put("deleted", deleted);
    }
}
