/* ws-nonblocking.c — wait states of non-blocking collectives, on any rank count ≥ 2 (the tests
 * run it on 3 and 4). Each instance: ranks start the collective staggered (nanosleep), compute
 * a while (the overlap the program wants), then complete it:
 *
 *  1  MPI_Ibarrier + MPI_Wait, rank r starts r·d late                     Wait at Barrier
 *  2  MPI_Iallreduce + MPI_Wait, rank r starts (size−1−r)·d late            Wait at N x N
 *  3  MPI_Ibcast from root 0, the root 120 ms late                          Late Broadcast
 *  4  MPI_Ireduce to root 0, the root early, the others staggered           Early Reduce
 *  5  MPI_Iscan, rank r starts (size−1−r)·d late                            Early Scan
 *  6  MPI_Iallgather + MPI_Ialltoall completed by one MPI_Waitall, started
 *     with different staggers: the wait is charged once, the larger         Wait at N x N
 *  7  MPI_Ibarrier completed by an MPI_Test loop: the Test that completes it
 *     comes after every rank started it, so no wait                          (none)
 *  8  MPI_Iallreduce on a communicator in reverse rank order + MPI_Wait      Wait at N x N
 *  9  (twice) rank 0's MPI_Waitall completes an MPI_Irecv from rank 1 and an
 *     MPI_Iallreduce: rank 1 sends 60 ms late and the last rank starts the
 *     collective 100 ms late, then the other way round. Both waits run
 *     from the Waitall's enter, so the call is charged Late Sender as
 *     always and the collective only the part of its wait beyond it: the
 *     call's wait states sum to its largest wait          Late Sender, Wait at N x N
 *
 * Truth (ws-common.h): every rank records the enter time of its MPI_I* call (S) and enter and
 * leave of the call that completes it (E, L); one MPI_Allgather at the end shares them and
 * each rank applies the rule of docs/decisions/2026-11-29-nonblocking-collectives.md to its
 * completing call: max(0, min(last start it depends on, L) − E) — the last member's S for N x N
 * and the barrier, the root's for a non-root of a broadcast, the last non-root's for the root
 * of a reduction, the last S among the ranks up to this one for a scan. The barriers between
 * the stages are measured as Wait at Barrier like every other collective. */
#include "ws-common.h"

enum
{
  I_IBARRIER,
  I_IALLREDUCE,
  I_IBCAST,
  I_IREDUCE,
  I_ISCAN,
  I_IALLGATHER,
  I_IALLTOALL,
  I_REV_IALLREDUCE,
  I_LS_SEND0,     /* 9: S = rank 1's enter of MPI_Send */
  I_LS_COLL0,     /*    S = start of the Iallreduce; E, L: the Waitall (rank 0) or Wait */
  I_LS_SEND1,
  I_LS_COLL1,
  N_NB,
  I_SYNC0 = N_NB, /* the barriers that separate the stages */
  N_INST = I_SYNC0 + 16
};

static int rank, size;
/* per instance: S (start of the MPI_I* call), E and L of the completing call */
static double mine[3 * N_INST];

#define S(i) mine[3 * (i)]
#define E(i) mine[3 * (i) + 1]
#define L(i) mine[3 * (i) + 2]

static int n_sync;

static void
sync_point (void)
{
  int i = I_SYNC0 + n_sync++;
  if (i >= N_INST)
    MPI_Abort (MPI_COMM_WORLD, 2);
  E (i) = ws_now ();
  MPI_Barrier (MPI_COMM_WORLD);
  L (i) = ws_now ();
}

static void
wait_one (int i, MPI_Request *req)
{
  E (i) = ws_now ();
  MPI_Wait (req, MPI_STATUS_IGNORE);
  L (i) = ws_now ();
}

int
main (int argc, char **argv)
{
  double d, x, y, *vbuf, *sbuf;
  double *all;
  MPI_Request req[2];
  MPI_Comm rev;
  int lrank, flag;

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  ws_per_rank = 1;
  d = size > 1 ? 0.150 / (size - 1) : 0; /* the last rank starts 150 ms late */
  x = rank;
  vbuf = calloc (size, sizeof (double));
  sbuf = calloc (size, sizeof (double));

  /* 1: Ibarrier */
  sync_point ();
  ws_sleep_ms (1e3 * d * rank);
  S (I_IBARRIER) = ws_now ();
  MPI_Ibarrier (MPI_COMM_WORLD, &req[0]);
  ws_sleep_ms (20);
  wait_one (I_IBARRIER, &req[0]);

  /* 2: Iallreduce */
  sync_point ();
  ws_sleep_ms (1e3 * d * (size - 1 - rank));
  S (I_IALLREDUCE) = ws_now ();
  MPI_Iallreduce (&x, &y, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &req[0]);
  ws_sleep_ms (20);
  wait_one (I_IALLREDUCE, &req[0]);
  if (y != size - 1)
    MPI_Abort (MPI_COMM_WORLD, 3);

  /* 3: Ibcast, the root late */
  sync_point ();
  ws_sleep_ms (rank == 0 ? 120 : 0);
  S (I_IBCAST) = ws_now ();
  y = rank == 0 ? 42 : 0;
  MPI_Ibcast (&y, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD, &req[0]);
  ws_sleep_ms (10);
  wait_one (I_IBCAST, &req[0]);
  if (y != 42)
    MPI_Abort (MPI_COMM_WORLD, 4);

  /* 4: Ireduce, the root early */
  sync_point ();
  ws_sleep_ms (rank == 0 ? 0 : 40 + 1e3 * d * rank);
  S (I_IREDUCE) = ws_now ();
  MPI_Ireduce (&x, &y, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD, &req[0]);
  ws_sleep_ms (10);
  wait_one (I_IREDUCE, &req[0]);

  /* 5: Iscan, the higher ranks early */
  sync_point ();
  ws_sleep_ms (1e3 * d * (size - 1 - rank));
  S (I_ISCAN) = ws_now ();
  MPI_Iscan (&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req[0]);
  ws_sleep_ms (10);
  wait_one (I_ISCAN, &req[0]);

  /* 6: Iallgather (rank 0 late) and Ialltoall (the last rank later still), one Waitall */
  sync_point ();
  ws_sleep_ms (rank == 0 ? 60 : 0);
  S (I_IALLGATHER) = ws_now ();
  MPI_Iallgather (&x, 1, MPI_DOUBLE, vbuf, 1, MPI_DOUBLE, MPI_COMM_WORLD, &req[0]);
  ws_sleep_ms (rank == size - 1 ? 90 : 0);
  S (I_IALLTOALL) = ws_now ();
  MPI_Ialltoall (sbuf, 1, MPI_DOUBLE, vbuf, 1, MPI_DOUBLE, MPI_COMM_WORLD, &req[1]);
  ws_sleep_ms (10);
  E (I_IALLGATHER) = E (I_IALLTOALL) = ws_now ();
  MPI_Waitall (2, req, MPI_STATUSES_IGNORE);
  L (I_IALLGATHER) = L (I_IALLTOALL) = ws_now ();

  /* 7: Ibarrier completed by testing */
  sync_point ();
  ws_sleep_ms (1e3 * d * rank);
  MPI_Ibarrier (MPI_COMM_WORLD, &req[0]);
  flag = 0;
  while (!flag)
    {
      ws_sleep_ms (2);
      MPI_Test (&req[0], &flag, MPI_STATUS_IGNORE);
    }

  /* 8: a communicator in reverse order, its local rank 0 (the last world rank) late */
  MPI_Comm_split (MPI_COMM_WORLD, 0, size - 1 - rank, &rev);
  MPI_Comm_rank (rev, &lrank);
  sync_point ();
  ws_sleep_ms (lrank == 0 ? 100 : 0);
  S (I_REV_IALLREDUCE) = ws_now ();
  MPI_Iallreduce (&x, &y, 1, MPI_DOUBLE, MPI_SUM, rev, &req[0]);
  wait_one (I_REV_IALLREDUCE, &req[0]);
  MPI_Comm_free (&rev);

  /* 9: one Waitall completes a late receive and a late collective (rank 0) */
  for (int k = 0; k < 2; k++)
    {
      int is = k ? I_LS_SEND1 : I_LS_SEND0, ic = k ? I_LS_COLL1 : I_LS_COLL0;
      double late_send = k ? 100 : 60, late_coll = k ? 60 : 100;
      sync_point ();
      if (rank == 0)
        MPI_Irecv (&y, 1, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD, &req[0]);
      if (rank == size - 1)
        ws_sleep_ms (late_coll);
      S (ic) = ws_now ();
      MPI_Iallreduce (&x, vbuf, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req[1]);
      if (rank == 0)
        {
          ws_sleep_ms (10);
          E (ic) = ws_now ();
          MPI_Waitall (2, req, MPI_STATUSES_IGNORE);
          L (ic) = ws_now ();
          ws_count_recv (sizeof (double));
        }
      else
        {
          if (rank == 1)
            {
              ws_sleep_ms (late_send);
              S (is) = ws_now ();
              MPI_Send (&x, 1, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD);
              ws_count_send (sizeof (double));
            }
          wait_one (ic, &req[1]);
        }
    }

  /* everybody arrives together at the Allgather that shares the times */
  sync_point ();
  all = malloc (sizeof (double) * 3 * N_INST * size);
  MPI_Allgather (mine, 3 * N_INST, MPI_DOUBLE, all, 3 * N_INST, MPI_DOUBLE, MPI_COMM_WORLD);
#define AS(r, i) all[(r) * 3 * N_INST + 3 * (i)]
#define AE(r, i) all[(r) * 3 * N_INST + 3 * (i) + 1]
  {
    double last;
    for (int k = 0; k < n_sync; k++)
      {
        last = 0;
        for (int r = 0; r < size; r++)
          last = ws_max (last, AE (r, I_SYNC0 + k));
        ws_add (WS_BARRIER_WAIT, ws_min (last, L (I_SYNC0 + k)) - E (I_SYNC0 + k));
      }
    /* 1 */
    last = 0;
    for (int r = 0; r < size; r++)
      last = ws_max (last, AS (r, I_IBARRIER));
    ws_add (WS_BARRIER_WAIT, ws_min (last, L (I_IBARRIER)) - E (I_IBARRIER));
    /* 2, 8 */
    int nxn[] = { I_IALLREDUCE, I_REV_IALLREDUCE };
    for (int k = 0; k < 2; k++)
      {
        last = 0;
        for (int r = 0; r < size; r++)
          last = ws_max (last, AS (r, nxn[k]));
        ws_add (WS_WAIT_NXN, ws_min (last, L (nxn[k])) - E (nxn[k]));
      }
    /* 3 */
    if (rank != 0)
      ws_add (WS_LATEBROADCAST, ws_min (AS (0, I_IBCAST), L (I_IBCAST)) - E (I_IBCAST));
    ws_declare (WS_LATEBROADCAST);
    /* 4 */
    if (rank == 0)
      {
        last = 0;
        for (int r = 1; r < size; r++)
          last = ws_max (last, AS (r, I_IREDUCE));
        ws_add (WS_EARLYREDUCE, ws_min (last, L (I_IREDUCE)) - E (I_IREDUCE));
      }
    ws_declare (WS_EARLYREDUCE);
    /* 5 */
    last = 0;
    for (int r = 0; r <= rank; r++)
      last = ws_max (last, AS (r, I_ISCAN));
    ws_add (WS_EARLYSCAN, ws_min (last, L (I_ISCAN)) - E (I_ISCAN));
    /* 6: one call, charged once: the larger of its two waits */
    {
      double w = 0;
      int two[] = { I_IALLGATHER, I_IALLTOALL };
      for (int k = 0; k < 2; k++)
        {
          last = 0;
          for (int r = 0; r < size; r++)
            last = ws_max (last, AS (r, two[k]));
          w = ws_max (w, ws_min (last, L (two[k])) - E (two[k]));
        }
      ws_add (WS_WAIT_NXN, w);
    }
    /* 9: the receive's wait is Late Sender, the collective's only beyond it */
    for (int k = 0; k < 2; k++)
      {
        int is = k ? I_LS_SEND1 : I_LS_SEND0, ic = k ? I_LS_COLL1 : I_LS_COLL0;
        double ls = 0, coll;
        last = 0;
        for (int r = 0; r < size; r++)
          last = ws_max (last, AS (r, ic));
        coll = ws_min (last, L (ic)) - E (ic);
        if (rank == 0)
          ls = ws_max (0, ws_min (AS (1, is), L (ic)) - E (ic));
        ws_add (WS_LATESENDER, ls);
        ws_add (WS_WAIT_NXN, coll - ls);
      }
    ws_declare (WS_LATERECEIVER);
  }
  free (all);
  free (vbuf);
  free (sbuf);

  /* Wait at Finalize: rank r enters at t0 + r·d */
  double t0 = ws_now () + 0.1;
  MPI_Bcast (&t0, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  ws_add (WS_FINALIZE_WAIT, d * (size - 1 - rank));
  ws_write (argc > 1 ? argv[1] : NULL);
  ws_sleep_until (t0 + d * rank);
  ws_finalize (argc > 1 ? argv[1] : NULL);
  return 0;
}
