#!/usr/bin/env bash
# Makes a Docker engine reachable for container mode: installs Debian's docker.io (with debootstrap
# for the local base image and docker-compose for the compose check) when missing, and starts the
# daemon in the background when none answers (as root, with the vfs storage driver, which works
# where overlay mounts do not). Its log goes to .cache/dockerd.log. Idempotent.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
log="$root/.cache/dockerd.log"

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

if docker info >/dev/null 2>&1; then
  exit 0
fi

missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v docker >/dev/null 2>&1 || missing+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
command -v docker-compose >/dev/null 2>&1 || docker compose version >/dev/null 2>&1 || missing+=(docker-compose)
if [ ${#missing[@]} -gt 0 ]; then
  echo "docker-up: installing ${missing[*]}" >&2
  as_root apt-get update -q >/dev/null
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
  mkdir -p "$root/.cache"
  echo "docker-up: starting dockerd (log: .cache/dockerd.log)" >&2
  # setsid: the daemon outlives this script and make, and is not in its process group.
  as_root setsid dockerd --storage-driver=vfs >"$log" 2>&1 </dev/null &
  for _ in $(seq 1 120); do
    if docker info >/dev/null 2>&1; then
      break
    fi
    sleep 0.5
  done
  if ! docker info >/dev/null 2>&1; then
    echo "docker-up: dockerd did not come up within 60 s; its log:" >&2
    tail -n 40 "$log" >&2 || true
    exit 1
  fi
fi
docker info --format 'docker-up: engine {{.ServerVersion}}, storage driver {{.Driver}}' >&2
