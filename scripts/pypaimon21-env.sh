#!/usr/bin/env bash
# Creates .cache/pypaimon21-venv, a private virtual environment holding pypaimon at the pinned
# 2.1.0 release plus the paimon-ftindex engine wheel it searches full-text archives with (the
# wheel make native fetched and checked against its pinned sha256). The conformance suite runs
# compat/python/pypaimon21_runner.py in it as a consumer of every full-text table. Idempotent:
# does nothing when the pinned versions are already installed; an environment left half-created
# is made again (scripts/venv-lib.sh).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/venv-lib.sh"
version=2.1.0  # the pinned pypaimon release
ftversion=$(cat "$root/scripts/paimon-ftindex.version")
venv="$root/.cache/pypaimon21-venv"
wheel="$root/.cache/wheels/paimon_ftindex-${ftversion}-py3-none-manylinux_2_28_x86_64.whl"

installed() {
  [ -x "$venv/bin/python" ] &&
    "$venv/bin/python" -c 'import sys
from importlib.metadata import version
import pypaimon, paimon_ftindex
sys.exit(0 if version("pypaimon") == sys.argv[1] and version("paimon-ftindex") == sys.argv[2] else 1)' \
      "$version" "$ftversion" 2>/dev/null
}

if ! installed && [ ! -f "$wheel" ]; then
  "$root/scripts/fetch-native.sh"
fi
ensure_venv pypaimon21-env "$venv" installed "pypaimon==${version}" "$wheel"
