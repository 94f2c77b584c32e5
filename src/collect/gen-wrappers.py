#!/usr/bin/env python3
"""Generate the PMPI wrappers from mpi-functions.def.

usage: gen-wrappers.py TABLE OUT_C OUT_H

OUT_H holds the region enum and the name/role table (identical on every rank,
so MPI regions need no unification).  OUT_C holds one wrapper per row; every
wrapper calls PMPI_<name> and reports to the runtime through the kubus_ev_*
helpers declared in collect.h.
"""
import re
import sys


def parse(path):
    rows = []
    with open(path, encoding='utf-8') as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            cols = [c.strip() for c in line.split('|')]
            if len(cols) != 6:
                sys.exit(f'{path}:{lineno}: expected 6 columns, got {len(cols)}')
            name, kind, role, op, params, attrs = cols
            amap = {}
            for a in filter(None, (x.strip() for x in attrs.split(';'))):
                k, _, v = a.partition('=')
                amap[k.strip()] = v.strip()
            if params == 'void':
                names = []
            else:
                names = []
                for p in params.split(','):
                    m = re.search(r'(\w+)\s*(\[\])?\s*$', p.strip())
                    if not m:
                        sys.exit(f'{path}:{lineno}: cannot parse parameter {p!r}')
                    names.append(m.group(1))
            rows.append(dict(name=name, kind=kind, role=role, op=op,
                             params=params, args=', '.join(names), a=amap,
                             line=lineno))
    return rows


def body(r):
    n, a, args = r['name'], r['a'], r['args']
    rid = f'KUBUS_R_{n}'
    call = f'P{n} ({args})'
    k = r['kind']
    out = []
    w = out.append
    site = '__builtin_return_address (0)'
    if k == 'init':
        w(f'  uint64_t t0 = kubus_now ();')
        w(f'  kubus_prof_site_hint = {site};')
        w(f'  int ret = {call};')
        w(f'  if (ret == MPI_SUCCESS)')
        w(f'    kubus_measurement_start (t0, {rid});')
        w(f'  return ret;')
        return out
    if k == 'finalize':
        # Every rank takes part in the measurement's finalize steps (a barrier, the clock
        # offsets, unification), whether or not it still records: see collect-state.c.
        w(f'  kubus_prof_site_hint = {site};')
        w(f'  kubus_measurement_finish ({rid});')
        w(f'  return {call};')
        return out
    if k == 'abort':
        w(f'  if (KUBUS_ON ())')
        w(f'    {{')
        w(f'      kubus_ev_enter ({rid}, {site});')
        w(f'      kubus_measurement_abort ({rid}, errorcode);')
        w(f'    }}')
        w(f'  return {call};')
        return out

    w(f'  if (!KUBUS_ON ())')
    w(f'    {{')
    # MPI_THREAD_MULTIPLE: other threads' calls go to their own profile (no trace)
    w(f'      if (KUBUS_PROF_OTHER_THREAD ())')
    w(f'        {{')
    w(f'          uint64_t kubus_tok = kubus_prof_thread_enter ({rid}, {site});')
    w(f'          int kubus_ret = {call};')
    w(f'          kubus_prof_thread_leave (kubus_tok);')
    w(f'          return kubus_ret;')
    w(f'        }}')
    w(f'      return {call};')
    w(f'    }}')
    w(f'  kubus_ev_enter ({rid}, {site});')
    pre, post = [], []
    if k in ('isend', 'start', 'startall'):
        # A send happens when its call is entered (Scalasca semantics); the request handle
        # only exists after the call, so the event is written then, with the enter time.
        pre.append('uint64_t kubus_t_enter = kubus_stamp;')
    if k in ('recv', 'sendrecv', 'mrecv', 'wait', 'test', 'waitany', 'testany'):
        st = a['status']
        pre.append(f'MPI_Status kubus_st;')
        pre.append(f'if ({st} == MPI_STATUS_IGNORE)')
        pre.append(f'  {st} = &kubus_st;')
    if k in ('send', 'sendrecv'):
        pre.append(f"kubus_ev_send ({a['peer']}, {a['tag']}, {a['comm']}, {a['count']}, {a['type']});")
    if k == 'plain':
        pass
    elif k == 'send':
        pass
    elif k == 'isend':
        post.append(f"kubus_ev_isend ({a['peer']}, {a['tag']}, {a['comm']}, {a['count']}, {a['type']}, *{a['req']}, kubus_t_enter);")
    elif k in ('recv', 'sendrecv'):
        post.append(f"kubus_ev_recv ({a['comm']}, {a['status']});")
    elif k == 'irecv':
        post.append(f"kubus_ev_irecv_request ({a['peer']}, {a['comm']}, *{a['req']});")
    elif k == 'mprobe':
        # a matched message remembers its communicator: MPI_(I)mrecv has none
        cond = f"*{a['flag']}" if 'flag' in a else '1'
        post.append(f"if ({cond})")
        post.append(f"  kubus_msg_probed (*{a['msg']}, {a['comm']});")
    elif k in ('mrecv', 'imrecv'):
        pre.append(f"uint32_t kubus_mc = kubus_msg_take (*{a['msg']});")
        if k == 'mrecv':
            post.append(f"kubus_ev_recv_on (kubus_mc, {a['status']});")
        else:
            post.append(f"kubus_ev_irecv_request_on (kubus_mc, *{a['req']});")
    elif k == 'cancel':
        pre.append(f"kubus_req_cancel (*{a['req']});")
    elif k == 'send_init':
        post.append(f"kubus_req_persistent (*{a['req']}, 1, {a['peer']}, {a['tag']}, {a['comm']}, {a['count']}, {a['type']});")
    elif k == 'recv_init':
        post.append(f"kubus_req_persistent (*{a['req']}, 0, {a['peer']}, 0, {a['comm']}, 0, MPI_BYTE);")
    elif k == 'start':
        post.append(f"kubus_ev_start (*{a['req']}, kubus_t_enter);")
    elif k == 'startall':
        post.append(f"for (int i = 0; i < {a['count']}; i++)")
        post.append(f"  kubus_ev_start ({a['req']}[i], kubus_t_enter);")
    elif k == 'request_free':
        pre.append(f"kubus_req_free (*{a['req']});")
    elif k in ('wait', 'test'):
        pre.append(f"MPI_Request kubus_saved = *{a['req']};")
        cond = f"*{a['flag']}" if k == 'test' else '1'
        post.append(f"if ({cond})")
        post.append(f"  kubus_ev_complete (kubus_saved, {a['status']});")
    elif k in ('waitall', 'testall'):
        c, st = a['count'], a['status']
        pre.append(f"MPI_Request *kubus_saved = kubus_scratch_requests ({a['req']}, {c});")
        pre.append(f"if ({st} == MPI_STATUSES_IGNORE)")
        pre.append(f"  {st} = kubus_scratch_statuses ({c});")
        cond = f"*{a['flag']}" if k == 'testall' else '1'
        post.append(f"if ({cond} && kubus_saved != NULL && {st} != MPI_STATUSES_IGNORE)")
        post.append(f"  for (int i = 0; i < {c}; i++)")
        post.append(f"    kubus_ev_complete (kubus_saved[i], &{st}[i]);")
    elif k in ('waitany', 'testany'):
        pre.append(f"MPI_Request *kubus_saved = kubus_scratch_requests ({a['req']}, {a['count']});")
        cond = f"*{a['flag']} && " if k == 'testany' else ''
        post.append(f"if ({cond}kubus_saved != NULL && *{a['index']} != MPI_UNDEFINED)")
        post.append(f"  kubus_ev_complete (kubus_saved[*{a['index']}], {a['status']});")
    elif k == 'waitsome':
        c, st = a['count'], a['status']
        pre.append(f"MPI_Request *kubus_saved = kubus_scratch_requests ({a['req']}, {c});")
        pre.append(f"if ({st} == MPI_STATUSES_IGNORE)")
        pre.append(f"  {st} = kubus_scratch_statuses ({c});")
        post.append(f"if (kubus_saved != NULL && {st} != MPI_STATUSES_IGNORE && *{a['outcount']} != MPI_UNDEFINED)")
        post.append(f"  for (int i = 0; i < *{a['outcount']}; i++)")
        post.append(f"    kubus_ev_complete (kubus_saved[{a['indices']}[i]], &{st}[i]);")
    elif k == 'coll':
        pre.append('kubus_ev_coll_begin ();')
        root = a.get('root', 'KUBUS_NO_ROOT')
        post.append('{')
        post.append('  int N, ME;')
        post.append(f"  uint32_t kubus_c = kubus_comm_info ({a['comm']}, &N, &ME);")
        post.append(f"  uint64_t kubus_sent = (uint64_t) ({a['sent']});")
        post.append(f"  uint64_t kubus_recv = (uint64_t) ({a['recv']});")
        post.append(f"  kubus_ev_coll_end (OTF2_COLLECTIVE_OP_{r['op']}, kubus_c, {root}, kubus_sent, kubus_recv);")
        post.append(f"  if (kubus_profiling)")
        post.append(f"    kubus_prof_coll (kubus_c, N, ME, (uint32_t) ({root}), kubus_sent, kubus_recv);")
        post.append('  (void) N;')
        post.append('  (void) ME;')
        post.append('}')
    elif k == 'comm_new':
        cart = a.get('cart', 'NULL')
        post.append(f"kubus_comm_created ({a['comm']}, ret == MPI_SUCCESS ? *{a['newcomm']} : MPI_COMM_NULL, {cart});")
    elif k == 'comm_inter':
        post.append(f"if (ret == MPI_SUCCESS)")
        post.append(f"  kubus_comm_created_inter (*{a['newcomm']});")
    elif k == 'comm_idup':
        post.append(f"kubus_comm_created_dup ({a['comm']}, ret == MPI_SUCCESS ? *{a['newcomm']} : MPI_COMM_NULL);")
    elif k == 'comm_group':
        post.append(f"kubus_comm_created_group ({a['comm']}, ret == MPI_SUCCESS ? *{a['newcomm']} : MPI_COMM_NULL);")
    elif k == 'comm_free':
        pre.append(f"kubus_comm_freed (*{a['comm']});")
    else:
        sys.exit(f"line {r['line']}: unknown kind {k}")
    for line in pre:
        w('  ' + line)
    w(f'  int ret = {call};')
    if post:
        if k in ('comm_new', 'comm_group', 'comm_inter', 'comm_idup'):
            for line in post:
                w('  ' + line)
        else:
            w('  if (ret == MPI_SUCCESS)')
            w('    {')
            for line in post:
                w('      ' + line)
            w('    }')
    w(f'  kubus_ev_leave ({rid});')
    w('  return ret;')
    return out


def main():
    table, out_c, out_h = sys.argv[1:4]
    rows = parse(table)
    with open(out_h, 'w', encoding='utf-8') as h:
        h.write('/* Generated by gen-wrappers.py from mpi-functions.def: do not edit. */\n')
        h.write('#pragma once\n\n#include <otf2/otf2.h>\n\nenum\n{\n')
        for r in rows:
            h.write(f"  KUBUS_R_{r['name']},\n")
        h.write('  KUBUS_R_MPI_COUNT\n};\n\n')
        h.write('typedef struct\n{\n  const char *name;\n  OTF2_RegionRole role;\n} KubusMpiRegion;\n\n')
        h.write('static const KubusMpiRegion kubus_mpi_regions[KUBUS_R_MPI_COUNT] = {\n')
        for r in rows:
            h.write(f"  {{ \"{r['name']}\", OTF2_REGION_ROLE_{r['role']} }},\n")
        h.write('};\n')
    with open(out_c, 'w', encoding='utf-8') as c:
        c.write('/* Generated by gen-wrappers.py from mpi-functions.def: do not edit. */\n')
        c.write('#include "collect.h"\n\n')
        c.write('#define TS(t) kubus_type_size (t)\n')
        c.write('#define SUMC(c) kubus_sum_counts ((c), N)\n')
        c.write('#define SUMW(c, t) kubus_sum_typed ((c), (t), N)\n')
        c.write('#define INPLACE(b) ((const void *) (b) == MPI_IN_PLACE)\n\n')
        for r in rows:
            c.write(f"int\n{r['name']} ({r['params']})\n{{\n")
            c.write('\n'.join(body(r)) + '\n}\n\n')


if __name__ == '__main__':
    main()
