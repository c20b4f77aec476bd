#!/usr/bin/env bash
# rust-runner.sh [test]: builds the paimon-rust consumer and writer runner (compat/rust: paimon 0.4.0,
# paimon-ftindex-core 0.1.0 and tantivy 0.26.1, exactly as compat/rust/Cargo.lock pins them) and
# copies the program to .cache/rust-runner/pkft-rust-runner, where the conformance suite starts it
# (compat/PROTOCOL.md); with test, runs the runner's unit tests instead (same release
# dependencies).
#
# Cargo's target directory lives outside the clone (RUST_TARGET_DIR, default
# ${XDG_CACHE_HOME:-$HOME/.cache}/pkft/rust-target), so a fresh clone, make clean or a second CI
# run on the same machine reuses the compiled dependencies: a second run compiles nothing. The
# build runs niced on at most RUST_JOBS (default 2) jobs: the first build compiles about 370
# crates.
#
# Checkouts share the target directory, and Cargo gives the runner the same artifact in each
# (its hash comes from the path relative to the checkout) and judges it fresh by file times
# alone, so a checkout could take the program another one built from other sources. The
# sources' digest (PKFT_RUST_SOURCES, which build.rs declares rerun-if-env-changed) makes any
# change of content rebuild the runner, whichever checkout built it last.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
target=${RUST_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pkft/rust-target}
jobs=${RUST_JOBS:-2}
out="$root/.cache/rust-runner/pkft-rust-runner"
crate="$root/compat/rust"

if ! command -v cargo >/dev/null 2>&1; then
  echo "rust-runner: cargo is not on PATH: install a Rust toolchain of at least 1.94 (the rust-version of paimon 0.4.0)" >&2
  exit 1
fi
mkdir -p "$target"
PKFT_RUST_SOURCES=$(cd "$crate" && find Cargo.toml Cargo.lock build.rs src -type f | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1)
export PKFT_RUST_SOURCES CARGO_TARGET_DIR="$target"

if [ "${1:-}" = test ]; then
  exec nice -n 10 cargo test --release --locked -q -j "$jobs" --manifest-path "$crate/Cargo.toml"
fi
nice -n 10 cargo build --release --locked -j "$jobs" --manifest-path "$crate/Cargo.toml"
built="$target/release/pkft-rust-runner"
mkdir -p "$(dirname "$out")"
if ! cmp -s "$built" "$out"; then
  # Replace the program atomically: a runner started meanwhile keeps the old file.
  cp "$built" "$out.tmp.$$"
  mv -f "$out.tmp.$$" "$out"
fi
