package io.github.paimonpkft.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.fs.Path;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.Pair;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Table commands: create-table, write, compact, read. Tables are addressed by path. */
final class TableCommands {

    private TableCommands() {}

    static void register(Map<String, Main.Command> commands) {
        commands.put("create-table", TableCommands::createTable);
        commands.put("write", TableCommands::write);
        commands.put("compact", TableCommands::compact);
        commands.put("read", TableCommands::read);
        commands.put("alter-table", TableCommands::alterTable);
    }

    /** Opens the table at args.path. */
    static FileStoreTable open(JsonNode args) {
        String path = args.path("path").asText("");
        if (path.isEmpty()) {
            throw new IllegalArgumentException("args.path (the table directory) is required");
        }
        return FileStoreTableFactory.create(StorageCommands.fileIO(path), new Path(path));
    }

    /**
     * args: warehouse, database, table, fields [{name, type}], primaryKeys, partitionKeys,
     * options. Result: {path}.
     */
    private static JsonNode createTable(JsonNode args) throws Exception {
        Options catalogOptions = new Options();
        catalogOptions.set("warehouse", args.path("warehouse").asText());
        try (Catalog catalog = CatalogFactory.createCatalog(StorageCommands.catalogContext(catalogOptions))) {
            String database = args.path("database").asText("default");
            catalog.createDatabase(database, true);
            Schema.Builder schema = Schema.newBuilder();
            for (JsonNode f : args.path("fields")) {
                schema.column(
                        f.path("name").asText(),
                        DataTypeJsonParser.parseAtomicTypeSQLString(f.path("type").asText()));
            }
            schema.primaryKey(strings(args.path("primaryKeys")));
            schema.partitionKeys(strings(args.path("partitionKeys")));
            args.path("options").fields().forEachRemaining(e -> schema.option(e.getKey(), e.getValue().asText()));
            Identifier id = Identifier.create(database, args.path("table").asText());
            catalog.createTable(id, schema.build(), false);
            FileStoreTable table = (FileStoreTable) catalog.getTable(id);
            return Main.JSON.createObjectNode().put("path", table.location().toString());
        }
    }

    /**
     * args: path, setOptions {key: value}, removeOptions [key], renameColumns {old: new},
     * addColumns [{name, type, first?, after?, before?}] (a new nullable column, last unless
     * placed), moveColumns [{name, first?, after?, before?, last?}]. The changes apply in that
     * order, each list in its order, as one new schema committed with Paimon's SchemaManager
     * (the next snapshot uses it). Result: {schemaId}.
     */
    private static JsonNode alterTable(JsonNode args) throws Exception {
        FileStoreTable table = open(args);
        List<SchemaChange> changes = new ArrayList<>();
        args.path("setOptions").fields().forEachRemaining(e -> changes.add(SchemaChange.setOption(e.getKey(), e.getValue().asText())));
        args.path("removeOptions").forEach(k -> changes.add(SchemaChange.removeOption(k.asText())));
        args.path("renameColumns").fields().forEachRemaining(e -> changes.add(SchemaChange.renameColumn(e.getKey(), e.getValue().asText())));
        for (JsonNode c : args.path("addColumns")) {
            String name = c.path("name").asText();
            changes.add(SchemaChange.addColumn(
                    name, DataTypeJsonParser.parseAtomicTypeSQLString(c.path("type").asText()), null, move(name, c, false)));
        }
        for (JsonNode c : args.path("moveColumns")) {
            String name = c.path("name").asText();
            SchemaChange.Move move = move(name, c, true);
            if (move == null) {
                throw new IllegalArgumentException("moveColumns: " + name + " has no first, after, before or last");
            }
            changes.add(SchemaChange.updateColumnPosition(move));
        }
        TableSchema schema = table.schemaManager().commitChanges(changes);
        return Main.JSON.createObjectNode().put("schemaId", schema.id());
    }

    /** The position c asks for column name (first, after, before, or last if allowed); null if none. */
    private static SchemaChange.Move move(String name, JsonNode c, boolean lastAllowed) {
        if (c.path("first").asBoolean(false)) {
            return SchemaChange.Move.first(name);
        }
        if (c.hasNonNull("after")) {
            return SchemaChange.Move.after(name, c.path("after").asText());
        }
        if (c.hasNonNull("before")) {
            return SchemaChange.Move.before(name, c.path("before").asText());
        }
        if (lastAllowed && c.path("last").asBoolean(false)) {
            return SchemaChange.Move.last(name);
        }
        return null;
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    /**
     * args: path, rows (JSON objects by field name; "_rowKind" "+I" / "-D" / "+U" / "-U"),
     * compact ("full" compacts every bucket the table has before committing), compactBucket
     * (a bucket of an unpartitioned table to compact fully before committing), readyFile and
     * awaitFile (when set, the writer, restored by its writes, creates readyFile, then waits
     * until awaitFile exists before preparing its commit: a harness lets another writer commit
     * in between), dynamicOptions (table options for this writer only, as a job's dynamic
     * options). One commit.
     */
    private static JsonNode write(JsonNode args) throws Exception {
        FileStoreTable table = withDynamicOptions(open(args), args);
        RowType rowType = table.rowType();
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        java.nio.file.Path ioDir = Files.createTempDirectory("pkft-runner-io");
        try (BatchTableWrite write = builder.newWrite(); BatchTableCommit commit = builder.newCommit()) {
            write.withIOManager(IOManager.create(ioDir.toString()));
            int rows = 0;
            for (JsonNode row : args.path("rows")) {
                write.write(toRow(rowType, row));
                rows++;
            }
            if ("full".equals(args.path("compact").asText(""))) {
                for (Pair<BinaryRow, Integer> bucket : buckets(table, write)) {
                    write.compact(bucket.getLeft(), bucket.getRight(), true);
                }
            }
            if (args.has("compactBucket")) {
                write.compact(BinaryRow.EMPTY_ROW, args.path("compactBucket").asInt(), true);
            }
            String ready = args.path("readyFile").asText("");
            if (!ready.isEmpty()) {
                Files.createFile(java.nio.file.Paths.get(ready));
            }
            awaitFile(args.path("awaitFile").asText(""));
            commit.commit(write.prepareCommit());
            return Main.JSON.createObjectNode().put("rows", rows);
        } finally {
            deleteRecursively(ioDir.toFile());
        }
    }

    /** Waits (up to two minutes) until the file at path exists; an empty path returns at once. */
    private static void awaitFile(String path) throws Exception {
        if (path.isEmpty()) {
            return;
        }
        long deadline = System.currentTimeMillis() + 120_000;
        while (!new java.io.File(path).exists()) {
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("awaitFile: " + path + " did not appear within two minutes");
            }
            Thread.sleep(20);
        }
    }

    /**
     * args.dynamicOptions (when set): table options for this job only, as a job's dynamic options;
     * a JSON null removes the option, as FileStoreTable#copy does with a null value.
     */
    static FileStoreTable withDynamicOptions(FileStoreTable table, JsonNode args) {
        if (!args.has("dynamicOptions")) {
            return table;
        }
        Map<String, String> dynamic = new java.util.HashMap<>();
        args.path("dynamicOptions")
                .fields()
                .forEachRemaining(e -> dynamic.put(e.getKey(), e.getValue().isNull() ? null : e.getValue().asText()));
        return table.copy(dynamic);
    }

    /**
     * Full compaction of every bucket, then one commit. args: path, dynamicOptions (see
     * withDynamicOptions; a compaction without pk-full-text.index.columns maintains no archive,
     * as a compactor without the index does). Like Paimon's compact action (CompactAction), a
     * dedicated compaction job: write-only is turned off for it.
     */
    private static JsonNode compact(JsonNode args) throws Exception {
        FileStoreTable table = withDynamicOptions(compactionJob(open(args)), args);
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        java.nio.file.Path ioDir = Files.createTempDirectory("pkft-runner-io");
        try (BatchTableWrite write = builder.newWrite(); BatchTableCommit commit = builder.newCommit()) {
            write.withIOManager(IOManager.create(ioDir.toString()));
            int buckets = 0;
            for (Pair<BinaryRow, Integer> bucket : buckets(table, write)) {
                write.compact(bucket.getLeft(), bucket.getRight(), true);
                buckets++;
            }
            commit.commit(write.prepareCommit());
            return Main.JSON.createObjectNode().put("buckets", buckets);
        } finally {
            deleteRecursively(ioDir.toFile());
        }
    }

    /** The table as a dedicated compaction job opens it: write-only off, as CompactAction sets it. */
    static FileStoreTable compactionJob(FileStoreTable table) {
        return table.copy(java.util.Collections.singletonMap("write-only", "false"));
    }

    /** The (partition, bucket) pairs with live files in the latest snapshot. */
    static Set<Pair<BinaryRow, Integer>> buckets(FileStoreTable table, BatchTableWrite write) {
        Set<Pair<BinaryRow, Integer>> out = new LinkedHashSet<>();
        if (table.snapshotManager().latestSnapshot() == null) {
            return out;
        }
        for (ManifestEntry e : table.store().newScan().plan().files()) {
            out.add(Pair.of(e.partition(), e.bucket()));
        }
        return out;
    }

    /**
     * All visible rows, as JSON objects, sorted by primary key (or all fields). args: path,
     * snapshotId (optional: read that snapshot, through the scan.snapshot-id time travel).
     */
    private static JsonNode read(JsonNode args) throws Exception {
        FileStoreTable table = open(args);
        if (args.has("snapshotId")) {
            // Time travel (scan.snapshot-id): an expired snapshot fails as Paimon fails it.
            table = table.copy(java.util.Collections.singletonMap("scan.snapshot-id", args.get("snapshotId").asText()));
        }
        RowType rowType = table.rowType();
        List<ObjectNode> rows = new ArrayList<>();
        if (args.has("snapshotId") || table.snapshotManager().latestSnapshot() != null) {
            ReadBuilder rb = table.newReadBuilder();
            try (RecordReader<InternalRow> reader = rb.newRead().createReader(rb.newScan().plan())) {
                Iterator<InternalRow> it = reader.toCloseableIterator();
                while (it.hasNext()) {
                    rows.add(Values.toJson(rowType, it.next()));
                }
            }
        }
        List<String> keys = table.primaryKeys().isEmpty() ? rowType.getFieldNames() : table.primaryKeys();
        rows.sort(rowComparator(keys));
        ArrayNode out = Main.JSON.createArrayNode();
        rows.forEach(out::add);
        return Main.JSON.createObjectNode().set("rows", out);
    }

    static Comparator<ObjectNode> rowComparator(List<String> keys) {
        return (a, b) -> {
            for (String k : keys) {
                int c = compareNodes(a.get(k), b.get(k));
                if (c != 0) {
                    return c;
                }
            }
            return 0;
        };
    }

    private static int compareNodes(JsonNode a, JsonNode b) {
        if (a == null || a.isNull()) {
            return b == null || b.isNull() ? 0 : -1;
        }
        if (b == null || b.isNull()) {
            return 1;
        }
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue());
        }
        return a.asText().compareTo(b.asText());
    }

    /** Converts a JSON object to a row of rowType. */
    static InternalRow toRow(RowType rowType, JsonNode json) {
        GenericRow row = new GenericRow(rowType.getFieldCount());
        String kind = json.path("_rowKind").asText("+I");
        row.setRowKind(RowKind.fromShortString(kind));
        List<DataField> fields = rowType.getFields();
        for (int i = 0; i < fields.size(); i++) {
            JsonNode v = json.get(fields.get(i).name());
            row.setField(i, v == null || v.isNull() ? null : fromJson(fields.get(i).type(), v));
        }
        return row;
    }

    static Object fromJson(DataType type, JsonNode v) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return v.asBoolean();
            case TINYINT:
                return (byte) v.asInt();
            case SMALLINT:
                return (short) v.asInt();
            case INTEGER:
                return v.asInt();
            case BIGINT:
                return v.asLong();
            case FLOAT:
                return (float) v.asDouble();
            case DOUBLE:
                return v.asDouble();
            case CHAR:
            case VARCHAR:
                return BinaryString.fromString(v.asText());
            case BINARY:
            case VARBINARY:
                return Base64.getDecoder().decode(v.asText());
            case DATE:
                return (int) LocalDate.parse(v.asText()).toEpochDay();
            case DECIMAL:
                DecimalType d = (DecimalType) type;
                return Decimal.fromBigDecimal(new BigDecimal(v.asText()), d.getPrecision(), d.getScale());
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return Timestamp.fromLocalDateTime(LocalDateTime.parse(v.asText()));
            default:
                throw new IllegalArgumentException("unsupported type in write: " + type);
        }
    }

    static void deleteRecursively(java.io.File f) {
        java.io.File[] children = f.listFiles();
        if (children != null) {
            for (java.io.File c : children) {
                deleteRecursively(c);
            }
        }
        f.delete();
    }
}
