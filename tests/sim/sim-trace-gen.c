/* sim-trace-gen.c — small OTF2 traces for the simulator tests, times known by construction
 * (timer: 1000 ticks per second, one tick is one millisecond). Used by make-sim-trace (the
 * Python tests) and test-sim-core (the unit tests).
 *
 * "exact" (2 ranks; regions main, foo, bar user code):
 *   rank 0: main 0..41; MPI_Init 1..3; foo 3..13; MPI_Send 13..14 (8 bytes, tag 1, to 1);
 *           foo 14..18; MPI_Isend 18..19 (0 bytes, tag 2, request 1); MPI_Wait 19..20
 *           (completes it @20); MPI_Allreduce 25..34 (16 bytes each way); MPI_Finalize 35..40
 *   rank 1: main 0..41; MPI_Init 2..3; foo 3..5; MPI_Recv 5..15 (from 0, tag 1, @15);
 *           foo 15..27; MPI_Irecv 27..28 (request 7); MPI_Wait 28..28 (receives tag 2, 0
 *           bytes, @28); bar 28..31; MPI_Allreduce 31..34; MPI_Finalize 35..40
 *   foo per visit: (10, 2) and (4, 12): per-instance means 6 and 8, global mean 7.
 * "unmatched": as exact, but rank 0 also sends tag 9 (4 bytes) in MPI_Send 6..7 inside foo, never
 *   received (a message left in flight at the end, as Ray leaves one).
 * "omp": as exact, with a ThreadFork (OpenMP) event inside rank 1's bar: threads cannot be re-enacted.
 * "approx": as exact, with an MPI_Ibarrier 21..22 on both ranks: a non-blocking collective the
 *   trace describes by its region only.
 * "clockviol": as exact, but rank 1's MPI_Recv ends at 12, before the send (13): clocks out of
 *   step, which the clock repair (replay-clock.h) corrects before the simulation.
 * "irecv": as exact, but rank 1 posts its receive of tag 1 as MPI_Irecv 5..5 (request 8), computes
 *   foo 5..15 and completes it in MPI_Wait 15..16 (@16), foo 16..27; rank 0's MPI_Send lasts
 *   13..17 (a rendezvous: the receiver was back in MPI at 15), foo 17..18.
 * "progress": as irecv, but rank 0's MPI_Send lasts 13..15: it left as soon as the receiver was
 *   back in MPI (a rendezvous vote for 8 bytes), foo 15..18.
 * "cutcoll": as exact, but rank 1's MPI_Allreduce 31..34 has no CollectiveEnd and no MPI_Finalize
 *   follows (an abort cut the run short inside it): rank 0 completed one collective operation on
 *   MPI_COMM_WORLD, rank 1 none, and no re-enactment can complete it.
 * "threadcoll": as exact, but rank 1's MPI_Allreduce 31..34 was made on another thread under
 *   MPI_THREAD_MULTIPLE and is not in the trace (bar lasts 28..34), which says so (the archive
 *   property KUBUS::UNTRACED_THREAD_CALLS "1:1"): not an abort, mpi4py.futures' master thread.
 * "flush": as exact, but rank 0's first foo visit 3..13 holds KUBUS_FLUSH 5..7 (the collector
 *   writing its trace buffer): 8 ms of foo's computation and 2 ms of the measurement's.
 * "frames": as exact, but main is a function found on the stack (paradigm SAMPLING, as the
 *   collector's unwinding writes it): its computation phases between MPI calls are, on rank 0,
 *   1 (before MPI_Init), 10, 4, 0, 5, 1, 1 and on rank 1 2, 2, 12, 0, 3, 1, 1 ms.
 * "tree" (4 ranks): two MPI_Bcast of 8 bytes from rank 0, as an MPI library's binomial tree runs
 *   them (0 sends to 1 and 2, 1 to 3). Every rank: main 0..50, MPI_Init 1..2, foo 2..E,
 *   MPI_Bcast E..L, foo L..30, MPI_Bcast 30..31, foo 31..40, MPI_Finalize 40..45; the first
 *   MPI_Bcast E..L is 10..11 on rank 0, 20..21 on rank 1, 12..13 on rank 2 and 14..21 on rank 3,
 *   which waited for rank 1, not for the root.
 * "waits" (2 ranks): five rounds at B = 3, 23, .., 83 after MPI_Init 1..2 and foo 2..3:
 *   rank 0: MPI_Isend B..B+1 (8 bytes, tag 1, request 10+i), foo, MPI_Wait B+2..B+5 (completes
 *           it: the send needed the receiver), MPI_Irecv B+5..B+6 (request 20+i), foo,
 *           MPI_Wait B+15..B+16 (receives tag 2, 8 bytes, sent at B+10), foo until B+20;
 *   rank 1: MPI_Recv B..B+4 (tag 1), foo, MPI_Send B+10..B+11 (tag 2), foo until B+20;
 *   both: MPI_Finalize 103..108, main 0..110.
 * "extrapolate" (2 ranks): transfer samples at 8 and 16 bytes only, and one message far larger
 *   whose receive was posted late, as in ws-mixed:
 *   rank 0: main 0..60; MPI_Init 1..2; foo 2..10; MPI_Send 10..11 (8 bytes, tag 1); foo 11..20;
 *           MPI_Send 20..21 (16 bytes, tag 2); foo 21..30; MPI_Send 30..31 (4096 bytes, tag 3);
 *           foo 31..50; MPI_Finalize 50..55
 *   rank 1: main 0..60; MPI_Init 1..2; foo 2..5; MPI_Recv 5..12 (tag 1, @12: 2 ms after its send
 *           started); foo 12..15; MPI_Recv 15..23 (tag 2, @23: 3 ms); foo 23..40; MPI_Recv
 *           40..42 (tag 3, @42); foo 42..50; MPI_Finalize 50..55.
 * "scatter": as extrapolate, but five messages of 8, 8, 8, 16 and 16 bytes (tags 1..5), sent at
 *   10, 15, 20, 25, 30 (MPI_Send 1 ms each) and received in MPI_Recv 5..11, 12..16, 17..22,
 *   22..26, 27..39: transfer times 1, 1, 2, 1 and 9 ms, a median of 1 ms at 8 bytes and (the
 *   upper of two) 9 ms at 16.
 * "polls" (2 ranks): MPI_Test calls that found nothing, one inside a computation and a tight
 *   loop of three before the MPI_Wait that completes the request:
 *   rank 0: main 0..40; MPI_Init 1..2; MPI_Irecv 2..3 (tag 1, request 5); foo 3..10; MPI_Test
 *           10..12; foo 12..20; MPI_Test 20..21, 21..22, 22..23; MPI_Wait 23..24 (receives 8
 *           bytes, tag 1, @24); foo 24..30; MPI_Finalize 30..35
 *   rank 1: main 0..40; MPI_Init 1..2; foo 2..22; MPI_Send 22..23 (8 bytes, tag 1); foo 23..30;
 *           MPI_Finalize 30..35
 * "slowrdv": as extrapolate, but two messages of 8 bytes (tags 1, 2): MPI_Send 10..13 into
 *   MPI_Recv 5..13 (a transfer of 3 ms), and MPI_Send 20..35 into MPI_Recv 32..35: the send
 *   left 3 ms after the receive was posted, a transfer's time later (a rendezvous).
 * "flatline" (2 ranks): eight messages (tags 1..8), sent at 10, 20, .., 80 (MPI_Send 1 ms
 *   each), each received in an MPI_Recv entered 3 ms before its send started: three of 0 bytes
 *   that took 5, 6 and 7 ms, then five of 8 bytes that took 1 ms each; main 0..100, MPI_Init
 *   1..2, foo between, MPI_Finalize 90..95.
 * "catchup" (2 ranks): a send with slack, then a long computation on the run's critical path:
 *   rank 0: main 0..60; MPI_Init 1..2; foo 2..10; MPI_Send 10..10 (8 bytes, tag 1, to 1); foo
 *           10..41; MPI_Allreduce 41..42; foo 42..50; MPI_Finalize 50..55
 *   rank 1: main 0..60; MPI_Init 1..2; foo 2..20; MPI_Recv 20..20 (tag 1, @20); foo 20..30;
 *           MPI_Allreduce 30..42 (waits for rank 0); foo 42..50; MPI_Finalize 50..55 */
#include "sim-trace-gen.h"

#include <otf2/otf2.h>
#include <string.h>

enum { R_MAIN, R_FOO, R_BAR, R_INIT, R_SEND, R_RECV, R_ISEND, R_IRECV, R_WAIT, R_ALLREDUCE, R_FINALIZE,
       R_IBARRIER, R_FLUSH, R_BCAST, R_TEST, N_REG };
static const char *reg_names[N_REG] = { "main", "foo", "bar", "MPI_Init", "MPI_Send", "MPI_Recv", "MPI_Isend",
                                        "MPI_Irecv", "MPI_Wait", "MPI_Allreduce", "MPI_Finalize",
                                        "MPI_Ibarrier", "KUBUS_FLUSH", "MPI_Bcast", "MPI_Test" };

static OTF2_FlushType
pre_flush (void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cb, bool final)
{
  (void) ud; (void) ft; (void) loc; (void) cb; (void) final;
  return OTF2_FLUSH;
}

static OTF2_TimeStamp
post_flush (void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
  (void) ud; (void) ft; (void) loc;
  return 0;
}

static const OTF2_FlushCallbacks flush = { pre_flush, post_flush };

static void
enter (OTF2_EvtWriter *w, uint64_t t, int r)
{
  OTF2_EvtWriter_Enter (w, NULL, t, r);
}

static void
leave (OTF2_EvtWriter *w, uint64_t t, int r)
{
  OTF2_EvtWriter_Leave (w, NULL, t, r);
}

static void
span (OTF2_EvtWriter *w, int r, uint64_t e, uint64_t l)
{
  enter (w, e, r);
  leave (w, l, r);
}

static void
allreduce (OTF2_EvtWriter *w, uint64_t e, uint64_t l)
{
  enter (w, e, R_ALLREDUCE);
  OTF2_EvtWriter_MpiCollectiveBegin (w, NULL, e);
  OTF2_EvtWriter_MpiCollectiveEnd (w, NULL, l, OTF2_COLLECTIVE_OP_ALLREDUCE, 0, OTF2_UNDEFINED_UINT32, 16, 16);
  leave (w, l, R_ALLREDUCE);
}

static void
rank0 (OTF2_EvtWriter *w, const char *variant)
{
  enter (w, 0, R_MAIN);
  span (w, R_INIT, 1, 3);
  enter (w, 3, R_FOO);
  if (strcmp (variant, "flush") == 0)
    span (w, R_FLUSH, 5, 7);
  if (strcmp (variant, "unmatched") == 0)
    {
      enter (w, 6, R_SEND);
      OTF2_EvtWriter_MpiSend (w, NULL, 6, 1, 0, 9, 4);
      leave (w, 7, R_SEND);
    }
  leave (w, 13, R_FOO);
  enter (w, 13, R_SEND);
  OTF2_EvtWriter_MpiSend (w, NULL, 13, 1, 0, 1, 8);
  {
    uint64_t sent = strcmp (variant, "irecv") == 0 ? 17 : strcmp (variant, "progress") == 0 ? 15 : 14;
    leave (w, sent, R_SEND);
    span (w, R_FOO, sent, 18);
  }
  enter (w, 18, R_ISEND);
  OTF2_EvtWriter_MpiIsend (w, NULL, 18, 1, 0, 2, 0, 1);
  leave (w, 19, R_ISEND);
  enter (w, 19, R_WAIT);
  OTF2_EvtWriter_MpiIsendComplete (w, NULL, 20, 1);
  leave (w, 20, R_WAIT);
  if (strcmp (variant, "approx") == 0)
    span (w, R_IBARRIER, 21, 22);
  allreduce (w, 25, 34);
  span (w, R_FINALIZE, 35, 40);
  leave (w, 41, R_MAIN);
}

static void
rank1 (OTF2_EvtWriter *w, const char *variant)
{
  enter (w, 0, R_MAIN);
  span (w, R_INIT, 2, 3);
  span (w, R_FOO, 3, 5);
  if (strcmp (variant, "irecv") == 0 || strcmp (variant, "progress") == 0)
    {
      enter (w, 5, R_IRECV);
      OTF2_EvtWriter_MpiIrecvRequest (w, NULL, 5, 8);
      leave (w, 5, R_IRECV);
      span (w, R_FOO, 5, 15);
      enter (w, 15, R_WAIT);
      OTF2_EvtWriter_MpiIrecv (w, NULL, 16, 0, 0, 1, 8, 8);
      leave (w, 16, R_WAIT);
      span (w, R_FOO, 16, 27);
    }
  else
    {
      enter (w, 5, R_RECV);
      {
        uint64_t at = strcmp (variant, "clockviol") == 0 ? 12 : 15;
        OTF2_EvtWriter_MpiRecv (w, NULL, at, 0, 0, 1, 8);
        leave (w, at, R_RECV);
      }
      span (w, R_FOO, 15, 27);
    }
  if (strcmp (variant, "approx") == 0)
    {
      /* inside foo's gap? no: between foo and the Irecv, 0 ms long on this rank */
      span (w, R_IBARRIER, 27, 27);
    }
  enter (w, 27, R_IRECV);
  OTF2_EvtWriter_MpiIrecvRequest (w, NULL, 28, 7);
  leave (w, 28, R_IRECV);
  enter (w, 28, R_WAIT);
  OTF2_EvtWriter_MpiIrecv (w, NULL, 28, 0, 0, 2, 0, 7);
  leave (w, 28, R_WAIT);
  enter (w, 28, R_BAR);
  if (strcmp (variant, "omp") == 0)
    OTF2_EvtWriter_ThreadFork (w, NULL, 29, OTF2_PARADIGM_OPENMP, 4);
  leave (w, 31, R_BAR);
  if (strcmp (variant, "threadcoll") == 0)
    {
      enter (w, 31, R_BAR);
      leave (w, 34, R_BAR);
      span (w, R_FINALIZE, 35, 40);
      leave (w, 41, R_MAIN);
      return;
    }
  if (strcmp (variant, "cutcoll") == 0)
    {
      enter (w, 31, R_ALLREDUCE);
      OTF2_EvtWriter_MpiCollectiveBegin (w, NULL, 31);
      leave (w, 34, R_ALLREDUCE);
      leave (w, 34, R_MAIN);
      return;
    }
  allreduce (w, 31, 34);
  span (w, R_FINALIZE, 35, 40);
  leave (w, 41, R_MAIN);
}

static void
bcast (OTF2_EvtWriter *w, int r, uint64_t e, uint64_t l)
{
  enter (w, e, R_BCAST);
  OTF2_EvtWriter_MpiCollectiveBegin (w, NULL, e);
  OTF2_EvtWriter_MpiCollectiveEnd (w, NULL, l, OTF2_COLLECTIVE_OP_BCAST, 0, 0, r == 0 ? 8 : 0, r == 0 ? 0 : 8);
  leave (w, l, R_BCAST);
}

static void
tree_rank (OTF2_EvtWriter *w, int r)
{
  static const uint64_t e[4] = { 10, 20, 12, 14 }, l[4] = { 11, 21, 13, 21 };
  enter (w, 0, R_MAIN);
  span (w, R_INIT, 1, 2);
  span (w, R_FOO, 2, e[r]);
  bcast (w, r, e[r], l[r]);
  span (w, R_FOO, l[r], 30);
  bcast (w, r, 30, 31);
  span (w, R_FOO, 31, 40);
  span (w, R_FINALIZE, 40, 45);
  leave (w, 50, R_MAIN);
}

static void
extrapolate_rank (OTF2_EvtWriter *w, int r, gboolean scatter, gboolean slowrdv)
{
  static const uint64_t r_send_at[2] = { 10, 20 }, r_send_l[2] = { 13, 35 }, r_recv_e[2] = { 5, 32 };
  static const uint64_t r_recv_l[2] = { 13, 35 }, r_len[2] = { 8, 8 };
  static const uint64_t x_send_at[3] = { 10, 20, 30 }, x_recv_e[3] = { 5, 15, 40 }, x_recv_l[3] = { 12, 23, 42 };
  static const uint64_t x_len[3] = { 8, 16, 4096 };
  static const uint64_t s_send_at[5] = { 10, 15, 20, 25, 30 }, s_recv_e[5] = { 5, 12, 17, 22, 27 };
  static const uint64_t s_recv_l[5] = { 11, 16, 22, 26, 39 }, s_len[5] = { 8, 8, 8, 16, 16 };
  const uint64_t *send_at = scatter ? s_send_at : x_send_at, *recv_e = scatter ? s_recv_e : x_recv_e;
  const uint64_t *recv_l = scatter ? s_recv_l : x_recv_l, *len = scatter ? s_len : x_len;
  int n = scatter ? 5 : 3;
  uint64_t t = 2;
  if (slowrdv)
    {
      send_at = r_send_at;
      recv_e = r_recv_e;
      recv_l = r_recv_l;
      len = r_len;
      n = 2;
    }
  enter (w, 0, R_MAIN);
  span (w, R_INIT, 1, 2);
  for (int i = 0; i < n; i++)
    if (r == 0)
      {
        span (w, R_FOO, t, send_at[i]);
        enter (w, send_at[i], R_SEND);
        OTF2_EvtWriter_MpiSend (w, NULL, send_at[i], 1, 0, 1 + i, len[i]);
        t = slowrdv ? r_send_l[i] : send_at[i] + 1;
        leave (w, t, R_SEND);
      }
    else
      {
        span (w, R_FOO, t, recv_e[i]);
        enter (w, recv_e[i], R_RECV);
        OTF2_EvtWriter_MpiRecv (w, NULL, recv_l[i], 0, 0, 1 + i, len[i]);
        leave (w, recv_l[i], R_RECV);
        t = recv_l[i];
      }
  span (w, R_FOO, t, 50);
  span (w, R_FINALIZE, 50, 55);
  leave (w, 60, R_MAIN);
}

static void
catchup_rank (OTF2_EvtWriter *w, int r)
{
  enter (w, 0, R_MAIN);
  span (w, R_INIT, 1, 2);
  if (r == 0)
    {
      span (w, R_FOO, 2, 10);
      enter (w, 10, R_SEND);
      OTF2_EvtWriter_MpiSend (w, NULL, 10, 1, 0, 1, 8);
      leave (w, 10, R_SEND);
      span (w, R_FOO, 10, 41);
      allreduce (w, 41, 42);
    }
  else
    {
      span (w, R_FOO, 2, 20);
      enter (w, 20, R_RECV);
      OTF2_EvtWriter_MpiRecv (w, NULL, 20, 0, 0, 1, 8);
      leave (w, 20, R_RECV);
      span (w, R_FOO, 20, 30);
      allreduce (w, 30, 42);
    }
  span (w, R_FOO, 42, 50);
  span (w, R_FINALIZE, 50, 55);
  leave (w, 60, R_MAIN);
}

static void
flatline_rank (OTF2_EvtWriter *w, int r)
{
  static const uint64_t took[8] = { 5, 6, 7, 1, 1, 1, 1, 1 }, len[8] = { 0, 0, 0, 8, 8, 8, 8, 8 };
  uint64_t t = 2;
  enter (w, 0, R_MAIN);
  span (w, R_INIT, 1, 2);
  for (int i = 0; i < 8; i++)
    {
      uint64_t at = 10 + 10 * (uint64_t) i;
      if (r == 0)
        {
          span (w, R_FOO, t, at);
          enter (w, at, R_SEND);
          OTF2_EvtWriter_MpiSend (w, NULL, at, 1, 0, 1 + i, len[i]);
          leave (w, at + 1, R_SEND);
          t = at + 1;
        }
      else
        {
          span (w, R_FOO, t, at - 3);
          enter (w, at - 3, R_RECV);
          OTF2_EvtWriter_MpiRecv (w, NULL, at + took[i], 0, 0, 1 + i, len[i]);
          leave (w, at + took[i], R_RECV);
          t = at + took[i];
        }
    }
  span (w, R_FOO, t, 90);
  span (w, R_FINALIZE, 90, 95);
  leave (w, 100, R_MAIN);
}

static void
polls_rank (OTF2_EvtWriter *w, int r)
{
  enter (w, 0, R_MAIN);
  span (w, R_INIT, 1, 2);
  if (r == 0)
    {
      enter (w, 2, R_IRECV);
      OTF2_EvtWriter_MpiIrecvRequest (w, NULL, 3, 5);
      leave (w, 3, R_IRECV);
      span (w, R_FOO, 3, 10);
      span (w, R_TEST, 10, 12);
      span (w, R_FOO, 12, 20);
      for (uint64_t t = 20; t < 23; t++)
        span (w, R_TEST, t, t + 1);
      enter (w, 23, R_WAIT);
      OTF2_EvtWriter_MpiIrecv (w, NULL, 24, 1, 0, 1, 8, 5);
      leave (w, 24, R_WAIT);
      span (w, R_FOO, 24, 30);
    }
  else
    {
      span (w, R_FOO, 2, 22);
      enter (w, 22, R_SEND);
      OTF2_EvtWriter_MpiSend (w, NULL, 22, 0, 0, 1, 8);
      leave (w, 23, R_SEND);
      span (w, R_FOO, 23, 30);
    }
  span (w, R_FINALIZE, 30, 35);
  leave (w, 40, R_MAIN);
}

static void
waits_rank (OTF2_EvtWriter *w, int r)
{
  enter (w, 0, R_MAIN);
  span (w, R_INIT, 1, 2);
  span (w, R_FOO, 2, 3);
  for (uint64_t i = 0; i < 5; i++)
    {
      uint64_t b = 3 + 20 * i;
      if (r == 0)
        {
          enter (w, b, R_ISEND);
          OTF2_EvtWriter_MpiIsend (w, NULL, b, 1, 0, 1, 8, 10 + i);
          leave (w, b + 1, R_ISEND);
          span (w, R_FOO, b + 1, b + 2);
          enter (w, b + 2, R_WAIT);
          OTF2_EvtWriter_MpiIsendComplete (w, NULL, b + 5, 10 + i);
          leave (w, b + 5, R_WAIT);
          enter (w, b + 5, R_IRECV);
          OTF2_EvtWriter_MpiIrecvRequest (w, NULL, b + 6, 20 + i);
          leave (w, b + 6, R_IRECV);
          span (w, R_FOO, b + 6, b + 15);
          enter (w, b + 15, R_WAIT);
          OTF2_EvtWriter_MpiIrecv (w, NULL, b + 16, 1, 0, 2, 8, 20 + i);
          leave (w, b + 16, R_WAIT);
          span (w, R_FOO, b + 16, b + 20);
        }
      else
        {
          enter (w, b, R_RECV);
          OTF2_EvtWriter_MpiRecv (w, NULL, b + 4, 0, 0, 1, 8);
          leave (w, b + 4, R_RECV);
          span (w, R_FOO, b + 4, b + 10);
          enter (w, b + 10, R_SEND);
          OTF2_EvtWriter_MpiSend (w, NULL, b + 10, 0, 0, 2, 8);
          leave (w, b + 11, R_SEND);
          span (w, R_FOO, b + 11, b + 20);
        }
    }
  span (w, R_FINALIZE, 103, 108);
  leave (w, 110, R_MAIN);
}

gboolean
sim_trace_gen_write (const char *dir,
                     const char *variant)
{
  OTF2_Archive *ar;
  OTF2_GlobalDefWriter *gw;
  uint64_t n_events[4] = { 0, 0, 0, 0 };
  int n_ranks = strcmp (variant, "tree") == 0 ? 4 : 2;
  enum { S_EMPTY, S_MPI, S_WORLD, S_MACHINE, S_NODE, S_R0, S_R1, S_R2, S_R3, S_THREAD, S_MCLASS, S_NCLASS, S_REG0 };

  if (strcmp (variant, "exact") && strcmp (variant, "unmatched") && strcmp (variant, "omp")
      && strcmp (variant, "approx") && strcmp (variant, "clockviol") && strcmp (variant, "frames")
      && strcmp (variant, "irecv") && strcmp (variant, "cutcoll") && strcmp (variant, "progress")
      && strcmp (variant, "threadcoll")
      && strcmp (variant, "flush") && strcmp (variant, "tree") && strcmp (variant, "waits")
      && strcmp (variant, "extrapolate") && strcmp (variant, "scatter") && strcmp (variant, "slowrdv")
      && strcmp (variant, "polls") && strcmp (variant, "flatline") && strcmp (variant, "catchup"))
    return FALSE;
  ar = OTF2_Archive_Open (dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                          OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (!ar)
    return FALSE;
  OTF2_Archive_SetFlushCallbacks (ar, &flush, NULL);
  OTF2_Archive_SetSerialCollectiveCallbacks (ar);
  OTF2_Archive_SetCreator (ar, "sim-trace-gen");
  if (strcmp (variant, "threadcoll") == 0)
    OTF2_Archive_SetProperty (ar, "KUBUS::UNTRACED_THREAD_CALLS", "1:1", true);
  OTF2_Archive_OpenEvtFiles (ar);
  for (int r = 0; r < n_ranks; r++)
    {
      OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter (ar, r);
      if (n_ranks == 4)
        tree_rank (w, r);
      else if (strcmp (variant, "waits") == 0)
        waits_rank (w, r);
      else if (strcmp (variant, "polls") == 0)
        polls_rank (w, r);
      else if (strcmp (variant, "flatline") == 0)
        flatline_rank (w, r);
      else if (strcmp (variant, "catchup") == 0)
        catchup_rank (w, r);
      else if (strcmp (variant, "extrapolate") == 0 || strcmp (variant, "scatter") == 0
               || strcmp (variant, "slowrdv") == 0)
        extrapolate_rank (w, r, strcmp (variant, "scatter") == 0, strcmp (variant, "slowrdv") == 0);
      else if (r == 0)
        rank0 (w, variant);
      else
        rank1 (w, variant);
      OTF2_EvtWriter_GetNumberOfEvents (w, &n_events[r]);
      OTF2_Archive_CloseEvtWriter (ar, w);
    }
  OTF2_Archive_CloseEvtFiles (ar);
  OTF2_Archive_OpenDefFiles (ar);
  for (int r = 0; r < n_ranks; r++)
    OTF2_Archive_CloseDefWriter (ar, OTF2_Archive_GetDefWriter (ar, r));
  OTF2_Archive_CloseDefFiles (ar);

  gw = OTF2_Archive_GetGlobalDefWriter (ar);
  OTF2_GlobalDefWriter_WriteClockProperties (gw, 1000, 0, 42, OTF2_UNDEFINED_TIMESTAMP);
  OTF2_GlobalDefWriter_WriteString (gw, S_EMPTY, "");
  OTF2_GlobalDefWriter_WriteString (gw, S_MPI, "MPI");
  OTF2_GlobalDefWriter_WriteString (gw, S_WORLD, "MPI_COMM_WORLD");
  OTF2_GlobalDefWriter_WriteString (gw, S_MACHINE, "machine");
  OTF2_GlobalDefWriter_WriteString (gw, S_NODE, "node0");
  OTF2_GlobalDefWriter_WriteString (gw, S_R0, "MPI Rank 0");
  OTF2_GlobalDefWriter_WriteString (gw, S_R1, "MPI Rank 1");
  OTF2_GlobalDefWriter_WriteString (gw, S_R2, "MPI Rank 2");
  OTF2_GlobalDefWriter_WriteString (gw, S_R3, "MPI Rank 3");
  OTF2_GlobalDefWriter_WriteString (gw, S_THREAD, "Master thread");
  OTF2_GlobalDefWriter_WriteString (gw, S_MCLASS, "machine");
  OTF2_GlobalDefWriter_WriteString (gw, S_NCLASS, "node");
  for (int i = 0; i < N_REG; i++)
    OTF2_GlobalDefWriter_WriteString (gw, S_REG0 + i, reg_names[i]);
  OTF2_GlobalDefWriter_WriteParadigm (gw, OTF2_PARADIGM_MPI, S_MPI, OTF2_PARADIGM_CLASS_PROCESS);
  OTF2_GlobalDefWriter_WriteSystemTreeNode (gw, 0, S_MACHINE, S_MCLASS, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  OTF2_GlobalDefWriter_WriteSystemTreeNode (gw, 1, S_NODE, S_NCLASS, 0);
  for (int r = 0; r < n_ranks; r++)
    {
      OTF2_GlobalDefWriter_WriteLocationGroup (gw, r, S_R0 + r, OTF2_LOCATION_GROUP_TYPE_PROCESS, 1,
                                               OTF2_UNDEFINED_LOCATION_GROUP);
      OTF2_GlobalDefWriter_WriteLocation (gw, r, S_THREAD, OTF2_LOCATION_TYPE_CPU_THREAD, n_events[r], r);
    }
  for (int i = 0; i < N_REG; i++)
    {
      gboolean mpi = i >= R_INIT && i != R_FLUSH;
      OTF2_GlobalDefWriter_WriteRegion (gw, i, S_REG0 + i, S_REG0 + i, S_EMPTY,
                                        i == R_FLUSH ? OTF2_REGION_ROLE_ARTIFICIAL : OTF2_REGION_ROLE_FUNCTION,
                                        i == R_FLUSH ? OTF2_PARADIGM_MEASUREMENT_SYSTEM
                                        : mpi ? OTF2_PARADIGM_MPI
                                        : i == R_MAIN && strcmp (variant, "frames") == 0 ? OTF2_PARADIGM_SAMPLING
                                        : OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE,
                                        mpi ? S_MPI : S_EMPTY, 0, 0);
    }
  {
    uint64_t members[4] = { 0, 1, 2, 3 };
    OTF2_GlobalDefWriter_WriteGroup (gw, 0, S_EMPTY, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                     OTF2_GROUP_FLAG_NONE, (uint32_t) n_ranks, members);
    OTF2_GlobalDefWriter_WriteGroup (gw, 1, S_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                     OTF2_GROUP_FLAG_NONE, (uint32_t) n_ranks, members);
    OTF2_GlobalDefWriter_WriteComm (gw, 0, S_WORLD, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
  }
  OTF2_Archive_CloseGlobalDefWriter (ar, gw);
  return OTF2_Archive_Close (ar) == OTF2_SUCCESS;
}
