#!/usr/bin/env bash
# API keys at rest, through the real setting and real files (what a #[pg_test] cannot change:
# mcp.server_key_file is a sighup setting and pg_dump is a separate client):
#  1. a pg_read_all_data member reads mcp.provider_secret, and pg_dump run by it dumps the table:
#     both hold ciphertext, never the key text;
#  2. a group/world-readable key file is refused (F0000), like PostgreSQL refuses ssl_key_file;
#  3. another server key is named as such (55000, both key ids);
#  4. without mcp.server_key_file, mcp.set_api_key refuses (55000) with a HINT how to make one.
# Uses the regress cluster (PG_MCP_REGRESS_DIR / PG_MCP_REGRESS_PORT); needs the extension
# installed (scripts/test.sh runs this after pg_regress). The cluster's key file and settings are
# restored on exit.
set -euo pipefail
LOG_TAG=keys
. "$(dirname "$0")/../../scripts/lib.sh"

DIR="${PG_MCP_REGRESS_DIR:-/var/tmp/pg_mcp_regress/pgdata}"
PORT="${PG_MCP_REGRESS_PORT:-55433}"
DB=pg_mcp_keys
SECRET='sk-keys-test-PLAINTEXT-4711'

start_cluster "$DIR" "$PORT"
fresh_db "$PORT" "$DB"
KEY="$(server_key_for "$DIR")"
work="$(mktemp -d)"; chmod 755 "$work"
as_root cp -p "$KEY" "$work/key.orig"
restore() {
  as_root cp -p "$work/key.orig" "$KEY"
  as_root chmod 600 "$KEY"
  psql_at "$PORT" postgres -c "ALTER SYSTEM RESET mcp.server_key_file" -c "SELECT pg_reload_conf()" >/dev/null 2>&1 || true
  psql_at "$PORT" postgres -c "DROP DATABASE IF EXISTS $DB" -c "DROP ROLE IF EXISTS mcp_keys_reader" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap restore EXIT
fail() { log "FAIL: $*"; exit 1; }
# sql ROLE SQL...: run statements in one session as ROLE, print rows, keep errors (terse).
sql() {
  local role="$1"; shift
  local args=()
  for s in "$@"; do args+=(-c "$s"); done
  "$PG_BIN/psql" -X -q -At -v VERBOSITY=default -h 127.0.0.1 -p "$PORT" -U "$role" -d "$DB" "${args[@]}" 2>&1 || true
}

psql_at "$PORT" "$DB" -c "
  SET client_min_messages = warning;
  DROP ROLE IF EXISTS mcp_keys_reader;
  CREATE ROLE mcp_keys_reader LOGIN IN ROLE pg_read_all_data;
  INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('vendor', 'openai', 'http://127.0.0.1:9/v1', 'm');
  INSERT INTO mcp.interface (name, provider) VALUES ('chatbot', 'vendor');
  SELECT mcp.set_api_key('vendor', '$SECRET');" >/dev/null

# 1. what a pg_read_all_data member reads and dumps
read_out="$(sql mcp_keys_reader "COPY mcp.provider_secret TO STDOUT")"
grep -q '^vendor' <<<"$read_out" || fail "the reader did not see the row: $read_out"
grep -q "$SECRET" <<<"$read_out" && fail "pg_read_all_data member reads the key in clear"
# --enable-row-security: mcp.document and mcp.chunk have row-level security (retrieval), and
# pg_dump by a role that neither owns them nor has BYPASSRLS refuses such tables without it
# (it then dumps the rows that role may see)
"$PG_BIN/pg_dump" --enable-row-security -h 127.0.0.1 -p "$PORT" -U mcp_keys_reader "$DB" >"$work/dump.sql" 2>"$work/dump.err" \
  || fail "pg_dump as the pg_read_all_data member failed: $(cat "$work/dump.err")"
grep -A1 '^COPY mcp.provider_secret' "$work/dump.sql" | grep -q '^vendor' \
  || fail "the dump has no mcp.provider_secret row (nothing was checked)"
grep -q "$SECRET" "$work/dump.sql" && fail "pg_dump holds the key in clear"
log "ok: reader and pg_dump see ciphertext only"

# 2. a key file others may read is refused
as_root chmod 644 "$KEY"
out="$(sql postgres "SELECT mcp.set_api_key('vendor', 'sk-other')")"
grep -q 'ERROR:  server key file ".*" has group or world access (permissions 0644)' <<<"$out" || fail "0644 key file: $out"
grep -q 'HINT:  The file must have permissions u=rw (0600)' <<<"$out" || fail "0644 key file, hint: $out"
out="$(sql postgres "\\set VERBOSITY verbose" "SELECT mcp.set_api_key('vendor', 'sk-other')")"
grep -q 'F0000' <<<"$out" || fail "0644 key file, SQLSTATE: $out"
as_root chmod 600 "$KEY"
log "ok: group/world-readable key file refused"

# 3. another server key: the stored key is named, not sent
as_root sh -c "od -An -tx1 -N32 /dev/urandom | tr -d ' \\n' > '$KEY'"
out="$(sql postgres "\\set VERBOSITY verbose" "SELECT mcp.chat('hello')")"
grep -q '55000: the API key of provider "vendor" was encrypted with server key [0-9a-f]\{16\}, but mcp.server_key_file holds server key [0-9a-f]\{16\}' <<<"$out" \
  || fail "other server key: $out"
grep -q "$SECRET" <<<"$out" && fail "the error shows the key"
as_root cp -p "$work/key.orig" "$KEY"
out="$(sql postgres "SELECT mcp.has_api_key('vendor')")"
[ "$out" = t ] || fail "key lost after restoring the server key: $out"
log "ok: another server key is named by its id"

# 4. no server key configured: no plaintext fallback
sql postgres "SELECT mcp.has_api_key('vendor')" "ALTER SYSTEM SET mcp.server_key_file = ''" "SELECT pg_reload_conf()" >/dev/null
sleep 0.5
out="$(sql postgres "\\set VERBOSITY verbose" "SELECT mcp.set_api_key('vendor', 'sk-new-key')")"
grep -q '55000: no server key is configured' <<<"$out" || fail "no server key: $out"
grep -q 'HINT:  As the PostgreSQL OS user, create a key file' <<<"$out" || fail "no server key, hint: $out"
log "ok: without a server key set_api_key refuses"
log "all key checks passed"
