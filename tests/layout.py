#!/usr/bin/env python3
"""The shape of src/, measured against docs/architecture.md. The folder graph from #include lines
must match the page's "may include" table both ways (a folder includes only what its row lists,
and a row lists nothing the folder does not include), the table has no cycle and nothing includes
cmd/; no two files circle each other (a.c/a.h reaching b while b.c/b.h reaches a, by #include or
by using a function defined there: a call or a callback); a header declares only functions its
own folder defines; file names are unique across src/; library folders do not print; files stay
under 800 lines and functions under 120; cmd/ holds only command entries and option tables. Prints TAP lines; with --graph, the folder graph; with
--files, the file graph. Run by tests/e2e/t01-layout.sh."""
import os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
# LAYOUT_SRC and LAYOUT_DOC point the check at another tree (t01 checks the checker on one).
ROOT = os.environ.get('LAYOUT_SRC') or os.path.join(HERE, '..', 'src')
DOC = os.environ.get('LAYOUT_DOC') or os.path.join(HERE, '..', 'docs', 'architecture.md')
MAX_FILE, MAX_FUNC = 800, 120
INC = re.compile(r'^\s*#\s*include\s+"([a-z_0-9]+)/([^"]+)"', re.M)
# The only library files that write to stdout/stderr: err_die's last words and option parsing's
# usage errors (documented in docs/architecture.md, "Rules the code keeps").
MAY_PRINT = {'util/error.c', 'util/opt.c', 'util/xalloc.c', 'util/pager.c'}
PRINTS = re.compile(r'\b(printf|puts|perror|putchar|vprintf)\s*\(|'
                    r'\b(fprintf|vfprintf|fputs|fputc|putc|fwrite|fflush)\s*\([^;]*\b(stdout|stderr)\b')


def sources():
    for d, _, fs in os.walk(ROOT):
        for f in sorted(fs):
            if f.endswith(('.c', '.h')):
                p = os.path.join(d, f)
                yield os.path.relpath(p, ROOT), open(p, encoding='utf-8', errors='replace').read()


def folder(rel):
    return rel.split('/')[0] if '/' in rel else '.'


def module(rel):
    """a.c and a.h are one module, "folder/a"."""
    return rel[:-2]


def strip(text):
    """The code without comments, string and character literals (kept line for line)."""
    def blank(m):
        s = m.group(0)
        return s[0] + '\n' * s.count('\n') + s[-1] if s[0] in '"\'' else '\n' * s.count('\n')
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', blank, text, flags=re.S)


# ---- the documented table ----

def doc_table():
    """{folder: set of folders it may include, or None for "anything"} from the page's table."""
    table = {}
    for line in open(DOC, encoding='utf-8'):
        cells = [c.strip() for c in line.strip().strip('|').split('|')] if line.startswith('|') else []
        if len(cells) < 3:
            continue
        m = re.fullmatch(r'`([a-z_0-9.]+?)/?`', cells[0])
        if not m:
            continue
        may = cells[-1]
        if may == 'anything':
            table[m.group(1)] = None
        else:
            table[m.group(1)] = {w for w in re.split(r'[,\s]+', may) if w and w not in ('—', '-')}
    return table


def folder_graph(files):
    g = {}
    for rel, text in files:
        src = folder(rel)
        for dst, _ in INC.findall(text):
            if dst != src:
                g.setdefault(src, set()).add(dst)
    return g


def cycles(g):
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

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


def check_table(files, g, table):
    bad = []
    folders = sorted({folder(r) for r, _ in files} - {'.'})
    bad += [f'{f}/ has no row in docs/architecture.md\'s table' for f in folders + ['lperf.c']
            if f not in table]
    bad += [f'the table has a row for {f}/, which is not in src/' for f in sorted(table)
            if f != 'lperf.c' and f not in folders]
    g = {('lperf.c' if s == '.' else s): ds for s, ds in g.items()}
    for row in sorted(set(g) | set(table)):
        if row not in table or table[row] is None:
            continue
        used = g.get(row, set())
        bad += [f'{row} includes {d}/, which its row does not list' for d in sorted(used - table[row])]
        bad += [f'{row}\'s row lists {d}, which it does not include' for d in sorted(table[row] - used)]
    doc = {s: ws for s, ws in table.items() if ws is not None}
    bad += ['the table has a cycle: ' + ' <-> '.join(c) for c in cycles(doc)]
    return bad


# ---- files ----

# A definition: its first line at column 0 (a body inside a function is indented).
DEF = re.compile(r'^(?!static\b)(?!typedef\b)[A-Za-z_][^;{}()\n]*?\b([a-z_][a-z_0-9]*)\s*\([^;{}]*?\)\s*\{',
                 re.M)
STATIC_DEF = re.compile(r'^static\b[^;{}()]*?\b([a-z_][a-z_0-9]*)\s*\(', re.M)
DECL = re.compile(r'^(?!static\b)(?!typedef\b)(?!#)[A-Za-z_][^;{}()=]*?\b\**([a-z_][a-z_0-9]*)\s*\([^;{]*?\)'
                  r'\s*(__attribute__\s*\(\(.*?\)\))?\s*;', re.M | re.S)
# A use of a function: called or taken as a pointer (a callback); not a member (.x, ->x). Struct,
# enum and union tags are removed first (struct wperf_man is not the function wperf_man).
REF = re.compile(r'(?<![.>\w])([a-z_][a-z_0-9]*)\b')
TAG = re.compile(r'\b(struct|enum|union)\s+[A-Za-z_]\w*')


def file_graph(files):
    """Module graph (a.c + a.h as one node): an edge for each #include of another module's header
    and for each use (a call, or a callback handed on) of a function another module defines."""
    code = {rel: strip(text) for rel, text in files}
    defined = {}
    for rel, text in code.items():
        if rel.endswith('.c'):
            for name in DEF.findall(text):
                defined.setdefault(name, set()).add(module(rel))
    exists = {module(r) for r in code}
    g = {}
    for rel, text in code.items():
        me = module(rel)
        for dst in INC.findall(text):
            m = module('/'.join(dst))
            if m != me and m in exists:
                g.setdefault(me, set()).add(m)
        if rel.endswith('.c'):
            local = set(STATIC_DEF.findall(text))
            for name in set(REF.findall(TAG.sub(' ', text))) - local:
                for m in defined.get(name, ()):
                    if m != me and len(defined[name]) == 1:
                        g.setdefault(me, set()).add(m)
    return g, defined


def check_declarations(files, defined):
    """A header declares functions of its own folder only (one defined elsewhere would be an arrow
    the include lines do not show)."""
    bad = []
    for rel, text in files:
        if not rel.endswith('.h'):
            continue
        for m in DECL.finditer(strip(text)):
            where = defined.get(m.group(1), set())
            if not where:
                bad.append(f'{rel} declares {m.group(1)}, which no file defines')
            elif not any(folder(w) == folder(rel) for w in where):
                bad.append(f'{rel} declares {m.group(1)}, defined in {", ".join(sorted(w + ".c" for w in where))}')
    return bad


def check_names(files):
    seen = {}
    for rel, _ in files:
        seen.setdefault(os.path.basename(rel), []).append(rel)
    return [f'{n}: {" ".join(sorted(p))}' for n, p in sorted(seen.items()) if len(p) > 1]


def check_prints(files):
    bad = []
    for rel, text in files:
        if folder(rel) in ('cmd', 'output', '.') or rel in MAY_PRINT or not rel.endswith('.c'):
            continue
        for i, line in enumerate(strip(text).split('\n'), 1):
            if PRINTS.search(line):
                bad.append(f'{rel}:{i}: prints ({line.strip()[:60]})')
    return bad


# cmd/ holds only commands: each .c file defines an entry (cmd_*, WindowsPerf's wperf_*, or a
# command body two entries share, *_command: stat_command serves lperf stat, stat record and wperf
# stat) or is an option table (*_opts.c). A helper that is neither belongs in the library.
CMD_ENTRY = re.compile(r'(cmd|wperf)_[a-z_0-9]+|[a-z_0-9]+_command')


def check_cmd_files(files):
    bad = []
    for rel, text in files:
        if folder(rel) != 'cmd' or not rel.endswith('.c') or rel.endswith('_opts.c'):
            continue
        if not any(CMD_ENTRY.fullmatch(n) for n in DEF.findall(strip(text))):
            bad.append(f'{rel} defines no command entry (cmd_*, wperf_*, *_command) and is no option '
                       'table (*_opts.c): move it to the library')
    return bad


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
    g = folder_graph(files)
    fg, defined = file_graph(files)
    if '--graph' in sys.argv or '--files' in sys.argv:
        graph = g if '--graph' in sys.argv else fg
        for s in sorted(graph):
            print(f'{s:10} -> {" ".join(sorted(graph[s]))}')
        return 0
    table = doc_table()
    results = []
    results.append(('no include cycle between src/ folders',
                    ['cycle: ' + ' <-> '.join(c) for c in cycles(g)]))
    up = [f'{s} includes cmd/' for s in sorted(g) if s not in ('cmd', '.') and 'cmd' in g[s]]
    results.append(('no library folder includes cmd/', up))
    results.append(('each folder includes exactly what docs/architecture.md\'s table lists',
                    check_table(files, g, table)))
    results.append(('no file circle (a.c/a.h reach b by #include or a use, and b reaches a)',
                    ['circle: ' + ' <-> '.join(c) for c in cycles(fg)]))
    results.append(('a header declares only functions its folder defines',
                    check_declarations(files, defined)))
    results.append(('file names are unique across src/', check_names(files)))
    results.append(('cmd/ holds only command entries and option tables', check_cmd_files(files)))
    results.append(('library folders do not print (only cmd/, output/ and lperf.c)', check_prints(files)))
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


if __name__ == "__main__":
    sys.exit(main())
