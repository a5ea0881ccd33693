#!/usr/bin/env bash
# Builds Qdrant from its source into the cache, once (issue 31): no registry this project reaches serves a
# Qdrant binary (crates.io's `qdrant` is an empty placeholder), but crates.io serves every crate it needs.
#
#   QDRANT_SOURCE_DIR=/path/to/qdrant.git QDRANT_TONIC_SOURCE_DIR=/path/to/tonic.git \
#   RAFT_RS_SOURCE_DIR=/path/to/raft-rs.git bash scripts/qdrant.sh
#
# Each is a clone (bare or not) holding the pinned commit: github.com/qdrant/qdrant, Qdrant's fork of tonic
# (github.com/qdrant/tonic) and github.com/tikv/raft-rs, the two git dependencies Qdrant's Cargo.lock names
# besides crates.io. Prints the binary's path. When the binary is already in the cache, it builds nothing and
# needs no source. Needs: Debian's protobuf-compiler, clang and lld (installed here when apt-get can), and
# Rust 1.97 (Qdrant's rust-version; installed with rustup, minimal profile).
set -euo pipefail

VERSION=1.19.0
COMMIT=74f3e85b9473c62560006c043e13737ce6b48412
RUST=1.97.1
# Qdrant patches tonic 0.14.6 with one commit of its fork (Endpoint::http2_max_local_error_reset_streams): the
# fork's branch for 0.14.6 is that commit on the 0.14.6 release; here it is applied to crates.io's 0.14.6.
TONIC_VERSION=0.14.6
TONIC_PATCH_BASE=3f7caf3
TONIC_PATCH=f8f18b7
RAFT_URL=https://github.com/tikv/raft-rs
CACHE="${ALMANAC_CACHE_DIR:-$HOME/.cache/almanac}/qdrant-$VERSION"
BINARY="$CACHE/qdrant"

if [ -x "$BINARY" ]; then
  echo "$BINARY"
  exit 0
fi
: "${QDRANT_SOURCE_DIR:?set QDRANT_SOURCE_DIR to a clone of github.com/qdrant/qdrant holding $COMMIT}"
: "${QDRANT_TONIC_SOURCE_DIR:?set QDRANT_TONIC_SOURCE_DIR to a clone of github.com/qdrant/tonic holding $TONIC_PATCH}"
: "${RAFT_RS_SOURCE_DIR:?set RAFT_RS_SOURCE_DIR to a clone of $RAFT_URL}"

missing=()
for tool in protoc clang ld.lld; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing Debian's protobuf-compiler, clang and lld (missing: ${missing[*]})" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q protobuf-compiler clang libclang-dev lld >&2
fi
rustup toolchain install "$RUST" --profile minimal >&2

# The pinned commit's files, exactly (no checkout of the clone is touched).
src="$CACHE/src"
if [ ! -f "$src/.commit" ] || [ "$(cat "$src/.commit")" != "$COMMIT" ]; then
  rm -rf "$src" && mkdir -p "$src"
  git -C "$QDRANT_SOURCE_DIR" archive "$COMMIT" | tar -x -C "$src"
  echo "$COMMIT" >"$src/.commit"
fi

tonic="$CACHE/tonic-$TONIC_VERSION-qdrant"
if [ ! -f "$tonic/.patched" ]; then
  rm -rf "$tonic" && mkdir -p "$tonic"
  curl -sfL "https://static.crates.io/crates/tonic/tonic-$TONIC_VERSION.crate" | tar -xz -C "$tonic" --strip-components=1
  git -C "$QDRANT_TONIC_SOURCE_DIR" diff "$TONIC_PATCH_BASE" "$TONIC_PATCH" --relative=tonic | patch -d "$tonic" -p1 >&2
  touch "$tonic/.patched"
fi

# Qdrant's own `perf` profile: its release optimisation (opt-level 3) without fat LTO and one codegen unit,
# which would take hours on two cores. The target directory stays in the cache, so an interrupted build
# resumes where it stopped.
started=$(date +%s)
# raft-rs is fetched from the clone named (git's insteadOf, which cargo's git CLI follows); tonic is the
# patched copy above, in place of the fork (a patch in cargo's configuration overrides the manifest's).
(
  cd "$src"
  export CARGO_TARGET_DIR="$CACHE/target" CARGO_NET_GIT_FETCH_WITH_CLI=true
  export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0="url.file://$(cd "$RAFT_RS_SOURCE_DIR" && pwd).insteadOf" GIT_CONFIG_VALUE_0="$RAFT_URL"
  cargo "+$RUST" build --profile perf --bin qdrant --config "patch.crates-io.tonic.path=\"$tonic\"" >&2
)
cp "$CACHE/target/perf/qdrant" "$BINARY.tmp" && mv "$BINARY.tmp" "$BINARY"
echo "built Qdrant $VERSION in $(($(date +%s) - started)) s: $(du -h "$BINARY" | cut -f1)" >&2
echo "$BINARY"
