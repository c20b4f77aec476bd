#!/usr/bin/env bash
# Fetches the paimon-ftindex engine's official wheel with pip (download only: nothing is
# installed into any Python environment), checks it against the sha256 pinned in this
# repository, and extracts the C ABI shared library into .cache/native/.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
version=$(cat "$root/scripts/paimon-ftindex.version")
platform=manylinux_2_28_x86_64
wheel="paimon_ftindex-${version}-py3-none-${platform}.whl"
want=$(awk -v w="$wheel" '$2 == w {print $1}' "$root/scripts/paimon-ftindex.sha256")
dest="$root/.cache/native"
lib=libpaimon_ftindex_ffi.so

if [ -z "$want" ]; then
  echo "fetch-native: no sha256 pinned for $wheel in scripts/paimon-ftindex.sha256" >&2
  exit 1
fi
if [ -f "$dest/$lib" ] && [ -d "$dest/wheel/paimon_ftindex" ] && [ -f "$dest/$wheel.sha256" ] &&
  [ "$(cat "$dest/$wheel.sha256")" = "$want" ]; then
  exit 0
fi

py=$(command -v python3 || command -v python)
mkdir -p "$root/.cache/wheels" "$dest"
if [ ! -f "$root/.cache/wheels/$wheel" ]; then
  "$py" -m pip download --quiet --no-deps --only-binary=:all: --platform "$platform" \
    --python-version 3.11 --implementation py --abi none \
    -d "$root/.cache/wheels" "paimon-ftindex==${version}"
fi
got=$(sha256sum "$root/.cache/wheels/$wheel" | awk '{print $1}')
if [ "$got" != "$want" ]; then
  echo "fetch-native: sha256 mismatch for $wheel: got $got, pinned $want" >&2
  rm -f "$root/.cache/wheels/$wheel"
  exit 1
fi
tmp=$(mktemp -d "$dest/.extract.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The whole wheel is unpacked too: its Python API is the engine's second official client, which
# the conformance suite runs against the Go binding.
"$py" - "$root/.cache/wheels/$wheel" "$tmp" "$lib" <<'PY'
import shutil, sys, zipfile
wheel, out, lib = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if n.endswith("/" + lib)]
    if len(names) != 1:
        sys.exit("fetch-native: %s not found exactly once in %s" % (lib, wheel))
    z.extractall(out + "/wheel")
    shutil.copyfile(out + "/wheel/" + names[0], out + "/" + lib)
PY
rm -rf "$dest/wheel"
mv "$tmp/wheel" "$dest/wheel"
mv -f "$tmp/$lib" "$dest/$lib"
echo "$want" > "$dest/$wheel.sha256"
echo "fetch-native: $dest/$lib from $wheel"
