/* collect-topo: Cartesian topologies for the collector tests, 6 ranks.
 * Linked with -lkubus-collect (no preload) to test that mode and the
 * kubus/topology.h and kubus/region.h API. */
#include <mpi.h>
#include <stdio.h>

#include "kubus/region.h"
#include "kubus/topology.h"

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (size != 6)
    {
      if (rank == 0)
        fprintf (stderr, "collect-topo needs 6 ranks\n");
      MPI_Finalize ();
      return 2;
    }
  kubus_region_begin ("setup");
  int dims[2] = { 2, 3 }, periods[2] = { 1, 0 };
  MPI_Comm cart, row;
  MPI_Cart_create (MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  int remain[2] = { 0, 1 };
  MPI_Cart_sub (cart, remain, &row);
  kubus_region_end ("setup");

  int gdims[2] = { 3, 2 }, gper[2] = { 0, 1 };
  int id = kubus_topology_define ("grid", 2, gdims, gper);
  int coords[2] = { rank % 3, rank / 3 };
  int ok = kubus_topology_set_coords (id, coords);
  int bad[2] = { 7, 0 };
  int rejected = kubus_topology_set_coords (id, bad);

  MPI_Barrier (row);
  MPI_Comm_free (&row);
  MPI_Comm_free (&cart);
  if (rank == 0)
    printf ("collect-topo: id %d set %d bad %d\n", id, ok, rejected);
  MPI_Finalize ();
  return 0;
}
