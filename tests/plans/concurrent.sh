#!/usr/bin/env bash
# The stored example vectors of plan ranking (the embedding signal) under a concurrent first
# use: session A analyzes first and keeps its transaction open (its new vectors are not yet
# committed); session B analyzes the same interface meanwhile and must still get the embedding
# signal, without a duplicate-key error that would leave the signal out, and without waiting for
# A's transaction (issue 20: a role holding its transaction open must not make the others' analyze
# wait; B uses the vectors without storing them). Needs two real sessions, hence a script; uses the regress cluster
# (PG_MCP_REGRESS_DIR / PG_MCP_REGRESS_PORT) and the local model that scripts/setup.sh installs.
set -euo pipefail
LOG_TAG=plans-concurrent
. "$(dirname "$0")/../../scripts/lib.sh"

DIR="${PG_MCP_REGRESS_DIR:-/var/tmp/pg_mcp_regress/pgdata}"
PORT="${PG_MCP_REGRESS_PORT:-55433}"
DB=pg_mcp_plans_concurrent
MODEL_DIR=/usr/local/share/pg_mcp/models/all-MiniLM-L6-v2

start_cluster "$DIR" "$PORT"
fresh_db "$PORT" "$DB" >/dev/null
psql_at "$PORT" "$DB" -c "
  INSERT INTO mcp.interface (name) VALUES ('pe');
  INSERT INTO mcp.embedding_model (name, kind, dimension, path) VALUES ('minilm', 'local', 384, '$MODEL_DIR');
  UPDATE mcp.interface SET embedding_model = 'minilm' WHERE name = 'pe';
  INSERT INTO mcp.plan (name, interface, description, examples) VALUES
   ('pe_holiday', 'pe', 'Urlaubsanspruch nach Tarifvertrag', '{\"How many vacation days do I get per year?\"}'),
   ('pe_pay', 'pe', 'Entgelttabellen und Lohnhöhe', '{\"What is the monthly salary in pay group 5?\"}');" >/dev/null

Q="Paid holidays: amount of time off from work?"
work="$(mktemp -d)"; chmod 755 "$work"
# A: first use, then holds its transaction open for 4 s
psql_at "$PORT" "$DB" -At -c "BEGIN" \
  -c "SELECT mcp.analyze('$Q', 'pe') -> 'plans' -> 0 ->> 'name'" \
  -c "SELECT pg_sleep(4)" -c "COMMIT" >"$work/a.out" 2>&1 &
a_pid=$!
# B starts once A has stored its vectors (uncommitted: B cannot see them and embeds them too)
for _ in $(seq 1 100); do
  n=$(psql_at "$PORT" "$DB" -At -c "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
                                    WHERE c.relname = 'plan_example_embedding' AND l.mode = 'RowExclusiveLock'")
  [ "$n" -gt 0 ] && break
  sleep 0.1
done
[ "$n" -gt 0 ] || { log "FAIL: session A never wrote the example vectors"; cat "$work/a.out"; exit 1; }
t0=$(( $(date +%s%N) / 1000000 ))
b=$(psql_at "$PORT" "$DB" -At -c "SET lock_timeout = '3s'" -c "SELECT mcp.analyze('$Q', 'pe') -> 'plans' -> 0 -> 'why'" 2>"$work/b.err") || \
  { log "FAIL: session B: $(cat "$work/b.err") (it waited for session A's open transaction)"; exit 1; }
b_ms=$(( $(date +%s%N) / 1000000 - t0 ))
wait "$a_pid" || { log "FAIL: session A failed"; cat "$work/a.out"; exit 1; }
grep -qx "pe_holiday" "$work/a.out" || { log "FAIL: session A: $(cat "$work/a.out")"; exit 1; }
rm -rf "$work"
case "$b" in
  *embedding_error*|"") log "FAIL: session B ranked without the embedding signal: $b"; exit 1 ;;
  *'"example": "How many vacation days do I get per year?"'*) ;;
  *) log "FAIL: session B: $b"; exit 1 ;;
esac
[ "$b_ms" -lt 2000 ] || { log "FAIL: session B waited ${b_ms} ms for session A's open transaction"; exit 1; }
rows=$(psql_at "$PORT" "$DB" -At -c "SELECT count(*) FROM mcp.plan_example_embedding")
# (each plan's example and description)
[ "$rows" = 4 ] || { log "FAIL: $rows stored vectors, expected 4"; exit 1; }
log "ok: a concurrent first use keeps the embedding signal without waiting (${b_ms} ms while A held its transaction: $b)"
