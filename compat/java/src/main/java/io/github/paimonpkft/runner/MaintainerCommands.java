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

/**
 * maintainer-scenario: runs a decision-differential script (package compat/differential of the Go
 * side documents the format) on Paimon's own BucketedFullTextIndexMaintainer with a deterministic
 * builder, and returns the trace.
 */
final class MaintainerCommands {

    private MaintainerCommands() {}

    static void register(Map<String, Main.Command> commands) {
        commands.put("maintainer-scenario", args -> new Scenario(args).run());
    }

    /** The deterministic builder's failure; an error whose cause chain holds it is "buildFailed". */
    static final class BuildFailure extends RuntimeException {
        BuildFailure(String message) {
            super(message);
        }
    }

    private static final class Scenario {
        private final JsonNode script;
        private final int fieldId;
        private final Map<String, DataFileMeta> introduced = new HashMap<>();

        // The deterministic builder's state.
        private final Deque<String> outcomes = new ArrayDeque<>();
        private final Map<String, Integer> attempts = new HashMap<>();
        private final List<ObjectNode> records = new ArrayList<>();
        private final List<String> deleted = new ArrayList<>();
        private final Deque<Runnable> later = new ArrayDeque<>();
        private String runningOutcome = "succeed";

        Scenario(JsonNode script) {
            this.script = script;
            this.fieldId = script.path("fieldId").asInt();
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
            BucketedFullTextIndexMaintainer maintainer;
            try {
                maintainer =
                        new BucketedFullTextIndexMaintainer(
                                fieldId, new RecordingIndexFile(), new DeterministicBuilder(),
                                restoredFiles, restoredPayloads, new ScriptedExecutor());
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
            trace.set("restored", state(maintainer));
            ArrayNode steps = trace.putArray("steps");
            FullTextIndexCommit lastCommit = null;
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
                FullTextIndexCommit commit = null;
                if (op.equals("abort")) {
                    if (lastCommit == null) {
                        st.put("skipped", true);
                    } else {
                        try {
                            lastCommit.abort(new RuntimeException("aborted by the scenario"));
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
                                        step.path("wait").asBoolean(false));
                        commit.appendIncrement().ifPresent(i -> st.set("append", increment(i)));
                        commit.compactIncrement().ifPresent(i -> st.set("compact", increment(i)));
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
                st.set("state", state(maintainer));
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

        @SuppressWarnings("unchecked")
        private ObjectNode state(BucketedFullTextIndexMaintainer m) throws Exception {
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
            List<DataFileMeta> active =
                    new ArrayList<>(((Map<String, DataFileMeta>) field(m, "activeSourceFiles")).values());
            active.sort((a, b) -> a.fileName().compareTo(b.fileName()));
            ArrayNode activeNode = s.putArray("active");
            for (DataFileMeta f : active) {
                activeNode.addObject().put("name", f.fileName()).put("level", f.level())
                        .put("rows", f.rowCount()).put("source", f.fileSource().map(Enum::name).orElse(""));
            }
            s.put("buildPending", m.buildNotCompleted());
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
                synchronized (Scenario.this) {
                    String outcome = runningOutcome;
                    if (files.isEmpty()) {
                        throw new BuildFailure("no files requested");
                    }
                    int level = files.get(0).level();
                    StringBuilder text = new StringBuilder();
                    ArrayNode sources = Main.JSON.createArrayNode();
                    long total = 0;
                    for (DataFileMeta f : files) {
                        text.append(f.fileName()).append(':').append(f.rowCount()).append('\n');
                        sources.addObject().put("name", f.fileName()).put("rows", f.rowCount());
                        total += f.rowCount();
                    }
                    String key = "ft-L" + level + "-" + sha1(text.toString()).substring(0, 8);
                    ObjectNode rec = Main.JSON.createObjectNode();
                    rec.put("key", key).put("level", level);
                    rec.set("files", sources);
                    rec.put("outcome", outcome);
                    if (outcome.equals("fail") || outcome.equals("failLater")) {
                        records.add(rec);
                        throw new BuildFailure("deterministic build failure: " + key + " (" + outcome + ")");
                    }
                    int attempt = attempts.merge(key, 1, Integer::sum);
                    String name = key + "-" + attempt;
                    rec.put("name", name);
                    records.add(rec);
                    int field = outcome.equals("wrongField") ? fieldId + 1 : fieldId;
                    List<String[]> named = new ArrayList<>();
                    for (DataFileMeta f : files) {
                        named.add(new String[] {f.fileName(), String.valueOf(f.rowCount())});
                    }
                    IndexFileMeta meta = archive(name, field, level, named);
                    if (outcome.equals("wrongRows")) {
                        meta = new IndexFileMeta(meta.indexType(), meta.fileName(), meta.fileSize(),
                                meta.rowCount() + 1, meta.globalIndexMeta(), meta.externalPath());
                    }
                    return meta;
                }
            }
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
            IndexFileMeta m = archive(p.path("name").asText(), fieldId, p.path("level").asInt(), files);
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
                        indexType = "btree";
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

    /** The payload rule: an archive named name over files on level for field. */
    static IndexFileMeta archive(String name, int field, int level, List<String[]> files) throws IOException {
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
                "full-text", name, total, total,
                new GlobalIndexMeta(0, total - 1, field, null, null, bytes.toByteArray()), null);
    }

    static DataFileMeta dataFile(String name, int level, long rows, String source) {
        FileSource fs = source.isEmpty() ? null : FileSource.valueOf(source);
        DataFileMeta meta =
                DataFileMeta.forAppend(name, 100 * rows, rows, SimpleStats.EMPTY_STATS, 0, 0, 0,
                        Collections.emptyList(), null, fs, null, null, null, null);
        return level > 0 ? meta.upgrade(level) : meta;
    }

    private static ObjectNode increment(FullTextIndexIncrement increment) {
        ObjectNode out = Main.JSON.createObjectNode();
        ArrayNode created = out.putArray("new");
        increment.newIndexFiles().forEach(f -> created.add(f.fileName()));
        ArrayNode removed = out.putArray("deleted");
        increment.deletedIndexFiles().forEach(f -> removed.add(f.fileName()));
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
        if (t instanceof IllegalArgumentException
                && String.valueOf(t.getMessage()).contains("Append files must not be primary-key full-text index sources")) {
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
