/* probeloop: one rank calls MPI_Iprobe N times (argv[1], default 2 000 000), which costs
 * little in MPI itself, so traced minus plain is the wrapper's own cost per call: an Enter and a
 * Leave event with their two timestamps. One rank, so no partner's scheduling gets into it
 * (issue 17: the TSC against CLOCK_MONOTONIC, bench/collect/clock.sh).
 * Prints "iprobe_ns_per_call X" in CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID:
 * on a machine shared by many, the time the rank is not running stays out) and
 * "iprobe_wall_ns_per_call Y" (CLOCK_MONOTONIC). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  long n = argc > 1 ? atol (argv[1]) : 2000000;
  int  flag;
  struct timespec a, b, ca, cb;
  clock_gettime (CLOCK_MONOTONIC, &a);
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ca);
  for (long i = 0; i < n; i++)
    MPI_Iprobe (MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &cb);
  clock_gettime (CLOCK_MONOTONIC, &b);
  printf ("iprobe_ns_per_call %.1f\niprobe_wall_ns_per_call %.1f\n",
          ((double)(cb.tv_sec - ca.tv_sec) * 1e9 + (double)(cb.tv_nsec - ca.tv_nsec)) / (double)n,
          ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)n);
  MPI_Finalize ();
  return 0;
}
