"""Running the real codes of tests/real under kubus-run (shared by the tests of every lane).

    import sys; sys.path.insert(0, os.path.join(SOURCE_ROOT, 'tests', 'real'))
    import realcode
    exp = realcode.trace(kubus_run, 'lammps', ranks=2, exp='/tmp/x/exp')   # None: skip (77)

A code is 'lammps' (tests/real/melt.in, `lmp`) or 'hpcc' (tests/real/hpccinf.txt, `hpcc`, run in a
scratch folder beside the experiment: it reads ./hpccinf.txt and writes ./hpccoutf.txt). The
LAMMPS input can be given more steps (steps=N rewrites its `run` line).
"""
import os
import re
import shutil
import subprocess

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
    """(argv, cwd) running @code on its tiny input; files go to @workdir."""
    os.makedirs(workdir, exist_ok=True)
    if code == 'lammps':
        with open(os.path.join(HERE, 'melt.in')) as f:
            text = f.read()
        if steps:
            text = re.sub(r'^run\s+\d+', 'run\t\t%d' % steps, text, flags=re.M)
        inp = os.path.join(workdir, 'melt.in')
        with open(inp, 'w') as f:
            f.write(text)
        return ['lmp', '-in', inp, '-log', 'none', '-screen', 'none'], workdir
    if code == 'hpcc':
        shutil.copy(os.path.join(HERE, 'hpccinf.txt'), os.path.join(workdir, 'hpccinf.txt'))
        return ['hpcc'], workdir
    raise ValueError('unknown real code %s' % code)


def trace(kubus_run, code, ranks, exp, steps=None, run_args=(), env=None):
    """Runs @code on @ranks ranks under kubus-run into @exp; returns @exp, or None when the
    program is not installed. Raises CalledProcessError (with the output) when the run fails."""
    if not available(code):
        return None
    argv, cwd = command(code, exp + '.work', steps)
    subprocess.run([os.path.abspath(str(kubus_run)), '-o', os.path.abspath(exp), '--force'] + list(run_args) + ['--', 'mpirun', '-n', str(ranks)] + argv,
                   cwd=cwd, env=mpi_env(env), check=True, capture_output=True, text=True)
    return exp
