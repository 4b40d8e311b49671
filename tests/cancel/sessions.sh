# Helpers shared by tests/cancel/*.sh and tests/audit/run.sh (sourced): a background psql session
# and waiting for its statement to end; the mock LLM and its request log. Uses $work, $PORT, $DB,
# $PG_BIN, $ROOT; sets bg_pid, elapsed, mock_pid, mock_port.

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# start_session APPNAME SQL...: a background session that runs the statements (the last one
# shows the session is still usable: it prints 'backend still usable').
start_session() {
  local app="$1"; shift
  rm -f "$work/session.out"
  printf '%s\n' "$@" > "$work/session.sql"
  PGAPPNAME="$app" "$PG_BIN/psql" -X -h 127.0.0.1 -p "$PORT" -U postgres -d "$DB" -v VERBOSITY=verbose \
      -f "$work/session.sql" >"$work/session.out" 2>&1 &
  bg_pid=$!
}

# wait_for_end [LIMIT_MS]: until the background session printed 'backend still usable', ended,
# or LIMIT_MS (default 10 s) passed; sets $elapsed (ms since $t0) and reaps the session.
wait_for_end() {
  local limit="${1:-10000}"
  until grep -q 'backend still usable' "$work/session.out" 2>/dev/null; do
    kill -0 "$bg_pid" 2>/dev/null || break
    [ $(( $(now_ms) - t0 )) -lt "$limit" ] || break
    sleep 0.005
  done
  elapsed=$(( $(now_ms) - t0 ))
  wait "$bg_pid" || true; bg_pid=
}

# start_mock SCENARIO_DIR: the loopback mock LLM (built here), stopped (and $work removed) on exit.
start_mock() {
  build_tools   # (scripts/lib.sh: the one package selection)
  local bin="$TOOLS_DIR/mock_llm"
  "$bin" --listen 127.0.0.1:0 --scenarios "$1" --port-file "$work/port" \
      --hold-cap-secs 60 >"$work/mock.out" 2>&1 &
  mock_pid=$!
  trap 'mock_cleanup' EXIT
  for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
  mock_port="$(cat "$work/port")"
}
mock_cleanup() {
  [ -n "$bg_pid" ] && kill "$bg_pid" 2>/dev/null || true
  kill "$mock_pid" 2>/dev/null || true
  wait "$mock_pid" 2>/dev/null || true
  rm -rf "$work"
}

# Requests the mock received for a scenario (default "never"; plain HTTP over bash's /dev/tcp).
mock_requests() {
  local out sc="${1:-never}"
  exec 3<>"/dev/tcp/127.0.0.1/$mock_port"
  printf 'GET /_mock/requests?scenario=%s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' "$sc" >&3
  out="$(cat <&3)"
  exec 3>&-
  { grep -o "\"scenario\":\"$sc\"" <<<"$out" || true; } | wc -l
}
