# Shared by the bridge benchmarks (sourced after scripts/lib.sh).

# release_bridge: builds pg_mcp_bridge in release and sets BRIDGE to it.
release_bridge() {
  (cd "$ROOT" && cargo build -q --release -p mcp_bridge)
  BRIDGE="${CARGO_TARGET_DIR:-$ROOT/target}/release/pg_mcp_bridge"
}

# reference_server DIR: the reference @modelcontextprotocol/server-postgres 0.6.2 (npm), installed
# into DIR once; sets REF to its entry point (missing when npm could not install it).
reference_server() {
  REF="$1/node_modules/@modelcontextprotocol/server-postgres/dist/index.js"
  mkdir -p "$1"
  if [ ! -f "$REF" ]; then
    log "installing @modelcontextprotocol/server-postgres@0.6.2"
    (cd "$1" && npm install --silent --no-audit --no-fund @modelcontextprotocol/server-postgres@0.6.2 >/dev/null 2>&1) || true
  fi
}
