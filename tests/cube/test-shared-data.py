#!/usr/bin/env python3
"""The CUBE 3 XML reports of the shared corpus, read by kubus-cube.

Expected numbers per metric (count of non-zero stored values, their sum, the sum of their
absolute values) and the topologies were computed independently of Kubus with
xml.etree.ElementTree over the raw files (script in docs/decisions/cube-reader-tests.md) and
checked by hand for the small file (cubelib_test32: metric Uniq_name4 holds -30 10 340 10 3 6,
so 6 values, sum 339, absolute sum 399).

Also: every file converted to CUBE 3 XML (plain and .gz) reads back to the same dump.
Usage: test-shared-data.py KUBUS_CUBE   (exit 77 when $KUBUS_SHARED_DATA is absent)
"""
import csv
import io
import math
import os
import subprocess
import sys
import tempfile

EXPECTED = {
    "cubelib_test32_example_multitopo.cube": {
        "metrics": {
            "Uniq_name1": (6, 6827.1, 9073.9),
            "Uniq_name2": (2, -691.3, 691.3),
            "Uniq_name3": (2, 49.0, 49.0),
            "Uniq_name4": (6, 339.0, 399.0),
        },
        "locations": 2,
        "call paths": 3,
        "topologies": [
            (2, [5, 5], 1), (2, [3, 3], 2), (4, [3, 3, 3, 3], 2), (14, [3] * 14, 2),
            (2, [5, 5], 1), (2, [3, 3], 2), (4, [3, 3, 3, 3], 2), (14, [3] * 14, 2),
        ],
        "totals": {"Uniq_name1": 6827.1},
    },
    "scalasca14_bgq_scout_7Dtopo.cube": {
        "metrics": {
            "time": (9760, 298.6517008743408, 298.6517008743408),
            "visits": (9760, 83488.0, 83488.0),
            "mpi_barrier_wait": (64, 0.0115593031295018, 0.0115593031295018),
            "mpi_barrier_completion": (64, 0.00013119875040955105, 0.00013119875040955105),
            "mpi_latebroadcast": (31, 0.00013339312511107, 0.00013339312511107),
            "mpi_wait_nxn": (32, 0.005517205000841801, 0.005517205000841801),
            "mpi_nxn_completion": (32, 3.50693750306e-05, 3.50693750306e-05),
            "omp_management": (2048, 6.76495924558461, 6.76495924558461),
            "omp_fork": (2048, 6.584172035626103, 6.584172035626103),
            "omp_ibarrier_wait": (4096, 168.073949784415, 168.073949784415),
            "syncs_coll": (64, 384.0, 384.0),
            "comms_send": (16, 240.0, 240.0),
            "comms_recv": (16, 240.0, 240.0),
            "comms_cxch": (34, 100.0, 100.0),
            "comms_cdst": (31, 92.0, 92.0),
            "bytes_sent": (16, 960.0, 960.0),
            "bytes_rcvd": (16, 960.0, 960.0),
            "bytes_cout": (34, 20864.0, 20864.0),
            "bytes_cin": (64, 20864.0, 20864.0),
        },
        "locations": 2048,
        "call paths": 32,
        "topologies": [(7, [2, 2, 2, 2, 2, 16, 4], 2048), (2, [64, 32], 2048), (2, [2, 16], 32)],
        "totals": {"time": 298.6517008743408, "visits": 83488.0},
    },
    "scalasca14_ctest-pomp.cube": {
        "metrics": {
            "0Time": (640, 9.609755229029036, 9.609755229029036),
            "1Execution": (264, 4.892568501006683, 4.892568501006683),
            "2MPI": (72, 1.052312665003878, 1.052312665003878),
            "3Communication": (24, 0.04551443698795, 0.04551443698795),
            "4Collective": (8, 0.04392113300848899, 0.04392113300848899),
            "6Late Broadcast": (7, 0.04292234100285264, 0.04292234100285264),
            "8P2P": (16, 0.0015933039794609998, 0.0015933039794609998),
            "14Synchronization": (16, 0.37159590101148043, 0.37159590101148043),
            "15Barrier": (16, 0.37159590101148043, 0.37159590101148043),
            "16Barrier Completion": (16, 0.00012701205196201, 0.00012701205196201),
            "17Wait at Barrier": (16, 0.36984514501816906, 0.36984514501816906),
            "18OMP": (72, 0.21564913402837793, 0.21564913402837793),
            "20Fork": (8, 0.0009986980257968, 0.0009986980257968),
            "21Synchronization": (64, 0.2146504360025811, 0.2146504360025811),
            "22Barrier": (64, 0.2146504360025811, 0.2146504360025811),
            "25Implict": (64, 0.2146504360025811, 0.2146504360025811),
            "26Wait at Barrier": (64, 0.21219245798068656, 0.21219245798068656),
            "30Overhead": (16, 0.003508721998514001, 0.003508721998514001),
            "31Idle Threads": (360, 4.713678006023831, 4.713678006023831),
            "32Visits": (280, 2576.0, 2576.0),
            "36INSTRUCTION": (280, 3529601499.0, 3529601499.0),
            "37FLOATING_POINT": (280, 1008377706.0, 1008377706.0),
        },
        "locations": 32,
        "call paths": 21,
        "topologies": [],
        "totals": {"0Time": 9.609755229029036, "32Visits": 2576.0},
    },
}

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


def run(args):
    return subprocess.run(args, capture_output=True, text=True)


def dump(kc, path):
    r = run([kc, "dump", "--csv", path])
    check(r.returncode == 0, f"dump {path}: exit {r.returncode}: {r.stderr}")
    return r.stdout


def aggregate(text):
    rows = list(csv.reader(io.StringIO(text)))
    check(rows and rows[0] == ["metric", "cnode", "location", "value"], "dump header")
    agg = {}
    order = []
    for m, c, l, v in rows[1:]:
        v = float(v)
        check(v != 0.0, f"dump prints a zero: {m},{c},{l}")
        a = agg.setdefault(m, [0, 0.0, 0.0])
        a[0] += 1
        a[1] += v
        a[2] += abs(v)
        order.append((m, int(c), int(l)))
    return agg, order


def info(kc, path):
    r = run([kc, "info", path])
    check(r.returncode == 0, f"info {path}: exit {r.returncode}: {r.stderr}")
    return r.stdout.splitlines()


def main():
    kc = sys.argv[1]
    data = os.environ.get("KUBUS_SHARED_DATA", "")
    folder = os.path.join(data, "cube")
    if not data or not os.path.isdir(folder):
        print("KUBUS_SHARED_DATA absent: skipping")
        return 77
    files = sorted(f for f in os.listdir(folder) if f.endswith(".cube"))
    check(set(files) == set(EXPECTED), f"corpus changed: {files}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in files:
            exp = EXPECTED.get(name)
            if exp is None:
                continue
            path = os.path.join(folder, name)
            text = dump(kc, path)
            agg, order = aggregate(text)
            check(set(agg) == set(exp["metrics"]), f"{name}: metrics with data {sorted(agg)}")
            for m, (cnt, s, sa) in exp["metrics"].items():
                got = agg.get(m, [0, 0.0, 0.0])
                check(got[0] == cnt, f"{name}: {m}: {got[0]} non-zero values, expected {cnt}")
                check(close(got[1], s), f"{name}: {m}: sum {got[1]!r}, expected {s!r}")
                check(close(got[2], sa), f"{name}: {m}: absolute sum {got[2]!r}, expected {sa!r}")
            # cnodes ascending within a metric is checked by the round trip; locations ascend
            for a, b in zip(order, order[1:]):
                if a[0] == b[0] and a[1] == b[1]:
                    check(a[2] < b[2], f"{name}: locations not ascending at {a} {b}")
                    break

            lines = info(kc, path)
            kv = dict(line.split(": ", 1) for line in lines if ": " in line)
            check(kv.get("locations") == str(exp["locations"]), f"{name}: locations {kv.get('locations')}")
            check(kv.get("call paths") == str(exp["call paths"]), f"{name}: call paths {kv.get('call paths')}")
            check(kv.get("topologies") == str(len(exp["topologies"])), f"{name}: topologies {kv.get('topologies')}")
            for i, (ndims, sizes, ncoords) in enumerate(exp["topologies"]):
                line = next((x for x in lines if x.startswith(f"topology {i}:")), "")
                check(f"{ndims} dimensions" in line, f"{name}: topology {i}: {line}")
                dims = line.split("dimensions, ", 1)[-1].rsplit(", ", 1)[0].split(" x ")
                got_sizes = [int(d.split("=")[-1].replace("(periodic)", "")) for d in dims]
                check(got_sizes == sizes, f"{name}: topology {i} sizes {got_sizes}, expected {sizes}")
                check(line.endswith(f", {ncoords} coordinates"), f"{name}: topology {i} coordinates: {line}")
            for m, total in exp["totals"].items():
                got = kv.get(f"total {m}", "nan").split()[0]
                check(close(float(got), total), f"{name}: total {m} = {got}, expected {total!r}")

            for suffix in (".cube", ".cube.gz"):
                out = os.path.join(tmp, name + ".rt" + suffix)
                r = run([kc, "convert", path, "-o", out])
                check(r.returncode == 0, f"convert {name} → {suffix}: {r.stderr}")
                check(dump(kc, out) == text, f"{name}: dump after convert to {suffix} differs")
                check(info(kc, out)[2:] == lines[2:], f"{name}: info after convert to {suffix} differs")
            leftovers = [f for f in os.listdir(tmp) if ".tmp-" in f]
            check(not leftovers, f"temporary files left behind: {leftovers}")
    print("failures:", len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
