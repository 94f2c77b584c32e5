#!/usr/bin/env python3
"""Clock tests of the collector (issue 17), checked with clock-check (OTF2 reader API only).

  onehost  clock-flood (10^5 fast messages on 4 ranks) recorded 10 times (3 shorter runs under
           the sanitizers): no receive stamped before its send, no rank leaving an N-to-N
           collective before another entered it, every event inside [globalOffset,
           globalOffset + length], every ClockOffset 0, the clock written in the trace
           properties and kubus.json. The last run reads CLOCK_MONOTONIC instead of the TSC.
  hosts    KUBUS_TEST_HOST_SPLIT=2: two pretend hosts; the ranks of a host carry identical
           ClockOffset records, rank 0's host offset 0, the window still holds every event.
  skew     KUBUS_TEST_CLOCK_SKEW=2:5000000:100000: rank 2's records carry +5 ms growing by
           0.1 ms/s, readers see its events that much later (receives from it before their
           sends), and the window still holds every event.
  abort    collect-abort on two pretend hosts, rank 3 skewed by −7 ms: the window holds every
           event of every rank after MPI_Abort too.

usage: clock-test.py CASE --run KUBUS_RUN --clock CLOCK_CHECK --app CLOCK_FLOOD
Exit 0 = pass, 1 = fail, 77 = skip.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

failures = []
SANITIZED = bool(os.environ.get('KUBUS_SANITIZED'))


def tsc_usable():
    """The collector's own rule (collect-clock.c): the TSC where the CPU says it is invariant and
    the kernel's clocksource is the TSC (True), or a KVM guest's kvm-clock ('kvm': the collector
    then checks the vCPUs' TSCs against each other, which this script cannot, and may keep
    CLOCK_MONOTONIC); False otherwise."""
    def has(path, word):
        try:
            with open(path) as f:
                return word in f.read()
        except OSError:
            return False
    import platform
    source = '/sys/devices/system/clocksource/clocksource0/current_clocksource'
    if (platform.machine() != 'x86_64' or not has('/proc/cpuinfo', 'constant_tsc')
            or not has('/proc/cpuinfo', 'nonstop_tsc')):
        return False
    if has(source, 'tsc'):
        return True
    return 'kvm' if has(source, 'kvm-clock') else False


def expect(cond, what):
    if not cond:
        failures.append(what)


def env_for_mpi(extra=None):
    env = dict(os.environ)
    env.setdefault('OMPI_ALLOW_RUN_AS_ROOT', '1')
    env.setdefault('OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1')
    env.setdefault('OMPI_MCA_rmaps_base_oversubscribe', '1')
    ao = env.get('ASAN_OPTIONS', '')
    env['ASAN_OPTIONS'] = (ao + ':' if ao else '') + 'detect_leaks=0'
    for k in ('KUBUS_CLOCK', 'KUBUS_TEST_HOST_SPLIT', 'KUBUS_TEST_CLOCK_SKEW'):
        env.pop(k, None)
    env.update(extra or {})
    return env


def record(a, exp, iterations, extra=None, ranks=4, rc=0):
    cmd = [a.run, '-o', exp, '--', 'mpirun', '-n', str(ranks), '--oversubscribe', a.app,
           str(iterations)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env_for_mpi(extra))
    expect(p.returncode == rc, f'{" ".join(cmd)}: exit {p.returncode}\n{p.stderr[-3000:]}')
    return p.returncode == rc


def facts(a, exp):
    """clock-check's lines as {key: [fields]} (window/offsets keyed 'window 2', ...)."""
    p = subprocess.run([a.clock, os.path.join(exp, 'traces.otf2')], capture_output=True,
                       text=True, timeout=300)
    expect(p.returncode == 0, f'clock-check failed: {p.stderr}')
    f = {}
    for line in p.stdout.splitlines():
        w = line.split()
        if w[0] in ('window', 'offsets', 'property'):
            f[f'{w[0]} {w[1]}'] = w[2:]
        else:
            f[w[0]] = w[1:]
    return f


def common(a, exp, f, ranks, hosts, iterations):
    for r in range(ranks):
        expect(f.get(f'window {r}') == ['ok'], f'{exp}: rank {r} has events outside the clock '
               f'window: {f.get(f"window {r}")}')
        expect(len(f.get(f'offsets {r}', [])) == 4, f'{exp}: rank {r} has not two ClockOffsets')
    expect(f.get('messages') == [str(8 * iterations)],
           f'{exp}: {f.get("messages")} messages matched, expected {8 * iterations}')
    expect(f.get('unmatched') == ['0'], f'{exp}: unmatched messages {f.get("unmatched")}')
    expect(f.get('collectives') == [str(iterations // 64)],
           f'{exp}: {f.get("collectives")} allreduce instances, expected {iterations // 64}')
    expect(f.get('property KUBUS::CLOCK_HOSTS') == [str(hosts)],
           f'{exp}: CLOCK_HOSTS property {f.get("property KUBUS::CLOCK_HOSTS")}')
    with open(os.path.join(exp, 'kubus.json')) as fp:
        clock = json.load(fp).get('clock', {})
    expect(clock.get('hosts') == hosts, f'{exp}: kubus.json clock {clock}')
    expect([clock.get('source')] == f.get('property KUBUS::CLOCK_SOURCE'),
           f'{exp}: kubus.json says {clock.get("source")}, the trace '
           f'{f.get("property KUBUS::CLOCK_SOURCE")}')
    for left in ('.kubus-clock', '.kubus-hosts'):
        expect(not os.path.exists(os.path.join(exp, left)), f'{exp}: {left} left behind')
    return clock


def case_onehost(a, tmp):
    runs, iterations = (3, 4000) if SANITIZED else (10, 12500)
    early_total = 0
    sources = set()
    for k in range(runs):
        exp = os.path.join(tmp, f'run{k}')
        monotonic = k == runs - 1
        if not record(a, exp, iterations, {'KUBUS_CLOCK': 'monotonic'} if monotonic else None):
            continue
        f = facts(a, exp)
        clock = common(a, exp, f, 4, 1, iterations)
        early = int(f.get('recvbeforesend', ['-1'])[0])
        early_total += max(early, 0)
        print(f'run {k}: {f.get("messages")} messages, {f.get("recvbeforesend")} receives before '
              f'send, {f.get("collbeforeenter")} collectives left early, source '
              f'{clock.get("source")}')
        expect(early == 0, f'run {k}: {f.get("recvbeforesend")} receives before their send')
        expect(f.get('collbeforeenter', ['-1'])[0] == '0',
               f'run {k}: collectives left before entered: {f.get("collbeforeenter")}')
        usable = tsc_usable()
        if usable == 'kvm' and not monotonic:
            # the vCPUs' check decides, the same way in every run on this machine
            sources.add(clock.get('source'))
            expect(len(sources) == 1 and clock.get('source') in ('TSC', 'CLOCK_MONOTONIC'),
                   f'run {k}: clock sources {sorted(sources)}')
        else:
            expect(clock.get('source') == ('TSC' if usable and not monotonic else 'CLOCK_MONOTONIC'),
                   f'run {k}: clock source {clock.get("source")}')
        times = set()
        for r in range(4):
            o = f.get(f'offsets {r}', ['?'] * 4)
            expect(o[1] == '0' and o[3] == '0', f'run {k}: rank {r} offsets {o}, one host: 0')
            times.add((o[0], o[2]))
        expect(len(times) == 1, f'run {k}: the ranks of one host wrote different offset times {times}')
        expect(clock.get('pings') == 0 and clock.get('max_offset_ns') == 0,
               f'run {k}: one host but offsets measured: {clock}')
    print(f'{runs} runs: {early_total} receives before their send')


def case_hosts(a, tmp):
    iterations = 1000 if SANITIZED else 4000
    exp = os.path.join(tmp, 'split')
    if not record(a, exp, iterations, {'KUBUS_TEST_HOST_SPLIT': '2'}):
        return
    f = facts(a, exp)
    clock = common(a, exp, f, 4, 2, iterations)
    o = [f.get(f'offsets {r}', ['?'] * 4) for r in range(4)]
    print('offsets', o, 'clock', clock)
    expect(o[0] == o[1], f'ranks 0 and 1 (one host) differ: {o[0]} {o[1]}')
    expect(o[2] == o[3], f'ranks 2 and 3 (one host) differ: {o[2]} {o[3]}')
    expect(o[0][1] == '0' and o[0][3] == '0', f'rank 0\'s host has offsets {o[0]}')
    expect(int(o[2][0]) < int(o[2][2]), f'offset times not increasing: {o[2]}')
    # the true offset is 0 (one machine): a measurement off by more than 1 ms is broken
    expect(all(abs(int(x)) < 1000000 for x in (o[2][1], o[2][3])), f'offsets {o[2]}')
    expect(clock.get('pings') == 32, f'pings {clock}')
    expect(f.get('property KUBUS::CLOCK_PINGS') == ['32'], 'CLOCK_PINGS property')


def case_skew(a, tmp):
    iterations = 1000 if SANITIZED else 4000
    exp = os.path.join(tmp, 'skew')
    if not record(a, exp, iterations, {'KUBUS_TEST_CLOCK_SKEW': '2:5000000:100000'}):
        return
    f = facts(a, exp)
    common(a, exp, f, 4, 1, iterations)
    o = [f.get(f'offsets {r}', ['?'] * 4) for r in range(4)]
    print('offsets', o, 'early', f.get('recvbeforesend'))
    for r in (0, 1, 3):
        expect(o[r][1] == '0' and o[r][3] == '0', f'rank {r} offsets {o[r]}')
    t1, o1, t2, o2 = (int(x) for x in o[2])
    expect(o1 == 5000000, f'rank 2 offset at MPI_Init {o1}, expected 5000000')
    want = 5000000 + 100000 * (t2 - t1) / 1e9
    expect(abs(o2 - want) <= 1, f'rank 2 offset at MPI_Finalize {o2}, expected {want:.0f}')
    expect(int(f.get('recvbeforesend', ['0'])[0]) > 0, 'the skew is invisible to readers')
    expect(f.get('property KUBUS::CLOCK_TEST_SKEW') == ['2:5000000:100000'], 'skew property')


def case_abort(a, tmp):
    """collect-abort (rank 1 calls MPI_Abort, the others are killed) on two pretend hosts with
    rank 3's offset skewed: after an abort nobody can unify, yet every event of every location
    lies in the window, and each saved rank carries its host's offsets (rank 3: + the skew)."""
    exp = os.path.join(tmp, 'abort')
    if not record(a, exp, 0, {'KUBUS_TEST_HOST_SPLIT': '2', 'KUBUS_TEST_CLOCK_SKEW': '3:-7000000:0'},
                  rc=3):
        return
    f = facts(a, exp)
    o = {r: f.get(f'offsets {r}', []) for r in range(4)}
    print('offsets', o)
    for r in range(4):
        expect(f.get(f'window {r}') == ['ok'], f'rank {r} outside the window after the abort: '
               f'{f.get(f"window {r}")}')
    expect(o[0][1:2] == ['0'] and o[1][1:2] == ['0'], f'rank 0\'s host offsets {o[0]} {o[1]}')
    if len(o[2]) == 4 and len(o[3]) == 4:
        expect(int(o[3][1]) - int(o[2][1]) == -7000000 and o[2][0] == o[3][0],
               f'rank 3 offset {o[3]}, rank 2 (same host) {o[2]}: expected -7 ms apart')
    expect(f.get('property KUBUS::CLOCK_HOSTS') == ['2'], 'CLOCK_HOSTS property after the abort')


CASES = {'onehost': case_onehost, 'hosts': case_hosts, 'skew': case_skew, 'abort': case_abort}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('case', choices=sorted(CASES))
    ap.add_argument('--run', required=True)
    ap.add_argument('--clock', required=True)
    ap.add_argument('--app', required=True)
    a = ap.parse_args()
    a.run, a.clock, a.app = (os.path.abspath(x) for x in (a.run, a.clock, a.app))
    if shutil.which('mpirun') is None:
        print('mpirun missing: skipped')
        return 77
    tmp = tempfile.mkdtemp(prefix='kubus-clock-')
    try:
        CASES[a.case](a, tmp)
    finally:
        if not failures:
            shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        for f in failures:
            print('FAIL:', f)
        print(f'(files kept in {tmp})')
        return 1
    print(f'{a.case}: ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
