#!/usr/bin/env python3
"""Independent reference for the Score-P trace tests: applies the PATTERNS.md definitions by hand
to the events printed by `otf2-print` (no Kubus code involved) and prints per-metric totals in
seconds. Assumes what the three bundled traces satisfy: every message on MPI_COMM_WORLD with
comm-local rank == world rank, blocking Send/Recv or Isend/Irecv + Wait*, Barrier collectives.

usage: otf2-expected.py TRACE.otf2
"""
import re
import subprocess
import sys
from collections import defaultdict, deque


def main():
    anchor = sys.argv[1]
    defs = subprocess.run(["otf2-print", "-G", anchor], capture_output=True, text=True, check=True).stdout
    res = float(re.search(r"Ticks per Seconds: (\d+)", defs).group(1))
    out = subprocess.run(["otf2-print", anchor], capture_output=True, text=True, check=True).stdout
    ev = defaultdict(list)  # location -> [(kind, time, fields)]
    for line in out.splitlines():
        m = re.match(r"^(\w+)\s+(\d+)\s+(\d+)\s*(.*)$", line)
        if not m:
            continue
        kind, loc, t, rest = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
        ev[loc].append((kind, t, rest))

    # calls: per location, list of dict(region, enter, leave, events)
    calls = {}
    for loc, lst in ev.items():
        stack, cl = [], []
        for kind, t, rest in lst:
            if kind == "ENTER":
                region = re.search(r'Region: "([^"]*)"', rest).group(1)
                stack.append({"region": region, "enter": t, "leave": None, "events": []})
            elif kind == "LEAVE":
                c = stack.pop()
                c["leave"] = t
                cl.append(c)
            elif stack:
                stack[-1]["events"].append((kind, t, rest))
        cl.sort(key=lambda c: c["enter"])
        calls[loc] = cl

    # sends per channel in sender order
    chan = defaultdict(deque)
    req_post = {}
    for loc, cl in calls.items():
        for c in cl:
            for kind, t, rest in c["events"]:
                if kind in ("MPI_SEND", "MPI_ISEND"):
                    dst = int(re.search(r"Receiver: (\d+)", rest).group(1))
                    tag = int(re.search(r"Tag: (\d+)", rest).group(1))
                    chan[(loc, dst, tag)].append({"E": c["enter"], "L": c["leave"], "t": t,
                                                  "region": c["region"], "post": None})
    # receives in receiver order (events within calls, calls in order)
    tot = defaultdict(float)
    for loc in sorted(calls):
        buf = []  # wrong-order buffer: (wait, send_time, src)
        for c in calls[loc]:
            if c["region"].startswith("MPI_Irecv"):
                for kind, t, rest in c["events"]:
                    if kind == "MPI_IRECV_REQUEST":
                        req_post[(loc, re.search(r"Request: (\d+)", rest).group(1))] = c["enter"]
            best, best_src, best_st = 0, None, None
            for kind, t, rest in c["events"]:
                if kind not in ("MPI_RECV", "MPI_IRECV"):
                    continue
                src = int(re.search(r"Sender: (\d+)", rest).group(1))
                tag = int(re.search(r"Tag: (\d+)", rest).group(1))
                s = chan[(src, loc, tag)].popleft()
                post = c["enter"]
                if kind == "MPI_IRECV":
                    post = req_post.get((loc, re.search(r"Request: (\d+)", rest).group(1)), post)
                s["post"] = post
                # wrong order: a buffered instance whose message was sent after this one
                keep = []
                for w, st, bsrc in buf:
                    if st > s["t"]:
                        tot["mpi_latesender_wo"] += w
                        tot["mpi_lswo_same" if bsrc == src else "mpi_lswo_different"] += w
                    else:
                        keep.append((w, st, bsrc))
                buf = keep
                if not c["region"].startswith("MPI_Test"):
                    w = min(s["E"], c["leave"]) - c["enter"]
                    if w > best:
                        best, best_src, best_st = w, src, s["t"]
            if best > 0:
                tot["mpi_latesender"] += best
                buf.append((best, best_st, best_src))
                buf = buf[-100:]
    for lst in chan.values():
        assert not lst, "unmatched send"
    # barrier wait
    inst = defaultdict(list)
    for loc, cl in calls.items():
        k = 0
        for c in cl:
            if c["region"] == "MPI_Barrier":
                inst[k].append(c)
                k += 1
    for k, cs in inst.items():
        maxe = max(c["enter"] for c in cs)
        for c in cs:
            tot["mpi_barrier_wait"] += max(0, min(maxe, c["leave"]) - c["enter"])
    return tot, res


def late_receiver(anchor):
    """Second pass: E(recv request) − E(send) for blocking sends still running when the
    receive was posted."""
    out = subprocess.run(["otf2-print", anchor], capture_output=True, text=True, check=True).stdout
    ev = defaultdict(list)
    for line in out.splitlines():
        m = re.match(r"^(\w+)\s+(\d+)\s+(\d+)\s*(.*)$", line)
        if m:
            ev[int(m.group(2))].append((m.group(1), int(m.group(3)), m.group(4)))
    sends = defaultdict(deque)
    posts = defaultdict(deque)
    for loc, lst in ev.items():
        stack = []
        for kind, t, rest in lst:
            if kind == "ENTER":
                stack.append((re.search(r'Region: "([^"]*)"', rest).group(1), t, []))
            elif kind == "LEAVE":
                region, e, evs = stack.pop()
                for k2, t2, r2 in evs:
                    if k2 == "MPI_SEND":
                        dst = int(re.search(r"Receiver: (\d+)", r2).group(1))
                        tag = int(re.search(r"Tag: (\d+)", r2).group(1))
                        sends[(loc, dst, tag)].append((region, e, t))
                    if k2 == "MPI_RECV":
                        src = int(re.search(r"Sender: (\d+)", r2).group(1))
                        tag = int(re.search(r"Tag: (\d+)", r2).group(1))
                        posts[(src, loc, tag)].append(e)
            elif stack:
                stack[-1][2].append((kind, t, rest))
    lr = 0
    for key, q in sends.items():
        for (region, e, leave), post in zip(q, posts[key]):
            if region in ("MPI_Send", "MPI_Ssend") and leave > post and post - e > 0:
                lr += post - e
    return lr


if __name__ == "__main__":
    tot, res = main()
    tot["mpi_latereceiver"] = late_receiver(sys.argv[1])
    for k in ("mpi_latesender", "mpi_latesender_wo", "mpi_lswo_same", "mpi_lswo_different",
              "mpi_latereceiver", "mpi_barrier_wait"):
        print("%s %.9f" % (k, tot.get(k, 0) / res))
