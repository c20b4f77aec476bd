"""Conformance runner on the paimon-ftindex engine's official Python API.

Speaks the same JSON-lines protocol as the Java runner (one request per line on stdin:
{"id", "cmd", "args"}; one response per line on stdout: {"id", "ok", "result"} or
{"id", "ok": false, "error"}) for the engine commands, so the Go harness can check that the Go
binding and the engine's own Python client build and read the same archives.

Run with the unpacked wheel on PYTHONPATH (the Go harness does this):
    python3 engine_runner.py serve
"""

import os
import sys
import uuid

import jsonlines

from paimon_ftindex import FullTextIndexReader, FullTextIndexWriter


class FileInput:
    def __init__(self, path):
        self._f = open(path, "rb")

    def pread(self, pos, length):
        return os.pread(self._f.fileno(), length, pos)

    def close(self):
        self._f.close()


def archive_build(args):
    options = {o["key"]: o["value"] for o in args.get("options") or []}
    texts = args["texts"]
    name = "full-text-" + str(uuid.uuid4())
    path = os.path.join(args["dir"], name)
    with FullTextIndexWriter(options) as writer:
        for row_id, text in enumerate(texts):
            if text is not None:
                writer.add_document(row_id, text)
        try:
            with open(path, "wb") as out:
                writer.write(out)
        except BaseException:
            if os.path.exists(path):
                os.remove(path)
            raise
    return {"fileName": name, "rowCount": len(texts), "indexMeta": None}


def archive_search(args):
    source = FileInput(args["path"])
    try:
        with FullTextIndexReader(source) as reader:
            row_ids, scores = reader.search(args["query"], int(args["limit"]))
    finally:
        source.close()
    return {"rowIds": row_ids, "scores": scores}


COMMANDS = {
    "ping": lambda args: {"runner": "python-ftindex", "protocolVersion": "1.0"},
    "archive-build": archive_build,
    "archive-search": archive_search,
}


def main(argv):
    return jsonlines.main("engine_runner.py", COMMANDS, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
