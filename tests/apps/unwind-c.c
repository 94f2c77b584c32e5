/* unwind-c: a C program with known call stacks at its MPI calls, for the call paths found by
 * unwinding (no instrumentation).  2 ranks.
 *
 *   main > solver_run > exchange > MPI_Sendrecv         (10 times, same stack)
 *   main > solver_run > reduce_all > MPI_Allreduce       (10 times)
 *   main > recurse (5 levels, folded) > MPI_Barrier
 *   main > deep (3 levels, folded) > MPI_Bcast
 *   main > MPI_Barrier
 * Built with -DWITH_REGIONS, a user region "timestep" (kubus_region_begin) sits between
 * solver_run and exchange / reduce_all.
 * Functions are noinline so that -O2 keeps them as frames of their own. */
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#ifdef WITH_REGIONS
#include <kubus/region.h>
#endif

/* argv[1]: "abort" (rank 1 calls MPI_Abort at the bottom of the deep stack), "signal" (rank 1
 * raises SIGSEGV there) */
static const char *mode = "";
static int         my_rank;

#define NOINLINE __attribute__ ((noinline))

static volatile double sink;

NOINLINE static void
compute (int n)
{
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (double)i * 0.5;
  sink = s;
}

NOINLINE static void
exchange (int rank)
{
  int peer = 1 - rank, out = rank, in = -1;
  MPI_Sendrecv (&out, 1, MPI_INT, peer, 0, &in, 1, MPI_INT, peer, 0, MPI_COMM_WORLD,
                MPI_STATUS_IGNORE);
  compute (1000);
}

NOINLINE static void
reduce_all (void)
{
  double x = 1.0, y = 0.0;
  MPI_Allreduce (&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

NOINLINE static void
solver_run (int rank, int steps)
{
  for (int s = 0; s < steps; s++)
    {
#ifdef WITH_REGIONS
      kubus_region_begin ("timestep");
#endif
      compute (20000);
      exchange (rank);
      reduce_all ();
#ifdef WITH_REGIONS
      kubus_region_end ("timestep");
#endif
    }
}

NOINLINE static int
recurse (int n)
{
  if (n == 0)
    {
      MPI_Barrier (MPI_COMM_WORLD);
      return 0;
    }
  return recurse (n - 1) + 1;
}

NOINLINE static int
deep (int n)
{
  if (n == 0)
    {
      if (my_rank == 1 && strcmp (mode, "abort") == 0)
        MPI_Abort (MPI_COMM_WORLD, 3);
      if (my_rank == 1 && strcmp (mode, "signal") == 0)
        raise (SIGSEGV);
      int v = 7;
      MPI_Bcast (&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
      return v;
    }
  return deep (n - 1) + 1;
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  my_rank = rank;
  if (argc > 1)
    mode = argv[1];
  solver_run (rank, 10);
  sink = recurse (5);
  sink = deep (3);
  MPI_Barrier (MPI_COMM_WORLD);
  MPI_Finalize ();
  return 0;
}
