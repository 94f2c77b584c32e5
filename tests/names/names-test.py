#!/usr/bin/env python3
"""Every writer makes a valid file whatever bytes a name holds (issue 25, section 1).

tests/apps/names-hostile.c names its regions (manual ones and a function's symbol) and its
topology with invalid UTF-8, control
characters and XML/CSV metacharacters; this script runs it under kubus-run from an executable
file, with arguments, in an experiment folder and with a hypothesis file whose names are
hostile too, then takes the experiment through the analyzer, the simulator, the compressed
trace and the algebra.  Every file written is checked:
  - XML (.cube, the .cubex anchor): xmllint --noout, Python's expat, and the report library
    (kubus-cube info); the region names are the expected ones;
  - JSON (kubus.json, analysis.stats.json, summary.json): strict UTF-8 and json.loads;
  - OTF2 (traces.otf2, its expansion from traces.kct, the simulated trace): every string
    otf2-print shows is strict UTF-8, the region names are the expected ones;
  - CSV (kubus-cube callsites/scaling/dump --csv): strict UTF-8 and the csv module.
Bytes that are not UTF-8 become U+FFFD (one per byte), XML gets U+FFFD for the controls it
cannot hold, everything else is kept.

usage: names-test.py --run KUBUS_RUN --analyze KUBUS_ANALYZE --sim KUBUS_SIM --cube KUBUS_CUBE
                     --trace KUBUS_TRACE --app NAMES_HOSTILE
Exit 0 = pass, 1 = fail, 77 = skip.
"""
import argparse
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET

R = '\ufffd'
# names-hostile.c's region names (bytes) and what each file format makes of them
NAMES = [
    (b'a\xe0\x9c\x90?b', 'a' + R * 3 + '?b', 'a' + R * 3 + '?b'),
    (b'<t a="x" & \'y\'>]]>', '<t a="x" & \'y\'>]]>', '<t a="x" & \'y\'>]]>'),
    (b'c\x01\x1f|t\t|l\n|r\r|e', 'c' + R + R + '|t\t|l\n|r\r|e', 'c\x01\x1f|t\t|l\n|r\r|e'),
    (b'cut\xc3', 'cut' + R, 'cut' + R),
    (b'\xff\xfe,"csv"', R + R + ',"csv"', R + R + ',"csv"'),
    ('ok 日本 é'.encode(), 'ok 日本 é', 'ok 日本 é'),
    # a function (-finstrument-functions) named from the symbol table
    (b'exchange_\xe0\x9c\x90_fn', 'exchange_' + R * 3 + '_fn', 'exchange_' + R * 3 + '_fn'),
]
XML_NAMES = [x for _, x, _ in NAMES]    # in XML (controls replaced)
TEXT_NAMES = [t for _, _, t in NAMES]   # in OTF2, JSON and CSV (controls kept)
TOPOLOGY = 'ring <&' + R * 3 + '\x01>'

failures = []


def fail(what):
    failures.append(what)
    print('FAIL: ' + what, file=sys.stderr)


def env_for_mpi():
    env = dict(os.environ)
    env.setdefault('OMPI_ALLOW_RUN_AS_ROOT', '1')
    env.setdefault('OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1')
    env.setdefault('OMPI_MCA_rmaps_base_oversubscribe', '1')
    env['KUBUS_VERBOSE'] = '0'
    ao = env.get('ASAN_OPTIONS', '')
    env['ASAN_OPTIONS'] = (ao + ':' if ao else '') + 'detect_leaks=0'  # Open MPI leaks at exit
    return env


def run(cmd, expect=0):
    """Runs @cmd (str or bytes items); stdout as bytes."""
    p = subprocess.run([c if isinstance(c, bytes) else str(c) for c in cmd],
                       capture_output=True, env=env_for_mpi(), timeout=240)
    if expect is not None and p.returncode != expect:
        fail('%r exited %d (expected %d)\n%s\n%s' % (cmd, p.returncode, expect,
                                                     p.stdout[-3000:].decode('utf-8', 'replace'),
                                                     p.stderr[-3000:].decode('utf-8', 'replace')))
    return p


def strict(data, what):
    try:
        return data.decode('utf-8')
    except UnicodeDecodeError as e:
        fail(f'{what}: not UTF-8: {e}')
        return data.decode('utf-8', 'replace')


def xml_forbidden(text):
    return [c for c in text if (ord(c) < 0x20 and c not in '\t\n\r') or c in '\ufffe\uffff']


# ---------------------------------------------------------------- checks per format

def check_xml_text(data, what, regions=True):
    """XML bytes: expat parses them; the region names are the expected ones."""
    strict(data, what)
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        fail(f'{what}: Python refuses the XML: {e}')
        return
    names = {e.text or '' for e in root.iter('name')}
    if regions:
        missing = [n for n in XML_NAMES if n not in names]
        if missing:
            fail(f'{what}: region names missing: {missing!r}; has {sorted(names)!r}')
    for e in root.iter():
        for t in [e.text or ''] + list(e.attrib.values()):
            if xml_forbidden(t):
                fail(f'{what}: characters XML forbids: {t!r}')


def check_report(a, path, regions=True):
    """A report file: xmllint, expat, kubus-cube info."""
    what = os.fsdecode(path)
    if not os.path.isfile(path):
        fail(f'{what} was not written')
        return
    if path.endswith(b'.cubex'):
        with tarfile.open(os.fsdecode(path)) as t:
            data = t.extractfile('anchor.xml').read()
        p = subprocess.run(['xmllint', '--noout', '-'], input=data, capture_output=True)
    elif path.endswith(b'.gz'):
        import gzip
        with gzip.open(path) as f:
            data = f.read()
        p = subprocess.run(['xmllint', '--noout', '-'], input=data, capture_output=True)
    else:
        with open(path, 'rb') as f:
            data = f.read()
        p = subprocess.run(['xmllint', '--noout', path], capture_output=True)
    if p.returncode != 0:
        fail(f'xmllint refuses {what}: {p.stderr.decode("utf-8", "replace")[-2000:]}')
    check_xml_text(data, what, regions)
    run([a.cube, 'info', path])


def check_json(path, what):
    if not os.path.isfile(path):
        fail(f'{what} was not written')
        return {}
    with open(path, 'rb') as f:
        data = f.read()
    text = strict(data, what)
    try:
        return json.loads(text)
    except ValueError as e:
        fail(f'{what}: not JSON: {e}')
        return {}


def check_otf2(anchor, what, names=TEXT_NAMES):
    p = run(['otf2-print', '-G', anchor])
    text = strict(p.stdout, what)
    for n in names:
        if n not in text:
            fail(f'{what}: string {n!r} missing')
    return text


def check_csv(data, what, expect_names=()):
    text = strict(data, what)
    try:
        rows = list(csv.reader(io.StringIO(text, newline='')))
    except csv.Error as e:
        fail(f'{what}: not CSV: {e}')
        return []
    width = {len(r) for r in rows if r}
    if len(width) > 1:
        fail(f'{what}: rows of different widths {sorted(width)}')
    cells = '\x00'.join('\x00'.join(r) for r in rows)
    for n in expect_names:
        if n not in cells:
            fail(f'{what}: name {n!r} missing')
    return rows


# ---------------------------------------------------------------- the pipeline

def main():
    ap = argparse.ArgumentParser()
    for o in ('run', 'analyze', 'sim', 'cube', 'trace', 'app'):
        ap.add_argument('--' + o, required=True)
    a = ap.parse_args()
    for tool in ('mpirun', 'otf2-print', 'xmllint', 'objcopy'):
        if shutil.which(tool) is None:
            print(f'{tool} not installed', file=sys.stderr)
            return 77

    tmp = os.fsencode(tempfile.mkdtemp(prefix='kubus-names-'))
    try:
        # the executable, its arguments, the experiment folder: hostile names too
        exe = os.path.join(tmp, b'prog <&"\'\x01\xe0\x9c\x90 \xc3\xa9>')
        shutil.copy(a.app, exe)
        os.chmod(exe, 0o755)
        app_args = [b'arg\xe0\x9c\x90', b'x\ny,"z"']
        exps = {}
        for n in (2, 3, 4):
            exp = os.path.join(tmp, b'exp <\xe0\x9c\x90> %d' % n)
            opts = ['--trace-format=both'] if n == 3 else ['--no-trace']
            run([a.run, '-o', exp, *opts, '--', 'mpirun', '-n', str(n), '--oversubscribe', exe,
                 *app_args])
            exps[n] = exp
        exp = exps[3]
        # call paths from the stack (the test suites run flat otherwise): frames named after the
        # run, found again in a program whose path is not UTF-8 and holds a '%'; without DWARF
        # from the symbol table, where exchange() is not UTF-8
        stripped = os.path.join(tmp, b'stripped %41 \xe0\x9c\x90 \xff')
        subprocess.run([b'objcopy', b'--strip-debug', os.fsencode(a.app), stripped], check=True)
        unwound = os.path.join(tmp, b'exp unwound')
        run([a.run, '-o', unwound, '--call-paths=unwind', '--trace-format=both', '--', 'mpirun',
             '-n', '2', '--oversubscribe', stripped, *app_args])
        check_report(a, os.path.join(unwound, b'profile.cube'))
        text = check_otf2(os.path.join(unwound, b'traces.otf2'), 'unwound traces.otf2', TEXT_NAMES)
        frames = {l.split('Name: "', 1)[1].split('" <', 1)[0] for l in text.splitlines()
                  if l.startswith('REGION') and 'Paradigm: SAMPLING' in l and 'Name: "' in l}
        for want in ('main', 'exchange_' + R * 3 + '_fn'):
            if want not in frames:
                fail(f'unwound traces.otf2: no frame named {want!r} (frames: {sorted(frames)!r})')
        run([a.trace, 'expand', os.path.join(unwound, b'traces.kct'), '-o',
             os.path.join(tmp, b'unwound expanded')])
        check_otf2(os.path.join(tmp, b'unwound expanded', b'traces.otf2'),
                   'unwound, expanded traces.kct', TEXT_NAMES)

        # the collector: profile, kubus.json, OTF2, the compressed trace expanded
        check_report(a, os.path.join(exp, b'profile.cube'))
        meta = check_json(os.path.join(exp, b'kubus.json'), 'kubus.json')
        cmd = meta.get('command', [])
        if not any(isinstance(c, str) and 'prog <&"\'\x01' + R * 3 + ' é>' in c for c in cmd):
            fail(f'kubus.json: the program is not in the command: {cmd!r}')
        if 'arg' + R * 3 not in cmd or 'x\ny,"z"' not in cmd:
            fail(f'kubus.json: the arguments are not in the command: {cmd!r}')
        program = 'prog <&"\'\x01' + R * 3 + ' é>'
        check_otf2(os.path.join(exp, b'traces.otf2'), 'traces.otf2', TEXT_NAMES + [program, TOPOLOGY])
        expanded = os.path.join(tmp, b'expanded')
        run([a.trace, 'expand', os.path.join(exp, b'traces.kct'), '-o', expanded])
        check_otf2(os.path.join(expanded, b'traces.otf2'), 'expanded traces.kct', TEXT_NAMES)

        # the analyzer
        run([a.analyze, exp])
        analysis = os.path.join(exp, b'analysis.cube')
        check_report(a, analysis)
        check_json(os.path.join(exp, b'analysis.stats.json'), 'analysis.stats.json')

        # the simulator: a hypothesis (in a file with a hostile name) on a hostile region
        hyp = os.path.join(tmp, b'h <&\xe0\x9c\x90>.hyp')
        with open(hyp, 'wb') as f:
            f.write(b'balance region "<t a=\\"x\\" & \'y\'>]]>"\n')
        sim = os.path.join(tmp, b'sim <\xe0\x9c\x90>')
        run([a.sim, exp, '--hypothesis', hyp, '-o', sim, '--offline', '-q'])
        summary = check_json(os.path.join(sim, b'summary.json'), 'summary.json')
        if summary.get('hypothesis') is None and 'hypothesis' not in json.dumps(summary):
            fail('summary.json: no hypothesis recorded')
        for f in (b'analysis.cube', b'difference.cube'):
            check_report(a, os.path.join(sim, f))
        check_otf2(os.path.join(sim, b'traces.otf2'), 'simulated traces.otf2', TEXT_NAMES)

        # the algebra and the Cube 4 writer
        profile = os.path.join(exp, b'profile.cube')
        for op, inputs, out in (('diff', [analysis, profile], b'd.cube'),
                                ('merge', [analysis, profile], b'm.cubex'),
                                ('mean', [analysis, os.path.join(sim, b'analysis.cube')], b'mn.cube.gz'),
                                ('convert', [profile], b'p.cubex')):
            o = os.path.join(tmp, out)
            run([a.cube, op, *inputs, '-o', o])
            check_report(a, o)

        # CSV: call sites, scaling (three rank counts), dump
        p = run([a.cube, 'callsites', '--csv', profile])
        # (read from a report: the names as XML holds them)
        check_csv(p.stdout, 'callsites --csv', [XML_NAMES[0], XML_NAMES[2], XML_NAMES[4]])
        scaled = os.path.join(tmp, b'scaling <\xe0\x9c\x90>.cube')
        p = run([a.cube, 'scaling', '--csv', '-o', scaled, exps[2], exps[3], exps[4]])
        check_csv(p.stdout, 'scaling --csv', [XML_NAMES[0], XML_NAMES[4]])
        check_report(a, scaled, regions=False)
        p = run([a.cube, 'dump', '--csv', analysis])
        check_csv(p.stdout, 'dump --csv')
    finally:
        if not failures or os.environ.get('KUBUS_KEEP') is None:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print('kept ' + os.fsdecode(tmp), file=sys.stderr)
    if failures:
        print(f'{len(failures)} failure(s)', file=sys.stderr)
        return 1
    print('ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
