/* names-hostile: regions (manual ones and a function's), a topology and (by the test's choice)
 * an executable file name and arguments whose bytes are not fit for a file format: invalid
 * UTF-8, control characters, XML and CSV metacharacters.  Rank 0 sends late inside each region,
 * so every hostile name carries Late Sender waits on the other ranks and appears in every
 * report.  Linked with -lkubus-collect (kubus/region.h, kubus/topology.h).
 * tests/names/names-test.py checks what every writer made of it. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#include "kubus/region.h"
#include "kubus/topology.h"

/* the same list, in the same order, is in names-test.py */
static const char *const names[] = {
  "a\xE0\x9C\x90?b",                /* the fuzz crash's bytes: an overlong three-byte form */
  "<t a=\"x\" & 'y'>]]>",           /* XML metacharacters */
  "c\x01\x1f|t\t|l\n|r\r|e",        /* controls XML 1.0 forbids, and the ones it normalises */
  "cut\xC3",                        /* a sequence cut short at the end */
  "\xFF\xFE,\"csv\"",               /* bytes never in UTF-8; CSV metacharacters */
  "ok \xE6\x97\xA5\xE6\x9C\xAC \xC3\xA9", /* valid UTF-8: must stay as it is */
};

/* Built with -finstrument-functions: this function is a region named from the symbol table,
 * and its symbol (an assembler name) is not UTF-8 either. */
__attribute__ ((noinline)) static void exchange (int rank, int size, int i)
    __asm__ ("exchange_\xE0\x9C\x90_fn");

static void
sleep_ms (int ms)
{
  struct timespec t = { 0, ms * 1000000L };
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

  int dims[1] = { size }, periods[1] = { 0 };
  int id = kubus_topology_define ("ring <&\xE0\x9C\x90\x01>", 1, dims, periods);
  int coords[1] = { rank };
  kubus_topology_set_coords (id, coords);

  for (int round = 0; round < 3; round++)
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
      {
        kubus_region_begin (names[i]);
        exchange (rank, size, (int)i);
        kubus_region_end (names[i]);
      }
  MPI_Finalize ();
  return 0;
}

static void
exchange (int rank, int size, int i)
{
  int v = i;
  if (rank == 0)
    {
      sleep_ms (2);
      for (int r = 1; r < size; r++)
        MPI_Send (&v, 1, MPI_INT, r, i, MPI_COMM_WORLD);
    }
  else
    MPI_Recv (&v, 1, MPI_INT, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Barrier (MPI_COMM_WORLD);
}
