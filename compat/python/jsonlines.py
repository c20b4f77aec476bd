"""The JSON-lines runner protocol (compat/PROTOCOL.md), shared by the Python runners.

One request per line on stdin {"id", "cmd", "args"}; one response per line on stdout
{"id", "ok": true, "result"} or {"id", "ok": false, "error": "Type: message"}. A runner never dies
on a bad request; tracebacks go to stderr.
"""

import json
import sys
import traceback


def handle(commands, line):
    """The response to one request line, given the runner's commands {name: function(args)}."""
    rid = None
    try:
        req = json.loads(line)
        rid = req.get("id")
        cmd = req.get("cmd")
        if cmd not in commands:
            raise ValueError("unknown command: %s" % cmd)
        return {"id": rid, "ok": True, "result": commands[cmd](req.get("args") or {})}
    except Exception as e:  # the runner never dies on a bad request
        traceback.print_exc(file=sys.stderr)
        return {"id": rid, "ok": False, "error": "%s: %s" % (type(e).__name__, e)}


def serve(commands):
    """Answers requests from stdin until it ends."""
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        sys.stdout.write(json.dumps(handle(commands, line)) + "\n")
        sys.stdout.flush()


def main(script, commands, argv, on_serve=None):
    """`script serve` serves; `script COMMAND ARGS_JSON` runs one command and prints its result."""
    if len(argv) >= 2 and argv[1] == "serve":
        if on_serve is not None:
            on_serve()
        serve(commands)
        return 0
    if len(argv) >= 3 and argv[1] in commands:
        print(json.dumps(commands[argv[1]](json.loads(argv[2])), indent=2, ensure_ascii=False))
        return 0
    sys.stderr.write("usage: %s serve | %s COMMAND ARGS_JSON\n" % (script, script))
    return 2
