/* ws-latereceiver.c — Late Receiver: the sender blocks in MPI_Ssend (and in MPI_Wait after an
 * MPI_Issend) until the late receiver posts its receive. Truth: E(recv) − E(send) when the
 * send was still running at E(recv); the receiver sends its E(recv) back afterwards.
 * Pairs 0→1, 2→3, …; even rank count. */
#include "ws-common.h"

int
main (int argc, char **argv)
{
  int rank, size, partner;
  double buf = 0, er, e, l;

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (size % 2)
    MPI_Abort (MPI_COMM_WORLD, 2);
  partner = rank ^ 1;
  ws_declare (WS_LATERECEIVER);

  for (int i = 0; i < 4; i++)
    {
      double delay = 60 + 30 * i;
      MPI_Barrier (MPI_COMM_WORLD);
      if (rank % 2 == 0)
        {
          MPI_Request req;
          if (i % 2 == 0)
            {
              e = ws_now ();
              MPI_Ssend (&buf, 1, MPI_DOUBLE, partner, i, MPI_COMM_WORLD);
              l = ws_now ();
            }
          else
            {
              MPI_Issend (&buf, 1, MPI_DOUBLE, partner, i, MPI_COMM_WORLD, &req);
              e = ws_now ();
              MPI_Wait (&req, MPI_STATUS_IGNORE);
              l = ws_now ();
            }
          MPI_Recv (&er, 1, MPI_DOUBLE, partner, 100 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          if (l > er)
            ws_add (WS_LATERECEIVER, er - e);
        }
      else
        {
          ws_sleep_ms (delay);
          er = ws_now ();
          MPI_Recv (&buf, 1, MPI_DOUBLE, partner, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send (&er, 1, MPI_DOUBLE, partner, 100 + i, MPI_COMM_WORLD);
        }
    }
  MPI_Barrier (MPI_COMM_WORLD);
  ws_write (argc > 1 ? argv[1] : NULL);
  MPI_Finalize ();
  return 0;
}
