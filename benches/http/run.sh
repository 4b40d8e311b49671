#!/usr/bin/env bash
# Per-request cost of the HTTP path, this checkout against another revision, in one run:
#   bash benches/http/run.sh [BASE_REV (default main)] [requests_per_round] [runs]
# Builds crates/mcp_http/examples/bench_http.rs (release) here and in an export of BASE_REV (same
# example source, BASE_REV's mcp_http), then runs the two binaries alternately: each run reports
# plain ureq (the floor), mcp_http's post_json, and the overhead between them (see the example).
# With --turns as first argument it also runs crates/mcp_chat/examples/bench_turns.rs both ways.
set -euo pipefail
LOG_TAG=bench_http
. "$(dirname "$0")/../../scripts/lib.sh"
turns=0
if [ "${1:-}" = --turns ]; then turns=1; shift; fi
BASE="${1:-main}"; N="${2:-2000}"; RUNS="${3:-4}"
work="${PG_MCP_BENCH_HTTP_DIR:-/var/tmp/pg_mcp_bench_http}"
mkdir -p "$work"
rm -rf "$work/src"; mkdir -p "$work/src"
git -C "$ROOT" archive "$BASE" | tar -x -C "$work/src"
mkdir -p "$work/src/crates/mcp_http/examples"
cp "$ROOT/crates/mcp_http/examples/bench_http.rs" "$work/src/crates/mcp_http/examples/"
log "building $BASE and this checkout (release)"
(cd "$work/src" && CARGO_TARGET_DIR="$work/target" cargo build -q --release -p mcp_http --example bench_http)
(cd "$ROOT" && cargo build -q --release -p mcp_http --example bench_http)
base_bin="$work/target/release/examples/bench_http"
head_bin="${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/bench_http"
for i in $(seq "$RUNS"); do
  echo "== run $i: $BASE"; "$base_bin" "$N" 3
  echo "== run $i: this checkout ($(git -C "$ROOT" rev-parse --short HEAD))"; "$head_bin" "$N" 3
done
if [ "$turns" = 1 ]; then
  (cd "$work/src" && CARGO_TARGET_DIR="$work/target" cargo build -q --release -p mcp_chat --example bench_turns)
  (cd "$ROOT" && cargo build -q --release -p mcp_chat --example bench_turns)
  for i in 1 2; do
    echo "== bench_turns run $i: $BASE"; "$work/target/release/examples/bench_turns" 2 | grep -E "chat =|loopback"
    echo "== bench_turns run $i: this checkout"; "${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/bench_turns" 2 | grep -E "chat =|loopback"
  done
fi
