/* kct-format.c: the .kct encoding (docs/formats/kct.md) — writer and reader in one file.
 *
 * A file is the magic "KUBUSKCT", a version, and sections: a 4-byte tag, the payload length
 * (u64, little-endian), the CRC-32 of the payload (u32, little-endian), the payload.  Payloads
 * are LEB128 varints (zigzag for signed values), so the file has no byte order.  The reader
 * checks every length against what is left, every id against what exists, every checksum, and
 * that bodies only refer to bodies before them (no cycles, bounded nesting).
 */
#include "kct-format.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Messages a user reads: translated in src/core (KCT_GETTEXT), logged as they are by the
 * collector. */
#ifdef KCT_GETTEXT
#include <libintl.h>
#define _(s) dgettext (GETTEXT_PACKAGE, s)
#else
#define _(s) (s)
#endif


/* ---- CRC-32 (IEEE 802.3, as zlib's crc32) ---------------------------------- */

uint32_t
kct_crc32 (const void *data, size_t len)
{
  static uint32_t table[256];
  static int      ready;
  if (!ready)
    {
      for (uint32_t i = 0; i < 256; i++)
        {
          uint32_t c = i;
          for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
          table[i] = c;
        }
      ready = 1;
    }
  const unsigned char *p = data;
  uint32_t             c = 0xFFFFFFFFu;
  for (size_t i = 0; i < len; i++)
    c = table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

/* ---- writer -------------------------------------------------------------------- */

typedef struct
{
  uint8_t *b;
  size_t   n, cap;
  int      failed;
} Out;

static void
out_bytes (Out *o, const void *p, size_t len)
{
  if (o->failed || len == 0)
    return;
  if (o->n + len > o->cap)
    {
      size_t cap = o->cap ? o->cap : 4096;
      while (cap < o->n + len)
        cap *= 2;
      uint8_t *n = realloc (o->b, cap);
      if (n == NULL)
        {
          o->failed = 1;
          return;
        }
      o->b = n;
      o->cap = cap;
    }
  memcpy (o->b + o->n, p, len);
  o->n += len;
}

static void
out_uv (Out *o, uint64_t v)
{
  uint8_t tmp[10];
  int     n = 0;
  do
    {
      uint8_t byte = v & 0x7F;
      v >>= 7;
      tmp[n++] = byte | (v ? 0x80 : 0);
    }
  while (v);
  out_bytes (o, tmp, (size_t)n);
}

static void
out_sv (Out *o, int64_t v)
{
  out_uv (o, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void
out_str (Out *o, const char *s)
{
  size_t len = s ? strlen (s) : 0;
  out_uv (o, len);
  out_bytes (o, s, len);
}

static void
out_le (Out *o, uint64_t v, int bytes)
{
  uint8_t tmp[8];
  for (int i = 0; i < bytes; i++)
    tmp[i] = (uint8_t)(v >> (8 * i));
  out_bytes (o, tmp, (size_t)bytes);
}

/* An ordered list as blocks of up to two nested arithmetic progressions (PRSDs):
 * runs start, start+s, … first, then runs of runs with the same stride and length whose
 * starts progress evenly. */
typedef struct
{
  uint32_t start, count;
  int64_t  stride;
} Run;

static void
out_list (Out *o, const KctList *l)
{
  Run     *runs = malloc (sizeof *runs * (l->n ? l->n : 1));
  uint32_t n_runs = 0;
  if (runs == NULL)
    {
      o->failed = 1;
      return;
    }
  for (uint32_t i = 0; i < l->n;)
    {
      Run r = { l->v[i], 1, 0 };
      if (i + 1 < l->n)
        {
          r.stride = (int64_t)l->v[i + 1] - (int64_t)l->v[i];
          uint32_t j = i + 1;
          while (j + 1 < l->n && (int64_t)l->v[j + 1] - (int64_t)l->v[j] == r.stride)
            j++;
          r.count = j - i + 1;
        }
      if (r.count == 2 && i + 2 < l->n)
        {
          /* a pair is cheaper as part of the next run when that one is longer */
          int64_t s2 = (int64_t)l->v[i + 2] - (int64_t)l->v[i + 1];
          if (i + 3 < l->n && (int64_t)l->v[i + 3] - (int64_t)l->v[i + 2] == s2)
            r.count = 1;
        }
      if (r.count == 1)
        r.stride = 0;
      runs[n_runs++] = r;
      i += r.count;
    }
  /* count blocks first */
  uint32_t n_blocks = 0;
  for (uint32_t i = 0; i < n_runs;)
    {
      uint32_t j = i + 1;
      if (runs[i].count > 1 && i + 1 < n_runs)
        {
          int64_t outer = (int64_t)runs[i + 1].start - (int64_t)runs[i].start;
          while (j < n_runs && runs[j].count == runs[i].count && runs[j].stride == runs[i].stride
                 && (int64_t)runs[j].start - (int64_t)runs[j - 1].start == outer)
            j++;
        }
      n_blocks++;
      i = j;
    }
  out_uv (o, n_blocks);
  for (uint32_t i = 0; i < n_runs;)
    {
      uint32_t j = i + 1;
      int64_t  outer = 0;
      if (runs[i].count > 1 && i + 1 < n_runs)
        {
          outer = (int64_t)runs[i + 1].start - (int64_t)runs[i].start;
          while (j < n_runs && runs[j].count == runs[i].count && runs[j].stride == runs[i].stride
                 && (int64_t)runs[j].start - (int64_t)runs[j - 1].start == outer)
            j++;
        }
      out_uv (o, runs[i].start);
      if (runs[i].count == 1)
        out_uv (o, 0);
      else if (j == i + 1)
        {
          out_uv (o, 1);
          out_sv (o, runs[i].stride);
          out_uv (o, runs[i].count);
        }
      else
        {
          out_uv (o, 2);
          out_sv (o, runs[i].stride);
          out_uv (o, runs[i].count);
          out_sv (o, outer);
          out_uv (o, j - i);
        }
      i = j;
    }
  free (runs);
}

static void
out_raw (Out *o, const KctRaw *r)
{
  out_uv (o, r->type);
  out_uv (o, r->at);
  switch (r->type)
    {
    case KCT_RAW_ENTER:
      out_uv (o, r->a);
      out_uv (o, r->tag);
      break;
    case KCT_RAW_LEAVE:
      out_uv (o, r->a);
      break;
    case KCT_RAW_SEND:
    case KCT_RAW_RECV:
      out_uv (o, r->a);
      out_sv (o, r->peer);
      out_uv (o, r->tag);
      out_uv (o, r->bytes);
      break;
    case KCT_RAW_ISEND:
    case KCT_RAW_IRECV:
      out_uv (o, r->a);
      out_sv (o, r->peer);
      out_uv (o, r->tag);
      out_uv (o, r->bytes);
      out_uv (o, r->x);
      break;
    case KCT_RAW_ISEND_COMPLETE:
    case KCT_RAW_IRECV_REQUEST:
    case KCT_RAW_REQUEST_CANCELLED:
      out_uv (o, r->x);
      break;
    case KCT_RAW_COLL_END:
      out_uv (o, r->op);
      out_uv (o, r->a);
      out_sv (o, r->peer);
      out_uv (o, r->bytes);
      out_uv (o, r->x);
      break;
    case KCT_RAW_PROGRAM_END:
      out_sv (o, (int64_t)r->bytes);
      break;
    case KCT_RAW_NBC_REQUEST:
      out_uv (o, r->x);
      break;
    case KCT_RAW_NBC_COMPLETE:
      out_uv (o, r->op);
      out_uv (o, r->a);
      out_sv (o, r->peer);
      out_uv (o, r->bytes);
      out_uv (o, r->y);
      out_uv (o, r->x);
      break;
    default: /* COLL_BEGIN, PROGRAM_BEGIN: no fields */
      break;
    }
}

static void
section (Out *file, const char tag[4], Out *payload)
{
  if (payload->failed)
    file->failed = 1;
  out_bytes (file, tag, 4);
  out_le (file, payload->n, 8);
  out_le (file, kct_crc32 (payload->b, payload->n), 4);
  out_bytes (file, payload->b, payload->n);
  free (payload->b);
  memset (payload, 0, sizeof *payload);
}

int
kct_encode (const KctTrace *t, uint8_t **out, size_t *len)
{
  return kct_encode_version (t, KCT_VERSION, out, len);
}

int
kct_encode_version (const KctTrace *t, uint32_t version, uint8_t **out, size_t *len)
{
  Out f = { 0 }, p = { 0 };
  if (version < KCT_VERSION_MIN || version > KCT_VERSION)
    return -1;
  out_bytes (&f, KCT_MAGIC, 8);
  out_le (&f, version, 4);
  out_le (&f, 0, 4);

  out_uv (&p, t->h.n_ranks);
  out_uv (&p, t->h.flags);
  out_uv (&p, t->h.timer_resolution);
  out_uv (&p, t->h.global_start);
  out_uv (&p, t->h.length);
  out_uv (&p, t->h.realtime_start);
  out_uv (&p, t->h.otf2_bytes);
  out_str (&p, t->h.program);
  out_str (&p, t->h.creator);
  out_uv (&p, t->h.time_abs);
  out_uv (&p, t->h.time_bits);
  out_uv (&p, t->h.timelines);
  section (&f, "HEAD", &p);

  out_uv (&p, t->n_regions);
  for (uint32_t i = 0; i < t->n_regions; i++)
    {
      const KctRegion *r = &t->regions[i];
      out_str (&p, r->name);
      out_str (&p, r->canonical);
      out_str (&p, r->file);
      out_str (&p, r->descr);
      out_uv (&p, r->role);
      out_uv (&p, r->paradigm);
      out_uv (&p, r->flags);
    }
  section (&f, "REGN", &p);

  out_uv (&p, t->n_comms);
  for (uint32_t i = 0; i < t->n_comms; i++)
    {
      const KctComm *c = &t->comms[i];
      out_uv (&p, c->local_id);
      out_uv (&p, c->flags);
      out_uv (&p, c->parent == KCT_NONE ? 0 : (uint64_t)c->parent + 1);
      out_uv (&p, c->repeat);
      out_sv (&p, c->shift);
      out_uv (&p, c->key);
      out_uv (&p, c->parent_key);
      out_list (&p, &c->members);
      out_list (&p, &c->members_b);
      out_list (&p, &c->users);
    }
  section (&f, "COMM", &p);

  out_uv (&p, t->n_topos);
  for (uint32_t i = 0; i < t->n_topos; i++)
    {
      const KctTopo *tp = &t->topos[i];
      out_uv (&p, tp->comm == KCT_NONE ? 0 : (uint64_t)tp->comm + 1);
      out_uv (&p, tp->comm_key);
      out_str (&p, tp->name);
      out_uv (&p, tp->ndims);
      for (uint32_t k = 0; k < tp->ndims && k < 16; k++)
        {
          out_uv (&p, tp->dims[k]);
          out_uv (&p, tp->periods[k]);
        }
      out_uv (&p, tp->row_major ? 1 : 0);
      out_list (&p, &tp->coord_rank);
      out_list (&p, &tp->coords);
    }
  section (&f, "TOPO", &p);

  out_uv (&p, t->n_hosts);
  for (uint32_t i = 0; i < t->n_hosts; i++)
    {
      const KctHost *h = &t->hosts[i];
      out_str (&p, h->name);
      out_list (&p, &h->ranks);
      if (version < 4)
        continue;
      out_uv (&p, h->cpus);
      out_uv (&p, h->other_known ? h->other_cpu_ns + 1 : 0);
      out_uv (&p, h->other_known ? h->other_wall_ns : 0);
    }
  section (&f, "HOST", &p);

  out_uv (&p, t->n_leaves);
  for (uint32_t i = 0; i < t->n_leaves; i++)
    {
      uint32_t      n;
      const KctRaw *r = kct_leaf (t, i, &n);
      out_uv (&p, n);
      for (uint32_t k = 0; k < n; k++)
        out_raw (&p, &r[k]);
    }
  section (&f, "LEAF", &p);

  out_uv (&p, t->n_bodies);
  for (uint32_t i = 0; i < t->n_bodies; i++)
    {
      uint32_t       n;
      const KctElem *e = kct_body (t, i, &n);
      out_uv (&p, n);
      for (uint32_t k = 0; k < n; k++)
        {
          uint32_t kind = (e[k].ref & KCT_REF_BODY) ? 1 : (e[k].ref & KCT_REF_POLL) ? 2 : 0;
          out_uv (&p, ((uint64_t)KCT_REF_ID (e[k].ref) << 2) | kind);
          if (kind != 2)
            out_uv (&p, e[k].count);
        }
    }
  section (&f, "BODY", &p);

  out_uv (&p, t->n_groups);
  for (uint32_t i = 0; i < t->n_groups; i++)
    {
      const KctGroup *g = &t->groups[i];
      out_list (&p, &g->ranks);
      out_uv (&p, g->seq);
      out_uv (&p, g->n_polls);
      for (uint32_t k = 0; k < g->n_polls; k++)
        {
          out_uv (&p, g->polls[k].leaf);
          out_uv (&p, g->polls[k].calls);
        }
      out_uv (&p, g->n_tl);
      for (uint32_t k = 0; k < g->n_tl; k++)
        {
          const KctTimeline *tl = &g->tl[k];
          out_uv (&p, tl->rank == KCT_NONE ? 0 : (uint64_t)tl->rank + 1);
          out_uv (&p, tl->start);
          out_uv (&p, tl->n_bytes);
          out_bytes (&p, tl->bytes, tl->n_bytes);
        }
      if (t->h.flags & KCT_FILE_PARTIAL)
        {
          /* a message of the collector's merge: the times folded into the mean so far */
          out_uv (&p, g->n_folded);
          if (g->n_folded > 0)
            {
              out_uv (&p, g->fold_start);
              out_uv (&p, g->n_fold);
              for (uint64_t k = 0; k < g->n_fold; k++)
                out_uv (&p, g->fold[k]);
            }
        }
    }
  section (&f, "GRUP", &p);
  if (version < 4)
    goto end;

  /* version 5: the CPU ids, where the metric has them; every stream as the flags say */
  uint32_t flags = version < 5 ? t->cpu_flags & ~KCT_CPU_WHERE : t->cpu_flags;
  if (!(flags & KCT_CPU_WAIT))
    flags &= ~KCT_CPU_WHERE;
  out_uv (&p, flags);
  out_uv (&p, t->n_cpu);
  for (uint32_t i = 0; i < t->n_cpu; i++)
    {
      const KctCpuStream *s = &t->cpu[i];
      KctCpuStream        re = { 0 };
      int                 where = (flags & KCT_CPU_WHERE) != 0;
      if (s->where != where)
        {
          uint8_t *b = malloc (s->n_bytes ? s->n_bytes : 1);
          if (b == NULL)
            {
              p.failed = 1;
              break;
            }
          memcpy (b, s->bytes, s->n_bytes);
          re = *s;
          re.bytes = b;
          re.cap = s->n_bytes;
          if (kct_cpu_recode (&re, where) != 0)
            {
              kct_cpu_clear (&re);
              p.failed = 1;
              break;
            }
          s = &re;
        }
      out_uv (&p, s->rank);
      out_uv (&p, s->n);
      out_uv (&p, s->n_bytes);
      out_bytes (&p, s->bytes, s->n_bytes);
      if (s == &re)
        kct_cpu_clear (&re);
    }
  section (&f, "CPUS", &p);
  if (version >= 5 && t->n_props > 0)
    {
      /* optional: the archive's properties */
      out_uv (&p, t->n_props);
      for (uint32_t i = 0; i < t->n_props; i++)
        {
          out_str (&p, t->prop_names[i]);
          out_str (&p, t->prop_values[i]);
        }
      section (&f, "PROP", &p);
    }
end:
  section (&f, "END ", &p);

  if (f.failed)
    {
      free (f.b);
      return -1;
    }
  *out = f.b;
  *len = f.n;
  return 0;
}

/* ---- reader -------------------------------------------------------------------- */

/* Limits that keep a corrupt file from asking for absurd amounts of memory. */
#define MAX_RANKS (1u << 24)
#define MAX_LIST (1u << 26) /* all rank lists of a file together, expanded */
#define MAX_DIMS 16u

typedef struct
{
  const uint8_t *p;
  size_t         n, pos;
  int            bad;
  const char    *section;
  char          *err;
  size_t         errlen;
  uint64_t      *listed; /* list entries expanded so far (all sections) */
  uint32_t       version; /* the file's format version */
} In;

static void
fail (In *in, const char *fmt, ...)
{
  if (in->bad)
    return;
  in->bad = 1;
  if (in->err == NULL || in->errlen == 0)
    return;
  int     k = snprintf (in->err, in->errlen, _ ("section %s: "), in->section ? in->section : "?");
  va_list ap;
  va_start (ap, fmt);
  if (k >= 0 && (size_t)k < in->errlen)
    vsnprintf (in->err + k, in->errlen - (size_t)k, fmt, ap);
  va_end (ap);
}

static uint64_t
in_uv (In *in)
{
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7)
    {
      if (in->pos >= in->n)
        {
          fail (in, _ ("ends in the middle of a number"));
          return 0;
        }
      uint8_t b = in->p[in->pos++];
      if (shift == 63 && (b & 0x7E))
        {
          fail (in, _ ("number too large"));
          return 0;
        }
      v |= (uint64_t)(b & 0x7F) << shift;
      if (!(b & 0x80))
        return v;
    }
  fail (in, _ ("number too long"));
  return 0;
}

static int64_t
in_sv (In *in)
{
  uint64_t u = in_uv (in);
  return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* a count of things that take at least @min_bytes each */
static uint32_t
in_count (In *in, uint64_t limit, size_t min_bytes, const char *what)
{
  uint64_t v = in_uv (in);
  if (in->bad)
    return 0;
  if (v > limit || v > (in->n - in->pos) / (min_bytes ? min_bytes : 1))
    {
      fail (in, _ ("%s: count %llu is more than the file can hold"), what, (unsigned long long)v);
      return 0;
    }
  return (uint32_t)v;
}

static uint32_t
in_u32 (In *in, const char *what)
{
  uint64_t v = in_uv (in);
  if (v > UINT32_MAX)
    fail (in, _ ("%s: %llu out of range"), what, (unsigned long long)v);
  return (uint32_t)v;
}

static char *
in_str (In *in)
{
  uint64_t len = in_uv (in);
  if (in->bad)
    return NULL;
  if (len > in->n - in->pos || len > (1u << 20))
    {
      fail (in, _ ("string length %llu is more than the file holds"), (unsigned long long)len);
      return NULL;
    }
  if (memchr (in->p + in->pos, 0, (size_t)len) != NULL)
    {
      fail (in, _ ("string holds a NUL byte"));
      return NULL;
    }
  char *s = malloc ((size_t)len + 1);
  if (s == NULL)
    {
      fail (in, _ ("out of memory"));
      return NULL;
    }
  memcpy (s, in->p + in->pos, (size_t)len);
  s[len] = '\0';
  in->pos += (size_t)len;
  return s;
}

static void
in_list (In *in, KctList *l, uint64_t max_value, const char *what)
{
  uint32_t n_blocks = in_count (in, MAX_LIST, 2, what);
  uint64_t total = 0;
  for (uint32_t b = 0; b < n_blocks && !in->bad; b++)
    {
      uint64_t start = in_uv (in);
      uint64_t nd = in_uv (in);
      int64_t  stride[2] = { 0, 0 };
      uint64_t count[2] = { 1, 1 };
      if (nd > 2)
        {
          fail (in, _ ("%s: a block with %llu dimensions"), what, (unsigned long long)nd);
          return;
        }
      for (uint64_t d = 0; d < nd; d++)
        {
          stride[d] = in_sv (in);
          count[d] = in_uv (in);
          if (count[d] == 0 || count[d] > MAX_LIST)
            {
              fail (in, _ ("%s: a block of %llu"), what, (unsigned long long)count[d]);
              return;
            }
        }
      if (in->bad)
        return;
      uint64_t size = count[0] * count[1];
      if (size > MAX_LIST || total + size > MAX_LIST || *in->listed + size > MAX_LIST)
        {
          fail (in, _ ("%s: more than %u entries"), what, MAX_LIST);
          return;
        }
      total += size;
      *in->listed += size;
      /* the extremes of the block must lie in [0, max_value] (max_value < 2^32; a start beyond
       * it is refused before the arithmetic below could overflow) */
      if (start > max_value)
        {
          fail (in, _ ("%s: value out of range (at most %llu)"), what, (unsigned long long)max_value);
          return;
        }
      int64_t lo = (int64_t)start, hi = (int64_t)start;
      for (int d = 0; d < 2; d++)
        {
          int64_t span = stride[d] * (int64_t)(count[d] - 1);
          if (stride[d] > (int64_t)MAX_LIST * 64 || stride[d] < -(int64_t)MAX_LIST * 64)
            {
              fail (in, _ ("%s: stride out of range"), what);
              return;
            }
          if (span < 0)
            lo += span;
          else
            hi += span;
        }
      if (start > max_value || lo < 0 || (uint64_t)hi > max_value)
        {
          fail (in, _ ("%s: value out of range (at most %llu)"), what, (unsigned long long)max_value);
          return;
        }
      for (uint64_t i1 = 0; i1 < count[1]; i1++)
        for (uint64_t i0 = 0; i0 < count[0]; i0++)
          {
            int64_t v = (int64_t)start + (int64_t)i0 * stride[0] + (int64_t)i1 * stride[1];
            if (kct_list_add (l, (uint32_t)v) != 0)
              {
                fail (in, _ ("out of memory"));
                return;
              }
          }
    }
}

static int
sorted_strictly (const KctList *l)
{
  for (uint32_t i = 1; i < l->n; i++)
    if (l->v[i] <= l->v[i - 1])
      return 0;
  return 1;
}

static void
read_head (In *in, KctTrace *t)
{
  uint64_t n = in_uv (in);
  if (!in->bad && (n == 0 || n > MAX_RANKS))
    {
      fail (in, _ ("%llu ranks (1 to %u supported)"), (unsigned long long)n, MAX_RANKS);
      return;
    }
  t->h.n_ranks = (uint32_t)n;
  t->h.flags = in_u32 (in, _ ("flags"));
  t->h.timer_resolution = in_uv (in);
  t->h.global_start = in_uv (in);
  t->h.length = in_uv (in);
  t->h.realtime_start = in_uv (in);
  t->h.otf2_bytes = in_uv (in);
  t->h.program = in_str (in);
  t->h.creator = in_str (in);
  t->h.time_abs = in_uv (in);
  uint64_t rel = in_uv (in), tl = in_uv (in);
  if (!in->bad && t->h.timer_resolution == 0)
    fail (in, _ ("timer resolution 0"));
  if (!in->bad && (t->h.time_abs == 0 || t->h.time_abs > (1ull << 40) || rel < KCT_TIME_BITS_MIN
                   || rel > KCT_TIME_BITS_MAX))
    fail (in, _ ("timing error bound out of range"));
  if (!in->bad && (tl == 0 || tl > KCT_TIMELINES_MAX))
    fail (in, _ ("%llu ranks with times of their own (1 to %u supported)"), (unsigned long long)tl,
          KCT_TIMELINES_MAX);
  t->h.time_bits = (uint32_t)rel;
  t->h.timelines = (uint32_t)tl;
}

static void
read_regions (In *in, KctTrace *t)
{
  uint32_t n = in_count (in, KCT_ID_MAX, 7, _ ("regions"));
  for (uint32_t i = 0; i < n && !in->bad; i++)
    {
      KctRegion r = { 0 };
      r.name = in_str (in);
      r.canonical = in_str (in);
      r.file = in_str (in);
      r.descr = in_str (in);
      uint64_t role = in_uv (in), paradigm = in_uv (in), flags = in_uv (in);
      if (!in->bad && (role > 255 || paradigm > 255 || flags > 255))
        fail (in, _ ("region %u: role, paradigm or flags out of range"), i);
      r.role = (uint8_t)role;
      r.paradigm = (uint8_t)paradigm;
      r.flags = (uint8_t)flags;
      if (!in->bad && kct_region_add (t, &r) == KCT_NONE)
        fail (in, _ ("out of memory"));
      free (r.name);
      free (r.canonical);
      free (r.file);
      free (r.descr);
    }
}

static void
read_comms (In *in, KctTrace *t)
{
  uint32_t n = in_count (in, KCT_ID_MAX, 10, _ ("communicators"));
  uint32_t max = t->h.n_ranks - 1;
  for (uint32_t i = 0; i < n && !in->bad; i++)
    {
      KctComm *c = kct_comm_add (t);
      if (c == NULL)
        {
          fail (in, _ ("out of memory"));
          return;
        }
      c->local_id = in_u32 (in, _ ("local id"));
      c->flags = in_u32 (in, _ ("flags"));
      uint64_t parent = in_uv (in);
      uint64_t repeat = in_uv (in);
      c->shift = in_sv (in);
      c->key = in_uv (in);
      c->parent_key = in_uv (in);
      if (in->bad)
        return;
      if (parent > n || repeat == 0 || repeat > MAX_RANKS || c->shift > (int64_t)MAX_RANKS
          || c->shift < -(int64_t)MAX_RANKS)
        {
          fail (in, _ ("communicator %u: parent, repeat or shift out of range"), i);
          return;
        }
      c->parent = parent == 0 ? KCT_NONE : (uint32_t)(parent - 1);
      c->repeat = (uint32_t)repeat;
      in_list (in, &c->members, max, _ ("communicator members"));
      in_list (in, &c->members_b, max, _ ("communicator members"));
      in_list (in, &c->users, max, _ ("communicator users"));
      if (in->bad)
        return;
      if (c->members.n == 0)
        {
          fail (in, _ ("communicator %u has no members"), i);
          return;
        }
      if (!sorted_strictly (&c->users))
        {
          fail (in, _ ("communicator %u: users not sorted"), i);
          return;
        }
      /* every instance's members stay within the ranks */
      int64_t span = c->shift * (int64_t)(c->repeat - 1);
      for (int which = 0; which < 3; which++)
        {
          const KctList *l = which == 0 ? &c->members : which == 1 ? &c->members_b : &c->users;
          for (uint32_t k = 0; k < l->n; k++)
            {
              int64_t v = (int64_t)l->v[k] + span;
              if (v < 0 || v > (int64_t)max)
                {
                  fail (in, _ ("communicator %u: a repeated instance leaves the ranks"), i);
                  return;
                }
            }
        }
    }
}

/* The entries that are no alias, by key (a partial trace: see check_aliases) */
typedef struct
{
  uint64_t key;
  uint32_t index;
} KeyIndex;

static int
by_key (const void *a, const void *b)
{
  const KeyIndex *x = a, *y = b;
  return x->key < y->key ? -1 : x->key > y->key;
}

/* Every alias must name an entry that is no alias, not repeated, and it must have users.  In a
 * finished trace that entry is its parent; in a partial one (the collector's merge sends them
 * from rank to rank before the communicators are compacted) it is the entry that is no alias
 * with the same key, as kct_merge finds it. */
static void
check_aliases (In *in, KctTrace *t)
{
  int       partial = (t->h.flags & KCT_FILE_PARTIAL) != 0;
  KeyIndex *keys = NULL;
  uint32_t  n_keys = 0;
  if (partial)
    {
      keys = malloc (sizeof *keys * ((size_t)t->n_comms + 1));
      if (keys == NULL)
        {
          fail (in, _ ("out of memory"));
          return;
        }
      for (uint32_t j = 0; j < t->n_comms; j++)
        if (!(t->comms[j].flags & KCT_COMM_ALIAS))
          keys[n_keys++] = (KeyIndex){ t->comms[j].key, j };
      qsort (keys, n_keys, sizeof *keys, by_key);
    }
  for (uint32_t i = 0; i < t->n_comms && !in->bad; i++)
    {
      const KctComm *c = &t->comms[i];
      if (!(c->flags & KCT_COMM_ALIAS))
        continue;
      const KctComm *p = NULL;
      if (!partial)
        p = c->parent < t->n_comms ? &t->comms[c->parent] : NULL;
      else if (c->key != 0)
        {
          KeyIndex        want = { c->key, 0 };
          const KeyIndex *k = bsearch (&want, keys, n_keys, sizeof *keys, by_key);
          p = k != NULL ? &t->comms[k->index] : NULL;
        }
      if (p == NULL || (p->flags & KCT_COMM_ALIAS) || p->repeat != 1 || c->repeat != 1
          || c->users.n == 0)
        fail (in, _ ("communicator %u: an alias of nothing it may name"), i);
    }
  free (keys);
}

static void
read_topos (In *in, KctTrace *t)
{
  uint32_t n = in_count (in, KCT_ID_MAX, 6, _ ("topologies"));
  for (uint32_t i = 0; i < n && !in->bad; i++)
    {
      KctTopo *tp = kct_topo_add (t);
      if (tp == NULL)
        {
          fail (in, _ ("out of memory"));
          return;
        }
      uint64_t comm = in_uv (in);
      tp->comm_key = in_uv (in);
      tp->name = in_str (in);
      uint64_t nd = in_uv (in);
      if (in->bad)
        return;
      if (comm > t->n_comms || nd == 0 || nd > MAX_DIMS)
        {
          fail (in, _ ("topology %u: communicator or dimensions out of range"), i);
          return;
        }
      tp->comm = comm == 0 ? KCT_NONE : (uint32_t)(comm - 1);
      tp->ndims = (uint32_t)nd;
      uint64_t cells = 1;
      for (uint32_t k = 0; k < tp->ndims; k++)
        {
          uint64_t d = in_uv (in), per = in_uv (in);
          if (in->bad)
            return;
          if (d == 0 || d > MAX_RANKS || per > 1)
            {
              fail (in, _ ("topology %u: dimension %u out of range"), i, k);
              return;
            }
          cells *= d;
          if (cells > MAX_RANKS)
            {
              fail (in, _ ("topology %u: more than %u cells"), i, MAX_RANKS);
              return;
            }
          tp->dims[k] = (uint32_t)d;
          tp->periods[k] = (uint8_t)per;
        }
      uint64_t rm = in_uv (in);
      if (rm > 1)
        fail (in, _ ("topology %u: bad row-major flag"), i);
      tp->row_major = (int)rm;
      in_list (in, &tp->coord_rank, t->h.n_ranks - 1, _ ("topology ranks"));
      in_list (in, &tp->coords, MAX_RANKS, _ ("topology coordinates"));
      if (in->bad)
        return;
      if ((uint64_t)tp->coord_rank.n * tp->ndims != tp->coords.n)
        {
          fail (in, _ ("topology %u: %u coordinates for %u ranks"), i, tp->coords.n, tp->coord_rank.n);
          return;
        }
      for (uint32_t k = 0; k < tp->coords.n; k++)
        if (tp->coords.v[k] >= tp->dims[k % tp->ndims])
          {
            fail (in, _ ("topology %u: a coordinate outside its dimension"), i);
            return;
          }
    }
}

static void
read_hosts (In *in, KctTrace *t)
{
  uint32_t n = in_count (in, MAX_RANKS, 2, _ ("hosts"));
  for (uint32_t i = 0; i < n && !in->bad; i++)
    {
      char *name = in_str (in);
      if (in->bad)
        return;
      KctHost *h = kct_host_add (t, name);
      free (name);
      if (h == NULL)
        {
          fail (in, _ ("out of memory"));
          return;
        }
      in_list (in, &h->ranks, t->h.n_ranks - 1, _ ("host ranks"));
      if (in->version >= 4 && !in->bad)
        {
          h->cpus = in_u32 (in, _ ("host CPUs"));
          uint64_t other = in_uv (in);
          uint64_t wall = in_uv (in);
          h->other_known = other > 0;
          h->other_cpu_ns = other > 0 ? other - 1 : 0;
          h->other_wall_ns = other > 0 ? wall : 0;
          if (!in->bad && other == 0 && wall != 0)
            fail (in, _ ("host %u: a time without the CPU time of other programs"), i);
        }
    }
}

/* a section's payload read: 1 where it is bad (or has bytes left over) */
static int
section_end (In *sub)
{
  if (!sub->bad && sub->pos != sub->n)
    fail (sub, _ ("%llu bytes left over"), (unsigned long long)(sub->n - sub->pos));
  return sub->bad;
}

/* the optional section PROP (version 5): the archive's properties, names unique and not empty */
static void
read_props (In *in, KctTrace *t)
{
  uint32_t n = in_count (in, 1u << 16, 2, _ ("properties"));
  for (uint32_t i = 0; i < n && !in->bad; i++)
    {
      char *name = in_str (in);
      char *value = in->bad ? NULL : in_str (in);
      if (!in->bad && name[0] == '\0')
        fail (in, _ ("property %u has no name"), i);
      else if (!in->bad && kct_prop_get (t, name) != NULL)
        fail (in, _ ("property %s given twice"), name);
      else if (!in->bad && kct_prop_set (t, name, value) != 0)
        fail (in, _ ("out of memory"));
      free (name);
      free (value);
    }
}

/* version 4: the CPU samples of the ranks with times of their own */
static void
read_cpus (In *in, KctTrace *t)
{
  uint64_t flags = in_uv (in);
  if (!in->bad
      && flags > (KCT_CPU_SAMPLED | KCT_CPU_WAIT | (in->version >= 5 ? KCT_CPU_WHERE : 0)))
    {
      fail (in, _ ("unknown flags %llu"), (unsigned long long)flags);
      return;
    }
  if (!in->bad && (flags & KCT_CPU_WHERE) && !(flags & KCT_CPU_WAIT))
    {
      fail (in, _ ("CPU ids without the waits for a CPU"));
      return;
    }
  unsigned per = (flags & KCT_CPU_WHERE) ? 4 : 3; /* bytes a sample takes at least */
  t->cpu_flags = (uint32_t)flags;
  uint32_t n = in_count (in, t->h.n_ranks, 3, _ ("sampled ranks"));
  for (uint32_t i = 0; i < n && !in->bad; i++)
    {
      uint32_t rank = in_u32 (in, _ ("sampled rank"));
      uint64_t samples = in_uv (in);
      uint64_t bytes = in_uv (in);
      if (in->bad)
        return;
      if (!(flags & KCT_CPU_SAMPLED))
        {
          fail (in, _ ("samples of a run that did not sample"));
          return;
        }
      if (rank >= t->h.n_ranks || (i > 0 && rank <= t->cpu[t->n_cpu - 1].rank))
        {
          fail (in, _ ("sampled rank %u out of range or order"), rank);
          return;
        }
      if (bytes > in->n - in->pos || samples == 0 || samples > bytes / per)
        {
          fail (in, _ ("rank %u: %llu samples in %llu bytes"), rank, (unsigned long long)samples,
                (unsigned long long)bytes);
          return;
        }
      KctCpuStream *s = kct_cpu_stream (t, rank, 1);
      if (s == NULL || (s->bytes = malloc (bytes ? (size_t)bytes : 1)) == NULL)
        {
          fail (in, _ ("out of memory"));
          return;
        }
      memcpy (s->bytes, in->p + in->pos, (size_t)bytes);
      s->n_bytes = s->cap = (size_t)bytes;
      s->n = samples;
      s->where = (flags & KCT_CPU_WHERE) != 0;
      in->pos += (size_t)bytes;
      /* every sample readable, the stream read exactly */
      KctCpuReader rd;
      uint64_t     pos, cpu, wait;
      int          r;
      kct_cpu_reader (&rd, s);
      while ((r = kct_cpu_read (&rd, &pos, &cpu, &wait, NULL)) == 1)
        ;
      if (r < 0)
        {
          fail (in, _ ("rank %u: the samples cannot be read"), rank);
          return;
        }
    }
  /* only ranks with times of their own */
  for (uint32_t i = 0; i < t->n_cpu && !in->bad; i++)
    {
      int own = 0;
      for (uint32_t g = 0; g < t->n_groups && !own; g++)
        if (kct_list_contains_sorted (&t->groups[g].ranks, t->cpu[i].rank))
          for (uint32_t j = 0; j < t->groups[g].n_tl && !own; j++)
            own = t->groups[g].tl[j].rank == t->cpu[i].rank;
      if (!own)
        fail (in, _ ("samples of rank %u, which has no times of its own"), t->cpu[i].rank);
    }
}

static void
read_leaves (In *in, KctTrace *t)
{
  uint32_t n = in_count (in, KCT_ID_MAX, 3, _ ("leaves"));
  KctRaw  *buf = NULL;
  uint32_t cap = 0;
  for (uint32_t i = 0; i < n && !in->bad; i++)
    {
      uint32_t m = in_count (in, UINT32_MAX, 2, _ ("events of a leaf"));
      if (in->bad)
        break;
      if (m == 0)
        {
          fail (in, _ ("leaf %u has no events"), i);
          break;
        }
      if (m > cap)
        {
          KctRaw *nb = realloc (buf, sizeof *nb * m);
          if (nb == NULL)
            {
              fail (in, _ ("out of memory"));
              break;
            }
          buf = nb;
          cap = m;
        }
      for (uint32_t k = 0; k < m && !in->bad; k++)
        {
          KctRaw *r = &buf[k];
          memset (r, 0, sizeof *r);
          uint64_t type = in_uv (in), at = in_uv (in);
          if (in->bad)
            break;
          /* version 2 knew no non-blocking collectives */
          if (type == 0 || type >= KCT_RAW_N || at > KCT_AT_MID
              || (in->version < 3 && type > KCT_RAW_PROGRAM_END))
            {
              fail (in, _ ("leaf %u: unknown event type %llu"), i, (unsigned long long)type);
              break;
            }
          r->type = (uint8_t)type;
          r->at = (uint8_t)at;
          switch (r->type)
            {
            case KCT_RAW_ENTER:
              r->a = in_u32 (in, _ ("region"));
              r->tag = in_u32 (in, _ ("call site"));
              break;
            case KCT_RAW_LEAVE:
              r->a = in_u32 (in, _ ("region"));
              break;
            case KCT_RAW_SEND:
            case KCT_RAW_RECV:
            case KCT_RAW_ISEND:
            case KCT_RAW_IRECV:
              {
                r->a = in_u32 (in, _ ("communicator"));
                int64_t peer = in_sv (in);
                if (peer > (int64_t)MAX_RANKS || peer < -(int64_t)MAX_RANKS)
                  fail (in, _ ("leaf %u: peer out of range"), i);
                r->peer = (int32_t)peer;
                r->tag = in_u32 (in, _ ("tag"));
                r->bytes = in_uv (in);
                if (r->type == KCT_RAW_ISEND || r->type == KCT_RAW_IRECV)
                  r->x = in_u32 (in, _ ("request"));
                break;
              }
            case KCT_RAW_ISEND_COMPLETE:
            case KCT_RAW_IRECV_REQUEST:
            case KCT_RAW_REQUEST_CANCELLED:
              r->x = in_u32 (in, _ ("request"));
              break;
            case KCT_RAW_NBC_REQUEST:
              r->x = in_u32 (in, _ ("request"));
              break;
            case KCT_RAW_COLL_END:
            case KCT_RAW_NBC_COMPLETE:
              {
                uint64_t op = in_uv (in);
                if (op > 255)
                  fail (in, _ ("leaf %u: collective operation out of range"), i);
                r->op = (uint8_t)op;
                r->a = in_u32 (in, _ ("communicator"));
                int64_t root = in_sv (in);
                if (root > (int64_t)MAX_RANKS || root < -1)
                  fail (in, _ ("leaf %u: root out of range"), i);
                r->peer = (int32_t)root;
                r->bytes = in_uv (in);
                if (r->type == KCT_RAW_COLL_END)
                  r->x = in_uv (in);
                else
                  {
                    r->y = in_uv (in);
                    r->x = in_u32 (in, _ ("request"));
                  }
                break;
              }
            case KCT_RAW_PROGRAM_END:
              r->bytes = (uint64_t)in_sv (in);
              break;
            default:
              break;
            }
          if (!in->bad && (r->type == KCT_RAW_ENTER || r->type == KCT_RAW_LEAVE)
              && r->a >= t->n_regions)
            fail (in, _ ("leaf %u: region %u does not exist"), i, r->a);
        }
      if (in->bad)
        break;
      /* the writer interns leaves: a repeated one is corruption */
      uint32_t id = kct_leaf_intern (t, buf, m);
      if (id == KCT_NONE)
        fail (in, _ ("out of memory"));
      else if (id != i)
        fail (in, _ ("leaf %u repeats leaf %u"), i, id);
    }
  free (buf);
}

static void
read_bodies (In *in, KctTrace *t)
{
  uint32_t n = in_count (in, KCT_ID_MAX, 1, _ ("bodies"));
  KctElem *buf = NULL;
  uint32_t cap = 0;
  for (uint32_t i = 0; i < n && !in->bad; i++)
    {
      uint32_t m = in_count (in, UINT32_MAX, 1, _ ("elements of a body"));
      if (in->bad)
        break;
      if (m > cap)
        {
          KctElem *nb = realloc (buf, sizeof *nb * m);
          if (nb == NULL)
            {
              fail (in, _ ("out of memory"));
              break;
            }
          buf = nb;
          cap = m;
        }
      for (uint32_t k = 0; k < m && !in->bad; k++)
        {
          uint64_t v = in_uv (in);
          uint64_t kind = v & 3, id = v >> 2;
          uint64_t count = kind == 2 ? 0 : in_uv (in);
          if (in->bad)
            break;
          if (kind == 3 || (kind == 1 && id >= i) || (kind != 1 && id >= t->n_leaves)
              || (kind != 2 && (count == 0 || count > UINT32_MAX)))
            {
              fail (in, _ ("body %u: element %u refers to nothing it may refer to"), i, k);
              break;
            }
          buf[k].ref = (uint32_t)id | (kind == 1 ? KCT_REF_BODY : kind == 2 ? KCT_REF_POLL : 0);
          buf[k].count = (uint32_t)count;
        }
      if (in->bad)
        break;
      uint32_t id = kct_body_intern (t, buf, m);
      if (id == KCT_NONE)
        fail (in, _ ("out of memory"));
      else if (id != i)
        fail (in, _ ("body %u repeats body %u"), i, id);
    }
  free (buf);
}

static void
read_groups (In *in, KctTrace *t)
{
  uint32_t n = in_count (in, MAX_RANKS, 3, _ ("groups"));
  uint8_t *seen = calloc ((size_t)t->h.n_ranks, 1);
  uint64_t covered = 0;
  if (seen == NULL)
    {
      fail (in, _ ("out of memory"));
      return;
    }
  for (uint32_t i = 0; i < n && !in->bad; i++)
    {
      KctGroup *g = kct_group_add (t);
      if (g == NULL)
        {
          fail (in, _ ("out of memory"));
          break;
        }
      in_list (in, &g->ranks, t->h.n_ranks - 1, _ ("group ranks"));
      g->seq = in_u32 (in, _ ("sequence"));
      if (in->bad)
        break;
      if (g->ranks.n == 0 || !sorted_strictly (&g->ranks) || g->seq >= t->n_bodies)
        {
          fail (in, _ ("group %u: no ranks, unsorted ranks or no sequence"), i);
          break;
        }
      for (uint32_t k = 0; k < g->ranks.n; k++)
        {
          if (seen[g->ranks.v[k]])
            {
              fail (in, _ ("rank %u is in two groups"), g->ranks.v[k]);
              break;
            }
          seen[g->ranks.v[k]] = 1;
        }
      covered += g->ranks.n;
      uint32_t npoll = in_count (in, KCT_ID_MAX, 2, _ ("poll counts"));
      for (uint32_t k = 0; k < npoll && !in->bad; k++)
        {
          uint32_t leaf = in_u32 (in, _ ("leaf"));
          uint64_t calls = in_uv (in);
          if (!in->bad && (leaf >= t->n_leaves || kct_group_find_poll (g, leaf) != NULL))
            {
              fail (in, _ ("group %u: poll counts of no leaf or twice"), i);
              break;
            }
          KctPollCount *p = in->bad ? NULL : kct_group_poll (g, leaf);
          if (!in->bad && p == NULL)
            fail (in, _ ("out of memory"));
          if (p != NULL)
            p->calls = calls;
        }
      uint32_t ntl = in_count (in, (uint64_t)g->ranks.n + 1, 8, _ ("timelines"));
      int      mean = 0;
      for (uint32_t k = 0; k < ntl && !in->bad; k++)
        {
          uint64_t who = in_uv (in), start = in_uv (in);
          uint32_t len = in_count (in, UINT32_MAX, 1, _ ("timeline bytes"));
          if (in->bad)
            break;
          if (len < 5)
            {
              fail (in, _ ("group %u: a timeline of %u bytes"), i, len);
              break;
            }
          if (who == 0 ? mean++ > 0
                       : who > t->h.n_ranks || !kct_list_contains_sorted (&g->ranks, (uint32_t)(who - 1))
                             || seen[who - 1] == 2)
            {
              fail (in, _ ("group %u: a timeline of a rank outside it, or twice"), i);
              break;
            }
          if (who > 0)
            seen[who - 1] = 2;
          KctTimeline *tl = kct_group_timeline_add (g);
          if (tl == NULL || (tl->bytes = malloc (len)) == NULL)
            {
              fail (in, _ ("out of memory"));
              break;
            }
          tl->rank = who == 0 ? KCT_NONE : (uint32_t)(who - 1);
          tl->start = start;
          tl->n_bytes = len;
          memcpy (tl->bytes, in->p + in->pos, len);
          in->pos += len;
        }
      if (!in->bad && (t->h.flags & KCT_FILE_PARTIAL))
        {
          g->n_folded = in_u32 (in, _ ("ranks in the mean"));
          if (!in->bad && g->n_folded > 0)
            {
              g->fold_start = in_uv (in);
              uint32_t nf = in_count (in, UINT32_MAX, 1, _ ("mean values"));
              g->fold = malloc (sizeof *g->fold * (nf ? nf : 1));
              if (g->fold == NULL)
                fail (in, _ ("out of memory"));
              for (uint32_t k = 0; k < nf && !in->bad; k++)
                g->fold[k] = in_uv (in);
              g->n_fold = nf;
            }
        }
      else if (!in->bad && !mean && ntl < g->ranks.n)
        fail (in, _ ("group %u: ranks without times"), i);
    }
  if (!in->bad && covered != t->h.n_ranks && !(t->h.flags & KCT_FILE_PARTIAL))
    fail (in, _ ("the groups hold %llu of %u ranks"), (unsigned long long)covered, t->h.n_ranks);
  free (seen);
}

int
kct_decode (const uint8_t *buf, size_t len, KctTrace **out, char *err, size_t errlen)
{
  uint64_t listed = 0;
  In       in = { buf, len, 0, 0, "header", err, errlen, &listed, 0 };
  *out = NULL;
  if (err && errlen)
    err[0] = '\0';
  if (len < 16 || memcmp (buf, KCT_MAGIC, 8) != 0)
    {
      fail (&in, _ ("not a Kubus compressed trace (no KUBUSKCT at its start)"));
      return -1;
    }
  uint32_t version = (uint32_t)buf[8] | (uint32_t)buf[9] << 8 | (uint32_t)buf[10] << 16
                     | (uint32_t)buf[11] << 24;
  if (version > KCT_VERSION)
    {
      fail (&in, _ ("format version %u, newer than this Kubus reads (versions %u to %u): "
                    "read it with the Kubus that wrote it or a newer one"),
            version, KCT_VERSION_MIN, KCT_VERSION);
      return -1;
    }
  if (version < KCT_VERSION_MIN)
    {
      fail (&in, _ ("format version %u, older than this Kubus reads (versions %u to %u)"),
            version, KCT_VERSION_MIN, KCT_VERSION);
      return -1;
    }
  in.version = version;
  KctTrace *t = kct_trace_new ();
  if (t == NULL)
    {
      fail (&in, _ ("out of memory"));
      return -1;
    }
  static const char *order4[] = { "HEAD", "REGN", "COMM", "TOPO", "HOST", "LEAF", "BODY", "GRUP",
                                  "CPUS", "END " };
  static const char *order3[] = { "HEAD", "REGN", "COMM", "TOPO", "HOST", "LEAF", "BODY", "GRUP",
                                  "END " };
  /* version 4 added CPUS; before, a section of that name was a newer writer's, skipped */
  const char *const *order = version >= 4 ? order4 : order3;
  const size_t       n_order = version >= 4 ? 10 : 9;
  size_t next = 0; /* index into order of the next required section */
  size_t pos = 16;
  while (!in.bad)
    {
      if (len - pos < 16)
        {
          in.section = order[next < n_order ? next : n_order - 1];
          fail (&in, _ ("the file is truncated (section missing or cut short)"));
          break;
        }
      char tag[5];
      memcpy (tag, buf + pos, 4);
      tag[4] = '\0';
      uint64_t plen = 0;
      for (int i = 0; i < 8; i++)
        plen |= (uint64_t)buf[pos + 4 + i] << (8 * i);
      uint32_t crc = 0;
      for (int i = 0; i < 4; i++)
        crc |= (uint32_t)buf[pos + 12 + i] << (8 * i);
      pos += 16;
      in.section = NULL;
      for (size_t k = 0; k < n_order; k++)
        if (memcmp (tag, order[k], 4) == 0)
          in.section = order[k];
      if (plen > len - pos)
        {
          in.section = in.section ? in.section : "?";
          fail (&in, _ ("the file is truncated (%llu bytes announced, %llu left)"),
                (unsigned long long)plen, (unsigned long long)(len - pos));
          break;
        }
      if (kct_crc32 (buf + pos, (size_t)plen) != crc)
        {
          in.section = in.section ? in.section : "?";
          fail (&in, _ ("checksum mismatch: the file is corrupt"));
          break;
        }
      if (in.section == NULL && version >= 5 && memcmp (tag, "PROP", 4) == 0 && next == n_order - 1)
        {
          /* optional, after CPUS */
          In sub = { buf + pos, (size_t)plen, 0, 0, "PROP", err, errlen, &listed, version };
          if (t->n_props > 0)
            fail (&sub, _ ("given twice"));
          read_props (&sub, t);
          if (section_end (&sub))
            {
              in.bad = 1;
              break;
            }
          pos += (size_t)plen;
          continue;
        }
      if (in.section == NULL)
        {
          pos += (size_t)plen; /* a section a newer writer added: skipped */
          continue;
        }
      if (in.section != order[next])
        {
          fail (&in, _ ("out of order: expected section %s"), order[next]);
          break;
        }
      In sub = { buf + pos, (size_t)plen, 0, 0, in.section, err, errlen, &listed, version };
      switch (next)
        {
        case 0:
          read_head (&sub, t);
          break;
        case 1:
          read_regions (&sub, t);
          break;
        case 2:
          read_comms (&sub, t);
          check_aliases (&sub, t);
          break;
        case 3:
          read_topos (&sub, t);
          break;
        case 4:
          read_hosts (&sub, t);
          break;
        case 5:
          read_leaves (&sub, t);
          break;
        case 6:
          read_bodies (&sub, t);
          break;
        case 7:
          read_groups (&sub, t);
          break;
        case 8:
          if (n_order == 10)
            read_cpus (&sub, t);
          break;
        default:
          break;
        }
      if (section_end (&sub))
        {
          in.bad = 1;
          break;
        }
      pos += (size_t)plen;
      if (++next == n_order)
        break;
    }
  if (!in.bad && pos != len)
    {
      in.section = "END ";
      fail (&in, _ ("%llu bytes after the end"), (unsigned long long)(len - pos));
    }
  if (in.bad)
    {
      kct_trace_free (t);
      return -1;
    }
  *out = t;
  return 0;
}
