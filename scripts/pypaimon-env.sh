#!/usr/bin/env bash
# Creates .cache/pypaimon-venv, a private virtual environment holding pypaimon (Apache Paimon's
# official pure-Python implementation) at the pinned version below. The
# conformance suite and make golden use it as an independent reader and writer of Paimon tables.
# Nothing is installed into the system Python. Idempotent: does nothing when the pinned version is
# already installed; an environment left half-created is made again (scripts/venv-lib.sh).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/venv-lib.sh"
version=2.0.0  # the pinned pypaimon release
venv="$root/.cache/pypaimon-venv"

installed() {
  [ -x "$venv/bin/python" ] &&
    "$venv/bin/python" -c 'import sys
from importlib.metadata import version
import pypaimon
sys.exit(0 if version("pypaimon") == sys.argv[1] else 1)' "$version" 2>/dev/null
}

ensure_venv pypaimon-env "$venv" installed "pypaimon==${version}"
