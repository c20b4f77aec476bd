package io.github.paimonpkft.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.index.DeletionVectorMeta;
import org.apache.paimon.index.GlobalIndexMeta;
import org.apache.paimon.globalindex.SortedIndexFileMeta;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.index.pk.PrimaryKeyIndexDefinition;
import org.apache.paimon.index.pk.PrimaryKeyIndexDefinitions;
import org.apache.paimon.index.pk.PrimaryKeyIndexLevels;
import org.apache.paimon.index.pk.PrimaryKeyIndexSourceMeta;
import org.apache.paimon.index.pk.PrimaryKeyIndexSourcePolicy;
import org.apache.paimon.index.pkfulltext.PkFullTextBucketIndexState;
import org.apache.paimon.index.pksorted.PkSortedBucketIndexState;
import org.apache.paimon.index.pksorted.PkSortedIndexGroup;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.FileKind;
import org.apache.paimon.manifest.IndexManifestEntry;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * dump: the canonical dump of the latest snapshot (ARCHITECTURE.md section 3), in the JSON the Go
 * side's inspect.Dump prints. The bucket state and plan are computed by Paimon's own
 * PkFullTextBucketIndexState and PrimaryKeyIndexLevels; the state of each sorted index definition
 * (PrimaryKeyIndexDefinitions) by PkSortedBucketIndexState and PrimaryKeyIndexLevels over its
 * groups.
 */
final class DumpCommand {

    /** What the dump records for source meta that does not parse, on both sides. */
    static final String UNPARSABLE = "unparsable";

    private DumpCommand() {}

    static void register(Map<String, Main.Command> commands) {
        commands.put("dump", DumpCommand::dump);
    }

    private static JsonNode dump(JsonNode args) {
        FileStoreTable table = TableCommands.open(args);
        Snapshot snap = table.snapshotManager().latestSnapshot();
        if (snap == null) {
            throw new IllegalStateException("table has no snapshot");
        }
        TableSchema schema = table.schemaManager().schema(snap.schemaId());
        ObjectNode out = Main.JSON.createObjectNode();
        out.put("snapshotId", snap.id());
        out.put("commitKind", snap.commitKind().name());
        out.set("schema", schema(schema));

        Map<String, Bucket> buckets = new TreeMap<>();
        for (ManifestEntry e : table.store().newScan().withSnapshot(snap).plan().files()) {
            bucket(buckets, e.partition(), e.bucket()).dataFiles.add(e.file());
        }
        if (snap.indexManifest() != null) {
            for (IndexManifestEntry e : table.store().indexManifestFileFactory().create().read(snap.indexManifest())) {
                if (e.kind() == FileKind.ADD) {
                    bucket(buckets, e.partition(), e.bucket()).indexFiles.add(e.indexFile());
                }
            }
        }
        RowType partitionType = schema.logicalPartitionType();
        Integer textFieldId = fullTextFieldId(schema);
        List<PrimaryKeyIndexDefinition> sorted = new ArrayList<>();
        for (PrimaryKeyIndexDefinition def : PrimaryKeyIndexDefinitions.create(schema).definitions()) {
            if (def.family() == PrimaryKeyIndexDefinition.Family.BTREE
                    || def.family() == PrimaryKeyIndexDefinition.Family.BITMAP) {
                sorted.add(def);
            }
        }
        ArrayNode bucketNodes = out.putArray("buckets");
        for (Bucket b : buckets.values()) {
            ObjectNode bucketNode = bucket(partitionType, textFieldId, b);
            if (!sorted.isEmpty()) {
                ArrayNode states = bucketNode.putArray("sorted");
                for (PrimaryKeyIndexDefinition def : sorted) {
                    states.add(sortedState(def, b));
                }
            }
            bucketNodes.add(bucketNode);
        }
        return out;
    }

    private static final class Bucket {
        final BinaryRow partition;
        final int bucket;
        final List<DataFileMeta> dataFiles = new ArrayList<>();
        final List<IndexFileMeta> indexFiles = new ArrayList<>();

        Bucket(BinaryRow partition, int bucket) {
            this.partition = partition;
            this.bucket = bucket;
        }
    }

    /** Buckets are keyed like the Go side orders them: partition bytes, then bucket. */
    private static Bucket bucket(Map<String, Bucket> buckets, BinaryRow partition, int bucket) {
        byte[] bytes = org.apache.paimon.utils.SerializationUtils.serializeBinaryRow(partition);
        StringBuilder key = new StringBuilder();
        for (byte x : bytes) {
            key.append(String.format("%02x", x & 0xff));
        }
        key.append(String.format("/%011d", (long) bucket + Integer.MAX_VALUE));
        return buckets.computeIfAbsent(key.toString(), k -> new Bucket(partition, bucket));
    }

    private static ObjectNode schema(TableSchema schema) {
        ObjectNode s = Main.JSON.createObjectNode();
        s.put("id", schema.id());
        ArrayNode fields = s.putArray("fields");
        for (DataField f : schema.fields()) {
            fields.addObject().put("id", f.id()).put("name", f.name()).put("type", f.type().asSQLString());
        }
        schema.primaryKeys().forEach(s.putArray("primaryKeys")::add);
        schema.partitionKeys().forEach(s.putArray("partitionKeys")::add);
        ObjectNode options = s.putObject("options");
        new TreeMap<>(schema.options()).forEach(options::put);
        return s;
    }

    private static Integer fullTextFieldId(TableSchema schema) {
        List<String> columns = new CoreOptions(schema.options()).primaryKeyFullTextIndexColumns();
        if (columns.isEmpty()) {
            return null;
        }
        for (DataField f : schema.fields()) {
            if (f.name().equals(columns.get(0))) {
                return f.id();
            }
        }
        return -1;
    }

    private static ObjectNode bucket(RowType partitionType, Integer textFieldId, Bucket b) {
        ObjectNode out = Main.JSON.createObjectNode();
        ObjectNode partition = out.putObject("partition");
        for (int i = 0; i < partitionType.getFieldCount(); i++) {
            DataField f = partitionType.getFields().get(i);
            Object v = InternalRow.createFieldGetter(f.type(), i).getFieldOrNull(b.partition);
            Values.put(partition, f.name(), f.type(), v, true);
        }
        out.put("bucket", b.bucket);
        b.dataFiles.sort(Comparator.comparingInt(DataFileMeta::level).thenComparing(DataFileMeta::fileName));
        ArrayNode data = out.putArray("dataFiles");
        for (DataFileMeta f : b.dataFiles) {
            ObjectNode d = data.addObject();
            d.put("fileName", f.fileName());
            d.put("level", f.level());
            d.put("rowCount", f.rowCount());
            d.put("fileSource", f.fileSource().map(Enum::name).orElse("null"));
            d.put("minSequenceNumber", f.minSequenceNumber());
            d.put("maxSequenceNumber", f.maxSequenceNumber());
            Optional<Long> deletes = f.deleteRowCount();
            if (deletes.isPresent()) {
                d.put("deleteRowCount", deletes.get());
            } else {
                d.putNull("deleteRowCount");
            }
        }
        b.indexFiles.sort(Comparator.comparing(IndexFileMeta::indexType).thenComparing(IndexFileMeta::fileName));
        ArrayNode index = out.putArray("indexFiles");
        for (IndexFileMeta f : b.indexFiles) {
            index.add(indexFile(f));
        }
        if (textFieldId != null) {
            state(out, textFieldId, b);
        }
        return out;
    }

    private static ObjectNode indexFile(IndexFileMeta f) {
        ObjectNode d = Main.JSON.createObjectNode();
        d.put("indexType", f.indexType());
        d.put("fileName", f.fileName());
        d.put("fileSize", f.fileSize());
        d.put("rowCount", f.rowCount());
        d.put("externalPath", f.externalPath());
        GlobalIndexMeta g = f.globalIndexMeta();
        if (g == null) {
            d.putNull("globalIndex");
        } else {
            ObjectNode gd = d.putObject("globalIndex");
            gd.put("rowRangeStart", g.rowRangeStart());
            gd.put("rowRangeEnd", g.rowRangeEnd());
            gd.put("indexFieldId", g.indexFieldId());
            if (g.extraFieldIds() == null) {
                gd.putNull("extraFieldIds");
            } else {
                Arrays.stream(g.extraFieldIds()).forEach(gd.putArray("extraFieldIds")::add);
            }
            if (g.indexMeta() == null) {
                gd.putNull("indexMeta");
            } else if (f.indexType().equals("btree") || f.indexType().equals("bitmap")) {
                gd.set("indexMeta", sortedIndexMeta(g.indexMeta()));
            } else {
                String text = new String(g.indexMeta(), java.nio.charset.StandardCharsets.UTF_8);
                try {
                    gd.set("indexMeta", Main.JSON.readTree(text));
                } catch (Exception e) {
                    gd.put("indexMeta", text);
                }
            }
            if (g.sourceMeta() == null) {
                gd.putNull("sourceMeta");
            } else {
                ObjectNode sm = gd.putObject("sourceMeta");
                try {
                    PrimaryKeyIndexSourceMeta meta = PrimaryKeyIndexSourceMeta.deserialize(g.sourceMeta());
                    sm.put("dataLevel", meta.dataLevel());
                    ArrayNode files = sm.putArray("files");
                    meta.sourceFiles().forEach(s -> files.addObject().put("fileName", s.fileName()).put("rowCount", s.rowCount()));
                } catch (Exception e) {
                    sm.removeAll();
                    sm.put("error", UNPARSABLE);
                }
            }
        }
        LinkedHashMap<String, DeletionVectorMeta> ranges = f.dvRanges();
        if (ranges != null && !ranges.isEmpty()) {
            ArrayNode dvs = d.putArray("deletionVectors");
            for (DeletionVectorMeta r : ranges.values()) {
                ObjectNode rn = dvs.addObject();
                rn.put("dataFile", r.dataFileName());
                rn.put("offset", r.offset());
                rn.put("length", r.length());
                if (r.cardinality() == null) {
                    rn.putNull("cardinality");
                } else {
                    rn.put("cardinality", r.cardinality());
                }
            }
        }
        return d;
    }

    /** The full-text state and next plan, from Paimon's own classes. */
    private static void state(ObjectNode out, int textFieldId, Bucket b) {
        ObjectNode st = out.putObject("state");
        try {
            List<DataFileMeta> eligible = new ArrayList<>();
            Map<String, DataFileMeta> active = new LinkedHashMap<>();
            ObjectNode byLevel = Main.JSON.createObjectNode();
            for (DataFileMeta f : b.dataFiles) {
                if (PrimaryKeyIndexSourcePolicy.shouldRead(f)) {
                    eligible.add(f);
                    active.put(f.fileName(), f);
                    ArrayNode names = byLevel.has(String.valueOf(f.level()))
                            ? (ArrayNode) byLevel.get(String.valueOf(f.level()))
                            : byLevel.putArray(String.valueOf(f.level()));
                    names.add(f.fileName());
                }
            }
            PkFullTextBucketIndexState state =
                    PkFullTextBucketIndexState.fromActiveDataFiles(textFieldId, eligible, b.indexFiles);
            st.set("eligible", byLevel);
            ObjectNode current = st.putObject("current");
            for (IndexFileMeta p : state.currentPayloads()) {
                current.put(String.valueOf(PrimaryKeyIndexSourceMeta.fromIndexFile(p).dataLevel()), p.fileName());
            }
            List<String> stale = new ArrayList<>();
            state.stalePayloads().forEach(p -> stale.add(p.fileName()));
            Collections.sort(stale);
            stale.forEach(st.putArray("stale")::add);

            PrimaryKeyIndexLevels<IndexFileMeta> levels =
                    new PrimaryKeyIndexLevels<>(
                            p -> PrimaryKeyIndexSourceMeta.fromIndexFile(p).dataLevel(),
                            p -> PrimaryKeyIndexSourceMeta.fromIndexFile(p).sourceFiles());
            Optional<PrimaryKeyIndexLevels.Plan<IndexFileMeta>> plan = levels.pick(state.currentPayloads(), active);
            if (plan.isPresent()) {
                ObjectNode pd = out.putObject("plan");
                pd.put("level", plan.get().dataLevel());
                ArrayNode input = pd.putArray("input");
                plan.get().inputUnits().forEach(p -> input.add(p.fileName()));
                ArrayNode files = pd.putArray("files");
                plan.get().sourceFiles().forEach(f -> files.add(f.fileName()));
            }
        } catch (RuntimeException e) {
            st.removeAll();
            st.put("error", "error");
        }
    }

    /** A btree or bitmap payload's SortedIndexFileMeta: keys in base64 (null for a null key). */
    private static ObjectNode sortedIndexMeta(byte[] bytes) {
        ObjectNode m = Main.JSON.createObjectNode();
        try {
            SortedIndexFileMeta meta = SortedIndexFileMeta.deserialize(bytes);
            m.put("firstKey", meta.firstKey() == null ? null : Base64.getEncoder().encodeToString(meta.firstKey()));
            m.put("lastKey", meta.lastKey() == null ? null : Base64.getEncoder().encodeToString(meta.lastKey()));
            m.put("hasNulls", meta.hasNulls());
        } catch (RuntimeException e) {
            m.removeAll();
            m.put("error", UNPARSABLE);
        }
        return m;
    }

    /**
     * One sorted definition's state in a bucket, as its maintainer restores it: the definition's
     * payloads classified by PkSortedBucketIndexState and the next plan over the groups.
     */
    private static ObjectNode sortedState(PrimaryKeyIndexDefinition def, Bucket b) {
        ObjectNode d = Main.JSON.createObjectNode();
        d.put("indexType", def.indexType());
        d.put("column", def.column());
        d.put("fieldId", def.fieldId());
        try {
            List<IndexFileMeta> own = new ArrayList<>();
            for (IndexFileMeta p : b.indexFiles) {
                if (def.indexType().equals(p.indexType())
                        && p.globalIndexMeta() != null
                        && p.globalIndexMeta().indexFieldId() == def.fieldId()) {
                    own.add(p);
                }
            }
            List<DataFileMeta> eligible = new ArrayList<>();
            Map<String, DataFileMeta> active = new LinkedHashMap<>();
            for (DataFileMeta f : b.dataFiles) {
                if (PrimaryKeyIndexSourcePolicy.shouldRead(f)) {
                    eligible.add(f);
                    active.put(f.fileName(), f);
                }
            }
            PkSortedBucketIndexState st =
                    PkSortedBucketIndexState.fromActiveDataFiles(def.fieldId(), def.indexType(), eligible, own);
            ArrayNode groups = d.putArray("groups");
            for (PkSortedIndexGroup g : st.groups()) {
                ObjectNode gn = groups.addObject();
                gn.put("level", g.dataLevel());
                ArrayNode sources = gn.putArray("sources");
                g.sourceFiles().forEach(f -> sources.add(f.fileName()));
                ArrayNode payloads = gn.putArray("payloads");
                g.payloads().forEach(p -> payloads.add(p.fileName()));
            }
            ArrayNode covered = d.putArray("covered");
            st.coveredSourceFiles().forEach(f -> covered.add(f.fileName()));
            ArrayNode uncovered = d.putArray("uncovered");
            st.uncoveredSourceFiles().forEach(f -> uncovered.add(f.fileName()));
            ArrayNode rejected = d.putArray("rejected");
            st.rejectedPayloads().forEach(p -> rejected.add(p.fileName()));
            PrimaryKeyIndexLevels<PkSortedIndexGroup> levels =
                    new PrimaryKeyIndexLevels<>(PkSortedIndexGroup::dataLevel, PkSortedIndexGroup::sourceFiles);
            Optional<PrimaryKeyIndexLevels.Plan<PkSortedIndexGroup>> plan = levels.pick(st.groups(), active);
            if (plan.isPresent()) {
                ObjectNode pd = d.putObject("plan");
                pd.put("level", plan.get().dataLevel());
                ArrayNode input = pd.putArray("input");
                plan.get().inputUnits().forEach(g -> g.payloads().forEach(p -> input.add(p.fileName())));
                ArrayNode files = pd.putArray("files");
                plan.get().sourceFiles().forEach(f -> files.add(f.fileName()));
            } else {
                d.putNull("plan");
            }
        } catch (RuntimeException e) {
            ObjectNode failed = Main.JSON.createObjectNode();
            failed.put("indexType", def.indexType());
            failed.put("column", def.column());
            failed.put("fieldId", def.fieldId());
            failed.put("error", "error");
            return failed;
        }
        return d;
    }
}
