package io.github.paimonpkft.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.paimon.fs.Path;
import org.apache.paimon.operation.CleanOrphanFilesResult;
import org.apache.paimon.operation.LocalOrphanFilesClean;
import org.apache.paimon.table.FileStoreTable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Orphan-file removal and the references it must respect. remove-orphan-files runs Paimon's
 * LocalOrphanFilesClean (the local mode of the remove_orphan_files procedure) on a table;
 * create-tag and create-branch make the tags and branches whose files it keeps.
 *
 * <ul>
 *   <li>remove-orphan-files: args path, olderThanMillis (required, epoch milliseconds), dryRun
 *       (default false). Result: {deleted: [paths relative to the table, sorted], deletedBytes,
 *       deletedCount}.
 *   <li>create-tag: args path, tag, snapshotId. Result: {tag}.
 *   <li>create-branch: args path, branch, tag (optional: the branch starts from that tag).
 *       Result: {branch}.
 * </ul>
 */
final class OrphanCommands {

    private OrphanCommands() {}

    static void register(Map<String, Main.Command> commands) {
        commands.put("remove-orphan-files", OrphanCommands::removeOrphanFiles);
        commands.put("create-tag", OrphanCommands::createTag);
        commands.put("create-branch", OrphanCommands::createBranch);
    }

    private static JsonNode removeOrphanFiles(JsonNode args) throws Exception {
        FileStoreTable table = TableCommands.open(args);
        if (!args.hasNonNull("olderThanMillis")) {
            throw new IllegalArgumentException("args.olderThanMillis (epoch milliseconds) is required");
        }
        long olderThan = args.get("olderThanMillis").asLong();
        boolean dryRun = args.path("dryRun").asBoolean(false);
        CleanOrphanFilesResult result = new LocalOrphanFilesClean(table, olderThan, dryRun).clean();
        String root = table.location().toUri().getPath();
        if (!root.endsWith("/")) {
            root = root + "/";
        }
        List<String> deleted = new ArrayList<>();
        List<Path> paths = result.getDeletedFilesPath();
        if (paths != null) {
            for (Path p : paths) {
                String s = p.toUri().getPath();
                deleted.add(s.startsWith(root) ? s.substring(root.length()) : s);
            }
        }
        Collections.sort(deleted);
        ObjectNode out = Main.JSON.createObjectNode();
        ArrayNode arr = out.putArray("deleted");
        deleted.forEach(arr::add);
        out.put("deletedBytes", result.getDeletedFileTotalLenInBytes());
        out.put("deletedCount", result.getDeletedFileCount());
        return out;
    }

    private static JsonNode createTag(JsonNode args) {
        FileStoreTable table = TableCommands.open(args);
        String tag = args.path("tag").asText("");
        if (tag.isEmpty() || !args.hasNonNull("snapshotId")) {
            throw new IllegalArgumentException("args.tag and args.snapshotId are required");
        }
        table.createTag(tag, args.get("snapshotId").asLong());
        return Main.JSON.createObjectNode().put("tag", tag);
    }

    private static JsonNode createBranch(JsonNode args) {
        FileStoreTable table = TableCommands.open(args);
        String branch = args.path("branch").asText("");
        if (branch.isEmpty()) {
            throw new IllegalArgumentException("args.branch is required");
        }
        String tag = args.path("tag").asText("");
        if (tag.isEmpty()) {
            table.createBranch(branch);
        } else {
            table.createBranch(branch, tag);
        }
        return Main.JSON.createObjectNode().put("branch", branch);
    }
}
