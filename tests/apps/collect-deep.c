/* collect-deep: many short instrumented calls (build with
 * -finstrument-functions -O0) between barriers, to fill a small trace
 * buffer with user-region events.  2 ranks. */
#include <mpi.h>
#include <stdio.h>

static int
leaf (int x)
{
  return x * 3 + 1;
}

static int
mid (int x)
{
  int s = 0;
  for (int i = 0; i < 4; i++)
    s += leaf (x + i);
  return s;
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  long s = 0;
  for (int i = 0; i < 200000; i++)
    {
      s += mid (i);
      if (i % 1000 == 0)
        MPI_Barrier (MPI_COMM_WORLD);
    }
  if (rank == 0)
    printf ("collect-deep: %ld\n", s);
  MPI_Finalize ();
  return 0;
}
