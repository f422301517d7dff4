"""pytest plugin: runs WindowsPerf's test suite on Linux without changing what a test asserts.

The suite often hands subprocess.Popen one string ("wperf stat -e ld_spec -c 0"). On Windows,
CreateProcess passes that string to the program, whose C runtime splits it into words; POSIX
takes the whole string as the program's name. This plugin splits such strings the way the
Microsoft C runtime does (CommandLineToArgvW's rules) before Popen sees them. Loaded with
`-p lperf_wperf_shim` by tests/wperf-suite/run.sh.
"""
import subprocess


def split_windows(line):
    """Split a command line as the Microsoft C runtime does: words end at blanks outside double
    quotes; 2n backslashes before a quote give n backslashes and the quote toggles quoting,
    2n+1 give n backslashes and a literal quote; other backslashes are literal."""
    words, cur, have, quoted, i = [], [], False, False, 0
    while i < len(line):
        c = line[i]
        if c == "\\":
            n = 0
            while i < len(line) and line[i] == "\\":
                n += 1
                i += 1
            if i < len(line) and line[i] == '"':
                cur.append("\\" * (n // 2))
                if n % 2:
                    cur.append('"')
                    i += 1
            else:
                cur.append("\\" * n)
            have = True
            continue
        if c == '"':
            if quoted and i + 1 < len(line) and line[i + 1] == '"':
                cur.append('"')  # "" inside quotes: a literal quote
                i += 2
                continue
            quoted = not quoted
            have = True
        elif c in " \t" and not quoted:
            if have:
                words.append("".join(cur))
            cur, have = [], False
        else:
            cur.append(c)
            have = True
        i += 1
    if have:
        words.append("".join(cur))
    return words


_popen_init = subprocess.Popen.__init__


def _init(self, args, *rest, **kw):
    if isinstance(args, str) and not kw.get("shell", False):
        args = split_windows(args)
    _popen_init(self, args, *rest, **kw)


def pytest_configure(config):
    subprocess.Popen.__init__ = _init
