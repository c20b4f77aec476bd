#!/usr/bin/env bash
# seaweedfs-build.sh: builds SeaweedFS's `weed` binary (the S3 server of the s3/* conformance cases)
# from its Go module at the version pinned in scripts/seaweedfs.version, and prints the binary's
# path. `go install module/weed@version` is refused (the module's go.mod has a replace directive),
# so the module is fetched with `go mod download`, copied to a writable directory and built there.
# The binary is cached outside the clone, under ${XDG_CACHE_HOME:-$HOME/.cache}/pkft/seaweedfs/
# <version>/weed, so a second run (or a second clone on the same machine) builds nothing. A cold
# build takes about 8 minutes on 2 cores; it runs under nice.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
version=$(cat "$root/scripts/seaweedfs.version")
module=github.com/seaweedfs/seaweedfs
GO=${GO:-go}
cache=${PKFT_SEAWEEDFS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pkft/seaweedfs}
dest="$cache/$version"
bin="$dest/weed"

if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi
mkdir -p "$dest"
# One build at a time per machine: a second caller waits for the first one's binary.
exec 9>"$dest/.lock"
flock 9
if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi

dir=$("$GO" mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
  echo "seaweedfs-build: go mod download $module@$version gave no module directory" >&2
  exit 1
fi
work=$(mktemp -d "$dest/.build.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
cp -r "$dir/." "$work/"
chmod -R u+w "$work"
echo "seaweedfs-build: building $module/weed@$version (about 8 minutes on 2 cores, once per machine)" >&2
(cd "$work" && GOFLAGS=-buildvcs=false nice -n 10 "$GO" build -trimpath -o "$work/weed.bin" ./weed)
mv "$work/weed.bin" "$bin.tmp"
mv "$bin.tmp" "$bin"
echo "$bin"
