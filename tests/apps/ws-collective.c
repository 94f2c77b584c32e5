/* ws-collective.c — collective wait states: Wait at Barrier, Wait at N x N (MPI_Allreduce,
 * MPI_Allgather, MPI_Alltoall), Late Broadcast (MPI_Bcast, MPI_Scatterv, and on a
 * sub-communicator), Early Reduce (MPI_Reduce, MPI_Gatherv, and on a communicator whose rank
 * order is the reverse of the world's), Early Scan (MPI_Scan, MPI_Exscan, and on the reversed
 * communicator) and Wait at Finalize. Ranks arrive staggered
 * (nanosleep); every rank records enter/leave of each collective, one MPI_Allgather at the end
 * shares them, and each rank applies the PATTERNS.md formula to its own calls. */
#include "ws-common.h"

enum
{
  I_BARRIER1,
  I_BARRIER2,
  I_ALLREDUCE1,
  I_ALLREDUCE2,
  I_BCAST_ROOT0,
  I_BCAST_ROOTLAST,
  I_REDUCE_ROOT0,
  I_SCAN,
  I_SUB_BCAST,
  I_EXSCAN,
  I_SCATTERV,
  I_GATHERV,
  I_ALLGATHER,
  I_ALLTOALL,
  I_REV_REDUCE,
  I_REV_SCAN,
  I_SYNC0,                 /* the barriers that separate the stages: waits there count too */
  N_INST = I_SYNC0 + 16
};

static int rank, size;
static double mine[2 * N_INST];

#define E(i) mine[2 * (i)]
#define L(i) mine[2 * (i) + 1]

static int n_sync;

/* A barrier between two stages; ranks that left the previous stage early wait here, so it is
 * measured like every other collective. */
static void
sync_point (void)
{
  int i = I_SYNC0 + n_sync++;
  E (i) = ws_now ();
  MPI_Barrier (MPI_COMM_WORLD);
  L (i) = ws_now ();
}

int
main (int argc, char **argv)
{
  double d, x = 1, y, t0;
  double *all;

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  d = size > 1 ? 0.240 / (size - 1) : 0;   /* the last rank arrives 240 ms late */

  sync_point ();
  ws_sleep_ms (1e3 * d * rank);
  E (I_BARRIER1) = ws_now ();
  MPI_Barrier (MPI_COMM_WORLD);
  L (I_BARRIER1) = ws_now ();

  ws_sleep_ms (1e3 * d * (size - 1 - rank));
  E (I_BARRIER2) = ws_now ();
  MPI_Barrier (MPI_COMM_WORLD);
  L (I_BARRIER2) = ws_now ();

  ws_sleep_ms (1e3 * d * rank);
  E (I_ALLREDUCE1) = ws_now ();
  MPI_Allreduce (&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  L (I_ALLREDUCE1) = ws_now ();

  ws_sleep_ms (rank == 0 ? 200 : 0);
  E (I_ALLREDUCE2) = ws_now ();
  MPI_Allreduce (&x, &y, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  L (I_ALLREDUCE2) = ws_now ();

  /* root late: the others wait */
  ws_sleep_ms (rank == 0 ? 150 : 0);
  E (I_BCAST_ROOT0) = ws_now ();
  MPI_Bcast (&x, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  L (I_BCAST_ROOT0) = ws_now ();

  sync_point ();
  ws_sleep_ms (rank == size - 1 ? 120 : 0);
  E (I_BCAST_ROOTLAST) = ws_now ();
  MPI_Bcast (&x, 1, MPI_DOUBLE, size - 1, MPI_COMM_WORLD);
  L (I_BCAST_ROOTLAST) = ws_now ();

  /* root early: it waits for the senders */
  sync_point ();
  ws_sleep_ms (rank == 0 ? 0 : 100 + 20 * rank);
  E (I_REDUCE_ROOT0) = ws_now ();
  MPI_Reduce (&x, &y, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  L (I_REDUCE_ROOT0) = ws_now ();

  /* higher ranks early: they wait for the lower ones */
  sync_point ();
  ws_sleep_ms (1e3 * d * (size - 1 - rank));
  E (I_SCAN) = ws_now ();
  MPI_Scan (&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  L (I_SCAN) = ws_now ();

  /* a sub-communicator whose local ranks run against the world order (key −rank): local rank 0,
   * the root, is the highest world rank of its colour; it arrives 100 ms late. With 2 ranks
   * the communicators have one member and carry no wait state. */
  {
    MPI_Comm sub;
    int srank, ssize;
    MPI_Comm_split (MPI_COMM_WORLD, rank % 2, -rank, &sub);
    MPI_Comm_rank (sub, &srank);
    MPI_Comm_size (sub, &ssize);
    sync_point ();
    ws_sleep_ms (srank == 0 ? 100 : 0);
    E (I_SUB_BCAST) = ws_now ();
    MPI_Bcast (&x, 1, MPI_DOUBLE, 0, sub);
    L (I_SUB_BCAST) = ws_now ();
    MPI_Comm_free (&sub);
  }

  /* Exscan: higher ranks early, they wait for the lower ones (as MPI_Scan) */
  sync_point ();
  ws_sleep_ms (1e3 * d * (size - 1 - rank));
  E (I_EXSCAN) = ws_now ();
  MPI_Exscan (&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  L (I_EXSCAN) = ws_now ();

  {
    /* Scatterv from a late root 0 (Late Broadcast); Gatherv to an early root 0 (Early Reduce) */
    double *vbuf = calloc (size, sizeof (double));
    int *counts = malloc (sizeof (int) * size), *displs = malloc (sizeof (int) * size);
    for (int r = 0; r < size; r++)
      {
        counts[r] = 1;
        displs[r] = r;
      }
    sync_point ();
    ws_sleep_ms (rank == 0 ? 130 : 0);
    E (I_SCATTERV) = ws_now ();
    MPI_Scatterv (vbuf, counts, displs, MPI_DOUBLE, &y, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    L (I_SCATTERV) = ws_now ();

    sync_point ();
    ws_sleep_ms (rank == 0 ? 0 : 90 + 15 * rank);
    E (I_GATHERV) = ws_now ();
    MPI_Gatherv (&x, 1, MPI_DOUBLE, vbuf, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    L (I_GATHERV) = ws_now ();

    /* N x N: Allgather with rank 0 last, Alltoall staggered */
    sync_point ();
    ws_sleep_ms (rank == 0 ? 110 : 0);
    E (I_ALLGATHER) = ws_now ();
    MPI_Allgather (&x, 1, MPI_DOUBLE, vbuf, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    L (I_ALLGATHER) = ws_now ();

    {
      double *sbuf = calloc (size, sizeof (double));
      sync_point ();
      ws_sleep_ms (1e3 * d * 0.5 * rank);
      E (I_ALLTOALL) = ws_now ();
      MPI_Alltoall (sbuf, 1, MPI_DOUBLE, vbuf, 1, MPI_DOUBLE, MPI_COMM_WORLD);
      L (I_ALLTOALL) = ws_now ();
      free (sbuf);
    }
    free (vbuf);
    free (counts);
    free (displs);
  }

  {
    /* a communicator over all ranks in reverse order: local rank = size − 1 − world rank.
     * Reduce to local root 0 (world rank size − 1), which comes early; Scan in local order with
     * the higher local ranks (lower world ranks) early. A replay in world order gets both wrong. */
    MPI_Comm rev;
    int lrank;
    MPI_Comm_split (MPI_COMM_WORLD, 0, size - 1 - rank, &rev);
    MPI_Comm_rank (rev, &lrank);
    sync_point ();
    ws_sleep_ms (lrank == 0 ? 0 : 80 + 20 * lrank);
    E (I_REV_REDUCE) = ws_now ();
    MPI_Reduce (&x, &y, 1, MPI_DOUBLE, MPI_SUM, 0, rev);
    L (I_REV_REDUCE) = ws_now ();

    sync_point ();
    ws_sleep_ms (1e3 * d * (size - 1 - lrank));
    E (I_REV_SCAN) = ws_now ();
    MPI_Scan (&x, &y, 1, MPI_DOUBLE, MPI_SUM, rev);
    L (I_REV_SCAN) = ws_now ();
    MPI_Comm_free (&rev);
  }

  /* everybody arrives together at the Allgather that shares the times (its own wait is not
   * measured) */
  sync_point ();
  all = malloc (sizeof (double) * 2 * N_INST * size);
  MPI_Allgather (mine, 2 * N_INST, MPI_DOUBLE, all, 2 * N_INST, MPI_DOUBLE, MPI_COMM_WORLD);
#define AE(r, i) all[(r) * 2 * N_INST + 2 * (i)]
  {
    double maxe;
    int bar[] = { I_BARRIER1, I_BARRIER2 };
    int nxn[] = { I_ALLREDUCE1, I_ALLREDUCE2 };
    for (int k = 0; k < n_sync; k++)
      {
        maxe = 0;
        for (int r = 0; r < size; r++)
          maxe = ws_max (maxe, AE (r, I_SYNC0 + k));
        ws_add (WS_BARRIER_WAIT, ws_min (maxe, L (I_SYNC0 + k)) - E (I_SYNC0 + k));
      }
    for (int k = 0; k < 2; k++)
      {
        maxe = 0;
        for (int r = 0; r < size; r++)
          maxe = ws_max (maxe, AE (r, bar[k]));
        ws_add (WS_BARRIER_WAIT, ws_min (maxe, L (bar[k])) - E (bar[k]));
        maxe = 0;
        for (int r = 0; r < size; r++)
          maxe = ws_max (maxe, AE (r, nxn[k]));
        ws_add (WS_WAIT_NXN, ws_min (maxe, L (nxn[k])) - E (nxn[k]));
      }
    if (rank != 0)
      ws_add (WS_LATEBROADCAST, ws_min (AE (0, I_BCAST_ROOT0), L (I_BCAST_ROOT0)) - E (I_BCAST_ROOT0));
    if (rank != size - 1)
      ws_add (WS_LATEBROADCAST,
              ws_min (AE (size - 1, I_BCAST_ROOTLAST), L (I_BCAST_ROOTLAST)) - E (I_BCAST_ROOTLAST));
    {
      /* the sub-communicator root: the highest world rank with my parity */
      int root = rank;
      while (root + 2 < size)
        root += 2;
      if (root != rank)
        ws_add (WS_LATEBROADCAST, ws_min (AE (root, I_SUB_BCAST), L (I_SUB_BCAST)) - E (I_SUB_BCAST));
    }
    ws_declare (WS_LATEBROADCAST);
    if (rank == 0)
      {
        maxe = 0;
        for (int r = 1; r < size; r++)
          maxe = ws_max (maxe, AE (r, I_REDUCE_ROOT0));
        ws_add (WS_EARLYREDUCE, ws_min (maxe, L (I_REDUCE_ROOT0)) - E (I_REDUCE_ROOT0));
      }
    ws_declare (WS_EARLYREDUCE);
    maxe = 0;
    for (int r = 0; r <= rank; r++)
      maxe = ws_max (maxe, AE (r, I_SCAN));
    ws_add (WS_EARLYSCAN, ws_min (maxe, L (I_SCAN)) - E (I_SCAN));
    maxe = 0;
    for (int r = 0; r <= rank; r++)
      maxe = ws_max (maxe, AE (r, I_EXSCAN));
    ws_add (WS_EARLYSCAN, ws_min (maxe, L (I_EXSCAN)) - E (I_EXSCAN));
    /* reversed communicator: the ranks up to me in its order are the world ranks ≥ mine */
    maxe = 0;
    for (int r = rank; r < size; r++)
      maxe = ws_max (maxe, AE (r, I_REV_SCAN));
    ws_add (WS_EARLYSCAN, ws_min (maxe, L (I_REV_SCAN)) - E (I_REV_SCAN));
    if (rank != 0)
      ws_add (WS_LATEBROADCAST, ws_min (AE (0, I_SCATTERV), L (I_SCATTERV)) - E (I_SCATTERV));
    if (rank == 0)
      {
        maxe = 0;
        for (int r = 1; r < size; r++)
          maxe = ws_max (maxe, AE (r, I_GATHERV));
        ws_add (WS_EARLYREDUCE, ws_min (maxe, L (I_GATHERV)) - E (I_GATHERV));
      }
    if (rank == size - 1)
      {
        maxe = 0;
        for (int r = 0; r < size - 1; r++)
          maxe = ws_max (maxe, AE (r, I_REV_REDUCE));
        ws_add (WS_EARLYREDUCE, ws_min (maxe, L (I_REV_REDUCE)) - E (I_REV_REDUCE));
      }
    {
      int more[] = { I_ALLGATHER, I_ALLTOALL };
      for (int k = 0; k < 2; k++)
        {
          maxe = 0;
          for (int r = 0; r < size; r++)
            maxe = ws_max (maxe, AE (r, more[k]));
          ws_add (WS_WAIT_NXN, ws_min (maxe, L (more[k])) - E (more[k]));
        }
    }
  }
  free (all);

  /* Wait at Finalize: rank r enters at t0 + r·d; the planned waits are (size−1−r)·d, the
   * test uses the measured arrivals (ws_finalize) */
  t0 = ws_now () + 0.1;
  MPI_Bcast (&t0, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  ws_add (WS_FINALIZE_WAIT, d * (size - 1 - rank));
  ws_write (argc > 1 ? argv[1] : NULL);
  ws_sleep_until (t0 + d * rank);
  ws_finalize (argc > 1 ? argv[1] : NULL);
  return 0;
}
