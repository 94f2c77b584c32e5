/* kct-extrapolate.c: a compressed trace at more ranks from traces at a few rank counts
 * (kubus-trace extrapolate), after ScalaExtrap (Wu and Mueller, PPoPP 2011).
 *
 * Ranks sit on a process grid: the Cartesian topology that covers all ranks in rank order,
 * else a line.  Each input's rank groups become *roles*: boxes of the grid whose bounds are
 * named from the nearer end of each dimension ("first", "second", "last", "second to first
 * … second to last"), so the north-west corner, the top edge, the interior of a stencil are
 * the same role at every size.  For each role of the result:
 *   - the sequence comes from the largest input that has the role, walked in step with the
 *     other inputs' sequences for the role, which must have the same shape;
 *   - a number that differs between inputs (a loop count, a message size, a peer) is fitted
 *     exactly, as a constant or a + b·x with x the rank count, a grid dimension or 1/ranks;
 *     peers on communicators laid over the whole grid in rank order are carried over as grid
 *     offsets instead (the neighbour one row up stays one row up);
 *   - the times are that input's group's mean timeline, occurrence by occurrence (a loop
 *     that runs longer at the target size repeats the input's iterations); strong scaling of
 *     compute times is not modelled.
 * Communicators over all ranks, MPI_COMM_SELF-like families and families of arithmetic rank
 * runs (rows, columns) are fitted the same way; others make the extrapolation fail with a
 * message saying which.  The grid of the result is --dims, or MPI_Dims_create's when every
 * input's grid is MPI_Dims_create's for its rank count. */
#include "kct.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#define MAX_NODES 2000000 /* structure nodes visited while walking (a DAG may share bodies) */

typedef struct
{
  const KctTrace *t;
  guint32         n;        /* ranks */
  guint           nd;       /* grid dimensions */
  guint32         dims[16];
  gboolean        has_grid; /* a topology over all ranks in rank order */
} Input;

typedef struct
{
  Input         *in;
  guint          n_in;
  Input          target;
  KctTrace      *out;
  GError       **error;
  gboolean       failed;
  guint64        nodes;
  /* per walk: the inputs taking part and their role representatives */
  guint          n_use;
  guint          use[64];
  guint32        rep[64];   /* representative rank of the role in each used input */
  guint32        rep_target;
  GHashTable    *leaf_map;  /* template leaf -> GArray of output leaves */
  const char    *role_name;
} Ex;

/* ---- grids ---------------------------------------------------------------------------------- */

/* MPI_Dims_create: dimensions as equal as possible, in non-increasing order */
static void
dims_create (guint32 n, guint nd, guint32 *dims)
{
  for (guint k = 0; k < nd; k++)
    dims[k] = 1;
  GArray *primes = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint32 p = 2; (guint64)p * p <= n; p++)
    while (n % p == 0)
      {
        g_array_append_val (primes, p);
        n /= p;
      }
  if (n > 1)
    g_array_append_val (primes, n);
  for (guint i = primes->len; i-- > 0;)
    {
      guint small = 0;
      for (guint k = 1; k < nd; k++)
        if (dims[k] < dims[small])
          small = k;
      dims[small] *= g_array_index (primes, guint32, i);
    }
  g_array_unref (primes);
  for (guint i = 0; i < nd; i++)
    for (guint j = i + 1; j < nd; j++)
      if (dims[j] > dims[i])
        {
          guint32 x = dims[i];
          dims[i] = dims[j];
          dims[j] = x;
        }
}

/* does entry e stand for one communicator over all ranks in rank order? */
static gboolean
comm_is_all (const KctTrace *t, uint32_t e)
{
  if (e >= t->n_comms)
    return FALSE;
  const KctComm *c = &t->comms[e];
  if (c->repeat != 1 || (c->flags & (KCT_COMM_INTER | KCT_COMM_ALIAS))
      || c->members.n != t->h.n_ranks)
    return FALSE;
  for (uint32_t i = 0; i < c->members.n; i++)
    if (c->members.v[i] != i)
      return FALSE;
  return TRUE;
}

static void
input_grid (Input *in)
{
  const KctTrace *t = in->t;
  in->n = t->h.n_ranks;
  in->nd = 1;
  in->dims[0] = in->n;
  in->has_grid = FALSE;
  for (uint32_t i = 0; i < t->n_topos; i++)
    {
      const KctTopo *tp = &t->topos[i];
      guint64        cells = 1;
      for (uint32_t d = 0; d < tp->ndims; d++)
        cells *= tp->dims[d];
      if (cells == in->n && tp->row_major && comm_is_all (t, tp->comm))
        {
          in->nd = tp->ndims;
          memcpy (in->dims, tp->dims, sizeof in->dims);
          in->has_grid = TRUE;
          return;
        }
    }
}

static void
coords_of (const Input *in, guint32 rank, guint32 *c)
{
  for (guint d = in->nd; d-- > 0;)
    {
      c[d] = rank % in->dims[d];
      rank /= in->dims[d];
    }
}

static guint32
rank_of (const Input *in, const guint32 *c)
{
  guint64 r = 0;
  for (guint d = 0; d < in->nd; d++)
    r = r * in->dims[d] + c[d];
  return (guint32)r;
}

/* ---- roles ----------------------------------------------------------------------------------- */

/* A bound of an interval in a dimension of size D, named from the nearer end. */
static void
bound_name (GString *s, guint32 v, guint32 D, gboolean lo)
{
  guint32 from_end = D - 1 - v;
  gboolean start = lo ? v <= from_end : !(from_end <= v);
  g_string_append_printf (s, "%c%u", start ? 'S' : 'E', start ? v : from_end);
}

static gboolean
bound_value (const char *b, guint32 D, guint32 *v)
{
  guint64 off = g_ascii_strtoull (b + 1, NULL, 10);
  if (off >= D)
    return FALSE;
  *v = b[0] == 'S' ? (guint32)off : D - 1 - (guint32)off;
  return TRUE;
}

/* "S0-E0,S1-E1": the role of box [lo, hi] */
static char *
role_key (const Input *in, const guint32 *lo, const guint32 *hi)
{
  GString *s = g_string_new (NULL);
  for (guint d = 0; d < in->nd; d++)
    {
      if (d)
        g_string_append_c (s, ',');
      bound_name (s, lo[d], in->dims[d], TRUE);
      g_string_append_c (s, '-');
      bound_name (s, hi[d], in->dims[d], FALSE);
    }
  return g_string_free (s, FALSE);
}

/* the box a role stands for in a grid; FALSE when empty there */
static gboolean
role_box (const Input *in, const char *key, guint32 *lo, guint32 *hi)
{
  g_auto (GStrv) parts = g_strsplit (key, ",", -1);
  if (g_strv_length (parts) != in->nd)
    return FALSE;
  for (guint d = 0; d < in->nd; d++)
    {
      g_auto (GStrv) b = g_strsplit (parts[d], "-", 2);
      if (b[0] == NULL || b[1] == NULL || !bound_value (b[0], in->dims[d], &lo[d])
          || !bound_value (b[1], in->dims[d], &hi[d]) || lo[d] > hi[d])
        return FALSE;
    }
  return TRUE;
}

typedef struct
{
  char    *key;
  guint    input;
  guint32  group;
  guint32  rep;   /* the box's first rank */
} Role;

/* Splits a set of grid cells (a bitmap over the input's ranks) into boxes: along the first
 * dimension, runs of equal slices; inside a slice, recursively. */
static void
boxes_rec (const Input *in, const guint8 *set, guint d, guint32 *fixed, guint32 *lo, guint32 *hi,
           GPtrArray *out);

static gboolean
slice_equal (const Input *in, const guint8 *set, guint d, guint32 *fixed, guint32 a, guint32 b)
{
  /* compare the cells with coordinate d = a and = b (the earlier dimensions as in fixed) */
  guint64 cells = 1;
  for (guint k = d + 1; k < in->nd; k++)
    cells *= in->dims[k];
  guint32 c[16];
  memcpy (c, fixed, sizeof c);
  for (guint64 i = 0; i < cells; i++)
    {
      guint64 rest = i;
      for (guint k = in->nd; k-- > d + 1;)
        {
          c[k] = (guint32)(rest % in->dims[k]);
          rest /= in->dims[k];
        }
      c[d] = a;
      guint8 x = set[rank_of (in, c)];
      c[d] = b;
      if (x != set[rank_of (in, c)])
        return FALSE;
    }
  return TRUE;
}

static void
boxes_rec (const Input *in, const guint8 *set, guint d, guint32 *fixed, guint32 *lo, guint32 *hi,
           GPtrArray *out)
{
  if (d == in->nd)
    {
      if (set[rank_of (in, fixed)])
        {
          guint32 *box = g_new (guint32, 2 * in->nd);
          memcpy (box, lo, sizeof (guint32) * in->nd);
          memcpy (box + in->nd, hi, sizeof (guint32) * in->nd);
          g_ptr_array_add (out, box);
        }
      return;
    }
  guint32 v = 0;
  while (v < in->dims[d])
    {
      guint32 w = v;
      while (w + 1 < in->dims[d] && slice_equal (in, set, d, fixed, v, w + 1))
        w++;
      fixed[d] = v;
      lo[d] = v;
      hi[d] = w;
      boxes_rec (in, set, d + 1, fixed, lo, hi, out);
      v = w + 1;
    }
}

static void
input_roles (Ex *x, guint i, GPtrArray *roles)
{
  const Input *in = &x->in[i];
  guint8      *set = g_new0 (guint8, in->n);
  for (uint32_t g = 0; g < in->t->n_groups; g++)
    {
      const KctGroup *grp = &in->t->groups[g];
      memset (set, 0, in->n);
      for (uint32_t k = 0; k < grp->ranks.n; k++)
        set[grp->ranks.v[k]] = 1;
      g_autoptr (GPtrArray) boxes = g_ptr_array_new_with_free_func (g_free);
      guint32 fixed[16] = { 0 }, lo[16], hi[16];
      boxes_rec (in, set, 0, fixed, lo, hi, boxes);
      for (guint b = 0; b < boxes->len; b++)
        {
          guint32 *box = boxes->pdata[b];
          Role    *r = g_new0 (Role, 1);
          r->key = role_key (in, box, box + in->nd);
          r->input = i;
          r->group = g;
          r->rep = rank_of (in, box);
          g_ptr_array_add (roles, r);
        }
    }
  g_free (set);
}

static void
role_free (gpointer p)
{
  Role *r = p;
  g_free (r->key);
  g_free (r);
}

/* ---- fitting numbers --------------------------------------------------------------------------- */

/* the variables a number may depend on, for input i (or the target) */
static double
variable (const Input *in, int which)
{
  if (which == 0)
    return in->n;
  if (which == 1)
    return 1.0 / in->n;
  return in->dims[which - 2];
}

static gboolean
fit (Ex *x, const gint64 *v, gint64 *result)
{
  gboolean same = TRUE;
  for (guint i = 1; i < x->n_use; i++)
    same &= v[i] == v[0];
  if (same)
    {
      *result = v[0];
      return TRUE;
    }
  int n_vars = 2 + (int)x->target.nd;
  for (int w = 0; w < n_vars; w++)
    {
      /* two points with different values of the variable */
      guint a = 0, b = G_MAXUINT;
      for (guint i = 1; i < x->n_use && b == G_MAXUINT; i++)
        if (variable (&x->in[x->use[i]], w) != variable (&x->in[x->use[a]], w))
          b = i;
      if (b == G_MAXUINT)
        continue;
      double xa = variable (&x->in[x->use[a]], w), xb = variable (&x->in[x->use[b]], w);
      double slope = ((double)v[b] - (double)v[a]) / (xb - xa);
      double icpt = (double)v[a] - slope * xa;
      gboolean ok = TRUE;
      for (guint i = 0; i < x->n_use && ok; i++)
        ok = fabs (icpt + slope * variable (&x->in[x->use[i]], w) - (double)v[i]) < 1e-6;
      if (!ok)
        continue;
      double r = icpt + slope * variable (&x->target, w);
      if (fabs (r - round (r)) > 1e-6)
        continue;
      *result = (gint64)llround (r);
      return TRUE;
    }
  return FALSE;
}

static void
fail_fit (Ex *x, const char *what)
{
  if (!x->failed)
    g_set_error (x->error, KCT_ERROR, KCT_ERROR_EXTRAPOLATE,
                 _ ("cannot extrapolate %s of the ranks in role %s: its values at the input "
                    "rank counts fit no constant or linear rule"),
                 what, x->role_name);
  x->failed = TRUE;
}

static void
fail_memory (Ex *x)
{
  if (!x->failed)
    g_set_error (x->error, KCT_ERROR, KCT_ERROR_EXTRAPOLATE, _ ("out of memory"));
  x->failed = TRUE;
}

static void
fail_shape (Ex *x, const char *what)
{
  if (!x->failed)
    g_set_error (x->error, KCT_ERROR, KCT_ERROR_EXTRAPOLATE,
                 _ ("cannot extrapolate the ranks in role %s: their event sequences differ in "
                    "%s between the inputs"),
                 x->role_name, what);
  x->failed = TRUE;
}

/* a peer over the grid: the grid offset, the same at every size (wrapping if it wrapped) */
static gboolean
grid_peer (Ex *x, const gint64 *v, gint64 *result)
{
  gint64 delta[16];
  for (guint i = 0; i < x->n_use; i++)
    {
      const Input *in = &x->in[x->use[i]];
      guint32      me[16], peer[16];
      gint64       p = (gint64)x->rep[i] + v[i];
      if (p < 0 || p >= in->n)
        return FALSE;
      coords_of (in, x->rep[i], me);
      coords_of (in, (guint32)p, peer);
      for (guint d = 0; d < in->nd; d++)
        {
          gint64 dd = (gint64)peer[d] - (gint64)me[d];
          gint64 D = in->dims[d];
          /* the shorter way round: a periodic neighbour across the edge */
          if (dd > D / 2 && D > 2)
            dd -= D;
          else if (dd < -(D / 2) && D > 2)
            dd += D;
          if (i == 0)
            delta[d] = dd;
          else if (delta[d] != dd)
            return FALSE;
        }
    }
  guint32 me[16], c[16];
  coords_of (&x->target, x->rep_target, me);
  for (guint d = 0; d < x->target.nd; d++)
    {
      gint64 D = x->target.dims[d];
      gint64 pc = ((gint64)me[d] + delta[d]) % D;
      c[d] = (guint32)(pc < 0 ? pc + D : pc);
    }
  *result = (gint64)rank_of (&x->target, c) - (gint64)x->rep_target;
  return TRUE;
}

/* ---- walking the structure in step ------------------------------------------------------------- */

static guint32 walk_body (Ex *x, const uint32_t *bodies);

static void
map_leaf (Ex *x, uint32_t tmpl, uint32_t out)
{
  GArray *a = g_hash_table_lookup (x->leaf_map, GUINT_TO_POINTER (tmpl));
  if (a == NULL)
    {
      a = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_hash_table_insert (x->leaf_map, GUINT_TO_POINTER (tmpl), a);
    }
  for (guint i = 0; i < a->len; i++)
    if (g_array_index (a, guint32, i) == out)
      return;
  g_array_append_val (a, out);
}

static guint32
walk_leaf (Ex *x, const uint32_t *leaves)
{
  uint32_t      n0;
  const KctRaw *r0 = kct_leaf (x->in[x->use[0]].t, leaves[0], &n0);
  const KctRaw *r[64];
  for (guint i = 0; i < x->n_use; i++)
    {
      uint32_t n;
      r[i] = kct_leaf (x->in[x->use[i]].t, leaves[i], &n);
      if (n != n0)
        {
          fail_shape (x, _ ("the events of a call"));
          return KCT_NONE;
        }
    }
  KctRaw *out = g_new0 (KctRaw, n0);
  for (uint32_t k = 0; k < n0 && !x->failed; k++)
    {
      out[k] = r0[k];
      gint64 peer[64], bytes[64], recv[64], tag[64];
      for (guint i = 0; i < x->n_use; i++)
        {
          const KctRaw *e = &r[i][k];
          /* everything but the numbers must agree; regions compared by name */
          gboolean same = e->type == r0[k].type && e->at == r0[k].at && e->op == r0[k].op;
          if (e->type == KCT_RAW_ENTER || e->type == KCT_RAW_LEAVE)
            same = same && strcmp (x->in[x->use[i]].t->regions[e->a].name,
                                   x->in[x->use[0]].t->regions[r0[k].a].name)
                               == 0
                   && (e->type != KCT_RAW_ENTER || e->tag == r0[k].tag);
          else
            same = same && e->a == r0[k].a;
          if (!same)
            {
              fail_shape (x, _ ("the kind of an event"));
              break;
            }
          peer[i] = e->peer;
          bytes[i] = (gint64)e->bytes;
          recv[i] = (gint64)(e->type == KCT_RAW_NBC_COMPLETE ? e->y : e->x);
          tag[i] = e->tag;
        }
      if (x->failed)
        break;
      gint64 v;
      switch (r0[k].type)
        {
        case KCT_RAW_SEND:
        case KCT_RAW_RECV:
        case KCT_RAW_ISEND:
        case KCT_RAW_IRECV:
          {
            /* the communicator entry with this local id in the template */
            const KctTrace *t0 = x->in[x->use[0]].t;
            gboolean        over_grid = FALSE;
            for (uint32_t e = 0; e < t0->n_comms; e++)
              if (t0->comms[e].local_id == r0[k].a && !(t0->comms[e].flags & KCT_COMM_ALIAS))
                over_grid = comm_is_all (t0, e);
            if ((over_grid && grid_peer (x, peer, &v)) || fit (x, peer, &v))
              out[k].peer = (int32_t)v;
            else
              fail_fit (x, _ ("a message peer"));
            if (fit (x, bytes, &v) && v >= 0)
              out[k].bytes = (uint64_t)v;
            else
              fail_fit (x, _ ("a message size"));
            if (fit (x, tag, &v) && v >= 0)
              out[k].tag = (uint32_t)v;
            else
              fail_fit (x, _ ("a message tag"));
            break;
          }
        case KCT_RAW_COLL_END:
        case KCT_RAW_NBC_COMPLETE:
          if (fit (x, bytes, &v) && v >= 0)
            out[k].bytes = (uint64_t)v;
          else
            fail_fit (x, _ ("the bytes a collective sends"));
          if (fit (x, recv, &v) && v >= 0)
            *(r0[k].type == KCT_RAW_NBC_COMPLETE ? &out[k].y : &out[k].x) = (uint64_t)v;
          else
            fail_fit (x, _ ("the bytes a collective receives"));
          if (fit (x, peer, &v))
            out[k].peer = (int32_t)v;
          else
            fail_fit (x, _ ("a collective's root"));
          break;
        default:
          break;
        }
    }
  guint32 id = KCT_NONE;
  if (!x->failed)
    {
      id = kct_leaf_intern (x->out, out, n0);
      if (id == KCT_NONE)
        fail_memory (x);
      else
        map_leaf (x, leaves[0], id);
    }
  g_free (out);
  return id;
}

static guint32
walk_body (Ex *x, const uint32_t *bodies)
{
  if (++x->nodes > MAX_NODES)
    {
      fail_shape (x, _ ("size (too many loops to walk)"));
      return KCT_NONE;
    }
  uint32_t       n0;
  const KctElem *e0 = kct_body (x->in[x->use[0]].t, bodies[0], &n0);
  const KctElem *e[64];
  for (guint i = 0; i < x->n_use; i++)
    {
      uint32_t n;
      e[i] = kct_body (x->in[x->use[i]].t, bodies[i], &n);
      if (n != n0)
        {
          fail_shape (x, _ ("the length of a loop body"));
          return KCT_NONE;
        }
    }
  KctElem *out = g_new0 (KctElem, n0 ? n0 : 1);
  for (uint32_t k = 0; k < n0 && !x->failed; k++)
    {
      uint32_t kind = e0[k].ref & (KCT_REF_BODY | KCT_REF_POLL);
      uint32_t ids[64];
      gint64   counts[64];
      for (guint i = 0; i < x->n_use; i++)
        {
          if ((e[i][k].ref & (KCT_REF_BODY | KCT_REF_POLL)) != kind)
            {
              fail_shape (x, _ ("the nesting of loops"));
              break;
            }
          ids[i] = KCT_REF_ID (e[i][k].ref);
          counts[i] = e[i][k].count;
        }
      if (x->failed)
        break;
      guint32 id = (kind & KCT_REF_BODY) ? walk_body (x, ids) : walk_leaf (x, ids);
      gint64  c = 0;
      if (!(kind & KCT_REF_POLL) && (!fit (x, counts, &c) || c < 1 || c > G_MAXUINT32))
        fail_fit (x, _ ("a loop count"));
      out[k].ref = id | kind;
      out[k].count = (uint32_t)c;
    }
  guint32 id = KCT_NONE;
  if (!x->failed && (id = kct_body_intern (x->out, out, n0)) == KCT_NONE)
    fail_memory (x);
  g_free (out);
  return id;
}

/* ---- times ------------------------------------------------------------------------------------ */

typedef struct
{
  guint64 at; /* index of its first value in the source's values */
  guint32 k;  /* values */
} Occurrence;

/* The output group's times: the mean timeline of the source group (its ranks' values
 * averaged), occurrence by occurrence: the n-th occurrence of an output leaf takes the values
 * of the n-th occurrence of the source leaf it was made from (cycling when a fitted loop runs
 * longer than the source's).  Poll counts follow. */
static void
copy_times (Ex *x, KctGroup *g, const KctTrace *st, const KctGroup *src, guint32 target_ranks)
{
  if (g->n_tl > 0 || x->failed)
    return; /* a second role with the same sequence: the first one's times */
  KctGrid grid;
  if (kct_grid_init (&grid, st->h.time_abs, st->h.time_bits) != 0)
    {
      fail_memory (x);
      return;
    }
  /* the source group's mean values */
  guint64 *sums = NULL, n = 0, start = 0, div = MAX (src->ranks.n, 1);
  guint32  own = 0;
  for (uint32_t i = 0; i < src->n_tl; i++)
    own += src->tl[i].rank != KCT_NONE;
  gboolean ok = TRUE;
  for (uint32_t i = 0; i < src->n_tl && ok; i++)
    {
      guint64 *v = NULL, m = 0;
      guint64  w = src->tl[i].rank == KCT_NONE ? (src->ranks.n > own ? src->ranks.n - own : 0) : 1;
      ok = kct_timeline_values (st, src, &src->tl[i], &grid, &v, &m) == 0 && (sums == NULL || m == n);
      if (ok && sums == NULL)
        {
          sums = g_new0 (guint64, m + 1);
          n = m;
        }
      for (guint64 k = 0; ok && k < m; k++)
        sums[k] += v[k] * w;
      start += src->tl[i].start * w;
      free (v);
    }
  /* where each occurrence of a source leaf (a poll run: leaf | KCT_REF_POLL) has its values */
  g_autoptr (GHashTable) occ = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify)g_array_unref);
  KctWalk  w;
  uint32_t leaf;
  int      poll, r = 0;
  guint64  at = 0;
  if (ok && kct_walk_init (&w, st, src->seq) == 0)
    {
      while ((r = kct_walk_next (&w, &leaf, &poll)) == 1)
        {
          uint32_t   m;
          const KctRaw *raw = kct_leaf (st, leaf, &m);
          Occurrence o = { at, poll ? 4 : kct_leaf_slots (raw, m, NULL) };
          gpointer   key = GUINT_TO_POINTER (leaf | (poll ? KCT_REF_POLL : 0));
          GArray    *a = g_hash_table_lookup (occ, key);
          if (a == NULL)
            g_hash_table_insert (occ, key, a = g_array_new (FALSE, FALSE, sizeof (Occurrence)));
          g_array_append_val (a, o);
          at += o.k;
        }
      kct_walk_clear (&w);
      ok = r == 0 && at == n;
    }
  else
    ok = FALSE;
  /* output leaf -> the source leaf it was made from */
  g_autoptr (GHashTable) from = g_hash_table_new (NULL, NULL);
  GHashTableIter it;
  gpointer       key, val;
  g_hash_table_iter_init (&it, x->leaf_map);
  while (g_hash_table_iter_next (&it, &key, &val))
    for (guint i = 0; i < ((GArray *)val)->len; i++)
      g_hash_table_insert (from, GUINT_TO_POINTER (g_array_index ((GArray *)val, guint32, i) + 1),
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (key) + 1));
  /* walk the output sequence */
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr (GHashTable) used = g_hash_table_new (NULL, NULL);
  if (ok && kct_walk_init (&w, x->out, g->seq) == 0)
    {
      while ((r = kct_walk_next (&w, &leaf, &poll)) == 1)
        {
          uint32_t      m;
          const KctRaw *raw = kct_leaf (x->out, leaf, &m);
          guint32       k = poll ? 4 : kct_leaf_slots (raw, m, NULL);
          guint32       src_leaf = GPOINTER_TO_UINT (g_hash_table_lookup (from, GUINT_TO_POINTER (leaf + 1)));
          gpointer      skey = GUINT_TO_POINTER ((src_leaf - 1) | (poll ? KCT_REF_POLL : 0));
          GArray       *a = src_leaf ? g_hash_table_lookup (occ, skey) : NULL;
          guint         c = GPOINTER_TO_UINT (g_hash_table_lookup (used, skey));
          const Occurrence *o = a != NULL && a->len > 0 ? &g_array_index (a, Occurrence, c % a->len) : NULL;
          g_hash_table_insert (used, skey, GUINT_TO_POINTER (c + 1));
          for (guint32 i = 0; i < k; i++)
            {
              guint64 v = o != NULL && o->k == k ? sums[o->at + i] : (poll && i == 1 ? div : 0);
              g_array_append_val (out, v);
            }
          if (poll)
            {
              KctPollCount *pc = kct_group_poll (g, leaf);
              guint64       calls = g_array_index (out, guint64, out->len - 3);
              calls = (calls + div / 2) / div;
              if (pc != NULL)
                pc->calls += (calls ? calls : 1) * target_ranks;
            }
        }
      kct_walk_clear (&w);
      ok = r == 0;
    }
  else
    ok = FALSE;
  KctTimeline tl = { KCT_NONE, 0, NULL, 0, 0 };
  KctTimeline *d = NULL;
  if (ok && kct_timeline_from_values (x->out, g, &grid, (const uint64_t *)out->data, out->len, div, &tl) == 0
      && (d = kct_group_timeline_add (g)) != NULL)
    {
      *d = tl;
      d->start = (start + div / 2) / div;
    }
  else
    {
      kct_timeline_clear (&tl);
      g_set_error (x->error, KCT_ERROR, KCT_ERROR_EXTRAPOLATE,
                   _ ("the times of role %s cannot be carried over"), x->role_name);
      x->failed = TRUE;
    }
  g_free (sums);
  kct_grid_clear (&grid);
}

/* ---- definitions --------------------------------------------------------------------------------- */

/* a communicator entry at the target size, fitted from the entries with its local id */
static gboolean
extrapolate_comm (Ex *x, const KctComm *c0, const KctComm **cs, guint n)
{
  KctComm *d = kct_comm_add (x->out);
  if (d == NULL)
    return FALSE;
  d->local_id = c0->local_id;
  d->flags = c0->flags;
  d->parent = c0->parent;
  if (c0->flags & (KCT_COMM_INTER | KCT_COMM_ALIAS) || c0->members_b.n > 0 || c0->users.n > 0)
    return FALSE;
  /* instance 0's members as one arithmetic run: start, stride, count; then repeat and shift */
  gint64 start[64], stride[64], count[64], repeat[64], shift[64];
  for (guint i = 0; i < n; i++)
    {
      const KctComm *c = cs[i];
      if (c->members.n == 0 || (c->flags & (KCT_COMM_INTER | KCT_COMM_ALIAS)) || c->users.n > 0)
        return FALSE;
      start[i] = c->members.v[0];
      stride[i] = c->members.n > 1 ? (gint64)c->members.v[1] - (gint64)c->members.v[0] : 1;
      for (uint32_t k = 1; k < c->members.n; k++)
        if ((gint64)c->members.v[k] - (gint64)c->members.v[k - 1] != stride[i])
          return FALSE;
      count[i] = c->members.n;
      repeat[i] = c->repeat;
      shift[i] = c->repeat > 1 ? c->shift : 0;
    }
  gint64 s, st, cn, rp, sh;
  if (!fit (x, start, &s) || !fit (x, stride, &st) || !fit (x, count, &cn) || !fit (x, repeat, &rp)
      || !fit (x, shift, &sh) || cn < 1 || rp < 1 || s < 0)
    return FALSE;
  for (gint64 k = 0; k < cn; k++)
    {
      gint64 v = s + k * st;
      if (v < 0 || v >= x->target.n || v + (rp - 1) * sh < 0 || v + (rp - 1) * sh >= x->target.n)
        return FALSE;
      kct_list_add (&d->members, (uint32_t)v);
    }
  d->repeat = (uint32_t)rp;
  d->shift = rp > 1 ? sh : 0;
  return TRUE;
}

static gboolean
extrapolate_defs (Ex *x, const Input *tmpl)
{
  const KctTrace *t0 = tmpl->t;
  KctTrace       *out = x->out;
  for (uint32_t i = 0; i < t0->n_regions; i++)
    if (kct_region_add (out, &t0->regions[i]) == KCT_NONE)
      return FALSE;
  /* communicators: every input must have an entry with the same local id */
  x->n_use = 0;
  for (guint i = 0; i < x->n_in; i++)
    x->use[x->n_use++] = i;
  for (uint32_t e = 0; e < t0->n_comms; e++)
    {
      const KctComm *cs[64];
      guint          n = 0;
      for (guint i = 0; i < x->n_in; i++)
        for (uint32_t f = 0; f < x->in[i].t->n_comms; f++)
          if (x->in[i].t->comms[f].local_id == t0->comms[e].local_id
              && !(x->in[i].t->comms[f].flags & KCT_COMM_ALIAS))
            {
              cs[n++] = &x->in[i].t->comms[f];
              break;
            }
      /* the fit runs over the inputs that have the entry */
      guint keep = x->n_use;
      if (n != x->n_in || !extrapolate_comm (x, &t0->comms[e], cs, n))
        {
          g_set_error (x->error, KCT_ERROR, KCT_ERROR_EXTRAPOLATE,
                       _ ("cannot extrapolate communicator %u (local id %u): only communicators "
                          "over all ranks and families of evenly spaced rank runs are supported"),
                       e, t0->comms[e].local_id);
          return FALSE;
        }
      x->n_use = keep;
    }
  for (uint32_t i = 0; i < t0->n_topos; i++)
    {
      const KctTopo *tp = &t0->topos[i];
      KctTopo       *d = kct_topo_add (out);
      if (d == NULL || kct_set_string (&d->name, tp->name) != 0)
        return FALSE;
      d->comm = tp->comm;
      d->ndims = tp->ndims;
      memcpy (d->periods, tp->periods, sizeof d->periods);
      d->row_major = 1;
      if (x->target.has_grid && tp->ndims == x->target.nd && comm_is_all (t0, tp->comm))
        memcpy (d->dims, x->target.dims, sizeof d->dims);
      else
        {
          g_set_error (x->error, KCT_ERROR, KCT_ERROR_EXTRAPOLATE,
                       _ ("cannot extrapolate topology %s: only a grid over all ranks is "
                          "supported"),
                       tp->name);
          return FALSE;
        }
    }
  KctHost *h = kct_host_add (out, t0->n_hosts > 0 ? t0->hosts[0].name : "localhost");
  if (h == NULL)
    return FALSE;
  for (guint32 r = 0; r < x->target.n; r++)
    kct_list_add (&h->ranks, r);
  out->h = t0->h;
  out->h.program = NULL;
  out->h.creator = NULL;
  kct_set_string (&out->h.program, t0->h.program);
  kct_set_string (&out->h.creator, "Kubus " KUBUS_VERSION " (kubus-trace extrapolate)");
  out->h.n_ranks = x->target.n;
  out->h.flags = (t0->h.flags & KCT_FILE_OFFLINE) | KCT_FILE_EXTRAPOLATED;
  out->h.otf2_bytes = 0;
  /* the archive's properties (the MPI library's eager limits: the runs' library is one) */
  for (guint32 i = 0; i < t0->n_props; i++)
    if (kct_prop_set (out, t0->prop_names[i], t0->prop_values[i]) != 0)
      return FALSE;
  return TRUE;
}

/* ---- the whole ------------------------------------------------------------------------------------- */

static void
free_array (gpointer p)
{
  g_array_unref (p);
}

KctTrace *
kct_extrapolate (KctTrace *const *in_traces,
                 guint            n_in,
                 guint32          ranks,
                 const guint32   *dims,
                 guint            n_dims,
                 GError         **error)
{
  if (n_in < 2 || n_in > 64)
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_EXTRAPOLATE,
                   _ ("extrapolation needs between 2 and 64 input traces"));
      return NULL;
    }
  Ex x = { 0 };
  x.error = error;
  x.n_in = n_in;
  x.in = g_new0 (Input, n_in);
  guint tmpl = 0;
  for (guint i = 0; i < n_in; i++)
    {
      x.in[i].t = in_traces[i];
      input_grid (&x.in[i]);
      if (x.in[i].nd != x.in[0].nd)
        {
          g_set_error (error, KCT_ERROR, KCT_ERROR_EXTRAPOLATE,
                       _ ("the inputs have process grids of different dimensions"));
          g_free (x.in);
          return NULL;
        }
      for (guint j = 0; j < i; j++)
        if (x.in[j].n == x.in[i].n)
          {
            g_set_error (error, KCT_ERROR, KCT_ERROR_EXTRAPOLATE,
                         _ ("two inputs have the same number of ranks (%u)"), x.in[i].n);
            g_free (x.in);
            return NULL;
          }
      if (x.in[i].n > x.in[tmpl].n)
        tmpl = i;
    }
  /* the target grid */
  x.target.n = ranks;
  x.target.nd = x.in[0].nd;
  x.target.has_grid = x.in[0].has_grid;
  if (n_dims > 0)
    {
      guint64 cells = 1;
      for (guint k = 0; k < n_dims; k++)
        cells *= dims[k];
      if (n_dims != x.target.nd || cells != ranks)
        {
          g_set_error (error, KCT_ERROR, KCT_ERROR_EXTRAPOLATE,
                       _ ("--dims must have %u dimensions whose product is %u"), x.target.nd,
                       ranks);
          g_free (x.in);
          return NULL;
        }
      memcpy (x.target.dims, dims, sizeof (guint32) * n_dims);
    }
  else if (x.target.nd == 1)
    x.target.dims[0] = ranks;
  else
    {
      for (guint i = 0; i < n_in; i++)
        {
          guint32 want[16];
          dims_create (x.in[i].n, x.in[i].nd, want);
          if (memcmp (want, x.in[i].dims, sizeof (guint32) * x.in[i].nd) != 0)
            {
              g_set_error (error, KCT_ERROR, KCT_ERROR_EXTRAPOLATE,
                           _ ("the grid of the input with %u ranks is not MPI_Dims_create's; "
                              "give the grid of the result with --dims"),
                           x.in[i].n);
              g_free (x.in);
              return NULL;
            }
        }
      dims_create (ranks, x.target.nd, x.target.dims);
    }

  /* roles of every input */
  g_autoptr (GPtrArray) roles = g_ptr_array_new_with_free_func (role_free);
  for (guint i = 0; i < n_in; i++)
    input_roles (&x, i, roles);
  /* each target rank takes the role with the smallest box holding it (ties: the largest input) */
  g_autoptr (GHashTable) keys = g_hash_table_new (g_str_hash, g_str_equal); /* key -> Role* */
  for (guint i = 0; i < roles->len; i++)
    {
      Role *r = roles->pdata[i];
      Role *had = g_hash_table_lookup (keys, r->key);
      if (had == NULL || x.in[r->input].n > x.in[had->input].n)
        g_hash_table_insert (keys, r->key, r);
    }
  guint32 *owner_size = g_new (guint32, ranks);
  Role   **owner = g_new0 (Role *, ranks);
  for (guint32 r = 0; r < ranks; r++)
    owner_size[r] = G_MAXUINT32;
  GHashTableIter it;
  gpointer       k, v;
  g_hash_table_iter_init (&it, keys);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      Role   *role = v;
      guint32 lo[16], hi[16], c[16];
      if (!role_box (&x.target, role->key, lo, hi))
        continue;
      guint64 cells = 1;
      for (guint d = 0; d < x.target.nd; d++)
        cells *= hi[d] - lo[d] + 1;
      memcpy (c, lo, sizeof c);
      for (guint64 i = 0; i < cells; i++)
        {
          guint64 rest = i;
          for (guint d = x.target.nd; d-- > 0;)
            {
              c[d] = lo[d] + (guint32)(rest % (hi[d] - lo[d] + 1));
              rest /= hi[d] - lo[d] + 1;
            }
          guint32 rank = rank_of (&x.target, c);
          if (cells < owner_size[rank]
              || (cells == owner_size[rank] && x.in[role->input].n > x.in[owner[rank]->input].n))
            {
              owner_size[rank] = (guint32)cells;
              owner[rank] = role;
            }
        }
    }
  KctTrace *out = NULL;
  for (guint32 r = 0; r < ranks; r++)
    if (owner[r] == NULL)
      {
        guint32 c[16];
        coords_of (&x.target, r, c);
        g_set_error (error, KCT_ERROR, KCT_ERROR_EXTRAPOLATE,
                     _ ("no input has ranks in the position of rank %u at %u ranks: give "
                        "inputs with larger grids"),
                     r, ranks);
        goto done;
      }

  x.out = kct_trace_new ();
  x.out->h.timer_resolution = x.in[tmpl].t->h.timer_resolution;
  x.out->h.time_abs = x.in[tmpl].t->h.time_abs;
  x.out->h.time_bits = x.in[tmpl].t->h.time_bits;
  x.out->h.timelines = x.in[tmpl].t->h.timelines;
  if (!extrapolate_defs (&x, &x.in[tmpl]))
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, KCT_ERROR, KCT_ERROR_EXTRAPOLATE, _ ("out of memory"));
      goto done;
    }
  /* one group per role used */
  g_hash_table_iter_init (&it, keys);
  while (!x.failed && g_hash_table_iter_next (&it, &k, &v))
    {
      Role   *role = v;
      GArray *mine = g_array_new (FALSE, FALSE, sizeof (guint32));
      for (guint32 r = 0; r < ranks; r++)
        if (owner[r] == role)
          g_array_append_val (mine, r);
      if (mine->len == 0)
        {
          g_array_unref (mine);
          continue;
        }
      /* the inputs with this role, the template (largest) first */
      x.n_use = 0;
      x.use[x.n_use] = role->input;
      x.rep[x.n_use++] = role->rep;
      uint32_t bodies[64];
      bodies[0] = x.in[role->input].t->groups[role->group].seq;
      for (guint i = 0; i < roles->len; i++)
        {
          Role *o = roles->pdata[i];
          if (o->input != role->input && strcmp (o->key, role->key) == 0)
            {
              bodies[x.n_use] = x.in[o->input].t->groups[o->group].seq;
              x.use[x.n_use] = o->input;
              x.rep[x.n_use++] = o->rep;
            }
        }
      x.rep_target = g_array_index (mine, guint32, 0);
      x.role_name = role->key;
      x.leaf_map = g_hash_table_new_full (NULL, NULL, NULL, free_array);
      guint32 seq = walk_body (&x, bodies);
      if (!x.failed)
        {
          KctGroup *g = NULL;
          for (uint32_t i = 0; i < x.out->n_groups && g == NULL; i++)
            if (x.out->groups[i].seq == seq)
              g = &x.out->groups[i];
          if (g == NULL && (g = kct_group_add (x.out)) != NULL)
            g->seq = seq;
          KctList add = { 0 };
          for (guint i = 0; i < mine->len; i++)
            kct_list_add (&add, g_array_index (mine, guint32, i));
          kct_list_union (&g->ranks, &g->ranks, &add);
          kct_list_clear (&add);
          copy_times (&x, g, x.in[role->input].t, &x.in[role->input].t->groups[role->group], mine->len);
        }
      g_hash_table_unref (x.leaf_map);
      g_array_unref (mine);
    }
  if (!x.failed && kct_finish (x.out) == 0)
    {
      out = x.out;
      x.out = NULL;
    }
  else if (!x.failed)
    g_set_error (error, KCT_ERROR, KCT_ERROR_EXTRAPOLATE, _ ("out of memory"));
done:
  kct_trace_free (x.out);
  g_free (owner);
  g_free (owner_size);
  g_free (x.in);
  return out;
}
