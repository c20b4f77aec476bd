#!/usr/bin/env bash
# Creates .cache/pypaimon21-venv, a private virtual environment holding pypaimon at the pinned
# 2.1.0 release plus the paimon-ftindex engine wheel it searches full-text archives with (the
# wheel make native already fetched and checked against its pinned sha256). The conformance suite
# runs compat/python/pypaimon21_runner.py in it as a consumer of every full-text table. Nothing is
# installed into the system Python. Idempotent: does nothing when the pinned versions are already
# installed; an environment left half-created is made again.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
version=2.1.0  # the pinned pypaimon release
ftversion=$(cat "$root/scripts/paimon-ftindex.version")
venv="$root/.cache/pypaimon21-venv"
wheel="$root/.cache/wheels/paimon_ftindex-${ftversion}-py3-none-manylinux_2_28_x86_64.whl"
py=$(command -v python3 || command -v python)

installed() {
  [ -x "$venv/bin/python" ] &&
    "$venv/bin/python" -c 'import sys
from importlib.metadata import version
import pypaimon, paimon_ftindex
sys.exit(0 if version("pypaimon") == sys.argv[1] and version("paimon-ftindex") == sys.argv[2] else 1)' \
      "$version" "$ftversion" 2>/dev/null
}

# usable: the environment's interpreter runs and has pip; one that does not cannot be repaired in
# place, so it is created again.
usable() {
  [ -x "$venv/bin/python" ] && "$venv/bin/python" -m pip --version >/dev/null 2>&1
}

if installed; then
  exit 0
fi
if [ ! -f "$wheel" ]; then
  "$root/scripts/fetch-native.sh"
fi
if [ -e "$venv" ] && ! usable; then
  echo "pypaimon21-env: $venv is incomplete or broken; creating it again" >&2
  rm -rf "$venv"
fi
if [ ! -e "$venv" ]; then
  mkdir -p "$root/.cache"
  if ! "$py" -m venv "$venv" || ! usable; then
    rm -rf "$venv"
    echo "pypaimon21-env: could not create a virtual environment with pip at $venv ($py -m venv)" >&2
    exit 1
  fi
fi
pip_install() {
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@" \
    "pypaimon==${version}" "$wheel"
}
pip_install || true
if ! installed; then
  # An install interrupted half-way leaves metadata pip trusts over missing files: reinstall.
  pip_install --force-reinstall
fi
if ! installed; then
  echo "pypaimon21-env: pypaimon ${version} with paimon-ftindex ${ftversion} is not importable from $venv" >&2
  exit 1
fi
echo "pypaimon21-env: pypaimon ${version}, paimon-ftindex ${ftversion} in $venv"
