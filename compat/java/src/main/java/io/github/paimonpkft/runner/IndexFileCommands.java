package io.github.paimonpkft.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.paimon.KeyValueFileStore;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.index.GlobalIndexMeta;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.index.pk.PrimaryKeyIndexDefinition;
import org.apache.paimon.index.pk.PrimaryKeyIndexDefinitions;
import org.apache.paimon.index.pk.PrimaryKeyIndexSourcePolicy;
import org.apache.paimon.index.pkfulltext.PkFullTextDataFileReader;
import org.apache.paimon.index.pkfulltext.PkFullTextIndexBuilder;
import org.apache.paimon.index.pkfulltext.PkFullTextIndexFile;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowType;

import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Index file commands: pk-full-text-index-file-build, which builds one full-text archive of a
 * level of a table with Paimon's own {@link PkFullTextIndexFile} (through {@link
 * PkFullTextIndexBuilder} and {@link PkFullTextDataFileReader}, wired as Paimon's {@code
 * BucketedPrimaryKeyIndexMaintainer} wires them), without the maintainer or a commit, so that a
 * build of the same level by another implementation can be compared with it.
 */
final class IndexFileCommands {

    private IndexFileCommands() {}

    static void register(Map<String, Main.Command> commands) {
        commands.put("pk-full-text-index-file-build", IndexFileCommands::build);
    }

    /**
     * pk-full-text-index-file-build: args {path, partition: {KEY: value} as the dump renders it,
     * bucket, level}. Builds the archive of the level's eligible files of the latest snapshot
     * (compacted files above level 0, ordered by file name as Paimon's level planning orders
     * them) under the table schema's full-text definition, writing it where Paimon's writer would
     * (the bucket's index path factory). No snapshot is committed. Result: {sources: [{fileName,
     * rowCount}], archivePath, indexFile: {indexType, fileName, fileSize, rowCount, externalPath,
     * globalIndex: {rowRangeStart, rowRangeEnd, indexFieldId, extraFieldIds, indexMeta (base64),
     * sourceMeta (base64)}}}.
     */
    private static JsonNode build(JsonNode args) throws Exception {
        FileStoreTable table = TableCommands.open(args);
        Snapshot snap = table.snapshotManager().latestSnapshot();
        if (snap == null) {
            throw new IllegalStateException("table has no snapshot");
        }
        if (!args.has("bucket") || !args.has("level")) {
            throw new IllegalArgumentException("args.bucket and args.level are required");
        }
        int bucket = args.path("bucket").asInt();
        int level = args.path("level").asInt();
        JsonNode wantPartition = args.path("partition");
        if (!(table.store() instanceof KeyValueFileStore)) {
            throw new IllegalArgumentException("not a primary-key table");
        }
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

        RowType partitionType = schema.logicalPartitionType();
        BinaryRow partition = null;
        List<DataFileMeta> files = new ArrayList<>();
        for (ManifestEntry e : store.newScan().withSnapshot(snap).plan().files()) {
            if (e.bucket() != bucket || !render(partitionType, e.partition()).equals(normalize(wantPartition))) {
                continue;
            }
            partition = e.partition();
            DataFileMeta f = e.file();
            if (f.level() == level && PrimaryKeyIndexSourcePolicy.shouldRead(f)) {
                files.add(f);
            }
        }
        if (files.isEmpty()) {
            throw new IllegalArgumentException(
                    "no eligible data file on level " + level + " of bucket " + bucket + " in partition " + wantPartition);
        }
        files.sort(Comparator.comparing(DataFileMeta::fileName));

        PkFullTextIndexFile indexFile = store.newIndexFileHandler().pkFullTextIndex(partition, bucket);
        PkFullTextIndexBuilder builder =
                new PkFullTextIndexBuilder(
                        indexFile,
                        new PkFullTextDataFileReader.Factory(store.newReaderFactoryBuilder(), partition, bucket, field),
                        field,
                        definition.options());
        IndexFileMeta archive = builder.build(files);

        ObjectNode out = Main.JSON.createObjectNode();
        ArrayNode sources = out.putArray("sources");
        files.forEach(f -> sources.addObject().put("fileName", f.fileName()).put("rowCount", f.rowCount()));
        out.put("archivePath", indexFile.path(archive).toString());
        ObjectNode meta = out.putObject("indexFile");
        meta.put("indexType", archive.indexType());
        meta.put("fileName", archive.fileName());
        meta.put("fileSize", archive.fileSize());
        meta.put("rowCount", archive.rowCount());
        meta.put("externalPath", archive.externalPath());
        GlobalIndexMeta g = archive.globalIndexMeta();
        ObjectNode gd = meta.putObject("globalIndex");
        gd.put("rowRangeStart", g.rowRangeStart());
        gd.put("rowRangeEnd", g.rowRangeEnd());
        gd.put("indexFieldId", g.indexFieldId());
        if (g.extraFieldIds() == null) {
            gd.putNull("extraFieldIds");
        } else {
            ArrayNode extra = gd.putArray("extraFieldIds");
            for (int id : g.extraFieldIds()) {
                extra.add(id);
            }
        }
        gd.put("indexMeta", g.indexMeta() == null ? null : Base64.getEncoder().encodeToString(g.indexMeta()));
        gd.put("sourceMeta", g.sourceMeta() == null ? null : Base64.getEncoder().encodeToString(g.sourceMeta()));
        return out;
    }

    /** A partition as the dump renders it. */
    private static ObjectNode render(RowType partitionType, BinaryRow partition) {
        ObjectNode out = Main.JSON.createObjectNode();
        for (int i = 0; i < partitionType.getFieldCount(); i++) {
            DataField f = partitionType.getFields().get(i);
            Object v = InternalRow.createFieldGetter(f.type(), i).getFieldOrNull(partition);
            Values.put(out, f.name(), f.type(), v, true);
        }
        return normalize(out);
    }

    /** Re-reads a JSON object so that numbers compare by value whatever node type made them. */
    private static ObjectNode normalize(JsonNode n) {
        ObjectNode out = Main.JSON.createObjectNode();
        if (n == null || !n.isObject()) {
            return out;
        }
        n.fields().forEachRemaining(e -> {
            JsonNode v = e.getValue();
            if (v.isNumber()) {
                out.put(e.getKey(), v.decimalValue().stripTrailingZeros().toPlainString());
            } else {
                out.set(e.getKey(), v);
            }
        });
        return out;
    }
}
