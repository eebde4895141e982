#!/usr/bin/env bash
# tests/check-includes.sh: the layering as a test. Every quoted #include of
# every file under src/ and wrapper/ is checked twice:
#
#   1. against the folders its folder may use (the table below, which is
#      docs/ARCHITECTURE.md's: includes point only downward);
#   2. against the "May include:" line of its header: a header's own, or
#      for a .c file the header of the same name beside it (a .c file
#      without one, such as a main.c, has only the folder rule). A .c
#      file's includes from its own folder are its own business: its
#      header's line says what the module reaches outside the folder.
#
# A "May include:" line lists, up to the first '.' that ends it: libc and
# other libraries (not checked here: only quoted includes are), `folder/`
# (any header of src/folder/), `folder/ (a.h, b.h)` (those), `folder/a.h`,
# `a.h` (beside the header), "nothing", or "every engine module" (cli/ks.h).
# Prints each violation and "N files, N violations"; status 1 on any.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 2

python3 - <<'PY'
import os, re, sys

# Which folders each folder's files may include from, besides its own
# (docs/ARCHITECTURE.md). A subfolder (review/replay) belongs to its area.
MAY_USE = {
    "cli": "*",
    "report": "memory cache review capture nvcc core",
    "agents": "llm transforms policy memory review capture analysis evidence cache nvcc core",
    "llm": "core",
    "transforms": "analysis cache nvcc core",
    "policy": "memory core",
    "memory": "core",
    "review": "capture nvcc core",
    "capture": "core",
    "analysis": "cache nvcc core",
    "evidence": "nvcc core",
    "cache": "nvcc core",
    "nvcc": "core",
    "core": "",
    "wrapper": "nvcc cache core",
}

def area(path):
    parts = path.split("/")
    if parts[0] == "wrapper":
        return "wrapper"
    return parts[1] if parts[0] == "src" and len(parts) > 2 else None

def folder_of_item(name):
    name = name.rstrip("/")
    return "wrapper" if name == "wrapper" else "src/" + name

def may_include(header):
    """The rule of a header: (anything, set of allowed files, list of allowed folder prefixes)."""
    text = open(header, encoding="utf-8", errors="replace").read()
    m = re.search(r"May include:(.*)", text)
    if not m:
        return None
    line = m.group(1)
    rest = text[m.end():].split("\n")[1:]
    # Continuation lines of the comment, until the sentence ends.
    while not line.rstrip().endswith(".") and rest:
        nxt = rest.pop(0)
        if not nxt.lstrip().startswith("*") or nxt.strip() == "*/":
            break
        line += " " + nxt.lstrip()[1:].strip()
    line = line.strip().rstrip(".")
    here = os.path.dirname(header)
    files, folders, anything = set(), [], False
    # Split on commas outside parentheses.
    items, depth, cur = [], 0, ""
    for ch in line:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            items.append(cur.strip())
            cur = ""
        else:
            cur += ch
    items.append(cur.strip())
    for it in items:
        if not it or it.startswith("<") or it.startswith("nothing"):
            continue
        if it.startswith("every"):
            anything = True
            continue
        m = re.match(r"^([A-Za-z_][\w/]*/)\s*(\((.*)\))?", it)
        if m:
            folder = folder_of_item(m.group(1))
            names = re.findall(r"[\w.]+\.h", m.group(3) or "")
            if names:
                files.update(os.path.normpath(os.path.join(folder, n)) for n in names)
            else:
                folders.append(folder + "/")
            continue
        m = re.match(r"^([\w./]+\.h)", it)
        if m:
            n = m.group(1)
            if "/" in n:
                files.add(os.path.normpath(os.path.join(folder_of_item(n.split("/")[0]), *n.split("/")[1:])))
            else:
                files.add(os.path.normpath(os.path.join(here, n)))
            continue
        # libc, CUDA, CUPTI, cJSON, libclang...: libraries, not checked here.
    return anything, files, folders

sources = []
for top in ("src", "wrapper"):
    for d, _, fs in os.walk(top):
        sources += [os.path.join(d, f) for f in fs if f.endswith((".c", ".h"))]
sources.sort()
bad = 0
for src in sources:
    a = area(src)
    base, ext = os.path.splitext(src)
    header = src if ext == ".h" else (base + ".h" if os.path.exists(base + ".h") else None)
    rule = may_include(header) if header else None
    if header and ext == ".h" and rule is None:
        print("%s: no \"May include:\" line" % src)
        bad += 1
    for n, l in enumerate(open(src, encoding="utf-8", errors="replace"), 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', l)
        if not m:
            continue
        target = os.path.normpath(os.path.join(os.path.dirname(src), m.group(1)))
        if header and target == header:
            continue
        if not os.path.exists(target):
            continue  # generated (suites.h) or not ours
        ta = area(target)
        if ta is None:
            continue
        if ta != a and MAY_USE.get(a) != "*" and ta not in (MAY_USE.get(a) or "").split():
            print("%s:%d: %s may not include %s (%s/ may use: %s)" % (
                src, n, a + "/", target, a, MAY_USE.get(a) or "nothing"))
            bad += 1
            continue
        if rule is None or (ext == ".c" and os.path.dirname(target) == os.path.dirname(src)):
            continue
        anything, files, folders = rule
        if anything or target in files or any(target.startswith(f) for f in folders):
            continue
        print("%s:%d: %s is not on the \"May include:\" line of %s" % (src, n, target, header))
        bad += 1
print("%d files, %d violations" % (len(sources), bad))
sys.exit(1 if bad else 0)
PY
