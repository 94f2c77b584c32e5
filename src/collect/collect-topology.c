/* collect-topology.c: Cartesian topologies.
 *
 * MPI_Cart_create / MPI_Cart_sub results are recorded from MPI_Cart_get on
 * the new communicator; kubus/topology.h lets a program describe its own
 * grid over MPI_COMM_WORLD.  Each rank keeps its own coordinates; rank 0
 * collects them at finalize and writes CartDimension, CartTopology and
 * CartCoordinate definitions. */
#include "collect.h"
#include "kubus/topology.h"

#include <stdio.h>
#include <string.h>

#define MAX_TOPOLOGIES 64

static KubusTopology topologies[MAX_TOPOLOGIES];
static int           n_topologies;

void
kubus_topology_record_cart (MPI_Comm comm, uint64_t key, const char *name)
{
  int status = MPI_UNDEFINED, ndims = 0;
  if (n_topologies >= MAX_TOPOLOGIES || PMPI_Topo_test (comm, &status) != MPI_SUCCESS
      || status != MPI_CART || PMPI_Cartdim_get (comm, &ndims) != MPI_SUCCESS || ndims < 1
      || ndims > 16)
    return;
  KubusTopology *t = &topologies[n_topologies];
  memset (t, 0, sizeof *t);
  t->comm_key = key;
  snprintf (t->name, sizeof t->name, "%s", name);
  t->ndims = ndims;
  if (PMPI_Cart_get (comm, ndims, t->dims, t->periods, t->coords) != MPI_SUCCESS)
    return;
  PMPI_Comm_rank (comm, &t->rank);
  t->have_coords = 1;
  n_topologies++;
}

int
kubus_topology_define (const char *name, int ndims, const int *dims, const int *periods)
{
  if (!KUBUS_ON () || name == NULL || ndims < 1 || ndims > 16 || dims == NULL
      || n_topologies >= MAX_TOPOLOGIES)
    return -1;
  KubusTopology *t = &topologies[n_topologies];
  memset (t, 0, sizeof *t);
  t->comm_key = 1; /* MPI_COMM_WORLD */
  snprintf (t->name, sizeof t->name, "%s", name);
  t->ndims = ndims;
  for (int i = 0; i < ndims; i++)
    {
      t->dims[i] = dims[i];
      t->periods[i] = periods != NULL && periods[i];
    }
  t->rank = kubus_world_rank;
  return n_topologies++;
}

int
kubus_topology_set_coords (int id, const int *coords)
{
  if (id < 0 || id >= n_topologies || coords == NULL)
    return -1;
  KubusTopology *t = &topologies[id];
  for (int i = 0; i < t->ndims; i++)
    {
      if (coords[i] < 0 || coords[i] >= t->dims[i])
        return -1;
      t->coords[i] = coords[i];
    }
  t->have_coords = 1;
  return 0;
}

int
kubus_topology_count (void)
{
  return n_topologies;
}

const KubusTopology *
kubus_topology_get (int i)
{
  return &topologies[i];
}
