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
import pypaimon
sys.exit(0 if version("pypaimon") == sys.argv[1] else 1)' "$version" 2>/dev/null
}

# usable: the environment's interpreter runs and has pip. An environment that is not (creation
# interrupted before pip was installed, or its base interpreter removed) cannot be repaired in
# place, so it is created again.
usable() {
  [ -x "$venv/bin/python" ] && "$venv/bin/python" -m pip --version >/dev/null 2>&1
}

if installed; then
  exit 0
fi
if [ -e "$venv" ] && ! usable; then
  echo "pypaimon-env: $venv is incomplete or broken; creating it again" >&2
  rm -rf "$venv"
fi
if [ ! -e "$venv" ]; then
  mkdir -p "$root/.cache"
  if ! "$py" -m venv "$venv" || ! usable; then
    rm -rf "$venv"
    echo "pypaimon-env: could not create a virtual environment with pip at $venv ($py -m venv)" >&2
    exit 1
  fi
fi
pip_install() {
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@" "pypaimon==${version}"
}
pip_install || true
if ! installed; then
  # An install interrupted half-way leaves metadata pip trusts over missing files: reinstall.
  pip_install --force-reinstall
fi
if ! installed; then
  echo "pypaimon-env: pypaimon ${version} is not importable from $venv after installing it" >&2
  exit 1
fi
echo "pypaimon-env: pypaimon ${version} in $venv"
