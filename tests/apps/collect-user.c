/* collect-user: user functions for the collector tests, built with
 * -finstrument-functions -O0 and run on 2 ranks.  Static functions must
 * be named from the symbol table, also in a linked shared library and in one
 * dlopened after the first function was named (argv[1]); the manual region
 * API is reached through weak symbols so the program also runs without the
 * collector. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>

int lib_step (int x); /* collect-userlib.c, a shared library */

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
  /* functions of a linked shared library, and of one opened after MPI_Init (argv[1]) */
  for (int i = 0; i < 3; i++)
    total += lib_step (i) - i - 1;
  if (argc > 1)
    {
      void *plugin = dlopen (argv[1], RTLD_NOW | RTLD_LOCAL);
      int (*step) (int) = plugin ? (int (*) (int))dlsym (plugin, "plugin_step") : NULL;
      if (step == NULL)
        {
          fprintf (stderr, "collect-user: %s\n", dlerror ());
          MPI_Abort (MPI_COMM_WORLD, 1);
        }
      for (int i = 0; i < 4; i++)
        total += step (i) - i - 1;
      dlclose (plugin);
    }
  if (rank == 0)
    printf ("collect-user: total %d\n", total);
  MPI_Finalize ();
  return 0;
}
