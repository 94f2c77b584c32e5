#!/usr/bin/env python3
"""cube-unseen: `kubus-cube info` and `kubus-cube dump --csv` on every report in tests/cube/unseen.

Each input FILE has tests/cube/unseen/expected/FILE.expected with the values worked out by hand
from the XML (see the comments in each file and tests/cube/unseen/README.md):

    # comment
    [info]          every line of `info` except "file:", in order, exactly
    ...
    [dump]          the whole CSV of `dump --csv`, exactly
    ...
    [stderr]        (optional) lines that must appear on stderr of `dump`

A file in unseen/ without an expectation fails the test, so nothing is added unchecked.
Both commands must exit 0 and must not crash or hang.
Usage: test-unseen.py KUBUS_CUBE UNSEEN_DIR
"""
import os
import subprocess
import sys


def parse_expected(path):
    sections, cur = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#") and cur != "dump":
                continue
            if line in ("[info]", "[dump]", "[stderr]"):
                cur = line[1:-1]
                sections[cur] = []
                continue
            if cur is None:
                if line.strip():
                    raise ValueError(f"{path}: text outside a section: {line!r}")
                continue
            sections[cur].append(line)
    for k in sections:  # trailing blank lines are not part of the expectation
        while sections[k] and sections[k][-1] == "":
            sections[k].pop()
    return sections


def run(kc, *args):
    env = dict(os.environ, LANGUAGE="C", LC_ALL="C.UTF-8")  # untranslated messages
    p = subprocess.run([kc, *args], capture_output=True, timeout=120, env=env)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def main():
    kc, unseen = sys.argv[1], sys.argv[2]
    exp_dir = os.path.join(unseen, "expected")
    inputs = sorted(
        f for f in os.listdir(unseen)
        if os.path.isfile(os.path.join(unseen, f)) and f != "README.md"
        and not f.startswith("COPYING")
    )
    failed = 0
    checked = 0
    for name in inputs:
        path = os.path.join(unseen, name)
        exp_path = os.path.join(exp_dir, name + ".expected")
        if not os.path.exists(exp_path):
            print(f"FAIL {name}: no expectation {exp_path}")
            failed += 1
            continue
        exp = parse_expected(exp_path)
        problems = []

        rc, out, err = run(kc, "info", path)
        if rc != 0:
            problems.append(f"info exit {rc}: {err.strip()}")
        else:
            got = [l for l in out.splitlines() if not l.startswith("file: ")]
            if got != exp.get("info", []):
                problems.append("info differs:\n  got:      " + "\n            ".join(got)
                                + "\n  expected: " + "\n            ".join(exp.get("info", [])))

        rc, out, err = run(kc, "dump", "--csv", path)
        if rc != 0:
            problems.append(f"dump exit {rc}: {err.strip()}")
        else:
            got = out.splitlines()
            want = exp.get("dump", [])
            if got != want:
                extra = [l for l in got if l not in want]
                missing = [l for l in want if l not in got]
                problems.append(f"dump differs: {len(got)} lines, expected {len(want)}; "
                                f"unexpected {extra[:5]}, missing {missing[:5]}")
            for line in exp.get("stderr", []):
                if line not in err:
                    problems.append(f"dump stderr lacks {line!r}: {err.strip()}")

        checked += 1
        if problems:
            failed += 1
            print(f"FAIL {name}:")
            for p in problems:
                print("  " + p)
        else:
            print(f"ok {name}")
    if checked == 0:
        print("FAIL: no reports found in", unseen)
        failed += 1
    print(f"{len(inputs) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
