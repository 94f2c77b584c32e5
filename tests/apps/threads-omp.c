/* threads-omp.c — MPI calls from OpenMP threads (tests/collect/profile-test.py, cases
 * ompserialized and ompmultiple; docs/decisions/2026-11-29-threads.md).
 *
 *   threads-omp serialized   MPI_THREAD_SERIALIZED, 2 threads: in each of 20 rounds one thread
 *                            (the main thread in even rounds, the other in odd ones, as an
 *                            `omp single` would pick either) calls MPI_Sendrecv with the other
 *                            rank; rank 0 sleeps 2 ms before each, so rank 1 waits about
 *                            2 ms in each (Late Sender, 40 ms in all)
 *   threads-omp multiple     MPI_THREAD_MULTIPLE, 2 threads: both call MPI_Sendrecv 20 times at
 *                            once, each with a tag of its own
 *
 * Prints "threads-omp: rank R main N other M" per rank, then "threads-omp: done" (rank 0), or
 * "threads-omp: level L not provided" when the library does not give the thread level. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void
nap (double s)
{
  struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
  while (nanosleep (&ts, &ts) != 0)
    ;
}

int
main (int argc, char **argv)
{
  int multiple = argc > 1 && strcmp (argv[1], "multiple") == 0;
  int want = multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SERIALIZED, provided = 0, r, n;
  MPI_Init_thread (&argc, &argv, want, &provided);
  MPI_Comm_rank (MPI_COMM_WORLD, &r);
  MPI_Comm_size (MPI_COMM_WORLD, &n);
  if (provided < want)
    {
      if (r == 0)
        printf ("threads-omp: level %d not provided\n", want);
      MPI_Finalize ();
      return 0;
    }
  int calls[2] = { 0, 0 };
#pragma omp parallel num_threads(2)
  {
    int me = omp_get_thread_num ();
    for (int i = 0; i < 20; i++)
      {
        int x = i, y = -1;
        if (multiple)
          {
            MPI_Sendrecv (&x, 1, MPI_INT, (r + 1) % n, me, &y, 1, MPI_INT, (r + n - 1) % n, me,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            calls[me]++;
            continue;
          }
        if (me == i % 2)
          {
            if (r == 0)
              nap (0.002);
            MPI_Sendrecv (&x, 1, MPI_INT, (r + 1) % n, 0, &y, 1, MPI_INT, (r + n - 1) % n, 0,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            calls[me]++;
          }
#pragma omp barrier
      }
  }
  printf ("threads-omp: rank %d main %d other %d\n", r, calls[0], calls[1]);
  fflush (stdout);
  MPI_Finalize ();
  if (r == 0)
    printf ("threads-omp: done\n");
  return 0;
}
