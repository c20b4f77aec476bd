#!/usr/bin/env bash
# Builds the runner's base image without pulling from any image registry: a minimal Debian root
# filesystem with a headless Java 17 runtime, made by debootstrap from the same Debian mirror and
# suite this machine's apt uses, imported as $PKFT_BASE_IMAGE (default pkft-base:local).
#
# Caching: nothing is done when the image exists; the root filesystem tarball is kept in
# .cache/docker/ so a rebuilt engine (or a new clone on the same machine) only re-imports it.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
image=${PKFT_BASE_IMAGE:-pkft-base:local}
cache="$root/.cache/docker"

if docker image inspect "$image" >/dev/null 2>&1; then
  exit 0
fi

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# The machine's own Debian suite and the mirror its apt fetches that suite from (read from apt's
# configuration: no package lists need to be downloaded for it).
# shellcheck disable=SC1091
. /etc/os-release
suite=${PKFT_BASE_SUITE:-${VERSION_CODENAME:?no VERSION_CODENAME in /etc/os-release}}
arch=$(dpkg --print-architecture)
mirror=${PKFT_BASE_MIRROR:-$(apt-get indextargets --no-release-info --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 'Identifier: Packages' |
  awk -v s="$suite" '$2 == s && $3 == "main" && !m {m = $1} END {print m}')}
if [ -z "$mirror" ]; then
  echo "docker-base-image: apt has no index for $suite main (run apt-get update, or set PKFT_BASE_MIRROR)" >&2
  exit 1
fi
tarball="$cache/base-$suite-$arch-jre17.tar"

if [ ! -f "$tarball" ]; then
  command -v debootstrap >/dev/null 2>&1 || as_root apt-get install -y -q debootstrap >/dev/null
  mkdir -p "$cache"
  work=$(mktemp -d "$cache/rootfs.XXXXXX")
  trap 'as_root rm -rf "$work"' EXIT
  echo "docker-base-image: debootstrap $suite from the machine's Debian mirror with openjdk-17-jre-headless" >&2
  start=$(date +%s)
  as_root debootstrap --variant=minbase --arch="$arch" --include=openjdk-17-jre-headless \
    "$suite" "$work/rootfs" "$mirror" >"$cache/debootstrap.log" 2>&1 || {
    echo "docker-base-image: debootstrap failed; the end of its log:" >&2
    tail -n 30 "$cache/debootstrap.log" >&2
    exit 1
  }
  # The package caches and lists are of no use in the image.
  as_root rm -rf "$work/rootfs/var/cache/apt/archives"/*.deb "$work/rootfs/var/lib/apt/lists"/*
  as_root tar -C "$work/rootfs" --numeric-owner -cf "$tarball.tmp" .
  mv "$tarball.tmp" "$tarball"
  echo "docker-base-image: root filesystem made in $(($(date +%s) - start)) s ($(du -h "$tarball" | cut -f1))" >&2
fi

docker import \
  --change 'ENV LANG=C.UTF-8' \
  --change 'CMD ["/bin/bash"]' \
  "$tarball" "$image" >/dev/null
echo "docker-base-image: imported $image" >&2
