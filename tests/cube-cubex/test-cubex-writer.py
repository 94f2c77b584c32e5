#!/usr/bin/env python3
"""What kubus-cube writes, read by something other than Kubus.

  test-cubex-writer.py KUBUS_CUBE HANDMADE_DIR
  test-cubex-writer.py KUBUS_CUBE --analyze KUBUS_ANALYZE --run KUBUS_RUN --demo WS_DEMO

The first form: for every hand-made and shared report, `convert`, `diff`, `merge` and `mean`
write OUT.cubex and OUT.cube. The second: the case that crashed cubelib (issue 16),
`kubus-cube diff scout.cubex analysis.cube`, with Scalasca's scout reports in
$KUBUS_SHARED_DATA/cube and fresh Kubus analyses of the same programs: the Score-P trace of
casita_4_mpi_ls_barr, and the demo program (tests/apps/ws-demo.c) measured on 4 ranks now.
In both:
  - OUT.cubex is a real Cube 4 archive: a tar that Python's tarfile reads (valid ustar headers
    and checksums) holding anchor.xml (<cube version="4.x">, system tree of systemtreenode /
    locationgroup / location) and only N.index / N.data members of metrics that exist;
  - every tree in both files has ids 0..n-1 in file order (metrics, regions, call paths,
    system tree nodes, location groups / processes, locations / threads, machines, nodes);
  - the independent Python reader (cubex-oracle.py) reads every value of OUT.cubex exactly as
    `kubus-cube dump` prints OUT.cube (same doubles, %.17g), and nothing more or less.
Exit 0 pass, 1 fail, 77 skip.
"""
import argparse
import importlib.util
import os
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location('oracle', os.path.join(here, 'cubex-oracle.py'))
oracle = importlib.util.module_from_spec(spec)
spec.loader.exec_module(oracle)

failures = []


def fail(msg):
    failures.append(msg)
    print('FAIL:', msg)


def run(cmd):
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    if p.returncode != 0:
        fail('%s: exit %d\n%s' % (' '.join(map(str, cmd)), p.returncode, p.stderr))
    return p


def check_dense(name, root):
    """Ids 0..n-1 in document order for every kind of node."""
    kinds = {'metric': 'id', 'region': 'id', 'cnode': 'id', 'systemtreenode': 'Id',
             'locationgroup': 'Id', 'location': 'Id', 'machine': 'Id', 'node': 'Id',
             'process': 'Id', 'thread': 'Id'}
    for tag, attr in kinds.items():
        ids = [int(e.get(attr)) for e in root.iter(tag)]
        if ids != list(range(len(ids))):
            fail('%s: %s ids are not 0..n-1 in file order: %s' % (name, tag, ids[:40]))
    # references point at defined nodes
    regions = len(list(root.iter('region')))
    for c in root.iter('cnode'):
        if not 0 <= int(c.get('calleeId')) < regions:
            fail('%s: cnode %s calls region %s of %d' % (name, c.get('id'), c.get('calleeId'),
                                                         regions))


def check_cubex(path):
    name = os.path.basename(path)
    try:
        with tarfile.open(path, 'r:') as tf:
            members = {m.name: m for m in tf.getmembers()}
            anchor = tf.extractfile('anchor.xml').read()
    except (tarfile.TarError, KeyError) as e:
        fail('%s: not a tar archive with anchor.xml: %s' % (name, e))
        return None
    root = ET.fromstring(anchor)
    if not root.get('version', '').startswith('4.'):
        fail('%s: anchor version %r' % (name, root.get('version')))
    if list(root.iter('machine')) or list(root.iter('thread')):
        fail('%s: CUBE 3 system tree elements in a Cube 4 anchor' % name)
    check_dense(name + ':anchor.xml', root)
    ids = {m.get('id') for m in root.iter('metric')}
    for n in members:
        stem, _, ext = n.partition('.')
        if n != 'anchor.xml' and (ext not in ('index', 'data') or stem not in ids):
            fail('%s: unexpected member %s' % (name, n))
        if ext == 'index' and stem + '.data' not in members:
            fail('%s: %s without its data' % (name, n))
    return root


def dumped(exe, path):
    lines = run([exe, 'dump', '--csv', path]).stdout.splitlines()
    out = {}
    for line in lines[1:]:
        metric, cnode, loc, val = line.rsplit(',', 3)
        out[(metric.strip('"'), int(cnode), int(loc))] = float(val)
    return out


def oracle_values(path):
    """Non-zero values, as `kubus-cube dump` prints them: a minimum's or maximum's "no value"
    marker (±DBL_MAX: the location never visited the call path) is no value either."""
    cx = oracle.Cubex(path)
    out = {}
    for m in cx.metrics:
        if not cx.raw[m.id]:
            continue
        minmax = m.dtype in ('MINDOUBLE', 'MAXDOUBLE')
        for c in cx.cnodes:
            for li, v in enumerate(cx.cube3(m, c)):
                if v != 0 and not (minmax and abs(v) >= sys.float_info.max):
                    out[(m.uniq, c.id, li)] = float(v)
    return out


def check_pair(exe, cubex, cube3):
    """OUT.cubex through the oracle == OUT.cube through kubus-cube, and OUT.cubex through
    kubus-cube too (exact: the same doubles; %.17g round-trips)."""
    check_cubex(cubex)
    check_dense(os.path.basename(cube3), ET.parse(cube3).getroot())
    want = dumped(exe, cube3)
    for what, got in (('oracle', oracle_values(cubex)), ('kubus-cube', dumped(exe, cubex))):
        if got != want:
            diff = sorted(set(got.items()) ^ set(want.items()))[:6]
            fail('%s read by %s differs from %s: %d vs %d values, e.g. %s' % (
                os.path.basename(cubex), what, os.path.basename(cube3), len(got), len(want),
                diff))
    return len(want)


def analysis_cases(exe, a, shared, tmp):
    env = dict(os.environ)
    ao = env.get('ASAN_OPTIONS', '')
    env['ASAN_OPTIONS'] = (ao + ':' if ao else '') + 'detect_leaks=0'  # Open MPI leaks at exit
    cases = []
    trace = os.path.join(shared, 'otf2', 'casita_4_mpi_ls_barr', 'traces.otf2')
    mine = os.path.join(tmp, 'casita.cube')
    p = subprocess.run([a.analyze, trace, '-o', mine, '--serial', '-q'], capture_output=True,
                       text=True, env=env)
    if p.returncode != 0:
        fail('kubus-analyze %s: exit %d\n%s' % (trace, p.returncode, p.stderr))
    else:
        cases.append(('scalasca26_scout_casita4_trace.cubex', mine))
    exp = os.path.join(tmp, 'demo')
    p = subprocess.run([a.run, '-o', exp, '--', 'mpirun', '-n', '4', '--oversubscribe', a.demo],
                       capture_output=True, text=True, env=env)
    if p.returncode != 0:
        fail('kubus-run of the demo: exit %d\n%s' % (p.returncode, p.stderr))
        return cases
    p = subprocess.run([a.analyze, exp, '-q'], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        fail('kubus-analyze of the demo: exit %d\n%s' % (p.returncode, p.stderr))
    else:
        cases.append(('scalasca26_scout_kubus_demo_trace.cubex', os.path.join(exp, 'analysis.cube')))
    return cases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('exe')
    ap.add_argument('handmade', nargs='?')
    ap.add_argument('--analyze')
    ap.add_argument('--run')
    ap.add_argument('--demo')
    a = ap.parse_args()
    exe = a.exe
    shared = os.environ.get('KUBUS_SHARED_DATA')
    if not shared or not os.path.isdir(os.path.join(shared, 'cube')):
        if a.analyze:
            sys.exit(77)
        shared = None
    with tempfile.TemporaryDirectory() as tmp:
        if a.analyze:
            for scout, mine in analysis_cases(exe, a, shared, tmp):
                out = os.path.join(tmp, 'scout-minus-analysis')
                for ext in ('.cubex', '.cube'):
                    run([exe, 'diff', os.path.join(shared, 'cube', scout), mine, '-o', out + ext])
                n = check_pair(exe, out + '.cubex', out + '.cube')
                cnodes = len(list(ET.parse(out + '.cube').getroot().iter('cnode')))
                print('diff %s analysis.cube: %d call paths, %d values' % (scout, cnodes, n))
            sys.exit(1 if failures else 0)

        sources = [os.path.join(a.handmade, f) for f in ('good.cubex', 'good-pax.cubex')]
        if shared:
            d = os.path.join(shared, 'cube')
            sources += [os.path.join(d, f) for f in sorted(os.listdir(d))]
        for src in sources:
            base = os.path.join(tmp, os.path.basename(src).split('.')[0])
            for ext in ('.cubex', '.cube'):
                run([exe, 'convert', src, '-o', base + ext])
            n = check_pair(exe, base + '.cubex', base + '.cube')
            print('%s: convert: %d values' % (os.path.basename(src), n))
        if shared:
            x = os.path.join(shared, 'cube', 'scorep9_time_p4_profile.cubex')
            y = os.path.join(shared, 'cube', 'scorep14_kripke_p8_bigendian.cubex')
            for op, args in (('diff', [x, y]), ('merge', [x, x]), ('mean', [x, y])):
                out = os.path.join(tmp, op)
                for ext in ('.cubex', '.cube'):
                    run([exe, op] + args + ['-o', out + ext])
                print('%s: %d values' % (op, check_pair(exe, out + '.cubex', out + '.cube')))
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
