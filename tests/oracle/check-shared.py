#!/usr/bin/env python3
"""Test driver: the oracle on the three real Score-P traces of the shared data.

Usage: check-shared.py [KUBUS_ANALYZE KUBUS_CUBE]

Always: runs waitstate-oracle.py on each trace and checks its totals against
tests/oracle/expected-shared.json (so a change of the oracle or of otf2-print
shows up).  With the two programs: also analyses each trace with
`KUBUS_ANALYZE --serial`, dumps the report with `KUBUS_CUBE dump --csv` and
runs compare.py on it.  Exit 77 (skip) without $KUBUS_SHARED_DATA.
"""

import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = ["casita_4_mpi_ls_barr", "casita_10_scorep_mpi_tags", "pipit_ping-pong-otf2"]


def close(a, b):
    return abs(a - b) <= 1e-9 + 1e-9 * abs(b)


def main(argv):
    data = os.environ.get("KUBUS_SHARED_DATA", "")
    if not data or not os.path.isdir(os.path.join(data, "otf2")):
        print("KUBUS_SHARED_DATA not set or without otf2/: skipped")
        return 77
    with open(os.path.join(HERE, "expected-shared.json"), encoding="utf-8") as f:
        expected = json.load(f)
    failed = 0
    with tempfile.TemporaryDirectory(prefix="kubus-oracle-") as tmp:
        for name in TRACES:
            trace = os.path.join(data, "otf2", name, "traces.otf2")
            out = subprocess.run([sys.executable, os.path.join(HERE, "waitstate-oracle.py"),
                                  trace, "--json"], capture_output=True, text=True)
            if out.returncode != 0:
                print(f"{name}: oracle failed: {out.stderr.strip()}")
                failed += 1
                continue
            got = json.loads(out.stdout)["totals"]
            want = expected[name]["totals"]
            for metric, value in want.items():
                if not close(float(got.get(metric, 0)), float(value)):
                    print(f"{name}: oracle {metric} = {got.get(metric)} but expected-shared.json "
                          f"says {value}")
                    failed += 1
            if len(argv) < 2:
                continue
            analyze, cube = argv[0], argv[1]
            report = os.path.join(tmp, name + ".cube")
            csv_path = os.path.join(tmp, name + ".csv")
            run = subprocess.run([analyze, "--serial", "-q", trace, "-o", report],
                                 capture_output=True, text=True, timeout=120)
            if run.returncode != 0:
                print(f"{name}: kubus-analyze failed: {run.stderr.strip()}")
                failed += 1
                continue
            with open(csv_path, "w", encoding="utf-8") as f:
                dump = subprocess.run([cube, "dump", "--csv", report], stdout=f,
                                      stderr=subprocess.PIPE, text=True, timeout=60)
            if dump.returncode != 0:
                print(f"{name}: kubus-cube dump failed: {dump.stderr.strip()}")
                failed += 1
                continue
            cmp = subprocess.run([sys.executable, os.path.join(HERE, "compare.py"),
                                  os.path.join(HERE, "expected-shared.json"), csv_path,
                                  "--trace", name, "--per-rank"], capture_output=True, text=True)
            print(f"{name}: {cmp.stdout.strip()}")
            if cmp.returncode != 0:
                failed += 1
    print("FAIL" if failed else "PASS")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
