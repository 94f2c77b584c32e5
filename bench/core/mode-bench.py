#!/usr/bin/env python3
"""Where kubus-analyze runs, measured: for each experiment, the default (the automatic choice)
against --serial and against --parallel, and --serial --threads=CORES against --serial, each
pair with farm-bench (paired runs, median ratio), the same report checked for every mode.

  python3 bench/core/mode-bench.py BUILD_DIR EXPDIR...

EXPDIRs are kubus-run experiments; the issue's table used LAMMPS melt (tests/real/melt.in)
and HPCC (tests/real/hpccinf.txt) at 4 ranks and the wavefront sweep (ws-sweep) at 64:

  kubus-run -o exp-melt4 -- mpirun -n 4 --oversubscribe lmp -in melt.in -log none -screen none
  kubus-run -o exp-hpcc4 -- mpirun -n 4 --oversubscribe hpcc          (in a copy of hpccinf.txt)
  kubus-run -o exp-sweep64 -- mpirun -n 64 --oversubscribe BUILD/tests/core/ws-sweep

Prints a Markdown table for docs/benchmarks.md. Timing on a shared machine is noisy: check
`uptime`, and compare ratios of the same run, never seconds across runs.
"""
import os
import re
import subprocess
import sys
import tempfile


def farm(a, b, runs=int(os.environ.get('MODE_BENCH_RUNS', '5'))):
    """Median wall seconds of A and B and the median of the paired A/B ratios."""
    p = subprocess.run(['farm-bench', '-n', str(runs), '--timeout', '600', '--vs', ' '.join(b), '--'] + a,
                       capture_output=True, text=True)
    out = p.stdout + p.stderr
    def median(label):
        m = re.search(r'^' + re.escape(label) + r'\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)', out, re.M)
        if not m:
            sys.exit(f'farm-bench output not understood ({label}):\n{out}')
        return float(m.group(2))
    return median('A wall s'), median('B wall s'), median('A/B wall'), out


def main():
    build, exps = os.path.abspath(sys.argv[1]), sys.argv[2:]
    analyze = os.path.join(build, 'src', 'core', 'kubus-analyze')
    cube = os.path.join(build, 'src', 'core', 'kubus-cube')
    cores = os.cpu_count() or 1
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for exp in exps:
            name = os.path.basename(exp.rstrip('/'))
            anchor = os.path.join(exp, 'traces.otf2')
            out = os.path.join(tmp, name + '.cube')

            def cmd(*opts):
                return [analyze, anchor, '-o', out, '-q'] + list(opts)

            # the choice, and the same report in every mode
            p = subprocess.run([analyze, anchor, '-o', out], capture_output=True, text=True)
            said = [l for l in p.stderr.splitlines() if 'analysing in' in l or 'parallel replay' in l]
            csvs = set()
            for opts in ([], ['--serial'], ['--parallel'], ['--serial', f'--threads={cores}']):
                subprocess.run(cmd(*opts), check=True, capture_output=True)
                csvs.add(subprocess.run([cube, 'dump', '--csv', out], check=True, capture_output=True).stdout)
            same = 'yes' if len(csvs) == 1 else 'NO'
            d_s, s_, r_ds, _ = farm(cmd(), cmd('--serial'))
            d_p, p_, r_dp, _ = farm(cmd(), cmd('--parallel'))
            t_, s2, r_ts, _ = farm(cmd('--serial', f'--threads={cores}'), cmd('--serial'))
            rows.append((name, d_p, p_, d_s, s_, r_dp, r_ds, t_, r_ts, same, said[0] if said else '?'))
    print('| trace | default | --parallel | --serial | default/--parallel | default/--serial | '
          f'--serial --threads={cores} | threads/serial | same report |')
    print('|---|---|---|---|---|---|---|---|---|')
    for n, d_p, p_, d_s, s_, r_dp, r_ds, t_, r_ts, same, _ in rows:
        print(f'| {n} | {d_s:.3f} s | {p_:.3f} s | {s_:.3f} s | {r_dp:.3f} | {r_ds:.3f} | {t_:.3f} s | '
              f'{r_ts:.3f} | {same} |')
    print()
    for r in rows:
        print(f'- {r[0]}: {r[-1]}')


if __name__ == '__main__':
    main()
