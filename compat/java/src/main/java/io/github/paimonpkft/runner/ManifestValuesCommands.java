package io.github.paimonpkft.runner;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryArray;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.index.DeletionVectorMeta;
import org.apache.paimon.index.GlobalIndexMeta;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.IndexManifestEntry;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.manifest.ManifestFile;
import org.apache.paimon.manifest.ManifestFileMeta;
import org.apache.paimon.stats.SimpleStats;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.SerializationUtils;

import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Metadata value commands.
 *
 * <ul>
 *   <li>manifest-values: args path. The latest snapshot's metadata as Paimon's own readers decode
 *       it (ManifestList#readDataManifests, ManifestFile#read, IndexManifestFile#read, each entry
 *       unmerged): result {snapshotId, dataManifests [the ManifestFileMeta of every base and delta
 *       manifest but its file name and size], entries [every ManifestEntry of those manifests, the
 *       whole DataFileMeta], indexEntries [every IndexManifestEntry of the index manifest]}. Binary
 *       rows are their serialized bytes (SerializationUtils#serializeBinaryRow), bytes are base64,
 *       creationTime is the stored Timestamp's milliseconds. Each list is sorted by the canonical
 *       JSON of its elements (object keys sorted, no whitespace), so equal values compare equal
 *       whatever order the manifests hold them in.
 * </ul>
 */
final class ManifestValuesCommands {

    /** Writes the canonical JSON the lists are sorted by. */
    private static final ObjectMapper CANONICAL =
            new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

    private ManifestValuesCommands() {}

    static void register(Map<String, Main.Command> commands) {
        commands.put("manifest-values", ManifestValuesCommands::manifestValues);
    }

    private static JsonNode manifestValues(JsonNode args) {
        FileStoreTable table = TableCommands.open(args);
        Snapshot snap = table.snapshotManager().latestSnapshot();
        if (snap == null) {
            throw new IllegalStateException("table has no snapshot");
        }
        ObjectNode out = Main.JSON.createObjectNode();
        out.put("snapshotId", snap.id());
        List<ObjectNode> manifests = new ArrayList<>();
        List<ObjectNode> entries = new ArrayList<>();
        ManifestFile manifestFile = table.store().manifestFileFactory().create();
        for (ManifestFileMeta m : table.store().manifestListFactory().create().readDataManifests(snap)) {
            manifests.add(manifest(m));
            for (ManifestEntry e : manifestFile.read(m.fileName(), m.fileSize())) {
                entries.add(entry(e));
            }
        }
        List<ObjectNode> indexEntries = new ArrayList<>();
        if (snap.indexManifest() != null) {
            for (IndexManifestEntry e : table.store().indexManifestFileFactory().create().read(snap.indexManifest())) {
                indexEntries.add(indexEntry(e));
            }
        }
        sorted(out.putArray("dataManifests"), manifests);
        sorted(out.putArray("entries"), entries);
        sorted(out.putArray("indexEntries"), indexEntries);
        return out;
    }

    private static void sorted(ArrayNode into, List<ObjectNode> nodes) {
        List<String[]> keyed = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            keyed.add(new String[] {canonical(nodes.get(i)), String.valueOf(i)});
        }
        keyed.sort(Comparator.comparing(k -> k[0]));
        for (String[] k : keyed) {
            into.add(nodes.get(Integer.parseInt(k[1])));
        }
    }

    private static String canonical(ObjectNode node) {
        try {
            return CANONICAL.writeValueAsString(CANONICAL.convertValue(node, Object.class));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ObjectNode manifest(ManifestFileMeta m) {
        ObjectNode n = Main.JSON.createObjectNode();
        n.put("numAddedFiles", m.numAddedFiles());
        n.put("numDeletedFiles", m.numDeletedFiles());
        n.set("partitionStats", stats(m.partitionStats()));
        n.put("schemaId", m.schemaId());
        n.put("minBucket", m.minBucket());
        n.put("maxBucket", m.maxBucket());
        n.put("minLevel", m.minLevel());
        n.put("maxLevel", m.maxLevel());
        n.put("minRowId", m.minRowId());
        n.put("maxRowId", m.maxRowId());
        return n;
    }

    private static ObjectNode entry(ManifestEntry e) {
        ObjectNode n = Main.JSON.createObjectNode();
        n.put("kind", e.kind().name());
        n.put("partition", row(e.partition()));
        n.put("bucket", e.bucket());
        n.put("totalBuckets", e.totalBuckets());
        DataFileMeta f = e.file();
        ObjectNode file = n.putObject("file");
        file.put("fileName", f.fileName());
        file.put("fileSize", f.fileSize());
        file.put("rowCount", f.rowCount());
        file.put("minKey", row(f.minKey()));
        file.put("maxKey", row(f.maxKey()));
        file.set("keyStats", stats(f.keyStats()));
        file.set("valueStats", stats(f.valueStats()));
        file.put("minSequenceNumber", f.minSequenceNumber());
        file.put("maxSequenceNumber", f.maxSequenceNumber());
        file.put("schemaId", f.schemaId());
        file.put("level", f.level());
        strings(file, "extraFiles", f.extraFiles());
        Timestamp created = f.creationTime();
        file.put("creationTime", created == null ? null : created.getMillisecond());
        file.put("deleteRowCount", f.deleteRowCount().orElse(null));
        file.put("embeddedIndex", bytes(f.embeddedIndex()));
        file.put("fileSource", f.fileSource().map(Enum::name).orElse(null));
        strings(file, "valueStatsCols", f.valueStatsCols());
        file.put("externalPath", f.externalPath().orElse(null));
        file.put("firstRowId", f.firstRowId());
        strings(file, "writeCols", f.writeCols());
        return n;
    }

    private static ObjectNode indexEntry(IndexManifestEntry e) {
        ObjectNode n = Main.JSON.createObjectNode();
        n.put("kind", e.kind().name());
        n.put("partition", row(e.partition()));
        n.put("bucket", e.bucket());
        IndexFileMeta f = e.indexFile();
        n.put("indexType", f.indexType());
        n.put("fileName", f.fileName());
        n.put("fileSize", f.fileSize());
        n.put("rowCount", f.rowCount());
        if (f.dvRanges() == null) {
            n.putNull("dvRanges");
        } else {
            ArrayNode ranges = n.putArray("dvRanges");
            for (DeletionVectorMeta dv : f.dvRanges().values()) {
                ObjectNode r = ranges.addObject();
                r.put("dataFileName", dv.dataFileName());
                r.put("offset", dv.offset());
                r.put("length", dv.length());
                r.put("cardinality", dv.cardinality());
            }
        }
        n.put("externalPath", f.externalPath());
        GlobalIndexMeta g = f.globalIndexMeta();
        if (g == null) {
            n.putNull("globalIndex");
        } else {
            ObjectNode gn = n.putObject("globalIndex");
            gn.put("rowRangeStart", g.rowRangeStart());
            gn.put("rowRangeEnd", g.rowRangeEnd());
            gn.put("indexFieldId", g.indexFieldId());
            if (g.extraFieldIds() == null) {
                gn.putNull("extraFieldIds");
            } else {
                ArrayNode ids = gn.putArray("extraFieldIds");
                for (int id : g.extraFieldIds()) {
                    ids.add(id);
                }
            }
            gn.put("indexMeta", bytes(g.indexMeta()));
            gn.put("sourceMeta", bytes(g.sourceMeta()));
        }
        return n;
    }

    private static ObjectNode stats(SimpleStats s) {
        ObjectNode n = Main.JSON.createObjectNode();
        n.put("minValues", row(s.minValues()));
        n.put("maxValues", row(s.maxValues()));
        BinaryArray counts = s.nullCounts();
        if (counts == null) {
            n.putNull("nullCounts");
        } else {
            ArrayNode a = n.putArray("nullCounts");
            for (int i = 0; i < counts.size(); i++) {
                if (counts.isNullAt(i)) {
                    a.addNull();
                } else {
                    a.add(counts.getLong(i));
                }
            }
        }
        return n;
    }

    private static void strings(ObjectNode into, String name, List<String> values) {
        if (values == null) {
            into.putNull(name);
            return;
        }
        ArrayNode a = into.putArray(name);
        values.forEach(a::add);
    }

    private static String row(BinaryRow row) {
        return row == null ? null : bytes(SerializationUtils.serializeBinaryRow(row));
    }

    private static String bytes(byte[] b) {
        return b == null ? null : Base64.getEncoder().encodeToString(b);
    }
}
