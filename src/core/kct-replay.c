/* kct-replay.c: one rank's events from a compressed trace, inverting the compression on the
 * fly (see kct-replay.h). */
#include "kct-replay.h"

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


#define MAX_SLOTS (1u << 20) /* request slots a rank may have open */

/* ---- communicators ---------------------------------------------------------- */

struct KctComms
{
  const KctTrace *t;
  KctCommInfo    *info;
  uint32_t        n;
  uint32_t       *first; /* per entry: global id of instance 0 */
};

KctComms *
kct_comms_new (const KctTrace *t, char *err, size_t errlen)
{
  KctComms *c = calloc (1, sizeof *c);
  uint64_t  total = 0;
  for (uint32_t e = 0; e < t->n_comms; e++)
    if (!(t->comms[e].flags & KCT_COMM_ALIAS))
      total += t->comms[e].repeat;
  if (total > UINT32_MAX / 2)
    {
      snprintf (err, errlen, _ ("%llu communicators"), (unsigned long long)total);
      free (c);
      return NULL;
    }
  if (c != NULL)
    {
      c->info = calloc ((size_t)total + 1, sizeof *c->info);
      c->first = calloc ((size_t)t->n_comms + 1, sizeof *c->first);
    }
  if (c == NULL || c->info == NULL || c->first == NULL)
    {
      snprintf (err, errlen, "%s", _ ("out of memory"));
      kct_comms_free (c);
      return NULL;
    }
  c->t = t;
  for (uint32_t e = 0; e < t->n_comms; e++)
    {
      c->first[e] = c->n;
      if (t->comms[e].flags & KCT_COMM_ALIAS)
        continue; /* no communicator of its own: resolved to its parent's */
      for (uint32_t k = 0; k < t->comms[e].repeat; k++)
        c->info[c->n++] = (KctCommInfo){ e, k, t->comms[e].members.n, t->comms[e].members_b.n };
    }
  return c;
}

void
kct_comms_free (KctComms *c)
{
  if (c == NULL)
    return;
  free (c->info);
  free (c->first);
  free (c);
}

uint32_t
kct_comms_count (const KctComms *c)
{
  return c->n;
}

const KctCommInfo *
kct_comms_info (const KctComms *c, uint32_t gid)
{
  return gid < c->n ? &c->info[gid] : NULL;
}

uint32_t
kct_comms_member (const KctComms *c, uint32_t gid, int b, uint32_t i)
{
  const KctCommInfo *in = &c->info[gid];
  const KctComm     *e = &c->t->comms[in->entry];
  const KctList     *l = b ? &e->members_b : &e->members;
  return (uint32_t)((int64_t)l->v[i] + e->shift * (int64_t)in->instance);
}

static int comm_position (const KctComm *e, uint32_t k, uint32_t r, uint32_t *me,
                          uint32_t *peer_size);

uint32_t
kct_comms_find (const KctComms *c, uint32_t entry, uint32_t world_rank)
{
  if (entry >= c->t->n_comms || (c->t->comms[entry].flags & KCT_COMM_ALIAS))
    return KCT_NONE;
  const KctComm *e = &c->t->comms[entry];
  for (uint32_t k = 0; k < e->repeat; k++)
    {
      uint32_t me, ps;
      if (comm_position (e, k, world_rank, &me, &ps))
        return c->first[entry] + k;
    }
  return KCT_NONE;
}

/* ---- the iterator ----------------------------------------------------------------- */

typedef struct
{
  uint32_t local_id;
  uint32_t gid;
  uint32_t me;        /* own rank in the communicator (in the own group) */
  uint32_t peer_size; /* ranks a peer is counted among (the other group of an inter-comm) */
  int      peer_b;    /* peers are members of group B */
} Resolved;

struct KctReplay
{
  const KctTrace *t;
  const KctComms *comms;
  const KctGroup *g;
  uint32_t        rank;
  char            err[256];
  int             failed, ended;
  uint64_t        count;

  KctWalk walk;

  /* times: the rank's timeline (or its group's mean), decoded as the walk goes */
  KctGrid      grid;
  KctTimeCoder tc;
  int          have_tc;
  uint64_t     base;    /* its first event, in the trace's time base */
  uint64_t    *slot_t;  /* the current leaf's times, relative to base */
  uint32_t     cap_slot_t, n_slot_t, mid;

  /* the current leaf */
  const KctRaw *leaf;
  uint32_t      leaf_id, leaf_n, leaf_pos;
  uint64_t      t_last;

  /* the current poll run: calls, start, end and time inside the calls; the next call */
  uint64_t poll_calls, poll_i, poll_start, poll_end, poll_in;

  Resolved *res;
  uint32_t  n_res;

  uint64_t *slot_id;
  uint32_t  n_slot;
  uint64_t  next_request;

  /* CPU samples (kct_replay_cpu): the next one stands before event number cpu_pos */
  int          cpu_on, cpu_have, held;
  KctCpuReader cpu;
  uint64_t     cpu_pos, cpu_val, cpu_wait, cpu_where;
  uint64_t     real;    /* events (not samples) yielded so far */
  KctEvent     held_ev; /* the event the samples before it took their time from */
};

static int __attribute__ ((format (printf, 2, 3)))
failf (KctReplay *it, const char *fmt, ...)
{
  if (!it->failed)
    {
      va_list ap;
      va_start (ap, fmt);
      int n = vsnprintf (it->err, sizeof it->err, fmt, ap);
      va_end (ap);
      if (n >= 0 && (size_t)n < sizeof it->err)
        snprintf (it->err + n, sizeof it->err - (size_t)n, _ (" (rank %u)"), it->rank);
    }
  it->failed = 1;
  return -1;
}

/* Does instance k of entry e hold world rank r among its users?  Sets *me, *peer_size. */
static int
comm_holds (const KctComm *e, uint32_t k, uint32_t r, uint32_t *me, uint32_t *peer_size)
{
  int64_t off = e->shift * (int64_t)k;
  if (e->users.n > 0)
    {
      /* users are sorted */
      int64_t  want = (int64_t)r - off;
      uint32_t lo = 0, hi = e->users.n;
      while (lo < hi)
        {
          uint32_t mid = (lo + hi) / 2;
          if ((int64_t)e->users.v[mid] < want)
            lo = mid + 1;
          else
            hi = mid;
        }
      if (lo >= e->users.n || (int64_t)e->users.v[lo] != want)
        return 0;
    }
  return comm_position (e, k, r, me, peer_size);
}

/* The position of world rank r in instance k of entry e. */
static int
comm_position (const KctComm *e, uint32_t k, uint32_t r, uint32_t *me, uint32_t *peer_size)
{
  int64_t off = e->shift * (int64_t)k;
  for (uint32_t i = 0; i < e->members.n; i++)
    if ((int64_t)e->members.v[i] + off == (int64_t)r)
      {
        *me = i;
        *peer_size = e->members_b.n > 0 ? e->members_b.n : e->members.n;
        return 1;
      }
  for (uint32_t i = 0; i < e->members_b.n; i++)
    if ((int64_t)e->members_b.v[i] + off == (int64_t)r)
      {
        *me = i;
        *peer_size = e->members.n;
        return 1;
      }
  return 0;
}

static int
resolve_comms (KctReplay *it)
{
  const KctTrace *t = it->t;
  it->res = calloc ((size_t)t->n_comms + 1, sizeof *it->res);
  if (it->res == NULL)
    return -1;
  for (uint32_t e = 0; e < t->n_comms; e++)
    {
      const KctComm *c = &t->comms[e];
      uint32_t       me = 0, ps = 0;
      uint32_t       hit = KCT_NONE;
      uint32_t       gid = it->comms->first[e];
      if (c->flags & KCT_COMM_ALIAS)
        {
          /* its users, positioned in the communicator it names */
          const KctComm *p = &t->comms[c->parent];
          if (kct_list_contains_sorted (&c->users, it->rank)
              && comm_position (p, 0, it->rank, &me, &ps))
            hit = 0;
          gid = it->comms->first[c->parent];
        }
      else if (c->repeat == 1 || c->shift == 0)
        {
          if (comm_holds (c, 0, it->rank, &me, &ps))
            hit = 0;
        }
      else
        {
          /* candidates: k with r - k * shift among the first instance's ranks */
          const KctList *lists[3] = { &c->members, &c->members_b, &c->users };
          for (int w = 0; w < 3 && hit == KCT_NONE; w++)
            for (uint32_t i = 0; i < lists[w]->n && hit == KCT_NONE; i++)
              {
                int64_t d = (int64_t)it->rank - (int64_t)lists[w]->v[i];
                if (d % c->shift != 0)
                  continue;
                int64_t k = d / c->shift;
                if (k >= 0 && k < (int64_t)c->repeat && comm_holds (c, (uint32_t)k, it->rank, &me, &ps))
                  hit = (uint32_t)k;
              }
        }
      if (hit != KCT_NONE)
        {
          int dup = 0;
          for (uint32_t i = 0; i < it->n_res; i++)
            dup |= it->res[i].local_id == c->local_id;
          /* peers lie in the other group of an inter-communicator: B when the rank is in A */
          const KctComm *e = (c->flags & KCT_COMM_ALIAS) ? &t->comms[c->parent] : c;
          int            in_a = 0;
          int64_t        off = e->shift * (int64_t)((c->flags & KCT_COMM_ALIAS) ? 0 : hit);
          for (uint32_t i = 0; i < e->members.n && !in_a; i++)
            in_a = (int64_t)e->members.v[i] + off == (int64_t)it->rank;
          if (!dup)
            it->res[it->n_res++]
                = (Resolved){ c->local_id, gid + hit, me, ps, e->members_b.n > 0 && in_a };
        }
    }
  return 0;
}

static const Resolved *
find_comm (const KctReplay *it, uint32_t local_id)
{
  for (uint32_t i = 0; i < it->n_res; i++)
    if (it->res[i].local_id == local_id)
      return &it->res[i];
  return NULL;
}

KctReplay *
kct_replay_new (const KctTrace *t, const KctComms *comms, uint32_t rank)
{
  KctReplay *it = calloc (1, sizeof *it);
  if (it == NULL)
    return NULL;
  it->t = t;
  it->comms = comms;
  it->rank = rank;
  it->next_request = 1;
  for (uint32_t g = 0; g < t->n_groups && it->g == NULL; g++)
    if (kct_list_contains_sorted (&t->groups[g].ranks, rank))
      it->g = &t->groups[g];
  if (it->g == NULL || it->g->seq >= t->n_bodies)
    {
      failf (it, _ ("no group holds this rank"));
      return it;
    }
  if (kct_walk_init (&it->walk, t, it->g->seq) != 0 || resolve_comms (it) != 0)
    {
      failf (it, _ ("out of memory"));
      return it;
    }
  const KctTimeline *tl = kct_group_timeline (it->g, rank);
  if (tl == NULL)
    {
      failf (it, _ ("no times for this rank"));
      return it;
    }
  if (kct_grid_init (&it->grid, t->h.time_abs, t->h.time_bits) != 0
      || kct_tc_decoder (&it->tc, &it->grid, tl->bytes, tl->n_bytes) != 0)
    {
      failf (it, _ ("the times of this rank cannot be read"));
      return it;
    }
  it->have_tc = 1;
  it->base = t->h.global_start + tl->start;
  return it;
}

void
kct_replay_free (KctReplay *it)
{
  if (it == NULL)
    return;
  kct_walk_clear (&it->walk);
  if (it->have_tc)
    kct_tc_clear (&it->tc);
  kct_grid_clear (&it->grid);
  free (it->slot_t);
  free (it->res);
  free (it->slot_id);
  free (it);
}

const char *
kct_replay_error (const KctReplay *it)
{
  return it->failed ? it->err : NULL;
}

uint64_t
kct_replay_count (const KctReplay *it)
{
  return it->count;
}

/* call i of the current poll run: the calls share the run's time inside calls evenly, the
 * gaps between them the rest */
static void
poll_call (const KctReplay *it, uint64_t i, uint64_t *start, uint64_t *end)
{
  uint64_t n = it->poll_calls, span = it->poll_end - it->poll_start;
  uint64_t in = it->poll_in <= span ? it->poll_in : span, gaps = span - in;
  if (n <= 1)
    {
      *start = it->poll_start;
      *end = it->poll_end;
      return;
    }
  uint64_t g = (uint64_t)((unsigned __int128)gaps * i / (n - 1));
  *start = it->poll_start + g + (uint64_t)((unsigned __int128)in * i / n);
  *end = it->poll_start + g + (uint64_t)((unsigned __int128)in * (i + 1) / n);
}

/* Starts the next leaf occurrence; 0 = end of the sequence. */
static int
start_leaf (KctReplay *it)
{
  uint32_t leaf = it->leaf_id;
  if (it->poll_i + 1 < it->poll_calls)
    it->poll_i++;
  else
    {
      int poll = 0;
      int r = kct_walk_next (&it->walk, &leaf, &poll);
      if (r < 0)
        return failf (it, _ ("loops nested too deep, or out of memory"));
      if (r == 0)
        {
          if (kct_tc_finish (&it->tc) != 0)
            return failf (it, _ ("the times of this rank do not end where its calls do"));
          return 0;
        }
      it->poll_calls = it->poll_i = 0;
      if (poll)
        {
          uint64_t s = 0, k = 0, in = 0, e = 0;
          if (kct_tc_poll (&it->tc, leaf, &s, &k, &in, &e) != 0)
            return failf (it, _ ("the times of this rank are corrupt"));
          it->poll_calls = k;
          it->poll_start = s;
          it->poll_end = e;
          it->poll_in = in;
        }
    }
  if (leaf >= it->t->n_leaves)
    return failf (it, _ ("leaf %u does not exist"), leaf);
  it->leaf_id = leaf;
  it->leaf = kct_leaf (it->t, leaf, &it->leaf_n);
  it->leaf_pos = 0;
  it->mid = 1;
  if (it->poll_calls > 0)
    {
      uint64_t s, e;
      poll_call (it, it->poll_i, &s, &e);
      if (it->cap_slot_t < 2)
        {
          uint64_t *n = realloc (it->slot_t, sizeof *n * 2);
          if (n == NULL)
            return failf (it, _ ("out of memory"));
          it->slot_t = n;
          it->cap_slot_t = 2;
        }
      it->slot_t[0] = s;
      it->slot_t[1] = e;
      it->n_slot_t = 2;
      return 1;
    }
  uint32_t k = kct_leaf_slots (it->leaf, it->leaf_n, NULL);
  if (k > it->cap_slot_t)
    {
      uint64_t *n = realloc (it->slot_t, sizeof *n * k);
      if (n == NULL)
        return failf (it, _ ("out of memory"));
      it->slot_t = n;
      it->cap_slot_t = k;
    }
  if (kct_tc_leaf (&it->tc, leaf, it->leaf, it->leaf_n, it->slot_t) != 0)
    return failf (it, _ ("the times of this rank are corrupt"));
  it->n_slot_t = k;
  return 1;
}

static int
slot_set (KctReplay *it, uint64_t slot, uint64_t id)
{
  if (slot >= MAX_SLOTS)
    return failf (it, _ ("request slot %llu out of range"), (unsigned long long)slot);
  if (slot >= it->n_slot)
    {
      uint32_t  n = (uint32_t)slot + 16;
      uint64_t *s = realloc (it->slot_id, sizeof *s * n);
      if (s == NULL)
        return failf (it, _ ("out of memory"));
      memset (s + it->n_slot, 0, sizeof *s * (n - it->n_slot));
      it->slot_id = s;
      it->n_slot = n;
    }
  it->slot_id[slot] = id;
  return 0;
}

static uint64_t
slot_take (KctReplay *it, uint64_t slot)
{
  if (slot < it->n_slot && it->slot_id[slot] != 0)
    {
      uint64_t id = it->slot_id[slot];
      it->slot_id[slot] = 0;
      return id;
    }
  /* a completion whose start was not recorded: an id of its own */
  return it->next_request++;
}

static int next_event (KctReplay *it, KctEvent *ev);

static int
cpu_advance (KctReplay *it)
{
  int r = kct_cpu_read (&it->cpu, &it->cpu_pos, &it->cpu_val, &it->cpu_wait, &it->cpu_where);
  if (r < 0)
    return failf (it, _ ("the CPU samples of this rank cannot be read"));
  it->cpu_have = r == 1;
  return 0;
}

void
kct_replay_cpu (KctReplay *it)
{
  if (it == NULL || it->failed || it->cpu_on)
    return;
  it->cpu_on = 1;
  kct_cpu_reader (&it->cpu, kct_cpu_find (it->t, it->rank));
  cpu_advance (it);
}

int
kct_replay_next (KctReplay *it, KctEvent *ev)
{
  if (it->failed)
    return -1;
  if (it->cpu_on && it->cpu_have && it->cpu_pos == it->real)
    {
      /* a sample: the time of the event it stands before */
      if (!it->held)
        {
          int r = next_event (it, &it->held_ev);
          if (r < 0)
            return -1;
          if (r == 0)
            return failf (it, _ ("a CPU sample after the last event"));
          it->held = 1;
        }
      memset (ev, 0, sizeof *ev);
      ev->type = KCT_EV_CPU;
      ev->time = it->held_ev.time;
      ev->cpu = it->cpu_val;
      ev->wait = it->cpu_wait;
      ev->where = it->cpu_where;
      if (cpu_advance (it) != 0)
        return -1;
      it->count++;
      return 1;
    }
  if (it->held)
    {
      *ev = it->held_ev;
      it->held = 0;
    }
  else
    {
      int r = next_event (it, ev);
      if (r == 0 && it->cpu_on && it->cpu_have)
        return failf (it, _ ("a CPU sample after the last event"));
      if (r <= 0)
        return r;
    }
  it->real++;
  it->count++;
  return 1;
}

static int
next_event (KctReplay *it, KctEvent *ev)
{
  if (it->failed)
    return -1;
  if (it->ended)
    return 0;
  if (it->leaf == NULL || it->leaf_pos >= it->leaf_n)
    {
      int r = start_leaf (it);
      if (r < 0)
        return -1;
      if (r == 0)
        {
          it->ended = 1;
          return 0;
        }
    }
  const KctRaw *r = &it->leaf[it->leaf_pos++];
  memset (ev, 0, sizeof *ev);
  ev->type = r->type;
  uint64_t rel = it->slot_t[0];
  if (it->poll_calls > 0)
    rel = r->at == KCT_AT_START ? it->slot_t[0] : it->slot_t[1];
  else if (r->at == KCT_AT_END)
    rel = it->slot_t[it->n_slot_t - 1];
  else if (r->at == KCT_AT_MID && it->mid < it->n_slot_t)
    rel = it->slot_t[it->mid++];
  ev->time = it->base + rel;
  if (ev->time < it->t_last)
    ev->time = it->t_last;
  it->t_last = ev->time;
  switch (r->type)
    {
    case KCT_RAW_ENTER:
    case KCT_RAW_LEAVE:
      ev->region = r->a;
      break;
    case KCT_RAW_SEND:
    case KCT_RAW_RECV:
    case KCT_RAW_ISEND:
    case KCT_RAW_IRECV:
      {
        const Resolved *c = find_comm (it, r->a);
        if (c == NULL)
          return failf (it, _ ("communicator %u is unknown to this rank"), r->a);
        int64_t peer = (int64_t)c->me + r->peer;
        if (peer < 0 || peer >= (int64_t)c->peer_size)
          return failf (it, _ ("a peer outside communicator %u"), r->a);
        ev->comm = c->gid;
        ev->peer = (uint32_t)peer;
        ev->peer_world = kct_comms_member (it->comms, c->gid, c->peer_b, (uint32_t)peer);
        ev->tag = r->tag;
        ev->bytes = r->bytes;
        if (r->type == KCT_RAW_ISEND)
          {
            ev->request = it->next_request++;
            if (slot_set (it, r->x, ev->request) != 0)
              return -1;
          }
        else if (r->type == KCT_RAW_IRECV)
          ev->request = slot_take (it, r->x);
        break;
      }
    case KCT_RAW_IRECV_REQUEST:
    case KCT_RAW_NBC_REQUEST:
      ev->request = it->next_request++;
      if (slot_set (it, r->x, ev->request) != 0)
        return -1;
      break;
    case KCT_RAW_ISEND_COMPLETE:
    case KCT_RAW_REQUEST_CANCELLED:
      ev->request = slot_take (it, r->x);
      break;
    case KCT_RAW_COLL_END:
    case KCT_RAW_NBC_COMPLETE:
      {
        const Resolved *c = find_comm (it, r->a);
        if (c == NULL)
          return failf (it, _ ("communicator %u is unknown to this rank"), r->a);
        ev->comm = c->gid;
        ev->op = r->op;
        ev->peer = r->peer < 0 ? UINT32_MAX : (uint32_t)r->peer;
        ev->bytes = r->bytes;
        if (r->type == KCT_RAW_COLL_END)
          ev->received = r->x;
        else
          {
            ev->received = r->y;
            ev->request = slot_take (it, r->x);
          }
        break;
      }
    case KCT_RAW_PROGRAM_END:
      ev->status = (int64_t)r->bytes;
      break;
    default:
      break;
    }
  return 1;
}
