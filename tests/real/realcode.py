"""Real MPI codes from Debian's packages under kubus-run, for any test that needs one.

    import sys; sys.path.insert(0, os.path.join(KUBUS_SOURCE_ROOT, 'tests', 'real'))
    import realcode
    p = realcode.run('lammps-melt', kubus_run, expdir, ranks=2, kubus_args=['--trace-format=both'])

Codes (inputs in this folder, see README.md): 'lammps-melt' (lmp -in melt.in), 'hpcc' (hpcc
reads ./hpccinf.txt: run in a scratch folder holding a copy).  run() returns the finished
subprocess (stdout/stderr captured as text); available() says whether the program is installed.
"""
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

CODES = {
    'lammps-melt': {'program': 'lmp',
                    'args': ['-in', os.path.join(HERE, 'melt.in'), '-log', 'none', '-screen', 'none'],
                    'input': None},
    'hpcc': {'program': 'hpcc', 'args': [], 'input': os.path.join(HERE, 'hpccinf.txt')},
}


def available(code):
    return shutil.which(CODES[code]['program']) is not None


def mpi_env(env=None):
    """Open MPI as the tests run it: as root, oversubscribed, on shared memory"""
    e = dict(os.environ if env is None else env)
    e.setdefault('OMPI_ALLOW_RUN_AS_ROOT', '1')
    e.setdefault('OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1')
    e.setdefault('OMPI_MCA_rmaps_base_oversubscribe', '1')
    e.setdefault('OMPI_MCA_btl', 'self,vader')
    e.setdefault('OMPI_MCA_btl_vader_single_copy_mechanism', 'none')
    e.setdefault('HWLOC_COMPONENTS', '-gl,-opencl')
    return e


def run(code, kubus_run, expdir, ranks=2, kubus_args=(), env=None, timeout=600):
    """kubus-run [kubus_args] -o expdir -- mpirun -n ranks --oversubscribe PROGRAM ARGS"""
    c = CODES[code]
    program = shutil.which(c['program'])
    scratch = tempfile.mkdtemp(prefix='kubus-real-')
    try:
        if c['input']:
            shutil.copy(c['input'], scratch)
        cmd = [os.path.abspath(str(kubus_run)), '-o', os.path.abspath(expdir), *kubus_args, '--',
               'mpirun', '-n',
               str(ranks), '--oversubscribe', program, *c['args']]
        return subprocess.run(cmd, cwd=scratch, env=mpi_env(env), capture_output=True, text=True,
                              timeout=timeout)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
