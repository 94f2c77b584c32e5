#!/usr/bin/env python3
"""real-codes.py BUILD_DIR [CASE ...] — identity simulations of real codes (docs/benchmarks.md,
"Simulator on real codes", issue 21).

Each case runs the program under kubus-run, then kubus-sim with an empty hypothesis three times
in real time and once --offline. It prints, per simulation, the predicted run time after
MPI_Init against the original's (simulated / original − 1), the identity error kubus-sim
reports for the trace, and the simulation's own wall time against the traced run's wall time.

Cases: lammps2, lammps4 (LAMMPS melt, 1000 steps, 2 and 4 ranks), hpcc2 (HPCC, its example
input with a 1x2 grid), or any of the tests/real inputs with --steps N (LAMMPS steps).
Environment: KUBUS_BENCH_WORK=DIR keeps the experiments there.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def env():
    e = dict(os.environ)
    for k, v in (('OMPI_ALLOW_RUN_AS_ROOT', '1'), ('OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1'),
                 ('OMPI_MCA_rmaps_base_oversubscribe', '1'), ('OMPI_MCA_btl', 'self,vader'),
                 ('OMPI_MCA_btl_vader_single_copy_mechanism', 'none'), ('OMPI_MCA_mpi_yield_when_idle', '1'),
                 ('HWLOC_COMPONENTS', '-gl,-opencl')):
        e.setdefault(k, v)
    return e


def lammps_input(work, steps):
    with open(os.path.join(SRC, 'tests', 'real', 'melt.in')) as f:
        text = f.read()
    text = re.sub(r'^run\s+\d+', 'run\t\t%d' % steps, text, flags=re.M)
    path = os.path.join(work, 'melt-%d.in' % steps)
    with open(path, 'w') as f:
        f.write(text)
    return path


def case_command(name, work):
    if name.startswith('lammps'):
        ranks = int(name[6:])
        return ranks, ['lmp', '-in', lammps_input(work, 1000), '-log', 'none', '-screen', 'none'], work
    if name.startswith('hpcc'):
        ranks = int(name[4:])
        d = os.path.join(work, 'hpcc-run')
        os.makedirs(d, exist_ok=True)
        shutil.copy(os.path.join(SRC, 'tests', 'real', 'hpccinf.txt'), d)
        return ranks, ['hpcc'], d
    raise SystemExit('unknown case %s' % name)


def main():
    build = os.path.abspath(sys.argv[1])
    cases = sys.argv[2:] or ['lammps2', 'lammps4', 'hpcc2']
    work = os.environ.get('KUBUS_BENCH_WORK') or tempfile.mkdtemp(prefix='sim-real-')
    os.makedirs(work, exist_ok=True)
    run = os.path.join(build, 'src', 'collect', 'kubus-run')
    sim = os.path.join(build, 'src', 'core', 'kubus-sim')
    empty = os.path.join(work, 'identity.hyp')
    open(empty, 'w').close()
    for name in cases:
        ranks, cmd, cwd = case_command(name, work)
        exp = os.path.join(work, name)
        t0 = time.monotonic()
        subprocess.run([run, '-o', exp, '--force', '--', 'mpirun', '-n', str(ranks)] + cmd, cwd=cwd,
                       env=env(), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        traced = time.monotonic() - t0
        print('== %s: %d ranks, traced run %.2f s wall (load %s)' % (name, ranks, traced,
                                                                    os.getloadavg()[0]), flush=True)
        for mode in ('real-time', 'real-time', 'real-time', 'offline'):
            out = os.path.join(exp, 'sim-%s' % mode)
            args = [sim, exp, '--hypothesis', empty, '-o', out, '-q']
            if mode == 'offline':
                args.append('--offline')
            t0 = time.monotonic()
            p = subprocess.run(args, env=env(), capture_output=True, text=True)
            wall = time.monotonic() - t0
            if p.returncode != 0:
                print('  %-9s failed: %s' % (mode, p.stderr[-800:]))
                continue
            with open(os.path.join(out, 'summary.json')) as f:
                s = json.load(f)
            o, q = s['original_runtime_after_init_s'], s['predicted_runtime_after_init_s']
            ie = s.get('identity_error_percent')
            print('  %-9s original %.4f s  predicted %.4f s  %+6.2f %%  (reported identity error %s)  '
                  'simulation %.2f s = %.2f x the traced run' % (
                      mode, o, q, 100 * (q / o - 1), 'n/a' if ie is None else '%+.2f %%' % ie, wall,
                      wall / traced), flush=True)
    if not os.environ.get('KUBUS_BENCH_WORK'):
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
