/* sim-poll.c — the polling test program of the simulator (tests/sim, issue 21): a loop of about
 * a million MPI_Test calls that complete nothing, as HPCC's RandomAccess makes.
 *
 * Rank 1 sends MESSAGES messages of 16 KB (above the shared memory eager limit: the rendezvous
 * needs rank 0 to make progress in its polls) to rank 0, computing GAP_US between them. Rank 0
 * posts a receive and polls it with MPI_Test until it completes, POLLS times in all: the calls
 * that find nothing are most of the trace (about 10^6 with the collector's cost per call). An
 * argument N sends N messages instead (the sanitized tests: fewer); "count" makes rank 0 print
 * how many polls it made. Computation is nanosleep (exact on a busy machine).
 *
 * "both": both ranks poll, as in HPCC's RandomAccess. Rank 1 starts an 8 KB send to rank 0 and
 * polls with MPI_Testany for a token that rank 0 sends a while after it has the data; rank 0
 * computes, then polls its receive of the data. A rendezvous's data move only while both sides
 * are in MPI: rank 0's receive needs rank 1's polls to make progress (the re-enactment skipped
 * that progress in tight polling loops: 1.2 ms per HPCC receive). */
#include "ws-common.h"
#include "sim-common.h"

#define MESSAGES 500
#define GAP_US 4000
#define BYTES 16384
#define BOTH_BYTES 8192
#define BOTH_GAP_US 2000

int
main (int    argc,
      char **argv)
{
  int rank, messages = MESSAGES, count = 0, both = 0;
  long polls = 0;
  static char buf[BYTES];

  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "count") == 0)
      count = 1;
    else if (strcmp (argv[i], "both") == 0)
      both = 1;
    else if (atoi (argv[i]) > 0)
      messages = atoi (argv[i]);
  MPI_Init (&argc, &argv);
  sim_app_precise ();
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Barrier (MPI_COMM_WORLD);
  for (int m = 0; both && m < messages; m++)
    {
      static char data[BOTH_BYTES];
      int token = m, idx, done = 0;
      MPI_Request rq[2];
      if (rank == 1)
        {
          /* the data out, then polls for the token that rank 0 sends once it has them */
          MPI_Irecv (&token, 1, MPI_INT, 0, m, MPI_COMM_WORLD, &rq[0]);
          MPI_Isend (data, BOTH_BYTES, MPI_BYTE, 0, m, MPI_COMM_WORLD, &rq[1]);
          while (!done)
            {
              MPI_Testany (1, &rq[0], &idx, &done, MPI_STATUS_IGNORE);
              polls++;
            }
          MPI_Wait (&rq[1], MPI_STATUS_IGNORE);
        }
      else if (rank == 0)
        {
          ws_sleep_ms (BOTH_GAP_US / 1000.0);
          MPI_Irecv (data, BOTH_BYTES, MPI_BYTE, 1, m, MPI_COMM_WORLD, &rq[0]);
          while (!done)
            {
              MPI_Testany (1, &rq[0], &idx, &done, MPI_STATUS_IGNORE);
              polls++;
            }
          ws_sleep_ms (BOTH_GAP_US / 4000.0);
          MPI_Send (&token, 1, MPI_INT, 1, m, MPI_COMM_WORLD);
        }
    }
  for (int m = 0; !both && m < messages; m++)
    {
      if (rank == 1)
        {
          ws_sleep_ms (GAP_US / 1000.0);
          MPI_Send (buf, BYTES, MPI_BYTE, 0, m, MPI_COMM_WORLD);
        }
      else if (rank == 0)
        {
          MPI_Request req;
          int done = 0;
          MPI_Irecv (buf, BYTES, MPI_BYTE, 1, m, MPI_COMM_WORLD, &req);
          while (!done)
            {
              MPI_Test (&req, &done, MPI_STATUS_IGNORE);
              polls++;
            }
        }
    }
  MPI_Barrier (MPI_COMM_WORLD);
  if (rank == 0 && count)
    printf ("polls %ld\n", polls);
  MPI_Finalize ();
  return 0;
}
