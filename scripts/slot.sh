#!/usr/bin/env bash
# Developer tool: a private "slot" so that several checkouts can build, install and test pg_mcp
# at the same time without overwriting each other's installed extension or ports.
#
#   eval "$(bash scripts/slot.sh 3)"   # then scripts/test.sh, demo.sh, benches … use slot 3
#
# A slot is a copy of the system PostgreSQL (PostgreSQL is relocatable: pg_config and postgres
# find lib/ and share/ relative to their own binary), its own PGRX_HOME whose config.toml points
# at that copy with its own test port, and its own cluster directories and ports. The copy is
# made once (after scripts/setup.sh installed PostgreSQL and pgvector); run with --refresh to
# copy again. CI and the README's commands use no slot (the system PostgreSQL).
set -euo pipefail
N="${1:?usage: slot.sh N [--refresh]   (N = 1..9)}"
[[ "$N" =~ ^[1-9]$ ]] || { echo "slot number must be 1..9" >&2; exit 1; }
PG_MAJOR="${PG_MAJOR:-15}"
BASE="/var/tmp/pg_mcp_slot$N"
ROOTFS="$BASE/root"
SYS_LIB="/usr/lib/postgresql/$PG_MAJOR"
SYS_SHARE="/usr/share/postgresql/$PG_MAJOR"

if [ "${2:-}" = "--refresh" ] || [ ! -x "$ROOTFS$SYS_LIB/bin/pg_config" ]; then
  [ -x "$SYS_LIB/bin/pg_config" ] || { echo "run scripts/setup.sh first" >&2; exit 1; }
  rm -rf "$ROOTFS"
  mkdir -p "$ROOTFS/usr/lib/postgresql" "$ROOTFS/usr/share/postgresql" "$ROOTFS/usr/include"
  cp -a "$SYS_LIB" "$ROOTFS/usr/lib/postgresql/"
  cp -a "$SYS_SHARE" "$ROOTFS/usr/share/postgresql/"
  ln -s /usr/include/postgresql "$ROOTFS/usr/include/postgresql"
  # pg_mcp's own files come from the slot's builds only
  rm -f "$ROOTFS$SYS_LIB/lib/pg_mcp.so" "$ROOTFS$SYS_SHARE/extension/pg_mcp"*
  chmod -R a+rX "$BASE"
fi
PG_CONFIG="$ROOTFS$SYS_LIB/bin/pg_config"
mkdir -p "$BASE/pgrx" "$BASE/pgrx_test"
chown postgres: "$BASE/pgrx_test"   # pgrx's --runas postgres creates PGDATA below it
cat >"$BASE/pgrx/config.toml" <<TOML
base_port = $((28800 + 100 * N))
base_testing_port = $((32200 + 100 * N))

[configs]
pg$PG_MAJOR = "$PG_CONFIG"
TOML
cat <<ENV
export PG_MCP_SLOT=$N
export PG_MCP_PG_CONFIG='$PG_CONFIG'
export PGRX_HOME='$BASE/pgrx'
export PG_MCP_PGRX_TEST_DIR='$BASE/pgrx_test'
export PG_MCP_REGRESS_DIR='$BASE/regress/pgdata'
export PG_MCP_REGRESS_PORT=$((55433 + 10 * N))
export PG_MCP_DEMO_DIR='$BASE/demo/pgdata'
export PG_MCP_DEMO_PORT=$((55432 + 10 * N))
export PG_MCP_BENCH_PORT=$((55434 + 10 * N))
export PG_MCP_BENCH_DIR='$BASE/bench/pgdata'
export PG_MCP_CHAT_BENCH_PORT=$((55435 + 10 * N))
export PG_MCP_CHAT_BENCH_DIR='$BASE/chat_bench/pgdata'
ENV
