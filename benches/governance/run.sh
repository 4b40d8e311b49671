#!/usr/bin/env bash
# The budget check's cost per LLM request, side by side with a chat without budgets, with an
# empty audit and with AUDIT_ROWS (default 1,000,000) rows in mcp.run and mcp.llm_request each.
# One run; see docs/benchmarks.md#budget-check. Usage: benches/governance/run.sh [N [AUDIT_ROWS]]
set -euo pipefail
LOG_TAG=bench-governance
. "$(dirname "$0")/../../scripts/lib.sh"
DIR="${PG_MCP_BENCH_DIR:-/var/tmp/pg_mcp_bench/pgdata}"
PORT="${PG_MCP_BENCH_PORT:-55434}"
start_cluster "$DIR" "$PORT"
fresh_db "$PORT" bench_governance >/dev/null
t0=$(date +%s)
psql_at "$PORT" bench_governance -v n="${1:-2000}" -v audit_rows="${2:-1000000}" -f "$ROOT/benches/governance/bench.sql"
log "done in $(( $(date +%s) - t0 )) s"
