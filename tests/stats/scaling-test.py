#!/usr/bin/env python3
"""kubus-cube scaling end to end.

  scaling-test.py shared --cube C
      the real Scalasca / Score-P reports in $KUBUS_SHARED_DATA/cube: different programs, one
      program at too few task counts, reports without `time`, unusable metrics and usage errors
      each give their clear message and exit status, and never an output file
  scaling-test.py mpi --cube C --run R --analyze A --app APP
      tests/apps/scale-callsites.c at 2, 3, 4, 6 and 8 ranks, twice each (once under
      KUBUS_SANITIZED): the barrier, whose waiting grows with the rank count, ranks first with
      rho >= 0.9; MPI_Recv and MPI_Wait, whose share falls, have negative rho. Experiments are
      recorded with `kubus-run --no-trace` (profile.cube) when the collector has it, else traced
      and analysed (analysis.cube).

Exit 0 pass, 1 fail, 77 skip.
"""
import argparse
import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile

failures = []


def fail(msg):
    failures.append(msg)
    print('FAIL:', msg, file=sys.stderr)


def env(leaks=True):
    e = dict(os.environ)
    e.setdefault('OMPI_ALLOW_RUN_AS_ROOT', '1')
    e.setdefault('OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1')
    e.setdefault('OMPI_MCA_rmaps_base_oversubscribe', '1')
    e.setdefault('HWLOC_COMPONENTS', '-gl,-opencl')
    e['LC_ALL'] = 'C'
    if not leaks:
        ao = e.get('ASAN_OPTIONS', '')
        e['ASAN_OPTIONS'] = (ao + ':' if ao else '') + 'detect_leaks=0'
    return e


def run(cmd, leaks=True):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=280,
                          env=env(leaks))


def expect(a, args, rc, needles, what):
    p = run([a.cube, 'scaling'] + args)
    if p.returncode != rc:
        fail(f'{what}: exit {p.returncode}, expected {rc}\n{p.stdout}{p.stderr}')
    for n in needles:
        if n not in p.stderr:
            fail(f'{what}: message does not say {n!r}:\n{p.stderr}')
    if rc != 0 and p.stdout:
        fail(f'{what}: printed a result although it failed:\n{p.stdout}')
    return p


def mode_shared(a):
    data = os.path.join(os.environ['KUBUS_SHARED_DATA'], 'cube')
    if not os.path.isdir(data):
        print('no shared data', file=sys.stderr)
        return 77
    f = {k: os.path.join(data, v) for k, v in {
        'p4': 'scorep9_time_p4_profile.cubex',          # Score-P, 4 processes, C++
        'kripke8': 'scorep14_kripke_p8_bigendian.cubex',
        'summary64': 'scalasca2_summary_64ranks.cubex',
        'casita4': 'scalasca26_scout_casita4_trace.cubex',
        'bgq': 'scalasca14_bgq_scout_7Dtopo.cube',      # CUBE 3, Blue Gene/Q
        'pomp': 'scalasca14_ctest-pomp.cube',           # metrics called 0Time, 1Execution, …
        'cubelib': 'cubelib_test32_example_multitopo.cube',
    }.items()}
    tmp = tempfile.mkdtemp(prefix='kubus-scaling-')
    out = os.path.join(tmp, 'out.cube')
    try:
        # three task counts, three programs: the message names two of the reports
        expect(a, [f['p4'], f['kripke8'], f['summary64'], '-o', out], 3,
               ['seem to come from different programs', 'only 0%', f['p4']],
               'Score-P reports of three programs')
        expect(a, [f['casita4'], f['kripke8'], f['bgq'], '--csv'], 3,
               ['different programs', f['casita4']], 'Scalasca and Score-P reports')
        # one program, two task counts (repeated runs count once)
        expect(a, [f['p4'], f['p4'], f['kripke8'], '-o', out], 3,
               ['three or more different task counts', 'these reports have 2',
                '4 tasks: ' + f['p4'] + ', ' + f['p4'], '8 tasks: ' + f['kripke8']],
               'two task counts')
        # reports without a time metric
        expect(a, [f['pomp'], f['p4'], f['kripke8']], 3, [f['pomp'] + ': there is no metric “time”'],
               'Scalasca 1.4 report without time')
        expect(a, [f['cubelib'], f['p4'], f['kripke8']], 3, [f['cubelib'] + ': there is no metric'],
               'cubelib test report')
        # --metric: unknown, or minima (do not add up over tasks)
        expect(a, ['--metric', 'min_time', f['p4'], f['kripke8'], f['summary64']], 1,
                ['min_time', 'minima or maxima', f['p4']], 'min_time')
        expect(a, ['--metric=no_such', f['p4'], f['kripke8'], f['summary64']], 1,
               ['“no_such”'], 'unknown metric')
        # unreadable inputs
        expect(a, [os.path.join(tmp, 'missing.cube'), f['p4'], f['kripke8']], 2,
               [os.path.join(tmp, 'missing.cube')], 'missing file')
        expect(a, [tmp, f['p4'], f['kripke8']], 2,
               [tmp + ': this folder has no profile.cube or analysis.cube'], 'empty folder')
        expect(a, [], 1, ['scaling needs'], 'no inputs')
        if os.path.exists(out) or set(os.listdir(tmp)) != set():
            fail(f'a failed run left files behind: {os.listdir(tmp)}')
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def has_no_trace(a):
    p = run([a.run, '--help'])
    return '--no-trace' in (p.stdout + p.stderr)


def record(a, expdir, ranks, profile):
    cmd = [a.run, '-o', expdir] + (['--no-trace'] if profile else []) + \
          ['--', 'mpirun', '-n', str(ranks), '--oversubscribe', a.app, '3', '30']
    p = run(cmd, leaks=False)
    if p.returncode != 0:
        fail(f'{" ".join(map(str, cmd))}: exit {p.returncode}\n{p.stdout}{p.stderr}')
        return False
    if profile:
        return True
    p = run([a.analyze, expdir, '--serial'])
    if p.returncode != 0:
        fail(f'kubus-analyze {expdir}: exit {p.returncode}\n{p.stderr}')
        return False
    return True


def mode_mpi(a):
    sanitized = os.environ.get('KUBUS_SANITIZED') == '1'
    repeats = 1 if sanitized else 2
    profile = has_no_trace(a)
    report = 'profile.cube' if profile else 'analysis.cube'
    tmp = tempfile.mkdtemp(prefix='kubus-scaling-mpi-')
    try:
        runs = os.path.join(tmp, 'runs')
        os.mkdir(runs)
        for ranks in (2, 3, 4, 6, 8):
            for r in range(repeats):
                if not record(a, os.path.join(runs, f'p{ranks}-{r}'), ranks, profile):
                    return 1
        # the folder of experiments as one input; CSV ranking and the report
        out = os.path.join(tmp, 'scaling.cube')
        p = run([a.cube, 'scaling', '--csv', runs, '-o', out])
        if p.returncode != 0:
            fail(f'kubus-cube scaling: exit {p.returncode}\n{p.stderr}')
            return 1
        rows = list(csv.DictReader(io.StringIO(p.stdout)))
        print(p.stdout)
        header = p.stdout.splitlines()[0]
        if header != 'callsite,rho,p_value,p_method,share_2,share_3,share_4,share_6,share_8':
            fail(f'CSV header: {header}')
        by = {r['callsite'].rsplit('/', 1)[-1]: r for r in rows}
        prog = os.path.basename(a.app)
        if rows[0]['callsite'] != prog + '/MPI_Barrier':
            fail(f'the barrier does not rank first: {rows[0]["callsite"]}')
        rho = {k: float(by[k]['rho']) for k in ('MPI_Barrier', 'MPI_Recv', 'MPI_Wait') if k in by}
        if len(rho) != 3:
            fail(f'callsites missing: {sorted(by)}')
            return 1
        if rho['MPI_Barrier'] < 0.9:
            fail(f'barrier rho {rho["MPI_Barrier"]} < 0.9')
        for k in ('MPI_Recv', 'MPI_Wait'):
            if rho[k] >= 0:
                fail(f'{k} rho {rho[k]} is not negative')
        # callsites below 1 % at every task count last; within each part sorted by rho, most
        # positive first, undefined (empty) last
        shares = [k for k in rows[0] if k.startswith('share_')]
        negligible = [all(float(r[k]) < 0.01 for k in shares) for r in rows]
        if negligible != sorted(negligible):
            fail(f'negligible callsites not last: {negligible}')
        for part in (False, True):
            vals = [float(r['rho']) if r['rho'] else None for r, n in zip(rows, negligible) if n == part]
            defined = [v for v in vals if v is not None]
            if defined != sorted(defined, reverse=True) or vals[:len(defined)] != defined:
                fail(f'CSV not sorted by rho: {vals}')
        # with 10 runs the p-value is the t approximation; 5 runs: exact
        want_method = 'exact' if repeats == 1 else 't'
        if by['MPI_Barrier']['p_method'] != want_method:
            fail(f'p method {by["MPI_Barrier"]["p_method"]}, expected {want_method}')
        if float(by['MPI_Barrier']['p_value']) > 0.05:
            fail(f'barrier p-value {by["MPI_Barrier"]["p_value"]} > 0.05')
        # shares by construction: 1/3 each at 2 ranks (X each), barrier 19/21 at 8 ranks; the
        # machine is busy, so only loosely
        b2, b8 = float(by['MPI_Barrier']['share_2']), float(by['MPI_Barrier']['share_8'])
        if not (0.15 < b2 < 0.5 and b8 > 0.75):
            fail(f'barrier shares {b2} at 2 ranks, {b8} at 8 ranks: expected about 1/3 and 19/21')

        # the report: rho per call path, one share metric per task count
        p = run([a.cube, 'dump', '--csv', '--metric', 'scaling_rho', out])
        if p.returncode != 0 or len(p.stdout.splitlines()) < 4:
            fail(f'kubus-cube dump of the scaling report: {p.returncode}\n{p.stdout}{p.stderr}')
        p = run([a.cube, 'info', out])
        for m in ('scaling_rho', 'scaling_p', 'scaling_share_2', 'scaling_share_8'):
            if f'total {m}:' not in p.stdout:
                fail(f'the scaling report has no metric {m}:\n{p.stdout}')

        # text: the per-run table has one line per run, the report path last
        p = run([a.cube, 'scaling'] + sorted(os.path.join(runs, d) for d in os.listdir(runs)))
        if p.returncode != 0:
            fail(f'kubus-cube scaling (text): exit {p.returncode}\n{p.stderr}')
        lines = [l for l in p.stdout.splitlines() if l.rstrip().endswith('/' + report)]
        if len(lines) != 5 * repeats:
            fail(f'text: {len(lines)} run lines, expected {5 * repeats}:\n{p.stdout}')
        elif lines[0].split()[0] != '2' or lines[-1].split()[0] != '8':
            fail(f'text: task counts of the first/last run: {lines[0]} / {lines[-1]}')
        # a different metric: the barrier's wait
        p = run([a.cube, 'scaling', '--csv', '--metric', 'mpi_barrier_wait' if not profile
                 else 'time', runs])
        if p.returncode != 0 or not p.stdout.startswith('callsite,rho'):
            fail(f'--metric: exit {p.returncode}\n{p.stdout}{p.stderr}')
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('mode', choices=['shared', 'mpi'])
    ap.add_argument('--cube', required=True)
    ap.add_argument('--run')
    ap.add_argument('--analyze')
    ap.add_argument('--app')
    a = ap.parse_args()
    rc = mode_shared(a) if a.mode == 'shared' else mode_mpi(a)
    if failures:
        print(f'{len(failures)} failure(s)', file=sys.stderr)
        return 1
    return rc


if __name__ == '__main__':
    sys.exit(main())
