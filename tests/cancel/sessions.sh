# Helpers shared by tests/cancel/*.sh (sourced): a background psql session and waiting for its
# statement to end. Uses $work, $PORT, $DB, $PG_BIN; sets bg_pid, elapsed.

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
