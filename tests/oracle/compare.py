#!/usr/bin/env python3
"""Compare the oracle's per-metric totals with a Kubus report dump.

Usage: compare.py ORACLE.json REPORT_DUMP.csv [--trace NAME] [--all] [--per-rank]

ORACLE.json is either the output of `waitstate-oracle.py TRACE --json` or
tests/oracle/expected-shared.json (then --trace NAME picks the entry; with one
entry it is picked automatically).  REPORT_DUMP.csv is the output of
`kubus-cube dump --csv REPORT` (header metric,cnode,location,value; CUBE 3
semantics: each metric's values already include its metric-tree children, so
the total of a metric is the plain sum over all cnodes and locations).

A metric matches when |report - oracle| <= 1e-9 + 1e-6 * |oracle|.  Metrics the
oracle knows but the report lacks count as 0 in the report.  Oracle-only
helper values (time_span, mpi_other) are not compared.  --per-rank also
compares each rank (the dump's location column is the rank, i.e. the n-th
location of the oracle) with the same tolerance.  Exit status 0 when
everything matches, 1 on a mismatch, 2 on bad input.
"""

import argparse
import csv
import json
import sys
from collections import defaultdict

REL_TOL = 1e-6
ABS_TOL = 1e-9
ORACLE_ONLY = {"time_span", "mpi_other"}


def die(msg):
    print(f"compare.py: {msg}", file=sys.stderr)
    sys.exit(2)


def load_oracle(path, trace):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as exc:
        die(f"{path}: cannot read oracle JSON: {exc}")
    if "totals" in data:
        return data
    if trace is None:
        if len(data) != 1:
            die(f"{path}: holds {len(data)} traces "
                             f"({', '.join(sorted(data))}); choose one with --trace")
        trace = next(iter(data))
    if trace not in data or "totals" not in data[trace]:
        die(f"{path}: no trace '{trace}' with totals")
    return data[trace]


def load_dump(path):
    totals = defaultdict(float)
    per_loc = defaultdict(lambda: defaultdict(float))
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = csv.DictReader(f)
            if rows.fieldnames is None or not {"metric", "value"} <= set(rows.fieldnames):
                die(f"{path}: expected a CSV header "
                                 f"'metric,cnode,location,value', got {rows.fieldnames}")
            for n, row in enumerate(rows, start=2):
                try:
                    totals[row["metric"]] += float(row["value"])
                    per_loc[row["metric"]][int(row.get("location") or 0)] += float(row["value"])
                except (TypeError, ValueError):
                    die(f"{path}:{n}: value '{row['value']}' "
                                     f"is not a number")
    except OSError as exc:
        die(f"{path}: {exc}")
    return totals, per_loc


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("oracle")
    ap.add_argument("dump")
    ap.add_argument("--trace", help="entry of a multi-trace oracle JSON")
    ap.add_argument("--all", action="store_true", help="print matching metrics too")
    ap.add_argument("--per-rank", action="store_true", help="compare every rank too")
    a = ap.parse_args(argv)
    entry = load_oracle(a.oracle, a.trace)
    oracle = entry["totals"]
    report, report_loc = load_dump(a.dump)
    bad = 0
    for name in sorted(oracle):
        if name in ORACLE_ONLY:
            continue
        want = float(oracle[name])
        got = report.get(name, 0.0)
        ok = abs(got - want) <= ABS_TOL + REL_TOL * abs(want)
        if not ok:
            bad += 1
            print(f"MISMATCH {name:24s} oracle {want:.9f}  report {got:.9f}  "
                  f"diff {got - want:+.9f}")
        elif a.all:
            print(f"ok       {name:24s} {want:.9f}")
        if a.per_rank and name in entry.get("per_rank", {}):
            for rank, w in enumerate(entry["per_rank"][name]):
                g = report_loc.get(name, {}).get(rank, 0.0)
                if abs(g - w) > ABS_TOL + REL_TOL * abs(w):
                    bad += 1
                    print(f"MISMATCH {name:24s} rank {rank}: oracle {w:.9f}  report {g:.9f}  "
                          f"diff {g - w:+.9f}")
    extra = sorted(set(report) - set(oracle))
    if extra:
        print("not checked (report only): " + ", ".join(extra))
    print(f"{bad} mismatch(es)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
