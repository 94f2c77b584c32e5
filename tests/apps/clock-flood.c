/* clock-flood: many fast messages for the clock tests (issue 17).  Per iteration on 4 ranks:
 * a ring with MPI_Isend/MPI_Irecv/MPI_Waitall (4 messages), a 0-byte ping-pong between ranks
 * 0 and 1 and between 2 and 3 (4 messages), and an MPI_Allreduce every 64 iterations; so
 * 12500 iterations make 10^5 messages.  With a second argument N > 0, rank 1 sleeps 1 ms
 * before its ring send every N iterations: Late Senders of known size on rank 2 for the repair
 * test (usage: clock-flood [ITERATIONS] [SLEEP_EVERY]). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int
main (int argc, char **argv)
{
  int rank, size;
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  long n = argc > 1 ? atol (argv[1]) : 12500;
  long sleep_every = argc > 2 ? atol (argv[2]) : 0;
  int  partner = rank ^ 1;
  double out = rank, in, sum_in = 1, sum_out;
  for (long i = 0; i < n; i++)
    {
      MPI_Request req[2];
      MPI_Irecv (&in, 1, MPI_DOUBLE, (rank + size - 1) % size, 1, MPI_COMM_WORLD, &req[0]);
      if (sleep_every > 0 && rank == 1 && i % sleep_every == sleep_every - 1)
        {
          struct timespec ms = { 0, 1000000 };
          nanosleep (&ms, NULL);
        }
      MPI_Isend (&out, 1, MPI_DOUBLE, (rank + 1) % size, 1, MPI_COMM_WORLD, &req[1]);
      MPI_Waitall (2, req, MPI_STATUSES_IGNORE);
      if (partner < size)
        {
          if (rank % 2 == 0)
            {
              MPI_Send (NULL, 0, MPI_BYTE, partner, 2, MPI_COMM_WORLD);
              MPI_Recv (NULL, 0, MPI_BYTE, partner, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
          else
            {
              MPI_Recv (NULL, 0, MPI_BYTE, partner, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
              MPI_Send (NULL, 0, MPI_BYTE, partner, 2, MPI_COMM_WORLD);
            }
        }
      if (i % 64 == 63)
        MPI_Allreduce (&sum_in, &sum_out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
  MPI_Finalize ();
  return 0;
}
