#!/usr/bin/env bash
# Builds the paimon-rust consumer runner (compat/rust: paimon 0.4.0, paimon-ftindex-core 0.1.0 and
# tantivy 0.26.1, exactly as compat/rust/Cargo.lock pins them) and copies the program to
# .cache/rust-runner/pkft-rust-runner, where the conformance suite starts it (compat/PROTOCOL.md).
#
# Cargo's target directory lives outside the clone (RUST_TARGET_DIR, default
# ${XDG_CACHE_HOME:-$HOME/.cache}/pkft/rust-target), so a fresh clone, make clean or a second CI
# run on the same machine reuses the compiled dependencies: a second run compiles nothing. The
# build runs niced on at most RUST_JOBS (default 2) jobs: the first build compiles about 450 crates.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
target=${RUST_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pkft/rust-target}
jobs=${RUST_JOBS:-2}
out="$root/.cache/rust-runner/pkft-rust-runner"

if ! command -v cargo >/dev/null 2>&1; then
  echo "rust-runner: cargo is not on PATH: install a Rust toolchain of at least 1.94 (the rust-version of paimon 0.4.0)" >&2
  exit 1
fi
mkdir -p "$target" "$(dirname "$out")"
CARGO_TARGET_DIR="$target" nice -n 10 cargo build --release --locked -j "$jobs" \
  --manifest-path "$root/compat/rust/Cargo.toml"
built="$target/release/pkft-rust-runner"
if ! cmp -s "$built" "$out"; then
  # Replace the program atomically: a runner started meanwhile keeps the old file.
  cp "$built" "$out.tmp.$$"
  mv -f "$out.tmp.$$" "$out"
fi
