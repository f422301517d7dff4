#!/usr/bin/env python3
"""Compares the layout of two `stat` outputs (perf's and lperf's) line by line: where each word
starts, how long the line is, how many numbers it has and, for CSV, how many fields. Numbers
themselves differ run to run; perf right-aligns them in fixed columns, so the words after them
stay put. K/sec, M/sec and G/sec count as one word.

usage: stat_shape.py [--csv SEP] PERF_OUTPUT LPERF_OUTPUT"""
import re
import sys


def shape(line, sep):
    line = line.rstrip('\n')
    if sep:
        line = re.sub(r'[KMG]/sec', '/sec', line)
        fields = line.split(sep)
        words = [re.sub(r'^\s*[\d.]+%?$', 'N', f) for f in fields]
        return (len(fields), words)
    line = re.sub(r'[KMG]/sec', '/sec ', line)
    words = [(m.start(), m.group()) for m in re.finditer(r'[^\s\d.,:%+]+', line)]
    numbers = len(re.findall(r'\d[\d.,]*', line))
    return (len(line), words, numbers)


def main():
    args = sys.argv[1:]
    sep = None
    if args[0] == '--csv':
        sep, args = args[1], args[2:]
    a = [shape(l, sep) for l in open(args[0]) if l.strip()]
    b = [shape(l, sep) for l in open(args[1]) if l.strip()]
    bad = 0
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else None
        y = b[i] if i < len(b) else None
        if x != y:
            bad += 1
            print(f'line {i + 1}:\n  perf:  {x}\n  lperf: {y}', file=sys.stderr)
    if not a:
        print('perf printed nothing to compare', file=sys.stderr)
        bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
