package io.github.paimonpkft.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.FixedBucketRowKeyExtractor;

import java.util.Map;

/** The bucket Paimon's writer assigns to rows of a fixed-bucket table. */
final class BucketCommands {

    private BucketCommands() {}

    static void register(Map<String, Main.Command> commands) {
        commands.put("bucket", BucketCommands::bucket);
    }

    /**
     * args: path (a fixed-bucket table), rows (as the write command takes them). Result:
     * {buckets: [...]}, the bucket of each row by Paimon's own FixedBucketRowKeyExtractor over the
     * table's latest schema.
     */
    private static JsonNode bucket(JsonNode args) {
        FileStoreTable table = TableCommands.open(args);
        FixedBucketRowKeyExtractor extractor = new FixedBucketRowKeyExtractor(table.schema());
        ArrayNode out = Main.JSON.createArrayNode();
        for (JsonNode row : args.path("rows")) {
            extractor.setRecord(TableCommands.toRow(table.rowType(), row));
            out.add(extractor.bucket());
        }
        return Main.JSON.createObjectNode().set("buckets", out);
    }
}
