#!/usr/bin/env python3
"""The lightweight profile (EXPDIR/profile.cube), end to end.

usage: profile-test.py CASE --run KUBUS_RUN --cube KUBUS_CUBE --analyze KUBUS_ANALYZE
                       --app APP [--ranks N]
  estimates  prof-waits under kubus-run (trace and profile in one run): the min-based
             estimates of every pattern within 5 % of the waits the program measured, the
             over-estimation case, exact call-site counts per rank, min <= mean <= max, the
             call sites' source lines, and the profile's time per call path against the
             trace analysis' (1 %); kubus-cube diff of the two reports
  notrace    prof-waits with --no-trace: no trace at all, the same profile checks
  paths      prof-paths: 111110 call paths below one function, deep recursion, and a low
             call-path limit (overflow call path, the warning, no time lost)
  threads    prof-threads: MPI calls of other threads on locations of their own
  abort      collect-abort: the profile of an aborted run, marked incomplete
  reduce     prof-reduce: one reduction of the minima at MPI_Finalize, not one per call
  ompserialized  threads-omp serialized: both OpenMP threads' calls in the trace and the profile
             (exact visits on one call path), no unmatched message, Late Sender on rank 1
  ompmultiple    threads-omp multiple: the other threads' calls counted exactly by kubus-run and
             kubus-analyze
  rma        prof-rma: one-sided calls as regions, their time MPI time, fences' waits, kubus-sim
  mpiio      prof-mpiio: MPI-IO calls as regions with exact visits, their time in mpi_io and
             the collective ones' in mpi_io_collective (none in comp), the same in the profile
             and the trace analysis, and kubus-cube callsites lists them
Exit 0 pass, 1 fail, 77 skip.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cube3  # noqa: E402

failures = []
SANITIZED = os.environ.get('KUBUS_SANITIZED') == '1'


def expect(cond, what):
    if not cond:
        failures.append(what)
        print('FAIL:', what, file=sys.stderr)
    return cond


def env_for_mpi():
    env = dict(os.environ)
    env.setdefault('OMPI_ALLOW_RUN_AS_ROOT', '1')
    env.setdefault('OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1')
    env.setdefault('OMPI_MCA_rmaps_base_oversubscribe', '1')
    env.setdefault('HWLOC_COMPONENTS', '-gl,-opencl')
    env['KUBUS_VERBOSE'] = '0'
    ao = env.get('ASAN_OPTIONS', '')
    env['ASAN_OPTIONS'] = (ao + ':' if ao else '') + 'detect_leaks=0'
    return env


def run(cmd, env=None, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=280,
                          env=env or env_for_mpi(), **kw)


def kubus_run(a, exp, n, app_args=(), opts=(), expect_rc=0, env=None):
    cmd = [a.run, '-o', exp, *opts, '--', 'mpirun', '-n', str(n), '--oversubscribe', a.app,
           *app_args]
    p = run(cmd, env=env)
    if expect_rc is not None:
        expect(p.returncode == expect_rc,
               f'{" ".join(map(str, cmd))}: exit {p.returncode}, expected {expect_rc}\n'
               f'{p.stdout[-2000:]}\n{p.stderr[-3000:]}')
    return p


def close(got, want, rel, absol):
    return abs(got - want) <= rel * abs(want) + absol


def app_base(a):
    return os.path.basename(os.path.realpath(a.app))


# ---------------------------------------------------------------- estimates

PHASES = {  # phase -> (MPI function, metric)
    'phase_ls_recv': ('MPI_Recv', 'mpi_latesender'),
    'phase_ls_wait': ('MPI_Wait', 'mpi_latesender'),
    'phase_ls_waitall': ('MPI_Waitall', 'mpi_latesender'),
    'phase_lr_ssend': ('MPI_Ssend', 'mpi_latereceiver'),
    'phase_nxn': ('MPI_Allreduce', 'mpi_wait_nxn'),
    'phase_barrier': ('MPI_Barrier', 'mpi_barrier_wait'),
    'phase_lb': ('MPI_Bcast', 'mpi_latebroadcast'),
    'phase_er': ('MPI_Reduce', 'mpi_earlyreduce'),
    'phase_partial': ('MPI_Recv', 'mpi_latesender'),
    'phase_ls_waitany': ('MPI_Waitany', 'mpi_latesender'),
    'phase_ls_waitsome': ('MPI_Waitsome', 'mpi_latesender'),
}


def read_truth(prefix, n):
    """{(phase, metric or 'visits', rank): value} from the files prof-waits wrote."""
    out = {}
    for r in range(n):
        with open(f'{prefix}.{r}') as f:
            for line in f:
                ph, m, v = line.split()
                out[(ph, m, r)] = float(v)
    return out


def source_lines(a):
    """phase -> line of its MPI call in tests/apps/prof-waits.c"""
    src = os.path.join(os.environ.get('KUBUS_SOURCE_ROOT', '.'), 'tests', 'apps', 'prof-waits.c')
    lines = open(src).read().splitlines()
    out = {}
    for ph, (fn, _) in PHASES.items():
        start = next(i for i, l in enumerate(lines) if l.startswith(ph + ' ('))
        out[ph] = next(i for i in range(start, len(lines)) if fn + ' (' in lines[i]) + 1
    return out


def callsites_csv(a, report):
    p = run([a.cube, 'callsites', '--csv', report])
    expect(p.returncode == 0, f'kubus-cube callsites --csv {report}: {p.stderr}')
    rows = p.stdout.splitlines()
    head = rows[0].split(',') if rows else []
    for need in ('function', 'callsite', 'rank', 'count', 'min', 'mean', 'max'):
        expect(need in head, f'callsites CSV header {head} lacks {need}')
    import csv
    return [dict(zip(head, r)) for r in csv.reader(rows[1:])]


def check_profile_estimates(a, exp, prefix, n, traced):
    truth = read_truth(prefix, n)
    c = cube3.load(os.path.join(exp, 'profile.cube'))
    base = app_base(a)
    # metric definitions: Score-P's names and dtypes; estimates say they are estimates
    expect(c.metrics.get('min_time', {}).get('dtype') == 'MINDOUBLE', 'min_time is MINDOUBLE')
    expect(c.metrics.get('max_time', {}).get('dtype') == 'MAXDOUBLE', 'max_time is MAXDOUBLE')
    for m in ('mpi_latesender', 'mpi_latereceiver', 'mpi_wait_nxn', 'mpi_barrier_wait',
              'mpi_latebroadcast', 'mpi_earlyreduce'):
        expect('Estimate' in c.metrics.get(m, {}).get('descr', ''), f'{m}: description')
        expect(c.metrics.get(m, {}).get('disp_name', '').endswith(' (estimate)'), f'{m}: name')
    # … and only those: measured values are not called estimates
    for m, d in c.metrics.items():
        if m not in ('mpi_latesender', 'mpi_latereceiver', 'mpi_wait_nxn', 'mpi_barrier_wait',
                     'mpi_latebroadcast', 'mpi_earlyreduce'):
            expect('estimate' not in d['disp_name'].lower(), f'{m}: named {d["disp_name"]}')
    expect(c.locations == [(r, 0) for r in range(n)], f'locations {c.locations}')
    for ph, (fn, metric) in PHASES.items():
        path = f'{base}/main/{ph}/{fn}'
        vis = cube3.by_path(c, 'visits')
        got_tot = want_tot = spread_tot = 0.0
        for r in range(n):
            got = cube3.by_path(c, metric, r).get(path, 0.0)
            want = truth[(ph, metric, r)]
            # what the calls' processing varied by (prof-waits.c): on a busy machine the
            # estimate counts waiting for a processor too
            spread = truth[(ph, 'spread', r)]
            got_tot += got
            want_tot += want
            spread_tot += spread
            v = cube3.by_path(c, 'visits', r).get(path, 0.0)
            expect(v == truth[(ph, 'visits', r)],
                   f'{path} rank {r}: {v} visits, the program made {truth[(ph, "visits", r)]:.0f}')
            if ph != 'phase_partial':
                expect(close(got, want, 0.05, 0.005 + spread),
                       f'{path} rank {r}: estimate {got:.6f} s, measured {want:.6f} s '
                       f'(processing varied by {spread:.6f} s)')
        ok = ph == 'phase_partial' or close(got_tot, want_tot, 0.05, 0.005 + spread_tot)
        print(f'{path:45s} {metric:18s} measured {want_tot:9.6f} estimated {got_tot:9.6f} '
              f'processing spread {spread_tot:9.6f} {"ok" if ok else "MISMATCH"}')
        if ph == 'phase_partial':
            # over-estimation (documented): no wait at all, yet the rendezvous messages take
            # longer than the eager ones of the same size class
            expect(want_tot == 0.0, f'{path}: the program measured a wait of {want_tot}')
            expect(got_tot > 0.0, f'{path}: no over-estimate ({got_tot})')
        else:
            expect(close(got_tot, want_tot, 0.05, 0.005 + spread_tot),
                   f'{path}: estimate {got_tot:.6f} s, measured {want_tot:.6f} s '
                   f'(processing varied by {spread_tot:.6f} s)')
        expect(vis.get(path, 0) > 0, f'{path}: no visits')
    # the call-site table: exact counts, min <= mean <= max, the source line of each call
    rows = callsites_csv(a, os.path.join(exp, 'profile.cube'))
    lines = source_lines(a)
    for row in rows:
        if row['min'] and row['max']:
            lo, mean, hi = float(row['min']), float(row['mean']), float(row['max'])
            expect(lo <= mean * (1 + 1e-9) and mean <= hi * (1 + 1e-9),
                   f'callsites: min {lo} mean {mean} max {hi} in {row}')
        else:
            expect(False, f'callsites: no min or max in {row}')
    for ph, (fn, _) in PHASES.items():
        path = f'{base}/main/{ph}/{fn}'
        mine = [r for r in rows if r['callsite'] == path]
        ranks = {r['rank']: r for r in mine}
        expect('all' in ranks, f'callsites: no row "all" for {path}')
        total = 0
        for r in range(n):
            want = truth[(ph, 'visits', r)]
            total += want
            got = float(ranks[str(r)]['count']) if str(r) in ranks else 0.0
            expect(got == want, f'callsites {path} rank {r}: count {got}, made {want:.0f}')
        expect('all' in ranks and float(ranks['all']['count']) == total,
               f'callsites {path}: count of all')
        src = mine[0]['source'] if mine else ''
        expect(src.endswith(f'prof-waits.c:{lines[ph]}'),
               f'callsites {path}: source {src!r}, expected prof-waits.c:{lines[ph]}')
    totals = [float(r['total']) for r in rows if r['rank'] == 'all']
    expect(totals == sorted(totals, reverse=True), 'callsites: not sorted by total time')
    # every column: the header, mean = total / count, the bytes of the partly received
    # messages (3 of 2048 and 3 of 4095 bytes per receiving rank), per-rank rows after their
    # call site's `all` row
    head = run([a.cube, 'callsites', '--csv', os.path.join(exp, 'profile.cube')]).stdout
    want_head = 'function,callsite,source,rank,count,min,mean,max,total,bytes_sent,bytes_received'
    expect(head.splitlines()[0] == want_head, f'callsites CSV header {head.splitlines()[0]}')
    for row in rows:
        expect(close(float(row['mean']) * float(row['count']), float(row['total']), 1e-6, 1e-9),
               f'callsites: mean x count != total in {row}')
    part = {r['rank']: r for r in rows if r['callsite'] == f'{base}/main/phase_partial/MPI_Recv'}
    for r in range(1, n, 2):
        expect(part.get(str(r), {}).get('bytes_received') == str(3 * (2048 + 4095)),
               f'callsites phase_partial rank {r}: bytes {part.get(str(r))}')
    expect(part.get('all', {}).get('bytes_received') == str(n // 2 * 3 * (2048 + 4095)),
           f'callsites phase_partial all: bytes {part.get("all")}')
    sent = {r['rank']: r for r in rows if r['callsite'].endswith('/main/phase_partial/MPI_Send')}
    expect(sent.get('0', {}).get('bytes_sent') == str(3 * (2048 + 4095)),
           f'callsites phase_partial MPI_Send rank 0: {sent.get("0")}')
    last = None
    for row in rows:
        if row['rank'] == 'all':
            last = (row['function'], row['callsite'])
        else:
            expect(last == (row['function'], row['callsite']),
                   f'callsites: rank row {row} not below its call site\'s all row')
    # the text table: the same rows in the same order, the columns named in its first line
    p = run([a.cube, 'callsites', os.path.join(exp, 'profile.cube')])
    text = p.stdout.splitlines()
    expect(p.returncode == 0 and text[0].split() == want_head.split(','),
           f'callsites text header {text[:1]}')
    # (a source column may list several lines "FILE:LINE; FILE:LINE": count from the right)
    expect([(t.split()[0], t.split()[1], t.split()[-8], t.split()[-7]) for t in text[1:]]
           == [(r['function'], r['callsite'], r['rank'], r['count']) for r in rows],
           'callsites: the text table and the CSV differ')
    # min <= mean <= max in the report itself: every MPI call path and location
    vis, tim = c.values['visits'], c.values['time']
    lo_v, hi_v = c.values['min_time'], c.values['max_time']
    checked = 0
    for (cid, loc), v in vis.items():
        node = c.cnodes[cid]
        if v <= 0 or not node['region'].startswith('MPI_'):
            continue
        mean = tim.get((cid, loc), 0.0) / v
        lo, hi = lo_v.get((cid, loc)), hi_v.get((cid, loc))
        checked += 1
        expect(lo is not None and hi is not None and lo <= mean + 1e-9 and mean <= hi + 1e-9,
               f'{node["path"]} location {loc}: min {lo} mean {mean} max {hi}')
    expect(checked > 20, f'only {checked} MPI call paths with visits')


def compare_with_trace(a, exp, n):
    """Trace and profile of one run: the same time per call path (1 %), the same visits, bytes
    and message counts. FALSE when the analysis failed."""
    p = run([a.analyze, exp])
    if not expect(p.returncode == 0, f'kubus-analyze: {p.stderr[-2000:]}'):
        return False
    an = cube3.load(os.path.join(exp, 'analysis.cube'))
    pr = cube3.load(os.path.join(exp, 'profile.cube'))
    worst = 0.0
    for r in range(n):
        ta, tp = cube3.by_path(an, 'time', r), cube3.by_path(pr, 'time', r)
        for path in sorted(set(ta) | set(tp)):
            x, y = ta.get(path, 0.0), tp.get(path, 0.0)
            if not expect(close(y, x, 0.01, 20e-6),
                          f'rank {r} {path}: time {y:.9f} in the profile, {x:.9f} in the trace'):
                continue
            if x > 0.001:
                worst = max(worst, abs(y - x) / x)
        for m in ('visits', 'bytes_sent', 'bytes_rcvd', 'comms_send', 'comms_recv', 'syncs_coll',
                  'bytes_cout', 'bytes_cin', 'comms_cxch', 'comms_csrc', 'comms_cdst'):
            va, vp = cube3.by_path(an, m, r), cube3.by_path(pr, m, r)
            expect(va == vp, f'rank {r}: {m} differs between trace and profile: '
                             f'{sorted(set(va.items()) ^ set(vp.items()))[:4]}')
    print(f'time per call path: largest relative difference {worst:.2e}')
    return True


def check_against_trace(a, exp, n, prefix):
    """compare_with_trace, the call sites' sources, and a difference report of the two."""
    if not compare_with_trace(a, exp, n):
        return
    an = cube3.load(os.path.join(exp, 'analysis.cube'))
    # the analysis carries the profile's call-site sources (kubus-run resolved them; the trace
    # has only region names, so call sites on one call path share its row and list every line)
    src_an = {(r['callsite'], r['rank']): r['source'].split('; ')
              for r in callsites_csv(a, os.path.join(exp, 'analysis.cube'))}
    lines = source_lines(a)
    for r in callsites_csv(a, os.path.join(exp, 'profile.cube')):
        key = (r['callsite'], r['rank'])
        for part in r['source'].split('; '):
            expect(part in src_an.get(key, []),
                   f'callsites {key}: source {src_an.get(key)} in analysis.cube lacks {part!r} of profile.cube')
    for ph, (fn, _) in PHASES.items():
        key = (f'{app_base(a)}/main/{ph}/{fn}', 'all')
        expect(any(x.endswith(f'prof-waits.c:{lines[ph]}') for x in src_an.get(key, [])),
               f'callsites {key[0]} in analysis.cube: source {src_an.get(key)}')
    d = os.path.join(exp, 'diff.cube')
    p = run([a.cube, 'diff', os.path.join(exp, 'analysis.cube'),
             os.path.join(exp, 'profile.cube'), '-o', d])
    if expect(p.returncode == 0, f'kubus-cube diff: {p.stderr}'):
        dc = cube3.load(d)
        base = app_base(a)
        # minima and maxima only the profile has: no values in the difference (not −min)
        for m in ('min_time', 'max_time'):
            expect(m in dc.metrics and not any(dc.values.get(m, {}).values()),
                   f'diff: {m} has values {list(dc.values.get(m, {}).items())[:3]}')
        # time per call path: the difference is within the 1 % the two agree to
        for path, x in cube3.by_path(an, 'time').items():
            got = cube3.by_path(dc, 'time').get(path, 0.0)
            expect(close(got, 0.0, 0.0, 0.01 * x + 40e-6), f'diff: time of {path} {got}')
        for ph in ('phase_ls_recv', 'phase_nxn', 'phase_lb'):
            fn, metric = PHASES[ph]
            path = f'{base}/main/{ph}/{fn}'
            diff = cube3.by_path(dc, metric).get(path, 0.0)
            ref = cube3.by_path(an, metric).get(path, 0.0)
            spread = sum(read_truth(prefix, n)[(ph, 'spread', r)] for r in range(n))
            expect(close(diff, 0.0, 0.0, 0.05 * ref + 0.005 + spread),
                   f'{path}: analysis - profile = {diff:.6f} s of {ref:.6f} s')


def case_estimates(a, tmp):
    exp = os.path.join(tmp, 'exp')
    prefix = os.path.join(tmp, 'truth')
    kubus_run(a, exp, a.ranks, app_args=[prefix])
    if failures:
        return
    expect(os.path.exists(os.path.join(exp, 'traces.otf2')), 'no trace')
    check_profile_estimates(a, exp, prefix, a.ranks, True)
    check_against_trace(a, exp, a.ranks, prefix)


def case_nonblocking(a, tmp):
    """Non-blocking collectives (ws-nonblocking): their bytes and counts at the call that
    completes them, the same in the profile as in the trace analysis; time per call path too."""
    exp = os.path.join(tmp, 'exp')
    kubus_run(a, exp, a.ranks)
    if failures:
        return
    if not compare_with_trace(a, exp, a.ranks):
        return
    an = cube3.load(os.path.join(exp, 'analysis.cube'))
    for r in range(a.ranks):
        # at MPI_Wait: Iallreduce (2), Ibcast (3), Ireduce (4), Iscan (5), the reversed
        # Iallreduce (8), all of doubles, and on ranks but 0 the two Iallreduce of stage 9; at
        # MPI_Waitall: Iallgather and Ialltoall (6), and on rank 0 stage 9's two Iallreduce
        cout = cube3.by_path(an, 'bytes_cout', r)
        wait = sum(v for p, v in cout.items() if p.endswith('/MPI_Wait'))
        waitall = sum(v for p, v in cout.items() if p.endswith('/MPI_Waitall'))
        expect(wait > 0 and waitall == (4 if r == 0 else 2) * a.ranks * 8,
               f'rank {r}: collective bytes sent at MPI_Wait {wait}, at MPI_Waitall {waitall}')


def case_notrace(a, tmp):
    exp = os.path.join(tmp, 'exp')
    prefix = os.path.join(tmp, 'truth')
    p = kubus_run(a, exp, a.ranks, app_args=[prefix], opts=['--no-trace'])
    if failures:
        return
    expect(sorted(os.listdir(exp)) == ['kubus.json', 'profile.cube'],
           f'--no-trace wrote {sorted(os.listdir(exp))}')
    expect('trace' not in p.stderr, f'kubus-run talks about a trace: {p.stderr}')
    import json
    with open(os.path.join(exp, 'kubus.json')) as f:
        meta = json.load(f)
    expect(meta.get('trace') is None and meta.get('profile') == 'profile.cube'
           and meta['options'].get('no_trace') is True, f'kubus.json: {meta}')
    check_profile_estimates(a, exp, prefix, a.ranks, False)
    # --no-trace and a trace format exclude each other: refused before anything runs
    for fmt in ('compressed', 'both'):
        bad = os.path.join(tmp, 'both-' + fmt)
        p = run([a.run, '--no-trace', f'--trace-format={fmt}', '-o', bad, '--', 'true'])
        expect(p.returncode == 2 and '--no-trace' in p.stderr and not os.path.exists(bad),
               f'--no-trace --trace-format={fmt}: exit {p.returncode}, {p.stderr!r}')
    # bad input: clear messages naming the file
    p = run([a.cube, 'callsites', os.path.join(tmp, 'missing.cube')])
    expect(p.returncode == 2 and 'missing.cube' in p.stderr, f'callsites, no file: {p.stderr}')
    notime = os.path.join(tmp, 'notime.cube')
    with open(notime, 'w') as f:
        f.write('<?xml version="1.0"?><cube version="3.0"><metrics><metric id="0">'
                '<disp_name>V</disp_name><uniq_name>visits</uniq_name><dtype>INTEGER</dtype>'
                '<uom>occ</uom><url></url><descr></descr></metric></metrics><program>'
                '<region id="0" mod="" begin="-1" end="-1"><name>MPI_Send</name><url></url>'
                '<descr></descr></region><cnode id="0" calleeId="0"></cnode></program><system>'
                '<machine Id="0"><name>m</name><node Id="0"><name>n</name><process Id="0">'
                '<name>p</name><rank>0</rank><thread Id="0"><name>t</name><rank>0</rank>'
                '</thread></process></node></machine></system><severity></severity></cube>')
    p = run([a.cube, 'callsites', notime])
    expect(p.returncode == 2 and 'notime.cube' in p.stderr and '“time”' in p.stderr,
           f'callsites without time: {p.returncode} {p.stderr}')


# ---------------------------------------------------------------- paths

def all_time_kept(c, what):
    """Per location: the time of all call paths adds up to the root's one visit."""
    for loc in range(len(c.locations)):
        total = sum(v for (cid, l), v in c.values.get('time', {}).items() if l == loc)
        root = [cid for cid, n in c.cnodes.items() if n['parent'] is None]
        whole = sum(c.values['max_time'].get((cid, loc), 0.0) for cid in root)
        expect(close(total, whole, 1e-9, 1e-6),
               f'{what}, location {loc}: call paths add up to {total:.9f} s, the run took '
               f'{whole:.9f} s')


def wide_paths(codes):
    """The call paths below `wide` for codes 0 … codes-1 (prof-paths.c), and the leaves."""
    seen = set()
    for code in range(codes):
        digits = tuple(code // 10 ** k % 10 for k in range(5))
        for k in range(1, 6):
            seen.add(digits[:k])
    return len(seen), codes


def case_paths(a, tmp):
    """One rank: 10^5 call paths fit under the default limit; a low limit folds the rest.
    Under the sanitizers 20000 codes and a limit of 5000 (the same checks, a fifth of the
    work)."""
    base = app_base(a)
    need = ('visits', 'time', 'max_time')
    codes, limit = (20000, 5000) if SANITIZED else (100000, 20000)
    n_wide, n_leaves = wide_paths(codes)
    exp = os.path.join(tmp, 'big')
    p = kubus_run(a, exp, 1, app_args=[codes], opts=['--no-trace'])
    expect(f'prof-paths: {codes} leaves' in p.stdout, f'output {p.stdout!r}')
    expect('limit' not in p.stderr, f'a warning under the default limit: {p.stderr}')
    c = cube3.load(os.path.join(exp, 'profile.cube'), need)
    wide = [n for n in c.cnodes.values() if n['path'].startswith(f'{base}/main/wide/')]
    expect(len(wide) == n_wide, f'{len(wide)} call paths below wide, expected {n_wide}')
    leaves = [cid for cid, n in c.cnodes.items() if n['path'].count('/f_') == 5]
    vis = c.values['visits']
    bad = [cid for cid in leaves if vis.get((cid, 0)) != 1]
    expect(len(leaves) == n_leaves and not bad,
           f'{len(leaves)} leaves, {len(bad)} without exactly one visit')
    # memory: bounded by the call paths (about 120 bytes each, tables and stack included)
    mem = int(c.attrs.get('kubus::profile_bytes', '0'))
    nodes = len(c.cnodes)
    expect(0 < mem < 200 * nodes + 4 * 1024 * 1024,
           f'profile memory {mem} bytes for {nodes} call paths')
    print(f'{nodes} call paths, {mem} bytes of profile ({mem / nodes:.0f} per path)')
    all_time_kept(c, 'default limit')
    # deep recursion: 1024 levels of user functions recorded, the barrier beneath them
    deepest = max(c.cnodes.values(), key=lambda n: n['depth'])
    expect(deepest['depth'] == 1025 and deepest['region'] == 'MPI_Barrier'
           and deepest['path'].startswith(f'{base}/main/deep/rec/rec/'),
           f'deepest call path: depth {deepest["depth"]}, {deepest["path"][:80]}…')
    recs = [cid for cid, n in c.cnodes.items() if n['region'] == 'rec']
    expect(len(recs) == 1022 and all(vis.get((cid, 0)) == 1 for cid in recs),
           f'{len(recs)} rec call paths')
    p = run([a.cube, 'info', os.path.join(exp, 'profile.cube')])
    expect(p.returncode == 0 and f'call paths: {nodes}' in p.stdout, f'kubus-cube info: {p.stdout}')

    # memory by call paths, not by the run's length: the same 1000 codes once and 40 times
    sizes = []
    for rep in (1, 40):
        exp = os.path.join(tmp, f'repeat{rep}')
        p = kubus_run(a, exp, 1, app_args=[1000, rep], opts=['--no-trace'])
        expect(f'prof-paths: {1000 * rep} leaves' in p.stdout, f'output {p.stdout!r}')
        c = cube3.load(os.path.join(exp, 'profile.cube'), need)
        leaves = [cid for cid, n in c.cnodes.items() if n['path'].count('/f_') == 5]
        expect(len(leaves) == 1000 and all(c.values['visits'].get((cid, 0)) == rep
                                           for cid in leaves),
               f'{rep} repetitions: {len(leaves)} leaves, visits not {rep}')
        sizes.append((len(c.cnodes), int(c.attrs.get('kubus::profile_bytes', '0'))))
    expect(sizes[0] == sizes[1] and sizes[0][1] > 0,
           f'(call paths, profile bytes) once {sizes[0]}, 40 times {sizes[1]}')

    # a low limit: the rest folded into KUBUS_OVERFLOW, no time lost
    env = env_for_mpi()
    env['KUBUS_PROFILE_PATHS'] = str(limit)
    exp = os.path.join(tmp, 'limited')
    p = kubus_run(a, exp, 1, app_args=[codes], opts=['--no-trace'], env=env)
    expect(f'reached its limit of {limit} call paths' in p.stderr and 'KUBUS_PROFILE_PATHS'
           in p.stderr, f'no warning about the limit: {p.stderr}')
    c = cube3.load(os.path.join(exp, 'profile.cube'), need)
    over = [cid for cid, n in c.cnodes.items() if n['region'] == 'KUBUS_OVERFLOW']
    expect(len(over) == 1 and c.cnodes[over[0]]['depth'] == 1, f'overflow call paths: {over}')
    expect(len(c.cnodes) == limit + 1, f'{len(c.cnodes)} call paths with a limit of {limit}')
    folded = sum(v for (cid, l), v in c.values['visits'].items() if cid in over)
    expect(folded > 0 and folded == float(c.attrs.get('kubus::profile_folded_visits', -1)),
           f'visits of KUBUS_OVERFLOW {folded}, attribute '
           f'{c.attrs.get("kubus::profile_folded_visits")}')
    mem = int(c.attrs.get('kubus::profile_bytes', '0'))
    expect(mem < 200 * (limit + 1) + 4 * 1024 * 1024, f'profile memory {mem} bytes past the limit')
    all_time_kept(c, f'limit {limit}')


# ---------------------------------------------------------------- threads

def case_threads(a, tmp):
    exp = os.path.join(tmp, 'exp')
    p = kubus_run(a, exp, 2)
    if 'no MPI_THREAD_MULTIPLE' in p.stdout:
        print('MPI_THREAD_MULTIPLE not available: skipped')
        return 77
    expect('prof-threads: done' in p.stdout, f'output {p.stdout!r}')
    # 2 threads x (40 + 25) calls per rank, not traced (MPI_THREAD_MULTIPLE)
    expect("kubus-run: 260 MPI calls came from other threads than MPI_Init's and are not in the "
           "trace (MPI_THREAD_MULTIPLE; rank 0: 130, rank 1: 130)" in p.stderr,
           f'kubus-run: no count of untraced calls: {p.stderr[-2000:]}')
    c = cube3.load(os.path.join(exp, 'profile.cube'))
    base = app_base(a)
    expect(sorted(c.locations) == [(r, t) for r in range(2) for t in range(3)],
           f'locations {c.locations}')
    for loc, (r, t) in enumerate(c.locations):
        vis = cube3.by_path(c, 'visits', loc)
        if t == 0:
            want = {f'{base}/MPI_Init_thread': 1, f'{base}/MPI_Comm_dup': 2,
                    f'{base}/MPI_Barrier': 3, f'{base}/MPI_Comm_free': 2,
                    f'{base}/MPI_Finalize': 1, base: 1}
        else:
            want = {f'{base}/MPI_Iprobe': 40, f'{base}/MPI_Allreduce': 25}
        expect(vis == want, f'rank {r} thread {t}: visits {vis}, expected {want}')
    # another reader: as a Cube 4 archive (kubus-cube convert), read back by the independent
    # Cube 4 reader of tests/cube-cubex, the same values as src/cube reads from profile.cube;
    # the threads' "no value" of min_time (DBL_MAX) kept, not turned into 0
    cubex = os.path.join(exp, 'profile.cubex')
    p = run([a.cube, 'convert', os.path.join(exp, 'profile.cube'), '-o', cubex])
    oracle = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'cube-cubex',
                          'cubex-oracle.py')
    q = run([sys.executable, oracle, cubex, 'dump'])
    d = run([a.cube, 'dump', '--csv', os.path.join(exp, 'profile.cube')])
    if expect(p.returncode == 0 and q.returncode == 0 and d.returncode == 0,
              f'convert / oracle / dump: {p.stderr} {q.stderr} {d.stderr}'):
        none = [l for l in q.stdout.splitlines() if l.startswith('min_time,') and
                float(l.split(',')[-1]) >= 1.7976931348623157e308]
        got = sorted(l for l in q.stdout.splitlines() if l not in none)
        want = sorted(d.stdout.splitlines())
        expect(got == want and len(want) > 50,
               f'Cube 4 oracle and kubus-cube dump differ: {sorted(set(got) ^ set(want))[:4]}')
        expect(len(none) > 0, 'no location without a value of min_time')
    # the trace stays the main thread's
    p = run(['otf2-print', os.path.join(exp, 'traces.otf2')])
    expect(p.returncode == 0 and 'MPI_Iprobe' not in p.stdout, 'the trace has other threads')


# ---------------------------------------------------------------- abort

def case_abort(a, tmp):
    base = app_base(a)
    for opts in ([], ['--no-trace']):
        exp = os.path.join(tmp, 'exp' + ''.join(opts))
        p = kubus_run(a, exp, 4, opts=opts, expect_rc=3)
        expect(re.search(r'holds the profile of [1-4] of 4 ranks', p.stderr),
               f'{opts}: no message about the incomplete profile: {p.stderr[-1500:]}')
        expect(not os.path.exists(os.path.join(exp, '.kubus-profile')), f'{opts}: records left')
        if not expect(os.path.exists(os.path.join(exp, 'profile.cube')), f'{opts}: no profile'):
            continue
        c = cube3.load(os.path.join(exp, 'profile.cube'))
        expect('rank 1 called MPI_Abort (error code 3)' in c.attrs.get('kubus::incomplete', ''),
               f'{opts}: kubus::incomplete = {c.attrs.get("kubus::incomplete")}')
        expect(c.locations == [(r, 0) for r in range(4)], f'{opts}: locations {c.locations}')
        vis = cube3.by_path(c, 'visits', 1)
        expect(vis.get(f'{base}/MPI_Sendrecv') == 20 and vis.get(f'{base}/MPI_Abort') == 1
               and vis.get(f'{base}/MPI_Barrier') == 1,
               f'{opts}: rank 1 visits {vis}')
        all_time_kept(c, f'abort {opts}')


# ---------------------------------------------------------------- reduce

def case_reduce(a, tmp):
    """The minima are reduced with one MPI_Allreduce at MPI_Finalize, whatever the number of
    calls and size classes (prof-reduce.c counts the collector's MIN reductions of its table)."""
    base = app_base(a)
    for rounds, opts in ((1, ['--no-trace']), (30, ['--no-trace']), (5, [])):
        exp = os.path.join(tmp, f'exp{rounds}')
        p = kubus_run(a, exp, 3, app_args=[rounds], opts=opts)
        got = sorted(re.findall(r'prof-reduce: rank (\d): (\d+) minima reductions', p.stdout))
        expect(got == [(str(r), '1') for r in range(3)],
               f'{rounds} rounds {opts}: reductions per rank {got} (one each expected)')
        c = cube3.load(os.path.join(exp, 'profile.cube'))
        vis = cube3.by_path(c, 'visits', 0)
        expect(vis.get(f'{base}/MPI_Sendrecv') == 21 * rounds
               and vis.get(f'{base}/MPI_Bcast') == 21 * rounds,
               f'{rounds} rounds: visits {vis}')


def case_mpiio(a, tmp):
    """MPI-IO: every MPI_File_* call a region with its exact visits in the profile and the
    analysis; its whole time in mpi_io, the collective calls' also in mpi_io_collective, none in
    comp or in the other MPI categories."""
    base = app_base(a)
    n, rounds = 3, 4
    exp = os.path.join(tmp, 'exp')
    p = kubus_run(a, exp, n, app_args=[os.path.join(tmp, 'data.bin'), rounds])
    expect(p.stdout == 'prof-mpiio: done\n', f'application output: {p.stdout!r}')
    expect(not os.path.exists(os.path.join(tmp, 'data.bin')), 'MPI_File_delete left the file')
    p = run([a.analyze, exp])
    expect(p.returncode == 0, f'kubus-analyze: exit {p.returncode}\n{p.stderr[-2000:]}')
    visits = {'MPI_File_open': 1, 'MPI_File_write_at': rounds, 'MPI_File_write_at_all': rounds,
              'MPI_File_iread_at': rounds, 'MPI_File_seek': rounds, 'MPI_File_read_all': rounds,
              'MPI_File_sync': 1, 'MPI_File_close': 1}
    collective = {'MPI_File_open', 'MPI_File_write_at_all', 'MPI_File_read_all', 'MPI_File_sync',
                  'MPI_File_close'}
    others = ['comp', 'mpi_management', 'mpi_synchronization', 'mpi_communication']
    for report in ('profile.cube', 'analysis.cube'):
        c = cube3.load(os.path.join(exp, report))
        for m in ('mpi_io', 'mpi_io_collective'):
            expect(c.metrics.get(m, {}).get('parent') == {'mpi_io': 'mpi',
                                                           'mpi_io_collective': 'mpi_io'}[m],
                   f'{report}: {m} not in its place: {c.metrics.get(m)}')
        for r in range(n):
            vis = cube3.by_path(c, 'visits', r)
            time = cube3.by_path(c, 'time', r)
            io = cube3.by_path(c, 'mpi_io', r)
            coll = cube3.by_path(c, 'mpi_io_collective', r)
            delete = 1 if r == 0 else 0
            for name, want in list(visits.items()) + [('MPI_File_delete', delete)]:
                path = f'{base}/main/{name}' if f'{base}/main/{name}' in vis else f'{base}/{name}'
                expect(vis.get(path, 0) == want,
                       f'{report} rank {r}: {path} visits {vis.get(path, 0)}, expected {want}')
                if not want:
                    continue
                t = time.get(path, 0.0)
                expect(t > 0 and io.get(path) == t,
                       f'{report} rank {r}: {path}: mpi_io {io.get(path)}, time {t}')
                wc = t if name in collective else 0.0
                expect(coll.get(path, 0.0) == wc,
                       f'{report} rank {r}: {path}: mpi_io_collective {coll.get(path, 0.0)}, '
                       f'expected {wc}')
                for m in others:
                    v = cube3.by_path(c, m, r).get(path, 0.0)
                    expect(v == 0.0, f'{report} rank {r}: {path}: {m} {v}, expected 0')
    # kubus-sim re-enacts the I/O calls by their recorded duration: the collective ones are
    # listed as approximated (they wait for the file's group, the trace does not say how)
    if a.sim:
        hyp = os.path.join(tmp, 'identity.hyp')
        open(hyp, 'w').close()
        out = os.path.join(tmp, 'sim')
        p = run([a.sim, exp, '--hypothesis', hyp, '--offline', '--no-identity', '-q', '-o', out])
        expect(p.returncode == 0, f'kubus-sim: exit {p.returncode}\n{p.stderr[-2000:]}')
        try:
            with open(os.path.join(out, 'summary.json'), encoding='utf-8') as f:
                approx = json.load(f).get('approximated')
        except (OSError, ValueError) as e:
            approx = f'no summary: {e}'
        want = {name: n * visits[name] for name in sorted(collective)}
        expect(approx == want, f'kubus-sim approximated {approx}, expected {want}')
    # the call sites (mpiP style) list the I/O calls too
    p = run([a.cube, 'callsites', '--csv', os.path.join(exp, 'profile.cube')])
    expect(p.returncode == 0 and 'MPI_File_write_at_all' in p.stdout,
           f'kubus-cube callsites: exit {p.returncode}, no MPI_File_write_at_all\n{p.stdout[:2000]}')


def case_rma(a, tmp):
    """One-sided communication: every MPI_Win_* call and MPI_Put/MPI_Get a region with its exact
    visits in the profile and the analysis, its whole time MPI time (none in comp, nor in the
    categories of other MPI calls); kubus-sim lists the synchronizing calls as approximated (before 2026-11-29 none of
    them was wrapped: their time was the program's computation)."""
    base = app_base(a)
    n, rounds = 3, 4
    exp = os.path.join(tmp, 'exp')
    p = kubus_run(a, exp, n, app_args=[rounds])
    expect(p.stdout == 'prof-rma: done\n', f'application output: {p.stdout!r}\n{p.stderr[-2000:]}')
    p = run([a.analyze, exp])
    expect(p.returncode == 0, f'kubus-analyze: exit {p.returncode}\n{p.stderr[-2000:]}')
    visits = {'MPI_Win_allocate_shared': 1, 'MPI_Win_fence': rounds + 1, 'MPI_Put': rounds,
              'MPI_Win_lock': 1, 'MPI_Get': 1, 'MPI_Win_unlock': 1, 'MPI_Win_free': 1}
    others = ['comp', 'mpi_management', 'mpi_synchronization', 'mpi_communication', 'mpi_io']
    for report in ('profile.cube', 'analysis.cube'):
        c = cube3.load(os.path.join(exp, report))
        for r in range(n):
            vis = cube3.by_path(c, 'visits', r)
            time = cube3.by_path(c, 'time', r)
            mpi = cube3.by_path(c, 'mpi', r)
            for name, want in visits.items():
                path = f'{base}/main/{name}' if f'{base}/main/{name}' in vis else f'{base}/{name}'
                expect(vis.get(path, 0) == want,
                       f'{report} rank {r}: {path} visits {vis.get(path, 0)}, expected {want}')
                t = time.get(path, 0.0)
                expect(t > 0 and mpi.get(path) == t, f'{report} rank {r}: {path}: mpi {mpi.get(path)}, time {t}')
                for m in others:
                    v = cube3.by_path(c, m, r).get(path, 0.0)
                    expect(v == 0.0, f'{report} rank {r}: {path}: {m} {v}, expected 0')
    if a.sim:
        hyp = os.path.join(tmp, 'identity.hyp')
        open(hyp, 'w').close()
        out = os.path.join(tmp, 'sim')
        p = run([a.sim, exp, '--hypothesis', hyp, '--offline', '--no-identity', '-q', '-o', out])
        expect(p.returncode == 0, f'kubus-sim: exit {p.returncode}\n{p.stderr[-2000:]}')
        try:
            with open(os.path.join(out, 'summary.json'), encoding='utf-8') as f:
                approx = json.load(f).get('approximated')
        except (OSError, ValueError) as e:
            approx = f'no summary: {e}'
        want = {name: n * v for name, v in visits.items() if name.startswith('MPI_Win_')}
        expect(approx == want, f'kubus-sim approximated {approx}, expected {want}')


# ---------------------------------------------------------------- threads-omp

def omp_env(paths='flat'):
    env = env_for_mpi()
    env['OMP_NUM_THREADS'] = '2'
    env['OMP_WAIT_POLICY'] = 'passive'  # idle threads sleep: a loaded 2-core machine
    env['KUBUS_CALL_PATHS'] = paths
    return env


def omp_run(a, exp, mode, paths='flat'):
    p = kubus_run(a, exp, 2, app_args=[mode], env=omp_env(paths))
    if 'not provided' in p.stdout:
        return p, False
    counts = sorted(re.findall(r'threads-omp: rank (\d) main (\d+) other (\d+)', p.stdout))
    want = [(str(r), '10', '10') if mode == 'serialized' else (str(r), '20', '20')
            for r in range(2)]
    expect(counts == want and 'threads-omp: done' in p.stdout,
           f'{mode}: calls per thread {counts}, expected {want}; output {p.stdout!r}')
    return p, True


def case_ompserialized(a, tmp):
    """MPI_THREAD_SERIALIZED: the calls of both OpenMP threads in the trace and the profile,
    messages matched, Late Sender of rank 1 from rank 0's 20 naps of 2 ms; with call paths from
    the stack, all on the main thread's call path (the worker's frames grafted below
    GOMP_parallel)."""
    base = app_base(a)
    for paths in ('unwind', 'flat'):
        exp = os.path.join(tmp, 'exp-' + paths)
        p, ok = omp_run(a, exp, 'serialized', paths)
        if not ok:
            print('MPI_THREAD_SERIALIZED not available: skipped')
            return 77
        expect('not in the trace' not in p.stderr,
               f'{paths}: kubus-run counted untraced calls: {p.stderr}')
        q = run([a.analyze, exp])
        expect(q.returncode == 0, f'{paths}: kubus-analyze: exit {q.returncode}\n{q.stderr[-2000:]}')
        out = q.stdout + q.stderr
        expect('without a matching send' not in out and 'not in the trace' not in out,
               f'{paths}: kubus-analyze warns: {out[-2000:]}')
        path = (f'{base}/main/GOMP_parallel/main._omp_fn.0/MPI_Sendrecv' if paths == 'unwind'
                else f'{base}/MPI_Sendrecv')
        for report in ('analysis.cube', 'profile.cube'):
            c = cube3.load(os.path.join(exp, report))
            expect(c.locations == [(0, 0), (1, 0)], f'{paths} {report}: locations {c.locations}')
            for r in range(2):
                vis = cube3.by_path(c, 'visits', r)
                sr = {k: v for k, v in vis.items() if k.endswith('/MPI_Sendrecv')}
                expect(sr == {path: 20}, f'{paths} {report} rank {r}: MPI_Sendrecv visits {sr}, '
                       f'expected {path}: 20')
                if paths == 'unwind':
                    # the main thread's frames left and entered at each change of thread
                    fn = vis.get(f'{base}/main/GOMP_parallel/main._omp_fn.0')
                    expect(fn == 20, f'{report} rank {r}: main._omp_fn.0 visits {fn}')
            if report == 'analysis.cube':
                ls = [sum(cube3.by_path(c, 'mpi_latesender', r).values()) for r in range(2)]
                # rank 0 naps 2 ms before each of 20 calls: rank 1 waits for that (not less
                # than 80 % of it), plus scheduling delays (generous slack, a loaded machine)
                expect(0.8 * 0.040 <= ls[1] <= 0.040 + 0.100 and ls[0] < 0.010,
                       f'{paths}: Late Sender per rank {ls}, expected about [0, 0.040]')


def case_ompmultiple(a, tmp):
    """MPI_THREAD_MULTIPLE: the other thread's 20 calls per rank counted, reported by kubus-run
    and kubus-analyze; the trace has the main thread's 20."""
    exp = os.path.join(tmp, 'exp')
    p, ok = omp_run(a, exp, 'multiple', 'unwind')
    if not ok:
        print('MPI_THREAD_MULTIPLE not available: skipped')
        return 77
    msg = ('kubus-run: 40 MPI calls came from other threads than MPI_Init\'s and are not in the '
           'trace (MPI_THREAD_MULTIPLE; rank 0: 20, rank 1: 20)')
    expect(msg in p.stderr, f'kubus-run: no count of untraced calls: {p.stderr[-2000:]}')
    expect(not os.path.exists(os.path.join(exp, '.kubus-threads')), 'hand-over file left')
    q = run([a.analyze, exp])
    expect(q.returncode == 0, f'kubus-analyze: exit {q.returncode}\n{q.stderr[-2000:]}')
    want = ('warning: 40 MPI calls came from other threads than MPI_Init\'s and are not in the '
            'trace (rank 0: 20, rank 1: 20)')
    expect(want in q.stdout + q.stderr, f'kubus-analyze: no warning: {q.stdout[-2000:]}')
    c = cube3.load(os.path.join(exp, 'analysis.cube'))
    for r in range(2):
        vis = cube3.by_path(c, 'visits', r)
        n = sum(v for k, v in vis.items() if k.endswith('/MPI_Sendrecv'))
        expect(n == 20, f'analysis.cube rank {r}: {n} MPI_Sendrecv, expected the main thread\'s 20')


CASES = {'reduce': case_reduce, 'estimates': case_estimates, 'nonblocking': case_nonblocking,
         'notrace': case_notrace, 'paths': case_paths,
         'threads': case_threads, 'abort': case_abort, 'mpiio': case_mpiio, 'rma': case_rma,
         'ompserialized': case_ompserialized, 'ompmultiple': case_ompmultiple}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('case', choices=sorted(CASES))
    ap.add_argument('--run', required=True)
    ap.add_argument('--cube', required=True)
    ap.add_argument('--analyze', required=True)
    ap.add_argument('--app', required=True)
    ap.add_argument('--ranks', type=int, default=4)
    ap.add_argument('--sim', help='kubus-sim (mpiio)')
    a = ap.parse_args()
    a.run, a.cube, a.analyze, a.app = (os.path.abspath(x) for x in
                                       (a.run, a.cube, a.analyze, a.app))
    if shutil.which('mpirun') is None:
        print('mpirun missing: skipped')
        return 77
    tmp = tempfile.mkdtemp(prefix='kubus-profile-')
    try:
        rc = CASES[a.case](a, tmp)
    finally:
        if not failures:
            shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f'{len(failures)} failure(s); files kept in {tmp}')
        return 1
    if rc == 77:
        return 77
    print(f'{a.case}: ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
