package io.github.paimonpkft.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.globalindex.IndexedSplit;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.TableScan;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.Range;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * predicate-read: Paimon's own batch read of a table with a filter, as a user makes one: {@code
 * newReadBuilder().withFilter(p)}, the scan's plan (for a primary-key table with pk-btree or
 * pk-bitmap columns Paimon's PrimaryKeyBatchScan narrows files with the current sorted payloads
 * and returns IndexedSplits), then the read with {@code executeFilter()} so that the rows are
 * exactly those the filter accepts.
 *
 * <p>The predicate travels as JSON: {"op": "and"|"or", "children": [...]}, or a leaf {"op",
 * "field", "literals"} with op isNull, isNotNull, equal, notEqual, lessThan, lessOrEqual,
 * greaterThan, greaterOrEqual, in, notIn and literals in the write command's value forms, built
 * with Paimon's PredicateBuilder.
 */
final class PredicateReadCommands {

    private PredicateReadCommands() {}

    static void register(Map<String, Main.Command> commands) {
        commands.put("predicate-read", PredicateReadCommands::read);
    }

    /**
     * args: path, predicate. Result: {rows (sorted by primary key), splits [{bucket, file,
     * level, rowCount, how: "narrowed" | "whole", ranges [[from, to]]}]} — a file of no split was
     * pruned by statistics or had no row selected by the index.
     */
    private static JsonNode read(JsonNode args) throws Exception {
        FileStoreTable table = TableCommands.open(args);
        RowType rowType = table.rowType();
        Predicate predicate = predicate(new PredicateBuilder(rowType), rowType, args.path("predicate"));
        ArrayNode rows = Main.JSON.createArrayNode();
        ArrayNode splits = Main.JSON.createArrayNode();
        ObjectNode out = Main.JSON.createObjectNode();
        out.set("rows", rows);
        out.set("splits", splits);
        out.put("predicate", predicate.toString());
        if (table.snapshotManager().latestSnapshot() == null) {
            return out;
        }
        ReadBuilder rb = table.newReadBuilder().withFilter(predicate);
        TableScan.Plan plan = rb.newScan().plan();
        for (Split split : plan.splits()) {
            if (split instanceof IndexedSplit) {
                IndexedSplit indexed = (IndexedSplit) split;
                DataSplit data = indexed.dataSplit();
                ObjectNode s = file(data, data.dataFiles().get(0), "narrowed");
                ArrayNode ranges = s.putArray("ranges");
                for (Range r : indexed.rowRanges()) {
                    ranges.addArray().add(r.from).add(r.to);
                }
                splits.add(s);
            } else if (split instanceof DataSplit) {
                DataSplit data = (DataSplit) split;
                for (DataFileMeta f : data.dataFiles()) {
                    splits.add(file(data, f, "whole"));
                }
            } else {
                throw new IllegalStateException("unexpected split " + split.getClass().getName());
            }
        }
        List<ObjectNode> read = new ArrayList<>();
        try (RecordReader<InternalRow> reader = rb.newRead().executeFilter().createReader(plan)) {
            Iterator<InternalRow> it = reader.toCloseableIterator();
            while (it.hasNext()) {
                read.add(Values.toJson(rowType, it.next()));
            }
        }
        read.sort(TableCommands.rowComparator(table.primaryKeys()));
        read.forEach(rows::add);
        return out;
    }

    private static ObjectNode file(DataSplit split, DataFileMeta f, String how) {
        ObjectNode s = Main.JSON.createObjectNode();
        s.put("bucket", split.bucket()).put("file", f.fileName()).put("level", f.level());
        s.put("rowCount", f.rowCount()).put("how", how);
        return s;
    }

    private static Predicate predicate(PredicateBuilder b, RowType rowType, JsonNode json) {
        String op = json.path("op").asText("");
        if (op.equals("and") || op.equals("or")) {
            List<Predicate> children = new ArrayList<>();
            json.path("children").forEach(c -> children.add(predicate(b, rowType, c)));
            return op.equals("and") ? PredicateBuilder.and(children) : PredicateBuilder.or(children);
        }
        String field = json.path("field").asText("");
        int idx = b.indexOf(field);
        if (idx < 0) {
            throw new IllegalArgumentException("predicate field " + field + " is not a column");
        }
        DataType type = rowType.getTypeAt(idx);
        List<Object> literals = new ArrayList<>();
        json.path("literals").forEach(l -> literals.add(TableCommands.fromJson(type, l)));
        switch (op) {
            case "isNull":
                return b.isNull(idx);
            case "isNotNull":
                return b.isNotNull(idx);
            case "equal":
                return b.equal(idx, literals.get(0));
            case "notEqual":
                return b.notEqual(idx, literals.get(0));
            case "lessThan":
                return b.lessThan(idx, literals.get(0));
            case "lessOrEqual":
                return b.lessOrEqual(idx, literals.get(0));
            case "greaterThan":
                return b.greaterThan(idx, literals.get(0));
            case "greaterOrEqual":
                return b.greaterOrEqual(idx, literals.get(0));
            case "in":
                return b.in(idx, literals);
            case "notIn":
                return b.notIn(idx, literals);
            default:
                throw new IllegalArgumentException("unknown predicate op " + op);
        }
    }
}
