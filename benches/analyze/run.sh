#!/usr/bin/env bash
# mcp.analyze latency (p50/p95) with 1,000, 10,000 and 100,000 synthetic thesaurus terms on top
# of the demo thesaurus, 8 German questions x 40 rounds each, timed inside the server
# (clock_timestamp around each call, no client round trip), in three modes: an interface without
# plans, with the demo's two plans, and with them and the local embedding model (the embedding
# signal of plan ranking). Needs the extension installed
# (source scripts/lib.sh; install_extension). Usage: benches/analyze/run.sh [N ...]
# The mode "plans (before)" times, in the same run, mcp.analyze as it was at git revision
# ANALYZE_BASELINE (default 6e4115e: before plan ranking by explained share and compound parts),
# loaded as pg_temp.analyze_before (with that revision's mcp.rank_plans, when it has one, as
# pg_temp.rank_plans_before); skipped without git.
set -euo pipefail
LOG_TAG=bench-analyze
. "$(dirname "$0")/../../scripts/lib.sh"
DIR="${PG_MCP_BENCH_DIR:-/var/tmp/pg_mcp_bench/pgdata}"
PORT="${PG_MCP_BENCH_PORT:-55434}"
start_cluster "$DIR" "$PORT"
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000)
before="$(mktemp)"; trap 'rm -f "$before"' EXIT
# (when that revision ranks plans in a function of its own, mcp.rank_plans, its version is loaded
# too, as pg_temp.rank_plans_before, and the earlier analyze calls it)
base_sql="$(git -C "$ROOT" show "${ANALYZE_BASELINE:-6e4115e}:sql/plans.sql" 2>/dev/null || true)"
{ printf '%s\n' "$base_sql" |
    awk '/^CREATE FUNCTION mcp.rank_plans\(/ {on=1} on {print} on && /^\$\$;$/ {exit}' |
    sed '1s/^CREATE FUNCTION mcp.rank_plans/CREATE FUNCTION pg_temp.rank_plans_before/'
  printf '%s\n' "$base_sql" |
    awk '/^CREATE FUNCTION mcp.analyze\(/ {on=1} on {print} on && /^\$\$;$/ {exit}' |
    sed '1s/^CREATE FUNCTION mcp.analyze/CREATE FUNCTION pg_temp.analyze_before/; s/mcp\.rank_plans(/pg_temp.rank_plans_before(/'
} >"$before"
grep -q 'pg_temp.analyze_before' "$before" || : >"$before"
[ -s "$before" ] || log "no baseline analyze (git revision ${ANALYZE_BASELINE:-6e4115e}): mode 'plans (before)' skipped"
for n in "${sizes[@]}"; do
  fresh_db "$PORT" bench_analyze >/dev/null
  t0=$(date +%s)
  psql_at "$PORT" bench_analyze -v n="$n" -v thesaurus="$(cat "$ROOT/demo/thesaurus.json")" \
      -v before="$before" -v has_before="$([ -s "$before" ] && echo on || echo off)" \
      -f "$ROOT/benches/analyze/bench.sql" | grep -E '^ +[0-9]+ \|'
  log "n=$n done in $(( $(date +%s) - t0 )) s (load + 320 timed calls per mode)"
done
