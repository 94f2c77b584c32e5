"""A small CUBE 3 XML reader for the profile tests: independent of src/cube, so the tests see
the file as any other reader would.

load(path) -> Cube with
  attrs      {key: value}
  metrics    {uniq_name: {'id', 'dtype', 'disp_name', 'descr', 'parent'}}
  cnodes     {id: {'path', 'region', 'depth', 'line', 'mod', 'parent'}}, path = names from the
             root joined by '/'
  locations  [(process rank, thread rank)] in thread id order
  values     {uniq_name: {(cnode id, location): float}} (what the file stores: exclusive along
             the call tree, inclusive along the metric tree)
"""
import xml.etree.ElementTree as ET


class Cube:
    pass


def load(path, metrics=None):
    """@metrics: the unique names whose values to read (None: all)."""
    root = ET.parse(path).getroot()
    c = Cube()
    c.attrs = {a.get('key'): a.get('value') for a in root.findall('attr')}
    c.metrics = {}
    by_id = {}
    stack = [(m, None) for m in reversed(root.find('metrics').findall('metric'))]
    while stack:
        m, parent = stack.pop()
        uniq = m.findtext('uniq_name')
        c.metrics[uniq] = {'id': m.get('id'), 'dtype': m.findtext('dtype'),
                           'disp_name': m.findtext('disp_name') or '',
                           'descr': m.findtext('descr') or '', 'parent': parent}
        by_id[m.get('id')] = uniq
        stack.extend((k, uniq) for k in reversed(m.findall('metric')))
    program = root.find('program')
    regions = {r.get('id'): r.findtext('name') for r in program.findall('region')}
    c.cnodes = {}
    stack = [(n, None, 0) for n in reversed(program.findall('cnode'))]
    while stack:
        n, parent, depth = stack.pop()
        name = regions[n.get('calleeId')]
        path = name if parent is None else c.cnodes[parent]['path'] + '/' + name
        cid = int(n.get('id'))
        c.cnodes[cid] = {'path': path, 'region': name, 'depth': depth,
                         'line': int(n.get('line', '-1')), 'mod': n.get('mod', ''),
                         'parent': parent}
        stack.extend((k, cid, depth + 1) for k in reversed(n.findall('cnode')))
    locs = {}
    for p in root.find('system').iter('process'):
        prank = int(p.findtext('rank'))
        for t in p.findall('thread'):
            locs[int(t.get('Id'))] = (prank, int(t.findtext('rank')))
    c.locations = [locs[i] for i in sorted(locs)]
    c.values = {}
    for mat in root.find('severity').findall('matrix'):
        uniq = by_id[mat.get('metricId')]
        if metrics is not None and uniq not in metrics:
            continue
        vals = c.values.setdefault(uniq, {})
        for row in mat.findall('row'):
            cid = int(row.get('cnodeId'))
            for loc, v in enumerate((row.text or '').split()):
                x = float(v)
                if x != 0:
                    vals[(cid, loc)] = x
    return c


def by_path(c, metric, loc=None):
    """Sums of a metric per call path (all call sites of a path), at one location or all."""
    out = {}
    for (cid, l), v in c.values.get(metric, {}).items():
        if loc is None or l == loc:
            p = c.cnodes[cid]['path']
            out[p] = out.get(p, 0.0) + v
    return out
