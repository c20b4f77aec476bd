"""Conformance runner on the paimon-ftindex engine's official Python API.

Speaks the same JSON-lines protocol as the Java runner (one request per line on stdin:
{"id", "cmd", "args"}; one response per line on stdout: {"id", "ok", "result"} or
{"id", "ok": false, "error"}) for the engine commands, so the Go harness can check that the Go
binding and the engine's own Python client build and read the same archives.

Run with the unpacked wheel on PYTHONPATH (the Go harness does this):
    python3 engine_runner.py serve
"""

import json
import os
import sys
import traceback
import uuid

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
    "ping": lambda args: {"runner": "python-ftindex"},
    "archive-build": archive_build,
    "archive-search": archive_search,
}


def serve():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        rid = None
        try:
            req = json.loads(line)
            rid = req.get("id")
            cmd = req.get("cmd")
            if cmd not in COMMANDS:
                raise ValueError("unknown command: %s" % cmd)
            resp = {"id": rid, "ok": True, "result": COMMANDS[cmd](req.get("args") or {})}
        except Exception as e:  # the runner never dies on a bad request
            traceback.print_exc(file=sys.stderr)
            resp = {"id": rid, "ok": False, "error": "%s: %s" % (type(e).__name__, e)}
        sys.stdout.write(json.dumps(resp) + "\n")
        sys.stdout.flush()


def main(argv):
    if len(argv) >= 2 and argv[1] == "serve":
        serve()
        return 0
    if len(argv) >= 3 and argv[1] in COMMANDS:
        print(json.dumps(COMMANDS[argv[1]](json.loads(argv[2]))))
        return 0
    sys.stderr.write("usage: engine_runner.py serve | engine_runner.py COMMAND ARGS_JSON\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
