/* scale-callsites.c — three MPI callsites whose share of the communication time moves with the
 * rank count in a known direction (issue 14, the scalability statistics).
 *
 * Each of ITER iterations (argv[1], default 3) with P ranks and a unit of X ms (argv[2], default
 * 30):
 *   rank 0 sleeps X, then MPI_Barrier        every other rank waits there: the barrier's
 *                                            aggregate time is about (P − 1)·X + (P − 2)·2X
 *   rank 1 sleeps X, sends to rank 0         rank 0's MPI_Recv waits X      (constant)
 *   rank 0 sleeps X, sends to rank 1         rank 1's MPI_Wait waits X      (constant)
 * Ranks 2… go straight from one barrier to the next and wait for rank 0's three X there.
 *
 * So the barrier's share of the communication time grows with P (1/3 at 2 ranks, 19/21 at 8)
 * and the shares of MPI_Recv and MPI_Wait fall (1/3 at 2 ranks, 1/21 at 8). Every callsite has
 * its own MPI function, so the call paths differ whether or not user functions are recorded.
 * Needs at least 2 ranks. */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

static void
sleep_ms (double ms)
{
  struct timespec now, until;

  clock_gettime (CLOCK_MONOTONIC, &until);
  until.tv_sec += (time_t) (ms / 1000);
  until.tv_nsec += (long) ((ms - 1000 * (long) (ms / 1000)) * 1e6);
  if (until.tv_nsec >= 1000000000L)
    {
      until.tv_sec++;
      until.tv_nsec -= 1000000000L;
    }
  /* absolute deadline: signals and a busy machine cannot make the sleep shorter */
  while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) != 0)
    {
      clock_gettime (CLOCK_MONOTONIC, &now);
      if (now.tv_sec > until.tv_sec || (now.tv_sec == until.tv_sec && now.tv_nsec >= until.tv_nsec))
        break;
    }
}

int
main (int argc, char **argv)
{
  int    iterations = argc > 1 ? atoi (argv[1]) : 3;
  double unit = argc > 2 ? atof (argv[2]) : 30.0;
  int    rank, size, token = 0;

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (size < 2)
    MPI_Abort (MPI_COMM_WORLD, 2);

  for (int it = 0; it < iterations; it++)
    {
      if (rank == 0)
        sleep_ms (unit);
      MPI_Barrier (MPI_COMM_WORLD);
      if (rank == 0)
        {
          MPI_Recv (&token, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          sleep_ms (unit);
          MPI_Send (&token, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
        }
      else if (rank == 1)
        {
          MPI_Request req;

          sleep_ms (unit);
          MPI_Send (&token, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
          MPI_Irecv (&token, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &req);
          MPI_Wait (&req, MPI_STATUS_IGNORE);
        }
    }
  MPI_Finalize ();
  return 0;
}
