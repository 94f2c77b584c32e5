/* collect-user: user functions for the collector tests, built with
 * -finstrument-functions -O0 and run on 2 ranks.  Static functions must
 * be named from the symbol table; the manual region API is reached through
 * weak symbols so the program also runs without the collector. */
#include <mpi.h>
#include <stdio.h>

void kubus_region_begin (const char *name) __attribute__ ((weak));
void kubus_region_end (const char *name) __attribute__ ((weak));

static int
tiny_hot (int x)
{
  return x + 1;
}

static int
compute_static (int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s = tiny_hot (s);
  return s;
}

void
exchange (int rank, int value)
{
  int other = 1 - rank, in = 0;
  MPI_Sendrecv (&value, 1, MPI_INT, other, 1, &in, 1, MPI_INT, other, 1, MPI_COMM_WORLD,
                MPI_STATUS_IGNORE);
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (size != 2)
    {
      MPI_Finalize ();
      return 2;
    }
  int total = 0;
  for (int i = 0; i < 5; i++)
    {
      if (kubus_region_begin)
        kubus_region_begin ("phase");
      total += compute_static (100);
      exchange (rank, total);
      if (kubus_region_end)
        kubus_region_end ("phase");
    }
  if (rank == 0)
    printf ("collect-user: total %d\n", total);
  MPI_Finalize ();
  return 0;
}
