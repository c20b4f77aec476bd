package io.github.paimonpkft.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.index.GlobalIndexMeta;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.index.pk.PrimaryKeyIndexSourceMeta;
import org.apache.paimon.index.pkfulltext.BucketedFullTextIndexMaintainer;
import org.apache.paimon.index.pkfulltext.BucketedFullTextIndexMaintainer.FullTextIndexCommit;
import org.apache.paimon.index.pkfulltext.BucketedFullTextIndexMaintainer.FullTextIndexIncrement;
import org.apache.paimon.index.pkfulltext.PkFullTextIndexBuilder;
import org.apache.paimon.index.pkfulltext.PkFullTextIndexFile;
import org.apache.paimon.index.pksorted.BucketedSortedIndexMaintainer;
import org.apache.paimon.index.pksorted.BucketedSortedIndexMaintainer.SortedIndexCommit;
import org.apache.paimon.index.pksorted.BucketedSortedIndexMaintainer.SortedIndexIncrement;
import org.apache.paimon.index.pksorted.PkSortedIndexFile;
import org.apache.paimon.index.pksorted.PkSortedIndexGroup;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.manifest.FileSource;
import org.apache.paimon.stats.SimpleStats;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * maintainer-scenario / sorted-maintainer-scenario: runs a decision-differential script (package
 * compat/internal/differential of the Go side documents the format) on Paimon's own
 * BucketedFullTextIndexMaintainer or, for a script of the sorted family, its
 * BucketedSortedIndexMaintainer, with a deterministic builder, and returns the trace.
 */
final class MaintainerCommands {

    private MaintainerCommands() {}

    static void register(Map<String, Main.Command> commands) {
        commands.put("maintainer-scenario", args -> new Scenario(requireFamily(args, false), FullTextSubject::new).run());
        commands.put("sorted-maintainer-scenario", args -> new Scenario(requireFamily(args, true), SortedSubject::new).run());
    }

    /** Refuses a script of the other family's command. */
    private static JsonNode requireFamily(JsonNode script, boolean sorted) {
        String family = script.path("family").asText("");
        if (sorted ? !(family.equals("btree") || family.equals("bitmap")) : !family.isEmpty()) {
            throw new IllegalArgumentException("script family '" + family + "' is not for this command");
        }
        return script;
    }

    /** The deterministic builder's failure; an error whose cause chain holds it is "buildFailed". */
    static final class BuildFailure extends RuntimeException {
        BuildFailure(String message) {
            super(message);
        }
    }

    /** The maintainer a script drives, whatever its family. */
    interface Subject {
        /** Calls prepareCommit; the returned handle aborts it and renders its increments. */
        Handle prepareCommit(DataIncrement append, CompactIncrement compact, JsonNode step) throws Exception;

        ObjectNode state() throws Exception;

        void close();
    }

    /** A successful prepareCommit: its increments (null for Optional.empty()) and its abort. */
    static final class Handle {
        final ObjectNode append;
        final ObjectNode compact;
        final Consumer<Throwable> abort;

        private Handle(ObjectNode append, ObjectNode compact, Consumer<Throwable> abort) {
            this.append = append;
            this.compact = compact;
            this.abort = abort;
        }

        /** A handle over a family's commit: its increments' new and deleted files, and its abort. */
        static <I> Handle of(Optional<I> append, Optional<I> compact, Function<I, List<IndexFileMeta>> created,
                Function<I, List<IndexFileMeta>> deleted, Consumer<Throwable> abort) {
            Function<I, ObjectNode> render = i -> increment(created.apply(i), deleted.apply(i));
            return new Handle(append.map(render).orElse(null), compact.map(render).orElse(null), abort);
        }
    }

    /** Restores a family's maintainer inside a scenario. */
    interface SubjectFactory {
        Subject create(Scenario scenario, List<DataFileMeta> files, List<IndexFileMeta> payloads) throws Exception;
    }

    /** Paimon's BucketedFullTextIndexMaintainer. */
    private static final class FullTextSubject implements Subject {
        private final BucketedFullTextIndexMaintainer m;

        FullTextSubject(Scenario sc, List<DataFileMeta> files, List<IndexFileMeta> payloads) {
            m = new BucketedFullTextIndexMaintainer(
                    sc.fieldId, sc.new RecordingIndexFile(), sc.new DeterministicBuilder(),
                    files, payloads, sc.new ScriptedExecutor());
        }

        @Override
        public Handle prepareCommit(DataIncrement append, CompactIncrement compact, JsonNode step) throws Exception {
            FullTextIndexCommit c = m.prepareCommit(append, compact, step.path("wait").asBoolean(false));
            return Handle.of(c.appendIncrement(), c.compactIncrement(), FullTextIndexIncrement::newIndexFiles,
                    FullTextIndexIncrement::deletedIndexFiles, c::abort);
        }

        @Override
        @SuppressWarnings("unchecked")
        public ObjectNode state() throws Exception {
            ObjectNode s = Main.JSON.createObjectNode();
            ArrayNode current = s.putArray("current");
            for (IndexFileMeta p : m.payloads()) {
                current.addObject().put("name", p.fileName())
                        .put("level", PrimaryKeyIndexSourceMeta.fromIndexFile(p).dataLevel());
            }
            ArrayNode retired = s.putArray("retired");
            for (IndexFileMeta p : (List<IndexFileMeta>) field(m, "retiredPayloads")) {
                retired.add(p.fileName());
            }
            activeAndPending(s, (Map<String, DataFileMeta>) field(m, "activeSourceFiles"), m.buildNotCompleted());
            return s;
        }

        @Override
        public void close() {
            m.close();
        }
    }

    /** Paimon's BucketedSortedIndexMaintainer for the script's index type. */
    private static final class SortedSubject implements Subject {
        private final BucketedSortedIndexMaintainer m;

        SortedSubject(Scenario sc, List<DataFileMeta> files, List<IndexFileMeta> payloads) {
            m = new BucketedSortedIndexMaintainer(
                    sc.fieldId, sc.family, sc.new RecordingSortedIndexFile(), sc::build,
                    files, payloads, sc.new ScriptedExecutor());
        }

        @Override
        public Handle prepareCommit(DataIncrement append, CompactIncrement compact, JsonNode step) throws Exception {
            SortedIndexCommit c = m.prepareCommit(append, compact, step.path("wait").asBoolean(false),
                    !step.path("noBuildStart").asBoolean(false));
            return Handle.of(c.appendIncrement(), c.compactIncrement(), SortedIndexIncrement::newIndexFiles,
                    SortedIndexIncrement::deletedIndexFiles, c::abort);
        }

        @Override
        @SuppressWarnings("unchecked")
        public ObjectNode state() throws Exception {
            ObjectNode s = Main.JSON.createObjectNode();
            ArrayNode current = s.putArray("current");
            for (PkSortedIndexGroup g : (List<PkSortedIndexGroup>) field(m, "groups")) {
                for (IndexFileMeta p : g.payloads()) {
                    current.addObject().put("name", p.fileName()).put("level", g.dataLevel());
                }
            }
            ArrayNode retired = s.putArray("retired");
            for (IndexFileMeta p : (List<IndexFileMeta>) field(m, "pendingRestoredDeletions")) {
                retired.add(p.fileName());
            }
            activeAndPending(s, (Map<String, DataFileMeta>) field(m, "activeSourceFiles"), m.buildNotCompleted());
            s.put("pendingMaintenance", m.hasPendingMaintenance());
            return s;
        }

        @Override
        public void close() {
            m.close();
        }
    }

    /** Adds the active source files (sorted by name) and the pending flag to a state. */
    private static void activeAndPending(ObjectNode s, Map<String, DataFileMeta> activeFiles, boolean pending) {
        List<DataFileMeta> active = new ArrayList<>(activeFiles.values());
        active.sort((a, b) -> a.fileName().compareTo(b.fileName()));
        ArrayNode activeNode = s.putArray("active");
        for (DataFileMeta f : active) {
            activeNode.addObject().put("name", f.fileName()).put("level", f.level())
                    .put("rows", f.rowCount()).put("source", f.fileSource().map(Enum::name).orElse(""));
        }
        s.put("buildPending", pending);
    }

    static final class Scenario {
        private final JsonNode script;
        private final int fieldId;
        /** "" for the full-text family, else the sorted definition's index type. */
        private final String family;
        private final SubjectFactory factory;
        private final Map<String, DataFileMeta> introduced = new HashMap<>();

        // The deterministic builder's state.
        private final Deque<String> outcomes = new ArrayDeque<>();
        private final Map<String, Integer> attempts = new HashMap<>();
        private final List<ObjectNode> records = new ArrayList<>();
        private final List<String> deleted = new ArrayList<>();
        private final Deque<Runnable> later = new ArrayDeque<>();
        private String runningOutcome = "succeed";
        /** The attempts the running sorted-family build request has made. */
        private int runningAttempt;

        Scenario(JsonNode script, SubjectFactory factory) {
            this.script = script;
            this.fieldId = script.path("fieldId").asInt();
            this.family = script.path("family").asText("");
            this.factory = factory;
        }

        private boolean sorted() {
            return !family.isEmpty();
        }

        JsonNode run() throws Exception {
            ObjectNode trace = Main.JSON.createObjectNode();
            List<DataFileMeta> restoredFiles = files(script.path("restore").path("dataFiles"));
            List<IndexFileMeta> restoredPayloads = new ArrayList<>();
            for (JsonNode p : script.path("restore").path("payloads")) {
                IndexFileMeta meta = payload(p);
                restoredPayloads.add(meta);
                for (JsonNode c : p.path("corrupt")) {
                    if (c.asText().equals("duplicate")) {
                        restoredPayloads.add(meta);
                    }
                }
            }
            Subject maintainer;
            try {
                maintainer = factory.create(this, restoredFiles, restoredPayloads);
            } catch (Throwable t) {
                trace.put("restoreError", classify(t));
                trace.put("restoreMessage", String.valueOf(t.getMessage()));
                trace.set("restored", emptyState());
                trace.putArray("steps");
                ObjectNode close = trace.putObject("close");
                close.put("error", "");
                close.putArray("builds");
                close.putArray("deleted");
                return trace;
            }
            trace.put("restoreError", "");
            trace.set("restored", maintainer.state());
            ArrayNode steps = trace.putArray("steps");
            Handle lastCommit = null;
            for (JsonNode step : script.path("steps")) {
                int recordMark = records.size();
                int deleteMark = deleted.size();
                runLater();
                ObjectNode st = steps.addObject();
                String op = step.path("op").asText();
                st.put("op", op);
                st.putNull("append");
                st.putNull("compact");
                String error = "";
                String message = null;
                Handle commit = null;
                if (op.equals("abort")) {
                    if (lastCommit == null) {
                        st.put("skipped", true);
                    } else {
                        try {
                            lastCommit.abort.accept(new RuntimeException("aborted by the scenario"));
                        } catch (Throwable t) {
                            error = classify(t);
                            message = String.valueOf(t.getMessage());
                        }
                    }
                } else {
                    outcomes.clear();
                    step.path("builds").forEach(o -> outcomes.add(o.asText()));
                    List<DataFileMeta> append = files(step.path("append"));
                    List<DataFileMeta> before = new ArrayList<>();
                    for (JsonNode name : step.path("compactBefore")) {
                        before.add(
                                introduced.getOrDefault(
                                        name.asText(), dataFile(name.asText(), 0, 1, "APPEND")));
                    }
                    List<DataFileMeta> after = files(step.path("compactAfter"));
                    try {
                        commit =
                                maintainer.prepareCommit(
                                        new DataIncrement(append, Collections.emptyList(), Collections.emptyList()),
                                        new CompactIncrement(before, after, Collections.emptyList()),
                                        step);
                        if (commit.append != null) {
                            st.set("append", commit.append);
                        }
                        if (commit.compact != null) {
                            st.set("compact", commit.compact);
                        }
                    } catch (Throwable t) {
                        error = classify(t);
                        message = String.valueOf(t.getMessage());
                    }
                }
                lastCommit = commit;
                st.put("error", error);
                if (message != null) {
                    st.put("message", message);
                }
                st.set("builds", since(records, recordMark));
                st.set("deleted", namesSince(deleteMark));
                st.set("state", maintainer.state());
            }
            int recordMark = records.size();
            int deleteMark = deleted.size();
            ObjectNode close = trace.putObject("close");
            String error = "";
            try {
                runLater();
                maintainer.close();
            } catch (Throwable t) {
                error = classify(t);
                close.put("message", String.valueOf(t.getMessage()));
            }
            close.put("error", error);
            close.set("builds", since(records, recordMark));
            close.set("deleted", namesSince(deleteMark));
            return trace;
        }

        private void runLater() {
            while (!later.isEmpty()) {
                later.poll().run();
            }
        }

        private List<DataFileMeta> files(JsonNode array) {
            List<DataFileMeta> out = new ArrayList<>();
            for (JsonNode f : array) {
                DataFileMeta meta =
                        dataFile(f.path("name").asText(), f.path("level").asInt(), f.path("rows").asLong(),
                                f.path("source").asText(""));
                introduced.put(meta.fileName(), meta);
                out.add(meta);
            }
            return out;
        }

        private ObjectNode emptyState() {
            ObjectNode s = Main.JSON.createObjectNode();
            s.putArray("current");
            s.putArray("retired");
            s.putArray("active");
            s.put("buildPending", false);
            return s;
        }

        private ArrayNode namesSince(int mark) {
            ArrayNode out = Main.JSON.createArrayNode();
            deleted.subList(mark, deleted.size()).forEach(out::add);
            return out;
        }

        /** The deletions the maintainer asks for, recorded instead of performed. */
        private final class RecordingIndexFile extends PkFullTextIndexFile {
            RecordingIndexFile() {
                super(null, null);
            }

            @Override
            public void delete(IndexFileMeta file) {
                synchronized (Scenario.this) {
                    deleted.add(file.fileName());
                }
            }
        }

        /** Builds by the script's outcomes; names derive from the requested files. */
        private final class DeterministicBuilder extends PkFullTextIndexBuilder {
            DeterministicBuilder() {
                super(null, null, null, null);
            }

            @Override
            public IndexFileMeta build(DataFileMeta sourceFile) throws IOException {
                return build(Collections.singletonList(sourceFile));
            }

            @Override
            public IndexFileMeta build(List<DataFileMeta> files) throws IOException {
                return Scenario.this.build(files);
            }
        }

        /** The sorted family's deletions, recorded instead of performed. */
        private final class RecordingSortedIndexFile extends PkSortedIndexFile {
            RecordingSortedIndexFile() {
                super(null, null);
            }

            @Override
            public void delete(IndexFileMeta file) {
                synchronized (Scenario.this) {
                    deleted.add(file.fileName());
                }
            }
        }

        /**
         * The deterministic builder: builds by the running request's outcome; names derive from the
         * requested files. A sorted-family request may be attempted several times: each call is one
         * attempt of the running request.
         */
        IndexFileMeta build(List<DataFileMeta> files) throws IOException {
            synchronized (this) {
                String outcome = runningOutcome;
                int attempt = sorted() ? ++runningAttempt : 0;
                if (files.isEmpty()) {
                    throw new BuildFailure("no files requested");
                }
                int level = files.get(0).level();
                StringBuilder text = new StringBuilder();
                ArrayNode sources = Main.JSON.createArrayNode();
                for (DataFileMeta f : files) {
                    text.append(f.fileName()).append(':').append(f.rowCount()).append('\n');
                    sources.addObject().put("name", f.fileName()).put("rows", f.rowCount());
                }
                String key = "ft-L" + level + "-" + sha1(text.toString()).substring(0, 8);
                ObjectNode rec = Main.JSON.createObjectNode();
                rec.put("key", key).put("level", level);
                rec.set("files", sources);
                rec.put("outcome", outcome);
                if (attempt > 0) {
                    rec.put("attempt", attempt);
                }
                if (outcome.equals("fail") || outcome.equals("failLater")
                        || (outcome.equals("failOnce") && attempt == 1)) {
                    records.add(rec);
                    throw new BuildFailure("deterministic build failure: " + key + " (" + outcome + ")");
                }
                int generation = attempts.merge(key, 1, Integer::sum);
                String name = key + "-" + generation;
                rec.put("name", name);
                records.add(rec);
                int field = outcome.equals("wrongField") ? fieldId + 1 : fieldId;
                int recordedLevel = outcome.equals("wrongLevel") ? level + 1 : level;
                List<String[]> named = new ArrayList<>();
                for (DataFileMeta f : files) {
                    named.add(new String[] {f.fileName(), String.valueOf(f.rowCount())});
                }
                IndexFileMeta meta = archive(indexType(), name, field, recordedLevel, named);
                if (outcome.equals("wrongRows")) {
                    meta = new IndexFileMeta(meta.indexType(), meta.fileName(), meta.fileSize(),
                            meta.rowCount() + 1, meta.globalIndexMeta(), meta.externalPath());
                }
                return meta;
            }
        }

        /** The index type of the script's payloads. */
        private String indexType() {
            return sorted() ? family : "full-text";
        }

        /**
         * Runs a build at once or queues it for the start of the next step, by the outcome the
         * build request takes from the current step's list.
         */
        private final class ScriptedExecutor extends AbstractExecutorService {
            @Override
            public void execute(Runnable task) {
                String outcome = outcomes.isEmpty() ? "succeed" : outcomes.poll();
                Runnable bound = () -> {
                    runningOutcome = outcome;
                    runningAttempt = 0;
                    try {
                        task.run();
                    } finally {
                        runningOutcome = "succeed";
                    }
                };
                if (outcome.equals("finishLater") || outcome.equals("failLater")) {
                    later.add(bound);
                } else {
                    bound.run();
                }
            }

            @Override
            public void shutdown() {}

            @Override
            public List<Runnable> shutdownNow() {
                return new ArrayList<>(later);
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

        private IndexFileMeta payload(JsonNode p) throws IOException {
            List<String[]> files = new ArrayList<>();
            for (JsonNode f : p.path("files")) {
                files.add(new String[] {f.path("name").asText(), String.valueOf(f.path("rows").asLong())});
            }
            IndexFileMeta m = archive(indexType(), p.path("name").asText(), fieldId, p.path("level").asInt(), files);
            String indexType = m.indexType();
            long rowCount = m.rowCount();
            GlobalIndexMeta g = m.globalIndexMeta();
            long rangeEnd = g.rowRangeEnd();
            int field = g.indexFieldId();
            byte[] sourceMeta = g.sourceMeta();
            boolean noGlobal = false;
            for (JsonNode c : p.path("corrupt")) {
                switch (c.asText()) {
                    case "rowCount":
                        rowCount++;
                        break;
                    case "rowRange":
                        rangeEnd++;
                        break;
                    case "otherField":
                        field = fieldId + 1;
                        break;
                    case "otherFieldNoMeta":
                        field = fieldId + 1;
                        sourceMeta = null;
                        break;
                    case "unparsableMeta":
                        if (sourceMeta != null && sourceMeta.length >= 4) {
                            sourceMeta[3] = 99;
                        }
                        break;
                    case "trailingBytes":
                        if (sourceMeta != null) {
                            byte[] longer = new byte[sourceMeta.length + 1];
                            System.arraycopy(sourceMeta, 0, longer, 0, sourceMeta.length);
                            sourceMeta = longer;
                        }
                        break;
                    case "noGlobalMeta":
                        noGlobal = true;
                        break;
                    case "otherType":
                        indexType = family.equals("btree") ? "bitmap" : "btree";
                        break;
                    default:
                        break;
                }
            }
            GlobalIndexMeta global =
                    noGlobal ? null : new GlobalIndexMeta(g.rowRangeStart(), rangeEnd, field, null, null, sourceMeta);
            return new IndexFileMeta(indexType, m.fileName(), m.fileSize(), rowCount, global, null);
        }
    }

    /** The payload rule: a payload of indexType named name over files on level for field. */
    static IndexFileMeta archive(String indexType, String name, int field, int level, List<String[]> files)
            throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(1);
        out.writeInt(level);
        out.writeInt(files.size());
        long total = 0;
        for (String[] f : files) {
            out.writeUTF(f[0]);
            long rows = Long.parseLong(f[1]);
            out.writeLong(rows);
            total += rows;
        }
        out.flush();
        return new IndexFileMeta(
                indexType, name, total, total,
                new GlobalIndexMeta(0, total - 1, field, null, null, bytes.toByteArray()), null);
    }

    static DataFileMeta dataFile(String name, int level, long rows, String source) {
        FileSource fs = source.isEmpty() ? null : FileSource.valueOf(source);
        DataFileMeta meta =
                DataFileMeta.forAppend(name, 100 * rows, rows, SimpleStats.EMPTY_STATS, 0, 0, 0,
                        Collections.emptyList(), null, fs, null, null, null, null);
        return level > 0 ? meta.upgrade(level) : meta;
    }

    private static ObjectNode increment(List<IndexFileMeta> newFiles, List<IndexFileMeta> deletedFiles) {
        ObjectNode out = Main.JSON.createObjectNode();
        ArrayNode created = out.putArray("new");
        newFiles.forEach(f -> created.add(f.fileName()));
        ArrayNode removed = out.putArray("deleted");
        deletedFiles.forEach(f -> removed.add(f.fileName()));
        return out;
    }

    private static ArrayNode since(List<ObjectNode> records, int mark) {
        ArrayNode out = Main.JSON.createArrayNode();
        records.subList(mark, records.size()).forEach(out::add);
        return out;
    }

    /** The error classes the Go side compares. */
    static String classify(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof BuildFailure) {
                return "buildFailed";
            }
        }
        String message = String.valueOf(t.getMessage());
        if (t instanceof IllegalArgumentException
                && (message.contains("Append files must not be primary-key full-text index sources")
                        || message.contains("Append files must not be primary-key sorted index sources"))) {
            return "invalidAppend";
        }
        return "other";
    }

    private static Object field(Object target, String name) throws Exception {
        Field f = target.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(target);
    }

    private static String sha1(String text) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            StringBuilder sb = new StringBuilder();
            for (byte b : d) {
                sb.append(String.format("%02x", b & 0xff));
            }
            return sb.toString();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
