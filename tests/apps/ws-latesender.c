/* ws-latesender.c — Late Sender in every point-to-point form: MPI_Recv, MPI_Irecv + MPI_Wait,
 * MPI_Irecv ×2 + MPI_Waitall (charged once: the larger wait), MPI_Sendrecv, a sub-communicator
 * and a wildcard receive. Ranks pair up (0↔1, 2↔3, …); the sender sleeps, the receiver waits.
 * The sender's enter time travels in the payload, so the receiver computes the truth:
 * max(0, min(E(send), L(recv)) − E(recv)). Even rank count. */
#include "ws-common.h"

static int rank, size, partner;
static int receiver;

static void
late_recv (double delay_ms, int tag)
{
  double e, l, es;
  if (!receiver)
    {
      ws_sleep_ms (delay_ms);
      es = ws_now ();
      MPI_Send (&es, 1, MPI_DOUBLE, partner, tag, MPI_COMM_WORLD);
      return;
    }
  e = ws_now ();
  MPI_Recv (&es, 1, MPI_DOUBLE, partner, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  l = ws_now ();
  ws_add (WS_LATESENDER, ws_min (es, l) - e);
}

static void
late_wait (double delay_ms)
{
  double e, l, es;
  MPI_Request req;
  if (!receiver)
    {
      ws_sleep_ms (delay_ms);
      es = ws_now ();
      MPI_Send (&es, 1, MPI_DOUBLE, partner, 7, MPI_COMM_WORLD);
      return;
    }
  MPI_Irecv (&es, 1, MPI_DOUBLE, partner, 7, MPI_COMM_WORLD, &req);
  e = ws_now ();
  MPI_Wait (&req, MPI_STATUS_IGNORE);
  l = ws_now ();
  ws_add (WS_LATESENDER, ws_min (es, l) - e);
}

static void
late_waitall (double d1_ms, double d2_ms)
{
  double e, l, es[2];
  MPI_Request req[2];
  if (!receiver)
    {
      MPI_Request sreq;
      ws_sleep_ms (d1_ms);
      es[0] = ws_now ();
      MPI_Isend (&es[0], 1, MPI_DOUBLE, partner, 11, MPI_COMM_WORLD, &sreq);
      MPI_Wait (&sreq, MPI_STATUS_IGNORE);
      ws_sleep_ms (d2_ms);
      es[1] = ws_now ();
      MPI_Send (&es[1], 1, MPI_DOUBLE, partner, 12, MPI_COMM_WORLD);
      return;
    }
  MPI_Irecv (&es[0], 1, MPI_DOUBLE, partner, 11, MPI_COMM_WORLD, &req[0]);
  MPI_Irecv (&es[1], 1, MPI_DOUBLE, partner, 12, MPI_COMM_WORLD, &req[1]);
  e = ws_now ();
  MPI_Waitall (2, req, MPI_STATUSES_IGNORE);
  l = ws_now ();
  /* charged once: the largest wait among the completed messages */
  ws_add (WS_LATESENDER, ws_max (ws_min (es[0], l) - e, ws_min (es[1], l) - e));
}

static void
late_sendrecv (double delay_ms)
{
  /* the receiver does MPI_Sendrecv, the late sender a plain MPI_Recv + MPI_Send */
  double e, l, mine, es;
  if (!receiver)
    {
      ws_sleep_ms (delay_ms);
      MPI_Recv (&mine, 1, MPI_DOUBLE, partner, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      es = ws_now ();
      MPI_Send (&es, 1, MPI_DOUBLE, partner, 22, MPI_COMM_WORLD);
      return;
    }
  mine = 0;
  e = ws_now ();
  MPI_Sendrecv (&mine, 1, MPI_DOUBLE, partner, 21, &es, 1, MPI_DOUBLE, partner, 22, MPI_COMM_WORLD,
                MPI_STATUS_IGNORE);
  l = ws_now ();
  ws_add (WS_LATESENDER, ws_min (es, l) - e);
}

static void
late_subcomm (double delay_ms)
{
  /* pairs become a communicator of their own; local ranks 0/1 there */
  MPI_Comm pair;
  int prank;
  double e, l, es;
  MPI_Comm_split (MPI_COMM_WORLD, rank / 2, rank, &pair);
  MPI_Comm_rank (pair, &prank);
  if (!receiver)
    {
      ws_sleep_ms (delay_ms);
      es = ws_now ();
      MPI_Send (&es, 1, MPI_DOUBLE, 1 - prank, 31, pair);
    }
  else
    {
      e = ws_now ();
      MPI_Recv (&es, 1, MPI_DOUBLE, 1 - prank, 31, pair, MPI_STATUS_IGNORE);
      l = ws_now ();
      ws_add (WS_LATESENDER, ws_min (es, l) - e);
    }
  MPI_Comm_free (&pair);
}

static void
late_wildcard (double delay_ms)
{
  double e, l, es;
  if (!receiver)
    {
      ws_sleep_ms (delay_ms);
      es = ws_now ();
      MPI_Send (&es, 1, MPI_DOUBLE, partner, 41, MPI_COMM_WORLD);
      return;
    }
  e = ws_now ();
  MPI_Recv (&es, 1, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  l = ws_now ();
  ws_add (WS_LATESENDER, ws_min (es, l) - e);
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (size % 2)
    {
      if (rank == 0)
        fprintf (stderr, "ws-latesender: needs an even number of ranks\n");
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
  partner = rank ^ 1;
  receiver = rank % 2 == 1;
  ws_declare (WS_LATESENDER);
  ws_declare (WS_LATESENDER_WO);

  late_recv (120, 1);
  late_recv (60, 2);
  late_wait (100);
  late_waitall (50, 80);
  late_sendrecv (90);
  late_subcomm (70);
  late_wildcard (110);

  ws_write (argc > 1 ? argv[1] : NULL);
  MPI_Finalize ();
  return 0;
}
