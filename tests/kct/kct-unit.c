/* kct-unit.c: the compressed-trace model without MPI — loop folding (with and without the
 * expectation fast path), expansion, encoding, corrupt input, rank lists, merging,
 * communicator families, poll aggregation, the time grid and its error bound, timelines and
 * the mean of the ranks that keep none of their own. */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kct-format.h"
#include "kct-replay.h"

void kct_rank_disable_expectation (KctRank *r);

enum
{
  N_CALLS = 8,         /* regions 0..7: MPI calls */
  POLL_REGION = N_CALLS /* region 8: a test that finds nothing */
};

static KctTrace *
new_trace (void)
{
  KctTrace *t = kct_trace_new ();
  for (int i = 0; i <= POLL_REGION; i++)
    {
      char      name[32];
      KctRegion r = { 0 };
      g_snprintf (name, sizeof name, i == POLL_REGION ? "MPI_Test" : "MPI_Call%d", i);
      r.name = name;
      r.flags = KCT_REGION_CALL | (i == POLL_REGION ? KCT_REGION_POLL : 0);
      g_assert_cmpuint (kct_region_add (t, &r), ==, (guint)i);
    }
  return t;
}

static KctRank *
new_rank (KctTrace *t, uint32_t rank)
{
  KctRank *r = kct_rank_new (t, rank);
  g_assert_nonnull (r);
  for (uint32_t i = 0; i < t->n_regions; i++)
    kct_rank_region_flags (r, i, t->regions[i].flags);
  return r;
}

/* one MPI call of region @region taking @dur ticks after a gap of @gap */
static void
call (KctRank *r, uint64_t *now, uint32_t region, uint64_t gap, uint64_t dur)
{
  KctRaw e;
  *now += gap;
  memset (&e, 0, sizeof e);
  e.type = KCT_RAW_ENTER;
  e.a = region;
  e.tag = 1000 + region;
  g_assert_cmpint (kct_rank_record (r, *now, &e), ==, 0);
  *now += dur;
  memset (&e, 0, sizeof e);
  e.type = KCT_RAW_LEAVE;
  e.a = region;
  g_assert_cmpint (kct_rank_record (r, *now, &e), ==, 0);
}

/* random nested loops over regions 0..N_CALLS-1 (and polls, region POLL_REGION) */
static void
gen (GRand *rng, GArray *out, int depth, int allow_polls)
{
  int items = g_rand_int_range (rng, 1, 5);
  for (int i = 0; i < items; i++)
    {
      int kind = g_rand_int_range (rng, 0, 10);
      if (kind < 4 && depth < 4)
        {
          GArray *body = g_array_new (FALSE, FALSE, sizeof (guint32));
          gen (rng, body, depth + 1, allow_polls);
          int count = g_rand_int_range (rng, 1, 7);
          for (int c = 0; c < count; c++)
            g_array_append_vals (out, body->data, body->len);
          g_array_free (body, TRUE);
        }
      else if (kind == 9 && allow_polls)
        {
          guint32 p = POLL_REGION;
          int     n = 3; /* constant run length: the expansion is then exact */
          for (int c = 0; c < n; c++)
            g_array_append_val (out, p);
        }
      else
        {
          guint32 a = (guint32)g_rand_int_range (rng, 0, N_CALLS);
          g_array_append_val (out, a);
        }
    }
}

/* the regions of the ENTER events one rank replays */
static GArray *
replay_regions (const KctTrace *t, uint32_t rank)
{
  char      err[256];
  KctComms *comms = kct_comms_new (t, err, sizeof err);
  g_assert_nonnull (comms);
  KctReplay *it = kct_replay_new (t, comms, rank);
  GArray    *got = g_array_new (FALSE, FALSE, sizeof (guint32));
  KctEvent   ev;
  int        r;
  while ((r = kct_replay_next (it, &ev)) == 1)
    if (ev.type == KCT_RAW_ENTER)
      {
        /* by name: kct_finish renumbers regions */
        const char *name = t->regions[ev.region].name;
        guint32     id = strcmp (name, "MPI_Test") == 0 ? POLL_REGION
                                                     : (guint32)atoi (name + strlen ("MPI_Call"));
        g_array_append_val (got, id);
      }
  if (r < 0)
    g_error ("replay: %s", kct_replay_error (it));
  kct_replay_free (it);
  kct_comms_free (comms);
  return got;
}

/* a canonical text for a body tree */
static void
print_body (const KctTrace *t, uint32_t b, GString *s)
{
  uint32_t       n;
  const KctElem *e = kct_body (t, b, &n);
  g_string_append_c (s, '[');
  for (uint32_t i = 0; i < n; i++)
    {
      if (i)
        g_string_append_c (s, ' ');
      uint32_t id = KCT_REF_ID (e[i].ref);
      if (e[i].ref & KCT_REF_BODY)
        print_body (t, id, s);
      else
        {
          uint32_t      m;
          const KctRaw *raw = kct_leaf (t, id, &m);
          g_string_append_printf (s, "%s%u", (e[i].ref & KCT_REF_POLL) ? "p" : "L", raw[0].a);
        }
      if (!(e[i].ref & KCT_REF_POLL))
        g_string_append_printf (s, "x%u", e[i].count);
    }
  g_string_append_c (s, ']');
}


static char *
record (const GArray *seq, int expect, KctTrace **out)
{
  KctTrace *t = new_trace ();
  KctRank  *r = new_rank (t, 0);
  if (!expect)
    kct_rank_disable_expectation (r);
  uint64_t now = 100;
  for (guint i = 0; i < seq->len; i++)
    call (r, &now, g_array_index (seq, guint32, i), 10, 5);
  g_assert_cmpint (kct_rank_end (r, 0, 100), ==, 0);
  kct_rank_free (r);
  GString *s = g_string_new (NULL);
  print_body (t, t->groups[0].seq, s);
  *out = t;
  return g_string_free (s, FALSE);
}

static size_t
encoded_size (KctTrace *t)
{
  uint8_t *buf;
  size_t   len;
  g_assert_cmpint (kct_finish (t), ==, 0);
  g_assert_cmpint (kct_encode (t, &buf, &len), ==, 0);
  g_free (buf);
  return len;
}

static void
test_fold_roundtrip (void)
{
  GRand *rng = g_rand_new_with_seed (42);
  int    n_differ = 0;
  size_t size_fast = 0, size_slow = 0;
  for (int round = 0; round < 2000; round++)
    {
      GArray *seq = g_array_new (FALSE, FALSE, sizeof (guint32));
      gen (rng, seq, 0, round % 2);
      KctTrace *fast, *slow;
      char     *a = record (seq, 1, &fast);
      char     *b = record (seq, 0, &slow);
      /* The expectation is a shortcut that takes the inner loop's next iteration where the
       * general rules might close an outer loop first: the structure may differ, the
       * expansion may not, and the result is about as small. */
      if (strcmp (a, b) != 0)
        n_differ++;
      GArray *before = replay_regions (fast, 0);
      size_fast += encoded_size (fast);
      GArray *after = replay_regions (fast, 0);
      g_assert_cmpuint (before->len, ==, after->len);
      g_assert_cmpmem (before->data, before->len * 4, after->data, after->len * 4);
      g_array_free (before, TRUE);
      g_array_free (after, TRUE);
      size_slow += encoded_size (slow);
      /* the same calls, polls included: each run's number of calls is in the rank's times */
      GArray *slow_got = replay_regions (slow, 0);
      GArray *got = replay_regions (fast, 0);
      g_assert_cmpuint (got->len, ==, seq->len);
      g_assert_cmpmem (got->data, got->len * 4, seq->data, seq->len * 4);
      g_assert_cmpmem (slow_got->data, slow_got->len * 4, seq->data, seq->len * 4);
      g_array_free (got, TRUE);
      g_array_free (slow_got, TRUE);
      g_free (a);
      g_free (b);
      kct_trace_free (fast);
      kct_trace_free (slow);
      g_array_free (seq, TRUE);
    }
  g_rand_free (rng);
  if (g_test_verbose ())
    g_printerr ("structures differ in %d of 2000; bytes %zu with, %zu without the expectation\n",
                n_differ, size_fast, size_slow);
  g_assert_cmpfloat ((double)size_fast, <, 1.05 * (double)size_slow);
}

/* nested loops: the structure and the recorder's memory do not grow with the run */
static void
run_timesteps (int steps, uint64_t abs, KctTrace **tp, size_t *memory)
{
  KctTrace *t = new_trace ();
  t->h.time_abs = abs; /* 1: every time below 2^17 ticks exact */
  KctRank  *r = new_rank (t, 0);
  uint64_t  now = 0;
  call (r, &now, 0, 1, 1);
  for (int s = 0; s < steps; s++)
    {
      for (int i = 0; i < 6; i++)
        {
          call (r, &now, 1, 100, 20);
          call (r, &now, 2, 3, 40);
        }
      call (r, &now, 3, 500, 7);
      for (int k = 0; k < 4; k++)
        call (r, &now, POLL_REGION, 1, 1);
      call (r, &now, 4, 2, 2);
    }
  call (r, &now, 5, 1, 1);
  *memory = kct_rank_memory (r);
  g_assert_cmpint (kct_rank_end (r, 0, 0), ==, 0);
  kct_rank_free (r);
  *tp = t;
}

static void
test_fold_bounded (void)
{
  KctTrace *small, *big;
  size_t    m_small, m_big;
  run_timesteps (100, 0, &small, &m_small);
  run_timesteps (100000, 0, &big, &m_big);
  GString *a = g_string_new (NULL), *b = g_string_new (NULL);
  print_body (small, small->groups[0].seq, a);
  print_body (big, big->groups[0].seq, b);
  g_assert_cmpstr (a->str, ==, "[L0x1 [[L1x1 L2x1]x6 L3x1 p8 L4x1]x100 L5x1]");
  g_assert_cmpstr (b->str, ==, "[L0x1 [[L1x1 L2x1]x6 L3x1 p8 L4x1]x100000 L5x1]");
  /* the structure does not grow; the times (3.6 million, all below the 1 us grid step here:
   * stored times follow the true ones, so their codes alternate) cost under a quarter of a
   * bit each, and the recorder holds little more than those bytes */
  const KctTimeline *tl = &big->groups[0].tl[0];
  if (g_test_verbose ())
    g_printerr ("memory %zu / %zu, timeline %zu bytes\n", m_small, m_big, tl->n_bytes);
  g_assert_cmpuint (tl->n_bytes, <, 3600000 / 4 / 8);
  g_assert_cmpuint (m_big, <, m_small + 2 * tl->n_bytes + 16 * 1024);
  uint8_t *buf;
  size_t   len;
  g_assert_cmpint (kct_encode (big, &buf, &len), ==, 0);
  g_assert_cmpuint (len, <, tl->n_bytes + 2048);
  g_free (buf);
  /* polls: 4 per run, all counted */
  uint64_t calls[16] = { 0 };
  kct_group_calls (big, 0, calls);
  g_assert_cmpuint (calls[POLL_REGION], ==, 400000);
  g_assert_cmpuint (calls[1], ==, 600000);
  g_assert_cmpuint (kct_group_events (big, 0), ==, 2 * (2 + 100000 * 18));
  g_string_free (a, TRUE);
  g_string_free (b, TRUE);
  kct_trace_free (small);
  kct_trace_free (big);
}

/* times below 2^17 grid steps are kept exactly */
static void
test_replay_times (void)
{
  KctTrace *t;
  size_t    mem;
  run_timesteps (50, 1, &t, &mem);
  char       err[256];
  KctComms  *comms = kct_comms_new (t, err, sizeof err);
  KctReplay *it = kct_replay_new (t, comms, 0);
  KctEvent   ev;
  uint64_t   now = 0, n = 0;
  /* the same schedule as run_timesteps, checked event by event */
  uint64_t want[4096];
  guint    k = 0;
#define EXPECT_CALL(gap, dur)                                                                      \
  do                                                                                               \
    {                                                                                              \
      now += (gap);                                                                                \
      want[k++] = now;                                                                             \
      now += (dur);                                                                                \
      want[k++] = now;                                                                             \
    }                                                                                              \
  while (0)
  EXPECT_CALL (1, 1);
  for (int s = 0; s < 50 && k < 4000; s++)
    {
      for (int i = 0; i < 6; i++)
        {
          EXPECT_CALL (100, 20);
          EXPECT_CALL (3, 40);
        }
      EXPECT_CALL (500, 7);
      for (int p = 0; p < 4; p++)
        EXPECT_CALL (1, 1);
      EXPECT_CALL (2, 2);
    }
  EXPECT_CALL (1, 1);
  while (kct_replay_next (it, &ev) == 1)
    {
      g_assert_cmpuint (n, <, k);
      g_assert_cmpuint (ev.time, ==, want[n]);
      n++;
    }
  g_assert_cmpuint (n, ==, k);
  g_assert_null (kct_replay_error (it));
  kct_replay_free (it);
  kct_comms_free (comms);
  kct_trace_free (t);
}

/* a trace with a bit of everything: several ranks, communicators, a topology, hosts */
static uint32_t sample_timelines; /* 0: the default */
/* CPU samples (format version 4): before the Enter of the second call of iteration i when
 * i % 3 == rank % 3 (CPU time 1000 i + rank, wait 7 i, unknown on rank 1, the CPU as
 * sample_where: version 5), and one after the last event (dropped); host properties */
static gboolean sample_cpu;
/* ranks from this one on sample without the CPU ids, as a version 4 collector's */
static int sample_plain_from = 1 << 30;

static uint64_t
sample_wait (int rank, int it)
{
  return rank == 1 ? UINT64_MAX : 7 * (uint64_t)it;
}

/* the CPU a sample ran on: unknown throughout on rank 2, at first on rank 3, then moving
 * back and forth (deltas of both signs, from and to unknown) */
static uint64_t
sample_where (int rank, int it)
{
  if (rank == 2 || (rank == 3 && it < 4))
    return UINT64_MAX;
  return 4 * (uint64_t)rank + (uint64_t)(it / 4 % 2) * 70;
}

/* Ranks [@first, @last) of @ranks, merged as the collector merges them (partial traces, by
 * key), finished when @finish.  @aliased: one more communicator, the same one on every rank
 * (key 500), which odd ranks know by local id 3 and even ranks by 2, as when only the even
 * ranks had made one communicator before it (HDF5's test ph5example: the dup of a split half). */
static KctTrace *
sample_trace_range (int ranks, int first, int last, gboolean finish, gboolean aliased)
{
  KctTrace *all = NULL;
  for (int rank = first; rank < last; rank++)
    {
      KctTrace *t = new_trace ();
      t->h.n_ranks = (uint32_t)ranks;
      t->h.flags |= KCT_FILE_PARTIAL;
      t->h.time_abs = 1;
      t->h.timelines = sample_timelines;
      KctRank  *r = new_rank (t, (uint32_t)rank);
      uint64_t  now = 1000 + (uint64_t)rank;
      /* a ring on local communicator 0 (world), an isend/irecv pair, a collective */
      for (int it = 0; it < 10; it++)
        {
          KctRaw e;
          memset (&e, 0, sizeof e);
          e.type = KCT_RAW_ENTER;
          e.a = 0;
          kct_rank_record (r, now, &e);
          memset (&e, 0, sizeof e);
          e.type = KCT_RAW_ISEND;
          e.a = 0;
          e.peer = rank == ranks - 1 ? 1 - ranks : 1;
          e.tag = 7;
          e.bytes = 8;
          e.x = 1000 + (uint64_t)it * 2;
          kct_rank_record (r, now, &e);
          memset (&e, 0, sizeof e);
          e.type = KCT_RAW_LEAVE;
          e.a = 0;
          kct_rank_record (r, now + 3, &e);
          now += 50;
          if (sample_cpu && it % 3 == rank % 3)
            g_assert_cmpint (kct_rank_cpu (r, 1000 * (uint64_t)it + (uint64_t)rank, sample_wait (rank, it),
                                                sample_where (rank, it)), ==, 0);
          memset (&e, 0, sizeof e);
          e.type = KCT_RAW_ENTER;
          e.a = 1;
          kct_rank_record (r, now, &e);
          memset (&e, 0, sizeof e);
          e.type = KCT_RAW_ISEND_COMPLETE;
          e.x = 1000 + (uint64_t)it * 2;
          kct_rank_record (r, now + 9, &e);
          memset (&e, 0, sizeof e);
          e.type = KCT_RAW_RECV;
          e.a = 1; /* local id 1: the rank's own MPI_COMM_SELF-like communicator */
          e.peer = 0;
          e.tag = 3;
          e.bytes = 4;
          kct_rank_record (r, now + 9, &e);
          memset (&e, 0, sizeof e);
          e.type = KCT_RAW_LEAVE;
          e.a = 1;
          kct_rank_record (r, now + 9, &e);
          now += 20;
          memset (&e, 0, sizeof e);
          e.type = KCT_RAW_ENTER;
          e.a = 2;
          kct_rank_record (r, now, &e);
          memset (&e, 0, sizeof e);
          e.type = KCT_RAW_COLL_BEGIN;
          kct_rank_record (r, now, &e);
          memset (&e, 0, sizeof e);
          e.type = KCT_RAW_COLL_END;
          e.op = 3;
          e.a = 0;
          e.peer = 0;
          e.bytes = 16;
          e.x = 16 * (uint64_t)ranks;
          kct_rank_record (r, now + 30 + 10 * (uint64_t)rank, &e);
          memset (&e, 0, sizeof e);
          e.type = KCT_RAW_LEAVE;
          e.a = 2;
          kct_rank_record (r, now + 30 + 10 * (uint64_t)rank, &e);
          now += 200;
        }
      if (sample_cpu)
        g_assert_cmpint (kct_rank_cpu (r, 99999, 1, 2), ==, 0); /* no event follows: dropped */
      g_assert_cmpint (kct_rank_end (r, 0, 1000), ==, 0);
      kct_rank_free (r);
      if (sample_cpu)
        t->cpu_flags = KCT_CPU_SAMPLED | KCT_CPU_WAIT | KCT_CPU_WHERE;
      if (sample_cpu && rank >= sample_plain_from)
        {
          KctCpuStream *s = kct_cpu_stream (t, (uint32_t)rank, 0);
          g_assert_nonnull (s);
          g_assert_cmpint (kct_cpu_recode (s, 0), ==, 0);
          t->cpu_flags = KCT_CPU_SAMPLED | KCT_CPU_WAIT;
        }
      KctComm *w = kct_comm_add (t);
      w->key = 1;
      w->local_id = 0;
      for (int k = 0; k < ranks; k++)
        kct_list_add (&w->members, (uint32_t)k);
      kct_list_add (&w->users, (uint32_t)rank);
      KctComm *self = kct_comm_add (t);
      self->key = 100 + (uint64_t)rank;
      self->local_id = 1;
      kct_list_add (&self->members, (uint32_t)rank);
      kct_list_add (&self->users, (uint32_t)rank);
      if (aliased)
        {
          KctComm *d = kct_comm_add (t);
          d->key = 500;
          d->parent_key = 1;
          d->local_id = rank % 2 ? 3 : 2;
          for (int k = 0; k < ranks; k++)
            kct_list_add (&d->members, (uint32_t)k);
          kct_list_add (&d->users, (uint32_t)rank);
        }
      KctTopo *tp = kct_topo_add (t);
      kct_set_string (&tp->name, "grid");
      tp->comm_key = 1;
      tp->ndims = 2;
      tp->dims[0] = (uint32_t)ranks / 2;
      tp->dims[1] = 2;
      kct_list_add (&tp->coord_rank, (uint32_t)rank);
      kct_list_add (&tp->coords, (uint32_t)rank / 2);
      kct_list_add (&tp->coords, (uint32_t)rank % 2);
      KctHost *h = kct_host_add (t, rank < ranks / 2 ? "node-a" : "node-b");
      kct_list_add (&h->ranks, (uint32_t)rank);
      if (sample_cpu)
        {
          h->cpus = rank < ranks / 2 ? 2 : 3;
          h->other_known = rank < ranks / 2;
          h->other_cpu_ns = h->other_known ? 1234 : 0;
          h->other_wall_ns = h->other_known ? 5678 : 0;
        }
      kct_set_string (&t->h.program, "/bin/sample");
      if (all == NULL)
        all = t;
      else
        {
          g_assert_cmpint (kct_merge (all, t), ==, 0);
          kct_trace_free (t);
        }
    }
  if (finish)
    g_assert_cmpint (kct_finish (all), ==, 0);
  return all;
}

static KctTrace *
sample_trace (int ranks)
{
  return sample_trace_range (ranks, 0, ranks, TRUE, FALSE);
}

/* A partial trace (what a rank sends up the collector's merge tree) whose communicator is known
 * by two local ids is readable, and so is the finished trace; before 2026-11-29 the reader
 * looked for an alias's entry by its parent index, which partial traces do not have yet
 * ("communicator 15: an alias of nothing it may name", HDF5's ph5example at 4 ranks). */
static void
test_merge_alias_partial (void)
{
  char      err[256];
  KctTrace *low = sample_trace_range (4, 0, 2, FALSE, TRUE);
  KctTrace *high = sample_trace_range (4, 2, 4, FALSE, TRUE);
  uint8_t  *a;
  size_t    la;
  KctTrace *u = NULL;

  g_assert_cmpint (kct_encode (high, &a, &la), ==, 0);
  if (kct_decode (a, la, &u, err, sizeof err) != 0)
    g_error ("partial trace with an alias: %s", err);
  g_free (a);
  g_assert_cmpint (kct_merge (low, u), ==, 0);
  kct_trace_free (u);
  kct_trace_free (high);
  g_assert_cmpint (kct_finish (low), ==, 0);
  g_assert_cmpint (kct_encode (low, &a, &la), ==, 0);
  g_assert_cmpint (kct_decode (a, la, &u, err, sizeof err), ==, 0);
  g_free (a);
  /* world, the self-like family, the communicator and its alias (the odd ranks' local id 3) */
  g_assert_cmpuint (u->n_comms, ==, 4);
  uint32_t aliases = 0;
  for (uint32_t i = 0; i < u->n_comms; i++)
    if (u->comms[i].flags & KCT_COMM_ALIAS)
      {
        aliases++;
        g_assert_cmpuint (u->comms[i].local_id, ==, 3);
        g_assert_cmpuint (u->comms[i].users.n, ==, 2);
        g_assert_cmpuint (u->comms[u->comms[i].parent].local_id, ==, 2);
      }
  g_assert_cmpuint (aliases, ==, 1);
  kct_trace_free (u);
  kct_trace_free (low);
}

static void
test_merge_groups (void)
{
  KctTrace *t = sample_trace (8);
  /* rank 7 sends "around the corner": a group of its own */
  g_assert_cmpuint (t->n_groups, ==, 2);
  g_assert_cmpuint (t->groups[0].ranks.n, ==, 7);
  g_assert_cmpuint (t->groups[1].ranks.n, ==, 1);
  g_assert_cmpuint (t->groups[1].ranks.v[0], ==, 7);
  /* world and the 8 self-like communicators: two entries */
  g_assert_cmpuint (t->n_comms, ==, 2);
  g_assert_cmpuint (t->comms[1].repeat, ==, 8);
  g_assert_cmpint (t->comms[1].shift, ==, 1);
  g_assert_true (t->topos[0].row_major);
  g_assert_cmpuint (t->topos[0].comm, ==, 0);
  g_assert_cmpuint (t->n_hosts, ==, 2);
  /* every rank its own times (7 and 1 ranks, at most KCT_TIMELINES per group) */
  g_assert_cmpuint (t->groups[0].n_tl, ==, 7);
  g_assert_cmpuint (t->groups[1].n_tl, ==, 1);
  for (uint32_t k = 0; k < 7; k++)
    g_assert_nonnull (kct_group_timeline (&t->groups[0], k));

  /* the replay resolves peers and communicators */
  char       err[256];
  KctComms  *comms = kct_comms_new (t, err, sizeof err);
  g_assert_cmpuint (kct_comms_count (comms), ==, 9);
  for (uint32_t rank = 0; rank < 8; rank++)
    {
      KctReplay *it = kct_replay_new (t, comms, rank);
      KctEvent   ev;
      int        sends = 0, recvs = 0;
      uint64_t   last_req = 0, coll_begin = 0;
      while (kct_replay_next (it, &ev) == 1)
        {
          if (ev.type == KCT_RAW_ISEND)
            {
              g_assert_cmpuint (ev.comm, ==, 0);
              g_assert_cmpuint (ev.peer, ==, (rank + 1) % 8);
              g_assert_cmpuint (ev.request, >, last_req);
              last_req = ev.request;
              sends++;
            }
          if (ev.type == KCT_RAW_ISEND_COMPLETE)
            g_assert_cmpuint (ev.request, ==, last_req);
          if (ev.type == KCT_RAW_RECV)
            {
              /* the rank's own self-like communicator: global id 1 + rank */
              g_assert_cmpuint (ev.comm, ==, 1 + rank);
              g_assert_cmpuint (kct_comms_member (comms, ev.comm, 0, 0), ==, rank);
              g_assert_cmpuint (ev.peer, ==, 0);
              recvs++;
            }
          if (ev.type == KCT_RAW_COLL_END)
            g_assert_cmpuint (ev.received, ==, 128);
          /* each rank's own collective duration, 30 + 10 * rank */
          if (ev.type == KCT_RAW_COLL_BEGIN)
            coll_begin = ev.time;
          if (ev.type == KCT_RAW_COLL_END)
            g_assert_cmpuint (ev.time - coll_begin, ==, 30 + 10 * rank);
        }
      g_assert_null (kct_replay_error (it));
      g_assert_cmpint (sends, ==, 10);
      g_assert_cmpint (recvs, ==, 10);
      kct_replay_free (it);
    }
  kct_comms_free (comms);
  kct_trace_free (t);
}

/* ---- non-blocking collectives (format version 3) ------------------------------------------ */

static void expect_error (const uint8_t *buf, size_t len, const char *part);

/* One rank's calls with non-blocking collectives, @iters times: an Iallreduce (request at the
 * call's start) completed by a Wait 40 + 10·rank ticks later, an Ibcast from root 1 and an
 * Ibarrier completed together by a Waitall in the other order, and an Ibarrier freed (its
 * request ended as cancelled).  Request ids grow by 3 per iteration as the collector's do. */
static void
nbc_calls (KctRank *r, uint32_t rank, uint32_t ranks, int iters, uint64_t *now)
{
  uint64_t id = 77;
  for (int it = 0; it < iters; it++)
    {
      KctRaw e;
#define EV(t_, ...)                                                                                \
  do                                                                                               \
    {                                                                                              \
      memset (&e, 0, sizeof e);                                                                    \
      __VA_ARGS__;                                                                                 \
      g_assert_cmpint (kct_rank_record (r, (t_), &e), ==, 0);                                      \
    }                                                                                              \
  while (0)
      uint64_t a = id++, b = id++, c = id++, d = id++;
      /* MPI_Iallreduce (region 3) */
      EV (*now, e.type = KCT_RAW_ENTER; e.a = 3; e.tag = 13);
      EV (*now, e.type = KCT_RAW_NBC_REQUEST; e.x = a);
      EV (*now + 2, e.type = KCT_RAW_LEAVE; e.a = 3);
      *now += 100;
      /* MPI_Wait (region 4) completes it */
      uint64_t end = *now + 40 + 10 * rank;
      EV (*now, e.type = KCT_RAW_ENTER; e.a = 4; e.tag = 14);
      EV (end, e.type = KCT_RAW_NBC_COMPLETE; e.op = 10 /* ALLREDUCE */; e.a = 0; e.peer = -1;
          e.bytes = 8; e.y = 8; e.x = a);
      EV (end, e.type = KCT_RAW_LEAVE; e.a = 4);
      *now = end + 5;
      /* MPI_Ibcast (region 5), root 1, then MPI_Ibarrier (region 6) */
      EV (*now, e.type = KCT_RAW_ENTER; e.a = 5; e.tag = 15);
      EV (*now, e.type = KCT_RAW_NBC_REQUEST; e.x = b);
      EV (*now + 1, e.type = KCT_RAW_LEAVE; e.a = 5);
      *now += 7;
      EV (*now, e.type = KCT_RAW_ENTER; e.a = 6; e.tag = 16);
      EV (*now, e.type = KCT_RAW_NBC_REQUEST; e.x = c);
      EV (*now + 1, e.type = KCT_RAW_LEAVE; e.a = 6);
      *now += 50;
      /* MPI_Waitall (region 7): the barrier first, then the broadcast */
      end = *now + 30 + 5 * (ranks - 1 - rank);
      EV (*now, e.type = KCT_RAW_ENTER; e.a = 7; e.tag = 17);
      EV (end - 1, e.type = KCT_RAW_NBC_COMPLETE; e.op = 0 /* BARRIER */; e.a = 0; e.peer = -1;
          e.x = c);
      EV (end, e.type = KCT_RAW_NBC_COMPLETE; e.op = 2 /* BCAST */; e.a = 0; e.peer = 1;
          e.bytes = rank == 1 ? 64 * (uint64_t)ranks : 0; e.y = 64; e.x = b);
      EV (end, e.type = KCT_RAW_LEAVE; e.a = 7);
      *now = end + 3;
      /* an Ibarrier on the rank's own communicator (local id 1) whose request is freed */
      EV (*now, e.type = KCT_RAW_ENTER; e.a = 6; e.tag = 16);
      EV (*now, e.type = KCT_RAW_NBC_REQUEST; e.x = d);
      EV (*now + 1, e.type = KCT_RAW_LEAVE; e.a = 6);
      EV (*now + 2, e.type = KCT_RAW_ENTER; e.a = 2; e.tag = 12);
      EV (*now + 2, e.type = KCT_RAW_REQUEST_CANCELLED; e.x = d);
      EV (*now + 3, e.type = KCT_RAW_LEAVE; e.a = 2);
      *now += 20;
#undef EV
    }
}

static KctTrace *
nbc_trace (uint32_t ranks, int iters)
{
  KctTrace *all = NULL;
  for (uint32_t rank = 0; rank < ranks; rank++)
    {
      KctTrace *t = new_trace ();
      t->h.n_ranks = ranks;
      t->h.flags |= KCT_FILE_PARTIAL;
      t->h.time_abs = 1; /* times below 2^17 ticks exact */
      KctRank *r = new_rank (t, rank);
      uint64_t now = 500 + rank;
      nbc_calls (r, rank, ranks, iters, &now);
      g_assert_cmpint (kct_rank_end (r, 0, 500), ==, 0);
      kct_rank_free (r);
      KctComm *w = kct_comm_add (t);
      w->key = 1;
      w->local_id = 0;
      for (uint32_t k = 0; k < ranks; k++)
        kct_list_add (&w->members, k);
      kct_list_add (&w->users, rank);
      KctComm *self = kct_comm_add (t);
      self->key = 100 + rank;
      self->local_id = 1;
      kct_list_add (&self->members, rank);
      kct_list_add (&self->users, rank);
      KctHost *h = kct_host_add (t, "node");
      kct_list_add (&h->ranks, rank);
      kct_set_string (&t->h.program, "/bin/nbc");
      if (all == NULL)
        all = t;
      else
        {
          g_assert_cmpint (kct_merge (all, t), ==, 0);
          kct_trace_free (t);
        }
    }
  g_assert_cmpint (kct_finish (all), ==, 0);
  return all;
}

/* Requests and completions of non-blocking collectives survive folding, merging, encoding and
 * replay exactly: their fields, their times, and which completion ends which request. */
static void
test_nbc_roundtrip (void)
{
  const uint32_t ranks = 3;
  const int      iters = 25;
  KctTrace      *t0 = nbc_trace (ranks, iters);
  uint8_t       *buf;
  size_t         len;
  g_assert_cmpint (kct_encode (t0, &buf, &len), ==, 0);
  g_assert_cmpuint (buf[8], ==, KCT_VERSION);
  KctTrace *t;
  char      err[256];
  g_assert_cmpint (kct_decode (buf, len, &t, err, sizeof err), ==, 0);
  /* folded: every rank's iterations are one loop */
  for (uint32_t g = 0; g < t->n_groups; g++)
    {
      GString *s = g_string_new (NULL);
      print_body (t, t->groups[g].seq, s);
      if (strstr (s->str, "x25") == NULL)
        g_error ("group %u not folded: %s", g, s->str);
      g_string_free (s, TRUE);
    }
  KctComms *comms = kct_comms_new (t, err, sizeof err);
  g_assert_nonnull (comms);
  for (uint32_t rank = 0; rank < ranks; rank++)
    {
      KctReplay *it = kct_replay_new (t, comms, rank);
      KctEvent   ev;
      uint64_t   open[8] = { 0 }; /* request ids of the Iallreduce, Ibcast, Ibarrier, freed one */
      int        n_req = 0, n_done = 0, n_cancel = 0;
      uint64_t   prev = 0, t_req[4] = { 0 };
      while (kct_replay_next (it, &ev) == 1)
        {
          g_assert_cmpuint (ev.time, >=, prev);
          prev = ev.time;
          if (ev.type == KCT_RAW_NBC_REQUEST)
            {
              g_assert_cmpuint (ev.request, !=, 0);
              t_req[n_req % 4] = ev.time;
              open[n_req++ % 4] = ev.request;
            }
          else if (ev.type == KCT_RAW_NBC_COMPLETE)
            {
              n_done++;
              g_assert_cmpuint (ev.comm, ==, 0);
              if (ev.op == 10)
                {
                  g_assert_cmpuint (ev.request, ==, open[0]);
                  g_assert_cmpuint (ev.peer, ==, UINT32_MAX);
                  g_assert_cmpuint (ev.bytes, ==, 8);
                  g_assert_cmpuint (ev.received, ==, 8);
                  /* 102 ticks after the Iallreduce's start, plus 40 + 10 rank: exact */
                  g_assert_cmpuint (ev.time - t_req[0], ==, 100 + 40 + 10 * rank);
                }
              else if (ev.op == 2)
                {
                  g_assert_cmpuint (ev.request, ==, open[1]);
                  g_assert_cmpuint (ev.peer, ==, 1);
                  g_assert_cmpuint (ev.bytes, ==, rank == 1 ? 64 * ranks : 0);
                  g_assert_cmpuint (ev.received, ==, 64);
                }
              else
                {
                  g_assert_cmpuint (ev.op, ==, 0);
                  g_assert_cmpuint (ev.request, ==, open[2]);
                  g_assert_cmpuint (ev.time - t_req[2], ==, 50 + 30 + 5 * (ranks - 1 - rank) - 1);
                }
            }
          else if (ev.type == KCT_RAW_REQUEST_CANCELLED)
            {
              n_cancel++;
              g_assert_cmpuint (ev.request, ==, open[3]);
            }
        }
      g_assert_null (kct_replay_error (it));
      g_assert_cmpint (n_req, ==, 4 * iters);
      g_assert_cmpint (n_done, ==, 3 * iters);
      g_assert_cmpint (n_cancel, ==, iters);
      kct_replay_free (it);
    }
  kct_comms_free (comms);
  /* the encoding is stable */
  uint8_t *again;
  size_t   len2;
  g_assert_cmpint (kct_encode (t, &again, &len2), ==, 0);
  g_assert_cmpmem (buf, len, again, len2);
  g_free (again);
  kct_trace_free (t);
  kct_trace_free (t0);
  g_free (buf);
}

/* Version 2 files (no non-blocking collectives) are still read; a version-2 header on a file
 * with their events is corrupt; older and newer versions are refused by name. */
static void
test_format_versions (void)
{
  KctTrace *plain = sample_trace (4);
  uint8_t  *a;
  size_t    la;
  g_assert_cmpint (kct_encode (plain, &a, &la), ==, 0);
  g_assert_cmpuint (a[8], ==, KCT_VERSION);
  g_assert_cmpuint (KCT_VERSION, ==, 5);
  KctTrace *u = NULL;
  char      err[256];
  /* version 4: the same file but for the samples' CPU ids (none here) */
  {
    uint8_t *v4;
    size_t   l4;
    g_assert_cmpint (kct_encode_version (plain, 4, &v4, &l4), ==, 0);
    g_assert_cmpuint (v4[8], ==, 4);
    g_assert_cmpmem (v4 + 12, l4 - 12, a + 12, la - 12);
    g_free (v4);
  }
  for (uint32_t v = 2; v <= 3; v++)
    {
      uint8_t *old;
      size_t   lo;
      g_assert_cmpint (kct_encode_version (plain, v, &old, &lo), ==, 0);
      g_assert_cmpuint (old[8], ==, v);
      if (kct_decode (old, lo, &u, err, sizeof err) != 0)
        g_error ("a version %u file: %s", v, err);
      g_assert_cmpuint (u->n_leaves, ==, plain->n_leaves);
      g_assert_cmpuint (u->n_cpu, ==, 0);
      kct_trace_free (u);
      /* a version 3 file's hosts lack their CPUs: a version 4 header on it is corrupt */
      old[8] = 4;
      expect_error (old, lo, "section HOST");
      g_free (old);
    }
  a[8] = 1;
  expect_error (a, la, "format version 1, older than this Kubus reads (versions 2 to 5)");
  a[8] = 6;
  expect_error (a, la, "format version 6, newer than this Kubus reads (versions 2 to 5)");
  g_free (a);
  kct_trace_free (plain);

  KctTrace *nbc = nbc_trace (2, 3);
  g_assert_cmpint (kct_encode_version (nbc, 2, &a, &la), ==, 0);
  expect_error (a, la, "unknown event type 14");
  g_free (a);
  kct_trace_free (nbc);
}

/* Format version 4: the CPU samples stand before the events they were taken at, with their
 * values (an unknown wait too), through merge, encoding and replay; a sample no event follows
 * is dropped; the host properties come back; an older version's layout leaves them out; the
 * ranks that replay their group's mean keep no samples. */
static void
test_cpu_roundtrip (void)
{
  sample_cpu = TRUE;
  KctTrace *t0 = sample_trace (4);
  sample_cpu = FALSE;
  uint8_t *buf;
  size_t   len;
  g_assert_cmpint (kct_encode (t0, &buf, &len), ==, 0);
  KctTrace *t;
  char      err[256];
  if (kct_decode (buf, len, &t, err, sizeof err) != 0)
    g_error ("%s", err);
  g_assert_cmpuint (t->cpu_flags, ==, KCT_CPU_SAMPLED | KCT_CPU_WAIT | KCT_CPU_WHERE);
  g_assert_cmpuint (t->n_cpu, ==, 4);
  g_assert_cmpuint (t->n_hosts, ==, 2);
  for (uint32_t h = 0; h < 2; h++)
    {
      const KctHost *ho = &t->hosts[h];
      gboolean       a = strcmp (ho->name, "node-a") == 0;
      g_assert_cmpuint (ho->cpus, ==, a ? 2 : 3);
      g_assert_cmpint (ho->other_known, ==, a);
      g_assert_cmpuint (ho->other_cpu_ns, ==, a ? 1234 : 0);
      g_assert_cmpuint (ho->other_wall_ns, ==, a ? 5678 : 0);
    }
  KctComms *comms = kct_comms_new (t, err, sizeof err);
  g_assert_nonnull (comms);
  for (uint32_t rank = 0; rank < 4; rank++)
    {
      g_assert_cmpuint (kct_cpu_find (t, rank)->n, ==, rank % 3 == 0 ? 4 : 3);
      /* without kct_replay_cpu: the events alone */
      KctReplay *it = kct_replay_new (t, comms, rank);
      KctEvent   ev;
      uint64_t   plain = 0;
      while (kct_replay_next (it, &ev) == 1)
        {
          g_assert_cmpuint (ev.type, !=, KCT_EV_CPU);
          plain++;
        }
      g_assert_null (kct_replay_error (it));
      g_assert_cmpuint (plain, ==, 110);
      kct_replay_free (it);
      it = kct_replay_new (t, comms, rank);
      kct_replay_cpu (it);
      uint64_t real = 0, samples = 0;
      int      pending = -1; /* the iteration of the sample just seen */
      uint64_t pending_time = 0;
      while (kct_replay_next (it, &ev) == 1)
        {
          if (ev.type == KCT_EV_CPU)
            {
              int i = (int)(real / 11);
              g_assert_cmpuint (real % 11, ==, 3); /* after the first call's three events */
              g_assert_cmpint (i % 3, ==, (int)rank % 3);
              g_assert_cmpuint (ev.cpu, ==, 1000 * (uint64_t)i + rank);
              g_assert_cmpuint (ev.wait, ==, sample_wait ((int)rank, i));
              g_assert_cmpuint (ev.where, ==, sample_where ((int)rank, i));
              pending = i;
              pending_time = ev.time;
              samples++;
              continue;
            }
          if (pending >= 0)
            {
              /* the Enter of the second call, at the sample's time */
              g_assert_cmpuint (ev.type, ==, KCT_RAW_ENTER);
              g_assert_cmpuint (ev.region, ==, 1);
              g_assert_cmpuint (ev.time, ==, pending_time);
              pending = -1;
            }
          real++;
        }
      g_assert_null (kct_replay_error (it));
      g_assert_cmpuint (real, ==, 110);
      g_assert_cmpuint (samples, ==, rank % 3 == 0 ? 4 : 3);
      g_assert_cmpuint (kct_replay_count (it), ==, real + samples);
      kct_replay_free (it);
    }
  kct_comms_free (comms);
  /* stable */
  uint8_t *again;
  size_t   len2;
  g_assert_cmpint (kct_encode (t, &again, &len2), ==, 0);
  g_assert_cmpmem (buf, len, again, len2);
  g_free (again);
  /* version 3's layout: no samples, no host CPUs */
  g_assert_cmpint (kct_encode_version (t, 3, &again, &len2), ==, 0);
  KctTrace *v3;
  if (kct_decode (again, len2, &v3, err, sizeof err) != 0)
    g_error ("%s", err);
  g_assert_cmpuint (v3->n_cpu, ==, 0);
  g_assert_cmpuint (v3->cpu_flags, ==, 0);
  g_assert_cmpuint (v3->hosts[0].cpus, ==, 0);
  kct_trace_free (v3);
  g_free (again);
  /* version 4's layout: the samples without their CPUs (unknown when replayed), the rest as
   * it was; a version-4 header on the version-5 file refuses the flag */
  g_assert_cmpint (kct_encode_version (t, 4, &again, &len2), ==, 0);
  g_assert_cmpuint (again[8], ==, 4);
  g_assert_cmpuint (len2, <, len);
  KctTrace *v4;
  if (kct_decode (again, len2, &v4, err, sizeof err) != 0)
    g_error ("%s", err);
  g_assert_cmpuint (v4->cpu_flags, ==, KCT_CPU_SAMPLED | KCT_CPU_WAIT);
  g_assert_cmpuint (v4->n_cpu, ==, 4);
  comms = kct_comms_new (v4, err, sizeof err);
  g_assert_nonnull (comms);
  for (uint32_t rank = 0; rank < 4; rank++)
    {
      g_assert_false (v4->cpu[rank].where);
      g_assert_cmpuint (v4->cpu[rank].n, ==, t->cpu[rank].n);
      g_assert_cmpuint (v4->cpu[rank].n_bytes, <, t->cpu[rank].n_bytes);
      KctReplay *it = kct_replay_new (v4, comms, rank);
      KctEvent   ev;
      uint64_t   real = 0, samples = 0;
      kct_replay_cpu (it);
      while (kct_replay_next (it, &ev) == 1)
        if (ev.type == KCT_EV_CPU)
          {
            int i = (int)(real / 11);
            g_assert_cmpuint (ev.cpu, ==, 1000 * (uint64_t)i + rank);
            g_assert_cmpuint (ev.wait, ==, sample_wait ((int)rank, i));
            g_assert_cmpuint (ev.where, ==, UINT64_MAX);
            samples++;
          }
        else
          real++;
      g_assert_null (kct_replay_error (it));
      g_assert_cmpuint (samples, ==, rank % 3 == 0 ? 4 : 3);
      kct_replay_free (it);
    }
  kct_comms_free (comms);
  /* the version 4 trace written as version 5: no ids, no flag; read as version 4 again */
  {
    uint8_t *v5;
    size_t   l5;
    g_assert_cmpint (kct_encode (v4, &v5, &l5), ==, 0);
    g_assert_cmpuint (v5[8], ==, 5);
    g_assert_cmpmem (v5 + 12, l5 - 12, again + 12, len2 - 12);
    g_free (v5);
  }
  kct_trace_free (v4);
  g_free (again);
  {
    uint8_t *v5 = g_memdup2 (buf, len);
    v5[8] = 4;
    expect_error (v5, len, "section CPUS: unknown flags 7");
    g_free (v5);
  }
  /* the ids without the waits in a file: corrupt (the flags byte of section CPUS changed, its
   * checksum made anew) */
  {
    uint8_t *v5 = g_memdup2 (buf, len);
    size_t   at = 16;
    while (at + 16 <= len && memcmp (v5 + at, "CPUS", 4) != 0)
      {
        uint64_t n = 0;
        for (int k = 0; k < 8; k++)
          n |= (uint64_t)v5[at + 4 + k] << (8 * k);
        at += 16 + (size_t)n;
      }
    g_assert_true (at + 16 <= len);
    uint64_t n = 0;
    for (int k = 0; k < 8; k++)
      n |= (uint64_t)v5[at + 4 + k] << (8 * k);
    g_assert_cmpuint (v5[at + 16], ==, KCT_CPU_SAMPLED | KCT_CPU_WAIT | KCT_CPU_WHERE);
    v5[at + 16] = KCT_CPU_SAMPLED | KCT_CPU_WHERE;
    uint32_t crc = kct_crc32 (v5 + at + 16, (size_t)n);
    for (int k = 0; k < 4; k++)
      v5[at + 12 + k] = (uint8_t)(crc >> (8 * k));
    expect_error (v5, len, "section CPUS: CPU ids without the waits for a CPU");
    g_free (v5);
  }
  /* the flag without the second member: the encoder leaves the ids out */
  t->cpu_flags = KCT_CPU_SAMPLED | KCT_CPU_WHERE;
  g_assert_cmpint (kct_encode (t, &again, &len2), ==, 0); /* the encoder drops the ids */
  KctTrace *nw;
  if (kct_decode (again, len2, &nw, err, sizeof err) != 0)
    g_error ("%s", err);
  g_assert_cmpuint (nw->cpu_flags, ==, KCT_CPU_SAMPLED);
  kct_trace_free (nw);
  g_free (again);
  t->cpu_flags = KCT_CPU_SAMPLED | KCT_CPU_WAIT | KCT_CPU_WHERE;
  /* a corrupt stream: a sample count the bytes do not hold */
  KctCpuStream *s = &t->cpu[1];
  s->n++;
  g_assert_cmpint (kct_encode (t, &again, &len2), ==, 0);
  expect_error (again, len2, "section CPUS: rank 1: the samples cannot be read");
  g_free (again);
  s->n--;
  kct_trace_free (t);
  kct_trace_free (t0);
  g_free (buf);

  /* 2 timelines for 4 ranks in 2 groups: the ranks replaying a mean keep no samples */
  sample_cpu = TRUE;
  sample_timelines = 2;
  t = sample_trace (4);
  sample_cpu = FALSE;
  sample_timelines = 0;
  g_assert_cmpuint (t->n_cpu, <, 4);
  for (uint32_t i = 0; i < t->n_cpu; i++)
    {
      gboolean own = FALSE;
      for (uint32_t g = 0; g < t->n_groups; g++)
        for (uint32_t k = 0; k < t->groups[g].n_tl; k++)
          own |= t->groups[g].tl[k].rank == t->cpu[i].rank;
      g_assert_true (own);
    }
  g_assert_cmpint (kct_encode (t, &buf, &len), ==, 0);
  KctTrace *u;
  if (kct_decode (buf, len, &u, err, sizeof err) != 0)
    g_error ("%s", err);
  g_assert_cmpuint (u->n_cpu, ==, t->n_cpu);
  kct_trace_free (u);
  g_free (buf);
  kct_trace_free (t);
}

/* Format version 5: a stream's CPU ids (the fourth varint, the id + 1 as a zigzag delta) come
 * back exactly, unknown ones (all ones) too, a repeated id in one byte; recoding drops them
 * (then unknown) and adds them back as unknown, the other values unchanged. */
static void
test_cpu_where_stream (void)
{
  static const uint64_t where[] = { UINT64_MAX, 0, 0, 3, 3, 1, UINT64_MAX, 4095, 2, 2, 0, UINT64_MAX };
  const uint32_t        n = G_N_ELEMENTS (where);
  KctCpuStream          s = { 0 }, plain = { 0 };
  s.where = 1;
  for (uint32_t i = 0; i < n; i++)
    {
      uint64_t wait = i % 4 == 1 ? UINT64_MAX : 10 * (uint64_t)i;
      g_assert_cmpint (kct_cpu_append (&s, 2 * (uint64_t)i, 1000 + 37 * (uint64_t)i, wait, where[i]), ==, 0);
      g_assert_cmpint (kct_cpu_append (&plain, 2 * (uint64_t)i, 1000 + 37 * (uint64_t)i, wait, where[i]), ==, 0);
    }
  /* per sample one byte more but for the two-byte ids' jumps (4095 + 1 from 3 + 1 and back) */
  g_assert_cmpuint (s.n_bytes, ==, plain.n_bytes + n + 2);
  for (int pass = 0; pass < 3; pass++)
    {
      /* 0: as appended; 1: recoded without the ids; 2: with them again (unknown) */
      if (pass == 1)
        g_assert_cmpint (kct_cpu_recode (&s, 0), ==, 0);
      if (pass == 1)
        g_assert_cmpmem (s.bytes, s.n_bytes, plain.bytes, plain.n_bytes);
      if (pass == 2)
        g_assert_cmpint (kct_cpu_recode (&s, 1), ==, 0);
      g_assert_cmpint (s.where, ==, pass != 1);
      KctCpuReader rd;
      uint64_t     pos, cpu, wait, id;
      kct_cpu_reader (&rd, &s);
      for (uint32_t i = 0; i < n; i++)
        {
          g_assert_cmpint (kct_cpu_read (&rd, &pos, &cpu, &wait, &id), ==, 1);
          g_assert_cmpuint (pos, ==, 2 * (uint64_t)i);
          g_assert_cmpuint (cpu, ==, 1000 + 37 * (uint64_t)i);
          g_assert_cmpuint (wait, ==, i % 4 == 1 ? UINT64_MAX : 10 * (uint64_t)i);
          g_assert_cmpuint (id, ==, pass == 0 ? where[i] : UINT64_MAX);
        }
      g_assert_cmpint (kct_cpu_read (&rd, &pos, &cpu, &wait, NULL), ==, 0);
    }
  /* a stream without the ids read as one with them: corrupt, and recoding it fails */
  KctCpuReader rd;
  uint64_t     pos, cpu, wait, id;
  plain.where = 1;
  kct_cpu_reader (&rd, &plain);
  int r;
  while ((r = kct_cpu_read (&rd, &pos, &cpu, &wait, &id)) == 1)
    ;
  g_assert_cmpint (r, ==, -1);
  g_assert_cmpint (kct_cpu_recode (&plain, 0), ==, -1);
  g_assert_cmpint (plain.where, ==, 1);
  kct_cpu_clear (&plain);
  kct_cpu_clear (&s);
}

/* Merging ranks that sampled with the CPU ids and ranks that did not (the collector's merge,
 * kubus-trace's): the trace has the ids, the others' samples have them unknown; none: the
 * version 4 flags. */
static void
test_cpu_where_merge (void)
{
  for (int from = 0; from <= 2; from += 2)
    {
      sample_cpu = TRUE;
      sample_plain_from = from;
      KctTrace *t0 = sample_trace (4);
      sample_cpu = FALSE;
      sample_plain_from = 1 << 30;
      uint8_t *buf;
      size_t   len;
      char     err[256];
      KctTrace *t;
      g_assert_cmpint (kct_encode (t0, &buf, &len), ==, 0);
      if (kct_decode (buf, len, &t, err, sizeof err) != 0)
        g_error ("%s", err);
      g_assert_cmpuint (t->cpu_flags, ==,
                        KCT_CPU_SAMPLED | KCT_CPU_WAIT | (from > 0 ? KCT_CPU_WHERE : 0));
      g_assert_cmpuint (t->n_cpu, ==, 4);
      for (uint32_t rank = 0; rank < 4; rank++)
        {
          KctCpuReader rd;
          uint64_t     pos, cpu, wait, id, n = 0;
          kct_cpu_reader (&rd, kct_cpu_find (t, rank));
          while (kct_cpu_read (&rd, &pos, &cpu, &wait, &id) == 1)
            {
              int i = (int)(pos / 11);
              g_assert_cmpuint (cpu, ==, 1000 * (uint64_t)i + rank);
              g_assert_cmpuint (wait, ==, sample_wait ((int)rank, i));
              g_assert_cmpuint (id, ==, (int)rank < from ? sample_where ((int)rank, i) : UINT64_MAX);
              n++;
            }
          g_assert_cmpuint (n, ==, rank % 3 == 0 ? 4 : 3);
        }
      kct_trace_free (t);
      kct_trace_free (t0);
      g_free (buf);
    }
}

static void
test_format_roundtrip (void)
{
  KctTrace *t = sample_trace (6);
  uint8_t  *a, *b;
  size_t    la, lb;
  g_assert_cmpint (kct_encode (t, &a, &la), ==, 0);
  KctTrace *u;
  char      err[256];
  g_assert_cmpint (kct_decode (a, la, &u, err, sizeof err), ==, 0);
  g_assert_cmpint (kct_encode (u, &b, &lb), ==, 0);
  g_assert_cmpmem (a, la, b, lb);
  g_assert_cmpstr (u->h.program, ==, "/bin/sample");
  g_assert_cmpuint (u->h.n_ranks, ==, 6);
  g_free (a);
  g_free (b);
  kct_trace_free (t);
  kct_trace_free (u);
}

static void
expect_error (const uint8_t *buf, size_t len, const char *part)
{
  KctTrace *u = NULL;
  char      err[256];
  g_assert_cmpint (kct_decode (buf, len, &u, err, sizeof err), ==, -1);
  g_assert_null (u);
  if (strstr (err, part) == NULL)
    g_error ("error '%s' does not mention '%s'", err, part);
}

/* The archive's properties (the optional section PROP): they come back as they were, in the
 * order given; a trace without them has no section; a version 4 layout leaves them out; a
 * property named twice or without a name is refused, naming the section. */
static void
test_format_props (void)
{
  KctTrace *t = sample_trace (4);
  uint8_t  *a, *b, *old;
  size_t    la, lb, lo;
  char      err[256];
  KctTrace *u;
  g_assert_cmpint (kct_encode (t, &old, &lo), ==, 0);
  g_assert_null (memmem (old, lo, "PROP", 4));
  g_assert_cmpint (kct_prop_set (t, "KUBUS::EAGER_LIMIT_SAME_HOST", "4096"), ==, 0);
  g_assert_cmpint (kct_prop_set (t, "KUBUS::B", "x\n\xff y"), ==, 0);
  g_assert_cmpint (kct_prop_set (t, "KUBUS::EAGER_LIMIT_SAME_HOST", "8192"), ==, 0);   /* replaced */
  g_assert_cmpuint (t->n_props, ==, 2);
  g_assert_cmpint (kct_encode (t, &a, &la), ==, 0);
  g_assert_cmpuint (la, >, lo);
  g_assert_cmpint (kct_decode (a, la, &u, err, sizeof err), ==, 0);
  g_assert_cmpuint (u->n_props, ==, 2);
  g_assert_cmpstr (u->prop_names[0], ==, "KUBUS::EAGER_LIMIT_SAME_HOST");
  g_assert_cmpstr (kct_prop_get (u, "KUBUS::EAGER_LIMIT_SAME_HOST"), ==, "8192");
  g_assert_cmpstr (kct_prop_get (u, "KUBUS::B"), ==, "x\n\xff y");
  g_assert_null (kct_prop_get (u, "KUBUS::C"));
  g_assert_cmpint (kct_encode (u, &b, &lb), ==, 0);
  g_assert_cmpmem (a, la, b, lb);
  kct_trace_free (u);
  g_free (b);
  /* version 4: no properties */
  g_assert_cmpint (kct_encode_version (t, 4, &b, &lb), ==, 0);
  g_assert_null (memmem (b, lb, "PROP", 4));
  g_free (b);
  g_free (a);
  /* refused: a property named twice (the second name patched to the first's, its checksum
   * fixed), one without a name */
  for (int variant = 0; variant < 2; variant++)
    {
      KctTrace *v = sample_trace (4);
      g_assert_cmpint (kct_prop_set (v, variant ? "" : "KUBUS::A", "1"), ==, 0);
      g_assert_cmpint (kct_prop_set (v, "KUBUS::B", "2"), ==, 0);
      g_assert_cmpint (kct_encode (v, &a, &la), ==, 0);
      if (variant == 0)
        {
          uint8_t *prop = memmem (a, la, "PROP", 4);
          uint64_t plen = 0;
          g_assert_nonnull (prop);
          for (int k = 0; k < 8; k++)
            plen |= (uint64_t)prop[4 + k] << (8 * k);
          uint8_t *second = memmem (prop + 16, plen, "KUBUS::B", 8);
          g_assert_nonnull (second);
          second[7] = 'A';
          uint32_t crc = kct_crc32 (prop + 16, plen);
          for (int k = 0; k < 4; k++)
            prop[12 + k] = (uint8_t)(crc >> (8 * k));
        }
      expect_error (a, la, variant ? "PROP: property 0 has no name" : "PROP: property KUBUS::A given twice");
      g_free (a);
      kct_trace_free (v);
    }
  g_free (old);
  kct_trace_free (t);
}

static void
test_format_corrupt (void)
{
  KctTrace *t = sample_trace (4);
  uint8_t  *a;
  size_t    la;
  g_assert_cmpint (kct_encode (t, &a, &la), ==, 0);
  /* every truncation is an error naming it */
  for (size_t n = 16; n < la; n++)
    expect_error (a, n, "truncated");
  expect_error (a, 5, "not a Kubus compressed trace");
  /* a flipped bit in a payload: the checksum */
  uint8_t *c = g_memdup2 (a, la);
  c[la - 40] ^= 0x10;
  expect_error (c, la, "checksum mismatch");
  /* a newer version */
  memcpy (c, a, la);
  c[8] = 9;
  expect_error (c, la, "format version 9");
  /* every single-byte change: an error or a valid trace, never a crash */
  for (size_t i = 0; i < la; i++)
    {
      memcpy (c, a, la);
      c[i] ^= 0xff;
      KctTrace *u = NULL;
      char      err[256];
      if (kct_decode (c, la, &u, err, sizeof err) == 0)
        kct_trace_free (u);
      else
        g_assert_cmpuint (strlen (err), >, 0);
    }
  g_free (c);
  g_free (a);
  kct_trace_free (t);
}

/* a checksum that is right for a payload that lies: the reader still says what is wrong */
static void
test_format_semantic (void)
{
  KctTrace *t = new_trace ();
  KctRank  *r = new_rank (t, 0);
  uint64_t  now = 0;
  call (r, &now, 1, 1, 1);
  call (r, &now, 2, 1, 1);
  call (r, &now, 1, 1, 1);
  call (r, &now, 2, 1, 1);
  kct_rank_end (r, 0, 0);
  kct_rank_free (r);
  kct_finish (t);
  /* a body referring to itself */
  t->elems[t->body_off[0]].ref = 0 | KCT_REF_BODY;
  uint8_t *a;
  size_t   la;
  g_assert_cmpint (kct_encode (t, &a, &la), ==, 0);
  expect_error (a, la, "refers to nothing it may refer to");
  g_free (a);
  /* a rank in no group */
  t->elems[t->body_off[0]].ref = 0;
  t->h.n_ranks = 3;
  g_assert_cmpint (kct_encode (t, &a, &la), ==, 0);
  expect_error (a, la, "the groups hold 1 of 3 ranks");
  g_free (a);
  kct_trace_free (t);
}

/* empty leaves and bodies (a group with no events) intern to one id each, on a fresh trace whose
   arrays are still NULL: fuzz-kct's fixed seed found memcmp (NULL, NULL, 0) here */
static void
test_intern_empty (void)
{
  KctTrace *t = kct_trace_new ();
  uint32_t  b = kct_body_intern (t, NULL, 0);
  g_assert_cmpuint (b, !=, KCT_NONE);
  g_assert_cmpuint (kct_body_intern (t, NULL, 0), ==, b);
  uint32_t l = kct_leaf_intern (t, NULL, 0);
  g_assert_cmpuint (l, !=, KCT_NONE);
  g_assert_cmpuint (kct_leaf_intern (t, NULL, 0), ==, l);
  g_assert_cmpuint (t->n_bodies, ==, 1);
  g_assert_cmpuint (t->n_leaves, ==, 1);
  kct_trace_free (t);
}

static size_t
list_bytes (const KctList *l, KctList *back)
{
  /* through a one-group trace: the group's rank list is the list under test */
  KctTrace *t = new_trace ();
  t->h.n_ranks = 1;
  for (uint32_t i = 0; i < l->n; i++)
    if (l->v[i] + 1 > t->h.n_ranks)
      t->h.n_ranks = l->v[i] + 1;
  KctComm *c = kct_comm_add (t);
  kct_list_copy (&c->members, l);
  KctGroup *g = kct_group_add (t);
  for (uint32_t i = 0; i < t->h.n_ranks; i++)
    kct_list_add (&g->ranks, i);
  KctElem e = { 0, 1 };
  KctRaw  raw = { 0 };
  raw.type = KCT_RAW_PROGRAM_BEGIN;
  kct_leaf_intern (t, &raw, 1);
  g->seq = kct_body_intern (t, &e, 1);
  /* every rank replays one mean timeline (its one event at time 0) */
  kct_time_defaults (t);
  KctGrid grid;
  kct_grid_init (&grid, t->h.time_abs, t->h.time_bits);
  uint64_t zero = 0;
  KctTimeline *tl = kct_group_timeline_add (g);
  g_assert_cmpint (kct_timeline_from_values (t, g, &grid, &zero, 1, 1, tl), ==, 0);
  tl->rank = KCT_NONE;
  uint8_t *a;
  size_t   la, lempty;
  g_assert_cmpint (kct_encode (t, &a, &la), ==, 0);
  KctTrace *u;
  char      err[256];
  g_assert_cmpint (kct_decode (a, la, &u, err, sizeof err), ==, 0);
  kct_list_copy (back, &u->comms[0].members);
  kct_trace_free (u);
  g_free (a);
  c->members.n = 1;
  c->members.v[0] = 0;
  g_assert_cmpint (kct_encode (t, &a, &lempty), ==, 0);
  g_free (a);
  kct_trace_free (t);
  return la - lempty;
}

static void
test_list_prsd (void)
{
  KctList l = { 0 }, back = { 0 };
  /* 0..N-1: one block whatever N */
  for (uint32_t i = 0; i < 4096; i++)
    kct_list_add (&l, i);
  size_t all = list_bytes (&l, &back);
  g_assert_true (kct_list_equal (&l, &back));
  g_assert_cmpuint (all, <=, 6);
  /* the interior of a 64 x 64 grid: one two-dimensional block */
  l.n = 0;
  for (uint32_t y = 1; y < 63; y++)
    for (uint32_t x = 1; x < 63; x++)
      kct_list_add (&l, y * 64 + x);
  size_t interior = list_bytes (&l, &back);
  g_assert_true (kct_list_equal (&l, &back));
  g_assert_cmpuint (interior, <=, 10);
  /* random lists survive */
  GRand *rng = g_rand_new_with_seed (7);
  for (int round = 0; round < 200; round++)
    {
      l.n = 0;
      uint32_t v = (uint32_t)g_rand_int_range (rng, 0, 50);
      int      n = g_rand_int_range (rng, 1, 60);
      for (int i = 0; i < n; i++)
        {
          kct_list_add (&l, v);
          v += (uint32_t)g_rand_int_range (rng, 1, 4);
        }
      list_bytes (&l, &back);
      g_assert_true (kct_list_equal (&l, &back));
    }
  g_rand_free (rng);
  kct_list_clear (&l);
  kct_list_clear (&back);
}

/* The ranks farthest from their group's mean keep their times, the others replay the mean. */
static void
test_merge_mean (void)
{
  sample_timelines = 4;
  KctTrace *t = sample_trace (8);
  sample_timelines = 0;
  g_assert_cmpuint (t->h.timelines, ==, 4);
  /* at most 4 timelines, means counted: rank 7 is a group of its own (free: it needs no
   * mean); of the other group, whose mean takes one, ranks 0 and 6 are farthest from the mean
   * (collective durations 30 + 10 * rank, mean 60); 1 to 5 replay their mean, 60 */
  const KctGroup *g = &t->groups[0];
  g_assert_cmpuint (g->ranks.n, ==, 7);
  g_assert_cmpuint (g->n_tl, ==, 3);
  g_assert_cmpuint (t->groups[1].n_tl, ==, 1);
  g_assert_cmpuint (t->groups[1].tl[0].rank, ==, 7);
  uint32_t own = 0;
  for (uint32_t k = 0; k < g->n_tl; k++)
    if (g->tl[k].rank != KCT_NONE)
      own |= 1u << g->tl[k].rank;
  g_assert_cmpuint (own, ==, (1u << 0) | (1u << 6));
  char      err[256];
  KctComms *comms = kct_comms_new (t, err, sizeof err);
  for (uint32_t rank = 0; rank < 7; rank++)
    {
      KctReplay *it = kct_replay_new (t, comms, rank);
      KctEvent   ev;
      uint64_t   begin = 0, first = 0;
      int        n = 0;
      while (kct_replay_next (it, &ev) == 1)
        {
          if (n++ == 0)
            first = ev.time;
          if (ev.type == KCT_RAW_COLL_BEGIN)
            begin = ev.time;
          if (ev.type == KCT_RAW_COLL_END)
            g_assert_cmpuint (ev.time - begin, ==, (own >> rank) & 1 ? 30 + 10 * rank : 60);
        }
      g_assert_null (kct_replay_error (it));
      /* ranks start where they did (1000 + rank), the mean ranks at their mean start, 1003;
       * the trace's global start is 1000 */
      g_assert_cmpuint (first, ==, (own >> rank) & 1 ? 1000 + rank : 1003);
      kct_replay_free (it);
    }
  kct_comms_free (comms);
  /* through the file and back, the same */
  uint8_t *a, *b;
  size_t   la, lb;
  g_assert_cmpint (kct_encode (t, &a, &la), ==, 0);
  KctTrace *u;
  g_assert_cmpint (kct_decode (a, la, &u, err, sizeof err), ==, 0);
  g_assert_cmpint (kct_encode (u, &b, &lb), ==, 0);
  g_assert_cmpmem (a, la, b, lb);
  /* merged into more ranks, the mean takes them: a finished trace merges again */
  KctTrace *again = sample_trace (8);
  g_assert_cmpint (kct_merge (u, again), ==, 0);
  g_assert_cmpint (kct_finish (u), ==, 0);
  g_assert_cmpuint (u->groups[0].n_tl + u->groups[1].n_tl, <=, 4);
  g_free (a);
  g_free (b);
  kct_trace_free (again);
  kct_trace_free (u);
  kct_trace_free (t);
}

/* The grid: codes ascending and contiguous, every value within max(abs, 2^(1-bits) v) of its
 * grid point, rounding in the direction asked. */
static void
test_time_grid (void)
{
  KctGrid g;
  g_assert_cmpint (kct_grid_init (&g, 0, 17), ==, -1);
  g_assert_cmpint (kct_grid_init (&g, 1000, 2), ==, -1);
  g_assert_cmpint (kct_grid_init (&g, 1000, 17), ==, 0);
  uint64_t prev = 0;
  for (uint64_t c = 1;; c++)
    {
      uint64_t v = kct_grid_value (&g, c);
      if (v == UINT64_MAX)
        {
          /* the grid ends beyond 2^63 ticks */
          g_assert_cmpfloat ((double)prev, >, 0x1p62);
          break;
        }
      g_assert_cmpuint (v, >, prev);
      /* the step after a point is abs or at most 2^-16 of it */
      g_assert_true (v - prev == 1000 || (double)(v - prev) <= ldexp ((double)prev, -16));
      prev = v;
    }
  /* through the coder: random times of all sizes, each rounding; the stored times keep the
   * bound against the time before them as stored, and the direction */
  GRand       *rng = g_rand_new_with_seed (7);
  KctTimeCoder enc, dec;
  KctRaw       leaf[3];
  memset (leaf, 0, sizeof leaf);
  leaf[0].type = KCT_RAW_ENTER;
  leaf[1].type = KCT_RAW_SEND; /* at the start: rounds down */
  leaf[2].type = KCT_RAW_LEAVE;
  leaf[2].at = KCT_AT_END;
  KctRaw recv[2];
  memset (recv, 0, sizeof recv);
  recv[0].type = KCT_RAW_ENTER;
  recv[1].type = KCT_RAW_RECV; /* at the end: rounds up */
  recv[1].at = KCT_AT_END;
  g_assert_cmpuint (kct_leaf_slots (leaf, 3, NULL), ==, 2);
  kct_tc_encoder (&enc, &g);
  enum { N = 20000 };
  uint64_t *truth = g_new (uint64_t, 2 * N), *stored = g_new (uint64_t, 2 * N);
  uint64_t  now = 0, last = 0;
  for (int i = 0; i < N; i++)
    {
      int      send = i % 2 == 0;
      uint64_t t[2];
      now += (uint64_t)ldexp (g_rand_double (rng), g_rand_int_range (rng, 0, 40));
      t[0] = now;
      now += (uint64_t)ldexp (g_rand_double (rng), g_rand_int_range (rng, 0, 30));
      t[1] = now;
      truth[2 * i] = t[0];
      truth[2 * i + 1] = t[1];
      g_assert_cmpint (send ? kct_tc_leaf (&enc, 0, leaf, 3, t) : kct_tc_leaf (&enc, 1, recv, 2, t),
                       ==, 0);
      for (int k = 0; k < 2; k++)
        {
          uint64_t x = truth[2 * i + k], s = t[k];
          double   bound = fmax (1000, ldexp ((double)(x > last ? x - last : 0), -16));
          /* a time before the one stored before it takes that one's place */
          if (x < last)
            g_assert_cmpuint (s, ==, last);
          else
            g_assert_cmpfloat (fabs ((double)s - (double)x), <, bound);
          /* a send never after the truth, unless the time stored before it already is (a
           * call starting within a grid step of an end rounded up): then at that time */
          if (send && k == 0)
            g_assert_cmpuint (s, <=, MAX (x, last));
          if (!send && k == 1)
            g_assert_cmpuint (s, >=, x);
          stored[2 * i + k] = last = s;
        }
    }
  g_assert_cmpint (kct_tc_finish (&enc), ==, 0);
  /* 20000 calls of two random times: about 4 bytes per time */
  g_assert_cmpuint (enc.n, <, 8 * N);
  g_assert_cmpint (kct_tc_decoder (&dec, &g, enc.buf, enc.n), ==, 0);
  for (int i = 0; i < N; i++)
    {
      uint64_t t[2];
      g_assert_cmpint (i % 2 == 0 ? kct_tc_leaf (&dec, 0, leaf, 3, t) : kct_tc_leaf (&dec, 1, recv, 2, t),
                       ==, 0);
      g_assert_cmpuint (t[0], ==, stored[2 * i]);
      g_assert_cmpuint (t[1], ==, stored[2 * i + 1]);
    }
  g_assert_cmpint (kct_tc_finish (&dec), ==, 0);
  kct_tc_clear (&dec);
  /* a stream cut short or with a changed byte: an error or other times, never a crash */
  for (size_t cut = 0; cut < enc.n; cut += enc.n / 40 + 1)
    {
      KctTimeCoder d;
      int          bad = kct_tc_decoder (&d, &g, enc.buf, cut) != 0;
      for (int i = 0; i < N && !bad; i++)
        {
          uint64_t t[2];
          bad = kct_tc_leaf (&d, (uint32_t)i % 2, i % 2 ? recv : leaf, i % 2 ? 2 : 3, t) != 0;
        }
      g_assert_true (bad || kct_tc_finish (&d) != 0);
      kct_tc_clear (&d);
    }
  kct_tc_clear (&enc);
  g_free (truth);
  g_free (stored);
  g_rand_free (rng);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/kct/fold/roundtrip", test_fold_roundtrip);
  g_test_add_func ("/kct/format/props", test_format_props);
  g_test_add_func ("/kct/fold/bounded", test_fold_bounded);
  g_test_add_func ("/kct/replay/times", test_replay_times);
  g_test_add_func ("/kct/merge/groups", test_merge_groups);
  g_test_add_func ("/kct/merge/alias-partial", test_merge_alias_partial);
  g_test_add_func ("/kct/format/roundtrip", test_format_roundtrip);
  g_test_add_func ("/kct/format/corrupt", test_format_corrupt);
  g_test_add_func ("/kct/format/semantic", test_format_semantic);
  g_test_add_func ("/kct/list/prsd", test_list_prsd);
  g_test_add_func ("/kct/merge/mean", test_merge_mean);
  g_test_add_func ("/kct/time/grid", test_time_grid);
  g_test_add_func ("/kct/intern/empty", test_intern_empty);
  g_test_add_func ("/kct/nbc/roundtrip", test_nbc_roundtrip);
  g_test_add_func ("/kct/format/versions", test_format_versions);
  g_test_add_func ("/kct/cpu/roundtrip", test_cpu_roundtrip);
  g_test_add_func ("/kct/cpu/where-stream", test_cpu_where_stream);
  g_test_add_func ("/kct/cpu/where-merge", test_cpu_where_merge);
  return g_test_run ();
}
