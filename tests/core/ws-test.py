#!/usr/bin/env python3
"""kubus-analyze tests.

  ws-test.py scorep    --analyze A --cube C
      the three Score-P traces in $KUBUS_SHARED_DATA/otf2: values derived by hand (see below),
      and --serial == parallel (identical `kubus-cube dump --csv`)
  ws-test.py synthetic --analyze A --cube C --make-trace M
      traces written with the OTF2 writer whose waits are known by construction (make-trace.c),
      an aborted run (unmatched message), a clock violation, and bad input
  ws-test.py wait  --run R --app APP --ranks N --analyze A --cube C
      the MPI test program measures its own wait states; the analysis must agree (per rank too
      when the program writes its share, ws_per_rank in ws-common.h), nothing is negative and
      every message is matched. The program
      is not instrumented: Time per rank must span the whole program and Computation
      (= Time − MPI, the collector's program region) the time the program slept
  ws-test.py aborted --run R --app APP --ranks N --analyze A --cube C
      a run that ended in MPI_Abort: warning with the unmatched counts, report still written
  ws-test.py modes --analyze A --cube C --make-trace M
      where the analysis runs: the line that says which mode and why, the memory-budget
      fallback, the options that decide instead, the same report in every mode
  ws-test.py sweep --run R --app APP --ranks N --analyze A --cube C
      2-D wavefront: the four refill metrics are non-zero, the last corner waits most

Exit 0 pass, 1 fail, 77 skip.
"""
import argparse
import json
import re
import os
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict

failures = []
# failures that a paused rank cannot explain (everything but a measured time: see cmd_wait)
exact_failures = []
# ranks whose computation ran longer than their sleeps (see check_program_time)
stalls = []

# Expected values of the Score-P traces. Derivation: tests/core/otf2-expected.py applies the
# PATTERNS.md formulas to the `otf2-print` output (independent of Kubus); checked by hand for
# the small ones:
#  casita_4_mpi_ls_barr (1 GHz timer): a Late Sender chain 0→1→2→3 (each MPI_Recv entered
#   early, E(send) seconds later), e.g. rank 1: min(E(send)=106116946908054, L=106116946954511)
#   − E(recv)=106107922094015 = 9.024814039 s; ranks 2, 3: 10.005324949 s, 10.990433990 s;
#   total 30.020572978 s. One MPI_Barrier, last enter 106126796092142 (rank 0): waits of ranks
#   1..3 = 7.835162349 + 6.843795808 + 6.730308390 = 21.409266547 s. No wrong order, no Late
#   Receiver (every MPI_Send returned before... the receive was posted earlier).
#  casita_10_scorep_mpi_tags: rank 0 receives from 1..9 in rank order while the senders send in
#   another order; the waits for rank 1's message happen while messages of other ranks sent
#   earlier are unreceived: the whole Late Sender time 0.231347608 s is wrong order, from
#   different sources.
#  pipit_ping-pong-otf2 (2.095197216 GHz timer): Late Sender 0.000045123 s, Late Receiver
#   0.000620560 s (large messages: MPI_Send blocks until the MPI_Recv is posted).
SCOREP = {
    'casita_4_mpi_ls_barr': {
        'mpi_latesender': 30.020572978, 'mpi_latesender_wo': 0.0, 'mpi_latereceiver': 0.0,
        'mpi_barrier_wait': 21.409266547},
    'casita_10_scorep_mpi_tags': {
        'mpi_latesender': 0.231347608, 'mpi_latesender_wo': 0.231347608, 'mpi_lswo_same': 0.0,
        'mpi_lswo_different': 0.231347608, 'mpi_latereceiver': 0.0, 'mpi_barrier_wait': 0.0},
    'pipit_ping-pong-otf2': {
        'mpi_latesender': 0.000045123, 'mpi_latesender_wo': 0.0, 'mpi_latereceiver': 0.000620560,
        'mpi_barrier_wait': 0.0},
}


def fail(msg, exact=True):
    failures.append(msg)
    if exact:
        exact_failures.append(msg)
    print('FAIL:', msg, file=sys.stderr)


def env_for_mpi(leaks=False):
    env = dict(os.environ)
    env.setdefault('OMPI_ALLOW_RUN_AS_ROOT', '1')
    env.setdefault('OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1')
    env.setdefault('OMPI_MCA_rmaps_base_oversubscribe', '1')
    # hwloc's gl/opencl plugins probe every local X display (:0, :1, …) at MPI start-up; when
    # another test's Xvfb goes away meanwhile, Xlib exits the process ("X connection to :1
    # broken") and the run fails. The analysis needs no GPU information.
    env.setdefault('HWLOC_COMPONENTS', '-gl,-opencl')
    if not leaks:
        # Open MPI leaks at exit; only processes without MPI keep leak detection
        ao = env.get('ASAN_OPTIONS', '')
        env['ASAN_OPTIONS'] = (ao + ':' if ao else '') + 'detect_leaks=0'
    return env


def run(cmd, leaks=False, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=280,
                          env=env_for_mpi(leaks), **kw)


def dump(a, cube):
    p = run([a.cube, 'dump', '--csv', cube])
    if p.returncode != 0:
        fail(f'kubus-cube dump {cube}: {p.stderr}')
        return '', {}, {}
    tot = defaultdict(float)
    per_loc = defaultdict(float)
    for line in p.stdout.splitlines()[1:]:
        m, c, loc, v = line.split(',')
        tot[m] += float(v)
        per_loc[(m, int(loc))] += float(v)
    return p.stdout, tot, per_loc


def analyze(a, target, out=None, serial=False, expect_rc=0, leaks=True, extra=()):
    # serial=False: the parallel MPI replay (--parallel), which the analysis would not choose by
    # itself for these small traces; the choice itself is cmd_modes'
    cmd = ([a.analyze, target] + (['-o', out] if out else []) + (['--serial'] if serial else ['--parallel'])
           + list(extra))
    p = run(cmd, leaks=serial and leaks)
    if expect_rc is not None and p.returncode != expect_rc:
        fail(f'{" ".join(map(str, cmd))}: exit {p.returncode}, expected {expect_rc}\n{p.stderr[-3000:]}')
    return p


def close(got, want, rel, absol):
    return abs(got - want) <= rel * abs(want) + absol


def check_stats(path):
    try:
        with open(path) as f:
            js = json.load(f)
    except Exception as e:  # noqa
        fail(f'{path}: not valid JSON ({e})')
        return
    for m in js['metrics']:
        top = m['top']
        if len(top) > 10:
            fail(f'{path}: more than 10 instances for {m["metric"]}')
        durs = [t['duration'] for t in top]
        if durs != sorted(durs, reverse=True):
            fail(f'{path}: instances of {m["metric"]} not sorted')
        if top and not close(sum(durs), m['total'], 1e-9, 1e-9) and len(top) < 10 and m['metric'] not in (
                'mpi_latesender', 'mpi_ls_wavefront_nw', 'mpi_ls_wavefront_ne', 'mpi_ls_wavefront_sw',
                'mpi_ls_wavefront_se'):
            fail(f'{path}: instances of {m["metric"]} do not add up to the total')


def check_progress(stderr):
    """One progress line per phase, with percentages up to 100 %, then the summary."""
    pcts = [int(m) for m in re.findall(r'^kubus-analyze: \[ *(\d+)%\] ', stderr, re.M)]
    if not pcts or pcts != sorted(pcts) or pcts[-1] != 100 or len(pcts) < 6:
        fail(f'progress lines missing or out of order: {pcts}')
    for needle in ('Total time: ', 'Report: ', 'Statistics: '):
        if needle not in stderr:
            fail(f'summary without {needle!r}:\n{stderr}')


def cmd_scorep(a):
    data = os.environ.get('KUBUS_SHARED_DATA', '')
    base = os.path.join(data, 'otf2')
    if not data or not os.path.isdir(base):
        print('no shared data, skipping')
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        for name, want in SCOREP.items():
            anchor = os.path.join(base, name, 'traces.otf2')
            if not os.path.exists(anchor):
                return 77
            ser = os.path.join(tmp, name + '-serial.cube')
            par = os.path.join(tmp, name + '-parallel.cube')
            analyze(a, anchor, ser, serial=True)
            analyze(a, anchor, par)
            csv_s, tot, _ = dump(a, ser)
            csv_p, _, _ = dump(a, par)
            if csv_s != csv_p:
                fail(f'{name}: --serial and parallel reports differ')
            for a_, b_ in ((ser, par), (ser[:-5] + '.stats.json', par[:-5] + '.stats.json')):
                with open(a_, 'rb') as fa, open(b_, 'rb') as fb:
                    if fa.read() != fb.read():
                        fail(f'{name}: {os.path.basename(a_)} and {os.path.basename(b_)} are not identical')
            for m, v in want.items():
                if not close(tot.get(m, 0.0), v, 1e-9, 5e-9):
                    fail(f'{name}: {m} = {tot.get(m, 0.0):.9f}, expected {v:.9f}')
            check_stats(os.path.join(tmp, name + '-serial.stats.json'))
            # nothing negative, parents hold at least their children (metric-inclusive)
            if any(float(l.split(',')[3]) < 0 for l in csv_s.splitlines()[1:]):
                fail(f'{name}: negative values in the report')
    return 0


def cmd_synthetic(a):
    with tempfile.TemporaryDirectory() as tmp:
        def make(scenario):
            d = os.path.join(tmp, scenario)
            p = run([a.make_trace, scenario, d])
            if p.returncode != 0:
                fail(f'make-trace {scenario}: {p.stderr}')
            return d

        # by construction (see make-trace.c)
        d = make('exact')
        # -o NAME.cubex: a Cube 4 archive with the same values (and NAME.stats.json)
        outx = os.path.join(tmp, 'exact-x.cubex')
        analyze(a, os.path.join(d, 'traces.otf2'), outx, serial=True)
        with open(outx, 'rb') as f:
            if f.read(512)[257:262] != b'ustar':
                fail('-o exact-x.cubex: not a tar archive')
        if not os.path.exists(os.path.join(tmp, 'exact-x.stats.json')):
            fail('-o exact-x.cubex: no exact-x.stats.json')
        outc = os.path.join(tmp, 'exact-c.cube')
        analyze(a, os.path.join(d, 'traces.otf2'), outc, serial=True)
        if dump(a, outx)[0] != dump(a, outc)[0]:
            fail('-o .cubex and -o .cube hold different values')
        for serial in (True, False):
            out = os.path.join(tmp, 'exact-%s.cube' % serial)
            analyze(a, os.path.join(d, 'traces.otf2'), out, serial=serial)
            _, tot, per = dump(a, out)
            want = {'mpi_latesender': 0.008, 'mpi_barrier_wait': 0.005, 'mpi_barrier_completion': 0.001,
                    'mpi_latereceiver': 0.005, 'mpi_finalize_wait': 0.005, 'time': 0.122,
                    'mpi_latesender_wo': 0.0, 'mpi_wait_nxn': 0.0, 'visits': 10, 'syncs': 2,
                    'comms': 4, 'bytes': 32}
            for m, v in want.items():
                if not close(tot.get(m, 0.0), v, 1e-9, 1e-12):
                    fail(f'exact (serial={serial}): {m} = {tot.get(m, 0.0)}, expected {v}')
            if not close(per.get(('mpi_latesender', 1), 0), 0.008, 0, 1e-12):
                fail('exact: Late Sender not charged to rank 1')
            if not close(per.get(('mpi_latereceiver', 0), 0), 0.005, 0, 1e-12):
                fail('exact: Late Receiver not charged to rank 0')

        # every collective kind and point-to-point form, by construction (make-trace.c: forms)
        d = make('forms')
        outs = []
        for serial in (True, False):
            out = os.path.join(tmp, 'forms-%s.cube' % serial)
            outs.append(out)
            analyze(a, os.path.join(d, 'traces.otf2'), out, serial=serial)
            _, tot, per = dump(a, out)
            want = {'mpi_init_completion': 0.004, 'mpi_wait_nxn': 0.007, 'mpi_nxn_completion': 0.005,
                    'mpi_latebroadcast': 0.012, 'mpi_earlyreduce': 0.017, 'mpi_earlyscan': 0.015,
                    'mpi_latesender': 0.053, 'mpi_latesender_wo': 0.015, 'mpi_lswo_same': 0.015,
                    'mpi_lswo_different': 0.0, 'mpi_latereceiver': 0.011, 'mpi_finalize_wait': 0.005,
                    'mpi_barrier_wait': 0.0, 'mpi_barrier_completion': 0.0, 'time': 0.782,
                    'visits': 54, 'syncs_send': 1, 'syncs_recv': 1, 'syncs_coll': 0, 'comms_send': 10,
                    'comms_recv': 10, 'comms_cxch': 14, 'comms_csrc': 4, 'comms_cdst': 2,
                    'bytes_sent': 80, 'bytes_rcvd': 80, 'bytes_cout': 168, 'bytes_cin': 168,
                    'syncs': 2, 'comms': 40, 'bytes': 496}
            for m, v in want.items():
                if not close(tot.get(m, 0.0), v, 1e-9, 1e-12):
                    fail(f'forms (serial={serial}): {m} = {tot.get(m, 0.0)}, expected {v}')
            per_want = {('mpi_init_completion', 1): 0.004, ('mpi_wait_nxn', 0): 0.007,
                        ('mpi_nxn_completion', 1): 0.005, ('mpi_latebroadcast', 0): 0.007,
                        ('mpi_latebroadcast', 1): 0.005, ('mpi_earlyreduce', 0): 0.011,
                        ('mpi_earlyreduce', 1): 0.006, ('mpi_earlyscan', 0): 0.005,
                        ('mpi_earlyscan', 1): 0.010, ('mpi_latesender', 0): 0.053,
                        ('mpi_latereceiver', 0): 0.011, ('mpi_finalize_wait', 0): 0.005}
            for (m, r), v in per_want.items():
                if not close(per.get((m, r), 0.0), v, 1e-9, 1e-12):
                    fail(f'forms (serial={serial}): {m} on rank {r} = {per.get((m, r), 0.0)}, expected {v}')
            # each wait on the call path of the call that waits, once per call
            with open(out[:-5] + '.stats.json') as f:
                js = {m['metric']: m for m in json.load(f)['metrics']}
            got = sorted((t['callpath'], t['rank'], round(t['duration'], 9))
                         for t in js['mpi_latesender']['top'])
            exp = sorted([('main/MPI_Waitall', 0, 0.014), ('main/MPI_Waitsome', 0, 0.016),
                          ('main/MPI_Waitany', 0, 0.008), ('main/MPI_Recv', 0, 0.015)])
            if got != exp:
                fail(f'forms (serial={serial}): Late Sender instances {got}, expected {exp}')
            got = sorted((t['callpath'], round(t['duration'], 9)) for t in js['mpi_latereceiver']['top'])
            exp = [('main/MPI_Send', 0.005), ('main/MPI_Wait', 0.006)]
            if got != exp:
                fail(f'forms (serial={serial}): Late Receiver instances {got}, expected {exp}')
            check_stats(out[:-5] + '.stats.json')
        with open(outs[0], 'rb') as fa, open(outs[1], 'rb') as fb:
            if fa.read() != fb.read():
                fail('forms: --serial and parallel reports are not byte-for-byte identical')
        # and the independent oracle (tests/oracle, reads otf2-print output) agrees, per rank
        if shutil.which('otf2-print'):
            oracle = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'oracle')
            o = run([sys.executable, os.path.join(oracle, 'waitstate-oracle.py'),
                     os.path.join(d, 'traces.otf2'), '--json'])
            csv_path = os.path.join(tmp, 'forms.csv')
            with open(csv_path, 'w') as f:
                f.write(dump(a, outs[0])[0])
            with open(os.path.join(tmp, 'forms-oracle.json'), 'w') as f:
                f.write(o.stdout)
            c = run([sys.executable, os.path.join(oracle, 'compare.py'),
                     os.path.join(tmp, 'forms-oracle.json'), csv_path, '--per-rank'])
            if o.returncode != 0 or c.returncode != 0:
                fail(f'forms: the oracle disagrees:\n{o.stderr}{c.stdout}{c.stderr}')

        # the launcher: --mpirun replaces it; one that cannot start falls back to one process;
        # under a launcher with the wrong rank count the analysis refuses to run
        d = make('launch')
        ref = os.path.join(tmp, 'launch-ref.cube')
        analyze(a, os.path.join(d, 'traces.otf2'), ref, serial=True)
        with open(ref, 'rb') as f:
            ref_bytes = f.read()
        for launcher, needle in (('mpirun --bind-to none --oversubscribe', None),
                                 ('/nonexistent/mpilauncher -x', 'cannot start /nonexistent/mpilauncher')):
            out = os.path.join(tmp, 'launch.cube')
            p = run([a.analyze, os.path.join(d, 'traces.otf2'), '-o', out, '--parallel', '--mpirun', launcher])
            if p.returncode != 0:
                fail(f'--mpirun {launcher!r}: exit {p.returncode}\n{p.stderr}')
            if needle and (needle not in p.stderr or '--serial' not in p.stderr):
                fail(f'--mpirun {launcher!r}: no fallback message:\n{p.stderr}')
            if not needle and 'kubus-analyze: [100%] done' not in p.stderr:
                fail(f'--mpirun {launcher!r}: no progress from the relaunched analysis:\n{p.stderr}')
            if not os.path.exists(out):
                fail(f'--mpirun {launcher!r}: no report')
                continue
            with open(out, 'rb') as f:
                if f.read() != ref_bytes:
                    fail(f'--mpirun {launcher!r}: report differs from --serial')
            os.unlink(out)
        # a launcher that exits 0 without starting the ranks (a wrapper, a dry run): an error,
        # and the report an earlier run wrote there stays as it was
        out = os.path.join(tmp, 'launch.cube')
        shutil.copyfile(ref, out)
        os.utime(out, (1, 1))
        p = run([a.analyze, os.path.join(d, 'traces.otf2'), '-o', out, '--parallel', '--mpirun', 'true'])
        if p.returncode != 1 or 'ended without writing' not in p.stderr:
            fail(f'--mpirun true: exit {p.returncode}, expected 1 and a message\n{p.stderr}')
        if os.stat(out).st_mtime != 1:
            fail('--mpirun true: the earlier report changed')
        os.unlink(out)
        out = os.path.join(tmp, 'wrongsize.cube')
        p = run(['mpirun', '-n', '3', a.analyze, os.path.join(d, 'traces.otf2'), '-o', out])
        if p.returncode == 0 or 'has 2 ranks but the analysis runs on 3 processes' not in p.stderr \
           or os.path.exists(out):
            fail(f'under mpirun -n 3 for a 2-rank trace: exit {p.returncode}\n{p.stderr}')
        # a job of one process holds both ranks: it analyses in that process
        p = run(['mpirun', '-n', '1', a.analyze, os.path.join(d, 'traces.otf2'), '-o', out])
        if p.returncode != 0 or 'the MPI job has one process' not in p.stderr:
            fail(f'under mpirun -n 1 for a 2-rank trace: exit {p.returncode}\n{p.stderr}')
        elif open(out, 'rb').read() != ref_bytes:
            fail('under mpirun -n 1: report differs from --serial')

        # aborted run: a message nobody received
        d = make('unmatched')
        out = os.path.join(tmp, 'unmatched.cube')
        p = analyze(a, os.path.join(d, 'traces.otf2'), out, serial=True)
        if 'note: 1 message was sent and never received (left in flight when the program ended, or cut off ' \
           'by an abort)' not in p.stderr:
            fail(f'unmatched: no warning with the count:\n{p.stderr}')
        _, tot, _ = dump(a, out)
        if not close(tot.get('mpi_latesender', 0), 0.008, 0, 1e-12):
            fail('unmatched: the matching messages were not analysed')

        # clock violation: counted and reported, never a negative wait; repaired by default
        # (the receive at 9 moves to its send at 11: one event moved by 2 ms, none remains),
        # analysed as recorded with --no-clock-repair
        d = make('clockviol')
        out = os.path.join(tmp, 'clockviol.cube')
        p = analyze(a, os.path.join(d, 'traces.otf2'), out, serial=True)
        if 'Clock condition: 1 receives before their send' not in p.stderr or \
           'receives happen before their send' in p.stderr:
            fail(f'clockviol: repair not reported:\n{p.stderr}')
        with open(out[:-5] + '.stats.json') as f:
            js = json.load(f)
        rep = js.get('clock_repair') or {}
        if js.get('clock_violations') != 1 or rep.get('corrected_events') != 1 or \
           rep.get('remaining_p2p') != 0 or abs(rep.get('largest_correction', 0) - 0.002) > 1e-12:
            fail(f'clockviol: statistics {js.get("clock_violations")} {rep}')
        if 'kubus::clock_violations' not in open(out).read():
            fail('clockviol: the report does not carry the count')
        csv, tot, _ = dump(a, out)
        if any(float(l.split(',')[3]) < 0 for l in csv.splitlines()[1:]):
            fail('clockviol: negative values')
        out = os.path.join(tmp, 'clockviol-recorded.cube')
        p = analyze(a, os.path.join(d, 'traces.otf2'), out, serial=True, extra=['--no-clock-repair'])
        if '1 receives happen before their send' not in p.stderr:
            fail(f'clockviol --no-clock-repair: not reported:\n{p.stderr}')
        with open(out[:-5] + '.stats.json') as f:
            js = json.load(f)
            if js.get('clock_violations') != 1 or js.get('clock_repair') is not None:
                fail('clockviol --no-clock-repair: the statistics file does not count it')
        csv, tot, _ = dump(a, out)
        if any(float(l.split(',')[3]) < 0 for l in csv.splitlines()[1:]):
            fail('clockviol --no-clock-repair: negative values')

        # a system tree whose machine and node are each other's parent (corrupt): no endless
        # walk up to the root; the analysis goes on and the values are those of 'exact'
        d = make('syscycle')
        out = os.path.join(tmp, 'syscycle.cube')
        try:
            p = subprocess.run([str(a.analyze), os.path.join(d, 'traces.otf2'), '-o', out, '--serial'],
                               capture_output=True, text=True, timeout=30, env=env_for_mpi(True))
            if p.returncode != 0:
                fail(f'syscycle: exit {p.returncode}\n{p.stderr[-2000:]}')
            else:
                _, tot, _ = dump(a, out)
                if not close(tot.get('mpi_latesender', 0), 0.008, 0, 1e-12):
                    fail(f'syscycle: Late Sender {tot.get("mpi_latesender", 0)}, expected 0.008')
        except subprocess.TimeoutExpired:
            fail('syscycle: the analysis hangs on a cyclic system tree')

        # an empty -o (an unset shell variable): a usage error, not a report named ''
        p = subprocess.run([str(a.analyze), os.path.join(d, 'traces.otf2'), '-o', '', '--serial'],
                           capture_output=True, text=True, timeout=30, env=env_for_mpi(True))
        if p.returncode != 2 or 'kubus-analyze: the output name given with -o is empty' not in p.stderr:
            fail(f"-o '': exit {p.returncode}\n{p.stderr[-2000:]}")

        # bad input: a clear message naming the file, no report
        def bad(target, needle, serial=True, name=None, leaks=True):
            out = os.path.join(tmp, (name or 'bad') + '.cube')
            p = analyze(a, target, out, serial=serial, expect_rc=None, leaks=leaks)
            if p.returncode == 0:
                fail(f'bad input {target}: exit 0')
            if needle not in p.stderr:
                fail(f'bad input {target}: message does not name {needle!r}:\n{p.stderr}')
            if os.path.exists(out) or any(f.startswith((name or 'bad') + '.') for f in os.listdir(tmp)):
                fail(f'bad input {target}: a report file was written')
            if 'Traceback' in p.stderr or 'Sanitizer' in p.stderr:
                fail(f'bad input {target}: crashed:\n{p.stderr}')
            if not serial:
                # under mpirun too the user reads Kubus's message and status, no launcher banner
                if p.returncode != 1:
                    fail(f'bad input {target} (mpirun): exit {p.returncode}, expected 1')
                foreign = [l for l in p.stderr.splitlines() if not l.startswith('kubus-analyze: ')]
                if foreign or 'mpirun' in p.stderr or 'Primary job' in p.stderr:
                    fail(f'bad input {target} (mpirun): not only Kubus\'s messages:\n{p.stderr}')
                # the ranks' lines reach the terminal through mpirun's forwarding, in no fixed
                # order across ranks: the summary line is there exactly once, wherever it lands
                lines = p.stderr.splitlines()
                if lines.count('kubus-analyze: no report written') != 1:
                    fail(f'bad input {target} (mpirun): "no report written" not said once:\n'
                         f'{p.stderr}')

        bad(os.path.join(tmp, 'nonexistent.otf2'), 'nonexistent.otf2')
        os.mkdir(os.path.join(tmp, 'emptyexp'))
        bad(os.path.join(tmp, 'emptyexp'), os.path.join('emptyexp', 'traces.otf2'))
        garbage = os.path.join(tmp, 'garbage.otf2')
        with open(garbage, 'wb') as f:
            f.write(b'\x00garbage' * 100)
        # OTF2_Reader_Open leaks its half-built archive when the anchor is garbage (OTF2 3.0)
        bad(garbage, 'garbage.otf2', leaks=False)
        d = make('noevt')  # unknown scenario name: make-trace writes the exact trace
        os.unlink(os.path.join(d, 'traces', '1.evt'))
        bad(os.path.join(d, 'traces.otf2'), '1.evt', name='noevt')
        bad(os.path.join(d, 'traces.otf2'), '1.evt', serial=False, name='noevt-mpi')
        d = make('truncevt')
        evt = os.path.join(d, 'traces', '0.evt')
        size = os.path.getsize(evt)
        with open(evt, 'r+b') as f:
            f.truncate(size // 2)
        bad(os.path.join(d, 'traces.otf2'), '0.evt', name='truncevt')
        bad(os.path.join(d, 'traces.otf2'), '0.evt', serial=False, name='truncevt-mpi')
        d = make('truncdef')
        gdef = os.path.join(d, 'traces.def')
        with open(gdef, 'r+b') as f:
            f.truncate(os.path.getsize(gdef) // 2)
        bad(os.path.join(d, 'traces.otf2'), 'traces.def', name='truncdef')
        # a rank's local definitions that are not OTF2 at all (were silently skipped before)
        d = make('garbagedef')
        with open(os.path.join(d, 'traces', '1.def'), 'wb') as f:
            f.write(b'garbage' * 10)
        bad(os.path.join(d, 'traces.otf2'), os.path.join('traces', '1.def'), name='garbagedef')
        bad(os.path.join(d, 'traces.otf2'), os.path.join('traces', '1.def'), serial=False,
            name='garbagedef-mpi')
        # event records scrambled in place (same size)
        d = make('scrambled')
        evt = os.path.join(d, 'traces', '0.evt')
        with open(evt, 'rb') as f:
            data = bytearray(f.read())
        for i in range(40, len(data) - 4):
            data[i] ^= 0x5a
        with open(evt, 'wb') as f:
            f.write(data)
        bad(os.path.join(d, 'traces.otf2'), '0.evt', name='scrambled')

        # the report cannot be written: a clear message, and neither file (nor a temporary one)
        d = make('exact')
        for what, out, needle in (
                ('no such folder', os.path.join(tmp, 'missing', 'r.cube'), os.path.join('missing', 'r.cube')),
                ('statistics blocked', os.path.join(tmp, 'blocked.cube'), 'blocked.stats.json')):
            if what == 'statistics blocked':
                os.mkdir(os.path.join(tmp, 'blocked.stats.json'))   # a folder where the file goes
            before = set(os.listdir(tmp))
            p = analyze(a, os.path.join(d, 'traces.otf2'), out, serial=True, expect_rc=1)
            if needle not in p.stderr or 'no report written' not in p.stderr:
                fail(f'{what}: message does not name {needle!r} or say no report was written:\n{p.stderr}')
            if set(os.listdir(tmp)) != before or os.path.exists(out):
                fail(f'{what}: files left behind: {sorted(set(os.listdir(tmp)) - before)}')
    return 0


def kubus_run(a, expdir, app_args, expect_rc=0):
    cmd = [a.run, '-o', expdir, '--', 'mpirun', '-n', a.ranks, '--oversubscribe', a.app] + app_args
    p = run(cmd)
    if p.returncode != expect_rc:
        fail(f'{" ".join(map(str, cmd))}: exit {p.returncode}, expected {expect_rc}\n{p.stdout}\n{p.stderr}')
    return p.returncode == expect_rc


def finalize_truth(expected, ranks):
    """Measured Wait at Finalize per rank from the arrival files the program wrote after
    MPI_Finalize (ws_finalize in ws-common.h): latest arrival − own arrival; None without them."""
    arrivals = []
    for r in range(int(ranks)):
        try:
            with open(f'{expected}.arrival.{r}') as f:
                arrivals.append(float(f.read()))
        except FileNotFoundError:
            return None
    last = max(arrivals)
    return [last - t for t in arrivals]


def compute_truth(expected, ranks):
    """Per rank (slept, start, written, exit) from the files the program wrote at exit
    (ws_write_compute in ws-common.h); None without them."""
    out = []
    for r in range(int(ranks)):
        try:
            with open(f'{expected}.compute.{r}') as f:
                out.append(tuple(float(x) for x in f.read().split()))
        except FileNotFoundError:
            return None
    return out


# Computation of an uninstrumented program (the collector's program region): the program's
# only work outside MPI is sleeping, so Computation per rank = the time its sleeps took plus
# the few instructions around them and its start-up before MPI_Init. On 2 busy cores with 4
# ranks a rank woken from a sleep may wait for a core before it enters the next MPI call; that
# wait is computation too but not in the measured sleep (worst seen: 20 ms under ASan beside
# two busy loops; docs/decisions/collect-program-region.md). The sleeps themselves are
# computation for certain: Computation may not fall short of them by more than 1 ms.
COMP_REL, COMP_ABS = 0.05, 0.050
# The programs do nothing outside MPI but sleep, and measure their sleeps: a rank whose
# computation exceeds them by more than this was held off its CPU between a clock reading and
# an MPI call (a busy or stalled machine; 1-10 ms is usual, 44 ms seen once with 4 ranks on 2
# cores). Such a pause also shifts the wait the program measured from that clock reading.
STALL = 0.020


def check_program_time(per, truth):
    """Time per rank is the whole program (from loading to MPI_Finalize), Computation = Time
    − MPI, and Computation is the known sleep time."""
    for r, (slept, start, written, at_exit) in enumerate(truth):
        t = per.get(('time', r), 0.0)
        comp = per.get(('comp', r), 0.0)
        mpi = per.get(('mpi', r), 0.0)
        # the program region opens when the collector is loaded, before the program's own
        # constructors, and closes in MPI_Finalize, after ws_write and before exit (1 ms for
        # the collector's TSC rate and the clock-offset correction against CLOCK_MONOTONIC)
        lo, hi = written - start - 0.001, at_exit - start + 0.005
        ok = lo <= t <= hi
        print(f'time rank {r}: {t:.6f} in [{lo:.6f}, {hi:.6f}] {"ok" if ok else "MISMATCH"}')
        if not ok:
            fail(f'time on rank {r}: {t:.6f} s, the program ran from {lo:.6f} to {hi:.6f} s', exact=False)
        if not close(comp + mpi, t, 1e-9, 1e-9):
            fail(f'rank {r}: computation {comp:.9f} + MPI {mpi:.9f} != time {t:.9f}')
        ok = close(comp, slept, COMP_REL, COMP_ABS) and comp >= slept - 0.001
        if comp - slept > STALL:
            stalls.append((r, comp - slept))
        print(f'comp rank {r}: expected {slept:10.6f} analysed {comp:10.6f} {"ok" if ok else "MISMATCH"}')
        if not ok:
            fail(f'computation on rank {r}: analysed {comp:.6f} s, slept {slept:.6f} s', exact=False)


def cmd_wait(a):
    """One run of the program under the collector, analysed and compared with the waits the
    program measured. A run where a rank was held off its CPU outside its sleeps (see STALL) and
    only measured times disagree is run once more: the program's own truth is off by that pause
    there. Counts, bytes and the structure of the report fail at once; a second disagreement
    fails too."""
    rc = wait_once(a)
    if failures and stalls and not exact_failures:
        print(f'note: rank {stalls[0][0]} ran {stalls[0][1] * 1e3:.0f} ms outside its sleeps '
              f'(held off its CPU), so the measured waits are not the truth: {len(failures)} '
              f'failure(s) of that run set aside, running again', file=sys.stderr)
        failures.clear()
        stalls.clear()
        rc = wait_once(a)
    return rc


def wait_once(a):
    with tempfile.TemporaryDirectory() as tmp:
        exp = os.path.join(tmp, 'exp')
        expected = os.path.join(tmp, 'expected.txt')
        if not kubus_run(a, exp, [expected]):
            return 1
        p = analyze(a, exp)
        print(p.stderr)
        check_progress(p.stderr)
        csv, tot, per = dump(a, os.path.join(exp, 'analysis.cube'))
        check_stats(os.path.join(exp, 'analysis.stats.json'))
        # nothing negative anywhere (metric × call path × rank)
        neg = [l for l in csv.splitlines()[1:] if float(l.split(',')[3]) < 0]
        if neg:
            fail(f'negative values in the report: {neg[:5]}')
        # every message matched: no warning, nothing unmatched in the statistics
        if 'without a matching send' in p.stderr:
            fail(f'unmatched messages:\n{p.stderr}')
        with open(os.path.join(exp, 'analysis.stats.json')) as f:
            js = json.load(f)
        if js.get('unmatched_sends') or js.get('unmatched_receives'):
            fail(f'unmatched messages: {js.get("unmatched_sends")} sends, '
                 f'{js.get("unmatched_receives")} receives')
        # the same analysis in one process: byte-for-byte the same report and statistics
        ser = os.path.join(tmp, 'serial.cube')
        analyze(a, os.path.join(exp, 'traces.otf2'), ser, serial=True)
        for x, y in ((os.path.join(exp, 'analysis.cube'), ser),
                     (os.path.join(exp, 'analysis.stats.json'), ser[:-5] + '.stats.json')):
            with open(x, 'rb') as fa, open(y, 'rb') as fb:
                if fa.read() != fb.read():
                    fail(f'--serial and parallel: {os.path.basename(x)} and {os.path.basename(y)} differ')
        truth = finalize_truth(expected, a.ranks)
        with open(expected) as f:
            for line in f:
                m, v = line.split()
                v = float(v)
                if m == 'mpi_finalize_wait':
                    if truth is None:
                        fail('mpi_finalize_wait declared but no arrival files')
                        continue
                    v = sum(truth)
                    # per rank too: the wait belongs to the ranks that arrived early
                    for r, w in enumerate(truth):
                        g = per.get((m, r), 0.0)
                        ok = close(g, w, 0.05, 0.005)
                        print(f'{m:24s} rank {r}: expected {w:10.6f} analysed {g:10.6f} '
                              f'{"ok" if ok else "MISMATCH"}')
                        if not ok:
                            fail(f'{m} on rank {r}: analysed {g:.6f} s, measured {w:.6f} s', exact=False)
                got = tot.get(m, 0.0)
                exact = m.startswith(('comms_', 'syncs_', 'bytes_'))
                if exact:
                    ok = got == v   # message counts and bytes are exact
                else:
                    ok = close(got, v, 0.05, 0.005)
                print(f'{m:24s} expected {v:10.6f} analysed {got:10.6f} {"ok" if ok else "MISMATCH"}')
                if not ok:
                    fail(f'{m}: analysed {got:.6f} s, measured {v:.6f} s', exact)
        # per rank, for the programs that write their own share (ws_per_rank in ws-common.h)
        for r in range(int(a.ranks)):
            path = f'{expected}.rank.{r}'
            if not os.path.exists(path):
                continue
            with open(path) as f:
                for line in f:
                    m, v = line.split()
                    v = float(v)
                    if m == 'mpi_finalize_wait':
                        continue   # checked per rank above, from the measured arrivals
                    got = per.get((m, r), 0.0)
                    exact = m.startswith(('comms_', 'syncs_', 'bytes_'))
                    ok = got == v if exact else close(got, v, 0.05, 0.005)
                    if not ok:
                        print(f'{m:24s} rank {r}: expected {v:10.6f} analysed {got:10.6f} MISMATCH')
                        fail(f'{m} on rank {r}: analysed {got:.6f}, measured {v:.6f}', exact)
        if 'nonblocking' in os.path.basename(a.app):
            # the root causes explain the non-blocking collectives' waits as the blocking
            # forms': every wait of a kind is charged to that kind's delay costs, short-term or
            # long-term (a rank late because it waited itself passes the cost on; every late
            # rank here is late by its own sleep, so no wait stays unexplained)
            for wm, dm in (('mpi_barrier_wait', 'delay_barrier'), ('mpi_wait_nxn', 'delay_n2n'),
                           ('mpi_latebroadcast', 'delay_12n'), ('mpi_earlyreduce', 'delay_n21'),
                           ('mpi_latesender', 'delay_latesender')):
                d = tot.get(dm, 0.0) + tot.get(dm + '_longterm', 0.0)
                ok = close(d, tot.get(wm, 0.0), 1e-3, 1e-3)   # a jitter wait may stay unexplained
                print(f'{dm:24s} {d:10.6f} = {wm} {tot.get(wm, 0.0):10.6f} {"ok" if ok else "MISMATCH"}')
                if not ok:
                    fail(f'{dm} (+ long-term) {d:.6f} s, {wm} {tot.get(wm, 0.0):.6f} s')
        compute = compute_truth(expected, a.ranks)
        if compute is None:
            fail('the program wrote no computation truth (.compute.RANK files)')
        else:
            check_program_time(per, compute)
        if 'is not measured' in p.stderr:
            fail('the program region is there, yet the summary says computation is not measured')
    return 0


def cmd_aborted(a):
    """A real collector trace of a run that ended in MPI_Abort (tests/apps/ws-aborted.c):
    the analysis warns with the exact count of unmatched messages, analyses what matches (the
    Late Sender before the abort agrees with the program's own measurement) and writes the
    report, in parallel and with --serial."""
    n = int(a.ranks)
    with tempfile.TemporaryDirectory() as tmp:
        exp = os.path.join(tmp, 'exp')
        expected = os.path.join(tmp, 'expected.txt')
        if not kubus_run(a, exp, [expected], expect_rc=3):
            return 1
        with open(expected) as f:
            want = {m: float(v) for m, v in (line.split() for line in f)}
        warning = (f'note: {n - 1} message was sent and never received' if n == 2 else
                   f'note: {n - 1} messages were sent and never received') + \
            ' (left in flight when the program ended, or cut off by an abort)'
        for serial in (False, True):
            out = os.path.join(tmp, f'aborted-{serial}.cube')
            p = analyze(a, os.path.join(exp, 'traces.otf2'), out, serial=serial)
            print(p.stderr)
            if warning not in p.stderr:
                fail(f'aborted (serial={serial}): no warning {warning!r}:\n{p.stderr}')
            # the program region was closed on the abort path: computation is measured
            if 'is not measured' in p.stderr:
                fail(f'aborted (serial={serial}): the summary says computation is not measured')
            if not re.search(r'computation [1-9]|computation 0\.[0-9]*[1-9]', p.stderr):
                fail(f'aborted (serial={serial}): no computation in the summary:\n{p.stderr}')
            if not os.path.exists(out) or not os.path.exists(out[:-5] + '.stats.json'):
                fail(f'aborted (serial={serial}): no report written')
                continue
            with open(out[:-5] + '.stats.json') as f:
                js = json.load(f)
            if (js.get('unmatched_sends'), js.get('unmatched_receives')) != (n - 1, 0):
                fail(f'aborted (serial={serial}): statistics file says {js.get("unmatched_sends")} '
                     f'unmatched sends, {js.get("unmatched_receives")} unmatched receives')
            _, tot, per = dump(a, out)
            m, v = 'mpi_latesender', want['mpi_latesender']
            got = per.get((m, 1), 0.0)
            ok = close(got, v, 0.05, 0.005) and close(tot.get(m, 0.0), v, 0.05, 0.005)
            print(f'{m:24s} expected {v:10.6f} analysed {got:10.6f} {"ok" if ok else "MISMATCH"}')
            if not ok:
                fail(f'aborted (serial={serial}): {m} analysed {got:.6f} s on rank 1 '
                     f'({tot.get(m, 0.0):.6f} s in all), measured {v:.6f} s')
            # the unmatched sends still count as messages and bytes of their senders
            for r in range(n):
                sends = per.get(('comms_send', r), 0.0)
                if sends != (2 if r == 0 else 0 if r == 1 else 1):
                    fail(f'aborted (serial={serial}): rank {r} has {sends} data-carrying sends')
    return 0


def cmd_sweep(a):
    with tempfile.TemporaryDirectory() as tmp:
        exp = os.path.join(tmp, 'exp')
        info = os.path.join(tmp, 'dims.txt')
        if not kubus_run(a, exp, [info]):
            return 1
        p = analyze(a, exp)
        print(p.stderr)
        if 'is not measured' in p.stderr:
            fail('the sweep program has user regions, yet the summary says computation is not measured')
        _, tot, per = dump(a, os.path.join(exp, 'analysis.cube'))
        with open(info) as f:
            _, dx, dy = f.read().split()
        dx, dy = int(dx), int(dy)
        n = dx * dy
        coords = {r: (r // dy, r % dy) for r in range(n)}  # MPI row-major, no reorder
        last = {'nw': (dx - 1, dy - 1), 'ne': (0, dy - 1), 'sw': (dx - 1, 0), 'se': (0, 0)}
        for corner, where in last.items():
            m = 'mpi_ls_wavefront_' + corner
            vals = [per.get((m, r), 0.0) for r in range(n)]
            print(m, ' '.join('%.4f' % v for v in vals))
            if tot.get(m, 0.0) <= 0:
                fail(f'{m} is zero')
                continue
            best = max(range(n), key=lambda r: vals[r])
            if coords[best] != where:
                fail(f'{m}: rank {best} at {coords[best]} waits most, expected the corner {where}')
        p = run([a.cube, 'info', os.path.join(exp, 'analysis.cube')])
        if 'topologies: 0' in p.stdout:
            fail('the Cartesian topology is missing from the report')
    return 0


# Clock repair (issue 17). clock-flood runs with rank 2's clock skewed by the test-only
# KUBUS_TEST_CLOCK_SKEW (its ClockOffset records say +2 ms, growing by 50 µs/s: what a bad
# offset measurement between hosts writes); the same trace with those records set to 0 by
# clock-check --zero-offsets is the truth (one host: the raw times are exact). Analysed with
# the repair, the skewed trace must give the unskewed analysis back within the skew's residue:
# each rank's clock may carry the largest correction Δ across a few transitions, so every total
# may differ by at most 2·ranks·Δ. Without the repair it does not (Late Sender), and the
# violations are reported. Parallel and --serial give the same bytes.
CLOCK_SKEW = '2:2000000:50000'
CLOCK_METRICS = ('time', 'mpi', 'mpi_latesender', 'mpi_latereceiver', 'mpi_wait_nxn',
                 'mpi_nxn_completion', 'mpi_init_completion', 'mpi_finalize_wait')


def cmd_clockrepair(a):
    sanitized = bool(os.environ.get('KUBUS_SANITIZED'))
    # rank 1 sleeps 1 ms every 10 iterations: Late Senders of known size on rank 2, which the
    # skew hides without the repair (about 1 ms each)
    iterations = '500' if sanitized else '1000'
    with tempfile.TemporaryDirectory() as tmp:
        skewed, unskewed = os.path.join(tmp, 'skewed'), os.path.join(tmp, 'unskewed')
        os.environ['KUBUS_TEST_CLOCK_SKEW'] = CLOCK_SKEW
        try:
            if not kubus_run(a, skewed, [iterations, '10']):
                return 1
        finally:
            del os.environ['KUBUS_TEST_CLOCK_SKEW']
        shutil.copytree(skewed, unskewed)
        p = run([a.clock_check, '--zero-offsets', os.path.join(unskewed, 'traces.otf2'), '2'])
        if p.returncode != 0:
            fail(f'clock-check --zero-offsets: {p.stderr}')
            return 1
        results = {}
        for name, target, extra, serial in (
                ('truth', unskewed, [], False), ('repaired', skewed, [], False),
                ('serial', skewed, [], True), ('recorded', skewed, ['--no-clock-repair'], True)):
            out = os.path.join(tmp, name + '.cube')
            p = analyze(a, os.path.join(target, 'traces.otf2'), out, serial=serial, extra=extra)
            with open(out[:-5] + '.stats.json') as f:
                js = json.load(f)
            _, tot, _ = dump(a, out)
            results[name] = (p.stderr, js, tot, out)
        truth, rep, rec = results['truth'], results['repaired'], results['recorded']
        # the truth has nothing to repair
        if truth[1].get('clock_violations') != 0 or truth[1]['clock_repair']['corrected_events'] != 0:
            fail(f'unskewed trace: {truth[1].get("clock_violations")} violations, '
                 f'{truth[1]["clock_repair"]}')
        cr = rep[1]['clock_repair']
        delta = cr['largest_correction']
        print(f'repair: {cr}')
        if not (rep[1]['clock_violations'] > 0 and cr['corrected_events'] > 0 and
                cr['remaining_p2p'] == 0 and cr['converged'] and 0.0015 < delta < 0.003):
            fail(f'repair statistics: {rep[1]["clock_violations"]} violations, {cr}')
        if 'Clock condition: ' not in rep[0] or 'receives happen before their send' in rep[0]:
            fail(f'repair summary:\n{rep[0]}')
        if open(rep[3], 'rb').read() != open(results['serial'][3], 'rb').read():
            fail('repaired report: --serial differs from the parallel analysis')
        if rec[1].get('clock_violations') != rep[1]['clock_violations'] or \
           'receives happen before their send' not in rec[0]:
            fail(f'--no-clock-repair: violations not reported:\n{rec[0]}')
        residue = 2 * int(a.ranks) * delta
        for m in CLOCK_METRICS:
            t, r, n = truth[2].get(m, 0.0), rep[2].get(m, 0.0), rec[2].get(m, 0.0)
            ok = abs(r - t) <= residue
            print(f'{m:22} truth {t:.6f} repaired {r:.6f} ({r - t:+.6f}) recorded {n:.6f} '
                  f'({n - t:+.6f}) residue {residue:.6f} {"ok" if ok else "MISMATCH"}')
            if not ok:
                fail(f'{m}: repaired {r:.6f} s, unskewed {t:.6f} s, residue {residue:.6f} s')
        t, n = truth[2].get('mpi_latesender', 0.0), rec[2].get('mpi_latesender', 0.0)
        if abs(n - t) <= residue:
            fail(f'without repair Late Sender {n:.6f} s is within the residue of {t:.6f} s: '
                 'the test could not tell a repair from none')
    return 0


def cmd_modes(a):
    """Where the analysis runs (analyze-mode.c): one line says which mode and why; a small trace
    is analysed in this process, one whose estimated memory exceeds --memory-budget by the
    parallel MPI replay; --serial, --parallel[=N], --threads and KUBUS_ANALYZE_MODE decide
    instead; and every mode writes the same report, value for value."""
    why = re.compile(r'^kubus-analyze: (analysing in .*|parallel replay .*)$', re.M)

    def said(p, what):
        lines = why.findall(p.stderr)
        if len(lines) != 1:
            fail(f'{what}: {len(lines)} lines on the mode, expected one:\n{p.stderr[-2000:]}')
            return ''
        print(f'{what}: {lines[0]}')
        return lines[0]

    with tempfile.TemporaryDirectory() as tmp:
        traces = []
        for scenario in ('forms', 'clockviol'):
            d = os.path.join(tmp, scenario)
            p = run([a.make_trace, scenario, d])
            if p.returncode != 0:
                fail(f'make-trace {scenario}: {p.stderr}')
            traces.append((scenario, os.path.join(d, 'traces.otf2'), 2))
        data = os.environ.get('KUBUS_SHARED_DATA', '')
        casita = os.path.join(data, 'otf2', 'casita_10_scorep_mpi_tags', 'traces.otf2')
        if data and os.path.exists(casita):
            traces.append(('casita10', casita, 10))
        # (options, environment, what the line must say); the MPI runs kept few: they are the
        # slow ones on a busy machine
        runs = {
            'forms': [([], {}, 'analysing in this process with 1 thread: 2 ranks'),
                      (['--serial', '--threads=2'], {}, 'analysing in this process with 2 threads (--serial)'),
                      # both ranks in one MPI process
                      (['--parallel=1'], {}, 'parallel replay with 1 MPI process (--parallel)'),
                      ([], {'KUBUS_ANALYZE_MODE': 'serial'}, '(--serial)')],
            'clockviol': [(['--serial'], {}, 'analysing in this process with 1 thread (--serial)'),
                          (['--serial', '--threads=2'], {}, '2 threads (--serial)'),
                          (['--memory-budget=1M'], {}, 'parallel replay with 2 MPI processes: the trace (2 ranks')],
            'casita10': [([], {}, 'analysing in this process with 1 thread: 10 ranks'),
                         (['--serial', '--threads=4'], {}, '4 threads (--serial)'),
                         (['--parallel=3', '--threads=2'], {}, 'parallel replay with 3 MPI processes')],
        }
        for name, anchor, ranks in traces:
            ref = None
            for k, (opts, env, want) in enumerate(runs[name]):
                out = os.path.join(tmp, f'{name}-{k}.cube')
                what = f'{name} {" ".join(opts + [f"{e}={v}" for e, v in env.items()]) or "(default)"}'
                e = env_for_mpi(leaks=not any(o.startswith('--p') or o.startswith('--m') for o in opts))
                e.update(env)
                p = subprocess.run([str(a.analyze), anchor, '-o', out] + opts, capture_output=True, text=True,
                                   timeout=280, env=e)
                if p.returncode != 0:
                    fail(f'{what}: exit {p.returncode}\n{p.stderr[-2000:]}')
                    continue
                line = said(p, what)
                if want not in line:
                    fail(f'{what}: the line on the mode does not say {want!r}: {line!r}')
                if 'memory-budget' in ' '.join(opts) and 'more than the memory budget (1.0 MiB' not in line:
                    fail(f'{what}: the fallback does not name the budget: {line!r}')
                csv = dump(a, out)[0]
                if not csv:
                    fail(f'{what}: empty report')
                elif ref is None:
                    ref = (what, csv)
                elif csv != ref[1]:
                    fail(f'{what}: the report differs from {ref[0]}')
        # the options' bad values and combinations
        anchor = traces[0][1]
        for opts, needle in ((['--serial', '--parallel'], 'exclude each other'),
                             (['--parallel=x'], '--parallel: “x” is not a number'),
                             (['--memory-budget=lots'], '--memory-budget: “lots” is not a size'),
                             (['--threads=-2'], '--threads takes a positive number')):
            p = run([a.analyze, anchor, '-o', os.path.join(tmp, 'bad.cube')] + opts, leaks=True)
            if p.returncode == 0 or needle not in p.stderr or os.path.exists(os.path.join(tmp, 'bad.cube')):
                fail(f'{" ".join(opts)}: exit {p.returncode}, expected an error with {needle!r}:\n{p.stderr}')
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('mode')
    ap.add_argument('--analyze')
    ap.add_argument('--cube')
    ap.add_argument('--run')
    ap.add_argument('--app')
    ap.add_argument('--ranks', default='4')
    ap.add_argument('--make-trace')
    ap.add_argument('--clock-check')
    a = ap.parse_args()
    rc = {'scorep': cmd_scorep, 'synthetic': cmd_synthetic, 'wait': cmd_wait,
          'aborted': cmd_aborted, 'sweep': cmd_sweep, 'clockrepair': cmd_clockrepair,
          'modes': cmd_modes}[a.mode](a)
    if failures:
        print(f'{len(failures)} failure(s)', file=sys.stderr)
        return 1
    return rc


if __name__ == '__main__':
    sys.exit(main())
