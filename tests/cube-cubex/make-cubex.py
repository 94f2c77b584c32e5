#!/usr/bin/env python3
"""Writes small hand-made .cubex archives with known values into OUTDIR.

  make-cubex.py OUTDIR

The values are chosen by hand (see EXCL below); test-cubex.c asserts them. Good variants
exercise member order, padding, sparse/dense indexes, every dtype, big-endian metrics, zlib
rows, a gzip anchor, PAX size headers, GNU long names and bad header checksums; bad variants
must fail with a clear error (or, for unsupported dtypes, load without values).
"""
import gzip
import os
import struct
import sys
import zlib

# Call tree (cnode ids are deliberately not in pre-order):
#   main(0) -> foo(1) -> baz(3)
#           -> bar(2) -> qux(4)
# pre-order (exclusive metrics):  main foo baz bar qux  = ids 0 1 3 2 4
# inclusive order (node, children, recurse): main foo bar baz qux = ids 0 1 2 3 4
PREORDER = [0, 1, 3, 2, 4]
INCLORDER = [0, 1, 2, 3, 4]
CHILDREN = {0: [1, 2], 1: [3], 2: [4], 3: [], 4: []}
L = 2

# Exclusive (CUBE 3) values per metric: {cnode id: [loc0, loc1]}
EXCL = {
    'time': {0: [1, 2], 1: [3, 4], 3: [5, 6], 2: [7, 8], 4: [9, 10.5]},
    'mpi': {4: [0.5, 0.25]},
    'visits': {0: [1, 1], 1: [2, 3], 3: [4, 5], 2: [6, 7], 4: [8, 9]},
    'bytes': {3: [-5, 7]},
    'small': {0: [1, 2], 1: [101, 102], 3: [201, 202], 2: [301, 302], 4: [401, 402]},
    'i8': {0: [-3, 4]},
    'i16': {1: [-300, 32000]},
    'u32': {3: [4000000000, 1]},
    'i64': {2: [-(2 ** 40), 2 ** 40]},
    'u8': {4: [255, 0]},
    'mind': {0: [0.125, -1.5]},
}


def inclusive(excl):
    def incl(c):
        row = list(excl.get(c, [0] * L))
        for k in CHILDREN[c]:
            row = [a + b for a, b in zip(row, incl(k))]
        return row
    return {c: incl(c) for c in CHILDREN}


ANCHOR_METRICS = '''
    <metric id="0" type="INCLUSIVE"><disp_name>Time</disp_name><uniq_name>time</uniq_name>
      <dtype>DOUBLE</dtype><uom>sec</uom><url></url><descr>incl</descr>
      <metric id="1" type="INCLUSIVE"><disp_name>MPI</disp_name><uniq_name>mpi</uniq_name>
        <dtype>FLOAT</dtype><uom>sec</uom><url></url><descr>child</descr></metric>
    </metric>
    <metric id="2" type="EXCLUSIVE"><disp_name>Visits</disp_name><uniq_name>visits</uniq_name>
      <dtype>UINT64</dtype><uom>occ</uom><url></url><descr>dense</descr></metric>
    <metric id="3"><disp_name>Bytes</disp_name><uniq_name>bytes</uniq_name>
      <dtype>INT32</dtype><uom>bytes</uom><url></url><descr>big-endian</descr></metric>
    <metric id="4" type="SIMPLE"><disp_name>Small</disp_name><uniq_name>small</uniq_name>
      <dtype>UINT16</dtype><uom>occ</uom><url></url><descr>zlib</descr></metric>
    <metric id="5"><disp_name>I8</disp_name><uniq_name>i8</uniq_name>
      <dtype>INT8</dtype><uom>occ</uom><url></url><descr></descr></metric>
    <metric id="6"><disp_name>I16</disp_name><uniq_name>i16</uniq_name>
      <dtype>INT16</dtype><uom>occ</uom><url></url><descr></descr></metric>
    <metric id="7"><disp_name>U32</disp_name><uniq_name>u32</uniq_name>
      <dtype>UINT32</dtype><uom>occ</uom><url></url><descr></descr></metric>
    <metric id="8"><disp_name>I64</disp_name><uniq_name>i64</uniq_name>
      <dtype>INT64</dtype><uom>occ</uom><url></url><descr></descr></metric>
    <metric id="9"><disp_name>U8</disp_name><uniq_name>u8</uniq_name>
      <dtype>CHAR</dtype><uom>occ</uom><url></url><descr></descr></metric>
    <metric id="10"><disp_name>Min</disp_name><uniq_name>mind</uniq_name>
      <dtype>MINDOUBLE</dtype><uom>sec</uom><url></url><descr></descr></metric>
    <metric id="11"><disp_name>Hist</disp_name><uniq_name>hist</uniq_name>
      <dtype>HISTOGRAM(4)</dtype><uom>occ</uom><url></url><descr>unsupported</descr></metric>
    <metric id="12" type="POSTDERIVED"><disp_name>Derived</disp_name><uniq_name>derived</uniq_name>
      <dtype>DOUBLE</dtype><uom>sec</uom><url></url><descr></descr>
      <cubepl>metric::time() / metric::visits()</cubepl></metric>
    <metric id="13"><disp_name>Nodata</disp_name><uniq_name>nodata</uniq_name>
      <dtype>DOUBLE</dtype><uom>sec</uom><url></url><descr>no members</descr></metric>
    <metric id="14"><disp_name>Weird</disp_name><uniq_name>weird</uniq_name>
      <dtype>FOO</dtype><uom>sec</uom><url></url><descr>unknown dtype</descr></metric>
'''

ANCHOR = '''<?xml version="1.0" encoding="UTF-8"?>
<cube version="4.4">
  <attr key="CUBE_CT_AGGR" value="SUM"/>
  <doc><mirrors><murl>http://example.org/</murl></mirrors></doc>
  <metrics>%s</metrics>
  <program>
    <region id="0" mod="m.c" begin="1" end="9"><name>main</name><url></url><descr></descr></region>
    <region id="1" mod="m.c" begin="10" end="19"><name>foo</name><url></url><descr></descr></region>
    <region id="2" mod="m.c" begin="20" end="29"><name>bar</name><url></url><descr></descr></region>
    <region id="3" mod="m.c" begin="30" end="39"><name>baz</name><url></url><descr></descr></region>
    <region id="4" mod="m.c" begin="40" end="49"><name>qux</name><url></url><descr></descr></region>
    <cnode id="0" calleeId="0">
      <cnode id="1" calleeId="1"><cnode id="3" calleeId="3"></cnode></cnode>
      <cnode id="2" calleeId="2"><cnode id="4" calleeId="4"></cnode></cnode>
    </cnode>
  </program>
  <system>
    <systemtreenode Id="0"><name>machine</name><class>machine</class>
      <systemtreenode Id="1"><name>node0</name><class>node</class>
        <locationgroup Id="0"><name>rank 0</name><rank>0</rank><type>process</type>
          <location Id="0"><name>thread 0</name><rank>0</rank><type>thread</type></location>
        </locationgroup>
        <locationgroup Id="1"><name>rank 1</name><rank>1</rank><type>process</type>
          <location Id="1"><name>thread 0</name><rank>0</rank><type>thread</type></location>
        </locationgroup>
      </systemtreenode>
    </systemtreenode>
    <topologies></topologies>
  </system>
</cube>
''' % ANCHOR_METRICS

# metric id -> (uniq, struct code, stored call-inclusive?, order, index kind, endian, zlib)
METRICS = {
    0: ('time', 'd', True, INCLORDER, 'sparse-shuffled', '<', False),
    1: ('mpi', 'd', True, INCLORDER, 'sparse', '<', False),
    2: ('visits', 'Q', False, PREORDER, 'dense', '<', False),
    3: ('bytes', 'i', False, PREORDER, 'sparse', '>', False),
    4: ('small', 'H', False, PREORDER, 'sparse', '<', True),
    5: ('i8', 'b', False, PREORDER, 'sparse', '<', False),
    6: ('i16', 'h', False, PREORDER, 'sparse', '>', True),
    7: ('u32', 'I', False, PREORDER, 'sparse', '<', False),
    8: ('i64', 'q', False, PREORDER, 'sparse', '>', False),
    9: ('u8', 'B', False, PREORDER, 'sparse', '<', False),
    10: ('mind', 'd', False, PREORDER, 'sparse', '<', False),
}


def index_member(e, fmt, rows):
    head = b'CUBEX.INDEX' + struct.pack(e + 'IHB', 1, 0, fmt)
    if fmt == 3:
        return head
    return head + struct.pack(e + 'I', len(rows)) + struct.pack(e + '%dI' % len(rows), *rows)


def data_member(e, code, rowvals, compress, pad=0):
    raw = [struct.pack(e + '%d%s' % (L, code), *[int(v) if code != 'd' else float(v) for v in r])
           for r in rowvals]
    if not compress:
        return b'CUBEX.DATA' + b''.join(raw) + b'\0' * pad
    streams = [zlib.compress(r) for r in raw]
    table = b''
    ustart = cstart = 0
    for r, s in zip(raw, streams):
        table += struct.pack(e + '3Q', ustart, cstart, len(s))
        ustart += len(r)
        cstart += len(s)
    return b'ZCUBEX.DATA' + struct.pack(e + 'Q', len(raw)) + table + b''.join(streams)


def metric_members(mid):
    uniq, code, incl, order, kind, e, compress = METRICS[mid]
    vals = inclusive(EXCL[uniq]) if incl else EXCL[uniq]
    if kind == 'dense':
        rows = list(range(len(order)))
        fmt = 3
    else:
        rows = [order.index(c) for c in vals]   # positions of the cnodes that have values
        fmt = 1
        if kind == 'sparse-shuffled':
            rows = [3, 0, 4, 1, 2]
    rowvals = [vals.get(order[p], [0] * L) for p in rows]
    return [('%d.index' % mid, index_member(e, fmt, rows)),
            ('%d.data' % mid, data_member(e, code, rowvals, compress, pad=16 if mid == 0 else 0))]


def members(anchor_gzip=False):
    out = [('remapping.spec', b'# not ours\n')]
    for mid in (4, 0, 3, 2, 1, 5, 6, 7, 8, 9, 10):   # any order
        out += metric_members(mid)
    out += [('11.index', index_member('<', 1, [0])), ('11.data', b'CUBEX.DATA' + b'\x07' * 64)]
    anchor = ANCHOR.encode()
    if anchor_gzip:
        anchor = gzip.compress(anchor)
    out.append(('anchor.xml', anchor))
    return out


def octal(n, width):
    return ('%0*o' % (width - 1, n)).encode() + b'\0'


def base256(n, width):
    return b'\x80' + n.to_bytes(width - 1, 'big')


def header(name, size, typeflag=b'0', bad_checksum=False, size_field=None, v7=False):
    h = bytearray(512)
    nb = name.encode()[:100]
    h[0:len(nb)] = nb
    h[100:108] = octal(0o644, 8)
    h[108:116] = octal(0, 8)
    h[116:124] = octal(0, 8)
    h[124:136] = size_field if size_field is not None else octal(size, 12)
    h[136:148] = octal(1700000000, 12)
    h[148:156] = b' ' * 8
    h[156:157] = typeflag
    if not v7:
        h[257:263] = b'ustar\0'
        h[263:265] = b'00'
    chk = sum(h)
    if bad_checksum:
        chk = (chk + 12345) % 0o777777
    h[148:156] = ('%06o' % chk).encode() + b'\0 '
    return bytes(h)


def pax_record(key, value):
    body = ' %s=%s\n' % (key, value)
    n = len(body) + 1
    while len(str(n)) + len(body) != n:
        n = len(str(n)) + len(body)
    return (str(n) + body).encode()


def pad(b):
    return b + b'\0' * ((512 - len(b) % 512) % 512)


def tar(mems, bad_checksum=False, pax=False, gnu_long=False, b256=False, v7=False):
    out = b''
    for name, data in mems:
        if b256 or v7:
            out += header(name, len(data), v7=v7,
                          size_field=base256(len(data), 12) if b256 else None) + pad(data)
            continue
        if pax:
            p = pax_record('size', len(data))
            out += header('PaxHeaders/' + name, len(p), b'x') + pad(p)
            # the ustar size field lies (zero): the PAX record must win
            out += header(name, len(data), size_field=b'\0' * 12) + pad(data)
            continue
        if gnu_long and name == 'anchor.xml':
            long = ('./' * 60 + name).encode() + b'\0'
            out += header('././@LongLink', len(long), b'L') + pad(long)
            out += header(name[:10], len(data), bad_checksum=bad_checksum) + pad(data)
            continue
        out += header(name, len(data), bad_checksum=bad_checksum) + pad(data)
    return out + b'\0' * 1024


def replace(mems, name, data):
    return [(n, data if n == name else d) for n, d in mems]


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    good = members()
    files = {
        'good.cubex': tar(good),
        'good-gzanchor.cubex': tar(members(anchor_gzip=True)),
        'good-pax.cubex': tar(good, pax=True),
        'good-gnulong.cubex': tar(good, gnu_long=True),
        'good-badchecksum.cubex': tar(good, bad_checksum=True),
        'good-base256.cubex': tar(good, b256=True),
        'good-v7.cubex': tar(good, v7=True),
    }
    whole = tar(good)
    # cut inside the last member (anchor.xml)
    files['bad-truncated.cubex'] = whole[:len(whole) - 1024 - 700]
    # index of metric 2 claims 5 rows but data holds 4
    d2 = dict(good)['2.data']
    files['bad-index-beyond-data.cubex'] = tar(replace(good, '2.data', d2[:10 + 4 * 8 * L]))
    # a row id past the 5 call paths
    files['bad-rowid.cubex'] = tar(replace(good, '5.index', index_member('<', 1, [7])))
    files['bad-marker.cubex'] = tar(replace(good, '7.index',
                                            b'CUBEX.INDEX' + struct.pack('<IHBI', 2, 0, 1, 0)))
    zdata = bytearray(dict(good)['4.data'])
    zdata[-3] ^= 0xff  # breaks the last zlib stream (checksum)
    files['bad-zlib.cubex'] = tar(replace(good, '4.data', bytes(zdata)))
    files['bad-noanchor.cubex'] = tar([m for m in good if m[0] != 'anchor.xml'])
    files['bad-notar.cubex'] = b'ustar' * 300
    files['bad-empty.cubex'] = b''
    # cut between two members: no end-of-archive blocks, no anchor (which comes last)
    first = whole.index(b'0.index\0') // 512 * 512
    files['bad-cut-between.cubex'] = whole[:first]
    d = dict(good)
    anchor = d['anchor.xml'].decode()
    files['bad-index-magic.cubex'] = tar(replace(good, '5.index',
                                                 b'CUBEX.INDEZ' + d['5.index'][11:]))
    files['bad-index-format.cubex'] = tar(replace(good, '5.index', b'CUBEX.INDEX' + struct.pack(
        '<IHB', 1, 0, 2) + d['5.index'][18:]))
    files['bad-dup-rowid.cubex'] = tar(replace(good, '7.index', index_member('<', 1, [2, 2])))
    files['bad-data-magic.cubex'] = tar(replace(good, '5.data', b'CUBEX.DATX' + d['5.data'][10:]))
    # the row table claims 2^60 compressed rows
    files['bad-ztable.cubex'] = tar(replace(good, '4.data', d['4.data'][:11] + struct.pack(
        '<Q', 1 << 60) + d['4.data'][19:]))
    # NaN and infinity in double data (metric 10, 'mind': rows of 2 doubles)
    files['bad-nan.cubex'] = tar(replace(good, '10.data', b'CUBEX.DATA' + struct.pack(
        '<2d', 0.5, float('nan'))))
    files['bad-inf.cubex'] = tar(replace(good, '0.data', d['0.data'][:10 + 3 * 16] + struct.pack(
        '<d', float('-inf')) + d['0.data'][10 + 3 * 16 + 8:]))
    files['bad-anchor-version.cubex'] = tar(replace(good, 'anchor.xml', anchor.replace(
        'version="4.4"', 'version="5.0"').encode()))
    files['bad-anchor-xml.cubex'] = tar(replace(good, 'anchor.xml', anchor.replace(
        '<cnode id="3" calleeId="3"></cnode>', '<cnode id="3" calleeId="3"></cnod>').encode()))
    files['bad-anchor-doctype.cubex'] = tar(replace(good, 'anchor.xml', anchor.replace(
        '<cube version', '<!DOCTYPE cube [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]>'
        '\n<cube version').replace('<name>main<', '<name>&b;<').encode()))
    files['bad-anchor-dup-cnode.cubex'] = tar(replace(good, 'anchor.xml', anchor.replace(
        '<cnode id="4" calleeId="4">', '<cnode id="3" calleeId="4">').encode()))
    files['bad-anchor-dangling.cubex'] = tar(replace(good, 'anchor.xml', anchor.replace(
        '<cnode id="4" calleeId="4">', '<cnode id="4" calleeId="44">').encode()))
    for name, data in files.items():
        with open(os.path.join(outdir, name), 'wb') as f:
            f.write(data)


if __name__ == '__main__':
    main()
