package io.github.paimonpkft.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.globalindex.GlobalIndexResult;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.TableScan;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The search benchmark (make bench): Paimon's full-text read path timed inside the JVM after
 * warm-up, on the same table and queries as Go's search.
 */
final class SearchBenchCommands {

    private SearchBenchCommands() {}

    static void register(Map<String, Main.Command> commands) {
        commands.put("bench-search", SearchBenchCommands::search);
    }

    /** One query of a run: the engine query (or plain words) and the limit. */
    private static final class Query {
        final String query;
        final int limit;

        Query(String query, int limit) {
            this.query = query;
            this.limit = limit;
        }
    }

    /**
     * bench-search: args {path, column, queries: [{query, limit}], warmup (rounds, default 3),
     * runs (rounds, default 5), concurrency (default 4), concurrentRuns (default runs)}. A round runs every query once, one after
     * the other, as the search command does: {@code newFullTextSearchBuilder().withQuery(column,
     * query).withLimit(limit).executeLocal()} (PrimaryKeyFullTextScan and PrimaryKeyFullTextRead
     * over the bucket archives, deletion vectors applied), then the hit rows read through a read
     * builder given that result. The warm-up rounds are not timed; each query of each timed
     * round is. Then concurrency threads each run every query concurrentRuns times, timed together
     * (none with concurrentRuns 0).
     *
     * <p>Result: {nanos: [[long per timed round] per query], hits: [rows read per query],
     * concurrentNanos: long, concurrentQueries: long}.
     */
    private static JsonNode search(JsonNode args) throws Exception {
        FileStoreTable table = TableCommands.open(args);
        String column = args.path("column").asText();
        List<Query> queries = new ArrayList<>();
        for (JsonNode q : args.path("queries")) {
            queries.add(new Query(FullTextCommands.engineQuery(q.path("query").asText("")), q.path("limit").asInt(10)));
        }
        int warmup = args.path("warmup").asInt(3);
        int runs = args.path("runs").asInt(5);
        int concurrency = args.path("concurrency").asInt(4);
        int concurrentRuns = args.path("concurrentRuns").asInt(runs);
        long[] hits = new long[queries.size()];
        for (int r = 0; r < warmup; r++) {
            for (int i = 0; i < queries.size(); i++) {
                hits[i] = searchOnce(table, column, queries.get(i));
            }
        }
        long[][] nanos = new long[queries.size()][runs];
        for (int r = 0; r < runs; r++) {
            for (int i = 0; i < queries.size(); i++) {
                long start = System.nanoTime();
                long n = searchOnce(table, column, queries.get(i));
                nanos[i][r] = System.nanoTime() - start;
                if (r == 0 && warmup == 0) {
                    hits[i] = n;
                } else if (n != hits[i]) {
                    throw new IllegalStateException("query " + i + " read " + n + " rows, before " + hits[i]);
                }
            }
        }
        long concurrentStart = System.nanoTime();
        concurrently(table, column, queries, concurrency, concurrentRuns);
        long concurrentNanos = System.nanoTime() - concurrentStart;
        ObjectNode out = Main.JSON.createObjectNode();
        ArrayNode nanosJson = out.putArray("nanos");
        ArrayNode hitsJson = out.putArray("hits");
        for (int i = 0; i < queries.size(); i++) {
            ArrayNode per = nanosJson.addArray();
            for (long n : nanos[i]) {
                per.add(n);
            }
            hitsJson.add(hits[i]);
        }
        out.put("concurrentNanos", concurrentNanos);
        out.put("concurrentQueries", (long) concurrency * concurrentRuns * queries.size());
        return out;
    }

    /** Runs every query runs times on each of concurrency threads; returns when all are done. */
    private static void concurrently(FileStoreTable table, String column, List<Query> queries, int concurrency, int runs)
            throws Exception {
        if (runs <= 0 || concurrency <= 0) {
            return;
        }
        ExecutorService pool = Executors.newFixedThreadPool(concurrency);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < concurrency; t++) {
                futures.add(
                        pool.submit(
                                () -> {
                                    for (int r = 0; r < runs; r++) {
                                        for (Query q : queries) {
                                            searchOnce(table, column, q);
                                        }
                                    }
                                    return null;
                                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Runs one query through Paimon's full-text read path and reads its rows; returns their count. */
    private static long searchOnce(FileStoreTable table, String column, Query q) throws Exception {
        GlobalIndexResult hits =
                table.newFullTextSearchBuilder().withQuery(column, q.query).withLimit(q.limit).executeLocal();
        ReadBuilder rb = table.newReadBuilder();
        TableScan.Plan plan = rb.newScan().withGlobalIndexResult(hits).plan();
        long rows = 0;
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(plan)) {
            RecordReader.RecordIterator<InternalRow> batch;
            while ((batch = reader.readBatch()) != null) {
                try {
                    while (batch.next() != null) {
                        rows++;
                    }
                } finally {
                    batch.releaseBatch();
                }
            }
        }
        return rows;
    }
}
