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
  kubus_region_begin ("whole"); /* before MPI_Init, closed after MPI_Finalize */
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
  int      dims[2] = { 2, 3 }, periods[2] = { 1, 0 };
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
  /* more than 3 dimensions; 0 and 17 dimensions are refused */
  int hdims[4] = { 2, 1, 3, 1 }, hper[4] = { 1, 0, 0, 1 };
  int hid = kubus_topology_define ("hyper", 4, hdims, hper);
  int hcoords[4] = { rank / 3, 0, rank % 3, 0 };
  int hok = kubus_topology_set_coords (hid, hcoords);
  int many[17] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
  int refused = kubus_topology_define ("too-many", 17, many, NULL)
                + kubus_topology_define ("none", 0, many, NULL);

  /* more communicator constructors: Comm_create of the even ranks, a ring
   * as a distributed graph */
  MPI_Group world_group, even_group;
  int       evens[3] = { 0, 2, 4 };
  MPI_Comm  even = MPI_COMM_NULL, ring;
  MPI_Comm_group (MPI_COMM_WORLD, &world_group);
  MPI_Group_incl (world_group, 3, evens, &even_group);
  MPI_Comm_create (MPI_COMM_WORLD, even_group, &even);
  if (even != MPI_COMM_NULL)
    {
      MPI_Barrier (even);
      MPI_Comm_free (&even);
    }
  MPI_Group_free (&even_group);
  MPI_Group_free (&world_group);
  int src = (rank + size - 1) % size, dst = (rank + 1) % size;
  int wsrc = 1, wdst = 1; /* MPI_UNWEIGHTED trips -Wstringop-overread */
  MPI_Dist_graph_create_adjacent (MPI_COMM_WORLD, 1, &src, &wsrc, 1, &dst, &wdst, MPI_INFO_NULL, 0,
                                  &ring);
  MPI_Barrier (ring);
  MPI_Comm_free (&ring);

  MPI_Barrier (row);
  MPI_Comm_free (&row);
  MPI_Comm_free (&cart);
  if (rank == 0)
    printf ("collect-topo: id %d set %d bad %d 4-D %d %d refused %d\n", id, ok, rejected, hid,
            hok, refused);
  MPI_Finalize ();
  kubus_region_end ("whole");
  return 0;
}
