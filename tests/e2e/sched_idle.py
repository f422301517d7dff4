#!/usr/bin/env python3
"""sched_idle.py PLAIN IDLE [PID CPU]: what a user checks in `sched timehist -I -S` (IDLE) against
`sched timehist -S` (PLAIN) of the same recording, both lperf's:
- each CPU's "idle for X msec" is the sum of the idle task's lines on that CPU in PLAIN (each
  line rounds down to the microsecond), and -I's "Idle stats" are PLAIN's;
- the Idle-time summary gives every idle period to one task: its sched-out counts add up to
  -I's idle lines and its idle times to theirs;
- with PID and CPU (a task spinning on that CPU alone): the CPU is not idle while it runs, so
  its idle time and the task's run time fit in the window ("Total scheduling time")."""
import re
import sys

ROW = re.compile(r'^ *(\d+\.\d{6}) \[(\d{4})\]  (.*?) +(\d+\.\d{3}) +(\d+\.\d{3}) +(\d+\.\d{3}) ')
TASK = re.compile(r'^ *(.*?) +(-?\d+) +(\d+) +(\d+\.\d{3}) ')
US = 0.001  # ms


def parse(path):
    rows, tasks, idle, window = [], [], {}, None
    section = 'rows'
    for line in open(path, errors='surrogateescape'):
        line = line.rstrip('\n')
        if line in ('Runtime summary', 'Idle-time summary', 'Wait-time summary'):
            section = 'tasks'
            continue
        if line == 'Idle stats:':
            section = 'idle'
            continue
        if line.startswith('Idle stats by callchain') or line.startswith('    Total number'):
            section = 'end'
        m = re.match(r'^    Total scheduling time \(msec\): +(\d+\.\d{3})', line)
        if m:
            window = float(m.group(1))
        if section == 'rows':
            m = ROW.match(line)
            if m:
                rows.append((int(m.group(2)), m.group(3), float(m.group(6))))
        elif section == 'tasks':
            m = TASK.match(line)
            if m and not line.startswith('-'):
                tasks.append((m.group(1), int(m.group(3)), float(m.group(4))))
        elif section == 'idle':
            m = re.match(r'^    CPU +(\d+) idle for +(\d+\.\d{3}) msec', line)
            if m:
                idle[int(m.group(1))] = (float(m.group(2)), line)
            m = re.match(r'^    CPU +(\d+) idle entire time window', line)
            if m:
                idle[int(m.group(1))] = (0.0, line)
    return rows, tasks, idle, window


def main():
    bad = []
    prows, ptasks, pidle, window = parse(sys.argv[1])
    irows, itasks, iidle, _ = parse(sys.argv[2])
    if not pidle:
        bad.append('no Idle stats in %s' % sys.argv[1])
    if [v[1] for v in sorted(pidle.items())] != [v[1] for v in sorted(iidle.items())]:
        bad.append('-I Idle stats differ from timehist -S\'s')
    for cpu, (ms, line) in sorted(pidle.items()):
        lines = [r[2] for r in prows if r[0] == cpu and r[1] == '<idle>']
        if abs(sum(lines) - ms) > US * (len(lines) + 1):
            bad.append('CPU %d: idle %.3f ms, its idle lines add up to %.3f ms (%d lines)'
                       % (cpu, ms, sum(lines), len(lines)))
    idle_lines = [r[2] for r in irows if r[1] == '<idle>']
    if sum(t[1] for t in itasks) != len(idle_lines):
        bad.append('Idle-time summary: %d sched-outs for %d idle lines'
                   % (sum(t[1] for t in itasks), len(idle_lines)))
    if abs(sum(t[2] for t in itasks) - sum(idle_lines)) > US * (len(idle_lines) + len(itasks) + 1):
        bad.append('Idle-time summary: %.3f ms for %.3f ms of idle lines'
                   % (sum(t[2] for t in itasks), sum(idle_lines)))
    if len(sys.argv) > 4:
        pid, cpu = sys.argv[3], int(sys.argv[4])
        spin = [t for t in ptasks if t[0].endswith('[%s]' % pid)]
        if not spin or spin[0][2] <= 0:
            bad.append('the spinning task [%s] has no run time in %s' % (pid, sys.argv[1]))
        elif window is None or pidle.get(cpu, (0.0,))[0] + spin[0][2] > window + 2 * US:
            bad.append('CPU %d: idle %.3f ms and the spinning task ran %.3f ms in a %s ms window'
                       % (cpu, pidle.get(cpu, (0.0,))[0], spin[0][2], window))
    for b in bad:
        print(b, file=sys.stderr)
    sys.exit(1 if bad else 0)


main()
