# Shared helpers for demo.sh and test.sh (sourced, not run).
# PG_MAJOR: the version to use: 15 is Debian 12's (/usr/lib/postgresql/15); scripts/setup.sh
# builds the others into PG_MCP_PG_CACHE/pg<major>.
PG_MAJOR="${PG_MAJOR:-15}"
# PG_MCP_PG_CONFIG: another PostgreSQL installation (scripts/slot.sh makes private copies).
if [ -n "${PG_MCP_PG_CONFIG:-}" ]; then PG_CONFIG="$PG_MCP_PG_CONFIG"
elif [ -x "/usr/lib/postgresql/${PG_MAJOR}/bin/pg_config" ]; then PG_CONFIG="/usr/lib/postgresql/${PG_MAJOR}/bin/pg_config"
else PG_CONFIG="${PG_MCP_PG_CACHE:-/var/cache/pg_mcp}/pg${PG_MAJOR}/bin/pg_config"; fi
PG_BIN="$(dirname "$PG_CONFIG")"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

log() { printf '\033[1m[%s]\033[0m %s\n' "${LOG_TAG:-pg_mcp}" "$*"; }
as_pg() { if [ "$(id -un)" = postgres ]; then "$@"; else sudo -u postgres "$@"; fi; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# library_aside CMD...: run CMD, which installs pg_mcp.so (`cargo pgrx install`, `cargo pgrx
# test`), with the installed file renamed first. A running server maps pg_mcp.so (preloaded: the
# postmaster and every backend); cargo pgrx copies over the file in place, which changes the
# pages under the running server and crashes it. Renamed first, as install(1) and packages do,
# the running server keeps the old file (its inode) mapped and CMD writes a new file. The old
# one is removed once a new one is in place, restored when CMD left none.
library_aside() {
  local lib; lib="$(${PG_CONFIG} --pkglibdir)/pg_mcp.so"
  local kept="$lib.replaced.$$" rc=0
  if as_root test -e "$lib"; then as_root mv -f "$lib" "$kept"; fi
  "$@" || rc=$?
  if as_root test -e "$lib"; then as_root rm -f "$kept"
  elif as_root test -e "$kept"; then as_root mv -f "$kept" "$lib"; fi
  return "$rc"
}

# build_tools: the workspace's programs that the suites run (pg_mcp_bridge, mock_llm, the
# mcp_llm examples), built with the one package selection of scripts/test.sh's pure-crate step
# (`cargo test --workspace --exclude pg_mcp`; --all-targets gives cargo test's features). Features
# unify per selection: `cargo build -p mcp_bridge` after that step compiled 33 dependencies again
# with other features, `-p mock_llm` 11, `-p mcp_llm --example text_calls_blind` 26; with this
# selection everywhere each dependency compiles once (after the pure-crate step: nothing to do).
# The programs are in $TOOLS_DIR.
TOOLS_DIR="${CARGO_TARGET_DIR:-$ROOT/target}/debug"
build_tools() { (cd "$ROOT" && cargo build -q --workspace --exclude pg_mcp --all-targets); }

# pgrx_shared CMD...: CMD (`cargo pgrx test`, a debug `cargo pgrx install`) with
# CARGO_PGRX_DISABLE_GC_SECTIONS_WORKAROUND=1. Without it cargo-pgrx builds the library with
# `--config target.<unix>.rustflags = ["-C", "link-arg=-Wl,--no-gc-sections"]`, but the
# #[pg_test] binary (`cargo test`, which must link with --gc-sections) without: rustflags are part
# of every unit's hash, so the library builds compiled all their 308 units a second time, beside
# the test build's; without the flag they share every unit whose features agree (71 are left, the
# ones the dev-dependencies give other features). The flag only guards against a linker that
# drops pgrx's schema section (`.pgrxsc`, kept by SHF_GNU_RETAIN: seen on aarch64); Debian 12's
# x86-64 GNU ld (binutils 2.40) keeps it, and if it did not, `cargo pgrx install` would fail with
# "no embedded pgrx schema section found" (and the goldens compare the whole schema). Release
# builds (PG_MCP_RELEASE=1, `cargo pgrx package`: thin LTO) keep cargo-pgrx's flag.
pgrx_shared() { CARGO_PGRX_DISABLE_GC_SECTIONS_WORKAROUND=1 "$@"; }

pgrx_install() {
  local shared=(pgrx_shared)
  [ "${PG_MCP_RELEASE:-0}" = 1 ] && shared=()
  (cd "$ROOT" && "${shared[@]}" cargo pgrx install --pg-config "$PG_CONFIG" "$@" >/dev/null)
}

# Build and install the extension into the system PostgreSQL (the running server's library set
# aside: library_aside).
install_extension() {
  log "building and installing pg_mcp into $(${PG_CONFIG} --pkglibdir)"
  local sudo_flag=()
  [ "$(id -u)" = 0 ] || sudo_flag=(--sudo)
  # PG_MCP_RELEASE=1: an optimized build (for benchmarks).
  [ "${PG_MCP_RELEASE:-0}" = 1 ] && sudo_flag+=(--release)
  # (explicit: callers run this inside `step`, where errexit does not apply)
  if ! library_aside pgrx_install "${sudo_flag[@]}"; then
    log "FAIL: cargo pgrx install failed: the installed pg_mcp would be a stale build"; return 1
  fi
}

# crash_count DIR: how many times a server process of the cluster in DIR died of a signal, as
# its log says (a crash-restart does not change pg_postmaster_start_time()).
crash_count() {
  as_root cat "$1/server.log" 2>/dev/null | grep -cE 'terminated by signal|was terminated by exception' || true
}

# server_key_for DIR: the server key file of the cluster in DIR (mcp.server_key_file). It sits
# next to the data directory, not in it, so copies of the data do not carry the key.
server_key_for() { echo "$(dirname "$1")/pg_mcp_server.key"; }

# ensure_server_key DIR: create the cluster's server key once (64 random hex digits, 0600, owned
# by postgres) and name it in postgresql.conf. Prints "changed" when the setting was added.
ensure_server_key() {
  local dir="$1" key; key="$(server_key_for "$1")"
  if ! as_root test -s "$key"; then
    as_root sh -c "umask 077 && od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > '$key' && echo >> '$key'"
  fi
  as_root chown postgres: "$key"
  as_root chmod 600 "$key"
  if ! as_pg grep -q "^mcp.server_key_file" "$dir/postgresql.conf"; then
    echo "mcp.server_key_file = '$key'" | as_pg tee -a "$dir/postgresql.conf" >/dev/null
    echo changed
  fi
}

# start_cluster DIR PORT: a private cluster owned by postgres, on 127.0.0.1 only, with a server
# key for API keys at rest.
start_cluster() {
  local dir="$1" port="$2"
  as_root mkdir -p "$(dirname "$dir")"
  if [ ! -f "$dir/PG_VERSION" ]; then
    as_root mkdir -p "$dir"
    as_root chown postgres: "$dir"
    as_root chmod 700 "$dir"
    as_pg "$PG_BIN/initdb" -D "$dir" -A trust -U postgres --no-instructions >/dev/null
    cat <<CONF | as_pg tee -a "$dir/postgresql.conf" >/dev/null
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
max_connections = 40
CONF
  fi
  local key_changed; key_changed="$(ensure_server_key "$dir")"
  # pg_mcp preloaded (durable audit), but off by default: the suites written against
  # audit rows in the caller's transaction keep them; tests/audit/run.sh turns it on per session.
  # PG_MCP_NO_PRELOAD=1 keeps a cluster without it (tests/upgrade/run.sh: the path without).
  if [ "${PG_MCP_NO_PRELOAD:-0}" != 1 ] && ! as_pg grep -q "^shared_preload_libraries = 'pg_mcp'" "$dir/postgresql.conf"; then
    printf "shared_preload_libraries = 'pg_mcp'\nmcp.audit_durable = off\n" | as_pg tee -a "$dir/postgresql.conf" >/dev/null
    as_pg "$PG_BIN/pg_ctl" -D "$dir" status >/dev/null 2>&1 && \
      as_pg "$PG_BIN/pg_ctl" -D "$dir" -l "$dir/server.log" -m fast -w -t 60 restart >/dev/null
  fi
  # A preloaded library is mapped by the postmaster: a newer build needs a restart.
  if as_pg grep -q "^shared_preload_libraries = 'pg_mcp'" "$dir/postgresql.conf" && \
     as_pg "$PG_BIN/pg_ctl" -D "$dir" status >/dev/null 2>&1 && \
     [ "$(${PG_CONFIG} --pkglibdir)/pg_mcp.so" -nt "$dir/postmaster.pid" ]; then
    as_pg "$PG_BIN/pg_ctl" -D "$dir" -l "$dir/server.log" -m fast -w -t 60 restart >/dev/null
  fi
  if ! as_pg "$PG_BIN/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
    as_pg "$PG_BIN/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 start >/dev/null
  elif [ -n "$key_changed" ]; then
    as_pg "$PG_BIN/pg_ctl" -D "$dir" reload >/dev/null
  fi
}

stop_cluster() {
  local dir="$1"
  as_pg "$PG_BIN/pg_ctl" -D "$dir" -m fast -w stop >/dev/null 2>&1 || true
}

# psql_at PORT DB ARGS...
psql_at() {
  local port="$1" db="$2"; shift 2
  "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d "$db" "$@"
}

# fresh_db PORT DB: drop and recreate DB with pg_mcp (and vector) installed.
fresh_db() {
  local port="$1" db="$2"
  psql_at "$port" postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" 2>&1 | grep -v NOTICE || true
  psql_at "$port" "$db" -c "SET client_min_messages = warning" -c "CREATE EXTENSION pg_mcp CASCADE"
}
