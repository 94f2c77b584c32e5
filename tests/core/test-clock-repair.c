/* test-clock-repair — the controlled logical clock (src/core/replay-clock.c) on hand-made event
 * sequences, replayed over the in-process transport. Every expected time is worked out in the
 * comments from the rules in replay-clock.h: γ = 1 − 1/100000, backward ramp slope ≤ 1/100,
 * μ = 0, integer ticks. */
#include "analyze-private.h"
#include "replay-clock.h"

#include <otf2/otf2.h>

typedef struct
{
  TraceDefs *defs;
  Transport *t;
  RankData **rds;
  int        n;
} Fixture;

static void
fixture_init (Fixture *f,
              int      n)
{
  TraceComm *world = g_new0 (TraceComm, 1);

  f->n = n;
  f->defs = g_new0 (TraceDefs, 1);
  f->defs->comms = g_ptr_array_new ();
  world->index = 0;
  world->size = n;
  world->world = g_new (int, n);
  for (int r = 0; r < n; r++)
    world->world[r] = r;
  g_ptr_array_add (f->defs->comms, world);
  f->defs->n_ranks = n;
  f->t = transport_local_new (n);
  f->rds = g_new0 (RankData *, n);
  for (int r = 0; r < n; r++)
    f->rds[r] = rank_data_new (r, f->defs);
}

static void
fixture_clear (Fixture *f)
{
  TraceComm *world = f->defs->comms->pdata[0];
  for (int r = 0; r < f->n; r++)
    rank_data_free (f->rds[r]);
  g_free (f->rds);
  f->t->free (f->t);
  g_free (world->world);
  g_free (world);
  g_ptr_array_unref (f->defs->comms);
  g_free (f->defs);
}

static void
send (RankData *rd,
      int       peer,
      guint32   tag,
      Tick      t,
      guint64   pos)
{
  SendRec s = { 0 };
  s.time = s.enter = t;
  s.pos = pos;
  s.peer = peer;
  s.tag = tag;
  s.call = s.complete_call = NO_INDEX;
  g_array_append_val (rd->sends, s);
}

static void
recv (RankData *rd,
      int       peer,
      guint32   tag,
      Tick      t,
      guint64   pos)
{
  RecvRec r = { 0 };
  r.time = r.post_enter = t;
  r.pos = pos;
  r.peer = peer;
  r.tag = tag;
  g_array_append_val (rd->recvs, r);
}

static void
barrier (RankData *rd,
         Tick      enter,
         guint64   enter_pos,
         Tick      end,
         guint64   end_pos)
{
  CallRec c = { enter, end, 0, 0 };
  CollRec r = { 0 };
  g_array_append_val (rd->calls, c);
  r.call = rd->calls->len - 1;
  r.root = NO_INDEX;
  r.op = OTF2_COLLECTIVE_OP_BARRIER;
  r.end = end;
  r.enter_pos = enter_pos;
  r.end_pos = end_pos;
  g_array_append_val (rd->colls, r);
}

/* A non-blocking collective: started by an MPI_I* call entered at @start (its Enter at
 * @start_pos), completed by the event at @end (@end_pos) in a Wait entered at @wait. */
static void
icoll (RankData *rd,
       guint32   op,
       guint32   root,
       Tick      start,
       guint64   start_pos,
       Tick      wait,
       Tick      end,
       guint64   end_pos)
{
  CallRec c = { wait, end, 0, 0 };
  NbcRec r = { 0 };
  g_array_append_val (rd->calls, c);
  r.call = rd->calls->len - 1;
  r.comm = 0;
  r.root = root;
  r.op = op;
  r.sent = r.received = 1;
  r.start = start;
  r.enter_pos = start_pos;
  r.end = end;
  r.end_pos = end_pos;
  g_array_append_val (rd->nbcs, r);
}

static ClockRepair *
repair (Fixture          *f,
        ClockRepairStats *st)
{
  g_autoptr (GError) error = NULL;
  ClockRepair *cr = clock_repair_run (f->t, f->rds, &error);
  g_assert_no_error (error);
  g_assert_nonnull (cr);
  clock_repair_stats (cr, st);
  return cr;
}

/* A receive after its send: nothing to repair, the times stay as they are. */
static void
test_clean (void)
{
  Fixture f;
  ClockRepairStats st;
  ClockRepair *cr;

  fixture_init (&f, 2);
  send (f.rds[0], 1, 0, 10, 2);
  recv (f.rds[1], 0, 0, 20, 2);
  cr = repair (&f, &st);
  g_assert_false (clock_repair_changed (cr));
  g_assert_null (clock_repair_map (cr, 0));
  g_assert_null (clock_repair_map (cr, 1));
  g_assert_cmpuint (st.violations_p2p, ==, 0);
  g_assert_cmpuint (st.corrections, ==, 0);
  g_assert_cmpuint (st.passes, ==, 1);
  g_assert_true (st.converged);
  clock_repair_free (cr);
  fixture_clear (&f);
}

/* Forward amortization: rank 1 receives at 50 what rank 0 sent at 100, so the receive moves to
 * 100 (a jump of 50); afterwards rank 1's clock runs at γ until it meets its own time again:
 * t = 1,000,050 (10^6 later) → 100 + 10^6 − 10^6/10^5 = 1,000,090 (40 ahead, 10 amortized),
 * t = 5,000,050 → 100 + 5·10^6 − 50 = 5,000,050: the correction has faded out. Rank 1's first
 * event is at 50 itself, so no backward window (nothing before the jump). */
static void
test_forward (void)
{
  Fixture f;
  ClockRepairStats st;
  ClockRepair *cr;
  const ClockMap *m;
  ClockCursor cur = { 0 };

  fixture_init (&f, 2);
  send (f.rds[0], 1, 7, 100, 2);
  f.rds[1]->first_time = 50;
  recv (f.rds[1], 0, 7, 50, 3);
  cr = repair (&f, &st);
  g_assert_true (clock_repair_changed (cr));
  g_assert_null (clock_repair_map (cr, 0));
  m = clock_repair_map (cr, 1);
  g_assert_nonnull (m);
  g_assert_cmpint (clock_map_apply_at (m, 50, 3), ==, 100);
  g_assert_cmpint (clock_map_apply_at (m, 50, 4), ==, 100);   /* the Leave at the same time */
  g_assert_cmpint (clock_map_apply_at (m, 1000050, 9), ==, 1000090);
  g_assert_cmpint (clock_map_apply_at (m, 5000050, 11), ==, 5000050);
  g_assert_cmpint (clock_map_apply_at (m, 9000000, 12), ==, 9000000);
  /* an event before the receive at the same time is not moved (no window) */
  g_assert_cmpint (clock_map_apply_at (m, 50, 2), ==, 50);
  /* the cursor gives the same as random access */
  g_assert_cmpint (clock_map_apply (m, &cur, 50, 2), ==, 50);
  g_assert_cmpint (clock_map_apply (m, &cur, 50, 3), ==, 100);
  g_assert_cmpint (clock_map_apply (m, &cur, 1000050, 9), ==, 1000090);
  g_assert_cmpuint (st.violations_p2p, ==, 1);
  g_assert_cmpuint (st.corrections, ==, 1);
  g_assert_cmpint (st.largest, ==, 50);
  g_assert_cmpuint (st.passes, ==, 1);   /* no send moved: one pass */
  clock_repair_free (cr);
  fixture_clear (&f);
}

/* Backward amortization: rank 1 starts at 0 and receives at 10,000 what was sent at 10,050
 * (jump 50). The window is 100 × 50 = 5,000 ticks before the jump: events before 5,000 stay,
 * 7,500 moves by 50 · 2,500/5,000 = 25 to 7,525, 9,999 by 49 to 10,048. With only 60 ticks
 * before the jump the window is those 60: 30 → 30 + 50·30/60 = 55. */
static void
test_backward (void)
{
  Fixture f;
  ClockRepairStats st;
  ClockRepair *cr;
  const ClockMap *m;

  fixture_init (&f, 3);
  send (f.rds[0], 1, 0, 10050, 5);
  f.rds[1]->first_time = 0;
  recv (f.rds[1], 0, 0, 10000, 10);
  send (f.rds[0], 2, 0, 1060, 6);
  f.rds[2]->first_time = 950;
  recv (f.rds[2], 0, 0, 1010, 3);
  cr = repair (&f, &st);
  m = clock_repair_map (cr, 1);
  g_assert_cmpint (clock_map_apply_at (m, 0, 1), ==, 0);
  g_assert_cmpint (clock_map_apply_at (m, 4000, 2), ==, 4000);
  g_assert_cmpint (clock_map_apply_at (m, 5000, 3), ==, 5000);
  g_assert_cmpint (clock_map_apply_at (m, 7500, 4), ==, 7525);
  g_assert_cmpint (clock_map_apply_at (m, 9999, 9), ==, 10048);
  g_assert_cmpint (clock_map_apply_at (m, 10000, 10), ==, 10050);
  m = clock_repair_map (cr, 2);
  g_assert_cmpint (clock_map_apply_at (m, 950, 1), ==, 950);
  g_assert_cmpint (clock_map_apply_at (m, 980, 2), ==, 1005);
  g_assert_cmpint (clock_map_apply_at (m, 1010, 3), ==, 1060);
  g_assert_cmpuint (st.violations_p2p, ==, 2);
  g_assert_cmpint (st.largest, ==, 50);
  clock_repair_free (cr);
  fixture_clear (&f);
}

/* The window stops where a send would pass its receive: rank 1 sends to rank 0 at 9,000 (rank
 * 0 receives it at 9,010, slack 10) before its receive at 10,000 jumps by 50. The ramp may lift
 * the send by 10 at most: window = 50 · 1,000 / (50 − 10) = 1,250, so the send lands exactly on
 * its receive (9,000 + 50 · 250/1,250 = 9,010) and 8,750 stays put. A send with no slack at all
 * (received at its own time) keeps the window from reaching it. */
static void
test_backward_send_limit (void)
{
  Fixture f;
  ClockRepairStats st;
  ClockRepair *cr;
  const ClockMap *m;

  fixture_init (&f, 3);
  /* rank 0, in event order: receive from 2, send to 2, receive from 1, send to 1 */
  recv (f.rds[0], 2, 5, 5000, 2);
  send (f.rds[0], 2, 6, 5120, 3);
  recv (f.rds[0], 1, 3, 9010, 4);
  send (f.rds[0], 1, 0, 10050, 8);
  f.rds[1]->first_time = 0;
  send (f.rds[1], 0, 3, 9000, 4);
  recv (f.rds[1], 0, 0, 10000, 9);
  /* rank 2: a send received at its own time, 100 before a jump of 20 */
  f.rds[2]->first_time = 0;
  send (f.rds[2], 0, 5, 5000, 2);
  recv (f.rds[2], 0, 6, 5100, 3);
  cr = repair (&f, &st);
  m = clock_repair_map (cr, 1);
  g_assert_cmpint (clock_map_apply_at (m, 8750, 3), ==, 8750);
  g_assert_cmpint (clock_map_apply_at (m, 9000, 4), ==, 9010);
  g_assert_cmpint (clock_map_apply_at (m, 9500, 5), ==, 9530);
  g_assert_cmpint (clock_map_apply_at (m, 10000, 9), ==, 10050);
  m = clock_repair_map (cr, 2);
  g_assert_cmpint (clock_map_apply_at (m, 5000, 2), ==, 5000);
  g_assert_cmpint (clock_map_apply_at (m, 5050, 2), ==, 5060);   /* 50 into a 100 window: +10 */
  g_assert_cmpint (clock_map_apply_at (m, 5100, 3), ==, 5120);
  g_assert_null (clock_repair_map (cr, 0));
  clock_repair_free (cr);
  fixture_clear (&f);
}

/* A correction that travels: rank 1 receives at 60 what rank 0 sent at 100 and sends at 70 to
 * rank 2 — forward time 100 + 10 = 110 — which rank 2 had received at 105. Rank 2's receive is
 * fine as recorded, a violation only after rank 1's repair: the second pass moves it to 110,
 * and the exchange after it brings nothing new. One violation as recorded, two events moved. */
static void
test_chain (void)
{
  Fixture f;
  ClockRepairStats st;
  ClockRepair *cr;

  fixture_init (&f, 3);
  send (f.rds[0], 1, 0, 100, 2);
  f.rds[1]->first_time = 60;
  recv (f.rds[1], 0, 0, 60, 2);
  send (f.rds[1], 2, 0, 70, 3);
  f.rds[2]->first_time = 105;
  recv (f.rds[2], 1, 0, 105, 2);
  cr = repair (&f, &st);
  g_assert_cmpint (clock_map_apply_at (clock_repair_map (cr, 1), 70, 3), ==, 110);
  g_assert_cmpint (clock_map_apply_at (clock_repair_map (cr, 2), 105, 2), ==, 110);
  g_assert_cmpuint (st.violations_p2p, ==, 1);
  g_assert_cmpuint (st.corrections, ==, 2);
  g_assert_cmpint (st.largest, ==, 40);
  g_assert_cmpuint (st.passes, ==, 2);
  g_assert_true (st.converged);
  clock_repair_free (cr);
  fixture_clear (&f);
}

/* Messages match per (source, communicator, tag) in order: rank 0 sends tag 2 at 20, then tag
 * 1 at 40; rank 1 receives tag 1 first (at 30: before its send, moved to 40), then tag 2 (at 35:
 * forward 40 + 5 = 45). Matched by source alone, the first receive would take the send at 20
 * and only the second would move (to 40). */
static void
test_channels (void)
{
  Fixture f;
  ClockRepairStats st;
  ClockRepair *cr;

  fixture_init (&f, 2);
  send (f.rds[0], 1, 2, 20, 2);
  send (f.rds[0], 1, 1, 40, 3);
  f.rds[1]->first_time = 30;
  recv (f.rds[1], 0, 1, 30, 2);
  recv (f.rds[1], 0, 2, 35, 3);
  cr = repair (&f, &st);
  g_assert_cmpuint (st.violations_p2p, ==, 1);
  g_assert_cmpint (clock_map_apply_at (clock_repair_map (cr, 1), 30, 2), ==, 40);
  g_assert_cmpint (clock_map_apply_at (clock_repair_map (cr, 1), 35, 3), ==, 45);
  clock_repair_free (cr);
  fixture_clear (&f);
}

/* A barrier: rank 1 (enter 50, end 90) leaves before rank 0 entered (100): its end moves to
 * 100. Rank 0 (enter 100, end 105) is fine. */
static void
test_collective (void)
{
  Fixture f;
  ClockRepairStats st;
  ClockRepair *cr;

  fixture_init (&f, 2);
  f.rds[0]->first_time = 100;
  barrier (f.rds[0], 100, 2, 105, 4);
  f.rds[1]->first_time = 50;
  barrier (f.rds[1], 50, 2, 90, 4);
  cr = repair (&f, &st);
  g_assert_null (clock_repair_map (cr, 0));
  g_assert_cmpint (clock_map_apply_at (clock_repair_map (cr, 1), 90, 4), ==, 100);
  g_assert_cmpint (clock_map_apply_at (clock_repair_map (cr, 1), 90, 5), ==, 100);
  g_assert_cmpuint (st.violations_coll, ==, 1);
  g_assert_cmpuint (st.violations_p2p, ==, 0);
  g_assert_cmpuint (st.corrections, ==, 1);
  clock_repair_free (cr);
  fixture_clear (&f);
}

/* Non-blocking collectives take their blocking forms' rule, the start as the enter and the
 * completion event as the end: rank 1's MPI_Iallreduce completes at 90, before rank 0 started
 * it at 100 (rank 1's clock behind), so the completion moves to 100; rank 0's completion at
 * 130 is after both starts (50, 100) and stays. A blocking barrier on the same communicator
 * with consistent times is a separate sequence (never matched with the non-blocking one).
 * Then an MPI_Ibcast from root 0: rank 1's completion (200) lies before the root's start
 * (250), so it moves there; the root's own completion depends on nobody. */
static void
test_nonblocking (void)
{
  Fixture f;
  ClockRepairStats st;
  ClockRepair *cr;

  fixture_init (&f, 2);
  f.rds[0]->first_time = 10;
  barrier (f.rds[0], 10, 2, 20, 4);
  icoll (f.rds[0], OTF2_COLLECTIVE_OP_ALLREDUCE, NO_INDEX, 100, 6, 120, 130, 10);
  icoll (f.rds[0], OTF2_COLLECTIVE_OP_BCAST, 0, 250, 12, 260, 270, 16);
  f.rds[1]->first_time = 10;
  barrier (f.rds[1], 10, 2, 20, 4);
  icoll (f.rds[1], OTF2_COLLECTIVE_OP_ALLREDUCE, NO_INDEX, 50, 6, 60, 90, 10);
  icoll (f.rds[1], OTF2_COLLECTIVE_OP_BCAST, 0, 150, 12, 160, 200, 16);
  cr = repair (&f, &st);
  g_assert_null (clock_repair_map (cr, 0));
  g_assert_cmpint (clock_map_apply_at (clock_repair_map (cr, 1), 90, 10), ==, 100);
  /* the broadcast's completion: after the first jump the clock runs at γ, so 200 is still
   * 100 + 110 − 0 = 210 (110 ticks amortize nothing), below the root's start: it jumps to 250 */
  g_assert_cmpint (clock_map_apply_at (clock_repair_map (cr, 1), 200, 16), ==, 250);
  g_assert_cmpuint (st.violations_coll, ==, 2);
  g_assert_cmpuint (st.violations_p2p, ==, 0);
  g_assert_cmpuint (st.corrections, ==, 2);
  clock_repair_free (cr);
  fixture_clear (&f);
}

/* An impossible trace (each rank receives what the other sends only afterwards): the repair
 * raises both forever; it stops at its pass limit and says so instead of hanging. */
static void
test_cycle (void)
{
  Fixture f;
  ClockRepairStats st;
  ClockRepair *cr;

  fixture_init (&f, 2);
  for (int r = 0; r < 2; r++)
    {
      f.rds[r]->first_time = 10;
      recv (f.rds[r], 1 - r, 0, 10, 2);
      send (f.rds[r], 1 - r, 0, 20, 3);
    }
  cr = repair (&f, &st);
  g_assert_false (st.converged);
  g_assert_cmpuint (st.passes, ==, 64);
  g_assert_true (clock_repair_changed (cr));
  clock_repair_free (cr);
  fixture_clear (&f);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/clock-repair/clean", test_clean);
  g_test_add_func ("/clock-repair/forward", test_forward);
  g_test_add_func ("/clock-repair/backward", test_backward);
  g_test_add_func ("/clock-repair/backward-send-limit", test_backward_send_limit);
  g_test_add_func ("/clock-repair/chain", test_chain);
  g_test_add_func ("/clock-repair/channels", test_channels);
  g_test_add_func ("/clock-repair/collective", test_collective);
  g_test_add_func ("/clock-repair/nonblocking", test_nonblocking);
  g_test_add_func ("/clock-repair/cycle", test_cycle);
  return g_test_run ();
}
