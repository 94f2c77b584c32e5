#!/usr/bin/env python3
"""Independent wait-state oracle for Kubus.

Reads the text printed by Debian's `otf2-print` (definitions with -G, events
without options) for one OTF2 archive and applies the formulas of
docs PATTERNS.md by hand.  It shares no code with src/core on purpose: the
analyzer and this script must agree on every trace, and when they do not one
of them misreads PATTERNS.md.

Usage: waitstate-oracle.py TRACE.otf2 [--json] [--nxn-extra] [--wo-by-event]
                           [--otf2-print PROGRAM]

Standard library only.  See tests/oracle/README.md for how each number is
derived.
"""

import argparse
import json
import os
import re
import subprocess
import sys
from collections import defaultdict, deque

WO_BUFFER = 100  # PATTERNS.md: "Keep each rank's recent Late Sender instances (last 100)"
WO_BY_EVENT = False  # --wo-by-event

NXN_OPS = {"ALLREDUCE", "ALLGATHER", "ALLGATHERV", "ALLTOALL", "ALLTOALLV",
           "REDUCE_SCATTER"}
# Not named in PATTERNS.md; --nxn-extra adds them (the analyzer does).
NXN_EXTRA = {"ALLTOALLW", "REDUCE_SCATTER_BLOCK"}
BCAST_OPS = {"BCAST", "SCATTER", "SCATTERV"}
REDUCE_OPS = {"REDUCE", "GATHER", "GATHERV"}
SCAN_OPS = {"SCAN", "EXSCAN"}
COLL_NAMES = {"MPI_" + b for a in ("", "I") for b in (
    a + "allgather", a + "allgatherv", a + "allreduce", a + "alltoall", a + "alltoallv",
    a + "alltoallw", a + "bcast", a + "exscan", a + "gather", a + "gatherv", a + "reduce",
    a + "reduce_scatter", a + "reduce_scatter_block", a + "scan", a + "scatter",
    a + "scatterv")}
COLL_NAMES = {n[:4] + n[4].upper() + n[5:] for n in COLL_NAMES}

# Blocking-receive calls that complete a message themselves.
RECV_CALLS = {"MPI_Recv", "MPI_Sendrecv", "MPI_Sendrecv_replace"}
SINGLE_WAIT = {"MPI_Wait", "MPI_Waitany"}
MULTI_WAIT = {"MPI_Waitall", "MPI_Waitsome"}
LR_SEND_CALLS = {"MPI_Send", "MPI_Ssend"}

# MPI region grouping for the "mpi" subtree (time inside the call, by name).
MGMT_COMM_PREFIXES = ("MPI_Comm_", "MPI_Cart_", "MPI_Group_", "MPI_Dims_create",
                      "MPI_Topo_", "MPI_Cartdim_get", "MPI_Graph", "MPI_Intercomm_")
P2P_NAMES_RE = re.compile(
    r"^MPI_(B|S|R|I|Ib|Is|Ir)?send(recv(_replace)?)?(_init)?$|^MPI_I?recv(_init)?$|"
    r"^MPI_(Wait|Test)(all|any|some)?$|^MPI_(Start|Startall|Request_free|Cancel|I?probe)$",
    re.IGNORECASE)


class TraceError(Exception):
    pass


def run_print(args, trace):
    try:
        out = subprocess.run(args + [trace], check=True, capture_output=True,
                             text=True, errors="replace")
    except FileNotFoundError as exc:
        raise TraceError(f"{trace}: cannot run {args[0]}: {exc}") from exc
    except subprocess.CalledProcessError as exc:
        raise TraceError(f"{trace}: {' '.join(args)} failed: {exc.stderr.strip()}") from exc
    return out.stdout


# ---------------------------------------------------------------- definitions

DEF_LINE = re.compile(r"^([A-Z_]+)\s+(\d+)?\s+(.*)$")
LOC_REF = re.compile(r"<(\d+)>")


class Defs:
    def __init__(self):
        self.ticks_per_second = None
        self.global_offset = 0
        self.regions = {}          # id -> name
        self.region_by_name = {}
        self.locations = []        # location ids in definition order
        self.groups = {}           # id -> (type, [location ids])
        self.comm_group = {}       # comm id -> group id
        self.comm_name = {}

    def comm_members(self, comm):
        gid = self.comm_group.get(comm)
        if gid is None:
            return None
        return self.groups.get(gid, ("", []))[1]


def parse_members(gtype, text):
    """Members of a GROUP line: for COMM_LOCATIONS the location ids; for
    COMM_GROUP the rank list '0 ("Master thread" <0>), 2 (...)' whose <N>
    otf2-print already resolved to the location id."""
    m = re.search(r"\d+ Members?: (.*)$", text)
    if not m:
        return []
    return [int(x) for x in LOC_REF.findall(m.group(1))]


def parse_defs(text, trace):
    d = Defs()
    for line in text.splitlines():
        m = DEF_LINE.match(line)
        if not m:
            continue
        kind, ident, rest = m.group(1), m.group(2), m.group(3)
        if kind == "CLOCK_PROPERTIES":
            mm = re.search(r"Ticks per Seconds: (\d+), Global Offset: (\d+)", line)
            if mm:
                d.ticks_per_second = int(mm.group(1))
                d.global_offset = int(mm.group(2))
        elif kind == "REGION" and ident is not None:
            mm = re.match(r'Name: "(.*?)" <\d+>', rest)
            if mm:
                d.regions[int(ident)] = mm.group(1)
                d.region_by_name.setdefault(mm.group(1), int(ident))
        elif kind == "LOCATION" and ident is not None:
            d.locations.append(int(ident))
        elif kind == "GROUP" and ident is not None:
            mm = re.search(r"Type: ([A-Z_]+)", rest)
            gtype = mm.group(1) if mm else ""
            d.groups[int(ident)] = (gtype, parse_members(gtype, rest))
        elif kind == "COMM" and ident is not None:
            mm = re.search(r'Name: "(.*?)" <\d+>, Group: "(?:.*?)" <(\d+)>', rest)
            if mm:
                d.comm_name[int(ident)] = mm.group(1)
                d.comm_group[int(ident)] = int(mm.group(2))
    if not d.ticks_per_second:
        raise TraceError(f"{trace}: no CLOCK_PROPERTIES with 'Ticks per Seconds' in the global definitions")
    return d


# --------------------------------------------------------------------- events

EVT_LINE = re.compile(r"^([A-Z_]+)\s+(\d+)\s+(\d+)\s*(.*)$")


class Call:
    """One visit of a region on one location."""
    __slots__ = ("loc", "name", "enter", "leave", "depth", "events", "index")

    def __init__(self, loc, name, enter, depth, index):
        self.loc = loc
        self.name = name
        self.enter = enter
        self.leave = None
        self.depth = depth
        self.events = []
        self.index = index


def field(rest, key):
    m = re.search(key + r": ([^,]*?)(?:,|$)", rest)
    return m.group(1).strip() if m else None


def peer_location(rest, key, defs, comm):
    """Receiver/Sender/Root field: 'N ("name" <LOC>)' -> location id."""
    m = re.search(key + r': (\d+)(?: \("(?:.*?)" <(\d+)>\))?', rest)
    if not m:
        return None
    if m.group(2) is not None:
        return int(m.group(2))
    members = defs.comm_members(comm)
    rank = int(m.group(1))
    if members and rank < len(members):
        return members[rank]
    return None


def parse_events(text, defs, trace):
    calls = defaultdict(list)      # loc -> [Call] in enter order
    stacks = defaultdict(list)
    visits = defaultdict(int)
    order = 0
    for line in text.splitlines():
        if not line or line[0] == " ":
            continue  # blank or ADDITIONAL ATTRIBUTES continuation
        m = EVT_LINE.match(line)
        if not m:
            continue
        kind, loc, ts, rest = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
        if kind == "ENTER":
            mm = re.match(r'Region: "(.*?)" <(\d+)>', rest)
            name = mm.group(1) if mm else rest
            c = Call(loc, name, ts, len(stacks[loc]), order)
            order += 1
            stacks[loc].append(c)
            calls[loc].append(c)
            visits[loc] += 1
        elif kind == "LEAVE":
            if not stacks[loc]:
                raise TraceError(f"{trace}: LEAVE without ENTER on location {loc} at {ts}")
            c = stacks[loc].pop()
            c.leave = ts
        elif kind.startswith("MPI_"):
            if not stacks[loc]:
                continue  # MPI event outside any region: nothing to charge
            ev = {"kind": kind, "ts": ts}
            comm = None
            mm = re.search(r'Communicator: "(?:.*?)" <(\d+)>', rest)
            if mm:
                comm = int(mm.group(1))
            ev["comm"] = comm
            for key in ("Tag", "Length", "Request", "Sent", "Received"):
                v = field(rest, key)
                if v is not None:
                    ev[key.lower()] = int(v)
            if kind in ("MPI_SEND", "MPI_ISEND"):
                ev["peer"] = peer_location(rest, "Receiver", defs, comm)
            elif kind in ("MPI_RECV", "MPI_IRECV"):
                ev["peer"] = peer_location(rest, "Sender", defs, comm)
            elif kind == "MPI_COLLECTIVE_END":
                ev["op"] = field(rest, "Operation")
                root = field(rest, "Root")
                ev["root"] = None if root in (None, "NONE", "UNDEFINED") else \
                    peer_location(rest, "Root", defs, comm)
            stacks[loc][-1].events.append(ev)
    for loc, st in stacks.items():
        if st:
            raise TraceError(f"{trace}: location {loc} ends with {len(st)} unclosed regions "
                             f"(innermost {st[-1].name})")
    return calls, visits


# ------------------------------------------------------------------- analysis

class Oracle:
    def __init__(self, defs, calls, visits):
        self.defs = defs
        self.calls = calls
        self.locs = sorted(set(defs.locations) | set(calls.keys()))
        self.visits = visits
        self.m = defaultdict(lambda: defaultdict(int))  # metric -> loc -> ticks or count
        self.unmatched_send = 0
        self.unmatched_recv = 0
        self.coll_mismatch = []
        self.coll_incomplete = 0

    def add(self, metric, loc, value):
        self.m[metric][loc] += value

    # -- time ------------------------------------------------------------
    def basics(self):
        for loc in self.locs:
            cl = self.calls.get(loc, [])
            roots = [c for c in cl if c.depth == 0]
            self.add("time", loc, sum(c.leave - c.enter for c in roots))
            if roots:
                self.add("time_span", loc,
                         max(c.leave for c in roots) - min(c.enter for c in roots))
            self.add("visits", loc, self.visits.get(loc, 0))
            # Exclusive time per visit (like a CUBE cnode holds it): a
            # region nested inside an MPI call (a trace-buffer flush, say) is
            # charged to its own region, not to MPI.
            excl = {id(c): c.leave - c.enter for c in cl}
            stack = []
            for c in cl:
                while stack and stack[-1].depth >= c.depth:
                    stack.pop()
                if stack:
                    excl[id(stack[-1])] -= c.leave - c.enter
                stack.append(c)
            for c in cl:
                if not c.name.startswith("MPI_"):
                    continue
                d = excl[id(c)]
                self.add("mpi", loc, d)
                self.add(self._mpi_class(c), loc, d)

    @staticmethod
    def _mpi_class(c):
        n = c.name
        if n in ("MPI_Init", "MPI_Init_thread", "MPI_Finalize"):
            return "mpi_init_exit"
        if n.startswith(MGMT_COMM_PREFIXES):
            return "mpi_mgmt_comm"
        if n in ("MPI_Barrier", "MPI_Ibarrier"):
            return "mpi_sync_collective"
        if n in COLL_NAMES:
            return "mpi_collective"
        if P2P_NAMES_RE.match(n):
            return "mpi_point2point"
        if any(ev["kind"] == "MPI_COLLECTIVE_END" for ev in c.events):
            return "mpi_collective"
        return "mpi_other"

    # -- point to point --------------------------------------------------
    def p2p(self):
        queues = defaultdict(deque)  # (comm, src, dst, tag) -> FIFO of send records
        send_recs = []
        isend_post = {}              # (loc, request) -> send record
        irecv_post = {}              # (loc, request) -> MPI_Irecv call
        for loc in self.locs:
            for c in self.calls.get(loc, []):
                for ev in c.events:
                    k = ev["kind"]
                    if k in ("MPI_SEND", "MPI_ISEND"):
                        rec = {"call": c, "ev": ev, "src": loc, "complete": None,
                               "recv_post_enter": None}
                        send_recs.append(rec)
                        if k == "MPI_ISEND":
                            isend_post[(loc, ev.get("request"))] = rec
                        queues[(ev["comm"], loc, ev.get("peer"), ev.get("tag"))].append(rec)
                        length = ev.get("length", 0)
                        self.add("comms_send" if length > 0 else "syncs_send", loc, 1)
                        self.add("bytes_sent", loc, length)
                    elif k == "MPI_ISEND_COMPLETE":
                        rec = isend_post.pop((loc, ev.get("request")), None)
                        if rec is not None:
                            rec["complete"] = c

        for loc in self.locs:
            wo_buf = deque()
            for c in self.calls.get(loc, []):
                candidates = []
                for ev in c.events:
                    k = ev["kind"]
                    if k == "MPI_IRECV_REQUEST":
                        irecv_post[(loc, ev.get("request"))] = c
                        continue
                    if k not in ("MPI_RECV", "MPI_IRECV"):
                        continue
                    length = ev.get("length", 0)
                    self.add("comms_recv" if length > 0 else "syncs_recv", loc, 1)
                    self.add("bytes_rcvd", loc, length)
                    q = queues.get((ev["comm"], ev.get("peer"), loc, ev.get("tag")))
                    if not q:
                        self.unmatched_recv += 1
                        continue
                    srec = q.popleft()
                    if k == "MPI_RECV":
                        post = c
                    else:
                        post = irecv_post.pop((loc, ev.get("request")), c)
                    srec["recv_post_enter"] = post.enter
                    send_enter = srec["call"].enter
                    # Wrong-order key: E(send) by default (the time Late Sender
                    # uses); --wo-by-event uses the MPI_SEND event's own time.
                    send_key = srec["ev"]["ts"] if WO_BY_EVENT else send_enter
                    # Messages in Wrong Order: this receive got a message that
                    # was sent before the send of a buffered Late Sender instance.
                    keep = deque()
                    for inst in wo_buf:
                        if send_key < inst["send_key"]:
                            same = inst["src"] == srec["src"]
                            self.add("mpi_lswo_same" if same else "mpi_lswo_different",
                                     loc, inst["wait"])
                            self.add("mpi_latesender_wo", loc, inst["wait"])
                        else:
                            keep.append(inst)
                    wo_buf = keep
                    completing = ((k == "MPI_RECV" and c.name in RECV_CALLS) or
                                  (k == "MPI_IRECV" and (c.name in SINGLE_WAIT or
                                                         c.name in MULTI_WAIT)))
                    if completing:
                        wait = max(0, min(send_enter, c.leave) - c.enter)
                        candidates.append((wait, send_key, srec["src"]))
                if candidates:
                    # Waitall/Waitsome: the largest wait, charged once; the
                    # other calls complete one message each anyway.
                    wait, send_key, src = max(candidates, key=lambda t: t[0])
                    if wait > 0:
                        self.add("mpi_latesender", loc, wait)
                        wo_buf.append({"wait": wait, "send_key": send_key, "src": src})
                        while len(wo_buf) > WO_BUFFER:
                            wo_buf.popleft()
        self.unmatched_send = sum(len(q) for q in queues.values())

        # Late Receiver: blocking MPI_Send/MPI_Ssend, and MPI_Wait/Waitany that
        # complete an MPI_Isend/MPI_Issend; the receive request time is the
        # enter of the receive call that posted the receive.
        for srec in send_recs:
            post_enter = srec["recv_post_enter"]
            if post_enter is None:
                continue
            if srec["ev"]["kind"] == "MPI_SEND":
                waiter = srec["call"]
                if waiter.name not in LR_SEND_CALLS:
                    continue
            else:
                waiter = srec["complete"]
                if waiter is None or waiter.name not in SINGLE_WAIT:
                    continue
            # "when positive and the send did not return before the receive
            # was posted"
            if post_enter > waiter.enter and waiter.leave > post_enter:
                self.add("mpi_latereceiver", waiter.loc, post_enter - waiter.enter)

    # -- collectives -----------------------------------------------------
    def collectives(self):
        inst = defaultdict(lambda: defaultdict(list))  # comm -> loc -> [(call, ev)]
        for loc in self.locs:
            for c in self.calls.get(loc, []):
                for ev in c.events:
                    if ev["kind"] != "MPI_COLLECTIVE_END":
                        continue
                    inst[ev["comm"]][loc].append((c, ev))
                    op = ev.get("op") or ""
                    sent, rcvd = ev.get("sent", 0), ev.get("received", 0)
                    self.add("bytes_cout", loc, sent)
                    self.add("bytes_cin", loc, rcvd)
                    # PATTERNS.md: "zero-byte vs data-carrying"; the split of
                    # the data-carrying ones follows the bytes this rank moved.
                    if sent == 0 and rcvd == 0:
                        self.add("syncs_coll", loc, 1)
                    elif sent > 0 and rcvd > 0:
                        self.add("comms_cxch", loc, 1)
                    elif sent > 0:
                        self.add("comms_csrc", loc, 1)
                    else:
                        self.add("comms_cdst", loc, 1)
        for comm, per_loc in inst.items():
            members = self.defs.comm_members(comm) or sorted(per_loc.keys())
            if len(members) <= 1:
                continue  # size-one communicators carry no wait state
            n = max(len(v) for v in per_loc.values())
            if any(len(per_loc.get(l, [])) != n for l in members):
                self.coll_mismatch.append(comm)
            for k in range(n):
                group = [(l, per_loc[l][k]) for l in members if k < len(per_loc.get(l, []))]
                if len(group) < len(members):
                    # A member never finished this instance (a crashed or
                    # aborted run): the latest enter is unknown, so no wait
                    # state can be computed for it.
                    self.coll_incomplete += 1
                    continue
                self._one_collective(group, members)

    def _one_collective(self, group, members):
        ops = {ev.get("op") for _, (_, ev) in group}
        op = ops.pop() if len(ops) == 1 else None
        enters = {l: c.enter for l, (c, _) in group}
        leaves = {l: c.leave for l, (c, _) in group}
        max_e = max(enters.values())
        min_l = min(leaves.values())
        if op == "BARRIER" or op in NXN_OPS:
            wmet, cmet = (("mpi_barrier_wait", "mpi_barrier_completion") if op == "BARRIER"
                          else ("mpi_wait_nxn", "mpi_nxn_completion"))
            for l in enters:
                last = min(max_e, leaves[l])
                self.add(wmet, l, max(0, last - enters[l]))
                self.add(cmet, l, max(0, leaves[l] - max(min_l, last)))
        elif op in BCAST_OPS:
            root = group[0][1][1].get("root")
            if root in enters:
                for l in enters:
                    if l != root:
                        self.add("mpi_latebroadcast", l,
                                 max(0, min(enters[root], leaves[l]) - enters[l]))
        elif op in REDUCE_OPS:
            root = group[0][1][1].get("root")
            if root in enters:
                others = [enters[l] for l in enters if l != root]
                if others:
                    self.add("mpi_earlyreduce", root, max(0, max(others) - enters[root]))
        elif op in SCAN_OPS:
            running = None
            for l in members:
                if l not in enters:
                    continue
                running = enters[l] if running is None else max(running, enters[l])
                self.add("mpi_earlyscan", l, max(0, min(running, leaves[l]) - enters[l]))

    def init_completion(self):
        # Not spelled out in PATTERNS.md: the N x N completion formula applied
        # to MPI_Init/MPI_Init_thread over all ranks (time in the call after
        # the first rank has left it).
        ini = {}
        for loc in self.locs:
            for c in self.calls.get(loc, []):
                if c.name in ("MPI_Init", "MPI_Init_thread") and loc not in ini:
                    ini[loc] = c
        if len(ini) <= 1:
            return
        max_e = max(c.enter for c in ini.values())
        min_l = min(c.leave for c in ini.values())
        for loc, c in ini.items():
            last = min(max_e, c.leave)
            self.add("mpi_init_completion", loc, max(0, c.leave - max(min_l, last)))

    def finalize(self):
        fin = {}
        for loc in self.locs:
            for c in self.calls.get(loc, []):
                if c.name == "MPI_Finalize":
                    fin[loc] = c
        if len(fin) <= 1:
            return
        max_e = max(c.enter for c in fin.values())
        for loc, c in fin.items():
            self.add("mpi_finalize_wait", loc, max(0, min(max_e, c.leave) - c.enter))

    def derived(self):
        for loc in self.locs:
            self.m["execution"][loc] = self.m["time"][loc]
            self.m["comp"][loc] = self.m["time"][loc] - self.m["mpi"][loc]
            self.m["mpi_management"][loc] = (self.m["mpi_init_exit"][loc] +
                                             self.m["mpi_mgmt_comm"][loc])
            self.m["mpi_synchronization"][loc] = self.m["mpi_sync_collective"][loc]
            self.m["mpi_communication"][loc] = (self.m["mpi_point2point"][loc] +
                                                self.m["mpi_collective"][loc])
            self.m["syncs"][loc] = sum(self.m[k][loc] for k in
                                       ("syncs_send", "syncs_recv", "syncs_coll"))
            self.m["comms"][loc] = sum(self.m[k][loc] for k in
                                       ("comms_send", "comms_recv", "comms_cxch",
                                        "comms_csrc", "comms_cdst"))
            self.m["bytes"][loc] = sum(self.m[k][loc] for k in
                                       ("bytes_sent", "bytes_rcvd", "bytes_cout", "bytes_cin"))


TIME_METRICS = ["time", "time_span", "execution", "comp", "mpi", "mpi_management",
                "mpi_init_exit", "mpi_init_completion", "mpi_mgmt_comm", "mpi_synchronization",
                "mpi_sync_collective", "mpi_communication", "mpi_point2point", "mpi_collective",
                "mpi_other", "mpi_latesender", "mpi_latesender_wo", "mpi_lswo_different",
                "mpi_lswo_same", "mpi_latereceiver", "mpi_barrier_wait",
                "mpi_barrier_completion", "mpi_wait_nxn", "mpi_nxn_completion",
                "mpi_latebroadcast", "mpi_earlyreduce", "mpi_earlyscan", "mpi_finalize_wait"]
COUNT_METRICS = ["visits", "syncs", "syncs_send", "syncs_recv", "syncs_coll", "comms",
                 "comms_send", "comms_recv", "comms_cxch", "comms_csrc", "comms_cdst",
                 "bytes", "bytes_sent", "bytes_rcvd", "bytes_cout", "bytes_cin"]


def analyse(trace, otf2_print="otf2-print"):
    if not os.path.exists(trace):
        raise TraceError(f"{trace}: no such file")
    defs = parse_defs(run_print([otf2_print, "-G"], trace), trace)
    calls, visits = parse_events(run_print([otf2_print], trace), defs, trace)
    o = Oracle(defs, calls, visits)
    o.basics()
    o.p2p()
    o.collectives()
    o.init_completion()
    o.finalize()
    o.derived()
    return o, defs


def result(o, defs, trace):
    res = defs.ticks_per_second
    totals, per_rank = {}, {}
    for name in TIME_METRICS:
        vals = [o.m[name][l] for l in o.locs]
        totals[name] = sum(vals) / res
        per_rank[name] = [v / res for v in vals]
    for name in COUNT_METRICS:
        vals = [o.m[name][l] for l in o.locs]
        totals[name] = sum(vals)
        per_rank[name] = vals
    return {
        "trace": os.path.abspath(trace),
        "ticks_per_second": res,
        "locations": o.locs,
        "totals": totals,
        "per_rank": per_rank,
        "diagnostics": {"unmatched_sends": o.unmatched_send,
                        "unmatched_receives": o.unmatched_recv,
                        "communicators_with_uneven_collectives": o.coll_mismatch,
                        "incomplete_collective_instances_skipped": o.coll_incomplete},
    }


def print_text(r):
    print(f"trace: {r['trace']}")
    print(f"ticks per second: {r['ticks_per_second']}   locations: {r['locations']}")
    print(f"{'metric':24s} {'total':>20s}  per rank")
    for name, total in r["totals"].items():
        per = r["per_rank"][name]
        if isinstance(total, float):
            print(f"{name:24s} {total:20.9f}  " + " ".join(f"{v:.9f}" for v in per))
        else:
            print(f"{name:24s} {total:20d}  " + " ".join(str(v) for v in per))
    d = r["diagnostics"]
    print(f"unmatched sends {d['unmatched_sends']}, unmatched receives "
          f"{d['unmatched_receives']}, uneven collectives on {d['communicators_with_uneven_collectives']} "
          f"({d['incomplete_collective_instances_skipped']} incomplete instances skipped)")


def main(argv):
    ap = argparse.ArgumentParser(description="Independent wait-state oracle (otf2-print based)")
    ap.add_argument("trace", help="OTF2 anchor file (traces.otf2)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    ap.add_argument("--nxn-extra", action="store_true",
                    help="also treat MPI_Alltoallw and MPI_Reduce_scatter_block as N x N")
    ap.add_argument("--wo-by-event", action="store_true",
                    help="order sends for Messages in Wrong Order by the MPI_SEND event time "
                         "instead of the enter of the send call")
    ap.add_argument("--otf2-print", default="otf2-print", help="otf2-print program")
    a = ap.parse_args(argv)
    if a.nxn_extra:
        NXN_OPS.update(NXN_EXTRA)
    if a.wo_by_event:
        global WO_BY_EVENT
        WO_BY_EVENT = True
    try:
        o, defs = analyse(a.trace, a.otf2_print)
    except TraceError as exc:
        print(f"waitstate-oracle: {exc}", file=sys.stderr)
        return 1
    r = result(o, defs, a.trace)
    if a.json:
        json.dump(r, sys.stdout, indent=1)
        print()
    else:
        print_text(r)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
