#!/usr/bin/env python3
"""Installs this build into a temporary folder and runs every installed program from there,
with an empty environment (no LD_LIBRARY_PATH, no LOCALEDIR or GSETTINGS variables, no
ldconfig). The prefix is then moved elsewhere and the programs must still run and speak German.

  test-install.py --build BUILDDIR --version V --source SRCROOT
                  [--make-trace MAKE_TRACE --mpi-app APP] [--xvfb XVFB_WRAP]

Programs are found in the installed bin folder, so programs added later are covered too:
each must answer --version with exactly "NAME (Kubus) V" and --help with a usage text on
standard output that names --version, both with exit status 0. Known programs also do one
real job (ACTIONS). Exit 0 pass, 1 fail, 77 skip.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

failures = []


def fail(msg):
    failures.append(msg)
    print('FAIL:', msg, file=sys.stderr)


def clean_env(home, **extra):
    env = {'PATH': '/usr/local/bin:/usr/bin:/bin', 'HOME': home, 'LANG': 'C.UTF-8'}
    if os.environ.get('KUBUS_SANITIZED'):
        # the sanitizer build's programs: Open MPI and GTK leak at exit
        env['ASAN_OPTIONS'] = 'detect_leaks=0'
        env['UBSAN_OPTIONS'] = os.environ.get('UBSAN_OPTIONS', '')
    env.update(extra)
    return env


def run(cmd, env, timeout=240, cwd=None):
    try:
        return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=env,
                              timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired:
        fail(f'{" ".join(map(str, cmd))}: no answer within {timeout} s')
        return subprocess.CompletedProcess(cmd, -1, '', '')


def check(p, what, rc=0):
    if p.returncode != rc:
        fail(f'{what}: exit {p.returncode}, expected {rc}\nstdout:\n{p.stdout[-2000:]}\n'
             f'stderr:\n{p.stderr[-2000:]}')
        return False
    return True


def find_prefix(stage):
    """The installed prefix inside the staging folder: the folder that holds bin/kubus-cube."""
    for root, dirs, files in os.walk(stage):
        if os.path.basename(root) == 'bin' and 'kubus-cube' in files:
            return os.path.dirname(root)
    return None


def programs(prefix):
    b = os.path.join(prefix, 'bin')
    return sorted(n for n in os.listdir(b)
                  if os.path.isfile(os.path.join(b, n)) and os.access(os.path.join(b, n), os.X_OK))


def check_version_help(prefix, name, version, env):
    exe = os.path.join(prefix, 'bin', name)
    p = run([exe, '--version'], env)
    if check(p, f'{name} --version') and p.stdout != f'{name} (Kubus) {version}\n':
        fail(f'{name} --version: {p.stdout!r}, expected {name} (Kubus) {version}')
    p = run([exe, '--help'], env)
    if check(p, f'{name} --help'):
        if not p.stdout.startswith('Usage:') or '--version' not in p.stdout:
            fail(f'{name} --help: no usage text naming --version on standard output:\n{p.stdout}')
        if p.stderr:
            fail(f'{name} --help: writes to standard error:\n{p.stderr}')


def action_cube(prefix, a, tmp, env):
    exe = os.path.join(prefix, 'bin', 'kubus-cube')
    report = os.path.join(a.source, 'tests', 'cube', 'good-small.cube')
    p = run([exe, 'info', report], env)
    if check(p, 'kubus-cube info') and 'locations: 2\n' not in p.stdout:
        fail(f'kubus-cube info: unexpected answer:\n{p.stdout}')
    out = os.path.join(tmp, 'converted.cubex')
    p = run([exe, 'convert', report, '-o', out], env)
    if check(p, 'kubus-cube convert'):
        p = run([exe, 'info', out], env)
        if check(p, 'kubus-cube info on the converted report') and 'total time: 3.5 sec' not in p.stdout:
            fail(f'kubus-cube info on the converted report:\n{p.stdout}')


def action_analyze(prefix, a, tmp, env):
    if not a.make_trace:
        return
    d = os.path.join(tmp, 'trace')
    p = run([a.make_trace, 'exact', d], env)
    if not check(p, 'make-trace'):
        return
    out = os.path.join(tmp, 'analysis.cube')
    # two ranks: the installed program starts itself under mpirun
    p = run([os.path.join(prefix, 'bin', 'kubus-analyze'), os.path.join(d, 'traces.otf2'), '-o', out,
             '-q'], env)
    if not check(p, 'kubus-analyze on a 2-rank trace'):
        return
    p = run([os.path.join(prefix, 'bin', 'kubus-cube'), 'dump', '--csv', '--metric', 'mpi_latesender',
             out], env)
    if check(p, 'kubus-cube dump of the analysis'):
        total = sum(float(l.split(',')[3]) for l in p.stdout.splitlines()[1:])
        if abs(total - 0.008) > 1e-12:
            fail(f'kubus-analyze: Late Sender {total}, expected 0.008 (make-trace exact)')


def action_run(prefix, a, tmp, env):
    if not a.mpi_app:
        return
    exp = os.path.join(tmp, 'exp')
    mpi_env = dict(env, OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1',
                   OMPI_MCA_btl='self,vader', OMPI_MCA_btl_vader_single_copy_mechanism='none',
                   HWLOC_COMPONENTS='-gl,-opencl')
    p = run([os.path.join(prefix, 'bin', 'kubus-run'), '-o', exp, '--', 'mpirun', '-n', '2',
             '--oversubscribe', a.mpi_app, os.path.join(tmp, 'app-truth')], mpi_env)
    if not check(p, 'kubus-run'):
        return
    for f in ('traces.otf2', 'kubus.json'):
        if not os.path.exists(os.path.join(exp, f)):
            fail(f'kubus-run: no {f} in the experiment')


def action_gui(prefix, a, tmp, env):
    if not a.xvfb:
        return
    png = os.path.join(tmp, 'shot.png')
    report = os.path.join(a.source, 'tests', 'cube', 'good-small.cube')
    p = run([a.xvfb, os.path.join(prefix, 'bin', 'kubus'), '--screenshot', png, '--size', '800x500',
             report], dict(env, GTK_A11Y='none', NO_AT_BRIDGE='1'))
    if p.returncode == 77:
        print('kubus: no Xvfb, screenshot skipped')
        return
    if check(p, 'kubus --screenshot'):
        with open(png, 'rb') as f:
            if f.read(8) != b'\x89PNG\r\n\x1a\n':
                fail('kubus --screenshot: not a PNG')


ACTIONS = {
    'kubus-cube': action_cube,
    'kubus-analyze': action_analyze,
    'kubus-run': action_run,
    'kubus': action_gui,
}


def check_german(prefix, name, env):
    """The installed catalogue, found relative to the program (LANGUAGE works with C.UTF-8)."""
    exe = os.path.join(prefix, 'bin', name)
    p = run([exe, 'frob'], dict(env, LANGUAGE='de'))
    if 'unbekannter Befehl „frob“' not in p.stderr:
        fail(f'{name} in {prefix}: not German with LANGUAGE=de:\n{p.stderr}')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', required=True)
    ap.add_argument('--version', required=True)
    ap.add_argument('--source', required=True)
    ap.add_argument('--make-trace')
    ap.add_argument('--mpi-app')
    ap.add_argument('--xvfb')
    a = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix='kubus-install-') as tmp:
        stage = os.path.join(tmp, 'stage')
        p = subprocess.run(['meson', 'install', '-C', a.build, '--no-rebuild', '--quiet',
                            '--destdir', stage], capture_output=True, text=True)
        if p.returncode != 0:
            fail(f'meson install: exit {p.returncode}\n{p.stdout}\n{p.stderr}')
            return 1
        prefix = find_prefix(stage)
        if not prefix:
            fail('meson install: no bin/kubus-cube installed')
            return 1
        names = programs(prefix)
        print('installed programs:', ' '.join(names))
        for must in ['kubus-cube'] + (['kubus-analyze', 'kubus-run'] if a.make_trace else []):
            if must not in names:
                fail(f'{must} is not installed')
        # the compiled settings schema, as the post-install step (skipped with DESTDIR) makes it
        schemas = os.path.join(prefix, 'share', 'glib-2.0', 'schemas')
        if os.path.isdir(schemas):
            subprocess.run(['glib-compile-schemas', schemas], check=False)

        work = os.path.join(tmp, 'work')
        os.mkdir(work)
        env = clean_env(work)
        for name in names:
            check_version_help(prefix, name, a.version, env)
            if name in ACTIONS:
                ACTIONS[name](prefix, a, work, env)
            else:
                print(f'{name}: --version and --help only (no action known to this test)')
        check_german(prefix, 'kubus-cube', env)

        # moved: the prefix is not where it was installed, nothing tells the programs
        moved = os.path.join(tmp, 'elsewhere', 'opt-kubus')
        os.makedirs(os.path.dirname(moved))
        shutil.move(prefix, moved)
        for name in names:
            p = run([os.path.join(moved, 'bin', name), '--version'], env)
            check(p, f'{name} --version after moving the prefix')
        check_german(moved, 'kubus-cube', env)
        shutil.rmtree(work)
        os.mkdir(work)
        action_cube(moved, a, work, env)
        if 'kubus-analyze' in names:
            action_analyze(moved, a, work, env)
        if 'kubus' in names:
            # the browser finds its settings schema relative to itself too
            action_gui(moved, a, work, env)

    if failures:
        print(f'{len(failures)} failure(s)', file=sys.stderr)
        return 1
    print('ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
