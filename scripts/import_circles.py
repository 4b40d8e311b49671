#!/usr/bin/env python3
"""Import circles between the modules of each crate.

    python3 scripts/import_circles.py [CRATE_DIR...]   (a directory with src/; default: every
    crate and the root crate, run from the repository root)

Edges: `crate::a::b` paths (in `use` lines, groups `use crate::{a, b::c}` and inline paths),
`super::x` (resolved against the module's parent) and, in a module with children, paths that
start with a child's name (`openai::OpenAi`). A parent declaring its children (`mod x;`) is not
an edge. Comments are ignored. Prints each strongly connected component of more than one module
with its edges, and `no import circles` for a crate without any."""
import os, re, sys

def modname(src, path):
    parts = os.path.relpath(path, src)[:-3].split(os.sep)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return "::".join(parts) or "crate"

def resolve(names, segs):
    for i in range(len(segs), 0, -1):
        cand = "::".join(segs[:i])
        if cand in names:
            return cand
    return None

def graph(src):
    mods = {}
    for d, _, fs in os.walk(src):
        for f in fs:
            if f.endswith(".rs"):
                mods[modname(src, os.path.join(d, f))] = os.path.join(d, f)
    names = set(mods)
    g = {m: set() for m in mods}
    for m, p in mods.items():
        text = re.sub(r"//[^\n]*", "", open(p, encoding="utf-8").read())
        parent = m.rsplit("::", 1)[0] if "::" in m else "crate"
        children = {n.split("::")[-1] for n in names if n.startswith(m + "::") and n.count("::") == m.count("::") + 1} if m != "crate" else {n for n in names if "::" not in n and n != "crate"}
        refs = []
        # `crate::a::{b, c::d}` groups: each item under its prefix (one level of braces)
        for mm in re.finditer(r"\bcrate::((?:\w+::)*)\{([^;{}]*)\}", text, re.S):
            pre = [x for x in mm.group(1).split("::") if x]
            for item in mm.group(2).split(","):
                segs = [x for x in item.strip().split("::") if x and x != "self"]
                refs.append(pre + segs)
        for mm in re.finditer(r"\bcrate::((?:\w+::)*\w+)(?!::|\w)", text):
            refs.append(mm.group(1).split("::"))
        for mm in re.finditer(r"\bsuper::((?:\w+::)*\w+)", text):
            segs = mm.group(1).split("::")
            base = [] if parent == "crate" else parent.split("::")
            refs.append(base + segs if base or segs else ["crate"])
            if not segs or resolve(names, base + segs) is None:
                refs.append(base)  # an item of the parent itself
        for mm in re.finditer(r"use\s+super::\{([^;]*)\};", text, re.S):
            base = [] if parent == "crate" else parent.split("::")
            for item in mm.group(1).split(","):
                segs = item.strip().strip("{} \n").split("::")
                refs.append(base + segs if resolve(names, base + segs) else base)
        prefix = [] if m == "crate" else m.split("::")
        for c in children:
            if re.search(r"(?<![\w:])" + re.escape(c) + r"::", text):
                refs.append(prefix + [c])
        for segs in refs:
            t = resolve(names, [s for s in segs if s]) if segs else None
            if t is None and segs == []:
                t = "crate"
            if t and t != m:
                g[m].add(t)
    return g

def sccs(g):
    idx, low, st, on, out, c = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)
    def sc(v):
        idx[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
        for w in g[v]:
            if w not in idx:
                sc(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], idx[w])
        if low[v] == idx[v]:
            comp = []
            while True:
                w = st.pop(); on.discard(w); comp.append(w)
                if w == v: break
            if len(comp) > 1: out.append(sorted(comp))
    for v in sorted(g):
        if v not in idx: sc(v)
    return out

dirs = sys.argv[1:]
if not dirs:
    root = os.getcwd()
    dirs = [os.path.join(root, "crates", c) for c in sorted(os.listdir(os.path.join(root, "crates")))] + [root]
for base in dirs:
    src = os.path.join(base, "src")
    if not os.path.isdir(src):
        continue
    g = graph(src)
    # the crate root declares every module: not an import
    name = os.path.basename(os.path.normpath(base))
    comps = sccs({k: {w for w in v if w != "crate" or True} for k, v in g.items()})
    comps = [c for c in comps]
    if not comps:
        print(f"{name}: no import circles")
    for comp in comps:
        edges = sorted(f"{a}->{b}" for a in comp for b in g[a] if b in comp)
        print(f"{name}: circle {comp}: {' '.join(edges)}")
