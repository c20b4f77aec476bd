package io.github.paimonpkft.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.paimon.KeyValueFileStore;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.index.pk.PrimaryKeyIndexDefinition;
import org.apache.paimon.index.pk.PrimaryKeyIndexDefinitions;
import org.apache.paimon.index.pk.PrimaryKeyIndexLevels;
import org.apache.paimon.index.pk.PrimaryKeyIndexSourceMeta;
import org.apache.paimon.index.pk.PrimaryKeyIndexSourcePolicy;
import org.apache.paimon.index.pkfulltext.PkFullTextBucketIndexState;
import org.apache.paimon.index.pkfulltext.PkFullTextDataFileReader;
import org.apache.paimon.index.pkfulltext.PkFullTextIndexBuilder;
import org.apache.paimon.index.pkfulltext.PkFullTextIndexFile;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.utils.Pair;

import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Benchmark commands, timed inside the JVM after warm-up so that JVM start-up and the JSON
 * protocol are not measured (make bench):
 *
 * <ul>
 *   <li>bench-index-file-build: Paimon's {@link PkFullTextIndexFile} build of one level of a
 *       table, as pk-full-text-index-file-build wires it, repeated;
 *   <li>bench-bucket-state: Paimon's {@link PkFullTextBucketIndexState#fromActiveDataFiles} and
 *       {@link PrimaryKeyIndexLevels#pick} over a given bucket (data files and archives), the
 *       decisions a bucket's restore makes, repeated;
 *   <li>bench-write and bench-compact: Paimon's batch writer (its commit waiting for the
 *       compaction the table needs at commit) and its full compaction, once each, on rows
 *       streamed from a file.
 * </ul>
 */
final class BenchCommands {

    private BenchCommands() {}

    static void register(Map<String, Main.Command> commands) {
        commands.put("bench-index-file-build", BenchCommands::indexFileBuild);
        commands.put("bench-bucket-state", BenchCommands::bucketState);
        commands.put("bench-write", BenchCommands::write);
        commands.put("bench-compact", BenchCommands::compact);
        commands.put("bench-count", BenchCommands::count);
        commands.put("bench-batches", BenchCommands::batches);
    }

    /**
     * bench-index-file-build: args {path, bucket, level, warmup (default 1), runs (default 3)}
     * on an unpartitioned table. Builds the level's archive warmup + runs times (each archive is
     * deleted again). Result: {rows, archiveBytes, nanos: [one per timed run], peakRssBytes (the
     * process's VmHWM over the timed runs, reset before them; -1 when unavailable),
     * baselineRssBytes (RSS before the timed runs)}.
     */
    private static JsonNode indexFileBuild(JsonNode args) throws Exception {
        FileStoreTable table = TableCommands.open(args);
        Snapshot snap = table.snapshotManager().latestSnapshot();
        if (snap == null) {
            throw new IllegalStateException("table has no snapshot");
        }
        int bucket = args.path("bucket").asInt(0);
        int level = args.path("level").asInt(1);
        int warmup = args.path("warmup").asInt(1);
        int runs = Math.max(1, args.path("runs").asInt(3));
        KeyValueFileStore store = (KeyValueFileStore) table.store();
        TableSchema schema = table.schema();
        PrimaryKeyIndexDefinition definition = null;
        for (PrimaryKeyIndexDefinition d : PrimaryKeyIndexDefinitions.create(schema).definitions()) {
            if (d.family() == PrimaryKeyIndexDefinition.Family.FULL_TEXT) {
                definition = d;
            }
        }
        if (definition == null) {
            throw new IllegalArgumentException("the table schema defines no primary-key full-text index");
        }
        DataField field = schema.nameToFieldMap().get(definition.column());
        BinaryRow partition = null;
        List<DataFileMeta> files = new ArrayList<>();
        for (ManifestEntry e : store.newScan().withSnapshot(snap).plan().files()) {
            if (e.bucket() == bucket && e.file().level() == level && PrimaryKeyIndexSourcePolicy.shouldRead(e.file())) {
                partition = e.partition();
                files.add(e.file());
            }
        }
        if (files.isEmpty()) {
            throw new IllegalArgumentException("no eligible data file on level " + level + " of bucket " + bucket);
        }
        files.sort(Comparator.comparing(DataFileMeta::fileName));
        PkFullTextIndexFile indexFile = store.newIndexFileHandler().pkFullTextIndex(partition, bucket);
        PkFullTextIndexBuilder builder =
                new PkFullTextIndexBuilder(
                        indexFile,
                        new PkFullTextDataFileReader.Factory(store.newReaderFactoryBuilder(), partition, bucket, field),
                        field,
                        definition.options());
        for (int i = 0; i < warmup; i++) {
            indexFile.delete(builder.build(files));
        }
        System.gc();
        long baseline = procStatus("VmRSS:");
        boolean reset = resetPeakRss();
        ObjectNode out = Main.JSON.createObjectNode();
        ArrayNode nanos = out.putArray("nanos");
        IndexFileMeta archive = null;
        for (int i = 0; i < runs; i++) {
            long start = System.nanoTime();
            archive = builder.build(files);
            nanos.add(System.nanoTime() - start);
            if (i < runs - 1) {
                indexFile.delete(archive);
            }
        }
        out.put("peakRssBytes", reset ? procStatus("VmHWM:") : -1);
        out.put("baselineRssBytes", baseline);
        out.put("rows", archive.rowCount());
        out.put("archiveBytes", archive.fileSize());
        indexFile.delete(archive);
        return out;
    }

    /**
     * bench-bucket-state: args {textFieldId, dataFiles: [[name, level, rowCount]] (compacted
     * files), payloads: [{name, level, files: [[name, rowCount]]}] (full-text archives of
     * textFieldId), warmup (default 3), minRuns (default 3), minMillis (default 500)}. Each
     * timed run classifies the payloads against the eligible data files
     * (PkFullTextBucketIndexState.fromActiveDataFiles) and picks the next plan
     * (PrimaryKeyIndexLevels.pick over the current payloads), runs continuing until both minRuns
     * and minMillis are reached. Result: {nanos: [...], cpuNanos: [the JVM's CPU time per run, every
     * thread], current, stale, planLevel (0: none),
     * planFiles, planInputs}.
     */
    private static JsonNode bucketState(JsonNode args) throws Exception {
        int field = args.path("textFieldId").asInt();
        List<DataFileMeta> dataFiles = new ArrayList<>();
        for (JsonNode f : args.path("dataFiles")) {
            dataFiles.add(MaintainerCommands.dataFile(f.get(0).asText(), f.get(1).asInt(), f.get(2).asLong(), "COMPACT"));
        }
        List<IndexFileMeta> payloads = new ArrayList<>();
        for (JsonNode p : args.path("payloads")) {
            List<String[]> sources = new ArrayList<>();
            for (JsonNode s : p.path("files")) {
                sources.add(new String[] {s.get(0).asText(), s.get(1).asText()});
            }
            payloads.add(MaintainerCommands.archive("full-text", p.path("name").asText(), field, p.path("level").asInt(), sources));
        }
        int warmup = args.path("warmup").asInt(3);
        int minRuns = Math.max(1, args.path("minRuns").asInt(3));
        long minNanos = args.path("minMillis").asLong(500) * 1_000_000L;
        Decision d = null;
        for (int i = 0; i < warmup; i++) {
            d = decide(field, dataFiles, payloads);
        }
        ObjectNode out = Main.JSON.createObjectNode();
        ArrayNode nanos = out.putArray("nanos");
        ArrayNode cpuNanos = out.putArray("cpuNanos");
        long total = 0;
        for (int i = 0; i < minRuns || total < minNanos; i++) {
            long cpu = processCpuNanos();
            long start = System.nanoTime();
            d = decide(field, dataFiles, payloads);
            long t = System.nanoTime() - start;
            cpuNanos.add(processCpuNanos() - cpu);
            nanos.add(t);
            total += t;
        }
        out.put("current", d.state.currentPayloads().size());
        out.put("stale", d.state.stalePayloads().size());
        out.put("planLevel", d.plan.map(PrimaryKeyIndexLevels.Plan::dataLevel).orElse(0));
        out.put("planFiles", d.plan.map(p -> p.sourceFiles().size()).orElse(0));
        out.put("planInputs", d.plan.map(p -> p.inputUnits().size()).orElse(0));
        return out;
    }

    private static final class Decision {
        final PkFullTextBucketIndexState state;
        final Optional<PrimaryKeyIndexLevels.Plan<IndexFileMeta>> plan;

        Decision(PkFullTextBucketIndexState state, Optional<PrimaryKeyIndexLevels.Plan<IndexFileMeta>> plan) {
            this.state = state;
            this.plan = plan;
        }
    }

    /** What DumpCommand's state does: the eligible files, the bucket state, the next plan. */
    private static Decision decide(int field, List<DataFileMeta> dataFiles, List<IndexFileMeta> payloads) {
        List<DataFileMeta> eligible = new ArrayList<>();
        Map<String, DataFileMeta> active = new LinkedHashMap<>();
        for (DataFileMeta f : dataFiles) {
            if (PrimaryKeyIndexSourcePolicy.shouldRead(f)) {
                eligible.add(f);
                active.put(f.fileName(), f);
            }
        }
        PkFullTextBucketIndexState state = PkFullTextBucketIndexState.fromActiveDataFiles(field, eligible, payloads);
        PrimaryKeyIndexLevels<IndexFileMeta> levels =
                new PrimaryKeyIndexLevels<>(
                        p -> PrimaryKeyIndexSourceMeta.fromIndexFile(p).dataLevel(),
                        p -> PrimaryKeyIndexSourceMeta.fromIndexFile(p).sourceFiles());
        return new Decision(state, levels.pick(state.currentPayloads(), active));
    }

    /**
     * bench-write: args {path, file}: one batch write of the rows of file (one row per line:
     * the INT id, a tab, the STRING content) into the table {id, content}, streamed from the file
     * while writing, then one commit (which waits for the table's compaction at commit). Result:
     * {rows, writeNanos (the write calls), commitNanos (prepareCommit and commit), peakRssBytes
     * (VmHWM over the write, reset before it; -1 when unavailable), baselineRssBytes}.
     */
    private static JsonNode write(JsonNode args) throws Exception {
        FileStoreTable table = TableCommands.open(args);
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        java.nio.file.Path ioDir = Files.createTempDirectory("pkft-bench-io");
        System.gc();
        long baseline = procStatus("VmRSS:");
        boolean reset = resetPeakRss();
        ObjectNode out = Main.JSON.createObjectNode();
        try (BatchTableWrite write = builder.newWrite();
                BatchTableCommit commit = builder.newCommit();
                BufferedReader in = Files.newBufferedReader(Paths.get(args.path("file").asText()), StandardCharsets.UTF_8)) {
            write.withIOManager(IOManager.create(ioDir.toString()));
            long start = System.nanoTime();
            long rows = 0;
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                int tab = line.indexOf('\t');
                write.write(GenericRow.of(Integer.parseInt(line.substring(0, tab)), BinaryString.fromString(line.substring(tab + 1))));
                rows++;
            }
            long written = System.nanoTime();
            commit.commit(write.prepareCommit());
            long committed = System.nanoTime();
            out.put("rows", rows);
            out.put("writeNanos", written - start);
            out.put("commitNanos", committed - written);
        } finally {
            TableCommands.deleteRecursively(ioDir.toFile());
        }
        out.put("peakRssBytes", reset ? procStatus("VmHWM:") : -1);
        out.put("baselineRssBytes", baseline);
        return out;
    }

    /**
     * bench-batches: args {path, files: [file, ...]}: for each file in turn, a batch writer of
     * its own writes the file's rows (one a line: the kind I, U or D, a tab, the INT id, a tab,
     * the STRING content, \N for null) into the table {id, content, ...} (any further column
     * null) and commits (the commit
     * waits for the table's compaction at commit). Result: {batches: [{rows, writeNanos,
     * commitNanos, cpuNanos (the JVM's CPU time over the batch, every thread), rchar and
     * readBytes (the deltas of /proc/self/io's rchar, bytes the JVM read through read calls, page
     * cache included, and read_bytes, bytes it caused to be fetched from the storage device; -1
     * when unavailable)}], peakRssBytes (VmHWM over the batches, reset before them; -1 when
     * unavailable), baselineRssBytes}.
     */
    private static JsonNode batches(JsonNode args) throws Exception {
        FileStoreTable table = TableCommands.open(args);
        java.nio.file.Path ioDir = Files.createTempDirectory("pkft-bench-io");
        System.gc();
        long baseline = procStatus("VmRSS:");
        boolean reset = resetPeakRss();
        ObjectNode out = Main.JSON.createObjectNode();
        ArrayNode results = out.putArray("batches");
        int fields = table.rowType().getFieldCount();
        try {
            for (JsonNode file : args.path("files")) {
                long cpu = processCpuNanos();
                long rchar = procIo("rchar:");
                long readBytes = procIo("read_bytes:");
                BatchWriteBuilder builder = table.newBatchWriteBuilder();
                ObjectNode r = results.addObject();
                try (BatchTableWrite write = builder.newWrite();
                        BatchTableCommit commit = builder.newCommit();
                        BufferedReader in = Files.newBufferedReader(Paths.get(file.asText()), StandardCharsets.UTF_8)) {
                    write.withIOManager(IOManager.create(ioDir.toString()));
                    long start = System.nanoTime();
                    long rows = 0;
                    for (String line = in.readLine(); line != null; line = in.readLine()) {
                        int tab1 = line.indexOf('\t');
                        int tab2 = line.indexOf('\t', tab1 + 1);
                        RowKind kind;
                        switch (line.substring(0, tab1)) {
                            case "I":
                                kind = RowKind.INSERT;
                                break;
                            case "U":
                                kind = RowKind.UPDATE_AFTER;
                                break;
                            case "D":
                                kind = RowKind.DELETE;
                                break;
                            default:
                                throw new IllegalArgumentException("row kind " + line.substring(0, tab1) + " in " + file.asText());
                        }
                        String text = line.substring(tab2 + 1);
                        GenericRow row = new GenericRow(kind, fields);
                        row.setField(0, Integer.parseInt(line.substring(tab1 + 1, tab2)));
                        row.setField(1, text.equals("\\N") ? null : BinaryString.fromString(text));
                        write.write(row);
                        rows++;
                    }
                    long written = System.nanoTime();
                    commit.commit(write.prepareCommit());
                    long committed = System.nanoTime();
                    r.put("rows", rows);
                    r.put("writeNanos", written - start);
                    r.put("commitNanos", committed - written);
                }
                r.put("cpuNanos", cpu < 0 ? -1 : processCpuNanos() - cpu);
                r.put("rchar", rchar < 0 ? -1 : procIo("rchar:") - rchar);
                r.put("readBytes", readBytes < 0 ? -1 : procIo("read_bytes:") - readBytes);
            }
        } finally {
            TableCommands.deleteRecursively(ioDir.toFile());
        }
        out.put("peakRssBytes", reset ? procStatus("VmHWM:") : -1);
        out.put("baselineRssBytes", baseline);
        return out;
    }

    /** A counter of /proc/self/io, or -1. */
    private static long procIo(String key) {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/self/io"), StandardCharsets.US_ASCII)) {
                if (line.startsWith(key)) {
                    return Long.parseLong(line.substring(key.length()).trim());
                }
            }
        } catch (Exception e) {
            // not Linux
        }
        return -1;
    }

    /**
     * bench-compact: args {path}: Paimon's full compaction of every bucket and one commit.
     * Result: {buckets, nanos, peakRssBytes, baselineRssBytes}.
     */
    private static JsonNode compact(JsonNode args) throws Exception {
        FileStoreTable table = TableCommands.compactionJob(TableCommands.open(args));
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        java.nio.file.Path ioDir = Files.createTempDirectory("pkft-bench-io");
        System.gc();
        long baseline = procStatus("VmRSS:");
        boolean reset = resetPeakRss();
        ObjectNode out = Main.JSON.createObjectNode();
        try (BatchTableWrite write = builder.newWrite(); BatchTableCommit commit = builder.newCommit()) {
            write.withIOManager(IOManager.create(ioDir.toString()));
            long start = System.nanoTime();
            int buckets = 0;
            for (Pair<BinaryRow, Integer> bucket : TableCommands.buckets(table, write)) {
                write.compact(bucket.getLeft(), bucket.getRight(), true);
                buckets++;
            }
            commit.commit(write.prepareCommit());
            out.put("nanos", System.nanoTime() - start);
            out.put("buckets", buckets);
        } finally {
            TableCommands.deleteRecursively(ioDir.toFile());
        }
        out.put("peakRssBytes", reset ? procStatus("VmHWM:") : -1);
        out.put("baselineRssBytes", baseline);
        return out;
    }

    /** bench-count: args {path}: the number of rows a batch read of the latest snapshot returns. */
    private static JsonNode count(JsonNode args) throws Exception {
        FileStoreTable table = TableCommands.open(args);
        ReadBuilder rb = table.newReadBuilder();
        long rows = 0;
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(rb.newScan().plan())) {
            RecordReader.RecordIterator<InternalRow> batch;
            while ((batch = reader.readBatch()) != null) {
                while (batch.next() != null) {
                    rows++;
                }
                batch.releaseBatch();
            }
        }
        return Main.JSON.createObjectNode().put("rows", rows);
    }

    /** CPU time of the whole JVM (every thread, the collector's included), or -1. */
    private static long processCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
        }
        return -1;
    }

    /** Resets the process's peak RSS (VmHWM) to its current RSS; false where Linux does not let it. */
    private static boolean resetPeakRss() {
        try {
            Files.write(Paths.get("/proc/self/clear_refs"), "5".getBytes(StandardCharsets.US_ASCII));
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    /** A size field of /proc/self/status in bytes, or -1. */
    private static long procStatus(String key) {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/self/status"), StandardCharsets.US_ASCII)) {
                if (line.startsWith(key)) {
                    String v = line.substring(key.length()).trim();
                    return Long.parseLong(v.substring(0, v.indexOf(' '))) * 1024;
                }
            }
        } catch (Exception e) {
            // not Linux
        }
        return -1;
    }
}
