#!/usr/bin/env bash
# Retrieval benchmarks (issue 13) against the demo cluster (scripts/demo.sh first):
# ingestion chunks/s with and without the local model, search p50/p95 and HNSW recall@10 at
# 10k and 100k chunks (synthetic vectors). Everything runs in a transaction that is rolled back.
set -euo pipefail
LOG_TAG=bench
. "$(dirname "$0")/../../scripts/lib.sh"
PORT="${PG_MCP_DEMO_PORT:-55432}"
HERE="$ROOT/benches/retrieval"
psql_at "$PORT" pg_mcp_demo -f "$HERE/ingest.sql"
for n in ${BENCH_SIZES:-10000 100000}; do
  psql_at "$PORT" pg_mcp_demo -v n="$n" -f "$HERE/search.sql"
done
psql_at "$PORT" pg_mcp_demo -f "$HERE/quality.sql"
