#!/usr/bin/env bash
# Creates .cache/pypaimon-venv, a private virtual environment holding pypaimon (Apache Paimon's
# official pure-Python implementation) at the pinned version below. The
# conformance suite and make golden use it as an independent reader and writer of Paimon tables.
# Nothing is installed into the system Python. Idempotent: does nothing when the pinned version is
# already installed.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
version=2.0.0  # the pinned pypaimon release
venv="$root/.cache/pypaimon-venv"
py=$(command -v python3 || command -v python)

installed() {
  [ -x "$venv/bin/python" ] &&
    "$venv/bin/python" -c 'import sys
from importlib.metadata import version
sys.exit(0 if version("pypaimon") == sys.argv[1] else 1)' "$version" 2>/dev/null
}

if installed; then
  exit 0
fi
if [ ! -x "$venv/bin/python" ]; then
  mkdir -p "$root/.cache"
  "$py" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "pypaimon==${version}"
if ! installed; then
  echo "pypaimon-env: pypaimon ${version} is not importable from $venv after installing it" >&2
  exit 1
fi
echo "pypaimon-env: pypaimon ${version} in $venv"
