"""The real codes of tests/real by name, run under kubus-run with run_real.py (the shared runner)
in the MPI environment the timing tests use.

    import sys; sys.path.insert(0, os.path.join(SOURCE_ROOT, 'tests', 'real'))
    import realcode
    exp = realcode.trace(kubus_run, 'lammps', ranks=2, exp='/tmp/x/exp')   # None: skip (77)

A code is 'lammps' (tests/real/melt.in, `lmp`) or 'hpcc' (tests/real/hpccinf.txt, `hpcc`: it
reads ./hpccinf.txt and writes ./hpccoutf.txt in run_real's scratch folder). The LAMMPS input
can be given more steps (steps=N rewrites its `run` line).
"""
import os
import re
import shutil

import run_real

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = {'lammps': 'lmp', 'hpcc': 'hpcc'}


def available(code):
    """The program of @code is installed (scripts/deps installs them)."""
    return shutil.which(PROGRAMS[code]) is not None


def mpi_env(extra=None):
    env = dict(os.environ)
    for k, v in (('OMPI_ALLOW_RUN_AS_ROOT', '1'), ('OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1'),
                 ('OMPI_MCA_rmaps_base_oversubscribe', '1'), ('OMPI_MCA_btl', 'self,vader'),
                 ('OMPI_MCA_btl_vader_single_copy_mechanism', 'none'), ('OMPI_MCA_mpi_yield_when_idle', '1'),
                 ('HWLOC_COMPONENTS', '-gl,-opencl')):
        env.setdefault(k, v)
    ao = env.get('ASAN_OPTIONS', '')
    env['ASAN_OPTIONS'] = (ao + ':' if ao else '') + 'detect_leaks=0'
    env.update(extra or {})
    return env


def command(code, workdir, steps=None):
    """(argv, inputs) running @code on its tiny input: the files run_real copies into the
    folder the program runs in (the LAMMPS input rewritten in @workdir for @steps)."""
    if code == 'lammps':
        if not steps:
            return ['lmp', '-in', 'melt.in', '-log', 'none', '-screen', 'none'], [os.path.join(HERE, 'melt.in')]
        os.makedirs(workdir, exist_ok=True)
        with open(os.path.join(HERE, 'melt.in')) as f:
            text = re.sub(r'^run\s+\d+', 'run\t\t%d' % steps, f.read(), flags=re.M)
        with open(os.path.join(workdir, 'melt.in'), 'w') as f:
            f.write(text)
        return ['lmp', '-in', 'melt.in', '-log', 'none', '-screen', 'none'], [os.path.join(workdir, 'melt.in')]
    if code == 'hpcc':
        return ['hpcc'], [os.path.join(HERE, 'hpccinf.txt')]
    raise ValueError('unknown real code %s' % code)


def trace(kubus_run, code, ranks, exp, steps=None, run_args=(), env=None):
    """Runs @code on @ranks ranks under kubus-run into @exp with run_real.py (the shared runner);
    returns @exp, or None when the program is not installed. Raises RuntimeError (with the
    output) when the run fails."""
    if not available(code):
        return None
    argv, inputs = command(code, exp + '.work', steps)
    run_real.run_real(kubus_run, argv, exp, ranks=ranks, inputs=inputs, options=run_args, env=mpi_env(env))
    return exp
