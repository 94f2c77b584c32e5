#!/usr/bin/env python3
"""Independent reader for Cube 4 .cubex files: the test oracle for src/cube/cubex-reader.c.

Written from the format rules in docs FORMATS.md with nothing but the standard library
(tarfile, struct, zlib, xml.etree), so it shares no code with the C reader.

  cubex-oracle.py FILE stats        per metric: kind, dtype, raw and CUBE 3 statistics
  cubex-oracle.py FILE csv          metric,cnode,location,value (CUBE 3 semantics, non-zero only)
  cubex-oracle.py FILE dump         the same as `kubus-cube dump --csv` prints it (uniq names)
  cubex-oracle.py FILE ctable       per metric { file, uniq name, non-zero count, sum } for C
  cubex-oracle.py FILE raw          metric,cnode,location,value as stored (non-zero only)
  cubex-oracle.py FILE evidence     metric-tree storage evidence (stored root totals per metric)

CUBE 3 semantics: exclusive along the call tree, inclusive along the metric tree. Cube 4
stores INCLUSIVE metrics inclusive along the call tree; along the metric tree it stores
inclusive values like CUBE 3 (evidence: `evidence` mode, docs/decisions/cubex-semantics.md).
"""
import gzip
import struct
import sys
import tarfile
import xml.etree.ElementTree as ET
import zlib

SIZES = {
    'DOUBLE': ('d', 8), 'FLOAT': ('d', 8), 'MINDOUBLE': ('d', 8), 'MAXDOUBLE': ('d', 8),
    'INT64': ('q', 8), 'INTEGER': ('q', 8), 'UINT64': ('Q', 8),
    'INT32': ('i', 4), 'UINT32': ('I', 4), 'INT16': ('h', 2), 'UINT16': ('H', 2),
    'INT8': ('b', 1), 'UINT8': ('B', 1), 'CHAR': ('B', 1),
}


class Metric:
    def __init__(self, elem, parent):
        self.id = int(elem.get('id'))
        self.kind = elem.get('type', 'EXCLUSIVE')
        self.uniq = elem.findtext('uniq_name')
        self.dtype = (elem.findtext('dtype') or '').strip()
        self.cubepl = elem.find('cubepl') is not None
        self.parent = parent
        self.children = []


class Cnode:
    def __init__(self, elem, parent):
        self.id = int(elem.get('id'))
        self.parent = parent
        self.children = []


def walk_metrics(elem, parent, out):
    for e in elem.findall('metric'):
        m = Metric(e, parent)
        out.append(m)
        if parent:
            parent.children.append(m)
        walk_metrics(e, m, out)


def walk_cnodes(elem, parent, out, roots):
    for e in elem.findall('cnode'):
        c = Cnode(e, parent)
        out.append(c)
        if parent:
            parent.children.append(c)
        else:
            roots.append(c)
        walk_cnodes(e, c, out, roots)


def locations(system):
    locs = []
    for tag in ('thread', 'location'):
        for e in system.iter(tag):
            locs.append(int(e.get('Id', e.get('id'))))
    return sorted(locs)


def order_exclusive(roots):
    out = []

    def pre(c):
        out.append(c)
        for k in c.children:
            pre(k)
    for r in roots:
        pre(r)
    return out


def order_inclusive(roots):
    out = []

    def wide(n):
        out.extend(n.children)
        for k in n.children:
            wide(k)
    for r in roots:
        out.append(r)
        wide(r)
    return out


class Cubex:
    def __init__(self, path):
        self.members = {}
        with tarfile.open(path) as t:
            for m in t.getmembers():
                if m.isfile():
                    self.members[m.name] = t.extractfile(m).read()
        anchor = self.members['anchor.xml']
        if anchor[:2] == b'\x1f\x8b':
            anchor = gzip.decompress(anchor)
        root = ET.fromstring(anchor)
        self.metrics = []
        walk_metrics(root.find('metrics'), None, self.metrics)
        self.cnodes = []
        self.roots = []
        walk_cnodes(root.find('program'), None, self.cnodes, self.roots)
        self.cnode_ids = [c.id for c in self.cnodes]
        self.locs = locations(root.find('system'))
        self.L = len(self.locs)
        self.raw = {}    # metric id -> {cnode id: [L values]}
        for m in self.metrics:
            self.raw[m.id] = self.read_metric(m)

    def read_metric(self, m):
        idx = self.members.get('%d.index' % m.id)
        data = self.members.get('%d.data' % m.id)
        if m.cubepl or m.kind in ('POSTDERIVED', 'DERIVED') or idx is None or data is None:
            return {}
        if m.dtype not in SIZES:
            return None    # unsupported: no values
        assert idx[:11] == b'CUBEX.INDEX'
        marker = struct.unpack('<I', idx[11:15])[0]
        e = '<' if marker == 1 else '>'
        assert marker in (1, 0x01000000)
        fmt = idx[17]
        if fmt == 1:
            n = struct.unpack(e + 'I', idx[18:22])[0]
            rows = list(struct.unpack(e + '%dI' % n, idx[22:22 + 4 * n]))
        else:
            assert fmt == 3
            rows = list(range(len(self.cnodes)))
        if m.kind in ('INCLUSIVE', 'PREDERIVED_INCLUSIVE'):
            order = order_inclusive(self.roots)
        elif m.kind == 'SIMPLE':
            order = self.cnodes
        else:
            order = order_exclusive(self.roots)
        code, size = SIZES[m.dtype]
        rowbytes = size * self.L
        if data[:11] == b'ZCUBEX.DATA':
            nz = struct.unpack(e + 'Q', data[11:19])[0]
            table = [struct.unpack(e + '3Q', data[19 + 24 * i:43 + 24 * i]) for i in range(nz)]
            base = 19 + 24 * nz
            plain = bytearray(rowbytes * len(rows))
            for ustart, cstart, csize in table:
                chunk = zlib.decompress(data[base + cstart:base + cstart + csize])
                plain[ustart:ustart + len(chunk)] = chunk
            payload = bytes(plain)
        else:
            assert data[:10] == b'CUBEX.DATA'
            payload = data[10:]
        assert len(payload) >= rowbytes * len(rows)
        out = {}
        for k, pos in enumerate(rows):
            vals = struct.unpack(e + '%d%s' % (self.L, code), payload[k * rowbytes:(k + 1) * rowbytes])
            out[order[pos].id] = [float(v) for v in vals]
        return out

    def stored_row(self, m, c):
        r = self.raw[m.id]
        if not r:
            return [0.0] * self.L
        return r.get(c.id, [0.0] * self.L)

    def call_exclusive(self, m, c):
        row = list(self.stored_row(m, c))
        # a min or max over a subtree cannot be undone: such rows stay as stored
        if m.kind in ('INCLUSIVE', 'PREDERIVED_INCLUSIVE') and m.dtype not in ('MINDOUBLE',
                                                                             'MAXDOUBLE'):
            for k in c.children:
                kr = self.stored_row(m, k)
                row = [a - b for a, b in zip(row, kr)]
        return row

    def cube3(self, m, c):
        """Metric-inclusive, call-exclusive value row: the metric tree needs no conversion."""
        return self.call_exclusive(m, c)


def fmt(v):
    return repr(v) if v != int(v) or abs(v) > 2**53 else str(int(v))


def main():
    path, what = sys.argv[1], sys.argv[2]
    cx = Cubex(path)
    if what == 'dump':
        # the format of `kubus-cube dump --csv`: uniq name, cnode id, location index, %.17g
        print('metric,cnode,location,value')
        for m in cx.metrics:
            if not cx.raw[m.id]:
                continue
            for c in cx.cnodes:
                for li, v in enumerate(cx.cube3(m, c)):
                    if v != 0:
                        print('%s,%d,%d,%s' % (m.uniq, c.id, li, '%.17g' % v))
    elif what in ('csv', 'raw'):
        print('metric,cnode,location,value')
        for m in cx.metrics:
            if cx.raw[m.id] is None:
                continue
            for c in cx.cnodes:
                row = cx.cube3(m, c) if what == 'csv' else cx.stored_row(m, c)
                for li, v in enumerate(row):
                    if v != 0:
                        print('%d,%d,%d,%s' % (m.id, c.id, cx.locs[li], fmt(v)))
    elif what == 'stats':
        # metric id, uniq name, count of |v| > 1e-9 * max|v|, sum, sum of |v|
        for m in cx.metrics:
            if cx.raw[m.id] is None:
                print('%d %s UNSUPPORTED' % (m.id, m.uniq))
                continue
            vals = [v for c in cx.cnodes for v in cx.cube3(m, c)]
            big = max([abs(v) for v in vals] + [0.0])
            nz = [v for v in vals if abs(v) > 1e-9 * big]
            print('%d %s %s %s n=%d sum=%r abs=%r' % (m.id, m.uniq, m.kind, m.dtype, len(nz),
                                                      sum(nz), sum(abs(v) for v in nz)))
    elif what == 'ctable':
        # C initializers for test-cubex.c: file, metric, non-zero count, sum
        base = path.rsplit('/', 1)[-1]
        for m in cx.metrics:
            if cx.raw[m.id] is None:
                continue
            vals = [v for c in cx.cnodes for v in cx.cube3(m, c)]
            big = max([abs(v) for v in vals] + [0.0])
            nz = [v for v in vals if abs(v) > 1e-9 * big]
            print('  { "%s", "%s", %d, %r },' % (base, m.uniq, len(nz), sum(nz)))
    elif what == 'evidence':
        # For every metric with stored children: per cell (cnode, location), compare the
        # parent's stored value with the sum of its children's stored values.
        # Metric-inclusive storage: parent >= sum(children) in every cell (own part >= 0).
        # Metric-exclusive storage: the two are unrelated; parent < sum(children) somewhere.
        for m in cx.metrics:
            kids = [k for k in m.children if cx.raw[k.id]]
            if not cx.raw[m.id] or not kids:
                continue
            cells = less = equal = 0
            tot = ktot = 0.0
            for c in cx.cnodes:
                p = cx.call_exclusive(m, c)
                s = [sum(v) for v in zip(*[cx.call_exclusive(k, c) for k in kids])]
                for a, b in zip(p, s):
                    if a == 0 and b == 0:
                        continue
                    cells += 1
                    tot += a
                    ktot += b
                    if a < b - 1e-9 * max(abs(a), abs(b)):
                        less += 1
                    elif abs(a - b) <= 1e-9 * max(abs(a), abs(b)):
                        equal += 1
            print('%-22s depth=%d non-zero cells=%d parent<children=%d parent==children=%d '
                  'parent total=%.10g children total=%.10g' % (m.uniq, depth(m), cells, less,
                                                             equal, tot, ktot))


def depth(m):
    d = 0
    while m.parent:
        d += 1
        m = m.parent
    return d


if __name__ == '__main__':
    main()
