#!/usr/bin/env python3
"""The shape of src/, measured: the folder graph from #include lines (no cycles; no folder
includes cmd/), files under 800 lines, functions under 120 lines. Prints TAP lines; with
--graph, the folder graph. Run by tests/e2e/t01-layout.sh."""
import os, re, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'src')
MAX_FILE, MAX_FUNC = 800, 120
# The layers, bottom up (docs/architecture.md): a folder may include only folders before it.
LAYERS = ['util', 'sysinfo', 'events', 'record', 'kernel', 'target', 'symbols', 'perfdata', 'live', 'stat',
          'model', 'unwind', 'resolve', 'python', 'session', 'inject', 'spe', 'analysis', 'output', 'wperf', 'cmd']
INC = re.compile(r'^\s*#\s*include\s+"([a-z_0-9]+)/[^"]+"', re.M)

def sources():
    for d, _, fs in os.walk(ROOT):
        for f in sorted(fs):
            if f.endswith(('.c', '.h')):
                p = os.path.join(d, f)
                yield os.path.relpath(p, ROOT), open(p, encoding='utf-8', errors='replace').read()

def folder(rel):
    return rel.split('/')[0] if '/' in rel else '.'

def graph(files):
    g = {}
    for rel, text in files:
        src = folder(rel)
        for dst in INC.findall(text):
            if dst != src:
                g.setdefault(src, set()).add(dst)
    return g

def cycles(g):
    """Strongly connected components with more than one folder (Tarjan)."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    def visit(v):
        index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v: break
            if len(comp) > 1: out.append(sorted(comp))
    for v in sorted(set(g) | {w for ws in g.values() for w in ws}):
        if v not in index: visit(v)
    return out

def functions(rel, text):
    """(name, first line, length) of each function body: a line starting a definition at column 0
    followed by a '{' alone at column 0, up to the matching '}' at column 0."""
    lines = text.split('\n')
    out, i = [], 0
    while i < len(lines):
        if lines[i] == '{':
            j = i - 1
            while j > 0 and not re.match(r'^[A-Za-z_]', lines[j]):
                j -= 1
            m = re.search(r'([A-Za-z_][A-Za-z_0-9]*)\s*\(', lines[j])
            k = i + 1
            while k < len(lines) and lines[k] != '}':
                k += 1
            out.append((m.group(1) if m else '?', j + 1, k - j + 1))
            i = k
        i += 1
    return out

def main():
    files = list(sources())
    g = graph(files)
    if '--graph' in sys.argv:
        for s in sorted(g):
            print(f'{s:10} -> {" ".join(sorted(g[s]))}')
        return 0
    results = []
    cyc = cycles(g)
    results.append(('no include cycle between src/ folders',
                    ['cycle: ' + ' <-> '.join(c) for c in cyc]))
    up = [f'{s} includes cmd/' for s in sorted(g) if s not in ('cmd', '.') and 'cmd' in g[s]]
    results.append(('no library folder includes cmd/', up))
    folders = sorted({folder(r) for r, _ in files} - {'.'})
    order = {f: i for i, f in enumerate(LAYERS)}
    bad = [f'{f}/ is not in tests/layout.py LAYERS (add it where it belongs)' for f in folders if f not in order]
    bad += [f'{s} includes {d} (a later layer)' for s in sorted(g) if s in order
            for d in sorted(g[s]) if d in order and order[d] > order[s]]
    results.append(('each folder includes only the layers below it', bad))
    big = [f'{r}: {t.count(chr(10))} lines' for r, t in files if t.count('\n') > MAX_FILE]
    results.append((f'no file over {MAX_FILE} lines', big))
    long_ = [f'{r}:{ln}: {name} is {n} lines' for r, t in files if r.endswith('.c')
             for name, ln, n in functions(r, t) if n > MAX_FUNC]
    results.append((f'no function over {MAX_FUNC} lines', long_))
    failed = 0
    for i, (title, problems) in enumerate(results, 1):
        if problems:
            failed += 1
            print(f'not ok {i} - {title}')
            for p in problems:
                print(f'#   {p}')
        else:
            print(f'ok {i} - {title}')
    print(f'# layout: {len(results)} tests, {failed} failed, 0 skipped')
    return 1 if failed else 0

sys.exit(main())
