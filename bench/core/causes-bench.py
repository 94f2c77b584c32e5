#!/usr/bin/env python3
"""What the root-cause and critical-path passes cost (issue 22): kubus-analyze with everything
on against the wait-state analysis alone (--no-root-cause --no-critical-path), paired runs with
farm-bench (A B A B …, the ratio taken pair by pair), --serial and under MPI.

usage: causes-bench.py BUILD_DIR [--runs N] [--flood ITERATIONS] [--keep DIR]

Traces (recorded with kubus-run, 4 ranks):
  flood  tests/apps/ws-flood.c: a message ring with nothing between the calls, the worst case
         (every event a synchronization point); ITERATIONS (default 20000) ≈ 12 events each
  demo   tests/apps/ws-demo.c (the bundled demo: imbalance, halo exchange, allreduce, wavefront)
  melt   LAMMPS's melt example (tests/real/melt.in), when lmp is installed
Prints a Markdown table (median ratios of user+system time and of wall time, peak memory)."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile


def env():
    e = dict(os.environ)
    e.update({'OMPI_ALLOW_RUN_AS_ROOT': '1', 'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM': '1',
              'OMPI_MCA_rmaps_base_oversubscribe': '1', 'OMPI_MCA_btl': 'self,vader',
              'OMPI_MCA_btl_vader_single_copy_mechanism': 'none', 'OMPI_MCA_mpi_yield_when_idle': '1',
              'HWLOC_COMPONENTS': '-gl,-opencl'})
    return e


def record(b, tmp, name, cmd):
    exp = os.path.join(tmp, name)
    p = subprocess.run([os.path.join(b, 'src/collect/kubus-run'), '-o', exp, '--', 'mpirun', '-n', '4',
                        '--oversubscribe'] + cmd, capture_output=True, text=True, env=env(), cwd=tmp)
    if p.returncode != 0:
        sys.exit('recording %s failed:\n%s' % (name, p.stderr))
    return exp


def events(b, exp):
    out = os.path.join(os.path.dirname(exp), 'count.cube')
    p = subprocess.run([os.path.join(b, 'src/core/kubus-analyze'), exp, '--serial', '-o', out],
                       capture_output=True, text=True, env=env())
    m = re.search(r'Analysed \d+ ranks, (\d+) events', p.stderr)
    return int(m.group(1)) if m else 0


def farm(runs, a, b):
    p = subprocess.run(['farm-bench', '-n', str(runs), '--timeout', '1200', '--vs', ' '.join(b), '--'] + a,
                       capture_output=True, text=True, env=env())
    fig = {}
    for line in p.stdout.splitlines():
        w = line.split()
        if len(w) >= 5 and w[0] in ('A', 'B', 'A/B'):
            try:
                fig[(w[0], w[1])] = float(w[-2])   # the median
            except ValueError:
                pass
    if not fig:
        sys.exit('farm-bench failed:\n%s%s' % (p.stdout, p.stderr))
    return fig


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('build')
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--flood', type=int, default=20000)
    ap.add_argument('--keep')
    a = ap.parse_args()
    b = os.path.abspath(a.build)
    analyze = os.path.join(b, 'src/core/kubus-analyze')
    tmp = a.keep or tempfile.mkdtemp(prefix='causes-bench-')
    os.makedirs(tmp, exist_ok=True)
    traces = [('flood', [os.path.join(b, 'tests/core/ws-flood'), str(a.flood)]),
              ('demo', [os.path.join(b, 'tests/core/ws-demo')])]
    if shutil.which('lmp'):
        melt = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests', 'real', 'melt.in')
        shutil.copy(melt, os.path.join(tmp, 'melt.in'))
        traces.append(('melt', ['lmp', '-in', 'melt.in', '-log', 'none', '-screen', 'none']))
    print('| trace | events | mode | cpu all/waits | wall all/waits | peak MiB all / waits |')
    print('|---|---|---|---|---|---|')
    for name, cmd in traces:
        exp = os.path.join(tmp, name)
        if not os.path.isdir(exp):
            exp = record(b, tmp, name, cmd)
        n = events(b, exp)
        # the default chooses the mode by itself (in process here, issue 26): --parallel is
        # the MPI replay, one process per traced rank
        for label, mode in (('serial', ['--serial']), ('MPI', ['--parallel']), ('default', [])):
            all_ = [analyze, exp, '-q', '-o', os.path.join(tmp, name + '-all.cube')] + mode
            waits = [analyze, exp, '-q', '--no-root-cause', '--no-critical-path',
                     '-o', os.path.join(tmp, name + '-waits.cube')] + mode
            f = farm(a.runs, all_, waits)
            print('| %s | %d | %s | %.2f | %.2f | %.1f / %.1f |' % (
                name, n, label, f.get(('A/B', 'cpu'), 0), f.get(('A/B', 'wall'), 0),
                f.get(('A', 'peak'), 0), f.get(('B', 'peak'), 0)),
                flush=True)
    if not a.keep:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
