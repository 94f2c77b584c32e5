/* prof-rma: one-sided communication whose calls the test knows, with an imbalance before each
 * fence.
 *
 *   prof-rma ROUNDS
 *
 * The ranks share a window (MPI_Win_allocate_shared, two ints a rank: the only kind Open MPI 4.1
 * offers with btl self,vader and no single-copy mechanism).  ROUNDS times: rank r sleeps
 * (r + 1) × 2 ms (computation), puts 100 × round + r into the next rank's slot round % 2
 * (MPI_Put), and all meet in MPI_Win_fence, where the earlier ranks wait for the last one; each
 * rank then checks what the previous rank put.  One fence opens the first epoch.  Then a passive
 * target epoch: MPI_Win_lock, MPI_Get of the next rank's last value, MPI_Win_unlock; MPI_Win_free.
 * A wrong value ends the run with MPI_Abort (3).  Prints "prof-rma: done" on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void
compute (long ns)
{
  struct timespec t = { 0, ns };
  while (nanosleep (&t, &t) != 0)
    ;
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  int rounds = argc > 1 ? atoi (argv[1]) : 4;
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int *mem = NULL;
  MPI_Win win;

  MPI_Win_allocate_shared (2 * sizeof (int), sizeof (int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  mem[0] = mem[1] = -1;
  MPI_Win_fence (0, win);
  for (int i = 0; i < rounds; i++)
    {
      int val = 100 * i + rank;
      compute ((rank + 1) * 2000000L);
      MPI_Put (&val, 1, MPI_INT, next, i % 2, 1, MPI_INT, win);
      MPI_Win_fence (0, win);
      if (mem[i % 2] != 100 * i + prev)
        {
          fprintf (stderr, "prof-rma: rank %d round %d: %d, expected %d\n", rank, i, mem[i % 2], 100 * i + prev);
          MPI_Abort (MPI_COMM_WORLD, 3);
        }
    }
  int got = -1;
  MPI_Win_lock (MPI_LOCK_SHARED, next, 0, win);
  MPI_Get (&got, 1, MPI_INT, next, (rounds - 1) % 2, 1, MPI_INT, win);
  MPI_Win_unlock (next, win);
  if (got != 100 * (rounds - 1) + rank)
    {
      fprintf (stderr, "prof-rma: rank %d: got %d, expected %d\n", rank, got, 100 * (rounds - 1) + rank);
      MPI_Abort (MPI_COMM_WORLD, 3);
    }
  MPI_Win_free (&win);
  if (rank == 0)
    printf ("prof-rma: done\n");
  MPI_Finalize ();
  return 0;
}
