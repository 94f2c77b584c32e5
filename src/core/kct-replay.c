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
#define MAX_DEPTH (1u << 16) /* loop nesting */

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
  uint32_t body, pos, done;
} Frame;

typedef struct
{
  uint32_t local_id;
  uint32_t gid;
  uint32_t me;        /* own rank in the communicator (in the own group) */
  uint32_t peer_size; /* ranks a peer is counted among (the other group of an inter-comm) */
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

  Frame   *fr;
  uint32_t n_fr, cap_fr;

  /* the current leaf */
  const KctRaw *leaf;
  uint32_t      leaf_id, leaf_n, leaf_pos;
  uint64_t      t_start, t_end, t_last;
  uint32_t      prev; /* previous leaf (KCT_NONE before the first) */
  uint64_t      prev_end;
  uint64_t      poll_left; /* further calls of the current poll run */

  uint64_t *pair_draws; /* per pair of the group: draws so far */
  uint64_t *pair_n;     /* draws a rank makes (0 = not computed yet) */
  uint64_t *pair_step;
  uint32_t  member;     /* the rank's position in its group */
  int       first_done;     /* the first MPI call was replayed */
  uint64_t  last_left;      /* occurrences of the group's last-call leaf still to come */
  uint64_t *poll_draws; /* per poll histogram of the group */

  Resolved *res;
  uint32_t  n_res;

  uint64_t *slot_id;
  uint32_t  n_slot;
  uint64_t  next_request;
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
          if (!dup)
            it->res[it->n_res++] = (Resolved){ c->local_id, gid + hit, me, ps };
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
  it->prev = KCT_NONE;
  it->next_request = 1;
  for (uint32_t g = 0; g < t->n_groups && it->g == NULL; g++)
    if (kct_list_contains_sorted (&t->groups[g].ranks, rank))
      it->g = &t->groups[g];
  if (it->g == NULL || it->g->seq >= t->n_bodies)
    {
      failf (it, _ ("no group holds this rank"));
      return it;
    }
  it->pair_draws = calloc ((size_t)it->g->n_pairs + 1, sizeof *it->pair_draws);
  it->pair_n = calloc ((size_t)it->g->n_pairs + 1, sizeof *it->pair_n);
  it->pair_step = calloc ((size_t)it->g->n_pairs + 1, sizeof *it->pair_step);
  for (uint32_t lo = 0, hi = it->g->ranks.n; lo < hi;)
    {
      uint32_t mid = (lo + hi) / 2;
      if (it->g->ranks.v[mid] < rank)
        lo = mid + 1;
      else
        hi = it->member = mid;
    }
  it->poll_draws = calloc ((size_t)it->g->n_polls + 1, sizeof *it->poll_draws);
  it->fr = malloc (sizeof *it->fr * 16);
  it->cap_fr = 16;
  if (it->pair_draws == NULL || it->pair_n == NULL || it->pair_step == NULL || it->poll_draws == NULL || it->fr == NULL || resolve_comms (it) != 0)
    {
      failf (it, _ ("out of memory"));
      return it;
    }
  it->fr[0] = (Frame){ it->g->seq, 0, 0 };
  it->n_fr = 1;
  if (it->g->last_call < t->n_leaves)
    {
      uint64_t *runs = kct_group_leaf_runs (t, (uint32_t)(it->g - t->groups));
      it->last_left = runs ? runs[it->g->last_call] : 0;
      free (runs);
    }
  return it;
}

void
kct_replay_free (KctReplay *it)
{
  if (it == NULL)
    return;
  free (it->fr);
  free (it->pair_draws);
  free (it->pair_n);
  free (it->pair_step);
  free (it->poll_draws);
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

/* Next leaf atom from the loop structure: 1 = *leaf set, 0 = end, -1 = error. */
static int
next_atom (KctReplay *it, uint32_t *leaf, int *poll)
{
  const KctTrace *t = it->t;
  while (it->n_fr > 0)
    {
      Frame         *f = &it->fr[it->n_fr - 1];
      uint32_t       n;
      const KctElem *e = kct_body (t, f->body, &n);
      if (f->pos >= n)
        {
          it->n_fr--;
          if (it->n_fr == 0)
            return 0;
          Frame         *p = &it->fr[it->n_fr - 1];
          uint32_t       pn;
          const KctElem *pe = kct_body (t, p->body, &pn) + p->pos;
          if (++p->done >= pe->count)
            {
              p->pos++;
              p->done = 0;
            }
          continue;
        }
      KctElem x = e[f->pos];
      if (x.ref & KCT_REF_BODY)
        {
          if (x.count == 0)
            {
              f->pos++;
              continue;
            }
          if (it->n_fr >= MAX_DEPTH)
            return failf (it, _ ("loops nested deeper than %u"), MAX_DEPTH);
          if (it->n_fr == it->cap_fr)
            {
              Frame *nf = realloc (it->fr, sizeof *nf * it->cap_fr * 2);
              if (nf == NULL)
                return failf (it, _ ("out of memory"));
              it->fr = nf;
              it->cap_fr *= 2;
            }
          it->fr[it->n_fr++] = (Frame){ KCT_REF_ID (x.ref), 0, 0 };
          continue;
        }
      *leaf = KCT_REF_ID (x.ref);
      *poll = (x.ref & KCT_REF_POLL) != 0;
      if (*poll || ++f->done >= x.count)
        {
          f->pos++;
          f->done = 0;
        }
      if (!*poll && x.count == 0)
        continue;
      return 1;
    }
  return 0;
}

/* Starts the next leaf occurrence; 0 = end of the sequence. */
static int
start_leaf (KctReplay *it)
{
  uint32_t leaf = KCT_NONE;
  if (it->poll_left > 0)
    {
      it->poll_left--;
      leaf = it->leaf_id;
    }
  else
    {
      int poll = 0;
      int r = next_atom (it, &leaf, &poll);
      if (r <= 0)
        return r;
      if (poll)
        {
          const KctPollHist *ph = kct_group_find_poll (it->g, leaf);
          uint64_t           calls = 1;
          if (ph != NULL)
            {
              uint64_t n = kct_hist_count (&ph->count) / it->g->ranks.n;
              uint32_t k = (uint32_t)(ph - it->g->polls);
              uint32_t m = (uint32_t)(((uint64_t)(k + 1) * 2246822519u) % it->g->ranks.n);
              calls = kct_hist_draw (&ph->count, it->poll_draws[k]++, n, kct_spread_step (n), m,
                                     it->g->ranks.n);
              if (calls == 0)
                calls = 1;
            }
          it->poll_left = calls - 1;
        }
    }
  if (leaf >= it->t->n_leaves)
    return failf (it, _ ("leaf %u does not exist"), leaf);
  /* gap and duration: the i-th draw of this pair's histograms */
  uint64_t       gap = 0, dur = 0;
  const KctPair *p = kct_group_find_pair (it->g, it->prev, leaf);
  if (p != NULL)
    {
      uint32_t k = (uint32_t)(p - it->g->pairs);
      uint64_t i = it->pair_draws[k]++;
      if (it->pair_n[k] == 0)
        {
          /* draws per rank: the pair's occurrences shared by the group's ranks */
          it->pair_n[k] = kct_hist_count (&p->dur) / it->g->ranks.n;
          if (it->pair_n[k] == 0)
            it->pair_n[k] = 1;
          it->pair_step[k] = kct_spread_step (it->pair_n[k]);
        }
      /* The ranks of a group draw the same times (each draw the mean of a block of the
       * pair's values, so their sums are the group's mean): drawn independently, one rank gets a
       * long computation and then also a long wait that in the run followed a short one,
       * and ends after everybody.  Only where the ranks start (the first pair) is each its
       * own, like the ends of MPI_Init and MPI_Finalize (the anchors). */
      uint32_t R = it->g->ranks.n;
      if (p->prev == KCT_NONE)
        {
          gap = kct_hist_draw (&p->gap, i, it->pair_n[k], it->pair_step[k], it->member, R);
          dur = kct_hist_draw (&p->dur, i, it->pair_n[k], it->pair_step[k], it->member, R);
        }
      else
        {
          gap = kct_hist_draw_mean (&p->gap, i, it->pair_n[k], it->pair_step[k], R);
          dur = kct_hist_draw_mean (&p->dur, i, it->pair_n[k], it->pair_step[k], R);
        }
    }
  uint64_t base = it->prev == KCT_NONE ? it->t->h.global_start : it->prev_end;
  it->t_start = base + gap;
  if (it->t_start < it->t_last)
    it->t_start = it->t_last;
  it->t_end = it->t_start + dur;
  /* MPI_Init and MPI_Finalize end together on all ranks: at an anchor, not after a sum */
  const KctHist *anchor = NULL;
  if (leaf == it->g->first_call && !it->first_done)
    {
      it->first_done = 1;
      anchor = &it->g->first_end;
    }
  if (leaf == it->g->last_call && it->last_left > 0 && --it->last_left == 0)
    anchor = &it->g->last_end;
  if (anchor != NULL && kct_hist_count (anchor) > 0)
    {
      /* MPI_Init ends for the whole group at the group's mean (from there on its ranks share
       * one timeline, the group's mean, which then cannot run past any rank's own end);
       * MPI_Finalize ends for each rank where one of the recorded ranks' did */
      uint64_t end = it->t->h.global_start
                     + (anchor == &it->g->first_end
                            ? kct_hist_draw_mean (anchor, 0, 1, 1, it->g->ranks.n)
                            : kct_hist_draw (anchor, 0, 1, 1, it->member, it->g->ranks.n));
      if (end > it->t_start)
        it->t_end = end;
      else
        it->t_end = it->t_start;
    }
  it->leaf_id = leaf;
  it->leaf = kct_leaf (it->t, leaf, &it->leaf_n);
  it->leaf_pos = 0;
  it->prev = leaf;
  it->prev_end = it->t_end;
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

int
kct_replay_next (KctReplay *it, KctEvent *ev)
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
  ev->time = r->at == KCT_AT_START ? it->t_start
             : r->at == KCT_AT_END ? it->t_end
                                   : it->t_start + (it->t_end - it->t_start) / 2;
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
      ev->request = it->next_request++;
      if (slot_set (it, r->x, ev->request) != 0)
        return -1;
      break;
    case KCT_RAW_ISEND_COMPLETE:
    case KCT_RAW_REQUEST_CANCELLED:
      ev->request = slot_take (it, r->x);
      break;
    case KCT_RAW_COLL_END:
      {
        const Resolved *c = find_comm (it, r->a);
        if (c == NULL)
          return failf (it, _ ("communicator %u is unknown to this rank"), r->a);
        ev->comm = c->gid;
        ev->op = r->op;
        ev->peer = r->peer < 0 ? UINT32_MAX : (uint32_t)r->peer;
        ev->bytes = r->bytes;
        ev->received = r->x;
        break;
      }
    case KCT_RAW_PROGRAM_END:
      ev->status = (int64_t)r->bytes;
      break;
    default:
      break;
    }
  it->count++;
  return 1;
}
