# Helpers of the attack corpus (sourced after scripts/lib.sh).

# start_cluster_with_backtraces DIR PORT: the cluster, (re)started with RUST_BACKTRACE=1 in the
# postmaster's environment, as an operator debugging Rust extensions might run it. pgrx then
# captures a Rust backtrace for every error that passes through Rust code; pg_mcp must never
# let one reach a client (see no_rust_internals).
start_cluster_with_backtraces() {
  local dir="$1" port="$2"
  start_cluster "$dir" "$port"
  stop_cluster "$dir"
  as_pg env RUST_BACKTRACE=1 "$PG_BIN/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 start >/dev/null
}

# no_rust_internals FILE: fail (return 1) when client output shows a Rust backtrace or a
# Rust source path (a panic location, a registry path, a rustc frame).
no_rust_internals() {
  ! grep -nE 'stack backtrace|/rustc/|\.cargo/registry|[A-Za-z_/]+\.rs:[0-9]+|rust_begin_unwind|pgrx::' "$1"
}
