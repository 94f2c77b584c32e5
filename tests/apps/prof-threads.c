/* prof-threads.c — MPI calls from several threads (MPI_THREAD_MULTIPLE), for the profile's
 * per-thread locations (tests/collect/profile-test.py).  Each rank starts 2 threads; thread t
 * makes 40 MPI_Iprobe and 25 MPI_Allreduce calls on a communicator of its own; the main thread
 * waits for them (pthread_join) and then calls MPI_Barrier 3 times.  Prints "prof-threads:
 * no MPI_THREAD_MULTIPLE" and exits 0 when the library does not provide it. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static MPI_Comm comms[2];

static void *
work (void *arg)
{
  MPI_Comm c = comms[(long)arg];
  int      flag;
  double   x = 1, y;
  for (int i = 0; i < 40; i++)
    MPI_Iprobe (MPI_ANY_SOURCE, 77, c, &flag, MPI_STATUS_IGNORE);
  for (int i = 0; i < 25; i++)
    MPI_Allreduce (&x, &y, 1, MPI_DOUBLE, MPI_SUM, c);
  return NULL;
}

int
main (int argc, char **argv)
{
  int provided = 0, rank;
  MPI_Init_thread (&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  if (provided < MPI_THREAD_MULTIPLE)
    {
      if (rank == 0)
        printf ("prof-threads: no MPI_THREAD_MULTIPLE\n");
      MPI_Finalize ();
      return 0;
    }
  MPI_Comm_dup (MPI_COMM_WORLD, &comms[0]);
  MPI_Comm_dup (MPI_COMM_WORLD, &comms[1]);
  pthread_t t[2];
  for (long i = 0; i < 2; i++)
    pthread_create (&t[i], NULL, work, (void *)i);
  for (int i = 0; i < 2; i++)
    pthread_join (t[i], NULL);
  for (int i = 0; i < 3; i++)
    MPI_Barrier (MPI_COMM_WORLD);
  MPI_Comm_free (&comms[0]);
  MPI_Comm_free (&comms[1]);
  if (rank == 0)
    printf ("prof-threads: done\n");
  MPI_Finalize ();
  return 0;
}
