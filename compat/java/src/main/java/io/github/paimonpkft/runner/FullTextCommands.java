package io.github.paimonpkft.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.globalindex.GlobalIndexIOMeta;
import org.apache.paimon.globalindex.GlobalIndexReader;
import org.apache.paimon.globalindex.GlobalIndexResult;
import org.apache.paimon.globalindex.GlobalIndexSingleColumnWriter;
import org.apache.paimon.globalindex.GlobalIndexWriter;
import org.apache.paimon.globalindex.GlobalIndexer;
import org.apache.paimon.globalindex.GlobalIndexerFactoryUtils;
import org.apache.paimon.globalindex.ResultEntry;
import org.apache.paimon.globalindex.ScoreGetter;
import org.apache.paimon.globalindex.ScoredGlobalIndexResult;
import org.apache.paimon.globalindex.io.GlobalIndexFileWriter;
import org.apache.paimon.options.Options;
import org.apache.paimon.predicate.FullTextSearch;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.reader.ScoreRecordIterator;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.TableScan;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Full-text commands: archive-build, archive-search (one archive through Paimon's {@code
 * full-text} {@link GlobalIndexer}, as Paimon's own index build and read use it) and search (a
 * table through Paimon's full-text read path). The indexer is whatever the {@code full-text}
 * {@code GlobalIndexerFactory} service provides: the runner's stand-ins by default, Paimon's own
 * module under the paimon-full-text Maven profile.
 */
final class FullTextCommands {

    /** The index type Paimon loads the engine by. */
    static final String INDEX_TYPE = "full-text";

    /** The column an engine-level archive indexes (the engine's default text field). */
    private static final DataField TEXT_FIELD = new DataField(0, "text", DataTypes.STRING());

    private FullTextCommands() {}

    static void register(Map<String, Main.Command> commands) {
        commands.put("archive-build", FullTextCommands::archiveBuild);
        commands.put("archive-search", FullTextCommands::archiveSearch);
        commands.put("search", FullTextCommands::search);
    }

    /** The class serving the full-text index type, for ping. */
    static String indexerFactory() {
        try {
            return GlobalIndexerFactoryUtils.load(INDEX_TYPE).getClass().getName();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * archive-build: args {dir, texts: [string|null], options: [{key, value}]}. Builds one archive
     * in dir with row ids 0..n-1 (a null counts its row but adds no document), the options given
     * to the indexer as the index's {@code full-text.*} options. Result: {fileName, rowCount,
     * indexMeta} where indexMeta is the writer's index meta as a UTF-8 string (the options' flat
     * JSON). A failed build leaves no file.
     */
    private static JsonNode archiveBuild(JsonNode args) throws Exception {
        String dir = args.path("dir").asText("");
        if (dir.isEmpty()) {
            throw new IllegalArgumentException("args.dir is required");
        }
        Options options = new Options();
        for (JsonNode o : args.path("options")) {
            options.set("full-text." + o.path("key").asText(), o.path("value").asText());
        }
        FileIO fileIO = LocalFileIO.create();
        Path dirPath = new Path(dir);
        List<Path> created = new ArrayList<>();
        GlobalIndexFileWriter fileWriter =
                new GlobalIndexFileWriter() {
                    @Override
                    public String newFileName(String prefix) {
                        String name = prefix + "-" + UUID.randomUUID();
                        created.add(new Path(dirPath, name));
                        return name;
                    }

                    @Override
                    public PositionOutputStream newOutputStream(String fileName)
                            throws IOException {
                        return fileIO.newOutputStream(new Path(dirPath, fileName), false);
                    }
                };
        GlobalIndexer indexer = GlobalIndexer.create(INDEX_TYPE, TEXT_FIELD, options);
        GlobalIndexWriter writer = null;
        boolean ok = false;
        try {
            writer = indexer.createWriter(fileWriter);
            if (!(writer instanceof GlobalIndexSingleColumnWriter)) {
                throw new IllegalStateException("full-text indexer must create a single-column writer");
            }
            GlobalIndexSingleColumnWriter single = (GlobalIndexSingleColumnWriter) writer;
            long rowId = 0;
            for (JsonNode t : args.path("texts")) {
                single.write(t.isNull() ? null : BinaryString.fromString(t.asText()), rowId++);
            }
            List<ResultEntry> results = writer.finish();
            if (results.size() != 1) {
                throw new IllegalStateException(
                        "full-text build produced " + results.size() + " archives, want 1");
            }
            ResultEntry r = results.get(0);
            ObjectNode out = Main.JSON.createObjectNode();
            out.put("fileName", r.fileName());
            out.put("rowCount", r.rowCount());
            if (r.meta() == null) {
                out.putNull("indexMeta");
            } else {
                out.put("indexMeta", new String(r.meta(), StandardCharsets.UTF_8));
            }
            ok = true;
            return out;
        } finally {
            if (writer instanceof AutoCloseable) {
                try {
                    ((AutoCloseable) writer).close();
                } catch (Exception ignored) {
                    // closing a finished writer releases nothing more
                }
            }
            if (!ok) {
                for (Path p : created) {
                    fileIO.deleteQuietly(p);
                }
            }
        }
    }

    /**
     * archive-search: args {path, query (engine JSON query), limit}. Opens the archive with the
     * indexer's reader and runs Paimon's {@link FullTextSearch}. Result: {rowIds: [long],
     * scores: [float]}, best first: the reader returns a scored row id set, which is ranked here
     * as Paimon ranks scored results (score descending, then row id ascending).
     */
    private static JsonNode archiveSearch(JsonNode args) throws Exception {
        String path = args.path("path").asText("");
        if (path.isEmpty()) {
            throw new IllegalArgumentException("args.path is required");
        }
        FileIO fileIO = LocalFileIO.create();
        Path archive = new Path(path);
        GlobalIndexIOMeta meta = new GlobalIndexIOMeta(archive, fileIO.getFileSize(archive), null);
        GlobalIndexer indexer = GlobalIndexer.create(INDEX_TYPE, TEXT_FIELD, new Options());
        FullTextSearch search =
                new FullTextSearch(TEXT_FIELD.name(), args.path("query").asText(), args.path("limit").asInt());
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try (GlobalIndexReader reader =
                indexer.createReader(
                        m -> fileIO.newInputStream(m.filePath()),
                        Collections.singletonList(meta),
                        executor)) {
            Optional<ScoredGlobalIndexResult> result = join(reader.visitFullTextSearch(search));
            ObjectNode out = Main.JSON.createObjectNode();
            ArrayNode ids = out.putArray("rowIds");
            ArrayNode scores = out.putArray("scores");
            if (result.isPresent()) {
                ScoreGetter getter = result.get().scoreGetter();
                List<long[]> ranked = new ArrayList<>();
                for (long id : result.get().results()) {
                    ranked.add(new long[] {id, Float.floatToRawIntBits(getter.score(id))});
                }
                ranked.sort(
                        (a, b) -> {
                            int c =
                                    Float.compare(
                                            Float.intBitsToFloat((int) b[1]),
                                            Float.intBitsToFloat((int) a[1]));
                            return c != 0 ? c : Long.compare(a[0], b[0]);
                        });
                for (long[] e : ranked) {
                    ids.add(e[0]);
                    scores.add(Float.intBitsToFloat((int) e[1]));
                }
            }
            return out;
        } finally {
            executor.shutdownNow();
        }
    }

    private static <T> T join(java.util.concurrent.CompletableFuture<T> f) throws Exception {
        try {
            return f.join();
        } catch (java.util.concurrent.CompletionException e) {
            Throwable c = e.getCause();
            if (c instanceof Exception) {
                throw (Exception) c;
            }
            throw e;
        }
    }

    /**
     * search: args {path, query, column?, limit, ranked?}. Runs Paimon's full-text read path on the table
     * at path — {@code table.newFullTextSearchBuilder().withQuery(column, query).withLimit(limit)
     * .executeLocal()} (for a primary-key table with {@code pk-full-text.index.columns}: {@code
     * PrimaryKeyFullTextScan} and {@code PrimaryKeyFullTextRead} over the bucket archives, deletion
     * vectors applied), then reads the hit rows through a read builder given that result, as
     * Paimon's full_text_search procedure does.
     *
     * <p>query is an engine JSON query (it starts with '{') or plain words, which become {@code
     * {"match":{"query":WORDS}}}, the match query Paimon's own tests build. column defaults to
     * the table's only {@code pk-full-text.index.columns} column.
     *
     * <p>Result:
     *
     * <pre>
     * {"snapshotId": long (0 when the table has no snapshot),
     *  "column": string, "query": string (the engine query sent),
     *  "results": [{"key": {PK_FIELD: value, ...}, "text": string|null, "score": float}, ...]}
     * </pre>
     *
     * results are ordered by score descending, ties by the primary key ascending (field by field
     * in key order, values compared as in read); values are rendered as read renders them.
     *
     * <p>With {@code ranked: true} the results come in Paimon's own order instead: the order of
     * {@code PrimaryKeyScoredResult#positions()}, which {@code PrimaryKeySearchRanker#topKByScore}
     * ranks by score descending, ties by {@code PrimaryKeySearchPosition#compareTo} (partition
     * bytes, bucket, data file name, row position), and each result also carries its physical
     * position: {@code bucket, dataFile, rowPosition}. (The read path itself returns the rows in
     * position order, split by split; Flink's full_text_search procedure re-sorts them by score,
     * ties by the row's JSON text.) The rows read are matched to the positions in that read
     * order, checked by count and score.
     */
    private static JsonNode search(JsonNode args) throws Exception {
        FileStoreTable table = TableCommands.open(args);
        String column = args.path("column").asText("");
        if (column.isEmpty()) {
            String configured = table.options().getOrDefault("pk-full-text.index.columns", "");
            String[] cols = configured.isEmpty() ? new String[0] : configured.split(",");
            if (cols.length != 1) {
                throw new IllegalArgumentException(
                        "args.column is required: the table indexes " + cols.length + " columns");
            }
            column = cols[0].trim();
        }
        String query = engineQuery(args.path("query").asText(""));
        int limit = args.path("limit").asInt(10);
        ObjectNode out = Main.JSON.createObjectNode();
        out.put("column", column).put("query", query);
        ArrayNode results = Main.JSON.createArrayNode();
        if (table.snapshotManager().latestSnapshot() == null) {
            out.put("snapshotId", 0L);
            out.set("results", results);
            return out;
        }
        GlobalIndexResult hits =
                table.newFullTextSearchBuilder().withQuery(column, query).withLimit(limit).executeLocal();
        long snapshotId =
                hits instanceof org.apache.paimon.table.source.PrimaryKeyScoredResult
                        ? ((org.apache.paimon.table.source.PrimaryKeyScoredResult) hits).snapshotId()
                        : table.snapshotManager().latestSnapshot().id();
        RowType rowType = table.rowType();
        List<String> keys = table.primaryKeys().isEmpty() ? rowType.getFieldNames() : table.primaryKeys();
        ReadBuilder rb = table.newReadBuilder();
        TableScan.Plan plan = rb.newScan().withGlobalIndexResult(hits).plan();
        List<ObjectNode> rows = new ArrayList<>();
        List<Float> scores = new ArrayList<>();
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(plan)) {
            RecordReader.RecordIterator<InternalRow> batch;
            while ((batch = reader.readBatch()) != null) {
                try {
                    if (!(batch instanceof ScoreRecordIterator)) {
                        throw new IllegalStateException("full-text read did not expose search scores");
                    }
                    ScoreRecordIterator<InternalRow> scored = (ScoreRecordIterator<InternalRow>) batch;
                    InternalRow row;
                    while ((row = scored.next()) != null) {
                        float score = scored.returnedScore();
                        ObjectNode json = Values.toJson(rowType, row);
                        ObjectNode r = Main.JSON.createObjectNode();
                        ObjectNode key = r.putObject("key");
                        for (String k : keys) {
                            key.set(k, json.get(k));
                        }
                        r.set("text", json.get(column));
                        r.put("score", score);
                        rows.add(r);
                        scores.add(score);
                    }
                } finally {
                    batch.releaseBatch();
                }
            }
        }
        if (args.path("ranked").asBoolean(false)) {
            rows = rankedOrder(hits, rows);
        } else {
            java.util.Comparator<ObjectNode> byKey = TableCommands.rowComparator(keys);
            rows.sort(
                (a, b) -> {
                    int c = Float.compare((float) b.get("score").asDouble(), (float) a.get("score").asDouble());
                        return c != 0 ? c : byKey.compare((ObjectNode) a.get("key"), (ObjectNode) b.get("key"));
                    });
        }
        rows.forEach(results::add);
        out.put("snapshotId", snapshotId);
        out.set("results", results);
        return out;
    }

    /**
     * Puts rows, read from the splits of hits in read order, into Paimon's ranked order (see
     * search) and adds each row's physical position. The read visits the positions in their
     * natural order ({@code PrimaryKeyScoredResult} materializes one split per data file from a
     * sorted map of positions, each with its ascending row ranges), so the i-th row read is the
     * i-th position in that order; the count and every score must agree.
     */
    private static List<ObjectNode> rankedOrder(GlobalIndexResult hits, List<ObjectNode> rows) {
        if (!(hits instanceof org.apache.paimon.table.source.PrimaryKeyScoredResult)) {
            throw new IllegalStateException(
                    "ranked: the search did not return a PrimaryKeyScoredResult but "
                            + hits.getClass().getName());
        }
        List<org.apache.paimon.table.source.PrimaryKeySearchPosition> ranked =
                ((org.apache.paimon.table.source.PrimaryKeyScoredResult) hits).positions();
        List<org.apache.paimon.table.source.PrimaryKeySearchPosition> readOrder = new ArrayList<>(ranked);
        Collections.sort(readOrder);
        if (readOrder.size() != rows.size()) {
            throw new IllegalStateException(
                    "ranked: " + rows.size() + " rows read for " + readOrder.size() + " positions");
        }
        java.util.Map<org.apache.paimon.table.source.PrimaryKeySearchPosition, ObjectNode> byPosition =
                new java.util.HashMap<>();
        for (int i = 0; i < rows.size(); i++) {
            org.apache.paimon.table.source.PrimaryKeySearchPosition p = readOrder.get(i);
            ObjectNode r = rows.get(i);
            if (Float.compare((float) r.get("score").asDouble(), p.score()) != 0) {
                throw new IllegalStateException(
                        "ranked: row " + i + " read with score " + r.get("score") + ", its position " + p);
            }
            r.put("bucket", p.bucket());
            r.put("dataFile", p.dataFileName());
            r.put("rowPosition", p.rowPosition());
            byPosition.put(p, r);
        }
        List<ObjectNode> out = new ArrayList<>(ranked.size());
        for (org.apache.paimon.table.source.PrimaryKeySearchPosition p : ranked) {
            out.add(byPosition.get(p));
        }
        return out;
    }

    /** The engine query for q: q itself when it is a JSON object, else a match query of q. */
    static String engineQuery(String q) {
        if (q.trim().isEmpty()) {
            throw new IllegalArgumentException("args.query must not be blank");
        }
        if (q.trim().startsWith("{")) {
            return q;
        }
        ObjectNode match = Main.JSON.createObjectNode();
        match.putObject("match").put("query", q);
        return match.toString();
    }
}
