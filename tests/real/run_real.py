#!/usr/bin/env python3
"""Runs a real MPI code from Debian's packages under kubus-run and analyses its trace: the
runner other real-code tests reuse.

usage: run_real.py --run KUBUS_RUN [--analyze KUBUS_ANALYZE] -o EXPDIR [--ranks N]
                   [--input FILE]... [--skip-if-missing PROGRAM] [--kubus-run-option OPT]...
                   -- PROGRAM [ARGS]
  The program runs in a scratch folder holding a copy of every --input (HPCC reads
  ./hpccinf.txt there and writes its output beside it), with `mpirun -n N --oversubscribe`.
  EXPDIR is written with kubus-run, then analysed with `kubus-analyze --serial` when --analyze
  is given.  Prints the seconds the measured run took (kubus-run's wall time) on stdout.
Exit 0 done, 1 failed, 77 when PROGRAM (or mpirun) is not installed.

As a module: run_real(kubus_run, program_args, expdir, ranks=2, inputs=(), analyze=None,
options=(), env=None) returns the wall seconds, raising RuntimeError on failure.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time


def run_real(kubus_run, program_args, expdir, ranks=2, inputs=(), analyze=None, options=(),
             env=None, timeout=600):
    kubus_run = os.path.abspath(kubus_run)
    analyze = os.path.abspath(analyze) if analyze is not None else None
    scratch = tempfile.mkdtemp(prefix="kubus-real-")
    try:
        for f in inputs:
            shutil.copy(f, scratch)
        cmd = [kubus_run, "-o", os.path.abspath(expdir), "--force"] + list(options) + [
            "--", "mpirun", "-n", str(ranks), "--oversubscribe"] + list(program_args)
        t0 = time.monotonic()
        p = subprocess.run(cmd, cwd=scratch, capture_output=True, text=True, env=env,
                           timeout=timeout)
        seconds = time.monotonic() - t0
        if p.returncode != 0:
            raise RuntimeError("%s failed (%d):\n%s\n%s" % (" ".join(cmd), p.returncode,
                                                            p.stdout[-2000:], p.stderr[-4000:]))
        if analyze is not None:
            a = subprocess.run([analyze, "--serial", os.path.abspath(expdir)],
                               capture_output=True, text=True, timeout=timeout)
            if a.returncode != 0:
                raise RuntimeError("kubus-analyze failed (%d):\n%s" % (a.returncode,
                                                                     a.stderr[-4000:]))
        return seconds
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", required=True)
    ap.add_argument("--analyze")
    ap.add_argument("-o", dest="expdir", required=True)
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--input", action="append", default=[])
    ap.add_argument("--kubus-run-option", action="append", default=[])
    ap.add_argument("program", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    prog = [x for x in a.program if x != "--"]
    if not prog or shutil.which(prog[0]) is None or shutil.which("mpirun") is None:
        print("skip: %s not installed" % (prog[0] if prog else "no program"))
        return 77
    try:
        print("%.3f" % run_real(a.run, prog, a.expdir, a.ranks, a.input, a.analyze,
                                a.kubus_run_option))
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
