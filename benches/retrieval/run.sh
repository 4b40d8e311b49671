#!/usr/bin/env bash
# Retrieval benchmarks (issue 13) against the demo cluster (scripts/demo.sh first):
# ingestion chunks/s with the local model, with the openai kind against the suite's mock server
# (crates/mock_llm, started here on loopback) and without embedding; search p50/p95 and HNSW
# recall@10 at 10k and 100k chunks (synthetic vectors) under pgvector's default HNSW settings
# and the collection defaults, side by side. Everything runs in a transaction that is rolled back.
set -euo pipefail
LOG_TAG=bench
. "$(dirname "$0")/../../scripts/lib.sh"
PORT="${PG_MCP_DEMO_PORT:-55432}"
HERE="$ROOT/benches/retrieval"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
(cd "$ROOT" && cargo build -q --release -p mock_llm --bin mock_llm)
work="$(mktemp -d)"
"$TARGET/release/mock_llm" --listen 127.0.0.1:0 --scenarios "$HERE/scenarios" --port-file "$work/port" \
    --max-recorded 0 >"$work/mock.out" 2>&1 &
mock_pid=$!
trap 'kill "$mock_pid" 2>/dev/null || true; wait "$mock_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || { log "mock_llm did not start: $(cat "$work/mock.out")"; exit 1; }
psql_at "$PORT" pg_mcp_demo -v mock="http://127.0.0.1:$(cat "$work/port")" -f "$HERE/ingest.sql"
for n in ${BENCH_SIZES:-10000 100000}; do
  psql_at "$PORT" pg_mcp_demo -v n="$n" -f "$HERE/search.sql"
done
# before/after entity-aware search, side by side (BENCH_ENTITY_SIZES, default 100k chunks)
for n in ${BENCH_ENTITY_SIZES:-100000}; do
  psql_at "$PORT" pg_mcp_demo -v n="$n" -v thesaurus="$(cat "$ROOT/demo/thesaurus.json")" -f "$HERE/search_entities.sql"
done
psql_at "$PORT" pg_mcp_demo -f "$HERE/quality.sql"
