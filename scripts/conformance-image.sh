#!/usr/bin/env bash
# Builds the conformance image (compat/image/Dockerfile) from what the make targets before it left:
# stages its build context in .cache/conformance-image/ (root/ laid out as the image's file system)
# and builds $CONFORMANCE_IMAGE on $PKFT_BASE_IMAGE, labelled with the protocol version
# (compat/protocol/version.go) and $CORPUS_VERSION.
#
# /pkft in the image is the repository: its tracked files as they are in the working tree (the
# golden corpus and every file the suite reads), the suite compiled there as
# compat/runner/runner.test (go test -c), the Java runner's build (compat/java/target, lib), and
# .cache/ with the engine, the Go and paimon-rust runners and the two pypaimon environments, whose
# Python is pointed at the image's /usr/bin/python3. SeaweedFS's weed goes to /usr/local/bin.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
image=${CONFORMANCE_IMAGE:-pkft-conformance:latest}
base=${PKFT_BASE_IMAGE:-pkft-base:local}
corpus=${CORPUS_VERSION:?CORPUS_VERSION is not set}
protocol=$(sed -n 's/^const Version = "\(.*\)"$/\1/p' compat/protocol/version.go)
[ -n "$protocol" ] || { echo "conformance-image: no Version in compat/protocol/version.go" >&2; exit 1; }
weed=$(./scripts/seaweedfs-build.sh)

stage=.cache/conformance-image
rm -rf "$stage"
mkdir -p "$stage/root/pkft" "$stage/root/usr/local/bin"
cp compat/image/Dockerfile "$stage/"
git ls-files -z | tar --null -T - -cf - | tar -C "$stage/root/pkft" -xf -
${GO:-go} test -c -trimpath -o "$stage/root/pkft/compat/runner/runner.test" ./compat/runner
mkdir -p "$stage/root/pkft/compat/java/target" "$stage/root/pkft/.cache"
cp -r compat/java/lib "$stage/root/pkft/compat/java/"
cp -r compat/java/target/pkft-runner.jar compat/java/target/lib compat/java/target/native "$stage/root/pkft/compat/java/target/"
# The directories themselves may be links (to another checkout's); their contents are copied as
# they are (a virtual environment's lib64 is a link to its lib).
for d in native go-runner rust-runner pypaimon-venv pypaimon21-venv; do
  cp -a "$(readlink -f ".cache/$d")" "$stage/root/pkft/.cache/$d"
done
rm -rf "$stage/root/pkft/.cache/native/"*.whl
for venv in pypaimon-venv pypaimon21-venv; do
  v="$stage/root/pkft/.cache/$venv"
  rm -f "$v/bin/python3" && ln -s /usr/bin/python3 "$v/bin/python3"
  ln -sfn python3 "$v/bin/python"
  printf 'home = /usr/bin\ninclude-system-site-packages = false\n' >"$v/pyvenv.cfg"
done
cp "$weed" "$stage/root/usr/local/bin/weed"
${GO:-go} build -trimpath -o "$stage/root/usr/local/bin/pkft" ./tools/pkft

old=$(docker image inspect -f '{{.Id}}' "$image" 2>/dev/null || true)
docker build -q --build-arg BASE_IMAGE="$base" --build-arg PROTOCOL_VERSION="$protocol" \
  --build-arg CORPUS_VERSION="$corpus" -t "$image" "$stage" >/dev/null
new=$(docker image inspect -f '{{.Id}}' "$image")
if [ -n "$old" ] && [ "$old" != "$new" ]; then docker rmi "$old" >/dev/null 2>&1 || true; fi
rm -rf "$stage/root"
echo "conformance-image: $image (protocol $protocol, corpus $corpus, $(docker image inspect -f '{{.Size}}' "$image" | awk '{printf "%.1f GB", $1/1e9}'))" >&2
