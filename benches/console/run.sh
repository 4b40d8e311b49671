#!/usr/bin/env bash
# The console's runs list with 100,000 runs in the audit: the page as the browser gets it (HTTP
# through the bridge, SQL as the role, rendering), first page and a deep page, for an auditor
# (every run visible) and for a role with 10,000 own runs (row-level security); then the page's
# query side by side with the plain alternative, OFFSET pagination, at the same depths (pgbench,
# as the same roles). Results: docs/console.md#benchmark.
#   bash benches/console/run.sh [requests_per_page (default 30)]
set -euo pipefail
LOG_TAG=bench_console
. "$(dirname "$0")/../../scripts/lib.sh"
N="${1:-30}"
DIR="${PG_MCP_BENCH_DIR:-/var/tmp/pg_mcp_bench/pgdata}"
PORT="${PG_MCP_BENCH_PORT:-55434}"
DB=pg_mcp_console_bench
start_cluster "$DIR" "$PORT"
fresh_db "$PORT" "$DB"
work="$(mktemp -d)"
trap 'kill "${bridge_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
psql_at "$PORT" "$DB" >/dev/null <<'SQL'
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'bench_auth') THEN CREATE ROLE bench_auth LOGIN NOINHERIT; END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'bench_auditor') THEN CREATE ROLE bench_auditor NOLOGIN; END IF;
  FOR i IN 0..9 LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'bench_r' || i) THEN EXECUTE format('CREATE ROLE %I NOLOGIN', 'bench_r' || i); END IF;
    EXECUTE format('GRANT %I TO bench_auth', 'bench_r' || i);
  END LOOP;
END $$;
GRANT bench_auditor TO bench_auth;
GRANT mcp_auditor TO bench_auditor;
-- 100,000 runs of 10 roles over 30 days, as the audit writes them
INSERT INTO mcp.run (run_id, session_id, interface, role_name, question, status, answer, started_at, finished_at,
                     iterations, prompt_tokens, completion_tokens)
SELECT gen_random_uuid(), gen_random_uuid(), (ARRAY['chatbot', 'helpdesk', 'tarif'])[1 + g % 3], 'bench_r' || (g % 10),
       'Question ' || g || ': wie viele Urlaubstage gelten im bayerischen Einzelhandel?',
       (ARRAY['completed', 'completed', 'completed', 'failed', 'needs_input'])[1 + g % 5], 'Answer ' || g,
       now() - make_interval(secs => g * 26), now() - make_interval(secs => g * 26) + interval '2 seconds',
       2, 900 + g % 400, 120 + g % 50
  FROM generate_series(1, 100000) g;
VACUUM ANALYZE mcp.run;
SQL
log "$(psql_at "$PORT" "$DB" -At -c "SELECT count(*) FROM mcp.run") runs in mcp.run"

(cd "$ROOT" && cargo build -q --release -p mcp_bridge)
BRIDGE="${CARGO_TARGET_DIR:-$ROOT/target}/release/pg_mcp_bridge"
head -c 48 /dev/urandom | base64 -w0 >"$work/jwt.secret"
PGHOST=127.0.0.1 PGPORT="$PORT" PGDATABASE="$DB" PGUSER=bench_auth \
  "$BRIDGE" http --listen 127.0.0.1:0 --jwt-secret-file "$work/jwt.secret" 2>"$work/bridge.log" &
bridge_pid=$!
for _ in $(seq 100); do grep -q "Streamable HTTP on" "$work/bridge.log" && break; sleep 0.1; done
URL="$(grep -o 'http://[0-9.:]*' "$work/bridge.log" | head -n1)"

login() { # ROLE -> cookie jar $work/ROLE.jar
  local t; t="$("$BRIDGE" token --role "$1" --exp-seconds 3600 --jwt-secret-file "$work/jwt.secret")"
  curl -s -o /dev/null -c "$work/$1.jar" -H "Origin: $URL" --data-urlencode "token=$t" "$URL/console/login"
}
# time_page ROLE QUERY: median and p95 of N page loads (ms), and the row count of the page
time_page() {
  local role="$1" q="$2" i
  curl -s -b "$work/$role.jar" "$URL/console/runs?$q" >"$work/page.html"
  local rows; rows="$(grep -c '<a href="/console/runs/' "$work/page.html" || true)"
  for i in $(seq "$N"); do
    curl -s -o /dev/null -b "$work/$role.jar" -w '%{time_total}\n' "$URL/console/runs?$q"
  done | sort -n | awk -v n="$N" -v rows="$rows" '{t[NR]=$1*1000} END {printf "median %6.1f ms  p95 %6.1f ms  (%s rows)\n", t[int((n+1)/2)], t[int(n*0.95+0.5)], rows}'
}
cursor() { # ROLE DEPTH: the keyset cursor after DEPTH rows of what ROLE sees
  psql_at "$PORT" "$DB" -At -c "SET ROLE $1" -c "SELECT to_jsonb(started_at) #>> '{}' || '|' || run_id FROM mcp.run ORDER BY started_at DESC, run_id DESC OFFSET $(( $2 - 1 )) LIMIT 1"
}
enc() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$1"; }
login bench_auditor
login bench_r3
echo "== the runs page over HTTP (bridge $(basename "$BRIDGE"), release build; $N loads each)"
printf '%-52s %s\n' "auditor, first page (100,000 runs visible)" "$(time_page bench_auditor "")"
printf '%-52s %s\n' "auditor, page after 50,000 rows (keyset)" "$(time_page bench_auditor "after=$(enc "$(cursor bench_auditor 50000)")")"
printf '%-52s %s\n' "auditor, status=failed, first page" "$(time_page bench_auditor "status=failed")"
printf '%-52s %s\n' "role with 10,000 own runs, first page (RLS)" "$(time_page bench_r3 "")"
printf '%-52s %s\n' "role with 10,000 own runs, after 5,000 rows" "$(time_page bench_r3 "after=$(enc "$(cursor bench_r3 5000)")")"

# The page's query against OFFSET pagination, as the same roles (pgbench, one client)
echo "== the page's query: keyset (the console) against OFFSET (the plain alternative), pgbench latency average"
cols="run_id, session_id, interface, role_name, status, left(question, 160), prompt_tokens + completion_tokens, started_at"
bench_sql() { # ROLE LABEL SQL
  printf 'SET ROLE %s;\n%s;\nRESET ROLE;\n' "$1" "$3" >"$work/q.sql"
  local lat; lat="$("$PG_BIN/pgbench" -n -h 127.0.0.1 -p "$PORT" -U postgres -f "$work/q.sql" -t "$N" "$DB" 2>/dev/null | grep -o 'latency average = [0-9.]* ms' | grep -o '[0-9.]* ms')"
  printf '%-52s %s\n' "$2" "$lat"
}
for spec in "bench_auditor 50000" "bench_r3 5000"; do
  set -- $spec
  c="$(cursor "$1" "$2")"; ts="${c%%|*}"; id="${c##*|}"
  bench_sql "$1" "$1, depth $2: keyset" "SELECT $cols FROM mcp.run WHERE (started_at, run_id) < ('$ts'::timestamptz, '$id'::uuid) ORDER BY started_at DESC, run_id DESC LIMIT 51"
  bench_sql "$1" "$1, depth $2: OFFSET" "SELECT $cols FROM mcp.run ORDER BY started_at DESC, run_id DESC OFFSET $2 LIMIT 51"
done
echo "== plans (EXPLAIN ANALYZE, as the role)"
c="$(cursor bench_r3 5000)"; ts="${c%%|*}"; id="${c##*|}"
psql_at "$PORT" "$DB" -At -c "SET ROLE bench_r3" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT run_id FROM mcp.run WHERE (started_at, run_id) < ('$ts'::timestamptz, '$id'::uuid) ORDER BY started_at DESC, run_id DESC LIMIT 51" | head -6
c="$(cursor bench_auditor 50000)"; ts="${c%%|*}"; id="${c##*|}"
psql_at "$PORT" "$DB" -At -c "SET ROLE bench_auditor" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT run_id FROM mcp.run WHERE (started_at, run_id) < ('$ts'::timestamptz, '$id'::uuid) ORDER BY started_at DESC, run_id DESC LIMIT 51" | head -6
