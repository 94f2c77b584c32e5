/* ws-aborted.c — a run that ends in MPI_Abort with messages nobody received. First a Late
 * Sender of known size (rank 0 sends to rank 1 50 ms late; truth measured as in
 * ws-latesender.c: E(send) travels in the payload), written to argv[1] while all ranks are
 * alive. Then every rank but 1 sends one small message to rank 1 and waits for an answer that
 * never comes; rank 1 probes for the messages (so the sends have happened) without receiving
 * them and aborts (exit status 3): the trace holds size − 1 sends that were never received.
 * At least 2 ranks. */
#include "ws-common.h"

int
main (int argc, char **argv)
{
  int rank, size, x = 0;
  double e, l, es;

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (size < 2)
    MPI_Abort (MPI_COMM_WORLD, 2);
  ws_declare (WS_LATESENDER);

  MPI_Barrier (MPI_COMM_WORLD);
  if (rank == 0)
    {
      ws_sleep_ms (50);
      es = ws_now ();
      MPI_Send (&es, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
    }
  else if (rank == 1)
    {
      e = ws_now ();
      MPI_Recv (&es, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      l = ws_now ();
      ws_add (WS_LATESENDER, ws_min (es, l) - e);
    }
  ws_write (argc > 1 ? argv[1] : NULL);

  if (rank == 1)
    {
      /* wait until every other rank's message is here (so its send is in the trace), without
       * receiving it */
      for (int r = 0; r < size; r++)
        if (r != 1)
          MPI_Probe (r, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf ("ws-aborted: rank 1 aborts\n");
      fflush (stdout);
      MPI_Abort (MPI_COMM_WORLD, 3);
    }
  MPI_Send (&x, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
  MPI_Recv (&x, 1, MPI_INT, 1, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize ();
  return 0;
}
