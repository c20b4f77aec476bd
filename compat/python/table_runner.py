"""Conformance runner on pypaimon, Apache Paimon's official pure-Python implementation.

pypaimon is not Java Paimon: it is a second, independent implementation of the Paimon table
format, used here to check the Go format layer against someone else's reading and writing of
real tables. Everything this runner reports is pypaimon's own decoding.

Speaks the same JSON-lines protocol as engine_runner.py (one request per line on stdin:
{"id", "cmd", "args"}; one response per line on stdout: {"id", "ok": true, "result"} or
{"id", "ok": false, "error"}); it never dies on a bad request and logs to stderr only.

Commands (a table is named by "path", or by "warehouse", "database" and "table"):
    ping          the pypaimon version
    create-table  warehouse, database, table, fields [{name, type}], primaryKeys, partitionKeys,
                  options -> the table path
    write         rows (JSON objects), written and committed as one commit -> the snapshot id;
                  with "overwrite" (a static partition, {column: value}; {} for the whole
                  table) the commit overwrites that partition
    read          all visible rows, sorted by primary key, with JSON-safe values
    files         pypaimon's view of the latest snapshot: its id and commit kind, and per
                  (partition, bucket) the live data files from pypaimon's manifest reader

Values in JSON: DATE is "YYYY-MM-DD", TIMESTAMP is "YYYY-MM-DDTHH:MM:SS.ffffff", DECIMAL is a
plain decimal string, BYTES/BINARY are base64; everything else is the JSON value itself.

Run with the interpreter of .cache/pypaimon-venv (scripts/pypaimon-env.sh creates it):
    python table_runner.py serve
    python table_runner.py COMMAND ARGS_JSON
"""

import base64
import datetime
import decimal
import json
import sys
from importlib.metadata import version as package_version

import jsonlines
import pyarrow as pa
from pypaimon_tables import open_path, to_json
from pypaimon import CatalogFactory, Schema
from pypaimon.manifest.manifest_file_manager import ManifestFileManager
from pypaimon.manifest.manifest_list_manager import ManifestListManager
from pypaimon.schema.data_types import DataField, DataTypeParser, PyarrowFieldParser


def log(msg):
    sys.stderr.write("table_runner: %s\n" % msg)
    sys.stderr.flush()


# ---- tables ----------------------------------------------------------------------------------

def catalog(args):
    return CatalogFactory.create({"warehouse": args["warehouse"]})


def open_table(args):
    if args.get("path"):
        return open_path(args["path"])
    return catalog(args).get_table("%s.%s" % (args["database"], args["table"]))


def type_name(field):
    """The upper-case SQL type of a pypaimon field, without nullability."""
    return str(field.type.type).upper() if hasattr(field.type, "type") else str(field.type).upper()


def create_table(args):
    pks = args.get("primaryKeys") or []
    fields = []
    for i, f in enumerate(args["fields"]):
        t = DataTypeParser.parse_data_type(f["type"])
        if f["name"] in pks:
            t.nullable = False  # Paimon requires primary key columns to be NOT NULL
        fields.append(DataField(i, f["name"], t))
    schema = Schema(fields=fields, partition_keys=args.get("partitionKeys") or [],
                    primary_keys=pks, options=args.get("options") or {})
    cat = catalog(args)
    cat.create_database(args["database"], True)
    ident = "%s.%s" % (args["database"], args["table"])
    cat.create_table(ident, schema, False)
    return {"path": cat.get_table(ident).table_path}


# ---- values ----------------------------------------------------------------------------------

def from_json(value, tname):
    """Converts a JSON value to the Python value pyarrow expects for a column of type tname."""
    if value is None:
        return None
    if tname == "DATE":
        return datetime.date.fromisoformat(value)
    if tname.startswith("TIMESTAMP"):
        return datetime.datetime.fromisoformat(value)
    if tname.startswith("DECIMAL") or tname.startswith("NUMERIC"):
        return decimal.Decimal(value)
    if tname.startswith("BINARY") or tname.startswith("VARBINARY") or tname == "BYTES":
        return base64.b64decode(value)
    return value


# ---- commands --------------------------------------------------------------------------------

def write(args):
    table = open_table(args)
    fields = table.table_schema.fields
    rows = [{f.name: from_json(r.get(f.name), type_name(f)) for f in fields} for r in args["rows"]]
    data = pa.Table.from_pylist(rows, schema=PyarrowFieldParser.from_paimon_schema(fields))
    builder = table.new_batch_write_builder()
    if args.get("overwrite") is not None:
        builder = builder.overwrite(args["overwrite"])
    writer, commit = builder.new_write(), builder.new_commit()
    try:
        writer.write_arrow(data)
        commit.commit(writer.prepare_commit())
    finally:
        writer.close()
        commit.close()
    snap = table.snapshot_manager().get_latest_snapshot()
    return {"snapshotId": snap.id}


def read(args):
    table = open_table(args)
    builder = table.new_read_builder()
    rows = builder.new_read().to_arrow(builder.new_scan().plan().splits()).to_pylist()
    pks = table.table_schema.primary_keys
    rows.sort(key=lambda r: tuple(r[k] for k in pks))
    return {"rows": [{k: to_json(v) for k, v in r.items()} for r in rows]}


def file_json(f):
    return {
        "fileName": f.file_name,
        "fileSize": f.file_size,
        "level": f.level,
        "rowCount": f.row_count,
        "minSequenceNumber": f.min_sequence_number,
        "maxSequenceNumber": f.max_sequence_number,
        "schemaId": f.schema_id,
        "fileSource": f.file_source,
        "deleteRowCount": f.delete_row_count,
        "minKey": [to_json(v) for v in f.min_key.values],
        "maxKey": [to_json(v) for v in f.max_key.values],
    }


def files(args):
    table = open_table(args)
    snap = table.snapshot_manager().get_latest_snapshot()
    if snap is None:
        raise ValueError("table %s has no snapshot" % table.table_path)
    manifests = ManifestListManager(table).read_all(snap)
    entries = ManifestFileManager(table).read_entries_parallel(manifests, drop_stats=False, max_workers=1)
    buckets = {}
    for e in entries:
        part = [to_json(v) for v in e.partition.values]
        key = (json.dumps(part), e.bucket)
        b = buckets.setdefault(key, {"partition": part, "bucket": e.bucket,
                                     "totalBuckets": e.total_buckets, "dataFiles": []})
        b["dataFiles"].append(file_json(e.file))
    out = []
    for key in sorted(buckets):
        b = buckets[key]
        b["dataFiles"].sort(key=lambda f: (f["level"], f["fileName"]))
        out.append(b)
    return {
        "snapshotId": snap.id,
        "commitKind": snap.commit_kind,
        "schemaId": snap.schema_id,
        "partitionKeys": list(table.table_schema.partition_keys),
        "buckets": out,
    }


COMMANDS = {
    "ping": lambda args: {"runner": "pypaimon", "protocolVersion": "1.0", "version": package_version("pypaimon")},
    "create-table": create_table,
    "write": write,
    "read": read,
    "files": files,
}


def main(argv):
    return jsonlines.main("table_runner.py", COMMANDS, argv,
                          on_serve=lambda: log("serving on pypaimon %s" % package_version("pypaimon")))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
