#!/usr/bin/env python3
"""Generate the PMPI wrappers from mpi-functions.def.

usage: gen-wrappers.py TABLE OUT_C OUT_H [OUT_F OUT_DECL]

OUT_H holds the region enum and the name/role table (identical on every rank,
so MPI regions need no unification).  OUT_C holds one recording function per
row, kubus_wrap_<name> (the C parameters plus the call site), which calls
PMPI_<name> and reports to the runtime through the kubus_ev_* helpers declared
in collect.h, and the C entry point <name>, which passes its return address.
OUT_F holds the Fortran entry points (mpif.h / use mpi in every mangling, and
use mpi_f08): they convert handles, statuses, sentinels and LOGICALs
(collect-fortran.h) and call the same kubus_wrap_<name> with the Fortran
caller's return address.  OUT_DECL declares the kubus_wrap_* functions.
"""
import re
import sys


def parse_pairs(text):
    """'k=v; k=v' -> dict"""
    amap = {}
    for a in filter(None, (x.strip() for x in text.split(';'))):
        k, _, v = a.partition('=')
        amap[k.strip()] = v.strip()
    return amap


def parse(path):
    rows = []
    aliases = []
    with open(path, encoding='utf-8') as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            if line.startswith('@fortran-alias'):
                m = re.fullmatch(r'@fortran-alias\s+(\w+)\s*=\s*(\w+)', line)
                if not m:
                    sys.exit(f'{path}:{lineno}: expected "@fortran-alias NAME = FUNCTION"')
                aliases.append(dict(name=m.group(1), target=m.group(2), line=lineno))
                continue
            cols = [c.strip() for c in line.split('|')]
            if len(cols) == 6:
                cols.append('')
            if len(cols) != 7:
                sys.exit(f'{path}:{lineno}: expected 6 or 7 columns, got {len(cols)}')
            name, kind, role, op, params, attrs, fortran = cols
            plist = []
            if params != 'void':
                for p in params.split(','):
                    m = re.match(r'^(.*?)(\w+)\s*(\[\])?\s*$', p.strip())
                    if not m:
                        sys.exit(f'{path}:{lineno}: cannot parse parameter {p!r}')
                    ctype = ' '.join(m.group(1).replace('*', ' * ').split())
                    plist.append(dict(ctype=ctype, name=m.group(2), array=bool(m.group(3))))
            # 'c-only': no Fortran entry point (a Fortran call reaches the C wrapper through
            # the MPI library or not at all: MPI_Comm_spawn's array of strings)
            c_only = fortran == 'c-only'
            frules = {} if c_only else parse_pairs(fortran)
            for k in frules:
                if k not in [q['name'] for q in plist]:
                    sys.exit(f'{path}:{lineno}: Fortran rule for unknown parameter {k!r}')
            rows.append(dict(name=name, kind=kind, role=role, op=op,
                             params=params, plist=plist,
                             args=', '.join(q['name'] for q in plist),
                             a=parse_pairs(attrs), f=frules, c_only=c_only,
                             line=lineno))
    names = {r['name'] for r in rows}
    for al in aliases:
        if al['target'] not in names:
            sys.exit(f"{path}:{al['line']}: {al['target']} is not in the table")
    return rows, aliases


def body(r):
    n, a, args = r['name'], r['a'], r['args']
    rid = f'KUBUS_R_{n}'
    call = f'P{n} ({args})'
    k = r['kind']
    out = []
    w = out.append
    site = 'kubus_site'
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
    # Another thread: under MPI_THREAD_SERIALIZED (or less) its call joins the rank's one
    # event stream; under MPI_THREAD_MULTIPLE it is counted and goes to the thread's own
    # profile (no trace).  See collect-state.c, kubus_other_thread_call.
    w(f'      if (KUBUS_OTHER_THREAD ())')
    w(f'        {{')
    w(f'          if (kubus_other_thread_call ())')
    w(f'            goto kubus_record;')
    w(f'          if (kubus_profiling)')
    w(f'            {{')
    w(f'              uint64_t kubus_tok = kubus_prof_thread_enter ({rid}, {site});')
    w(f'              int kubus_ret = {call};')
    w(f'              kubus_prof_thread_leave (kubus_tok);')
    w(f'              return kubus_ret;')
    w(f'            }}')
    w(f'        }}')
    w(f'      return {call};')
    w(f'    }}')
    w(f'kubus_record:')
    w(f'  kubus_ev_enter ({rid}, {site});')
    pre, post = [], []
    if k in ('isend', 'start', 'startall', 'icoll'):
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
    elif k == 'icoll':
        # the request event with the enter time (the collective starts when its call is
        # entered, as a send does); op, communicator, root and bytes go to the request table
        # and are written when a MPI_Wait* / MPI_Test* completes it (collect-p2p.c)
        root = a.get('root', 'KUBUS_NO_ROOT')
        post.append('{')
        post.append('  int N, ME;')
        post.append(f"  uint32_t kubus_c = kubus_comm_info ({a['comm']}, &N, &ME);")
        post.append(f"  uint64_t kubus_sent = (uint64_t) ({a['sent']});")
        post.append(f"  uint64_t kubus_recv = (uint64_t) ({a['recv']});")
        post.append(f"  kubus_ev_icoll (OTF2_COLLECTIVE_OP_{r['op']}, kubus_c, {root}, kubus_sent, kubus_recv, *{a['req']}, kubus_t_enter);")
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


# ------------------------------------------------------------------ Fortran
#
# Every Fortran argument is passed by reference: INTEGER and handle arguments arrive as
# MPI_Fint *, choice buffers as addresses (Open MPI's mpi_f08 passes them without
# descriptors: MPI_SUBARRAYS_SUPPORTED is .false.), TYPE(MPI_Comm) and friends as the address
# of their one INTEGER component, so mpif.h, use mpi and use mpi_f08 share one C signature;
# mpi_f08's optional ierror arrives as NULL when absent.  Most conversions follow from the C
# type; the table's seventh column names the rest (see mpi-functions.def).

HANDLES = {
    'MPI_Comm': ('PMPI_Comm_f2c', 'PMPI_Comm_c2f', 'MPI_COMM_NULL'),
    'MPI_Datatype': ('PMPI_Type_f2c', 'PMPI_Type_c2f', 'MPI_DATATYPE_NULL'),
    'MPI_Request': ('PMPI_Request_f2c', 'PMPI_Request_c2f', 'MPI_REQUEST_NULL'),
    'MPI_Op': ('PMPI_Op_f2c', 'PMPI_Op_c2f', 'MPI_OP_NULL'),
    'MPI_Info': ('PMPI_Info_f2c', 'PMPI_Info_c2f', 'MPI_INFO_NULL'),
    'MPI_Group': ('PMPI_Group_f2c', 'PMPI_Group_c2f', 'MPI_GROUP_NULL'),
    'MPI_Message': ('PMPI_Message_f2c', 'PMPI_Message_c2f', 'MPI_MESSAGE_NULL'),
    'MPI_File': ('PMPI_File_f2c', 'PMPI_File_c2f', 'MPI_FILE_NULL'),
    'MPI_Win': ('PMPI_Win_f2c', 'PMPI_Win_c2f', 'MPI_WIN_NULL'),
}
# handle pointers that carry a value in (the others are results)
INOUT = {
    'MPI_Request': {'wait', 'test', 'start', 'request_free', 'cancel'},
    'MPI_Message': {'mrecv', 'imrecv'},
    'MPI_Comm': {'comm_free'},
}
STATUS_ARRAY_KINDS = {'waitall', 'testall', 'waitsome'}


# the names a Fortran compiler may give a mpif.h / use mpi subroutine (Open MPI exports all four)
def f77_names(name):
    # not the lowercase name without underscore (Open MPI's libmpi_mpifh has it, for
    # -fno-underscoring): C libraries name their own functions so (R's Rmpi: mpi_allreduce,
    # mpi_send, ...), and a preloaded entry point of that name took their calls
    # (docs/decisions/2026-11-29-fortran-names.md)
    low = name.lower()
    return [low + '_', low + '__', name.upper()]


def f08_name(name):
    return name.lower() + '_f08_'


class FParam:
    """One parameter's Fortran side: its declaration in the entry point, locals, scratch
    arrays, conversions before the call, the C argument, conversions after it."""

    def __init__(self):
        self.decl = None
        self.locals = []
        self.arrays = []  # (variable, C element type, count expression)
        self.pre = []
        self.arg = None
        self.post = []
        self.hidden = None  # a CHARACTER argument's hidden length (after ierror)
        self.cleanup = []  # after the call, whatever it returned


def fparam(r, q, binding):
    n, t, k = q['name'], q['ctype'], r['kind']
    rule = r['f'].get(n, '')
    fp = FParam()
    base = t.replace('const ', '').strip()
    if rule == 'absent':
        fp.arg = 'NULL'
        return fp
    if rule == 'detach':
        # mpif.h / use mpi ignore the buffer argument; mpi_f08's TYPE(C_PTR) receives the
        # address of the detached buffer (MPI-3.1 section 3.6)
        fp.decl = f'void *{n}'
        fp.locals.append(f'void *kubus_d_{n} = NULL;')
        fp.arg = f'&kubus_d_{n}'
        if binding == 'f08':
            fp.post.append(f'*(void **) {n} = kubus_d_{n};')
        else:
            fp.pre.append(f'(void) {n};')
        return fp
    if base == 'void *':
        fp.decl = f'void *{n}'
        fp.arg = f'kubus_f_buf ({n})'
        return fp
    if base == 'int' and not q['array']:
        fp.decl = f'MPI_Fint *{n}'
        fp.arg = f'(*{n})'  # a LOGICAL in (reorder, high): any non-zero value is true in C as well
        return fp
    if base == 'int *' and not q['array']:
        fp.decl = f'MPI_Fint *{n}'
        if rule == 'logical':
            fp.locals.append(f'int kubus_l_{n} = 0;')
            fp.arg = f'&kubus_l_{n}'
            fp.post.append(f'*{n} = kubus_l_{n} ? KUBUS_F_TRUE : KUBUS_F_FALSE;')
        elif rule == 'index':
            fp.arg = n
            fp.post.append(f'if (*{n} != MPI_UNDEFINED)')
            fp.post.append(f'  *{n} += 1;')
        elif rule == '':
            fp.arg = n
        else:
            sys.exit(f"line {r['line']}: rule {rule!r} does not fit {t} {n}")
        return fp
    if base == 'int' and q['array']:
        # counts, displacements, ranks, LOGICAL arrays in (periods, remain_dims: non-zero is
        # true), array_of_indices out
        fp.decl = f'MPI_Fint *{n}'
        m = re.fullmatch(r'indices\((\w+)\)', rule)
        if m:
            oc = m.group(1)
            fp.arg = n
            fp.post.append(f'if (*{oc} != MPI_UNDEFINED)')
            fp.post.append(f'  for (int i = 0; i < *{oc}; i++)')
            fp.post.append(f'    {n}[i] += 1;')
        elif rule == 'weights':
            fp.arg = f'kubus_f_weights ({n})'
        elif rule == '':
            fp.arg = n
        else:
            sys.exit(f"line {r['line']}: rule {rule!r} does not fit {t} {n}")
        return fp
    if base == 'MPI_Offset' and not q['array']:
        fp.decl = f'MPI_Offset *{n}'  # INTEGER(KIND=MPI_OFFSET_KIND)
        fp.arg = f'(*{n})'
        return fp
    if base == 'MPI_Offset *' and not q['array']:
        fp.decl = f'MPI_Offset *{n}'
        fp.arg = n
        return fp
    if base == 'char *' and t.startswith('const ') and not q['array']:
        # CHARACTER(LEN=*): the address and, after every other argument, its length (gfortran
        # passes it as size_t); MPI takes the text without its trailing blanks
        fp.decl = f'const char *{n}'
        fp.hidden = f'size_t kubus_len_{n}'
        fp.locals.append(f'char *kubus_c_{n} = kubus_f_string ({n}, kubus_len_{n});')
        fp.arg = f'kubus_c_{n}'
        fp.cleanup.append(f'free (kubus_c_{n});')
        return fp
    if base == 'MPI_Aint' and not q['array']:
        fp.decl = f'MPI_Aint *{n}'  # INTEGER(KIND=MPI_ADDRESS_KIND) by reference
        fp.arg = f'(*{n})'
        return fp
    if base == 'MPI_Aint *' and not q['array']:
        fp.decl = f'MPI_Aint *{n}'
        fp.arg = n
        return fp
    if base == 'MPI_Aint' and q['array']:
        fp.decl = f'MPI_Aint *{n}'  # INTEGER(KIND=MPI_ADDRESS_KIND)
        fp.arg = n
        return fp
    if base == 'MPI_Status *' or (base == 'MPI_Status' and q['array']):
        fp.decl = f'MPI_Fint *{n}'
        # a test that found nothing leaves its status undefined: nothing to hand back then
        flags = [f' && kubus_l_{k}' for k, v in r['f'].items() if v == 'logical']
        got = flags[0] if flags else ''
        if k in STATUS_ARRAY_KINDS and r['a'].get('status') == n:
            cnt = f"(*{r['a']['count']})"
            fp.arrays.append((f'kubus_s_{n}', 'MPI_Status', cnt))
            fp.pre.append(f'int kubus_si_{n} = kubus_f_is ({n}, KUBUS_F_STATUSES_IGNORE);')
            fp.arg = f'kubus_si_{n} ? MPI_STATUSES_IGNORE : kubus_s_{n}'
            done = f"(*{r['a']['outcount']})" if k == 'waitsome' else cnt
            fp.post.append(f'if (!kubus_si_{n}{got} && {done} != MPI_UNDEFINED)')
            fp.post.append(f'  for (int i = 0; i < {done}; i++)')
            fp.post.append(f'    PMPI_Status_c2f (&kubus_s_{n}[i], {n} + i * KUBUS_F_STATUS_INTS);')
        else:
            fp.locals.append(f'MPI_Status kubus_st_{n};')
            fp.pre.append(f'int kubus_si_{n} = kubus_f_is ({n}, KUBUS_F_STATUS_IGNORE);')
            fp.arg = f'kubus_si_{n} ? MPI_STATUS_IGNORE : &kubus_st_{n}'
            fp.post.append(f'if (!kubus_si_{n}{got})')
            fp.post.append(f'  PMPI_Status_c2f (&kubus_st_{n}, {n});')
        return fp
    h = base.rstrip(' *')
    if h in HANDLES:
        f2c, c2f, null = HANDLES[h]
        fp.decl = f'MPI_Fint *{n}'
        if base == h and not q['array']:
            fp.arg = f'{f2c} (*{n})'
        elif base == h + ' *' and not q['array']:
            v = f'kubus_h_{n}'
            inout = k in INOUT.get(h, ()) or rule == 'inout'
            fp.locals.append(f'{h} {v} = {null};')
            if inout:
                fp.pre.append(f'{v} = {f2c} (*{n});')
            fp.arg = f'&{v}'
            fp.post.append(f'*{n} = {c2f} ({v});')
        elif base == h and q['array'] and h == 'MPI_Request':
            cnt = f"(*{r['a']['count']})"
            v = f'kubus_r_{n}'
            fp.arrays.append((v, h, cnt))
            fp.pre.append(f'for (int i = 0; i < {cnt}; i++)')
            fp.pre.append(f'  {v}[i] = {f2c} ({n}[i]);')
            fp.arg = v
            fp.post.append(f'for (int i = 0; i < {cnt}; i++)')
            fp.post.append(f'  {n}[i] = {c2f} ({v}[i]);')
        elif base == h and q['array'] and h == 'MPI_Datatype':
            m = re.fullmatch(r'types\((peers|indegree|outdegree) (\w+)(?: (\w+))?\)', rule)
            if not m:
                sys.exit(f"line {r['line']}: {n}: an array of datatypes needs a types(...) rule")
            how, comm, buf = m.groups()
            cnt = f'kubus_n_{n}'
            fp.locals.append(f'int {cnt} = kubus_f_peers (PMPI_Comm_f2c (*{comm}), KUBUS_F_{how.upper()});')
            v = f'kubus_t_{n}'
            fp.arrays.append((v, h, cnt))
            unused = f'kubus_f_is ({buf}, KUBUS_F_IN_PLACE)' if buf else '0'
            fp.pre.append(f'for (int i = 0; i < {cnt}; i++)')
            fp.pre.append(f'  {v}[i] = {unused} ? MPI_DATATYPE_NULL : {f2c} ({n}[i]);')
            fp.arg = v
        else:
            sys.exit(f"line {r['line']}: no Fortran conversion for {t} {n}")
        return fp
    sys.exit(f"line {r['line']}: no Fortran conversion for {t} {n}")


def fortran_entry(r, binding, fname):
    """The C text of one Fortran entry point, kubus_f_<name> or kubus_f08_<name>."""
    ps = [fparam(r, q, binding) for q in r['plist']]
    decls = ([p.decl for p in ps if p.decl] + ['MPI_Fint *ierror']
             + [p.hidden for p in ps if p.hidden])
    out = [f'static void\n{fname} ({", ".join(decls)})\n{{']
    w = out.append
    w('  const void *kubus_site = __builtin_return_address (0);')
    w('  KUBUS_F_SETUP ();')
    for p in ps:
        for l in p.locals:
            w('  ' + l)
    strings = [f'kubus_c_{q["name"]}' for p, q in zip(ps, r['plist']) if p.hidden]
    if strings:
        w('  if (' + ' || '.join(f'{v} == NULL' for v in strings) + ')')
        w('    {')
        for v in strings:
            w(f'      free ({v});')
        w('      kubus_f_set_error (ierror, kubus_f_no_memory ());')
        w('      return;')
        w('    }')
    arrays = [a for p in ps for a in p.arrays]
    for v, ty, cnt in arrays:
        w(f'  {ty} {v}_stack[KUBUS_F_STACK];')
        w(f'  {ty} *{v} = kubus_f_array ({v}_stack, KUBUS_F_STACK, {cnt}, sizeof *{v});')
    if arrays:
        w('  if (' + ' || '.join(f'{v} == NULL' for v, _, _ in arrays) + ')')
        w('    {')
        for v, _, _ in arrays:
            w(f'      kubus_f_array_free ({v}, {v}_stack);')
        for v in strings:
            w(f'      free ({v});')
        w('      kubus_f_set_error (ierror, kubus_f_no_memory ());')
        w('      return;')
        w('    }')
    for p in ps:
        for l in p.pre:
            w('  ' + l)
    call_args = [p.arg for p in ps] + ['kubus_site']
    w(f"  int ret = kubus_wrap_{r['name']} ({', '.join(call_args)});")
    post = [l for p in ps for l in p.post]
    if post:
        w('  if (kubus_f_ok (ret))')
        w('    {')
        for l in post:
            w('      ' + l)
        w('    }')
    for v, _, _ in arrays:
        w(f'  kubus_f_array_free ({v}, {v}_stack);')
    for l in [l for p in ps for l in p.cleanup]:
        w('  ' + l)
    w('  kubus_f_set_error (ierror, ret);')
    w('}')
    return '\n'.join(out) + '\n'


def write_fortran(rows, aliases, out_f):
    with open(out_f, 'w', encoding='utf-8') as c:
        c.write('/* Generated by gen-wrappers.py from mpi-functions.def: do not edit.\n'
                ' * The Fortran entry points: mpif.h and use mpi (every mangling) and use mpi_f08. */\n')
        c.write('#include "collect-fortran.h"\n#include "mpi-wrappers.h"\n\n')
        c.write('#define KUBUS_F_EXPORT(target, name) \\\n'
                '  extern __typeof__ (target) name __attribute__ ((alias (#target), visibility ("default")));\n\n')
        for r in rows:
            if r['c_only']:
                continue
            f77 = fortran_entry(r, 'f77', f"kubus_f_{r['name']}")
            f08 = fortran_entry(r, 'f08', f"kubus_f08_{r['name']}")
            c.write(f77 + '\n')
            for a in f77_names(r['name']):
                c.write(f"KUBUS_F_EXPORT (kubus_f_{r['name']}, {a})\n")
            if f08.replace('kubus_f08_', 'kubus_f_') != f77:
                c.write('\n' + f08 + '\n')
                c.write(f"KUBUS_F_EXPORT (kubus_f08_{r['name']}, {f08_name(r['name'])})\n")
            else:
                c.write(f"KUBUS_F_EXPORT (kubus_f_{r['name']}, {f08_name(r['name'])})\n")
            c.write('\n')
        # further mpif.h / use mpi names of a function: the same entry point (its arguments
        # arrive alike)
        for al in aliases:
            for a in f77_names(al['name']):
                c.write(f"KUBUS_F_EXPORT (kubus_f_{al['target']}, {a})\n")


def wrap_params(r):
    return (r['params'] + ', ' if r['params'] != 'void' else '') + 'const void *kubus_site'


def main():
    table, out_c, out_h = sys.argv[1:4]
    out_f, out_decl = (sys.argv[4:6] + [None, None])[:2]
    rows, aliases = parse(table)
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
    if out_decl:
        with open(out_decl, 'w', encoding='utf-8') as d:
            d.write('/* Generated by gen-wrappers.py from mpi-functions.def: do not edit.\n'
                    ' * The recording functions behind the C and the Fortran entry points: the C\n'
                    ' * parameters of the MPI function and the call site to record. */\n')
            d.write('#pragma once\n\n#include <mpi.h>\n\n')
            for r in rows:
                d.write(f"int kubus_wrap_{r['name']} ({wrap_params(r)})\n"
                        '  __attribute__ ((visibility ("hidden")));\n')
    with open(out_c, 'w', encoding='utf-8') as c:
        c.write('/* Generated by gen-wrappers.py from mpi-functions.def: do not edit. */\n')
        c.write('#include "collect.h"\n')
        if out_decl:
            c.write('#include "mpi-wrappers.h"\n')
        c.write('\n')
        c.write('#define TS(t) kubus_type_size (t)\n')
        c.write('#define SUMC(c) kubus_sum_counts ((c), N)\n')
        c.write('#define SUMW(c, t) kubus_sum_typed ((c), (t), N)\n')
        c.write('#define INPLACE(b) ((const void *) (b) == MPI_IN_PLACE)\n\n')
        for r in rows:
            c.write(f"int\nkubus_wrap_{r['name']} ({wrap_params(r)})\n{{\n")
            c.write('\n'.join(body(r)) + '\n}\n\n')
            call_args = (r['args'] + ', ' if r['args'] else '') + '__builtin_return_address (0)'
            c.write(f"int\n{r['name']} ({r['params']})\n{{\n"
                    f"  return kubus_wrap_{r['name']} ({call_args});\n}}\n\n")
    if out_f:
        write_fortran(rows, aliases, out_f)


if __name__ == '__main__':
    main()
