#!/usr/bin/env python3
"""End to end: `kubus-cube diff|mean|merge … -o OUT` written as CUBE 3 XML, read back with
`kubus-cube dump --csv`.

  test-algebra-cli.py KUBUS_CUBE

For real reports X in $KUBUS_SHARED_DATA/cube (exit 77 when absent):
  diff X X  -> the dump has no values at all;
  mean X X  -> exactly X's dump (the result keeps the first input's call path ids);
  merge X X X -> likewise (the first input provides every metric);
  mean X X X -> X's values within one rounding (3x/3), same (metric, cnode, location) keys;
  diff X Y of two different reports -> per (metric, location) totals are X's minus Y's.
"""
import collections
import os
import subprocess
import sys
import tempfile


def run(args):
    res = subprocess.run(args, capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit('%s failed (%d): %s' % (' '.join(args), res.returncode, res.stderr))
    return res.stdout


def dump(exe, path):
    lines = run([exe, 'dump', '--csv', path]).splitlines()
    assert lines[0] == 'metric,cnode,location,value', lines[0]
    out = []
    for line in lines[1:]:
        metric, cnode, loc, val = line.rsplit(',', 3)
        out.append((metric.strip('"'), int(cnode), int(loc), float(val)))
    return out


def multiset(rows):
    return collections.Counter((m, l, v) for m, _, l, v in rows)


def totals(rows):
    t = collections.defaultdict(float)
    for m, _, l, v in rows:
        t[(m, l)] += v
    return t


def main():
    exe = os.path.abspath(sys.argv[1])
    shared = os.environ.get('KUBUS_SHARED_DATA')
    base = os.path.join(shared or '', 'cube')
    files = ['scorep9_time_p4_profile.cubex', 'scorep13_mm_x2000_zcompressed.cubex',
             'cubelib_test32_example_multitopo.cube']
    if not shared or not all(os.path.exists(os.path.join(base, f)) for f in files):
        sys.exit(77)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'out.cube')
        for f in files:
            x = os.path.join(base, f)
            # written reports number call paths 0..n-1 in file order (Score-P 9's own file
            # does not): compare with X as written, whose ids are the ones results get
            dense = os.path.join(tmp, 'dense.cube')
            run([exe, 'convert', x, '-o', dense])
            orig = dump(exe, dense)
            run([exe, 'diff', x, x, '-o', out])
            d = dump(exe, out)
            if d:
                print('%s: diff X X has %d non-zero values, e.g. %s' % (f, len(d), d[:3]))
                failures += 1
            for op in (['mean', x, x], ['merge', x, x, x]):
                run([exe] + op + ['-o', out])
                got = dump(exe, out)
                if got != orig:
                    g, w = multiset(got), multiset(orig)
                    print('%s: %s differs from X: %d extra, %d missing, first rows %s / %s' % (
                        f, op[0], sum((g - w).values()), sum((w - g).values()), got[:2], orig[:2]))
                    failures += 1
            run([exe, 'mean', x, x, x, '-o', out])
            got = {(m, c, l): v for m, c, l, v in dump(exe, out)}
            want = {(m, c, l): v for m, c, l, v in orig}
            off = [k for k in want if abs(got.get(k, 0.0) - want[k]) > 4.5e-16 * abs(want[k])]
            if set(got) != set(want) or off:
                print('%s: mean X X X: %d keys differ, %d values off, e.g. %s' % (
                    f, len(set(got) ^ set(want)), len(off), off[:3]))
                failures += 1
            print('%s: diff, mean, merge ok (%d values)' % (f, len(orig)))

        # two different reports: Score-P 1.4 (8 ranks) minus Score-P 9 (4 ranks)
        x = os.path.join(base, 'scorep14_kripke_p8_bigendian.cubex')
        y = os.path.join(base, 'scorep9_time_p4_profile.cubex')
        if os.path.exists(x):
            run([exe, 'diff', x, y, '-o', out])
            tx, ty, td = totals(dump(exe, x)), totals(dump(exe, y)), totals(dump(exe, out))
            for key in set(tx) | set(ty) | set(td):
                if key[0] in ('min_time', 'max_time'):
                    continue    # a difference of minima is not a difference of sums
                want = tx.get(key, 0.0) - ty.get(key, 0.0)
                got = td.get(key, 0.0)
                if abs(got - want) > 1e-9 * max(1.0, abs(tx.get(key, 0.0)), abs(ty.get(key, 0.0))):
                    print('diff kripke profile: %s location %d: %r, want %r' % (key + (got, want)))
                    failures += 1
            print('diff of two different reports: %d (metric, location) totals ok' % len(td))
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
