#!/usr/bin/env bash
# Overhead of the sql_query tool (and a report tool) over running the same SELECT directly,
# for a 25-row result, measured with pgbench on a private cluster (127.0.0.1:55434).
# Not a test: prints a table; numbers depend on the machine.
#   bash benches/sql_tool/run.sh            # 10 s per case, 1 client
#   SECONDS_PER_CASE=30 bash benches/sql_tool/run.sh
set -euo pipefail
LOG_TAG=bench
. "$(dirname "$0")/../../scripts/lib.sh"

DIR="${PG_MCP_BENCH_DIR:-/var/tmp/pg_mcp_bench/pgdata}"
PORT="${PG_MCP_BENCH_PORT:-55434}"
T="${SECONDS_PER_CASE:-10}"
DB=pg_mcp_bench

bash "$ROOT/scripts/setup.sh" >/dev/null
PG_MCP_RELEASE=1 install_extension
start_cluster "$DIR" "$PORT"
fresh_db "$PORT" "$DB"

psql_at "$PORT" "$DB" <<'SQL'
CREATE TABLE public.bench_sale (id int PRIMARY KEY, region text, amount numeric, note text, sold_at timestamptz);
INSERT INTO public.bench_sale
  SELECT g, (ARRAY['BY','NW','HE','SN'])[1 + g % 4], g * 1.5, 'note ' || g, now() - g * interval '1 hour'
    FROM generate_series(1, 100000) g;
ANALYZE public.bench_sale;
DROP ROLE IF EXISTS bench_reader;
CREATE ROLE bench_reader LOGIN;
GRANT SELECT ON public.bench_sale TO bench_reader;
CREATE TABLE public.bench_log (n int);
GRANT INSERT ON public.bench_log TO bench_reader;
INSERT INTO mcp.interface (name, access_role) VALUES ('bench', 'bench_reader');
INSERT INTO mcp.tool (name, description, parameters, kind, body) VALUES
  ('first_sales', 'first sales', '{"type": "object", "properties": {}}', 'report',
   'SELECT id, region, amount, note, sold_at FROM public.bench_sale ORDER BY id');
INSERT INTO mcp.interface_tool VALUES ('bench', 'sql_query'), ('bench', 'first_sales');
SQL

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "SELECT id, region, amount, note, sold_at FROM public.bench_sale ORDER BY id LIMIT 25;" > "$work/direct.sql"
echo "SELECT mcp.call_tool('sql_query', '{\"query\": \"SELECT id, region, amount, note, sold_at FROM public.bench_sale ORDER BY id\"}', 'bench');" > "$work/sql_query.sql"
# Baseline for the commit cost every audited call pays: the direct SELECT plus a one-row write.
{ echo "BEGIN;"; echo "INSERT INTO public.bench_log VALUES (1);"; cat "$work/direct.sql"; echo "COMMIT;"; } > "$work/direct_write.sql"
# The tool calls without the audit row's WAL flush at commit: the tool's own overhead.
{ echo "SET synchronous_commit = off;"; cat "$work/sql_query.sql"; } > "$work/sql_query_async.sql"
{ echo "SET synchronous_commit = off;"; echo "SELECT mcp.call_tool('first_sales', '{}', 'bench');"; } > "$work/report_async.sql"

latency() { # script → average latency in ms
  "$PG_BIN/pgbench" -n -h 127.0.0.1 -p "$PORT" -U bench_reader -c 1 -j 1 -T "$T" -f "$1" "$DB" 2>/dev/null \
    | awk '/latency average/ {print $4}'
}

diff_ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a - b }'; }

# sanity: the tool really returns 25 rows for this role
psql_at "$PORT" "$DB" -U bench_reader -At -c \
  "SELECT mcp.call_tool('sql_query', '{\"query\": \"SELECT 1 FROM public.bench_sale\"}', 'bench') -> 'content' -> 0 ->> 'text'" \
  | tail -1

d=$(latency "$work/direct.sql")
w=$(latency "$work/direct_write.sql")
s=$(latency "$work/sql_query.sql")
a=$(latency "$work/sql_query_async.sql")
r=$(latency "$work/report_async.sql")
echo
echo "| case (1 client, ${T} s each, 25 rows) | latency ms | overhead vs direct ms |"
echo "|---|---|---|"
printf '| direct SELECT … LIMIT 25 | %s | – |\n' "$d"
printf '| direct SELECT + one-row INSERT, committed (WAL flush) | %s | %s |\n' "$w" "$(diff_ms "$w" "$d")"
printf '| mcp.call_tool(sql_query) incl. audit row commit | %s | %s |\n' "$s" "$(diff_ms "$s" "$d")"
printf '| mcp.call_tool(sql_query), synchronous_commit off | %s | %s |\n' "$a" "$(diff_ms "$a" "$d")"
printf '| mcp.call_tool(report tool), synchronous_commit off | %s | %s |\n' "$r" "$(diff_ms "$r" "$d")"
stop_cluster "$DIR"
