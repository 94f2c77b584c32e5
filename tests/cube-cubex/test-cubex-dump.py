#!/usr/bin/env python3
"""Compares `kubus-cube dump --csv FILE` with the independent oracle (cubex-oracle.py), value
by value, for the hand-made archives and the real .cubex files in $KUBUS_SHARED_DATA/cube.

  test-cubex-dump.py KUBUS_CUBE HANDMADE_DIR

Values that are zero up to rounding (|v| <= 1e-9 * the metric's largest |v|, the residue of
subtracting children from an inclusive parent) may be printed by one side and not the other;
every other value must agree to 1e-9 relative.
"""
import importlib.util
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location('oracle', os.path.join(here, 'cubex-oracle.py'))
oracle = importlib.util.module_from_spec(spec)
spec.loader.exec_module(oracle)


def expected(path):
    cx = oracle.Cubex(path)
    out = {}
    for m in cx.metrics:
        if not cx.raw[m.id]:
            continue
        for c in cx.cnodes:
            for li, v in enumerate(cx.cube3(m, c)):
                if v != 0:
                    out[(m.uniq, c.id, li)] = v
    return out


def dumped(exe, path):
    res = subprocess.run([exe, 'dump', '--csv', path], capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit('%s dump --csv %s failed (%d): %s' % (exe, path, res.returncode,
                                                               res.stderr))
    lines = res.stdout.splitlines()
    assert lines[0] == 'metric,cnode,location,value', lines[0]
    out = {}
    for line in lines[1:]:
        metric, cnode, loc, val = line.rsplit(',', 3)
        out[(metric.strip('"'), int(cnode), int(loc))] = float(val)
    return out


def compare(exe, path):
    want = expected(path)
    got = dumped(exe, path)
    scale = {}
    for (m, _, _), v in list(want.items()) + list(got.items()):
        scale[m] = max(scale.get(m, 0.0), abs(v))
    bad = []
    for key in set(want) | set(got):
        a, b = want.get(key, 0.0), got.get(key, 0.0)
        tiny = 1e-9 * scale[key[0]]
        if abs(a) <= tiny and abs(b) <= tiny:
            continue
        if abs(a - b) > 1e-9 * max(abs(a), abs(b)):
            bad.append((key, a, b))
    for key, a, b in sorted(bad)[:10]:
        print('%s: %s cnode %d location %d: oracle %.17g, kubus-cube %.17g' % (
            os.path.basename(path), key[0], key[1], key[2], a, b))
    print('%s: %d values compared, %d differ' % (os.path.basename(path), len(want), len(bad)))
    return not bad


NOTES = [
    'note: metric “hist” has the unsupported data type HISTOGRAM(4); its values are not dumped',
    'note: metric “derived” is derived (POSTDERIVED): it has no stored values to dump',
    'note: metric “weird” has the unsupported data type FOO; its values are not dumped',
]


def check_notes(exe, handmade):
    """Metrics without stored values are named on stderr, in metric order, and only those."""
    path = os.path.join(handmade, 'good.cubex')
    ok = True
    for args, want in ((['dump', '--csv', path], NOTES),
                       (['dump', '--csv', '--metric', 'derived', path], NOTES[1:2]),
                       (['dump', '--csv', '--metric', 'time', path], [])):
        res = subprocess.run([exe] + args, capture_output=True, text=True)
        got = res.stderr.splitlines()
        exp = ['kubus-cube: %s: %s' % (path, n) for n in want]
        if res.returncode != 0 or got != exp:
            print('notes of %s: exit %d, stderr %r, want %r' % (args, res.returncode, got, exp))
            ok = False
    if res.returncode == 0 and subprocess.run(
            [exe, 'dump', '--csv', '--metric', 'derived', path], capture_output=True,
            text=True).stdout != 'metric,cnode,location,value\n':
        print('dump of a derived metric is not just the header')
        ok = False
    return ok


def check_totals(exe, path):
    """`kubus-cube info` totals of the root metrics against the oracle: sums of every value for
    ordinary metrics; for MINDOUBLE/MAXDOUBLE the min/max over the stored rows (of the call
    tree roots for an inclusive metric), where a stored 0 counts and an absent row does not,
    as in cubelib."""
    cx = oracle.Cubex(path)
    res = subprocess.run([exe, 'info', path], capture_output=True, text=True)
    got = {}
    for line in res.stdout.splitlines():
        if line.startswith('total '):
            name, rest = line[len('total '):].split(': ', 1)
            got[name] = float(rest.split()[0])
    ok = res.returncode == 0
    for m in cx.metrics:
        if m.parent is not None or not cx.raw[m.id]:
            continue
        if m.dtype in ('MINDOUBLE', 'MAXDOUBLE'):
            vals = [v for c in cx.cnodes
                    if not (m.kind == 'INCLUSIVE' and c.parent is not None)
                    for v in cx.raw[m.id].get(c.id, [])]
            want = (min if m.dtype == 'MINDOUBLE' else max)(vals)
        else:
            want = sum(sum(cx.cube3(m, c)) for c in cx.cnodes)
        if m.uniq not in got or abs(got[m.uniq] - want) > 1e-12 * max(1.0, abs(want)):
            print('%s: total %s = %r, oracle %r' % (os.path.basename(path), m.uniq,
                                                   got.get(m.uniq), want))
            ok = False
    return ok


def main():
    exe, handmade = sys.argv[1], sys.argv[2]
    notes_ok = check_notes(exe, handmade)
    files = [os.path.join(handmade, f) for f in ('good.cubex', 'good-gzanchor.cubex',
                                                 'good-pax.cubex')]
    shared = os.environ.get('KUBUS_SHARED_DATA')
    real = sorted(f for f in os.listdir(os.path.join(shared, 'cube')) if f.endswith('.cubex')) \
        if shared and os.path.isdir(os.path.join(shared, 'cube')) else []
    files += [os.path.join(shared, 'cube', f) for f in real]
    ok = all([compare(exe, f) for f in files])
    ok = all([check_totals(exe, f) for f in files]) and ok
    if not real:
        print('no real .cubex files: only hand-made archives checked')
    sys.exit(0 if ok and notes_ok else 1)


if __name__ == '__main__':
    main()
