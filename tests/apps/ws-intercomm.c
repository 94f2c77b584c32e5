/* ws-intercomm.c — wait states across an inter-communicator and on communicators made from it.
 *
 * The world splits into two halves (lower: world ranks 0 … n/2−1, upper: the rest), which
 * MPI_Intercomm_create joins. Local rank i of the lower half pairs with local rank i of the
 * upper half (remote rank i on the inter-communicator):
 *   A  Late Sender over the inter-communicator: the lower rank sleeps, then MPI_Send; the upper
 *      one waits in MPI_Recv, then in MPI_Irecv + MPI_Wait (the other direction too: the upper
 *      rank sends late to the lower one)
 *   B  the same over an MPI_Comm_dup and an MPI_Comm_idup of the inter-communicator (freed
 *      afterwards)
 *   C  MPI_Intercomm_merge: Wait at Barrier (ranks arrive staggered) and Late Broadcast (the
 *      root, the last merged rank, comes late), then a Late Broadcast on an MPI_Comm_idup of the
 *      merged communicator
 * The sender's enter time travels in the payload; the collectives' enter/leave times are shared
 * by one MPI_Allgather at the end, and each rank applies the PATTERNS.md formula to its own
 * calls (per rank, ws_per_rank). Even rank count. */
#include "ws-common.h"

enum
{
  I_BARRIER,
  I_BCAST,
  I_IDUP_BCAST,
  N_INST
};

static int rank, size, half, lower, lrank;
static double mine[2 * N_INST];

#define E(i) mine[2 * (i)]
#define L(i) mine[2 * (i) + 1]

/* A Late Sender of @delay_ms on @comm (an inter-communicator): @sender_lower says which half
 * sends; the partner is remote rank lrank. @wait: the receiver uses MPI_Irecv + MPI_Wait. */
static void
late_inter (MPI_Comm comm, int sender_lower, double delay_ms, int tag, int wait)
{
  double e, l, es;
  if (lower == sender_lower)
    {
      ws_sleep_ms (delay_ms);
      es = ws_now ();
      MPI_Send (&es, 1, MPI_DOUBLE, lrank, tag, comm);
      ws_count_send (sizeof es);
      return;
    }
  if (wait)
    {
      MPI_Request req;
      MPI_Irecv (&es, 1, MPI_DOUBLE, lrank, tag, comm, &req);
      e = ws_now ();
      MPI_Wait (&req, MPI_STATUS_IGNORE);
    }
  else
    {
      e = ws_now ();
      MPI_Recv (&es, 1, MPI_DOUBLE, lrank, tag, comm, MPI_STATUS_IGNORE);
    }
  l = ws_now ();
  ws_count_recv (sizeof es);
  ws_add (WS_LATESENDER, ws_min (es, l) - e);
}

int
main (int argc, char **argv)
{
  MPI_Comm local, inter, dup, idup, merged, midup;
  MPI_Request req;
  int mrank, msize;
  double x = 1, *all;

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (size % 2)
    {
      if (rank == 0)
        fprintf (stderr, "ws-intercomm: needs an even number of ranks\n");
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
  ws_per_rank = 1;
  ws_declare (WS_LATESENDER);
  ws_declare (WS_LATESENDER_WO);
  ws_declare (WS_BARRIER_WAIT);
  ws_declare (WS_LATEBROADCAST);
  half = size / 2;
  lower = rank < half;
  MPI_Comm_split (MPI_COMM_WORLD, !lower, rank, &local);
  MPI_Comm_rank (local, &lrank);
  MPI_Intercomm_create (local, 0, MPI_COMM_WORLD, lower ? half : 0, 99, &inter);

  /* A */
  late_inter (inter, 1, 120, 1, 0);
  late_inter (inter, 1, 80, 2, 1);
  late_inter (inter, 0, 100, 3, 0);

  /* B */
  MPI_Comm_dup (inter, &dup);
  late_inter (dup, 1, 90, 1, 0);
  MPI_Comm_free (&dup);
  MPI_Comm_idup (inter, &idup, &req);
  MPI_Wait (&req, MPI_STATUS_IGNORE);
  late_inter (idup, 0, 70, 1, 1);
  MPI_Comm_free (&idup);

  /* C: the upper half comes second in the merged communicator, so its order is the world's */
  MPI_Intercomm_merge (inter, !lower, &merged);
  MPI_Comm_rank (merged, &mrank);
  MPI_Comm_size (merged, &msize);
  MPI_Barrier (merged);
  ws_sleep_ms (30.0 * mrank);
  E (I_BARRIER) = ws_now ();
  MPI_Barrier (merged);
  L (I_BARRIER) = ws_now ();
  if (mrank == msize - 1)
    ws_sleep_ms (110);
  E (I_BCAST) = ws_now ();
  MPI_Bcast (&x, 1, MPI_DOUBLE, msize - 1, merged);
  L (I_BCAST) = ws_now ();
  MPI_Comm_idup (merged, &midup, &req);
  MPI_Wait (&req, MPI_STATUS_IGNORE);
  if (mrank == 0)
    ws_sleep_ms (90);
  E (I_IDUP_BCAST) = ws_now ();
  MPI_Bcast (&x, 1, MPI_DOUBLE, 0, midup);
  L (I_IDUP_BCAST) = ws_now ();
  MPI_Comm_free (&midup);

  /* the truth: everybody arrives together at the Allgather that shares the times */
  all = malloc (sizeof (double) * 2 * N_INST * (size_t) size);
  MPI_Allgather (mine, 2 * N_INST, MPI_DOUBLE, all, 2 * N_INST, MPI_DOUBLE, merged);
#define AE(r, i) all[(r) * 2 * N_INST + 2 * (i)]
  {
    double maxe = 0;
    for (int r = 0; r < msize; r++)
      maxe = ws_max (maxe, AE (r, I_BARRIER));
    ws_add (WS_BARRIER_WAIT, ws_min (maxe, L (I_BARRIER)) - E (I_BARRIER));
    if (mrank != msize - 1)
      ws_add (WS_LATEBROADCAST, ws_min (AE (msize - 1, I_BCAST), L (I_BCAST)) - E (I_BCAST));
    if (mrank != 0)
      ws_add (WS_LATEBROADCAST,
              ws_min (AE (0, I_IDUP_BCAST), L (I_IDUP_BCAST)) - E (I_IDUP_BCAST));
  }
  free (all);
  MPI_Comm_free (&merged);
  MPI_Comm_free (&inter);
  MPI_Comm_free (&local);

  ws_write (argc > 1 ? argv[1] : NULL);
  MPI_Finalize ();
  return 0;
}
