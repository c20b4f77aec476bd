#!/usr/bin/env bash
# s3-down.sh DIR: stops the SeaweedFS server make s3-up started from DIR (SIGTERM to its process
# group, SIGKILL after 2 s: weed does not always stop on SIGTERM) and removes DIR.
set -uo pipefail
dir=${1:-.cache/s3}
if [ ! -f "$dir/pid" ]; then
  echo "s3-down: no server running from $dir"
  exit 0
fi
pid=$(cat "$dir/pid")
kill -TERM -- "-$pid" 2>/dev/null
for _ in 1 2 3 4 5 6 7 8 9 10; do
  kill -0 -- "-$pid" 2>/dev/null || break
  sleep 0.2
done
kill -KILL -- "-$pid" 2>/dev/null
rm -rf "$dir"
echo "s3-down: stopped the server (process group $pid)"
