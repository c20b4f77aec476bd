package io.github.paimonpkft.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.FixedBucketRowKeyExtractor;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.RowType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The bucket Paimon's writer assigns to rows of a fixed-bucket table, and reads filtered by a
 * predicate (which Paimon uses to prune files by their statistics).
 */
final class BucketCommands {

    private BucketCommands() {}

    static void register(Map<String, Main.Command> commands) {
        commands.put("bucket", BucketCommands::bucket);
        commands.put("filtered-read", BucketCommands::filteredRead);
    }

    /**
     * args: path, predicates [{field, op (=, !=, <, <=, >, >=, is-null), value}], ANDed. Reads the
     * latest snapshot with the predicate pushed down (files and row groups are pruned by their
     * statistics), then keeps the rows the predicate accepts. Result: {rows, splits}: the rows
     * sorted by primary key, and the number of splits the pruned scan planned.
     */
    private static JsonNode filteredRead(JsonNode args) throws Exception {
        FileStoreTable table = TableCommands.open(args);
        RowType rowType = table.rowType();
        PredicateBuilder pb = new PredicateBuilder(rowType);
        List<Predicate> preds = new ArrayList<>();
        for (JsonNode p : args.path("predicates")) {
            String field = p.path("field").asText();
            int idx = rowType.getFieldIndex(field);
            if (idx < 0) {
                throw new IllegalArgumentException("no field " + field);
            }
            ObjectNode one = Main.JSON.createObjectNode();
            one.set(field, p.get("value"));
            Object literal = ((GenericRow) TableCommands.toRow(rowType, one)).getField(idx);
            switch (p.path("op").asText()) {
                case "=":
                    preds.add(pb.equal(idx, literal));
                    break;
                case "!=":
                    preds.add(pb.notEqual(idx, literal));
                    break;
                case "<":
                    preds.add(pb.lessThan(idx, literal));
                    break;
                case "<=":
                    preds.add(pb.lessOrEqual(idx, literal));
                    break;
                case ">":
                    preds.add(pb.greaterThan(idx, literal));
                    break;
                case ">=":
                    preds.add(pb.greaterOrEqual(idx, literal));
                    break;
                case "is-null":
                    preds.add(pb.isNull(idx));
                    break;
                default:
                    throw new IllegalArgumentException("unknown op " + p.path("op").asText());
            }
        }
        Predicate predicate = PredicateBuilder.and(preds);
        List<ObjectNode> rows = new ArrayList<>();
        int splits = 0;
        if (table.snapshotManager().latestSnapshot() != null) {
            ReadBuilder rb = table.newReadBuilder().withFilter(predicate);
            org.apache.paimon.table.source.TableScan.Plan plan = rb.newScan().plan();
            splits = plan.splits().size();
            try (RecordReader<InternalRow> reader = rb.newRead().createReader(plan)) {
                Iterator<InternalRow> it = reader.toCloseableIterator();
                while (it.hasNext()) {
                    InternalRow row = it.next();
                    if (predicate.test(row)) {
                        rows.add(Values.toJson(rowType, row));
                    }
                }
            }
        }
        List<String> keys = table.primaryKeys().isEmpty() ? rowType.getFieldNames() : table.primaryKeys();
        rows.sort(TableCommands.rowComparator(keys));
        ArrayNode out = Main.JSON.createArrayNode();
        rows.forEach(out::add);
        ObjectNode result = Main.JSON.createObjectNode();
        result.set("rows", out);
        return result.put("splits", splits);
    }

    /**
     * args: path (a fixed-bucket table), rows (as the write command takes them), function
     * (optional: a bucket-function.type overriding the table's). Result: {buckets: [...]}, the
     * bucket of each row by Paimon's own FixedBucketRowKeyExtractor over the table's latest
     * schema; an error when Paimon refuses the function for the bucket-key type.
     */
    private static JsonNode bucket(JsonNode args) {
        FileStoreTable table = TableCommands.open(args);
        TableSchema schema = table.schema();
        if (args.hasNonNull("function")) {
            Map<String, String> options = new HashMap<>(schema.options());
            options.put(CoreOptions.BUCKET_FUNCTION_TYPE.key(), args.get("function").asText());
            schema = schema.copy(options);
        }
        FixedBucketRowKeyExtractor extractor = new FixedBucketRowKeyExtractor(schema);
        ArrayNode out = Main.JSON.createArrayNode();
        for (JsonNode row : args.path("rows")) {
            extractor.setRecord(TableCommands.toRow(table.rowType(), row));
            out.add(extractor.bucket());
        }
        return Main.JSON.createObjectNode().set("buckets", out);
    }
}
