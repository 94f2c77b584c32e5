/* ws-wrongorder.c — Messages in Wrong Order. Rank 0 receives a late message B first while an
 * earlier-sent message A is still unreceived; B's Late Sender wait moves into
 * mpi_latesender_wo. Same source: rank 1 sends A then, 100 ms later, B. Different sources
 * (3+ ranks): rank 2 sends A at once, rank 1 sends B 100 ms later. Payloads carry the send
 * times, so rank 0 applies the definition itself. */
#include "ws-common.h"

static double
recv_time (int src, int tag, double *es)
{
  double e = ws_now ();
  MPI_Recv (es, 1, MPI_DOUBLE, src, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return ws_min (*es, ws_now ()) - e;
}

int
main (int argc, char **argv)
{
  int rank, size;
  double es;

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  ws_declare (WS_LATESENDER);
  ws_declare (WS_LATESENDER_WO);
  ws_declare (WS_LSWO_SAME);
  ws_declare (WS_LSWO_DIFFERENT);

  for (int round = 0; round < 2; round++)
    {
      /* same source */
      MPI_Barrier (MPI_COMM_WORLD);
      if (rank == 1)
        {
          es = ws_now ();
          MPI_Send (&es, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
          ws_sleep_ms (100 + 20 * round);
          es = ws_now ();
          MPI_Send (&es, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
        }
      else if (rank == 0)
        {
          double a, b, wb, wa;
          wb = recv_time (1, 2, &b);  /* waits for B */
          wa = recv_time (1, 1, &a);  /* A was sent before B: B's wait is wrong order */
          ws_add (WS_LATESENDER, wb);
          ws_add (WS_LATESENDER, wa);
          if (a < b && wb > 0)
            {
              ws_add (WS_LATESENDER_WO, wb);
              ws_add (WS_LSWO_SAME, wb);
            }
        }
      /* different sources */
      MPI_Barrier (MPI_COMM_WORLD);
      if (size >= 3)
        {
          if (rank == 2)
            {
              es = ws_now ();
              MPI_Send (&es, 1, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD);
            }
          else if (rank == 1)
            {
              ws_sleep_ms (110 + 20 * round);
              es = ws_now ();
              MPI_Send (&es, 1, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD);
            }
          else if (rank == 0)
            {
              double a, b, wb, wa;
              wb = recv_time (1, 4, &b);
              wa = recv_time (2, 3, &a);
              ws_add (WS_LATESENDER, wb);
              ws_add (WS_LATESENDER, wa);
              if (a < b && wb > 0)
                {
                  ws_add (WS_LATESENDER_WO, wb);
                  ws_add (WS_LSWO_DIFFERENT, wb);
                }
            }
        }
    }
  MPI_Barrier (MPI_COMM_WORLD);
  ws_write (argc > 1 ? argv[1] : NULL);
  MPI_Finalize ();
  return 0;
}
