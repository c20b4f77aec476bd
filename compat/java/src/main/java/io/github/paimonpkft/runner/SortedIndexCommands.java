package io.github.paimonpkft.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.globalindex.GlobalIndexIOMeta;
import org.apache.paimon.globalindex.GlobalIndexReader;
import org.apache.paimon.globalindex.GlobalIndexResult;
import org.apache.paimon.globalindex.GlobalIndexSingleColumnWriter;
import org.apache.paimon.globalindex.GlobalIndexer;
import org.apache.paimon.globalindex.ResultEntry;
import org.apache.paimon.globalindex.io.GlobalIndexFileReader;
import org.apache.paimon.globalindex.io.GlobalIndexFileWriter;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.index.pksorted.RunnerSortedBuild;
import org.apache.paimon.options.Options;
import org.apache.paimon.predicate.FieldRef;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.utils.RoaringNavigableMap64;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * sorted-index-write / sorted-index-read: Paimon's own btree and bitmap global indexers
 * ({@code GlobalIndexer.create("btree"|"bitmap", ...)}) writing one index file from given keys and
 * row ids, and answering leaf predicates on given files as Paimon's readers evaluate them.
 *
 * <p>Keys travel as text per type: integers and dates in decimal, booleans as true/false, FLOAT
 * and DOUBLE as the unsigned decimal of their IEEE bits, decimals in plain notation, timestamps as
 * "millis:nanoOfMilli", strings as themselves; JSON null is a null key.
 */
final class SortedIndexCommands {

    private SortedIndexCommands() {}

    static void register(Map<String, Main.Command> commands) {
        commands.put("sorted-index-write", SortedIndexCommands::write);
        commands.put("sorted-index-read", SortedIndexCommands::read);
        commands.put("sorted-index-build", SortedIndexCommands::build);
        commands.put("sorted-state", SortedIndexCommands::state);
        commands.put("sorted-index-options", SortedIndexCommands::indexOptions);
    }

    private static GlobalIndexer indexer(JsonNode args, DataType type) {
        Options options = new Options();
        args.path("options").fields().forEachRemaining(e -> options.set(e.getKey(), e.getValue().asText()));
        return GlobalIndexer.create(args.path("indexType").asText(), new DataField(0, "k", type), options);
    }

    /**
     * args: indexType, type (SQL type string), options {}, dir, rows [{key, rowId}] in write order.
     * Result: {fileName, rowCount, meta (base64)} or {empty: true} when the writer returned no file.
     */
    private static JsonNode write(JsonNode args) throws Exception {
        DataType type = DataTypeJsonParser.parseAtomicTypeSQLString(args.path("type").asText());
        LocalFileIO fileIO = LocalFileIO.create();
        Path dir = new Path(args.path("dir").asText());
        GlobalIndexFileWriter files =
                new GlobalIndexFileWriter() {
                    @Override
                    public String newFileName(String prefix) {
                        return prefix + "-index-file";
                    }

                    @Override
                    public PositionOutputStream newOutputStream(String fileName) throws java.io.IOException {
                        return fileIO.newOutputStream(new Path(dir, fileName), true);
                    }
                };
        GlobalIndexSingleColumnWriter writer =
                (GlobalIndexSingleColumnWriter) indexer(args, type).createWriter(files);
        for (JsonNode row : args.path("rows")) {
            writer.write(key(type, row.get("key")), row.path("rowId").asLong());
        }
        List<ResultEntry> entries = writer.finish();
        ObjectNode out = Main.JSON.createObjectNode();
        if (entries.isEmpty()) {
            return out.put("empty", true);
        }
        if (entries.size() != 1) {
            throw new IllegalStateException("expected one index file, got " + entries.size());
        }
        ResultEntry e = entries.get(0);
        out.put("fileName", e.fileName()).put("rowCount", e.rowCount());
        out.put("meta", Base64.getEncoder().encodeToString(e.meta()));
        return out;
    }

    /**
     * args: indexType, type, fieldId, options {}, dir, level, sources [{fileName, values [key...]}]
     * (each file's values in physical order). Paimon's PkSortedIndexBuilder and PkSortedIndexFile
     * build the level's payload into dir. Result: the payload's IndexFileMeta fields, index and
     * source meta in base64.
     */
    private static JsonNode build(JsonNode args) throws Exception {
        DataType type = DataTypeJsonParser.parseAtomicTypeSQLString(args.path("type").asText());
        java.util.Map<String, String> options = new java.util.HashMap<>();
        args.path("options").fields().forEachRemaining(e -> options.put(e.getKey(), e.getValue().asText()));
        List<RunnerSortedBuild.Source> sources = new ArrayList<>();
        for (JsonNode s : args.path("sources")) {
            List<Object> values = new ArrayList<>();
            for (JsonNode v : s.path("values")) {
                values.add(key(type, v));
            }
            sources.add(new RunnerSortedBuild.Source(s.path("fileName").asText(), values));
        }
        IndexFileMeta p =
                RunnerSortedBuild.build(
                        args.path("dir").asText(),
                        args.path("level").asInt(),
                        new DataField(args.path("fieldId").asInt(), "k", type),
                        args.path("indexType").asText(),
                        options,
                        sources);
        ObjectNode out = Main.JSON.createObjectNode();
        out.put("indexType", p.indexType()).put("fileName", p.fileName()).put("fileSize", p.fileSize());
        out.put("rowCount", p.rowCount());
        org.apache.paimon.index.GlobalIndexMeta g = p.globalIndexMeta();
        out.put("rowRangeStart", g.rowRangeStart()).put("rowRangeEnd", g.rowRangeEnd());
        out.put("indexFieldId", g.indexFieldId());
        out.put("indexMeta", Base64.getEncoder().encodeToString(g.indexMeta()));
        out.put("sourceMeta", Base64.getEncoder().encodeToString(g.sourceMeta()));
        out.put("externalPath", p.externalPath());
        return out;
    }

    /**
     * args: fieldId, indexType, dataFiles [{fileName, rowCount, level, compact}], payloads
     * [{indexType, fileName, rowCount, fieldId, rowRangeStart, rowRangeEnd, sourceMeta (base64
     * or null)}]. Paimon's PkSortedBucketIndexState.fromActiveDataFiles classifies them. Result:
     * {groups [{level, sources [name], payloads [name]}], covered, uncovered, rejected [name]}.
     */
    private static JsonNode state(JsonNode args) {
        List<org.apache.paimon.io.DataFileMeta> files = new ArrayList<>();
        for (JsonNode f : args.path("dataFiles")) {
            files.add(
                    RunnerSortedBuild.dataFile(
                            f.path("fileName").asText(),
                            f.path("rowCount").asLong(),
                            f.path("level").asInt(),
                            f.path("compact").asBoolean()));
        }
        List<IndexFileMeta> payloads = new ArrayList<>();
        for (JsonNode p : args.path("payloads")) {
            byte[] sourceMeta =
                    p.path("sourceMeta").isNull() ? null : Base64.getDecoder().decode(p.path("sourceMeta").asText());
            payloads.add(
                    new IndexFileMeta(
                            p.path("indexType").asText(),
                            p.path("fileName").asText(),
                            100,
                            p.path("rowCount").asLong(),
                            new org.apache.paimon.index.GlobalIndexMeta(
                                    p.path("rowRangeStart").asLong(),
                                    p.path("rowRangeEnd").asLong(),
                                    p.path("fieldId").asInt(),
                                    null,
                                    new byte[] {1},
                                    sourceMeta),
                            null));
        }
        org.apache.paimon.index.pksorted.PkSortedBucketIndexState st =
                org.apache.paimon.index.pksorted.PkSortedBucketIndexState.fromActiveDataFiles(
                        args.path("fieldId").asInt(), args.path("indexType").asText(), files, payloads);
        ObjectNode out = Main.JSON.createObjectNode();
        ArrayNode groups = out.putArray("groups");
        for (org.apache.paimon.index.pksorted.PkSortedIndexGroup g : st.groups()) {
            ObjectNode o = groups.addObject().put("level", g.dataLevel());
            ArrayNode s = o.putArray("sources");
            g.sourceFiles().forEach(f -> s.add(f.fileName()));
            ArrayNode ps = o.putArray("payloads");
            g.payloads().forEach(f -> ps.add(f.fileName()));
        }
        ArrayNode covered = out.putArray("covered");
        st.coveredSourceFiles().forEach(f -> covered.add(f.fileName()));
        ArrayNode uncovered = out.putArray("uncovered");
        st.uncoveredSourceFiles().forEach(f -> uncovered.add(f.fileName()));
        ArrayNode rejected = out.putArray("rejected");
        st.rejectedPayloads().forEach(f -> rejected.add(f.fileName()));
        return out;
    }

    /**
     * args: indexType, type, options {}, files [{path, meta (base64)}], predicates [{op,
     * literals}]. Result: {results: [[rowId...] | null]} (null when the reader returns no result).
     */
    private static JsonNode read(JsonNode args) throws Exception {
        DataType type = DataTypeJsonParser.parseAtomicTypeSQLString(args.path("type").asText());
        LocalFileIO fileIO = LocalFileIO.create();
        List<GlobalIndexIOMeta> metas = new ArrayList<>();
        for (JsonNode f : args.path("files")) {
            Path p = new Path(f.path("path").asText());
            metas.add(new GlobalIndexIOMeta(p, fileIO.getFileSize(p), Base64.getDecoder().decode(f.path("meta").asText())));
        }
        GlobalIndexFileReader reader = meta -> fileIO.newInputStream(meta.filePath());
        ExecutorService executor = Executors.newSingleThreadExecutor();
        ObjectNode out = Main.JSON.createObjectNode();
        ArrayNode results = out.putArray("results");
        try (GlobalIndexReader r = indexer(args, type).createReader(reader, metas, executor)) {
            FieldRef ref = new FieldRef(0, "k", type);
            for (JsonNode p : args.path("predicates")) {
                List<Object> lits = new ArrayList<>();
                for (JsonNode l : p.path("literals")) {
                    lits.add(key(type, l));
                }
                Optional<GlobalIndexResult> res = visit(r, ref, p.path("op").asText(), lits).get();
                if (!res.isPresent()) {
                    results.addNull();
                    continue;
                }
                ArrayNode ids = results.addArray();
                RoaringNavigableMap64 bm = res.get().results();
                Iterator<Long> it = bm.iterator();
                while (it.hasNext()) {
                    ids.add(it.next());
                }
            }
        } finally {
            executor.shutdownNow();
        }
        return out;
    }

    private static java.util.concurrent.CompletableFuture<Optional<GlobalIndexResult>> visit(
            GlobalIndexReader r, FieldRef ref, String op, List<Object> l) {
        switch (op) {
            case "isNull":
                return r.visitIsNull(ref);
            case "isNotNull":
                return r.visitIsNotNull(ref);
            case "equal":
                return r.visitEqual(ref, l.get(0));
            case "notEqual":
                return r.visitNotEqual(ref, l.get(0));
            case "lessThan":
                return r.visitLessThan(ref, l.get(0));
            case "lessOrEqual":
                return r.visitLessOrEqual(ref, l.get(0));
            case "greaterThan":
                return r.visitGreaterThan(ref, l.get(0));
            case "greaterOrEqual":
                return r.visitGreaterOrEqual(ref, l.get(0));
            case "in":
                return r.visitIn(ref, l);
            case "notIn":
                return r.visitNotIn(ref, l);
            case "between":
                return r.visitBetween(ref, l.get(0), l.get(1));
            case "startsWith":
                return r.visitStartsWith(ref, l.get(0));
            case "endsWith":
                return r.visitEndsWith(ref, l.get(0));
            case "contains":
                return r.visitContains(ref, l.get(0));
            default:
                throw new IllegalArgumentException("unknown predicate " + op);
        }
    }

    /** The key object Paimon's KeySerializer takes for type, from the text form above. */
    static Object key(DataType type, JsonNode v) {
        if (v == null || v.isNull()) {
            return null;
        }
        String s = v.asText();
        switch (type.getTypeRoot()) {
            case CHAR:
            case VARCHAR:
                return BinaryString.fromString(s);
            case TINYINT:
                return Byte.parseByte(s);
            case SMALLINT:
                return Short.parseShort(s);
            case INTEGER:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE:
                return Integer.parseInt(s);
            case BIGINT:
                return Long.parseLong(s);
            case BOOLEAN:
                return Boolean.parseBoolean(s);
            case FLOAT:
                return Float.intBitsToFloat(Integer.parseUnsignedInt(s));
            case DOUBLE:
                return Double.longBitsToDouble(Long.parseUnsignedLong(s));
            case DECIMAL:
                DecimalType d = (DecimalType) type;
                return Decimal.fromBigDecimal(new BigDecimal(s), d.getPrecision(), d.getScale());
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                String[] parts = s.split(":", 2);
                return Timestamp.fromEpochMillis(Long.parseLong(parts[0]), Integer.parseInt(parts[1]));
            default:
                throw new IllegalArgumentException("no key form for " + type);
        }
    }

    /**
     * args: options {} (table options), column, indexType (btree or bitmap). Result: {options {}}
     * as CoreOptions#primaryKeyBTreeIndexOptions / primaryKeyBitmapIndexOptions resolve them, or
     * {error} with the IllegalArgumentException's message.
     */
    private static JsonNode indexOptions(JsonNode args) {
        java.util.Map<String, String> table = new java.util.HashMap<>();
        args.path("options").fields().forEachRemaining(e -> table.put(e.getKey(), e.getValue().asText()));
        String column = args.path("column").asText();
        org.apache.paimon.CoreOptions core = new org.apache.paimon.CoreOptions(table);
        ObjectNode out = Main.JSON.createObjectNode();
        try {
            Options resolved =
                    args.path("indexType").asText().equals("btree")
                            ? core.primaryKeyBTreeIndexOptions(column)
                            : core.primaryKeyBitmapIndexOptions(column);
            ObjectNode o = out.putObject("options");
            new java.util.TreeMap<>(resolved.toMap()).forEach(o::put);
        } catch (IllegalArgumentException e) {
            out.put("error", String.valueOf(e.getMessage()));
        }
        return out;
    }
}
