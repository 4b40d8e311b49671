#!/bin/sh
# The linker of every Rust build on x86-64 Linux (.cargo/config.toml): the C compiler driver
# as rustc calls it, with mold when it is installed (scripts/setup.sh installs Debian's package),
# else exactly rustc's own choice (rustc 1.95 links x86-64 Linux with its bundled rust-lld:
# `-fuse-ld=lld`). mold comes last, so it wins over rustc's -fuse-ld; it cut a cold debug build's
# CPU time by about a tenth more than rust-lld (docs/operations.md, "PostgreSQL versions"). Both
# keep pgrx's schema section (.pgrxsc, SHF_GNU_RETAIN) under --gc-sections.
# PG_MCP_MOLD=0: rustc's own linker.
if [ "${PG_MCP_MOLD:-1}" != 0 ] && command -v ld.mold >/dev/null 2>&1; then
  exec cc "$@" -fuse-ld=mold
fi
exec cc "$@"
