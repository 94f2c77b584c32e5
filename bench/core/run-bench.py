#!/usr/bin/env python3
"""Analyzer benchmark: kubus-analyze against a plain OTF2 read of the same trace, in one run.

usage: run-bench.py BUILD_DIR [--iterations N] [--weak N] [--out bench/core/RESULTS.md]

1. A 4-rank trace of tests/apps/ws-flood.c (≈10 events per iteration and rank; the default
   250 000 iterations give ≈10 million events) is recorded with kubus-run.
2. Baseline: bench/core/otf2-read reads every event with no-op callbacks (best of 3).
3. kubus-analyze --serial and the parallel analysis (mpirun, 4 ranks) on the same trace (best of 3):
   time per event relative to the baseline, and memory per rank against the event data it holds.
4. Weak scaling: 2, 4, 8 ranks with the same events per rank.
All figures are ratios to a baseline measured in the same run (the machine has 2 cores, shared).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time


def env():
    e = dict(os.environ)
    e.update({'OMPI_ALLOW_RUN_AS_ROOT': '1', 'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM': '1',
              'OMPI_MCA_rmaps_base_oversubscribe': '1', 'OMPI_MCA_btl': 'self,vader',
              'OMPI_MCA_btl_vader_single_copy_mechanism': 'none', 'OMPI_MCA_mpi_yield_when_idle': '1',
              'KUBUS_ANALYZE_TIMING': '1'})
    return e


def run(cmd):
    t = time.monotonic()
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=env())
    if p.returncode != 0:
        sys.exit(f'{" ".join(map(str, cmd))} failed:\n{p.stderr}')
    return time.monotonic() - t, p


def best(n, cmd):
    runs = [run(cmd) for _ in range(n)]
    return min(r[0] for r in runs), runs[-1][1]


def record(b, tmp, ranks, iters):
    exp = os.path.join(tmp, f'flood{ranks}-{iters}')
    run([os.path.join(b, 'src/collect/kubus-run'), '-o', exp, '--', 'mpirun', '-n', ranks,
         '--oversubscribe', os.path.join(b, 'tests/core/ws-flood'), iters])
    return exp


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('build')
    ap.add_argument('--iterations', type=int, default=250000)
    ap.add_argument('--weak', type=int, default=200000)
    ap.add_argument('--out', default=os.path.join(os.path.dirname(__file__), 'RESULTS.md'))
    a = ap.parse_args()
    b = os.path.abspath(a.build)
    analyze = os.path.join(b, 'src/core/kubus-analyze')
    reader = os.path.join(b, 'bench/core/otf2-read')
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        exp = record(b, tmp, 4, a.iterations)
        anchor = os.path.join(exp, 'traces.otf2')
        t_read, p = best(3, [reader, anchor])
        events = int(p.stdout.split()[0])
        evt_bytes = [os.path.getsize(os.path.join(exp, 'traces', f)) for f in os.listdir(os.path.join(exp, 'traces'))
                     if f.endswith('.evt')]
        t_ser, p_ser = best(3, [analyze, '--serial', '-q', exp, '-o', os.path.join(tmp, 's.cube')])
        t_par, p_par = best(3, [analyze, exp, '-o', os.path.join(tmp, 'p.cube')])
        inner = float(re.search(r'([\d.]+) s: done', p_par.stderr).group(1))
        mem = re.search(r'Memory per rank: ([\d.]+) MiB of records, peak resident ([\d.]+) MiB', p_par.stderr)
        rec_mib, rss_mib = float(mem.group(1)), float(mem.group(2))
        evt_mib = max(evt_bytes) / 1048576
        _, p_rss = run(['/usr/bin/time', '-f', '%M', reader, anchor])
        base_rss = int(p_rss.stderr.strip().splitlines()[-1]) / 1024
        lines += [
            '# kubus-analyze benchmark',
            '',
            f'Machine: 2 shared cores. Trace: tests/apps/ws-flood.c, 4 ranks, {a.iterations} iterations,',
            f'{events} events, {sum(evt_bytes) / 1048576:.1f} MiB of event files. Best of 3 runs each.',
            '',
            '| what | time | per event vs plain read |',
            '|---|---|---|',
            f'| plain OTF2 read, all events, no-op callbacks (baseline) | {t_read:.3f} s | 1.00 |',
            f'| kubus-analyze --serial (read + replay + report, one process) | {t_ser:.3f} s | {t_ser / t_read:.2f} |',
            f'| kubus-analyze, 4 MPI ranks, wall time incl. mpirun start | {t_par:.3f} s | {t_par / t_read:.2f} |',
            f'| kubus-analyze, 4 MPI ranks, after MPI start-up (definitions → report written) | {inner:.3f} s | {inner / t_read:.2f} |',
            '',
            '| memory per rank | MiB | ratio to the rank\'s event data |',
            '|---|---|---|',
            f'| event data of the largest rank (.evt file) | {evt_mib:.1f} | 1.00 |',
            f'| analyzer records + severity rows | {rec_mib:.1f} | {rec_mib / evt_mib:.2f} |',
            f'| peak resident set of an analysis rank (incl. Open MPI, OTF2 buffers) | {rss_mib:.1f} | {rss_mib / evt_mib:.2f} |',
            f'| peak resident set of the plain reader (whole trace, one process) | {base_rss:.1f} | {base_rss / evt_mib:.2f} |',
            '',
            f'## Weak scaling ({a.weak} iterations per rank, ≈{a.weak * 10} events per rank)',
            '',
            '| ranks | events | wall time incl. mpirun | after MPI start-up | ratio to 2 ranks (after start-up) |',
            '|---|---|---|---|---|',
        ]
        base = None
        for n in (2, 4, 8):
            e = record(b, tmp, n, a.weak)
            t, p = best(3, [analyze, e, '-o', os.path.join(tmp, f'w{n}.cube')])
            own = float(re.search(r'([\d.]+) s: done', p.stderr).group(1))
            ev = int(re.search(r'Analysed \d+ ranks, (\d+) events', p.stderr).group(1))
            base = base or own
            lines.append(f'| {n} | {ev} | {t:.3f} s | {own:.3f} s | {own / base:.2f} |')
        lines += ['', 'With 2 cores, 4 and 8 ranks are oversubscribed: ideal weak scaling would stay at 1.00',
                  'only up to 2 ranks; beyond that the ratio grows with ranks per core (4 ranks ≈ 2×,',
                  '8 ranks ≈ 4× is the best this machine can do).', '',
                  'Notes: "after MPI start-up" is the time from reading the definitions to the written report',
                  '(KUBUS_ANALYZE_TIMING=1); MPI_Init and mpirun add a constant of a few tenths of a second.',
                  'The analyzer records (call, send, receive, collective records and severity rows) are what',
                  'the analysis holds per event; the peak resident set adds Open MPI (about 10 MiB per',
                  'process here), the OTF2 reader buffers and the replay exchange buffers (during the',
                  'exchange a message record exists in the MPI receive buffer and the receiver\'s copy).', '']
    with open(a.out, 'w') as f:
        f.write('\n'.join(lines))
    print('\n'.join(lines))


if __name__ == '__main__':
    main()
