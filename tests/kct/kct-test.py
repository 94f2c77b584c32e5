#!/usr/bin/env python3
"""Compressed-trace tests (issue 15): MPI programs under kubus-run --trace-format.

usage: kct-test.py CASE --app APP --run KUBUS_RUN --trace KUBUS_TRACE --seq KCT_SEQ
                   --replay KCT_REPLAY_CHECK --analyze KUBUS_ANALYZE [--ranks N,N..] [-- ARGS]

Cases:
  scale        runs with --trace-format=both at each rank count; every run: the expanded
               compressed trace holds exactly the MPI call sequence of the OTF2 trace of the
               same run (per rank, kct-seq), its run length is within 5 % of the recorded one,
               the iterator's replay too, and the offline compression of the OTF2 trace is
               lossless as well.  From 16 to the largest rank count N (32 or 64) the
               compressed trace grows at most 1.3x (1.35x to 32) while the OTF2 trace grows at
               least 0.75 N/16 times (3x at 64, 1.5x at 32); info's OTF2 estimate is within
               25 % of the real size.  With --extrapolate N: the runs up to 16 ranks extrapolate to N
               ranks with the same locations and MPI calls per function as a real run at N.
  irregular    data-dependent messages and MPI_Test polls: the same calls (polls compared as
               runs), the compression ratio that info reports is OTF2 size / compressed size.
  compressed   --trace-format=compressed: only traces.kct, kubus.json says so, expand works,
               kubus-analyze reads the expanded trace.
  badinput     corrupt, truncated and foreign files, a file of format version 1 and one of a
               newer version (refused), one of version 2 (read)
               (tests/kct/data/version1.kct, histograms instead of timelines): a clear error
               naming the file (and the versions), no crash, nothing half-written.
  nbc          non-blocking collectives (collect-more): requests and completions expand and
               compress offline exactly as recorded (format version 3).
  nbcextrapolate  sim-lb-nbc extrapolated from --ranks to --extrapolate: its non-blocking
               collectives' requests and completions as in a real run at that count.
  sim          kubus-sim on an experiment that holds only traces.kct (replayed without
               expanding it) with an empty hypothesis predicts the recorded run time within 5 %,
               writes a simulated OTF2 trace with every rank, and leaves nothing behind.
  analyze      kubus-analyze on an experiment that holds only traces.kct (a copy of the one of a
               `both` run) and on FILE.kct: the compressed trace is expanded to a temporary OTF2
               archive, analysed, and the archive removed.  Against the analysis of the OTF2
               trace of the same run: visits, messages, bytes per call path exactly, times per
               call path within 2 % (every event within the file's bound, 1 us or 2^-16 of the
               time since the previous one), Late Sender, Wait at Barrier and Barrier
               Completion within 2 %.  Bad input: a corrupt traces.kct gives exit 1, a message
               naming it, nothing left.
  accuracy     a ws-* program (--ws: its one argument is a truth file prefix) or a real code
               (--real lammps-melt|hpcc, tests/real) under --trace-format=both: the analysis of
               traces.kct alone against that of traces.otf2, every wait-state metric in total and
               at every call path holding >= 1 % of the time within 2 % (or within what the
               per-event bound allows: 2 x (1 us x visits + 2^-16 x time) of the call path);
               no receive before its send, in the analysis of the compressed trace and of
               `kubus-trace expand`'s archive; `kubus-trace info --check` finds no event outside
               the bound and prints the analyses; kubus-sim --offline with an empty hypothesis
               predicts the same run time from both within 1 %.  --max-ratio R: the compressed
               trace is at most R times the OTF2 trace.
  abort        a program that calls MPI_Abort (tests/apps/collect-abort.c, 4 ranks): with
               --trace-format=both, every rank's saved part is merged into traces.kct by
               kubus-run (no part left behind) and it holds exactly the OTF2 trace's MPI call
               sequence (as in scale), with the same visits and total time in the analysis; with
               --trace-format=compressed and the other ranks "killed" before they saved
               (KUBUS_TEST_KCT_KILLED), traces.kct still has 4 ranks (3 without events), says so,
               and the analyzer reads it.
Exit 0 = pass, 1 = fail, 77 = skip.  KUBUS_SANITIZED=1 leaves out rank counts above 16.
KCT_TABLE=FILE appends the sizes of a scale case to FILE (docs/benchmarks.md's table).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
    return cond


def run(cmd, timeout=300, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                          timeout=timeout, **kw)


def env_for_mpi():
    env = dict(os.environ)
    env.setdefault('OMPI_ALLOW_RUN_AS_ROOT', '1')
    env.setdefault('OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1')
    env.setdefault('OMPI_MCA_rmaps_base_oversubscribe', '1')
    env['KUBUS_VERBOSE'] = '0'
    env['LC_ALL'] = 'C'
    # hwloc's gl/opencl plugins connect to an X display (the GUI tests' Xvfb) from every
    # rank; one that goes away meanwhile kills the rank (scripts/env.sh sets the same)
    env['HWLOC_COMPONENTS'] = '-gl,-opencl'
    ao = env.get('ASAN_OPTIONS', '')
    env['ASAN_OPTIONS'] = (ao + ':' if ao else '') + 'detect_leaks=0'
    return env


def kubus_run(a, expdir, ranks, fmt):
    cmd = [a.run, '-o', expdir, '--trace-format', fmt, '--', 'mpirun', '-n', str(ranks),
           '--oversubscribe', a.app, *a.app_args]
    p = run(cmd, env=env_for_mpi(), timeout=600)
    expect(p.returncode == 0, f'{" ".join(map(str, cmd))}: exit {p.returncode}\n{p.stderr[-3000:]}')
    return p.returncode == 0


def tool(cmd, ok=True, **kw):
    p = run(cmd, env=env_for_mpi(), **kw)
    if ok:
        expect(p.returncode == 0, f'{" ".join(map(str, cmd))}: exit {p.returncode}\n'
                                  f'{p.stdout[-1000:]}{p.stderr[-2000:]}')
    return p


def info(a, kct):
    p = tool([a.trace, 'info', '--calls', kct])
    d, calls = {}, {}
    in_calls = False
    for line in p.stdout.splitlines():
        if line.startswith('calls per region:'):
            in_calls = True
        elif in_calls and line.startswith('  '):
            name, n = line.strip().rsplit(None, 1)
            calls[name] = int(n)
        elif ': ' in line:
            k, v = line.split(': ', 1)
            d[k] = v
    d['calls'] = calls
    return d


def seq(a, anchor, cpu=False):
    """per-rank event text and the run length (cpu: with the CPU samples, METRIC lines)"""
    p = tool([a.seq] + (['--cpu'] if cpu else []) + [anchor])
    lines = p.stdout.splitlines()
    length = float(lines[-1].split()[1]) if lines and lines[-1].startswith('length') else -1
    return '\n'.join(lines[:-1]), length


def anchor_properties(anchor):
    """the OTF2 archive's properties (otf2-print -I), without OTF2's own"""
    p = tool(['otf2-print', '-I', anchor])
    props, name = {}, None
    for line in p.stdout.splitlines():
        if line.startswith('Property name'):
            name = line.split(None, 2)[2].strip() if len(line.split(None, 2)) > 2 else ''
        elif line.startswith('Property value') and name is not None:
            parts = line.split(None, 2)
            if not name.startswith('OTF2::'):
                props[name] = parts[2].strip() if len(parts) > 2 else ''
            name = None
    return props


def info_properties(d):
    return {k[len('property '):]: v for k, v in d.items() if k.startswith('property ')}


def squeeze_polls(text):
    """runs of unsuccessful MPI_Test calls as one (their number is statistical)"""
    out = []
    for line in text.splitlines():
        if out[-2:] == ['ENTER MPI_Test', 'LEAVE MPI_Test'] and line == 'ENTER MPI_Test':
            out.pop()
            out.pop()
        out.append(line)
    return '\n'.join(out)


def first_difference(x, y):
    xl, yl = x.splitlines(), y.splitlines()
    for i, (p, q) in enumerate(zip(xl, yl)):
        if p != q:
            return f'line {i + 1}: {p!r} vs {q!r}'
    return f'lengths {len(xl)} vs {len(yl)}'


def dir_size(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            total += os.path.getsize(os.path.join(root, f))
    return total


def otf2_size(expdir):
    return (os.path.getsize(os.path.join(expdir, 'traces.otf2'))
            + os.path.getsize(os.path.join(expdir, 'traces.def'))
            + dir_size(os.path.join(expdir, 'traces')))


def lossless(a, tmp, expdir, polls=False, label=''):
    """the compressed trace of a `both` run against its OTF2 trace"""
    kct = os.path.join(expdir, 'traces.kct')
    # the CPU samples (format version 4; where ranks outnumber cores) come back as recorded, at
    # the same events, where every rank keeps times of its own (the others replay a mean)
    d = info(a, kct)
    cpu = not polls and d.get('ranks with times of their own', '').startswith(d.get('ranks', '-') + ';')
    original, length = seq(a, os.path.join(expdir, 'traces.otf2'), cpu)
    if cpu:
        print(f'{label}: the CPU samples compared too: {original.count(chr(10) + "METRIC ")}')
    if cpu and 'CPU samples' in d:
        n = original.count('\nMETRIC ')
        expect(d['CPU samples'].startswith(f'{n} of '),
               f'{label}: the OTF2 trace has {n} CPU samples, the compressed one {d["CPU samples"]}')
    out = os.path.join(tmp, 'expanded-' + label)
    tool([a.trace, 'expand', kct, '-o', out])
    expanded, elength = seq(a, os.path.join(out, 'traces.otf2'), cpu)
    if polls:
        original, expanded = squeeze_polls(original), squeeze_polls(expanded)
    expect(original == expanded,
           f'{label}: expanded MPI call sequence differs: {first_difference(original, expanded)}')
    expect(length > 0 and abs(elength - length) <= 0.05 * length,
           f'{label}: expanded run length {elength:.4f} s, recorded {length:.4f} s')
    # the iterator alone (what kubus-sim consumes)
    p = tool([a.replay, kct])
    m = re.search(r'^length (\S+)', p.stdout, re.M)
    rlength = float(m.group(1)) if m else -1
    expect(abs(rlength - length) <= 0.05 * length,
           f'{label}: replayed run length {rlength:.4f} s, recorded {length:.4f} s')
    # the same compression offline, from the OTF2 trace
    off = os.path.join(tmp, 'offline-' + label + '.kct')
    tool([a.trace, 'compress', expdir, '-o', off])
    doff = info(a, off)
    made = doff.get('made by')
    expect(made == 'compression of an OTF2 trace', f'{label}: compressed offline, made by {made}')
    # the archive's properties (the MPI library's eager limits, the clocks) go along, and come
    # back with the expansion
    props = anchor_properties(os.path.join(expdir, 'traces.otf2'))
    expect(props and info_properties(doff) == props,
           f'{label}: properties of the OTF2 trace {props}, of its compression {info_properties(doff)}')
    out2 = os.path.join(tmp, 'offline-' + label)
    tool([a.trace, 'expand', off, '-o', out2])
    back = anchor_properties(os.path.join(out2, 'traces.otf2'))
    expect(back == props, f'{label}: properties after the expansion {back}, before {props}')
    offline, _ = seq(a, os.path.join(out2, 'traces.otf2'), cpu)
    if polls:
        offline = squeeze_polls(offline)
    expect(original == offline,
           f'{label}: offline compression not lossless: {first_difference(original, offline)}')
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(out2, ignore_errors=True)
    return length


def case_scale(a, tmp):
    ranks = a.ranks
    if os.environ.get('KUBUS_SANITIZED'):
        ranks = [n for n in ranks if n <= 16]
    sizes = {}
    for n in ranks:
        exp = os.path.join(tmp, f'run{n}')
        if not kubus_run(a, exp, n, 'both'):
            return
        kct = os.path.join(exp, 'traces.kct')
        if not expect(os.path.exists(kct), f'{n} ranks: no traces.kct'):
            return
        d = info(a, kct)
        expect(d.get('ranks') == str(n), f'{n} ranks: info says {d.get("ranks")}')
        expect(d.get('made by') == 'the collector, during the run', f'{n} ranks: made by {d.get("made by")}')
        sizes[n] = (os.path.getsize(kct), otf2_size(exp), d.get('rank groups'))
        expect(d.get('OTF2 size (measured, same run)') == f'{sizes[n][1]} bytes',
               f'{n} ranks: info OTF2 size {d.get("OTF2 size (measured, same run)")}, '
               f'files {sizes[n][1]}')
        est = int(d.get('OTF2 size (estimated)', '0 bytes').split()[0])
        print(f'{n} ranks: OTF2 {sizes[n][1]} bytes, estimated {est} ({100 * (est / sizes[n][1] - 1):+.1f} %), '
              f'{d.get("CPU samples", "no CPU samples")}')
        expect(abs(est - sizes[n][1]) <= 0.25 * sizes[n][1],
               f'{n} ranks: OTF2 estimate {est}, real {sizes[n][1]}')
        lossless(a, tmp, exp, label=f'{n} ranks')
        if n > 16 or not a.extrapolate:
            shutil.rmtree(exp, ignore_errors=True)
    name = os.path.basename(a.app)
    print(f'{name}: ranks, compressed bytes, OTF2 bytes, rank groups')
    for n in ranks:
        print(f'  {n} {sizes[n][0]} {sizes[n][1]} {sizes[n][2]}')
    big = max(ranks)
    if 16 in sizes and big > 16:
        # the OTF2 trace grows at least 3/4 as fast as the ranks (x3 at 64, x1.5 at 32); the
        # compressed trace at most x1.3 to 64 ranks (the all-to-all: x1.04-1.19) and x1.35 to 32
        # (the all-to-all: x1.08-1.24 in 9 runs at a load of 18-74, the timings vary): one whose
        # size grows with the ranks doubles from 16 to 32
        kg = sizes[big][0] / sizes[16][0]
        og = sizes[big][1] / sizes[16][1]
        klimit = 1.3 if big >= 64 else 1.35
        olimit = 0.75 * big / 16
        print(f'  16 -> {big}: compressed x{kg:.2f}, OTF2 x{og:.2f}')
        expect(kg <= klimit, f'compressed trace grows x{kg:.2f} from 16 to {big} ranks '
                             f'(limit {klimit:.2f})')
        expect(og >= olimit, f'OTF2 trace grows only x{og:.2f} from 16 to {big} ranks '
                             f'(at least {olimit:.2f})')
        table = os.environ.get('KCT_TABLE')
        if table:
            with open(table, 'a', encoding='utf-8') as f:
                row = ' | '.join(f'{sizes[n][0]} / {sizes[n][1]}' for n in ranks)
                f.write(f'| {name} | {row} | {kg:.2f} | {og:.2f} |\n')
    if a.extrapolate and not os.environ.get('KUBUS_SANITIZED'):
        extrapolate (a, tmp, [n for n in ranks if n <= 16], a.extrapolate)


def extrapolate(a, tmp, small, big):
    inputs = [os.path.join(tmp, f'run{n}', 'traces.kct') for n in small]
    exp = os.path.join(tmp, f'run{big}')
    if not kubus_run(a, exp, big, 'compressed'):
        return
    inputs.append(os.path.join(exp, 'traces.kct'))
    out = os.path.join(tmp, f'extrapolated{big}.kct')
    tool([a.trace, 'extrapolate', *inputs[:-1], '--ranks', str(big), '-o', out])
    if not os.path.exists(out):
        return
    got, real = info(a, out), info(a, inputs[-1])
    expect(got.get('made by') == 'extrapolation from traces at fewer ranks', f'extrapolated: made by {got.get("made by")}')
    expect(got.get('ranks') == real.get('ranks') == str(big),
           f'locations: extrapolated {got.get("ranks")}, real {real.get("ranks")}')
    expect(got['calls'] == real['calls'],
           f'calls per function: extrapolated {got["calls"]}\nreal {real["calls"]}')
    expect(got.get('rank groups') == real.get('rank groups'),
           f'rank groups: extrapolated {got.get("rank groups")}, real {real.get("rank groups")}')
    # the result expands to a trace the analyzer reads
    exp = os.path.join(tmp, 'expanded')
    tool([a.trace, 'expand', out, '-o', exp])
    p = tool([a.analyze, '--serial', exp])
    expect(os.path.exists(os.path.join(exp, 'analysis.cube')),
           f'no analysis of the extrapolated trace: {p.stderr[-2000:]}')
    # a grid that does not fit the rank count is refused
    p = tool([a.trace, 'extrapolate', *inputs[:-1], '--ranks', str(big), '--dims', '5x5',
              '-o', out + '.bad'], ok=False)
    expect(p.returncode == 1 and 'dims' in p.stderr, f'--dims 5x5 for {big}: {p.stderr}')


def check_other_runs(a, tmp, good_dir):
    """info --check compares a compressed trace with the OTF2 trace of the same run only: one of
    another rank count, or whose ranks' events differ (a shorter run of the same program), is
    refused with the reason (both gave figures and exit status 0 before, 2026-12-02)."""
    kct = os.path.join(good_dir, 'traces.kct')
    same = os.path.join(tmp, 'good-expanded')
    tool([a.trace, 'expand', kct, '-o', same])
    p = tool([a.trace, 'info', '--check', same, kct])
    expect('events compared:' in p.stdout and 'not the same run' not in p.stderr,
           f'--check against its own expansion: {p.stdout[-1500:]} {p.stderr[-1000:]}')
    v5 = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fuzz', 'seeds', 'kct',
                      'ring-3-cpu5.kct')
    p = tool([a.trace, 'info', '--check', same, v5], ok=False)
    expect(p.returncode == 1 and 'holds 2 ranks' in p.stderr and 'ring-3-cpu5.kct 3: not the same run' in p.stderr,
           f'--check of 3 ranks against 2: exit {p.returncode}, {p.stderr[-1000:]}')
    shorter = os.path.join(tmp, 'shorter')
    args, a.app_args = a.app_args, ['5']
    try:
        if not kubus_run(a, shorter, 2, 'both'):
            return
    finally:
        a.app_args = args
    p = tool([a.trace, 'info', '--check', shorter, kct], ok=False)
    expect(p.returncode == 1 and 'differ between' in p.stderr and 'not the same run' in p.stderr,
           f'--check against a shorter run: exit {p.returncode}, {p.stderr[-1000:]}')
    shutil.rmtree(same, ignore_errors=True)


def case_irregular(a, tmp):
    n = a.ranks[0]
    exp = os.path.join(tmp, 'run')
    if not kubus_run(a, exp, n, 'both'):
        return
    lossless(a, tmp, exp, polls=True, label='irregular')
    kct = os.path.join(exp, 'traces.kct')
    d = info(a, kct)
    ratio = otf2_size(exp) / os.path.getsize(kct)
    print(f'irregular: {os.path.getsize(kct)} bytes compressed, {otf2_size(exp)} OTF2, '
          f'ratio {ratio:.2f}, info: {d.get("compression ratio")}')
    expect(abs(float(d.get('compression ratio', '0')) - ratio) < 0.06,
           f'info reports ratio {d.get("compression ratio")}, files give {ratio:.2f}')


def case_nbc(a, tmp):
    """collect-more on 4 ranks: every non-blocking collective kind and completion form (MPI_Wait,
    MPI_Waitall, MPI_Waitany, MPI_Testall, an MPI_Test loop, a freed request)"""
    counts = os.path.join(tmp, 'counts')
    os.mkdir(counts)
    a.app_args = [counts] + a.app_args
    exp = os.path.join(tmp, 'run')
    if not kubus_run(a, exp, 4, 'both'):
        return
    text, _ = seq(a, os.path.join(exp, 'traces.otf2'))
    n_req, n_done = text.count('\nNBCREQUEST '), text.count('\nNBCCOMPLETE ')
    print(f'nbc: {n_req} requests, {n_done} completions in the OTF2 trace')
    expect(n_req == 4 * 9 and n_done == 4 * 8, f'nbc: {n_req} requests, {n_done} completions')
    # their requests, completions (op, communicator, root, bytes, which request) as recorded,
    # from the collector's compressed trace and from the offline compression of the OTF2 trace
    lossless(a, tmp, exp, polls=True, label='nbc')
    d = info(a, os.path.join(exp, 'traces.kct'))
    expect(any(k.startswith('MPI_Iallreduce') for k in d.get('calls', {})), f'nbc: info {d}')


def case_nbcextrapolate(a, tmp):
    """sim-lb-nbc (Iallreduce + Wait) at small rank counts extrapolated to --extrapolate ranks: the
    calls, groups and non-blocking collectives' events per rank of a real run at that count"""
    for n in a.ranks:
        if not kubus_run(a, os.path.join(tmp, f'run{n}'), n, 'compressed'):
            return
    big = a.extrapolate
    extrapolate(a, tmp, a.ranks, big)

    def nbc_lines(kct, label):
        out = os.path.join(tmp, 'nbc-' + label)
        tool([a.trace, 'expand', kct, '-o', out])
        text, _ = seq(a, os.path.join(out, 'traces.otf2'))
        return [line for line in text.splitlines() if line.startswith(('== rank', 'NBC'))]
    got = nbc_lines(os.path.join(tmp, f'extrapolated{big}.kct'), 'extrapolated')
    real = nbc_lines(os.path.join(tmp, f'run{big}', 'traces.kct'), 'real')
    n_nbc = sum(1 for line in real if line.startswith('NBCCOMPLETE'))
    print(f'nbcextrapolate: {n_nbc} completions at {big} ranks')
    expect(n_nbc >= big and got == real,
           f'extrapolated non-blocking collectives differ from the real run\'s: '
           f'{first_difference(chr(10).join(got), chr(10).join(real))}')


def case_compressed(a, tmp):
    n = a.ranks[0]
    exp = os.path.join(tmp, 'run')
    if not kubus_run(a, exp, n, 'compressed'):
        return
    names = sorted(os.listdir(exp))
    expect(names == ['kubus.json', 'profile.cube', 'traces.kct'], f'experiment holds {names}')
    with open(os.path.join(exp, 'kubus.json'), encoding='utf-8') as f:
        j = json.load(f)
    expect(j.get('trace') == 'traces.kct', f'kubus.json trace: {j.get("trace")}')
    expect(j.get('options', {}).get('trace_format') == 'compressed', f'kubus.json: {j}')
    d = info(a, os.path.join(exp, 'traces.kct'))
    # the profile of the same run counts the calls the compressed trace holds
    p = tool([a.cube, 'info', os.path.join(exp, 'profile.cube')])
    m = re.search(r'^total visits: (\d+)', p.stdout, re.M)
    expect(m is not None and int(m.group(1)) == sum(d['calls'].values()) > 0,
           f'profile visits {m.group(1) if m else None}, compressed trace calls {d["calls"]}')
    expect(d.get('OTF2 size (estimated)', '').endswith('bytes')
           and 'OTF2 size (measured, same run)' not in d, f'info: {d}')
    # the MPI library's eager limit (MPI_T; Open MPI's shared memory transport has one), as the
    # OTF2 trace has it, and back in the expansion, where kubus-sim's offline model reads it
    limit = d.get('property KUBUS::EAGER_LIMIT_SAME_HOST', '')
    expect(limit.isdigit() and int(limit) > 0, f'no eager limit in the compressed trace: {d}')
    out = os.path.join(tmp, 'expanded')
    tool([a.trace, 'expand', os.path.join(exp, 'traces.kct'), '-o', out])
    text, length = seq(a, os.path.join(out, 'traces.otf2'))
    props = anchor_properties(os.path.join(out, 'traces.otf2'))
    expect(props.get('KUBUS::EAGER_LIMIT_SAME_HOST') == limit, f'expanded trace: properties {props}')
    for r in range(n):
        expect(text.count(f'== rank {r}\n') == 1, f'expanded trace lacks rank {r}')
    expect(text.count('ENTER MPI_Waitall') == 10 * n, 'expanded trace: MPI_Waitall count')
    p = tool([a.analyze, '--serial', out])
    expect(os.path.exists(os.path.join(out, 'analysis.cube')),
           f'kubus-analyze on the expanded trace: {p.stderr[-2000:]}')
    # the analysis report names the library's limit too
    cube_text = open(os.path.join(out, 'analysis.cube'), encoding='utf-8').read()
    expect(f'<attr key="kubus::eager_limit_same_host" value="{limit}"/>' in cube_text,
           f'analysis report without the eager limit {limit}')
    # the definitions alone (for a reader that replays the events): the same locations with
    # the same event counts as the expansion
    defs = os.path.join(tmp, 'defs')
    tool([a.replay, os.path.join(exp, 'traces.kct'), '--defs', defs])

    def locations(anchor):
        p = tool(['otf2-print', '-G', anchor])
        return re.findall(r'^LOCATION\s+(\d+).*# Events: (\d+)', p.stdout, re.M)
    full, only = locations(os.path.join(out, 'traces.otf2')), locations(os.path.join(defs, 'traces.otf2'))
    expect(len(full) == n and full == only, f'definitions-only locations {only}, expanded {full}')
    expect(not os.listdir(os.path.join(defs, 'traces')) or
           all(f.endswith('.def') for f in os.listdir(os.path.join(defs, 'traces'))),
           'definitions-only archive has event files')
    # a rank whose compressed trace fails (test hook): exit 3, and kubus-run says the collector
    # could not complete the trace, not that the program may not have called MPI_Init (HDF5's
    # lost trace, second sweep of 2026-11-29)
    env = env_for_mpi()
    env['KUBUS_TEST_KCT_FAIL_RANK'] = str(n - 1)
    p = run([a.run, '-o', os.path.join(tmp, 'failed'), '--trace-format', 'compressed', '--', 'mpirun',
             '-n', str(n), '--oversubscribe', a.app, *a.app_args], env=env, timeout=600)
    expect(p.returncode == 3 and 'the collector could not complete it' in p.stderr
           and 'MPI_Init' not in p.stderr and not os.path.exists(os.path.join(tmp, 'failed', 'traces.kct')),
           f'a failed compressed trace: exit {p.returncode}\n{p.stderr[-2000:]}')
    # kubus.json names only what is there and says why the trace is not, and the readers say so
    # (it named traces.kct until 2026-11-29, and kubus-analyze spoke of a missing OTF2 anchor)
    failed = os.path.join(tmp, 'failed')
    with open(os.path.join(failed, 'kubus.json'), encoding='utf-8') as f:
        j = json.load(f)
    expect(j.get('trace', 'absent') is None and j.get('profile') == 'profile.cube'
           and j.get('not_written') == {'traces.kct': 'collector-incomplete'}
           and 'end_time' in j and sorted(os.listdir(failed)) == ['kubus.json', 'profile.cube'],
           f'kubus.json of a failed compressed trace: {j}, folder {sorted(os.listdir(failed))}')
    hyp = os.path.join(tmp, 'empty.hyp')
    open(hyp, 'w').close()
    for cmd in ([a.analyze, '--serial', failed], [a.trace, 'info', failed], [a.sim, failed, '-H', hyp]):
        p = run(cmd, env=env_for_mpi())
        expect(p.returncode == 1 and f'{failed}: ' in p.stderr
               and 'the run wrote no trace traces.kct: the collector could not complete it' in p.stderr
               and 'anchor' not in p.stderr,
               f'{os.path.basename(cmd[0])} on an experiment whose trace was not written: exit '
               f'{p.returncode}\n{p.stderr[-2000:]}')
    # an experiment of an older kubus-run, whose kubus.json names the trace that is not there
    j.pop('not_written')
    j['trace'] = 'traces.kct'
    with open(os.path.join(failed, 'kubus.json'), 'w', encoding='utf-8') as f:
        json.dump(j, f)
    p = run([a.analyze, '--serial', failed], env=env_for_mpi())
    expect(p.returncode == 1 and 'kubus.json names the trace traces.kct, but it is not in the folder' in p.stderr,
           f'kubus-analyze on an old experiment without its trace: exit {p.returncode}\n{p.stderr[-2000:]}')
    # a bad format is refused before anything runs
    p = run([a.run, '-o', os.path.join(tmp, 'x'), '--trace-format', 'zip', '--', 'mpirun',
             '-n', '1', a.app], env=env_for_mpi())
    expect(p.returncode == 2 and 'zip' in p.stderr, f'--trace-format zip: {p.returncode} {p.stderr}')
    expect(not os.path.exists(os.path.join(tmp, 'x')), '--trace-format zip made a directory')
    # --no-trace writes no trace: a compressed or both format with it is refused, either order
    for args in (['--no-trace', '--trace-format', 'compressed'], ['--trace-format=both', '--no-trace']):
        p = run([a.run, '-o', os.path.join(tmp, 'y'), *args, '--', 'mpirun', '-n', '1', a.app],
                env=env_for_mpi())
        expect(p.returncode == 2 and '--no-trace' in p.stderr and len(p.stderr.splitlines()) == 1,
               f'{" ".join(args)}: exit {p.returncode} {p.stderr}')
        expect(not os.path.exists(os.path.join(tmp, 'y')), f'{" ".join(args)} made a directory')


def case_abort(a, tmp):
    def aborted(exp, fmt, mpi_opts=()):
        cmd = [a.run, '-o', exp, '--trace-format', fmt, '--', 'mpirun', '-n', '4',
               '--oversubscribe', *mpi_opts, a.app]
        p = run(cmd, env=env_for_mpi(), timeout=600)
        expect(p.returncode == 3, f'{" ".join(map(str, cmd))}: exit {p.returncode} (MPI_Abort\'s 3)\n'
                                  f'{p.stderr[-3000:]}')
        left = [f for f in os.listdir(exp) if f.startswith('.kubus-kct')]
        expect(not left, f'{fmt}: parts left behind: {left}')
        return p

    def totals(cube):
        p = tool([a.cube, 'info', cube])
        return {m.group(1): float(m.group(2))
                for m in re.finditer(r'^total (\S+): (\S+)', p.stdout, re.M)}

    exp = os.path.join(tmp, 'both')
    p = aborted(exp, 'both')
    expect('traces.kct merged from the parts 4 ranks saved' in p.stderr, f'both: {p.stderr[-2000:]}')
    if not expect(os.path.exists(os.path.join(exp, 'traces.kct')), 'both: no traces.kct'):
        return
    d = info(a, os.path.join(exp, 'traces.kct'))
    expect(d.get('ranks') == '4', f'both: info says {d.get("ranks")} ranks')
    lossless(a, tmp, exp, label='abort')
    t_otf2, t_kct = (totals(os.path.join(tmp, f'{x}.cube')) if tool(
        [a.analyze, '--serial', '-q', os.path.join(exp, f'traces.{x}'), '-o',
         os.path.join(tmp, f'{x}.cube')]).returncode == 0 else {} for x in ('otf2', 'kct'))
    expect(t_otf2.get('visits', -1) == t_kct.get('visits', -2) > 0,
           f'visits: OTF2 {t_otf2.get("visits")}, compressed {t_kct.get("visits")}')
    expect(abs(t_otf2.get('time', 0) - t_kct.get('time', 1)) <= 0.01 * t_otf2.get('time', 0),
           f'total time: OTF2 {t_otf2.get("time")}, compressed {t_kct.get("time")}')

    exp = os.path.join(tmp, 'killed')
    p = aborted(exp, 'compressed', ['-x', 'KUBUS_TEST_KCT_KILLED=1'])
    expect('traces.kct merged from the parts 1 ranks saved' in p.stderr
           and '3 ranks saved no compressed trace' in p.stderr, f'killed: {p.stderr[-2000:]}')
    if not expect(os.path.exists(os.path.join(exp, 'traces.kct')), 'killed: no traces.kct'):
        return
    d = info(a, os.path.join(exp, 'traces.kct'))
    expect(d.get('ranks') == '4', f'killed: info says {d.get("ranks")} ranks')
    out = os.path.join(tmp, 'killed-expanded')
    tool([a.trace, 'expand', os.path.join(exp, 'traces.kct'), '-o', out])
    text, _ = seq(a, os.path.join(out, 'traces.otf2'))
    ranks = text.split('== rank ')[1:]
    expect(len(ranks) == 4, f'killed: expanded ranks {len(ranks)}')
    for r, body in enumerate(ranks):
        events = body.splitlines()[1:]
        if r == 1:
            expect(events.count('ENTER MPI_Sendrecv') == 20 and 'ENTER MPI_Abort' in events,
                   f'killed: rank 1 has {len(events)} events')
        else:
            expect(not events, f'killed: rank {r} (no part) has events: {events[:5]}')
    tool([a.analyze, '--serial', '-q', exp, '-o', os.path.join(tmp, 'killed.cube')])
    expect(os.path.exists(os.path.join(tmp, 'killed.cube')), 'killed: no analysis')


def case_badinput(a, tmp):
    good_dir = os.path.join(tmp, 'good')
    if not kubus_run(a, good_dir, 2, 'compressed'):
        return
    check_other_runs(a, tmp, good_dir)
    p = tool([a.trace, 'expand', os.path.join(good_dir, 'traces.kct'), '-o', ''], ok=False)
    expect(p.returncode == 2 and 'kubus-trace: the output name given with -o is empty' in p.stderr,
           f"expand -o '': exit {p.returncode}, {p.stderr!r}")
    good = open(os.path.join(good_dir, 'traces.kct'), 'rb').read()
    cases = {
        'empty.kct': b'',
        'text.kct': b'hello world, not a trace\n',
        'truncated.kct': good[:len(good) // 2],
        'flipped.kct': good[:60] + bytes([good[60] ^ 0x55]) + good[61:],
        'version.kct': good[:8] + b'\x07' + good[9:],
        'tail.kct': good + b'junk',
    }
    for name, data in cases.items():
        path = os.path.join(tmp, name)
        with open(path, 'wb') as f:
            f.write(data)
        for cmd in (['info', path], ['expand', path, '-o', path + '.out']):
            p = tool([a.trace, *cmd], ok=False)
            expect(p.returncode == 1, f'{" ".join(cmd)}: exit {p.returncode} {p.stderr}')
            expect(path in p.stderr and len(p.stderr.splitlines()) == 1,
                   f'{" ".join(cmd)}: message should name the file in one line: {p.stderr!r}')
            expect(not os.path.exists(path + '.out'), f'{name}: expand left output')
    # a file of an earlier format version: refused, naming its version and ours
    old = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'version1.kct')
    for cmd in (['info', old], ['expand', old, '-o', os.path.join(tmp, 'v1.out')]):
        p = tool([a.trace, *cmd], ok=False)
        expect(p.returncode == 1 and old in p.stderr
               and 'format version 1, older than this Kubus reads (versions 2 to 5)' in p.stderr,
               f'{" ".join(cmd)}: {p.returncode} {p.stderr!r}')
    # a newer one: refused, saying so
    p = tool([a.trace, 'info', os.path.join(tmp, 'version.kct')], ok=False)
    expect(p.returncode == 1 and 'format version 7, newer than this Kubus reads' in p.stderr,
           f'info of version 7: {p.stderr!r}')
    # a version 2 file (before non-blocking collectives; tests/fuzz/seeds/kct/ring-3.kct) is read
    v2 = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fuzz', 'seeds', 'kct',
                      'ring-3.kct')
    with open(v2, 'rb') as f:
        expect(f.read(12)[8:] == b'\x02\0\0\0', f'{v2} is no version 2 file')
    tool([a.trace, 'info', v2])
    tool([a.trace, 'expand', v2, '-o', os.path.join(tmp, 'v2.out')])
    expect(os.path.exists(os.path.join(tmp, 'v2.out', 'traces.otf2')), 'version 2 not expanded')
    # a version 3 file (before CPU samples; tests/fuzz/seeds/kct/nonblocking-3.kct) is read
    v3 = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fuzz', 'seeds', 'kct',
                      'nonblocking-3.kct')
    with open(v3, 'rb') as f:
        expect(f.read(12)[8:] == b'\x03\0\0\0', f'{v3} is no version 3 file')
    expect('CPU samples' not in info(a, v3), f'{v3}: CPU samples in a version 3 file')
    tool([a.trace, 'expand', v3, '-o', os.path.join(tmp, 'v3.out')])
    # a version 4 file with CPU samples (3 ranks on 2 cores; tests/fuzz/seeds/kct/ring-3-cpu.kct):
    # info counts them, expand writes them as Metric events with the host's CPUs
    v4 = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fuzz', 'seeds', 'kct',
                      'ring-3-cpu.kct')
    d = info(a, v4)
    expect(d.get('CPU samples') == '57 of 3 ranks in 376 bytes', f'{v4}: CPU samples {d.get("CPU samples")}')
    expect(d.get('CPU samples name the CPU each rank ran on') == 'no', f'{v4}: CPU ids {d}')
    expect(d.get('host vm', '').startswith('3 ranks on 2 CPUs; other programs took'),
           f'{v4}: host {d.get("host vm")}')
    tool([a.trace, 'expand', v4, '-o', os.path.join(tmp, 'v4.out')])
    text, _ = seq(a, os.path.join(tmp, 'v4.out', 'traces.otf2'), cpu=True)
    metrics = [line for line in text.splitlines() if line.startswith('METRIC ')]
    expect(len(metrics) == 57 and all(len(m.split()) == 3 for m in metrics),
           f'{v4}: expanded {len(metrics)} CPU samples: {metrics[:3]}')
    # a version 5 file (tests/fuzz/seeds/kct/ring-3-cpu5.kct, 3 ranks on 2 cores): the samples
    # with the CPUs they ran on (the metric's third member KUBUS_CPU_ID), kept by kubus-trace
    # compress of the expansion too
    v5 = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fuzz', 'seeds', 'kct',
                      'ring-3-cpu5.kct')
    with open(v5, 'rb') as f:
        expect(f.read(12)[8:] == b'\x05\0\0\0', f'{v5} is no version 5 file')
    d = info(a, v5)
    expect(d.get('CPU samples') == '93 of 3 ranks in 721 bytes', f'{v5}: CPU samples {d.get("CPU samples")}')
    expect(d.get('CPU samples name the CPU each rank ran on') == 'yes', f'{v5}: CPU ids {d}')
    tool([a.trace, 'expand', v5, '-o', os.path.join(tmp, 'v5.out')])
    text, _ = seq(a, os.path.join(tmp, 'v5.out', 'traces.otf2'), cpu=True)
    metrics = [line.split() for line in text.splitlines() if line.startswith('METRIC ')]
    ids = sorted({m[3] for m in metrics if len(m) == 4})
    expect(len(metrics) == 93 and all(len(m) == 4 for m in metrics) and ids == ['0', '1'],
           f'{v5}: expanded {len(metrics)} CPU samples, CPUs {ids}: {metrics[:3]}')
    tool([a.trace, 'compress', os.path.join(tmp, 'v5.out'), '-o', os.path.join(tmp, 'v5.kct')])
    tool([a.trace, 'expand', os.path.join(tmp, 'v5.kct'), '-o', os.path.join(tmp, 'v5.again')])
    again, _ = seq(a, os.path.join(tmp, 'v5.again', 'traces.otf2'), cpu=True)
    expect(again == text, f'{v5}: compressed again: {first_difference(text, again)}')
    shutil.rmtree(os.path.join(tmp, 'v5.again'), ignore_errors=True)
    # the same with the optional section PROP (tests/fuzz/seeds/kct/ring-3-props.kct): its
    # properties in info, and in the expanded OTF2 archive
    withprops = os.path.join(os.path.dirname(v5), 'ring-3-props.kct')
    d = info(a, withprops)
    expect(info_properties(d) == {'KUBUS::EAGER_LIMIT_SAME_HOST': '4096', 'KUBUS::EAGER_LIMIT_BETWEEN_HOSTS': '65536',
                                  'KUBUS::CLOCK_SOURCE': 'TSC'}, f'{withprops}: {d}')
    tool([a.trace, 'expand', withprops, '-o', os.path.join(tmp, 'props.out')])
    props = anchor_properties(os.path.join(tmp, 'props.out', 'traces.otf2'))
    expect(props == info_properties(d), f'{withprops} expanded: properties {props}')
    shutil.rmtree(os.path.join(tmp, 'props.out'), ignore_errors=True)
    expect(not os.path.exists(os.path.join(tmp, 'v1.out')), 'expand of a version 1 file left output')
    p = tool([a.analyze, '-q', '--serial', old, '-o', os.path.join(tmp, 'v1.cube')], ok=False)
    expect(p.returncode == 1 and 'format version 1' in p.stderr, f'analyze of version 1: {p.stderr!r}')
    p = tool([a.trace, 'info', os.path.join(tmp, 'missing.kct')], ok=False)
    expect(p.returncode == 1 and 'missing.kct' in p.stderr, f'missing file: {p.stderr}')
    # an existing output directory is not replaced without --force
    out = os.path.join(tmp, 'exists')
    os.mkdir(out)
    with open(os.path.join(out, 'keep'), 'w', encoding='utf-8') as f:
        f.write('x')
    p = tool([a.trace, 'expand', os.path.join(good_dir, 'traces.kct'), '-o', out], ok=False)
    expect(p.returncode == 1 and '--force' in p.stderr, f'existing output: {p.stderr}')
    expect(os.listdir(out) == ['keep'], 'existing output was touched')
    tool([a.trace, 'expand', os.path.join(good_dir, 'traces.kct'), '-o', out, '--force'])
    expect(os.path.exists(os.path.join(out, 'traces.otf2')), '--force did not expand')
    expect(not [n for n in os.listdir(tmp) if '.tmp-' in n], 'temporary directories left')
    # not an OTF2 trace, extrapolation with one input, unknown subcommand
    p = tool([a.trace, 'compress', os.path.join(tmp, 'text.kct'), '-o', os.path.join(tmp, 'c.kct')],
             ok=False)
    expect(p.returncode == 1 and 'text.kct' in p.stderr, f'compress of text: {p.stderr}')
    expect(not os.path.exists(os.path.join(tmp, 'c.kct')), 'compress of text left output')
    p = tool([a.trace, 'extrapolate', os.path.join(good_dir, 'traces.kct'), '--ranks', '8',
              '-o', os.path.join(tmp, 'e.kct')], ok=False)
    expect(p.returncode == 2, f'extrapolate with one input: {p.returncode}')
    p = tool([a.trace, 'extrapolate', os.path.join(good_dir, 'traces.kct'),
              os.path.join(good_dir, 'traces.kct'), '--ranks', '8', '-o',
              os.path.join(tmp, 'e.kct')], ok=False)
    expect(p.returncode == 1 and 'same number of ranks' in p.stderr, f'same inputs: {p.stderr}')
    p = tool([a.trace, 'frobnicate', 'x'], ok=False)
    expect(p.returncode == 2, 'unknown subcommand')
    # an experiment folder stands for its traces.kct; one with only an OTF2 trace, or that trace
    # itself, gets the command that compresses it
    p = tool([a.trace, 'info', good_dir])
    expect(p.stdout.startswith('file: %s\n' % os.path.join(good_dir, 'traces.kct')), f'info of a folder: {p.stdout[:200]!r}')
    otf2_dir = os.path.join(tmp, 'otf2-only')
    os.mkdir(otf2_dir)
    with open(os.path.join(otf2_dir, 'traces.otf2'), 'wb') as f:
        f.write(b'x')
    os.mkdir(os.path.join(otf2_dir, 'empty'))
    for arg, want in ((otf2_dir, '%s holds an OTF2 trace and no compressed one (traces.kct): '
                                 '“kubus-trace compress %s” makes it' % (otf2_dir, otf2_dir)),
                      (os.path.join(otf2_dir, 'traces.otf2'),
                       '%s is an OTF2 trace, not a compressed one: “kubus-trace compress %s” makes a compressed '
                       'trace of it' % ((os.path.join(otf2_dir, 'traces.otf2'),) * 2)),
                      (otf2_dir + '/empty', '%s is a folder without a compressed trace (traces.kct)' % (otf2_dir + '/empty'))):
        for cmd in (['info', arg], ['expand', arg, '-o', os.path.join(tmp, 'x.out')]):
            p = tool([a.trace, *cmd], ok=False)
            expect(p.returncode == 1 and p.stderr == 'kubus-trace: %s\n' % want,
                   f'{" ".join(cmd)}: {p.returncode} {p.stderr!r}')
    expect(not os.path.exists(os.path.join(tmp, 'x.out')), 'expand of an OTF2 trace left output')


def case_sim(a, tmp):
    n = a.ranks[0]
    if os.environ.get('KUBUS_SANITIZED'):
        n = min(n, 4)
    exp = os.path.join(tmp, 'run')
    if not kubus_run(a, exp, n, 'compressed'):
        return
    recorded = float(info(a, os.path.join(exp, 'traces.kct'))['run length'].split()[0])
    hyp = os.path.join(tmp, 'same.hyp')
    with open(hyp, 'w', encoding='utf-8') as f:
        f.write('# the run as it was\n')
    # A real-time replay of 16 ranks on a shared 2-core machine can only be delayed by the
    # machine (never sped up): up to three replays, the first within 5 % counts (as the
    # simulator's own tests take the faster of their runs).
    for attempt in range(3):
        out = os.path.join(exp, 'sim-same')
        if os.path.exists(out):
            shutil.rmtree(out)
        p = tool([a.sim, exp, '--hypothesis', hyp, '-o', out, '-q'])
        summary = os.path.join(out, 'summary.json')
        if not expect(os.path.exists(summary), f'kubus-sim wrote no summary: {p.stderr[-2000:]}'):
            return
        with open(summary, encoding='utf-8') as f:
            s = json.load(f)
        err = abs(s['predicted_runtime_s'] - recorded) / recorded
        print(f'sim: recorded {recorded:.6f} s, original as replayed {s["original_runtime_s"]:.6f} s, '
              f'predicted {s["predicted_runtime_s"]:.6f} s ({100 * err:.2f} %)')
        if err <= 0.05:
            break
    expect(err <= 0.05, f'predicted run time {s["predicted_runtime_s"]:.4f} s, recorded {recorded:.4f} s')
    text, _ = seq(a, os.path.join(out, 'traces.otf2'))
    expect(all(f'== rank {r}\n' in text for r in range(n)), 'the simulated trace lacks ranks')
    # offline, the model knows the MPI library's eager limit from the compressed trace as from
    # an OTF2 one (the property PROP)
    limit = info(a, os.path.join(exp, 'traces.kct')).get('property KUBUS::EAGER_LIMIT_SAME_HOST', '')
    out = os.path.join(exp, 'sim-offline')
    tool([a.sim, exp, '--hypothesis', hyp, '-o', out, '-q', '--offline', '--no-identity'])
    with open(os.path.join(out, 'summary.json'), encoding='utf-8') as f:
        tr = json.load(f)['model']['transports'][0]
    expect(limit.isdigit() and tr.get('eager_limit_library') == int(limit),
           f'offline from the compressed trace: transport {tr}, the trace\'s limit {limit!r}')
    shutil.rmtree(out, ignore_errors=True)
    expect(not [x for x in os.listdir(exp) if x.startswith('.')], f'left behind: {os.listdir(exp)}')


def cube_totals(a, report):
    """metric -> sum over call paths and locations; (metric, cnode) -> sum over locations"""
    p = tool([a.cube, 'dump', '--csv', report])
    tot, per = {}, {}
    for line in p.stdout.splitlines()[1:]:
        m, c, _, v = line.split(',')
        tot[m] = tot.get(m, 0.0) + float(v)
        per[(m, c)] = per.get((m, c), 0.0) + float(v)
    return tot, per


def case_analyze(a, tmp):
    n = a.ranks[0]
    exp = os.path.join(tmp, 'run')
    if not kubus_run(a, exp, n, 'both'):
        return
    tool([a.analyze, '-q', exp])
    only = os.path.join(tmp, 'compressed-only')
    os.mkdir(only)
    shutil.copy(os.path.join(exp, 'traces.kct'), only)
    p = tool([a.analyze, '-q', '--parallel', only])     # relaunches itself under mpirun
    report = os.path.join(only, 'analysis.cube')
    if not expect(os.path.exists(report), f'no analysis of the compressed-only experiment: {p.stderr}'):
        return
    with open(os.path.join(only, 'analysis.stats.json'), encoding='utf-8') as f:
        named = json.load(f).get('trace')
    expect(named == os.path.join(os.path.realpath(only), 'traces.kct'), f'the report names {named}')
    left = sorted(os.listdir(only))
    expect(left == ['analysis.cube', 'analysis.stats.json', 'traces.kct'],
           f'the compressed-only experiment holds {left} after the analysis')
    ot, op = cube_totals(a, os.path.join(exp, 'analysis.cube'))
    kt, kp = cube_totals(a, report)
    visits = ot.get('visits', 0)
    expect(visits > 0 and all(kp.get((m, c)) == v for (m, c), v in op.items()
                              if m in ('visits', 'comms', 'bytes', 'syncs')),
           'visits, messages, bytes or synchronisations per call path differ')
    # every time within the bound (1 us or 2^-16 of the time since the rank's previous event):
    # the totals within 0.2 %, every call path's times within 2 %
    for m in ('time', 'comp', 'mpi'):
        expect(abs(kt.get(m, -1) - ot[m]) <= 2e-3 * ot[m],
               f'{m}: {kt.get(m)} s from the compressed trace, {ot[m]} s from the OTF2 trace')
    # a call's duration is the difference of two times, each within the bound: within 2 bounds
    absb, rel = bound_of(a, os.path.join(exp, 'traces.kct'))
    worst = (0.0, None)
    for m in ('mpi_point2point', 'mpi_sync_collective'):
        for (mm, c), v in op.items():
            if mm == m:
                calls = max(op.get(('visits', c), 1), 1)
                allowed = 2 * (absb * calls + rel * v) + 2e-2 * v
                d = abs(kp.get((m, c), -1) - v)
                worst = max(worst, (d / allowed, f'{m} at call path {c}: {d * 1e6:.1f} us of {v:.6f} s, '
                                                 f'{calls} calls'), key=lambda w: w[0])
                expect(d <= allowed, f'{m} at call path {c}: {kp.get((m, c))} s from the compressed '
                                     f'trace, {v} s from the OTF2 trace ({calls} calls)')
    print(f'largest call-path time difference: {100 * worst[0]:.1f} % of what is allowed ({worst[1]})')
    ls_o, ls_k = ot.get('mpi_latesender', 0), kt.get('mpi_latesender', 0)
    print(f'late sender: OTF2 {ls_o:.6f} s, compressed {ls_k:.6f} s; barrier wait '
          f'{ot.get("mpi_barrier_wait", 0):.6f} / {kt.get("mpi_barrier_wait", 0):.6f} s, completion '
          f'{ot.get("mpi_barrier_completion", 0):.6f} / {kt.get("mpi_barrier_completion", 0):.6f} s')
    expect(ls_o > 0.1, f'Late Sender {ls_o:.4f} s from the OTF2 trace: the program makes none')
    for m in ('mpi_latesender', 'mpi_barrier_wait', 'mpi_barrier_completion'):
        o, k = ot.get(m, 0), kt.get(m, 0)
        expect(abs(k - o) <= 0.02 * o + 1e-5,
               f'{m} {k:.6f} s from the compressed trace, {o:.6f} s from the OTF2 trace')
    # a FILE.kct, in serial mode, with the report named after it
    kfile = os.path.join(tmp, 'sweep.kct')
    shutil.copy(os.path.join(exp, 'traces.kct'), kfile)
    p = tool([os.path.abspath(a.analyze), '-q', '--serial', kfile], cwd=tmp)
    expect(os.path.exists(os.path.join(tmp, 'sweep.cube')), f'kubus-analyze sweep.kct: {p.stderr}')
    kt2, _ = cube_totals(a, os.path.join(tmp, 'sweep.cube'))
    expect(abs(kt2.get('mpi_latesender', -1) - ls_k) <= 1e-9 * max(ls_k, 1),
           f'serial analysis of the .kct: Late Sender {kt2.get("mpi_latesender")} s, '
           f'{ls_k} s under mpirun')
    expect(not [x for x in os.listdir(tmp) if x.startswith('.')], f'left behind: {os.listdir(tmp)}')
    # a corrupt compressed trace: exit 1, the file named, nothing written, nothing left
    bad = os.path.join(tmp, 'bad')
    os.mkdir(bad)
    with open(os.path.join(bad, 'traces.kct'), 'wb') as f:
        f.write(open(kfile, 'rb').read()[:100])
    p = tool([a.analyze, '-q', bad], ok=False)
    expect(p.returncode == 1 and 'traces.kct' in p.stderr, f'corrupt traces.kct: exit {p.returncode} {p.stderr}')
    expect(os.listdir(bad) == ['traces.kct'], f'corrupt traces.kct left {os.listdir(bad)}')


WAIT_STATES = ['mpi_init_completion', 'mpi_finalize_wait', 'mpi_barrier_wait',
               'mpi_barrier_completion', 'mpi_latesender', 'mpi_latesender_wo',
               'mpi_lswo_different', 'mpi_lswo_same', 'mpi_ls_wavefront_nw', 'mpi_ls_wavefront_sw',
               'mpi_ls_wavefront_ne', 'mpi_ls_wavefront_se', 'mpi_latereceiver', 'mpi_earlyreduce',
               'mpi_earlyscan', 'mpi_latebroadcast', 'mpi_wait_nxn', 'mpi_nxn_completion']


def bound_of(a, kct):
    """(absolute seconds, relative share) of `kubus-trace info`'s timing error bound"""
    line = info(a, kct).get('timing error bound', '')
    m = re.match(r'(\S+) (ns|µs|ms|s) or (\S+) %', line)
    if not expect(m is not None, f'info gives no timing error bound: {line!r}'):
        return 1e-6, 2.0 ** -16
    unit = {'ns': 1e-9, 'µs': 1e-6, 'ms': 1e-3, 's': 1.0}[m.group(2)]
    return float(m.group(1)) * unit, float(m.group(3)) / 100


# Late Sender's "wrong order" parts: whether a message was sent before another one from another
# rank is a question of the two sends' order, which the compressed trace keeps only to within its
# timing error bound (two sends 0.5 µs apart on two ranks can swap). A wait that moves between
# them and Late Sender proper is the same wait: they are held to Late Sender's total (checked
# with the others) instead of their own (kct-accuracy-ws-demo failed 1 run in 16 on it).
WRONG_ORDER = ('mpi_latesender_wo', 'mpi_lswo_different', 'mpi_lswo_same')


def compare_waits(a, otf2_cube, kct_cube, bound, label):
    """every wait state in total and at every call path holding >= 1 % of the time"""
    ot, op = cube_totals(a, otf2_cube)
    kt, kp = cube_totals(a, kct_cube)
    absb, rel = bound
    total = ot['time']

    def allowed(o, visits, time, m=None, parent=None):
        base = 0.02 * abs(o) + 2 * (absb * visits + rel * time)
        if m in WRONG_ORDER and parent is not None:
            return max(base, parent)
        return base
    worst = 0.0
    for m in WAIT_STATES:
        o, k = ot.get(m, 0.0), kt.get(m, 0.0)
        if o == 0 and k == 0:
            continue
        paths = {c for (mm, c), v in list(op.items()) + list(kp.items()) if mm == m and v != 0}
        visits = sum(op.get(('visits', c), 0) for c in paths)
        time = sum(op.get(('time', c), 0) for c in paths)
        expect(abs(k - o) <= allowed(o, visits, time, m, ot.get('mpi_latesender', 0.0)),
               f'{label}: {m} {k:.6f} s from the compressed trace, {o:.6f} s from the OTF2 trace')
        if o:
            worst = max(worst, abs(k - o) / o)
        print(f'  {m:28s} {o:12.6f} {k:12.6f} {100 * (k - o) / o if o else 0:+8.3f} %')
    paths = [c for (m, c), v in op.items() if m == 'time' and v >= 0.01 * total]
    for c in paths:
        for m in WAIT_STATES:
            o, k = op.get((m, c), 0.0), kp.get((m, c), 0.0)
            expect(abs(k - o) <= allowed(o, op.get(('visits', c), 0), op.get(('time', c), 0), m,
                                         op.get(('mpi_latesender', c), 0.0)),
                   f'{label}: {m} at call path {c}: {k:.6f} s from the compressed trace, '
                   f'{o:.6f} s from the OTF2 trace')
    print(f'{label}: {len(paths)} call paths hold >= 1 % of the time; largest difference of a '
          f'wait-state total {100 * worst:.3f} %')


def stats_of(cube):
    with open(os.path.splitext(cube)[0] + '.stats.json', encoding='utf-8') as f:
        return json.load(f)


def sim_runtime(a, exp, hyp, out):
    p = tool([a.sim, exp, '--offline', '--hypothesis', hyp, '-o', out, '-q'])
    summary = os.path.join(out, 'summary.json')
    if not os.path.isfile(summary):
        # CI 2026-12-02 (kct-accuracy-hpcc): no summary once, not seen again in 25 runs; say
        # what kubus-sim said and what it left, then fail here
        left = sorted(os.listdir(out)) if os.path.isdir(out) else None
        print(f'kubus-sim wrote no {summary}: exit {p.returncode}, {out} holds {left}\n'
              f'stdout: {p.stdout[-2000:]}\nstderr: {p.stderr[-3000:]}', file=sys.stderr)
        sys.exit(1)
    with open(summary, encoding='utf-8') as f:
        return json.load(f)['predicted_runtime_s']


# tests/real's inputs: program, arguments, input files copied into the scratch folder it runs in
REAL_CODES = {
    'lammps-melt': ('lmp', ['-in', 'melt.in', '-log', 'none', '-screen', 'none'], ['melt.in']),
    'hpcc': ('hpcc', [], ['hpccinf.txt']),
}


def case_accuracy(a, tmp):
    n = a.ranks[0]
    exp = os.path.join(tmp, 'run')
    label = a.real or os.path.basename(a.app)
    if a.real:
        here = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'real')
        sys.path.insert(0, here)
        from run_real import run_real
        prog, args, inputs = REAL_CODES[a.real]
        if shutil.which(prog) is None:
            print(f'{a.real}: {prog} not installed')
            return 77
        # real codes with the call paths users get: unwound from the stack (deep, C++ names)
        env = env_for_mpi()
        env['KUBUS_CALL_PATHS'] = 'unwind'
        try:
            run_real(a.run, [prog, *args], exp, ranks=n, inputs=[os.path.join(here, i) for i in inputs],
                     options=['--trace-format', 'both'], env=env)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            expect(False, f'{label} under kubus-run: {str(e)[-3000:]}')
            return None
    else:
        if a.ws:
            a.app_args = [os.path.join(tmp, 'truth')] + a.app_args
        if not kubus_run(a, exp, n, 'both'):
            return None
    kct = os.path.join(exp, 'traces.kct')
    ksize, osize = os.path.getsize(kct), otf2_size(exp)
    print(f'{label}: {ksize} bytes compressed, {osize} bytes OTF2 ({ksize / osize:.3f})')
    if a.max_ratio:
        expect(ksize <= a.max_ratio * osize,
               f'{label}: the compressed trace is {ksize / osize:.3f} of the OTF2 trace (limit {a.max_ratio})')
    bound = bound_of(a, kct)
    # (in one process: the same results as one analysis rank per traced rank, without an MPI
    # job's start-up)
    tool([a.analyze, '-q', '--serial', exp])
    only = os.path.join(tmp, 'compressed-only')
    os.mkdir(only)
    shutil.copy(kct, only)
    tool([a.analyze, '-q', '--serial', only])
    compare_waits(a, os.path.join(exp, 'analysis.cube'), os.path.join(only, 'analysis.cube'), bound,
                  label)
    # the compressed trace's analysis is that of its expansion, as recorded (no clock repair):
    # no receive before its send
    v = stats_of(os.path.join(only, 'analysis.cube')).get('clock_violations')
    expect(v == 0, f'{label}: {v} receives before their send in the compressed trace\'s analysis')
    # the same for kubus-trace expand's archive
    out = os.path.join(tmp, 'expanded')
    tool([a.trace, 'expand', kct, '-o', out])
    tool([a.analyze, '-q', '--serial', '--no-clock-repair', out])
    v = stats_of(os.path.join(out, 'analysis.cube')).get('clock_violations')
    expect(v == 0, f'{label}: {v} receives before their send after kubus-trace expand')
    shutil.rmtree(out, ignore_errors=True)
    # info --check: no event outside the bound, both analyses compared
    p = tool([a.trace, 'info', '--check', exp], timeout=600)
    m = re.search(r'^events outside the bound: (\d+)$', p.stdout, re.M)
    expect(m is not None and m.group(1) == '0', f'{label}: info --check: {p.stdout[-2000:]}')
    expect('mpi_latesender' in p.stdout or 'mpi_wait_nxn' in p.stdout or 'mpi_barrier_wait' in p.stdout,
           f'{label}: info --check compares no wait state: {p.stdout[-2000:]}')
    print('\n'.join(line for line in p.stdout.splitlines()
                    if line.startswith(('largest', 'mean time', 'events', 'receives'))))
    # kubus-sim's identity (empty hypothesis, offline): the same prediction from both. Where
    # ranks outnumbered the cores the compressed trace carries the CPU samples and the hosts'
    # CPUs (format version 4), so the offline model shares the cores from either; without it
    # (KUBUS_SIM_CONTENTION=0) too
    hyp = os.path.join(tmp, 'same.hyp')
    with open(hyp, 'w', encoding='utf-8') as f:
        f.write('# the run as it was\n')
    d = info(a, kct)
    own = d.get('ranks with times of their own', '').startswith(d.get('ranks', '-') + ';')
    print(f'{label}: CPU samples: {d.get("CPU samples", "none")}')
    for contention in (None, '0'):
        what = 'cores model' if contention is None else 'KUBUS_SIM_CONTENTION=0'
        if contention is not None:
            os.environ['KUBUS_SIM_CONTENTION'] = contention
        so, sk = os.path.join(tmp, 'sim-otf2'), os.path.join(tmp, 'sim-kct')
        ro = sim_runtime(a, exp, hyp, so)
        rk = sim_runtime(a, only, hyp, sk)
        os.environ.pop('KUBUS_SIM_CONTENTION', None)
        with open(os.path.join(so, 'summary.json'), encoding='utf-8') as f:
            mo = json.load(f).get('model', {})
        with open(os.path.join(sk, 'summary.json'), encoding='utf-8') as f:
            mk = json.load(f).get('model', {})
        print(f'{label} ({what}): kubus-sim --offline predicts {ro:.6f} s from the OTF2 trace, '
              f'{rk:.6f} s from the compressed trace ({100 * (rk - ro) / ro:+.3f} %); shared CPUs '
              f'{mo.get("shared_cpus")} / {mk.get("shared_cpus")}')
        # ws programs 0.5 %: measured within 0.002 % (all of them at 3 to 6 ranks on 2 cores, both
        # ways; -0.09 % under the sanitizers). Real codes 1 % as before: LAMMPS and HPCC at 2
        # ranks (no samples) -0.05 ... +0.26 % and -0.28 ... +0.01 % on a loaded machine
        # (docs/decisions/2026-11-29-kct-cpu-samples.md)
        limit = 0.01 if a.real else 0.005
        expect(abs(rk - ro) <= limit * ro, f'{label} ({what}): simulated run time {rk:.6f} s from the '
                                           f'compressed trace, {ro:.6f} s from the OTF2 trace '
                                           f'(limit {100 * limit:g} %)')
        # the same model from both: the cores shared with the same fitted CPUs. The fit leaves out
        # intervals that slept more than half their time, and the compressed trace's times are
        # within 1 us of the OTF2 trace's: an interval sleeping about half its time may count in
        # one and not the other (ws-latesender: 0 and 1 of them, the same 2.0 CPUs fitted; CI 22;
        # ws-mixed under the sanitizers 17 and 19, the same 2.0 CPUs and run time within 0.001 %,
        # 2026-12-01, then 5 runs differing by 0 to 1; CI 2026-12-02 under the sanitizers:
        # ws-nonblocking 19 and 22, the same 2.0 CPUs, run time within 0.06 %). The fitted CPUs
        # then move by up to those intervals' weight in the fit (ws-mixed, CI 2026-12-02: 50 and
        # 51 intervals, 0.880 and 0.907 CPUs, run time within 0.002 %). The run time above is the
        # verdict on the samples; here the same hosts share as many CPUs, the same way (per CPU,
        # bound), fitted alike where they share them evenly. A host shared per CPU uses the
        # fitted CPUs only for events no sample places: ws-mixed under the sanitizers (CI
        # 2026-12-02, 59 and 60 intervals) fitted 2.0 (the fit's upper end) and 0.887 CPUs, per
        # CPU both, run time within 0.007 %
        if contention is None and own:
            co, ck = mo.get('shared_cpus') or [], mk.get('shared_cpus') or []
            same = len(co) == len(ck) and all(
                x['host'] == y['host'] and x['cpus'] == y['cpus']
                and x.get('per_cpu') == y.get('per_cpu') and x.get('bound') == y.get('bound')
                and (x.get('per_cpu') or abs(x['fitted_cpus'] - y['fitted_cpus'])
                     <= 0.01 + 2 * abs(x['sampled_intervals'] - y['sampled_intervals']) * x['fitted_cpus']
                     / max(1, x['sampled_intervals']))
                for x, y in zip(co, ck))
            expect(same, f'{label}: shared CPUs {co} from the OTF2 trace, {ck} from the compressed trace')
        shutil.rmtree(so, ignore_errors=True)
        shutil.rmtree(sk, ignore_errors=True)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('case')
    ap.add_argument('--app', default='')
    ap.add_argument('--run', required=True)
    ap.add_argument('--trace', required=True)
    ap.add_argument('--seq', required=True)
    ap.add_argument('--replay', required=True)
    ap.add_argument('--analyze', required=True)
    ap.add_argument('--sim', required=True)
    ap.add_argument('--cube', default='kubus-cube')
    ap.add_argument('--ranks', default='4')
    ap.add_argument('--extrapolate', type=int, default=0)
    ap.add_argument('--real', default=None)
    ap.add_argument('--ws', action='store_true')
    ap.add_argument('--max-ratio', type=float, default=0)
    a, rest = ap.parse_known_args()
    a.ranks = [int(x) for x in a.ranks.split(',')]
    a.app_args = rest[1:] if rest[:1] == ['--'] else rest
    if not shutil.which('mpirun'):
        print('no mpirun')
        return 77
    tmp = tempfile.mkdtemp(prefix='kct-test-')
    try:
        rc = globals()['case_' + a.case](a, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print('FAIL:', f)
    if rc == 77 and not failures:
        return 77
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
