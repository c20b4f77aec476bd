"""Consumer runner on pypaimon 2.1.0, Apache Paimon's official pure-Python implementation.

pypaimon 2.1.0 reads primary-key full-text tables and searches their archives itself
(FileStoreTable.new_full_text_search_builder(), which plans PrimaryKeyFullTextScan and
PrimaryKeyFullTextRead over the bucket archives through the paimon-ftindex wheel). Everything
this runner reports is pypaimon's own decoding; the conformance suite compares it with Java's
answers for the same tables.

Speaks the JSON-lines protocol of compat/PROTOCOL.md: one request per line on stdin
{"id", "cmd", "args"}; one response per line on stdout {"id", "ok": true, "result"} or
{"id", "ok": false, "error"}; it never dies on a bad request and logs to stderr only.

Commands (a table is named by "path"):
    ping      {"runner": "pypaimon21", "protocolVersion", "version", "ftindexVersion", "commands": [names]}
    read      {"rows": [...]}: every visible row at the latest snapshot, sorted by primary key,
              values rendered as the Java runner's read renders them
    search    path, query (an engine JSON query, or plain words -> {"match":{"query":WORDS}}),
              column (default: the table's only pk-full-text.index.columns column), limit
              (default 10), ranked -> {"snapshotId", "column", "query",
              "results": [{"key", "text", "score"}]}, the same shape and order as the Java
              runner's search: by score descending, ties by primary key ascending; with ranked
              the order is pypaimon's own (PrimaryKeyFullTextRead.read_plan: score descending,
              ties by partition bytes, bucket, data file name, row position) and every result
              also carries bucket, dataFile and rowPosition.

    create-table  warehouse, database, table, fields [{name, type}], primaryKeys,
              partitionKeys, options -> {"path"}: the table created through pypaimon's
              filesystem catalog (a producer command)
    write     path, rows (objects by field name) -> {"rows"}: one batch write and commit
              through pypaimon's BatchWriteBuilder (a producer command; pypaimon writes
              level-0 files only and builds no archives)

list-index is not served: pypaimon 2.1.0 decides which archives are current inside
PrimaryKeyFullTextScan (_current_payloads) but exposes no stale/current listing.

Run with the interpreter of .cache/pypaimon21-venv (scripts/pypaimon21-env.sh creates it):
    python pypaimon21_runner.py serve
"""

import datetime
import decimal
import json
import re
import sys
from importlib.metadata import version as package_version

import pyarrow as pa
from pypaimon import CatalogFactory, Schema

import jsonlines
from pypaimon_tables import open_path, timestamp_trimmed, to_json as render
# The partition rendering PrimaryKeyFullTextRead ranks and keys positions by.
from pypaimon.table.source.primary_key_scored_result import (
    PrimaryKeyScoredResult, _partition_bytes)


def log(msg):
    sys.stderr.write("pypaimon21_runner: %s\n" % msg)
    sys.stderr.flush()


def open_table(args):
    path = args.get("path")
    if not path:
        raise ValueError("args.path is required")
    return open_path(path)


class Nanos:
    """A TIMESTAMP value with nanoseconds (precision 7 to 9), as nanoseconds since the epoch:
    Python's datetime, which pyarrow's to_pylist gives, keeps only microseconds."""

    __slots__ = ("ns",)

    def __init__(self, ns):
        self.ns = ns

    def __lt__(self, other):
        return self.ns < other.ns

    def __eq__(self, other):
        return isinstance(other, Nanos) and self.ns == other.ns

    def __hash__(self):
        return hash(self.ns)

    def render(self):
        seconds, frac = divmod(self.ns, 10**9)
        text = (datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S")
        digits = ("%09d" % frac).rstrip("0")
        return text + "." + digits if digits else text


def rows_of(data):
    """The rows of a pyarrow table as dicts, TIMESTAMP columns with nanoseconds as Nanos."""
    rows = data.to_pylist()
    for i, f in enumerate(data.schema):
        if pa.types.is_timestamp(f.type) and f.type.unit == "ns" and f.type.tz is None:
            for r, v in zip(rows, data.column(i).cast(pa.int64()).to_pylist()):
                r[f.name] = None if v is None else Nanos(v)
    return rows


def to_json(value):
    """The JSON form of a value pypaimon returns, as the Java runner's Values renders it."""
    if isinstance(value, Nanos):
        return value.render()
    return render(value, timestamp=timestamp_trimmed)


def key_order(value):
    """A sort key for one primary-key value: nulls first, then by value."""
    return (value is not None, value)


def read(args):
    table = open_table(args)
    builder = table.new_read_builder()
    rows = rows_of(builder.new_read().to_arrow(builder.new_scan().plan().splits()))
    pks = table.table_schema.primary_keys
    rows.sort(key=lambda r: tuple(key_order(r[k]) for k in pks))
    return {"rows": [{k: to_json(v) for k, v in r.items()} for r in rows]}


def engine_query(q):
    if not q.strip():
        raise ValueError("args.query must not be blank")
    if q.strip().startswith("{"):
        return q
    return json.dumps({"match": {"query": q}}, separators=(",", ":"))


def search(args):
    table = open_table(args)
    column = args.get("column") or ""
    if not column:
        configured = table.table_schema.options.get("pk-full-text.index.columns", "")
        cols = [c.strip() for c in configured.split(",") if c.strip()]
        if len(cols) != 1:
            raise ValueError("args.column is required: the table indexes %d columns" % len(cols))
        column = cols[0]
    query = engine_query(args.get("query") or "")
    limit = int(args.get("limit", 10))
    out = {"column": column, "query": query, "snapshotId": 0, "results": []}
    if table.snapshot_manager().get_latest_snapshot() is None:
        return out
    result = (table.new_full_text_search_builder()
              .with_query(column, query).with_limit(limit).execute_local())
    if not isinstance(result, PrimaryKeyScoredResult):
        raise ValueError("the search did not return pypaimon's PrimaryKeyScoredResult but %s"
                         % type(result).__name__)
    positions = list(result.positions)
    out["snapshotId"] = result.snapshot_id
    pks = list(table.table_schema.primary_keys)
    reader = table.new_read_builder().new_read()
    by_position = {}
    # One IndexedSplit per data file, its ranges ascending: the rows come back in that order.
    for split in result.splits:
        data_split = split.data_split()
        data_file = data_split.files[0]
        part = _partition_bytes(data_split.partition)
        mine = sorted((p for p in positions
                       if p.partition_bytes == part and p.bucket == data_split.bucket
                       and p.data_file_name == data_file.file_name),
                      key=lambda p: p.row_position)
        rows = rows_of(reader.to_arrow([split]))
        if len(rows) != len(mine):
            raise ValueError("%d rows read from %s for %d positions"
                             % (len(rows), data_file.file_name, len(mine)))
        for p, row in zip(mine, rows):
            by_position[(p.partition_bytes, p.bucket, p.data_file_name, p.row_position)] = row
    results = []
    for p in positions:
        row = by_position[(p.partition_bytes, p.bucket, p.data_file_name, p.row_position)]
        r = {"key": {k: to_json(row[k]) for k in pks}, "text": to_json(row[column]),
             "score": float(p.score)}
        if args.get("ranked"):
            r.update({"bucket": p.bucket, "dataFile": p.data_file_name,
                      "rowPosition": p.row_position})
        r["_order"] = tuple(key_order(row[k]) for k in pks)
        results.append(r)
    if not args.get("ranked"):
        results.sort(key=lambda r: (-r["score"], r["_order"]))
    for r in results:
        del r["_order"]
    out["results"] = results
    return out


# The SQL types the producer commands accept, with their pyarrow types and JSON value parsers.
_TYPES = {
    "INT": (pa.int32(), int),
    "BIGINT": (pa.int64(), int),
    "SMALLINT": (pa.int16(), int),
    "TINYINT": (pa.int8(), int),
    "BOOLEAN": (pa.bool_(), bool),
    "DOUBLE": (pa.float64(), float),
    "FLOAT": (pa.float32(), float),
    "STRING": (pa.string(), str),
    "DATE": (pa.date32(), datetime.date.fromisoformat),
}


def arrow_type(sql):
    """The pyarrow type and value parser of a SQL type string ("INT NOT NULL", "DECIMAL(10, 2)")."""
    t = sql.strip()
    nullable = not t.upper().endswith("NOT NULL")
    if not nullable:
        t = t[:-len("NOT NULL")].strip()
    m = re.fullmatch(r"DECIMAL\((\d+),\s*(\d+)\)", t.upper())
    if m:
        return pa.decimal128(int(m.group(1)), int(m.group(2))), decimal.Decimal, nullable
    if t.upper() not in _TYPES:
        raise ValueError("type %s is not one the producer commands write" % sql)
    arrow, parse = _TYPES[t.upper()]
    return arrow, parse, nullable


def create_table(args):
    catalog = CatalogFactory.create({"warehouse": args["warehouse"]})
    database = args.get("database", "default")
    catalog.create_database(database, True)
    fields = [pa.field(f["name"], arrow_type(f["type"])[0], nullable=arrow_type(f["type"])[2])
              for f in args["fields"]]
    schema = Schema.from_pyarrow_schema(pa.schema(fields), partition_keys=args.get("partitionKeys") or None,
                                        primary_keys=args.get("primaryKeys") or None,
                                        options=args.get("options") or {})
    name = "%s.%s" % (database, args["table"])
    catalog.create_table(name, schema, False)
    return {"path": catalog.get_table(name).table_path}


def write(args):
    table = open_table(args)
    fields = table.table_schema.fields
    columns, arrow_fields = {}, []
    for f in fields:
        arrow, parse, _ = arrow_type(str(f.type))
        arrow_fields.append(pa.field(f.name, arrow, nullable=f.type.nullable))
        columns[f.name] = [None if r.get(f.name) is None else parse(r[f.name]) for r in args["rows"]]
    data = pa.table(columns, schema=pa.schema(arrow_fields))
    builder = table.new_batch_write_builder()
    writer = builder.new_write()
    try:
        writer.write_arrow(data)
        builder.new_commit().commit(writer.prepare_commit())
    finally:
        writer.close()
    return {"rows": data.num_rows}


# The version of the runner protocol this runner speaks (compat/PROTOCOL.md, "Versions").
PROTOCOL_VERSION = "1.0"

COMMANDS = {
    "ping": lambda args: {"runner": "pypaimon21", "protocolVersion": PROTOCOL_VERSION, "version": package_version("pypaimon"),
                          "ftindexVersion": package_version("paimon-ftindex"),
                          "commands": sorted(COMMANDS)},
    "read": read,
    "search": search,
    "create-table": create_table,
    "write": write,
}


def main(argv):
    return jsonlines.main("pypaimon21_runner.py", COMMANDS, argv,
                          on_serve=lambda: log("serving on pypaimon %s" % package_version("pypaimon")))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
