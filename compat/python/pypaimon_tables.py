"""What the two pypaimon runners (table_runner.py on 2.0.0, pypaimon21_runner.py on 2.1.0) share:
opening a table by its path and rendering pypaimon's values as JSON."""

import base64
import datetime
import decimal

from pypaimon.common.file_io import FileIO
from pypaimon.common.identifier import Identifier
from pypaimon.common.options.options import Options
from pypaimon.schema.schema_manager import SchemaManager
from pypaimon.table.file_store_table import FileStoreTable


def open_path(path):
    """Opens the table at path without a catalog. FileStoreTable.from_path of pypaimon 2.0.0
    cannot be used: it instantiates the abstract FileIO and fails with "FileIO() takes no
    arguments"; this is the same construction with the FileIO the catalog would pick."""
    file_io = FileIO.get(path, Options({}))
    schema = SchemaManager(file_io, path).latest()
    if schema is None:
        raise ValueError("no schema found at %s" % path)
    return FileStoreTable(file_io, Identifier("default", "table"), path, schema)


def timestamp_micros(value):
    """A TIMESTAMP with all six fractional digits (table_runner.py's form)."""
    return value.strftime("%Y-%m-%dT%H:%M:%S.%f")


def timestamp_trimmed(value):
    """A TIMESTAMP without trailing fractional zeros (the Java runner's Values)."""
    s = value.strftime("%Y-%m-%dT%H:%M:%S")
    frac = ("%06d" % value.microsecond).rstrip("0")
    return s + "." + frac if frac else s


def to_json(value, timestamp=timestamp_micros):
    """The JSON form of a value pypaimon returns: DATE as YYYY-MM-DD, TIMESTAMP by timestamp,
    DECIMAL as a plain decimal string, bytes as base64, NaN as "NaN", the rest as it is."""
    if isinstance(value, datetime.datetime):
        return timestamp(value)
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, float) and value != value:
        return "NaN"
    return value
