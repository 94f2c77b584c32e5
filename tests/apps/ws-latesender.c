/* ws-latesender.c — Late Sender in every point-to-point form: MPI_Recv, MPI_Irecv + MPI_Wait,
 * MPI_Irecv ×2 + MPI_Waitall (charged once: the larger wait), MPI_Waitany and MPI_Waitsome
 * (each call charged once, with the largest wait among the messages it completed), an MPI_Test
 * loop (MPI_Test never waits), MPI_Sendrecv, a sub-communicator, a wildcard receive and a
 * zero-byte message. Every message is counted (ws_count_*). Ranks pair up (0↔1, 2↔3, …); the sender sleeps, the receiver waits.
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
      ws_count_send (sizeof es);
      return;
    }
  e = ws_now ();
  MPI_Recv (&es, 1, MPI_DOUBLE, partner, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  l = ws_now ();
  ws_count_recv (sizeof es);
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
      ws_count_send (sizeof es);
      return;
    }
  MPI_Irecv (&es, 1, MPI_DOUBLE, partner, 7, MPI_COMM_WORLD, &req);
  e = ws_now ();
  MPI_Wait (&req, MPI_STATUS_IGNORE);
  l = ws_now ();
  ws_count_recv (sizeof es);
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
      ws_count_send (sizeof es[0]);
      ws_count_send (sizeof es[1]);
      return;
    }
  MPI_Irecv (&es[0], 1, MPI_DOUBLE, partner, 11, MPI_COMM_WORLD, &req[0]);
  MPI_Irecv (&es[1], 1, MPI_DOUBLE, partner, 12, MPI_COMM_WORLD, &req[1]);
  e = ws_now ();
  MPI_Waitall (2, req, MPI_STATUSES_IGNORE);
  l = ws_now ();
  ws_count_recv (sizeof es[0]);
  ws_count_recv (sizeof es[1]);
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
      ws_count_recv (sizeof mine);
      ws_count_send (sizeof es);
      return;
    }
  mine = 0;
  e = ws_now ();
  MPI_Sendrecv (&mine, 1, MPI_DOUBLE, partner, 21, &es, 1, MPI_DOUBLE, partner, 22, MPI_COMM_WORLD,
                MPI_STATUS_IGNORE);
  l = ws_now ();
  ws_count_send (sizeof mine);
  ws_count_recv (sizeof es);
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
      ws_count_send (sizeof es);
    }
  else
    {
      e = ws_now ();
      MPI_Recv (&es, 1, MPI_DOUBLE, 1 - prank, 31, pair, MPI_STATUS_IGNORE);
      l = ws_now ();
      ws_count_recv (sizeof es);
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
      ws_count_send (sizeof es);
      return;
    }
  e = ws_now ();
  MPI_Recv (&es, 1, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  l = ws_now ();
  ws_count_recv (sizeof es);
  ws_add (WS_LATESENDER, ws_min (es, l) - e);
}

/* Two messages, sent @d1_ms and @d1_ms + @d2_ms after the start, received by MPI_Waitany
 * (@some = 0) or MPI_Waitsome (@some = 1) calls until both are in: each call is charged once,
 * with the largest min(E(send), L) − E among the messages it completed. */
static void
late_wait_some (double d1_ms, double d2_ms, int some)
{
  double e, l, es[2];
  MPI_Request req[2];
  int left = 2;
  if (!receiver)
    {
      ws_sleep_ms (d1_ms);
      es[0] = ws_now ();
      MPI_Send (&es[0], 1, MPI_DOUBLE, partner, 51, MPI_COMM_WORLD);
      ws_sleep_ms (d2_ms);
      es[1] = ws_now ();
      MPI_Send (&es[1], 1, MPI_DOUBLE, partner, 52, MPI_COMM_WORLD);
      ws_count_send (sizeof es[0]);
      ws_count_send (sizeof es[1]);
      return;
    }
  MPI_Irecv (&es[0], 1, MPI_DOUBLE, partner, 51, MPI_COMM_WORLD, &req[0]);
  MPI_Irecv (&es[1], 1, MPI_DOUBLE, partner, 52, MPI_COMM_WORLD, &req[1]);
  while (left > 0)
    {
      int idx[2], n = 0;
      double w = 0;
      e = ws_now ();
      if (some)
        MPI_Waitsome (2, req, &n, idx, MPI_STATUSES_IGNORE);
      else
        {
          MPI_Waitany (2, req, &idx[0], MPI_STATUS_IGNORE);
          n = 1;
        }
      l = ws_now ();
      for (int k = 0; k < n; k++)
        {
          w = ws_max (w, ws_min (es[idx[k]], l) - e);
          ws_count_recv (sizeof es[0]);
        }
      ws_add (WS_LATESENDER, w);
      left -= n;
    }
}

/* MPI_Test never waits: the receiver polls with MPI_Test (sleeping in between) while the sender
 * is late; nothing of that is Late Sender. */
static void
late_test (double delay_ms)
{
  double es;
  MPI_Request req;
  int done = 0;
  if (!receiver)
    {
      ws_sleep_ms (delay_ms);
      es = ws_now ();
      MPI_Send (&es, 1, MPI_DOUBLE, partner, 61, MPI_COMM_WORLD);
      ws_count_send (sizeof es);
      return;
    }
  MPI_Irecv (&es, 1, MPI_DOUBLE, partner, 61, MPI_COMM_WORLD, &req);
  while (!done)
    {
      MPI_Test (&req, &done, MPI_STATUS_IGNORE);
      if (!done)
        ws_sleep_ms (2);
    }
  ws_count_recv (sizeof es);
}

/* A zero-byte message (a synchronisation, syncs_send/syncs_recv) from a late sender; its enter
 * time follows in a second message. */
static void
late_zero (double delay_ms)
{
  double e, l, es[2];
  if (!receiver)
    {
      ws_sleep_ms (delay_ms);
      es[0] = ws_now ();
      MPI_Send (NULL, 0, MPI_BYTE, partner, 71, MPI_COMM_WORLD);
      ws_count_send (0);
      es[1] = ws_now ();
      MPI_Send (es, 2, MPI_DOUBLE, partner, 72, MPI_COMM_WORLD);
      ws_count_send (sizeof es);
      return;
    }
  e = ws_now ();
  MPI_Recv (NULL, 0, MPI_BYTE, partner, 71, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  l = ws_now ();
  ws_count_recv (0);
  {
    double e2 = ws_now (), l2;
    MPI_Recv (es, 2, MPI_DOUBLE, partner, 72, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    l2 = ws_now ();
    ws_count_recv (sizeof es);
    ws_add (WS_LATESENDER, ws_min (es[0], l) - e);
    ws_add (WS_LATESENDER, ws_min (es[1], l2) - e2);
  }
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
  late_wait_some (60, 70, 0);
  late_wait_some (50, 80, 1);
  late_test (90);
  late_zero (60);

  ws_write (argc > 1 ? argv[1] : NULL);
  MPI_Finalize ();
  return 0;
}
