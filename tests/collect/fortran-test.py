#!/usr/bin/env python3
"""Fortran under the collector (issue 20).

  fortran-test.py binding --run R --check CC --analyze A --cube C --twin TWIN --source SRC
                          [--mpifh APP] [--usempi APP] [--f08 APP] [--exact-lines LABEL]…
                          [--ranks 4]
      TWIN (fortran-twin.c) and each APP (tests/apps/fortran-mpi.F90 built for mpif.h,
      `use mpi` or `use mpi_f08`: the same program) run under kubus-run, one after the other:
      - the traces are read back with collect-check: every event, communicator, message size
        and peer of each Fortran run equals the C run's (line for line, the program's name
        aside), and the C run has the lines known by construction (so both cannot be wrong
        alike);
      - the program notes CLOCK_MONOTONIC before and after each MPI call that may wait (its
        ARGV(1).RANK records); the trace (collector on CLOCK_MONOTONIC too) must have each such
        call's Enter and Leave between the two readings: the collector timed the Fortran call
        itself, not a neighbour;
      - each is analysed: Late Sender, Wait at Barrier, Wait at N x N, Late Broadcast and Early
        Reduce agree within 1 % with the waits those calls' times give by PATTERNS.md's
        formulas, for the Fortran and the C runs alike.  (The runs' waits are compared with
        each other only in the log: on a busy machine the same program waits differently from
        one run to the next.)
      - the profile's call sites are the Fortran program's source lines (for the LABELs of
        --exact-lines, each line marked "! site" is exactly its call's site).
  fortran-test.py all --run R --check CC --app APP --table mpi-functions.def
      tests/apps/fortran-all.f90 (use mpi_f08) calls every function of the collector's table
      but MPI_Init and MPI_Abort (the other modes call those): the trace holds exactly the calls
      the program counted, the messages, communicators and topologies known by construction,
      and every request completed; with the program's "abort" argument, rank 1's MPI_Abort
      leaves a readable trace and its error code as kubus-run's exit status.
  fortran-test.py qe --run R --check CC --analyze A --cube C --input tests/real/si.scf.in
      Quantum ESPRESSO's pw.x (Debian's quantum-espresso, Fortran with mpif.h) at 2 ranks: the
      run is measured (a readable, balanced trace with the collectives pw.x makes), analysed,
      and computes what it computes without the collector (the same total energy).
  fortran-test.py nofortran
      configure found no Fortran compiler: skip with a message.

Exit 0 pass, 1 fail, 77 skip.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict

failures = []


def fail(msg):
    failures.append(msg)
    print('FAIL:', msg, file=sys.stderr)


def expect(cond, what):
    if not cond:
        fail(what)


def env_for_mpi():
    env = dict(os.environ)
    env.setdefault('OMPI_ALLOW_RUN_AS_ROOT', '1')
    env.setdefault('OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1')
    env.setdefault('OMPI_MCA_rmaps_base_oversubscribe', '1')
    env.setdefault('HWLOC_COMPONENTS', '-gl,-opencl')
    env['KUBUS_VERBOSE'] = '0'
    # call paths: the MPI function under the program (the traces of the Fortran programs and
    # of their C twin are compared; unwinding would name their main programs differently)
    env['KUBUS_CALL_PATHS'] = 'flat'
    # the collector reads CLOCK_MONOTONIC, as the programs do (fortran-clock.c)
    env['KUBUS_CLOCK'] = 'monotonic'
    # Open MPI leaks at exit; sanitizer builds must not fail on that.  libgfortran copies the
    # program's CHARACTER values (formats, file names: not NUL-terminated) with strndup (n),
    # which strict_string_checks reports as an overflow in every Fortran program that formats a
    # string or inquires a file (the test programs, pw.x): off for these runs.
    ao = env.get('ASAN_OPTIONS', '')
    env['ASAN_OPTIONS'] = (ao + ':' if ao else '') + 'detect_leaks=0:strict_string_checks=0'
    return env


def run(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=280,
                          env=env_for_mpi(), **kw)


def kubus_run(a, expdir, app, nranks, app_args, cwd=None):
    p = run([a.run, '-o', expdir, '--', 'mpirun', '-n', nranks, '--oversubscribe', app, *app_args],
            cwd=cwd)
    if p.returncode != 0:
        fail(f'{app} under kubus-run: exit {p.returncode}\nstdout:\n{p.stdout[-3000:]}\n'
             f'stderr:\n{p.stderr[-3000:]}')
    return p


def trace_lines(a, expdir, app):
    """collect-check's facts with the program's path and name replaced by PROG"""
    anchor = os.path.join(expdir, 'traces.otf2')
    p = run([a.check, anchor])
    if p.returncode != 0:
        fail(f'collect-check {anchor} failed: {p.stderr}')
        return []
    exe = os.path.realpath(app)
    base = os.path.basename(exe)
    return [re.sub(rf'\b{re.escape(base)}\b', 'PROG', l.replace(exe, 'PROG'))
            for l in p.stdout.splitlines()]


def analysis_totals(a, expdir):
    # --serial: the same report as the replay at one rank per traced rank, without a launcher
    p = run([a.analyze, '--serial', expdir])
    if p.returncode != 0:
        fail(f'kubus-analyze {expdir}: exit {p.returncode}\n{p.stderr[-3000:]}')
        return {}
    p = run([a.cube, 'dump', '--csv', os.path.join(expdir, 'analysis.cube')])
    if p.returncode != 0:
        fail(f'kubus-cube dump: {p.stderr}')
        return {}
    tot = defaultdict(float)
    for line in p.stdout.splitlines()[1:]:
        m, _, _, v = line.split(',')
        tot[m] += float(v)
    return tot


# ------------------------------------------------------------------ the truth

def truth(recs, n):
    """The wait states that the calls' times imply (PATTERNS.md), per metric; @recs: rank ->
    {record name: (enter, leave)}."""
    w = defaultdict(float)

    def late_sender(recv_rank, recv_name, send_rank, send_name):
        rv, sd = recs[recv_rank].get(recv_name), recs[send_rank].get(send_name)
        if rv is None or sd is None:
            fail(f'missing records {recv_name}@{recv_rank} / {send_name}@{send_rank}')
            return
        w['mpi_latesender'] += max(0.0, min(sd[0], rv[1]) - rv[0])

    def sync(name, members, metric):
        calls = [recs[r].get(name) for r in members]
        if None in calls:
            fail(f'missing records of {name}')
            return
        last = max(c[0] for c in calls)
        for c in calls:
            w[metric] += max(0.0, min(last, c[1]) - c[0])

    def bcast(name, root):
        er = recs[root][name][0]
        for r in range(n):
            if r != root:
                e, l = recs[r][name]
                w['mpi_latebroadcast'] += max(0.0, min(er, l) - e)

    def reduce(name, root):
        e, l = recs[root][name]
        last = max(recs[r][name][0] for r in range(n) if r != root)
        w['mpi_earlyreduce'] += max(0.0, min(last, l) - e)

    for r in range(1, n, 2):
        p = r - 1
        late_sender(r, 'p0.recv', p, 'p0.send')
        late_sender(r, 'p1.wait', p, 'p1.isend')
        for k in (6, 7, 8):
            late_sender(r, f'p8.wait{k}', p, f'p8.send{k}')
    for r in range(n):
        late_sender(r, 'p1.waitall', r ^ 1, 'p1.isendx')
        late_sender(r, 'p2.sr', (r + n - 1) % n, 'p2.sr')
    for parity in (0, 1):
        late_sender(2 + parity, 'p7.recv', parity, 'p7.send')
        sync('p7.allreduce', range(parity, n, 2), 'mpi_wait_nxn')
    for name in ('sync.allreduce', 'p3.allreduce', 'p3.allgather', 'p3.alltoallw'):
        sync(name, range(n), 'mpi_wait_nxn')
    sync('p4.barrier', range(n), 'mpi_barrier_wait')
    bcast('p5.bcast', 2)
    reduce('p3.gather', 1)
    reduce('p3.reduce', 0)
    reduce('p6.reduce', 0)
    return w


BINDINGS = ('mpifh', 'usempi', 'f08')

WAITS = ('mpi_latesender', 'mpi_barrier_wait', 'mpi_wait_nxn', 'mpi_latebroadcast',
         'mpi_earlyreduce')


# the MPI function of each record of fortran-mpi.F90 / fortran-twin.c
RECORD_FUNCS = {
    'sync.allreduce': 'MPI_Allreduce', 'p0.send': 'MPI_Send', 'p0.recv': 'MPI_Recv',
    'p1.isend': 'MPI_Isend', 'p1.wait': 'MPI_Wait', 'p1.isendx': 'MPI_Isend',
    'p1.waitall': 'MPI_Waitall', 'p2.sr': 'MPI_Sendrecv_replace',
    'p3.allreduce': 'MPI_Allreduce', 'p3.gather': 'MPI_Gather', 'p3.allgather': 'MPI_Allgather',
    'p3.alltoallw': 'MPI_Alltoallw', 'p3.reduce': 'MPI_Reduce', 'p4.barrier': 'MPI_Barrier',
    'p5.bcast': 'MPI_Bcast', 'p6.reduce': 'MPI_Reduce', 'p7.send': 'MPI_Send',
    'p7.recv': 'MPI_Recv', 'p7.allreduce': 'MPI_Allreduce', 'p8.wait8': 'MPI_Recv',
}


def read_record_lists(prefix, n):
    """rank -> [(name, enter, leave)] in program order"""
    out = {}
    for r in range(n):
        try:
            with open(f'{prefix}.{r}') as f:
                out[r] = [(l.split()[0], float(l.split()[1]), float(l.split()[2]))
                          for l in f if l.strip()]
        except OSError as e:
            fail(f'no records from rank {r}: {e}')
            out[r] = []
    return out


def trace_calls(expdir):
    """rank -> [(MPI function, enter, leave)] in time order, seconds (otf2-print)"""
    p = run(['otf2-print', os.path.join(expdir, 'traces.otf2')])
    expect(p.returncode == 0, f'otf2-print {expdir}/traces.otf2 failed: {p.stderr[-2000:]}')
    calls, open_ = defaultdict(list), {}
    for line in p.stdout.splitlines():
        m = re.match(r'(ENTER|LEAVE)\s+(\d+)\s+(\d+)\s+Region: "(MPI_\w+)"', line)
        if not m:
            continue
        loc, t = int(m.group(2)), int(m.group(3)) * 1e-9
        if m.group(1) == 'ENTER':
            open_[loc] = t
        else:
            calls[loc].append((m.group(4), open_.pop(loc, t), t))
    return calls


def traced_times(label, records, calls, n):
    """Each call the program timed, found in the trace: its Enter and Leave must lie between the
    program's own clock readings before and after it (KUBUS_CLOCK=monotonic: one clock for the
    program and the collector).  Returns rank -> {name: (enter, leave)} from the trace."""
    out = {}
    for r in range(n):
        out[r], j, p8 = {}, 0, 0
        for name, te, tl in records[r]:
            if name.startswith('n.'):
                continue
            func = RECORD_FUNCS.get(name)
            if func is None and name.startswith('p8.send'):
                func = 'MPI_Send'
            elif func is None:  # p8.wait6 / p8.wait7: MPI_Waitany, then MPI_Waitsome
                func = ('MPI_Waitany', 'MPI_Waitsome')[min(p8, 1)]
                p8 += 1
            while j < len(calls[r]) and calls[r][j][0] != func:
                j += 1
            if j == len(calls[r]):
                fail(f'{label}: rank {r}: {name} ({func}) not in the trace')
                break
            _, e, l = calls[r][j]
            j += 1
            # 2 ns: the records' and the trace's rounding to nanoseconds
            ok = te - 2e-9 <= e <= l <= tl + 2e-9
            expect(ok, f'{label}: rank {r}: {func} ({name}) at [{e:.9f}, {l:.9f}] in the trace, '
                       f'but the program called it within [{te:.9f}, {tl:.9f}]')
            out[r][name] = (e, l)
    return out


def polls_counted(label, lines, records, n):
    """How often a rank called MPI_Iprobe, MPI_Test or MPI_Testany until its message was there
    depends on when the message arrived; the program counts its calls (records "n.FUNC COUNT").
    The trace's Enter counts of those functions must be the program's; they are then replaced
    by "polled" so that runs can be compared line for line."""
    counted = {(name[2:], r): int(te) for r in range(n) for name, te, _ in records[r]
               if name.startswith('n.')}
    out = []
    for l in lines:
        m = re.fullmatch(r'(enter|nest PROG) (MPI_\w+) (\d+) (\d+)', l)
        key = (m.group(2), int(m.group(3))) if m else None
        if key in counted:
            expect(int(m.group(4)) == counted[key],
                   f'{label}: rank {key[1]} called {key[0]} {counted[key]} times, '
                   f'the trace has {l!r}')
            l = f'{m.group(1)} {key[0]} {key[1]} polled'
        out.append(l)
    polled = {k for k in counted if counted[k] > 0}
    expect(len(polled) == 3 * (n // 2), f'{label}: the polling calls counted: {sorted(counted)}')
    return out


def check_waits(label, got, want, measured):
    for m in WAITS:
        g, t, pm = got.get(m, 0.0), want.get(m, 0.0), measured.get(m, 0.0)
        ok = abs(g - t) <= 0.01 * t + 1e-6
        print(f'{label}: {m} analysis {g:.6f} s, from the traced calls {t:.6f} s '
              f'(the program\'s clock: {pm:.6f} s){"" if ok else "  <-- off"}')
        expect(ok, f'{label}: {m} = {g:.6f} s, but the traced calls give {t:.6f} s')


# ------------------------------------------------------------------ expected facts

def expected_lines(n):
    """Facts of the C run known by construction (collect-check's format)."""
    W = 'MPI_COMM_WORLD'
    L = []
    for r in range(n):
        L += [f'balance {r} ok', f'order {r} ok', f'requests {r} ok', f'sendtime {r} ok',
              f'program {r} ok', f'enter MPI_Init {r} 1', f'enter MPI_Finalize {r} 1',
              f'enter MPI_Sendrecv_replace {r} 1', f'enter MPI_Comm_split {r} 1',
              f'enter MPI_Comm_free {r} 1', f'enter MPI_Waitall {r} 1',
              f'isend {r} {r ^ 1} {W} 9 1 12', f'irecv {r} {r ^ 1} {W} 9 1 12',
              f'send {r} {(r + 1) % n} {W} 3 1 20', f'recv {r} {(r + n - 1) % n} {W} 3 1 20',
              # collectives: count, bytes sent, received (mpi-functions.def)
              f'coll ALLREDUCE {W} {r} none 2 {n * 8 + n * 12} {n * 8 + n * 12}',
              f'coll ALLGATHER {W} {r} none 1 {n * 4} {n * 4}',
              f'coll ALLTOALLW {W} {r} none 1 {n * 4} {n * 4}',
              f'coll BARRIER {W} {r} none 1 0 0',
              f'coll BCAST {W} {r} 2 1 {n * 24 if r == 2 else 0} 24',
              f'coll GATHER {W} {r} 1 1 8 {n * 8 if r == 1 else 0}',
              f'coll REDUCE {W} {r} 0 2 40 {n * 40 if r == 0 else 0}']
        if r % 2 == 0:
            L += [f'send {r} {r + 1} {W} 1 1 40', f'isend {r} {r + 1} {W} 2 1 160']
            L += [f'send {r} {r + 1} {W} {k} 1 4' for k in (6, 7, 8, 10, 11)]
        else:
            L += [f'recv {r} {r - 1} {W} 1 1 40', f'irecv {r} {r - 1} {W} 2 1 160',
                  f'recv {r} {r - 1} {W} 8 1 4', f'enter MPI_Waitany {r} 1',
                  f'enter MPI_Waitsome {r} 1', f'enter MPI_Wait {r} 1']
            L += [f'irecv {r} {r - 1} {W} {k} 1 4' for k in (6, 7, 10, 11)]
    return L


def check_sites(a, expdir, source, exact_lines):
    """Every MPI call site in the profile is a line of SOURCE (the Fortran program's own code,
    not a frame of the wrappers or of Open MPI), and with @exact_lines each line marked
    "! site" is the call site of its MPI call.  gfortran's line table gives some calls through
    the `use mpi` / `use mpi_f08` interfaces the line of the `use` statement or of an enclosing
    block (the address is the right one): their lines are not compared."""
    p = run([a.cube, 'callsites', '--csv', os.path.join(expdir, 'profile.cube')])
    if p.returncode != 0:
        fail(f'kubus-cube callsites: {p.stderr}')
        return
    rows = [l.split(',') for l in p.stdout.splitlines()[1:]]
    base = os.path.basename(source)
    expect(len(rows) > 20, f'profile: only {len(rows)} call-site rows')
    for r in rows:
        for s in r[2].split(';'):
            expect(re.fullmatch(rf'(.*/)?{re.escape(base)}:\d+', s.strip()) is not None,
                   f'profile: a call site of {r[0]} outside {base}: {s.strip()!r}')
    if not exact_lines:
        return
    sites = []
    with open(source) as f:
        for no, line in enumerate(f, 1):
            m = re.search(r'call\s+(MPI_\w+)\s*\(.*!\s*site\b', line)
            if m:
                sites.append((m.group(1), no))
    expect(len(sites) >= 5, f'{source}: fewer than 5 "! site" lines')
    for func, no in sites:
        want = f'{base}:{no}'
        found = any(r[0] == func and any(s.strip().endswith('/' + want) or s.strip() == want
                                         for s in r[2].split(';')) for r in rows)
        expect(found, f'profile: no call site of {func} at {want}; rows of {func}: '
                      f'{[r[1:3] for r in rows if r[0] == func][:4]}')


# ------------------------------------------------------------------ modes

def mode_binding(a, tmp):
    n = a.ranks
    apps = [('C', a.twin)] + [(label, getattr(a, label)) for label in BINDINGS
                               if getattr(a, label)]
    if len(apps) == 1:
        fail('no Fortran program given (--mpifh, --usempi, --f08)')
        return
    runs = {}
    for label, app in apps:
        exp = os.path.join(tmp, label)
        prefix = os.path.join(tmp, label + '.rec')
        p = kubus_run(a, exp, app, n, [prefix])
        done = re.findall(r'^fortran-\w+: done$', p.stdout, re.M)
        expect(len(done) == 1, f'{label}: the program did not finish right: {p.stdout[-2000:]}')
        records = read_record_lists(prefix, n)
        lines = polls_counted(label, trace_lines(a, exp, app), records, n)
        measured = {r: {name: (e, l) for name, e, l in records[r]} for r in range(n)}
        traced = traced_times(label, records, trace_calls(exp), n)
        runs[label] = (exp, lines, analysis_totals(a, exp), truth(traced, n), truth(measured, n))
    c_lines = runs['C'][1]
    for l in expected_lines(n):
        expect(l in c_lines, f'C run: missing line {l!r}')
    # the halves: two communicators of n/2 ranks, a 28-byte message inside each
    comms = [l for l in c_lines if re.match(rf'comm MPI communicator \d+ {n // 2} ', l)]
    expect(len(comms) == 2,
           f'C run: the two halves of the split: {comms}')
    for r in range(4):
        kind, peer = ('send', 1) if r < 2 else ('recv', 0)
        pat = re.compile(rf'{kind} {r} {peer} MPI communicator \d+ 5 1 28$')
        expect(any(pat.match(l) for l in c_lines), f'C run: no {kind} of 28 bytes in the half of rank {r}')
    for label, _ in apps:
        check_waits(label, runs[label][2], runs[label][3], runs[label][4])
    for label, _ in apps[1:]:
        f_lines = runs[label][1]
        only_c = sorted(set(c_lines) - set(f_lines))
        only_f = sorted(set(f_lines) - set(c_lines))
        expect(not only_c and not only_f,
               f'the {label} trace differs from the C trace:\n  only in C: {only_c[:20]}\n'
               f'  only in {label}: {only_f[:20]}')
        for m in WAITS:
            c, f = runs['C'][2].get(m, 0.0), runs[label][2].get(m, 0.0)
            print(f'{m}: C {c:.6f} s, {label} {f:.6f} s ({(f / c - 1) * 100 if c else 0:+.2f} %)')
        check_sites(a, runs[label][0], a.source, label in a.exact_lines)


def mode_all(a, tmp):
    n = 4
    with open(a.table) as f:
        # the functions wrapped for Fortran too (not those marked c-only)
        table = {l.split('|')[0].strip() for l in f
                 if l.startswith('MPI_') and l.rstrip().split('|')[-1].strip() != 'c-only'}
    exp = os.path.join(tmp, 'exp')
    prefix = os.path.join(tmp, 'counts')
    p = kubus_run(a, exp, a.app, n, [prefix])
    expect(p.stdout.count('fortran-all: done') == 1, f'fortran-all did not finish: {p.stdout[-2000:]}')
    lines = trace_lines(a, exp, a.app)
    want = []
    for r in range(n):
        try:
            with open(f'{prefix}.{r}') as f:
                want += [l.strip() for l in f if l.strip()]
        except OSError as e:
            fail(f'no counts from rank {r}: {e}')
    got = [l for l in lines if l.startswith('enter MPI_')]
    expect(sorted(got) == sorted(want),
           f'MPI calls in the trace != the calls the program made:\n'
           f'  only in the trace: {sorted(set(got) - set(want))[:20]}\n'
           f'  only in the program: {sorted(set(want) - set(got))[:20]}')
    called = {l.split()[1] for l in got}
    missing = sorted(table - called - {'MPI_Init', 'MPI_Abort'})
    expect(not missing, f'functions of the table not called from Fortran: {missing}')
    W = 'MPI_COMM_WORLD'
    facts = ['locations 4']
    for r in range(n):
        facts += [f'balance {r} ok', f'order {r} ok', f'requests {r} ok', f'program {r} ok',
                  f'cancelled {r} 1', f'send {r} {r ^ 1} {W} 9 1 4', f'recv {r} {r ^ 1} {W} 10 1 4']
        if r % 2 == 0:
            # MPI_Send, Bsend, Ibsend, Ssend, Rsend, Isend, Issend, Irsend: k INTEGERs
            facts += [f'send {r} {r + 1} {W} {k} 1 {4 * (8 if k == 1 else k)}' for k in (1, 2, 4, 5)]
            facts += [f'isend {r} {r + 1} {W} {k} 1 {4 * k}' for k in (3, 6, 7, 8)]
            # persistent Send, Bsend, Ssend, Rsend with 1 to 4 INTEGERs
            facts += [f'isend {r} {r + 1} {W} {k} 1 {4 * (k - 14)}' for k in (15, 16, 17, 18)]
        else:
            facts += [f'recv {r} {r - 1} {W} {k} 1 {4 * (8 if k == 1 else k)}' for k in (1, 2, 3, 4)]
            facts += [f'irecv {r} {r - 1} {W} {k} 1 {4 * k}' for k in (5, 6, 7, 8)]
            facts += [f'irecv {r} {r - 1} {W} {k} 1 {4 * (k - 14)}' for k in (15, 16, 17, 18)]
            # probed, matched-probe and completion-call receives of one INTEGER
            facts += [f'recv {r} {r - 1} {W} {k} 1 4' for k in (11, 12, 13)]
            facts += [f'irecv {r} {r - 1} {W} {k} 1 4' for k in (14, 20, 21, 22, 23, 24, 25, 26)]
    for l in facts:
        expect(l in lines, f'missing line: {l!r}')
    # the grid (periodic in its first dimension: a LOGICAL array), the split with keys -rank,
    # the inter-communicator of even and odd ranks and its merge (odd ranks high)
    for pat in (r'cart MPI_Cart_create MPI communicator \d+ 2x2 1,0', r'cart MPI_Cart_sub .* 2 1',
                r'comm MPI communicator \d+ 2 1 0', r'comm MPI communicator \d+ 2 3 2',
                r'intercomm MPI inter-communicator \d+ 2 0 2 / 2 1 3',
                r'comm MPI communicator \d+ 4 0 2 1 3'):
        expect(any(re.fullmatch(pat, l) for l in lines), f'no line like {pat!r}')

    # MPI_Abort from Fortran: rank 1 ends the run with error code 5
    exp = os.path.join(tmp, 'abort')
    p = run([a.run, '-o', exp, '--', 'mpirun', '-n', n, '--oversubscribe', a.app,
             prefix + '-abort', 'abort'])
    expect(p.returncode == 5, f'an MPI_Abort (5) from Fortran: kubus-run exit {p.returncode}, '
                              f'expected 5\n{p.stderr[-2000:]}')
    lines = trace_lines(a, exp, a.app)
    for l in ('locations 4', 'enter MPI_Abort 1 1', 'balance 1 ok', 'program 1 ok',
              'programend 1 5 1', f'recv 1 0 {W} 1 1 32', 'enter MPI_Buffer_detach 1 1'):
        expect(l in lines, f'aborted run: missing line {l!r}')


def mode_qe(a, tmp):
    pw = shutil.which('pw.x')
    if pw is None:
        print('pw.x not found (Debian package quantum-espresso): skipped')
        sys.exit(77)
    with open(a.input) as f:
        text = f.read()
    m = re.search(r"pseudo_dir\s*=\s*'([^']+)'", text)
    pseudo = m.group(1) if m else ''
    for pp in re.findall(r'^\s*\w+\s+[\d.]+\s+(\S+\.UPF)\s*$', text, re.M | re.I):
        if not os.path.isfile(os.path.join(pseudo, pp)):
            print(f'{pp} not in {pseudo} (Debian package quantum-espresso-data): skipped')
            sys.exit(77)
    shutil.copy(a.input, os.path.join(tmp, 'pw.in'))
    energies = []
    # without the collector, then with it: pw.x computes the same
    p = run(['mpirun', '-n', '2', '--oversubscribe', pw, '-in', 'pw.in'], cwd=tmp)
    expect(p.returncode == 0, f'pw.x alone: exit {p.returncode}: {p.stderr[-2000:]}')
    energies.append(re.findall(r'^!\s+total energy\s+=\s+(\S+) Ry', p.stdout, re.M))
    exp = os.path.join(tmp, 'exp')
    p = run([a.run, '-o', exp, '--', 'mpirun', '-n', '2', '--oversubscribe', pw, '-in', 'pw.in'],
            cwd=tmp)
    expect(p.returncode == 0, f'pw.x under kubus-run: exit {p.returncode}: {p.stderr[-2000:]}')
    energies.append(re.findall(r'^!\s+total energy\s+=\s+(\S+) Ry', p.stdout, re.M))
    expect(len(energies[0]) == 1 and energies[0] == energies[1],
           f'total energy without / with the collector: {energies}')
    lines = trace_lines(a, exp, pw)
    for r in range(2):
        for l in (f'balance {r} ok', f'order {r} ok', f'program {r} ok', f'requests {r} ok',
                  f'enter MPI_Init {r} 1', f'enter MPI_Finalize {r} 1'):
            expect(l in lines, f'pw.x trace: missing {l!r}')
        for region in ('MPI_Allreduce', 'MPI_Bcast', 'MPI_Barrier', 'MPI_Alltoall',
                       'MPI_Comm_split'):
            got = [l for l in lines if l.startswith(f'enter {region} {r} ')]
            expect(got and int(got[0].split()[-1]) > 0, f'pw.x trace: no {region} on rank {r}')
    comms = [l for l in lines if l.startswith('comm MPI communicator')]
    expect(len(comms) >= 4, f'pw.x trace: its communicators: {comms}')
    tot = analysis_totals(a, exp)
    waits = sum(v for m, v in tot.items() if m in WAITS)
    expect(tot.get('time', 0) > 0 and waits > 0,
           f'pw.x analysis: time {tot.get("time")}, wait states {waits}')
    print(f'pw.x: {sum(int(l.split()[-1]) for l in lines if l.startswith("enter MPI_"))} MPI '
          f'calls, time {tot.get("time", 0):.3f} s, wait states {waits:.3f} s, '
          f'energy {energies[1]}')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('mode', choices=['binding', 'all', 'qe', 'nofortran'])
    ap.add_argument('--run')
    ap.add_argument('--check')
    ap.add_argument('--analyze')
    ap.add_argument('--cube')
    ap.add_argument('--twin')
    ap.add_argument('--app')
    ap.add_argument('--source')
    ap.add_argument('--input')
    ap.add_argument('--table')
    for label in BINDINGS:
        ap.add_argument('--' + label, help=f'the program built for {label}')
    ap.add_argument('--ranks', type=int, default=4)
    ap.add_argument('--exact-lines', action='append', default=[], choices=BINDINGS,
                    help='the compiler\'s line table gives each call of this build its own line')
    a = ap.parse_args()
    for k in ('run', 'check', 'analyze', 'cube', 'twin', 'app', 'source', 'input', 'table') + BINDINGS:
        if getattr(a, k):
            setattr(a, k, os.path.abspath(getattr(a, k)))
    if a.mode == 'nofortran':
        print('no Fortran compiler at configure time (install gfortran, then meson setup '
              '--reconfigure): the Fortran tests are skipped')
        sys.exit(77)
    if shutil.which('mpirun') is None:
        print('mpirun not found: skipped')
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix='kubus-fortran-')
    try:
        {'binding': mode_binding, 'all': mode_all, 'qe': mode_qe}[a.mode](a, tmp)
    finally:
        if not failures:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f'kept {tmp}', file=sys.stderr)
    if failures:
        print(f'{len(failures)} failure(s)', file=sys.stderr)
        sys.exit(1)
    print('ok')


if __name__ == '__main__':
    main()
