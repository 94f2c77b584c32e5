#!/usr/bin/env python3
"""Call paths from the stack (issue 20), end to end: uninstrumented programs under kubus-run,
their call paths read back from profile.cube (kubus-cube callsites) and from the trace's
analysis (kubus-analyze, then kubus-cube callsites on analysis.cube), compared with the paths
the programs have by construction.

usage: unwind-test.py CASE --run KUBUS_RUN --cube KUBUS_CUBE --analyze KUBUS_ANALYZE --app APP
  c-g, c-O2g   unwind-c built with -g -O0 / -O2 -g: names, recursion folded, the same stack
               reused from the cache, source file and line of each function in the trace's
               region definitions and in analysis.cube and profile.cube
  c-stripped   the -O2 -g program stripped of every symbol: the same call paths, the functions
               named "unwind-c-stripped+0xOFFSET" (one name per function), main still main
  c-regions    kubus_region_begin/end inside an unwound function: the user region between the
               frames, no frame twice
  c-abort      rank 1 calls MPI_Abort at the bottom of a deep stack: the trace is readable,
               the aborting rank's call path is there, and the other rank's functions keep
               their names (kubus-run maps the frames it left in .kubus-frames-<rank>)
  c-signal     rank 1 gets SIGSEGV there: the same
  c-flat       --call-paths=flat: MPI calls directly under the program, as before
  c-depth      --call-path-depth=2: the two outermost functions only
  c-kct        --trace-format=compressed: the compressed trace's frames are named too
  c-nocfi      unwind-nocfi: a function without unwind tables between main and MPI_Barrier,
               and (x86-64) code in anonymous memory between main and MPI_Allreduce: those
               stacks are rooted at "[stack not unwound further]", main's own calls at main
  cxx-O2g      unwind-cxx: namespaces, a class template, an always-inlined helper
  fortran-g    unwind-f: a Fortran module procedure calling C that calls MPI
Exit 0 pass, 1 fail, 77 skip.
"""
import argparse
import csv
import io
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def run(cmd, env=None, ok=(0,)):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=240)
    if p.returncode not in ok:
        print("command failed (%d): %s\n%s\n%s" % (p.returncode, " ".join(cmd), p.stdout,
                                                   p.stderr))
        sys.exit(1)
    return p


def callsites(cube, report):
    """{(function, path): source} of the 'all' rows"""
    p = run([cube, "callsites", "--csv", report])
    rows = {}
    for r in csv.DictReader(io.StringIO(p.stdout)):
        if r["rank"] == "all":
            rows.setdefault((r["function"], r["callsite"]), []).append(r["source"])
    return rows


def paths_of(rows):
    return {path for (_, path) in rows}


def regions(report):
    """name -> (mod, begin) of a CUBE 3 XML report"""
    out = {}
    for reg in ET.parse(report).getroot().iter("region"):
        name = reg.findtext("name")
        out[name] = (reg.get("mod"), int(reg.get("begin", "-1")))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--run", required=True)
    ap.add_argument("--cube", required=True)
    ap.add_argument("--analyze", required=True)
    ap.add_argument("--app", required=True)
    a = ap.parse_args()
    if shutil.which("mpirun") is None:
        return 77
    case = a.case
    app = os.path.abspath(a.app)
    prog = os.path.basename(app)
    src = os.path.join(os.environ.get("KUBUS_SOURCE_ROOT", "."), "tests", "apps")
    env = dict(os.environ)
    env["KUBUS_CALL_PATHS"] = "unwind"
    env["KUBUS_VERBOSE"] = "1"
    opts, args, ok = [], [], (0,)
    if case == "c-flat":
        opts = ["--call-paths=flat"]
    if case == "c-depth":
        opts = ["--call-path-depth=2"]
    if case == "c-kct":
        opts = ["--trace-format=compressed"]
    if case in ("c-abort", "c-signal"):
        args = [case[2:]]
        ok = tuple(range(0, 256))
    tmp = tempfile.mkdtemp(prefix="kubus-unwind-")
    try:
        exp = os.path.join(tmp, "exp")
        p = run([a.run, "-o", exp] + opts + ["--", "mpirun", "-n", "2", "--oversubscribe", app]
                + args, env=env, ok=ok)
        log = p.stderr
        run([a.analyze, "--serial", exp])
        ana = callsites(a.cube, os.path.join(exp, "analysis.cube"))
        if case in ("c-abort", "c-signal"):
            # the rank that ends it leaves its stack; the trace is readable and analysed
            if case == "c-abort":
                want = prog + "/main/deep/MPI_Abort"
                check(want in paths_of(ana), "%s in %s" % (want, sorted(paths_of(ana))))
            else:
                # the stack the signal interrupted (raise, called from deep) ends the trace:
                # no MPI call there, so the trace itself shows it
                p = run(["otf2-print", os.path.join(exp, "traces.otf2")])
                enters = re.findall(r"^ENTER\s+1\s+\d+\s+Region: \"([^\"]*)\"", p.stdout, re.M)
                check(len(enters) >= 2 and "deep" in enters[-4:],
                      "rank 1's last frames %s include deep" % enters[-4:])
            check(any(p.endswith("solver_run/exchange/MPI_Sendrecv") for p in paths_of(ana)),
                  "the unwound call paths before the end: %s" % sorted(paths_of(ana)))
            # the rank that did not write the definitions keeps its functions' names too
            check(not any("KUBUS_UNKNOWN_REGION" in p for p in paths_of(ana)),
                  "unnamed functions after the end: %s" % sorted(paths_of(ana)))
            rows = csv.DictReader(io.StringIO(run([a.cube, "callsites", "--csv", os.path.join(
                exp, "analysis.cube")]).stdout))
            ranks = {r["rank"] for r in rows
                     if r["callsite"] == prog + "/main/solver_run/exchange/MPI_Sendrecv"}
            check(ranks == {"0", "1", "all"}, "both ranks' MPI_Sendrecv call path: %s" % ranks)
            return 0 if not failures else 1
        prof = callsites(a.cube, os.path.join(exp, "profile.cube"))
        P = prog
        if case == "c-nocfi":
            cut = P + "/[stack not unwound further]/kubus_test_trampoline/work/MPI_Barrier"
            # x86-64: called from code in anonymous memory (no module: left out, the root says
            # the stack goes on); elsewhere from main
            jit = (P + "/[stack not unwound further]/jitted/MPI_Allreduce"
                   if platform.machine() == "x86_64" else P + "/main/jitted/MPI_Allreduce")
            want = {P + "/main/MPI_Init", P + "/main/MPI_Barrier", P + "/main/MPI_Finalize", cut, jit}
            check(paths_of(prof) == want, "profile call paths %s, expected %s"
                  % (sorted(paths_of(prof)), sorted(want)))
            check(paths_of(ana) == want, "analysis call paths %s, expected %s"
                  % (sorted(paths_of(ana)), sorted(want)))
            return 0 if not failures else 1
        if case.startswith("c-"):
            if case == "c-flat":
                want = {P + "/MPI_Init", P + "/MPI_Sendrecv", P + "/MPI_Allreduce",
                        P + "/MPI_Barrier", P + "/MPI_Bcast", P + "/MPI_Finalize"}
            elif case == "c-depth":
                want = {P + "/main/MPI_Init", P + "/main/solver_run/MPI_Sendrecv",
                        P + "/main/solver_run/MPI_Allreduce", P + "/main/recurse/MPI_Barrier",
                        P + "/main/deep/MPI_Bcast", P + "/main/MPI_Barrier",
                        P + "/main/MPI_Finalize"}
            elif case == "c-regions":
                want = {P + "/main/MPI_Init",
                        P + "/main/solver_run/timestep/exchange/MPI_Sendrecv",
                        P + "/main/solver_run/timestep/reduce_all/MPI_Allreduce",
                        P + "/main/recurse/MPI_Barrier", P + "/main/deep/MPI_Bcast",
                        P + "/main/MPI_Barrier", P + "/main/MPI_Finalize"}
            else:
                want = {P + "/main/MPI_Init", P + "/main/solver_run/exchange/MPI_Sendrecv",
                        P + "/main/solver_run/reduce_all/MPI_Allreduce",
                        P + "/main/recurse/MPI_Barrier", P + "/main/deep/MPI_Bcast",
                        P + "/main/MPI_Barrier", P + "/main/MPI_Finalize"}
            if case == "c-stripped":
                # no symbols: one "unwind-c-stripped+0xOFFSET" per function, main by position
                names = {}
                got = set()
                for path in paths_of(ana):
                    parts = path.split("/")
                    for k, part in enumerate(parts):
                        m = re.fullmatch(re.escape(P) + r"\+0x[0-9a-f]+", part)
                        if m:
                            names.setdefault(part, set()).add(tuple(parts[k + 1:k + 2]))
                    got.add("/".join(re.sub(re.escape(P) + r"\+0x[0-9a-f]+", "F", x)
                                     for x in parts))
                want_shape = {re.sub(r"/(solver_run|exchange|reduce_all|recurse|deep)(?=/)",
                                     "/F", w) for w in want}
                check(got == want_shape, "stripped call paths %s, expected %s"
                      % (sorted(got), sorted(want_shape)))
                # solver_run, exchange, reduce_all, recurse, deep: five functions
                check(len(names) == 5, "five unnamed functions, got %s" % sorted(names))
            else:
                check(paths_of(prof) == want, "profile call paths %s, expected %s"
                      % (sorted(paths_of(prof)), sorted(want)))
                check(paths_of(ana) == want, "analysis call paths %s, expected %s"
                      % (sorted(paths_of(ana)), sorted(want)))
            if case in ("c-g", "c-O2g", "c-regions"):
                # file and line of each function: trace definitions → analysis.cube, profile
                cfile = os.path.realpath(os.path.join(src, "unwind-c.c"))
                text = open(cfile).read().split("\n")
                for rep in ("analysis.cube", "profile.cube"):
                    regs = regions(os.path.join(exp, rep))
                    for fn in ("main", "solver_run", "exchange", "reduce_all", "recurse",
                               "deep"):
                        mod, line = regs.get(fn, (None, -1))
                        check(mod is not None and os.path.realpath(mod) == cfile,
                              "%s: %s's file %s, expected %s" % (rep, fn, mod, cfile))
                        check(0 < line <= len(text) and re.search(r"\b%s\b" % fn,
                                                                 text[line - 1]),
                              "%s: %s's line %d does not declare it" % (rep, fn, line))
                # the call site of MPI_Sendrecv: exactly one source, its line
                srcs = prof.get(("MPI_Sendrecv", P + "/main/solver_run/"
                                 + ("timestep/" if case == "c-regions" else "")
                                 + "exchange/MPI_Sendrecv"), [])
                check(len(srcs) == 1 and re.fullmatch(r".*unwind-c\.c:\d+", srcs[0] or "")
                      and "MPI_Sendrecv" in text[int(srcs[0].rsplit(":", 1)[1]) - 1],
                      "MPI_Sendrecv's call site %s" % srcs)
            if case != "c-flat":
                # the repeated stacks came from the cache, not from new walks
                m = re.findall(r"(\d+) stack walks \([\d.]+ ms CPU\), (\d+) cached stacks reused", log)
                check(m and all(int(w) <= 12 and int(h) >= 15 for w, h in m),
                      "stack walks / cache hits per rank: %s" % m)
        elif case == "cxx-O2g":
            want = {P + "/main/MPI_Init",
                    P + "/main/physics::Solver::run(int)/physics::Halo<double>::exchange(int)"
                    "/MPI_Sendrecv",
                    P + "/main/physics::Solver::run(int)/physics::Solver::norm() const"
                    "/MPI_Allreduce",
                    P + "/main/physics::Solver::run(int)/MPI_Barrier", P + "/main/MPI_Finalize"}
            check(paths_of(prof) == want, "profile call paths %s, expected %s"
                  % (sorted(paths_of(prof)), sorted(want)))
            check(paths_of(ana) == want, "analysis call paths %s, expected %s"
                  % (sorted(paths_of(ana)), sorted(want)))
            regs = regions(os.path.join(exp, "analysis.cube"))
            mod, line = regs.get("physics::Halo<double>::exchange(int)", (None, -1))
            check(mod is not None and mod.endswith("unwind-cxx.cpp") and line > 0,
                  "the template's source %s:%d" % (mod, line))
        elif case == "fortran-g":
            want = {P + "/main/unwind_f/MPI_Init", P + "/main/unwind_f/MPI_Finalize",
                    P + "/main/unwind_f/solver::step/c_allreduce/MPI_Allreduce"}
            # c_init / c_finalize tail-call MPI: their frames are gone, the call site stays
            check(paths_of(prof) >= {P + "/main/unwind_f/solver::step/c_allreduce/MPI_Allreduce"},
                  "profile call paths %s, expected %s" % (sorted(paths_of(prof)), sorted(want)))
            check(paths_of(ana) == paths_of(prof), "analysis call paths %s, profile %s"
                  % (sorted(paths_of(ana)), sorted(paths_of(prof))))
            regs = regions(os.path.join(exp, "analysis.cube"))
            mod, line = regs.get("solver::step", (None, -1))
            check(mod is not None and mod.endswith("unwind-f.f90") and line > 0,
                  "solver::step's source %s:%d" % (mod, line))
        else:
            print("unknown case " + case)
            return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
