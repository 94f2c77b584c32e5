#!/usr/bin/env python3
"""kubus-cube killed (SIGTERM / SIGINT) while it writes a result leaves nothing behind: no
temporary file, no target, and it dies of the signal.

  test-interrupt.py KUBUS_CUBE

A report of 20 metrics × 400 call paths × 256 locations (2 M values) is converted to .cube.gz,
which takes about a second; the test waits until the temporary file appears, then sends the
signal. If a run finishes before the signal could be sent (or arrived), it is retried (at most
5 times).
"""
import os
import signal
import subprocess
import sys
import tempfile
import time


def write_report(path, metrics=20, cnodes=400, locs=256):
    with open(path, 'w') as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<cube version="3.0">\n<metrics>\n')
        for m in range(metrics):
            f.write('<metric id="%d"><disp_name>M%d</disp_name><uniq_name>m%d</uniq_name>'
                    '<dtype>FLOAT</dtype><uom>sec</uom><url/><descr/></metric>\n' % (m, m, m))
        f.write('</metrics>\n<program>\n<region id="0" mod="a.c" begin="1" end="2"><name>main'
                '</name><url/><descr/></region>\n<cnode id="0" calleeId="0">\n')
        for c in range(1, cnodes):
            f.write('<cnode id="%d" calleeId="0"></cnode>\n' % c)
        f.write('</cnode>\n</program>\n<system><machine Id="0"><name>m</name><node Id="0">'
                '<name>n</name>\n')
        for t in range(locs):
            f.write('<process Id="%d"><name>p</name><rank>%d</rank><thread Id="%d"><name>t'
                    '</name><rank>0</rank></thread></process>\n' % (t, t, t))
        f.write('</node></machine></system>\n<severity>\n')
        for m in range(metrics):
            f.write('<matrix metricId="%d">\n' % m)
            for c in range(cnodes):
                f.write('<row cnodeId="%d">\n' % c)
                f.write('\n'.join('%.17g' % ((m + 1) * 1.0e-3 * (c + 1) + t / 7.0)
                                  for t in range(locs)))
                f.write('\n</row>\n')
            f.write('</matrix>\n')
        f.write('</severity>\n</cube>\n')


def attempt(kc, src, tmp, sig):
    out = os.path.join(tmp, 'out.cube.gz')
    p = subprocess.Popen([kc, 'convert', src, '-o', out], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while p.poll() is None and time.monotonic() < deadline:
        if any('.tmp-' in n for n in os.listdir(tmp)):
            p.send_signal(sig)
            break
        time.sleep(0.002)
    else:
        p.kill()
        p.wait()
        for n in os.listdir(tmp):
            if n != 'in.cube':
                os.unlink(os.path.join(tmp, n))
        return None  # finished (or hung) before the signal: try again
    rc = p.wait()
    left = sorted(n for n in os.listdir(tmp) if n != 'in.cube')
    if rc == 0 and left == ['out.cube.gz']:
        # the write ended between seeing the temporary file and the signal: not a failure of
        # the program, a race of the test; try again
        os.unlink(out)
        return None
    return rc, left


def main():
    kc = sys.argv[1]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'in.cube')
        write_report(src)
        for sig in (signal.SIGTERM, signal.SIGINT):
            for _ in range(5):
                res = attempt(kc, src, tmp, sig)
                if res is not None:
                    break
            if res is None:
                print('%s: the write always finished before the signal' % sig.name)
                failures += 1
                continue
            rc, left = res
            if rc != -sig or left:
                print('%s: exit %d (want %d), left behind: %s' % (sig.name, rc, -sig, left))
                failures += 1
            else:
                print('%s during the write: no file left, died of the signal' % sig.name)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
