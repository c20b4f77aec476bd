package io.github.paimonpkft.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.compact.CompactUnit;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryRowWriter;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.deletionvectors.BitmapDeletionVector;
import org.apache.paimon.deletionvectors.BucketedDvMaintainer;
import org.apache.paimon.deletionvectors.DeletionVector;
import org.apache.paimon.deletionvectors.DeletionVectorsIndexFile;
import org.apache.paimon.index.IndexFileHandler;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.FileSource;
import org.apache.paimon.mergetree.LevelSortedRun;
import org.apache.paimon.mergetree.Levels;
import org.apache.paimon.mergetree.SortedRun;
import org.apache.paimon.mergetree.compact.CompactStrategy;
import org.apache.paimon.mergetree.compact.FileRewriteCompactTask;
import org.apache.paimon.mergetree.compact.ForceUpLevel0Compaction;
import org.apache.paimon.mergetree.compact.MergeTreeCompactManager;
import org.apache.paimon.mergetree.compact.MergeTreeCompactManagerFactory;
import org.apache.paimon.mergetree.compact.MergeTreeCompactTask;
import org.apache.paimon.options.MemorySize;
import org.apache.paimon.options.Options;
import org.apache.paimon.stats.SimpleStats;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * pick: Paimon's own compaction picking over given level layouts. For each layout the runner
 * builds the strategy Paimon's writer would use for the table options and the bucket's restored
 * files ({@code MergeTreeCompactManagerFactory#createCompactStrategy}, private, reached by
 * reflection), then, step by step on that one strategy (it keeps state between picks: the last
 * full compaction, the gentle lookup-compaction counter), restores Paimon's {@link Levels} from
 * the step's files and has a {@link MergeTreeCompactManager} over them trigger a compaction
 * (normal or full), recording the unit the strategy (or {@code
 * CompactStrategy#pickFullCompaction}) picked and the task the manager submitted to its executor,
 * which never runs it. The keys are one INT column.
 */
final class PickCommands {

    private PickCommands() {}

    static void register(Map<String, Main.Command> commands) {
        commands.put("pick", PickCommands::pick);
    }

    private static final Comparator<InternalRow> INT_KEY =
            (a, b) -> Integer.compare(a.getInt(0), b.getInt(0));

    /**
     * args: {layouts: [{options: {k: v}, restored: [file], steps: [{mode: "normal" | "full",
     * files: [file], deletionVectors: [name] (absent means no deletion-vector maintainer)}]}]}
     * where file is {name, size, level, minSeq, maxSeq, creation (the stored
     * creation time: local wall-clock milliseconds), minKey, maxKey (ints)}.
     *
     * <p>With persistent, one Levels serves every step: the first step's files restore it, later
     * steps pick from it as it is, and steps {mode: "update", before: [file], after: [file]} apply
     * Levels#update to it (their result: the runs after it, [{level, files: [name]}]).
     *
     * <p>Result: {zone (the JVM's default zone), layouts: [{error | strategy, maxCompactInterval,
     * numLevels, needLookup, writeOnly, forceRewriteAllFiles, stopTrigger, steps: [{error |
     * unit: null | {outputLevel, files: [name], fileRewrite}, task: null | {fileRewrite,
     * outputLevel, dropDelete, files: [name] (sorted)}, millis, hour, hourChanged}]}]}:
     * millis and hour are the clock just before the pick; hourChanged says the hour turned during
     * it.
     */
    private static JsonNode pick(JsonNode args) throws Exception {
        ObjectNode out = Main.JSON.createObjectNode();
        out.put("zone", ZoneId.systemDefault().getId());
        ArrayNode layouts = out.putArray("layouts");
        for (JsonNode layout : args.path("layouts")) {
            layouts.add(layout(layout));
        }
        return out;
    }

    private static ObjectNode layout(JsonNode layout) throws Exception {
        ObjectNode res = Main.JSON.createObjectNode();
        Map<String, String> map = new HashMap<>();
        layout.path("options").fields().forEachRemaining(e -> map.put(e.getKey(), e.getValue().asText()));
        CoreOptions options = new CoreOptions(Options.fromMap(map));
        CompactStrategy strategy;
        int numLevels;
        try {
            strategy = createCompactStrategy(options, files(layout.path("restored")));
            numLevels = options.numLevels();
            res.put("numLevels", numLevels);
            res.put("needLookup", options.needLookup());
            res.put("writeOnly", options.writeOnly());
            res.put("forceRewriteAllFiles", options.forceRewriteAllFiles());
            res.put("stopTrigger", options.numSortedRunStopTrigger());
        } catch (RuntimeException e) {
            return res.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        res.put("strategy", strategy.getClass().getSimpleName());
        if (strategy instanceof ForceUpLevel0Compaction) {
            Integer interval = ((ForceUpLevel0Compaction) strategy).maxCompactInterval();
            if (interval != null) {
                res.put("maxCompactInterval", interval);
            }
        }
        final CompactStrategy picker = strategy;
        ArrayNode steps = res.putArray("steps");
        boolean persistent = layout.path("persistent").asBoolean(false);
        Levels kept = null;
        for (JsonNode step : layout.path("steps")) {
            ObjectNode s = steps.addObject();
            int hour = LocalDateTime.now().getHour();
            s.put("millis", System.currentTimeMillis());
            s.put("hour", hour);
            try {
                if (step.path("mode").asText().equals("update")) {
                    // Levels#update on the kept levels: a compaction result or new files.
                    s.putNull("unit");
                    s.putNull("task");
                    if (kept == null) {
                        throw new IllegalStateException("no levels to update");
                    }
                    kept.update(files(step.path("before")), files(step.path("after")));
                    ArrayNode runs = s.putArray("runs");
                    for (LevelSortedRun r : kept.levelSortedRuns()) {
                        ObjectNode j = runs.addObject().put("level", r.level());
                        ArrayNode names = j.putArray("files");
                        r.run().files().forEach(f -> names.add(f.fileName()));
                    }
                    s.put("hourChanged", LocalDateTime.now().getHour() != hour);
                    continue;
                }
                Levels levels =
                        persistent && kept != null
                                ? kept
                                : new Levels(INT_KEY, files(step.path("files")), numLevels);
                if (persistent) {
                    kept = levels;
                }
                BucketedDvMaintainer dvs = dvMaintainer(step.get("deletionVectors"));
                boolean full = step.path("mode").asText().equals("full");
                List<Optional<CompactUnit>> picked = new ArrayList<>();
                CompactStrategy recording =
                        (n, runs) -> {
                            Optional<CompactUnit> u = picker.pick(n, runs);
                            picked.add(u);
                            return u;
                        };
                Optional<CompactUnit> unit = Optional.empty();
                if (full) {
                    // Stateless: the unit as picked, then the manager picking it again.
                    unit =
                            CompactStrategy.pickFullCompaction(
                                    levels.numberOfLevels(),
                                    levels.levelSortedRuns(),
                                    null,
                                    dvs,
                                    options.forceRewriteAllFiles());
                }
                CapturingExecutor executor = new CapturingExecutor();
                new MergeTreeCompactManager(
                                executor,
                                levels,
                                recording,
                                INT_KEY,
                                options.compactionFileSize(true),
                                options.numSortedRunStopTrigger(),
                                null,
                                null,
                                dvs,
                                false,
                                options.needLookup(),
                                null,
                                options.forceRewriteAllFiles(),
                                options.isChainTable(),
                                "bucket=0")
                        .triggerCompaction(full);
                if (!full) {
                    unit = picked.isEmpty() ? Optional.empty() : picked.get(0);
                }
                s.set("task", task(executor.task));
                if (unit.isPresent()) {
                    ObjectNode u = s.putObject("unit");
                    u.put("outputLevel", unit.get().outputLevel());
                    ArrayNode names = u.putArray("files");
                    unit.get().files().forEach(f -> names.add(f.fileName()));
                    u.put("fileRewrite", unit.get().fileRewrite());
                } else {
                    s.putNull("unit");
                }
            } catch (RuntimeException e) {
                s.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
            }
            s.put("hourChanged", LocalDateTime.now().getHour() != hour);
        }
        return res;
    }

    /**
     * The compaction the manager submitted: {fileRewrite (a FileRewriteCompactTask, else a
     * MergeTreeCompactTask), outputLevel, dropDelete, files (names, sorted: the merge task keeps
     * them partitioned into sections)}, or null when it submitted none. The tasks keep these in
     * private fields.
     */
    private static JsonNode task(Callable<?> task) throws Exception {
        if (task == null) {
            return Main.JSON.nullNode();
        }
        ObjectNode out = Main.JSON.createObjectNode();
        boolean rewrite = task instanceof FileRewriteCompactTask;
        if (!rewrite && !(task instanceof MergeTreeCompactTask)) {
            throw new IllegalStateException("unexpected compaction task " + task.getClass());
        }
        out.put("fileRewrite", rewrite);
        out.put("outputLevel", (int) field(task, "outputLevel"));
        out.put("dropDelete", (boolean) field(task, "dropDelete"));
        List<String> names = new ArrayList<>();
        if (rewrite) {
            for (Object f : (List<?>) field(task, "files")) {
                names.add(((DataFileMeta) f).fileName());
            }
        } else {
            for (Object section : (List<?>) field(task, "partitioned")) {
                for (Object run : (List<?>) section) {
                    ((SortedRun) run).files().forEach(f -> names.add(f.fileName()));
                }
            }
        }
        Collections.sort(names);
        ArrayNode files = out.putArray("files");
        names.forEach(files::add);
        return out;
    }

    private static Object field(Object o, String name) throws Exception {
        Field f = o.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(o);
    }

    /** An executor that keeps the one task submitted to it instead of running it. */
    private static final class CapturingExecutor extends AbstractExecutorService {
        Callable<?> task;

        @Override
        public <T> Future<T> submit(Callable<T> t) {
            if (task != null) {
                throw new IllegalStateException("a second compaction was submitted");
            }
            task = t;
            return new CompletableFuture<>();
        }

        @Override
        public void execute(Runnable command) {
            throw new UnsupportedOperationException("the pick command runs no task");
        }

        @Override
        public void shutdown() {}

        @Override
        public List<Runnable> shutdownNow() {
            return Collections.emptyList();
        }

        @Override
        public boolean isShutdown() {
            return false;
        }

        @Override
        public boolean isTerminated() {
            return false;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return true;
        }
    }

    /** MergeTreeCompactManagerFactory#createCompactStrategy, which reads only its arguments. */
    private static CompactStrategy createCompactStrategy(CoreOptions options, List<DataFileMeta> restored)
            throws Exception {
        MergeTreeCompactManagerFactory factory =
                new MergeTreeCompactManagerFactory(
                        null, null, null, null, null, null, options, null, null, null, null, null, null,
                        null, null);
        Method m =
                MergeTreeCompactManagerFactory.class.getDeclaredMethod(
                        "createCompactStrategy", CoreOptions.class, List.class);
        m.setAccessible(true);
        try {
            return (CompactStrategy) m.invoke(factory, options, restored);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException) {
                throw (RuntimeException) e.getCause();
            }
            throw e;
        }
    }

    /**
     * A deletion-vector maintainer holding one deleted row for each named file (its files are
     * never written: only deletionVectorOf is asked), or null without names.
     */
    private static BucketedDvMaintainer dvMaintainer(JsonNode names) {
        if (names == null || names.isNull()) {
            return null;
        }
        Map<String, DeletionVector> dvs = new LinkedHashMap<>();
        for (JsonNode n : names) {
            BitmapDeletionVector dv = new BitmapDeletionVector();
            dv.delete(0);
            dvs.put(n.asText(), dv);
        }
        IndexFileHandler handler =
                new IndexFileHandler(null, null, null, null, MemorySize.ofMebiBytes(2), false) {
                    @Override
                    public DeletionVectorsIndexFile dvIndex(BinaryRow partition, int bucket) {
                        return new DeletionVectorsIndexFile(null, null, MemorySize.ofMebiBytes(2), false);
                    }
                };
        return BucketedDvMaintainer.factory(handler).create(BinaryRow.EMPTY_ROW, 0, dvs);
    }

    private static List<DataFileMeta> files(JsonNode files) {
        List<DataFileMeta> out = new ArrayList<>();
        for (JsonNode f : files) {
            out.add(
                    DataFileMeta.create(
                            f.path("name").asText(),
                            f.path("size").asLong(),
                            1,
                            intKey(f.path("minKey").asInt()),
                            intKey(f.path("maxKey").asInt()),
                            SimpleStats.EMPTY_STATS,
                            SimpleStats.EMPTY_STATS,
                            f.path("minSeq").asLong(),
                            f.path("maxSeq").asLong(),
                            0,
                            f.path("level").asInt(),
                            Collections.emptyList(),
                            Timestamp.fromEpochMillis(f.path("creation").asLong()),
                            0L,
                            null,
                            FileSource.COMPACT,
                            null,
                            null,
                            null,
                            null));
        }
        return out;
    }

    private static BinaryRow intKey(int v) {
        BinaryRow row = new BinaryRow(1);
        BinaryRowWriter w = new BinaryRowWriter(row);
        w.writeInt(0, v);
        w.complete();
        return row;
    }
}
