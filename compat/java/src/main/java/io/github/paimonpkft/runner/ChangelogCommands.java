package io.github.paimonpkft.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.paimon.Snapshot;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ScanMode;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.SnapshotManager;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * changelog-read: the table's changelog as a streaming reader of a table with a changelog producer
 * reads it, snapshot by snapshot ({@code ChangelogFollowUpScanner}: each snapshot with a changelog
 * manifest list, read in {@code ScanMode.CHANGELOG} through the table's read, every row with its
 * row kind).
 */
final class ChangelogCommands {

    private ChangelogCommands() {}

    static void register(Map<String, Main.Command> commands) {
        commands.put("changelog-read", ChangelogCommands::changelogRead);
    }

    /**
     * args: path. Result: {snapshots: [{id, commitKind, rows: [{_rowKind, field: value, ...}]}]}
     * for every snapshot from the earliest to the latest that has a changelog manifest list, the
     * rows of each sorted by primary key (stable, so that the changes of one key keep their
     * order).
     */
    private static JsonNode changelogRead(JsonNode args) throws Exception {
        FileStoreTable table = TableCommands.open(args);
        RowType rowType = table.rowType();
        SnapshotManager snapshots = table.snapshotManager();
        ObjectNode out = Main.JSON.createObjectNode();
        ArrayNode list = out.putArray("snapshots");
        Long earliest = snapshots.earliestSnapshotId();
        Long latest = snapshots.latestSnapshotId();
        if (earliest == null || latest == null) {
            return out;
        }
        TableRead read = table.newReadBuilder().newRead();
        for (long id = earliest; id <= latest; id++) {
            Snapshot snapshot = snapshots.snapshot(id);
            if (snapshot.changelogManifestList() == null) {
                continue;
            }
            List<Split> splits =
                    table.newSnapshotReader()
                            .withMode(ScanMode.CHANGELOG)
                            .withSnapshot(snapshot)
                            .read()
                            .splits();
            List<ObjectNode> rows = new ArrayList<>();
            for (Split split : splits) {
                try (RecordReader<InternalRow> reader = read.createReader(split)) {
                    Iterator<InternalRow> it = reader.toCloseableIterator();
                    while (it.hasNext()) {
                        InternalRow row = it.next();
                        ObjectNode j = Values.toJson(rowType, row);
                        j.put("_rowKind", row.getRowKind().shortString());
                        rows.add(j);
                    }
                }
            }
            rows.sort(TableCommands.rowComparator(table.primaryKeys()));
            ObjectNode s = list.addObject();
            s.put("id", id);
            s.put("commitKind", snapshot.commitKind().name());
            ArrayNode arr = s.putArray("rows");
            rows.forEach(arr::add);
        }
        return out;
    }
}
