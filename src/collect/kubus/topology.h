/* kubus/topology.h: describe the program's own process grid to Kubus.
 *
 * Link with -lkubus-collect (or run under kubus-run).  Every rank calls
 * kubus_topology_define with the same arguments, then declares its own
 * coordinates; the grid and the coordinates end up in the trace as an OTF2
 * Cartesian topology over MPI_COMM_WORLD.  Calls made while Kubus is not
 * recording do nothing and return -1. */
#pragma once

#ifdef __cplusplus
extern "C"
{
#endif

  /* Defines a grid of ndims (1..16) dimensions of sizes dims[]; periods[i]
   * non-zero marks dimension i as periodic (periods may be NULL).  Call
   * after MPI_Init.  Returns an id for kubus_topology_set_coords, or -1. */
  __attribute__ ((visibility ("default"))) int
  kubus_topology_define (const char *name, int ndims, const int *dims, const int *periods);

  /* Sets this rank's coordinates (ndims values, 0 <= coords[i] < dims[i]).
   * Returns 0, or -1 for a bad id or coordinate. */
  __attribute__ ((visibility ("default"))) int kubus_topology_set_coords (int        id,
                                                                          const int *coords);

#ifdef __cplusplus
}
#endif
