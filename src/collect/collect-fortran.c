/* collect-fortran.c: the run-time side of the Fortran entry points (collect-fortran.h). */
#include "collect-fortran.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

const void *kubus_f_sentinels[KUBUS_F_N_SENTINELS][KUBUS_F_ADDRS];
int         kubus_f_ready;

void
kubus_f_setup (void)
{
  static const char *const names[KUBUS_F_N_SENTINELS] = {
    [KUBUS_F_BOTTOM] = "mpi_fortran_bottom",
    [KUBUS_F_IN_PLACE] = "mpi_fortran_in_place",
    [KUBUS_F_STATUS_IGNORE] = "mpi_fortran_status_ignore",
    [KUBUS_F_STATUSES_IGNORE] = "mpi_fortran_statuses_ignore",
    [KUBUS_F_UNWEIGHTED] = "mpi_fortran_unweighted",
    [KUBUS_F_WEIGHTS_EMPTY] = "mpi_fortran_weights_empty",
  };
  /* Several threads may get here at once: each writes the same addresses. */
  for (int s = 0; s < KUBUS_F_N_SENTINELS; s++)
    {
      char name[64], upper[64];
      size_t len = 0;
      for (const char *c = names[s]; *c != '\0' && len < sizeof name - 3; c++, len++)
        {
          name[len] = *c;
          upper[len] = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
        }
      upper[len] = '\0';
      name[len] = '\0';
      kubus_f_sentinels[s][0] = dlsym (RTLD_DEFAULT, name);
      kubus_f_sentinels[s][1] = dlsym (RTLD_DEFAULT, upper);
      name[len] = '_';
      name[len + 1] = '\0';
      kubus_f_sentinels[s][2] = dlsym (RTLD_DEFAULT, name);
      name[len + 1] = '_';
      name[len + 2] = '\0';
      kubus_f_sentinels[s][3] = dlsym (RTLD_DEFAULT, name);
    }
  /* MPI's own answer for the statuses (MPI-3.1 section 17.2.5) */
  kubus_f_sentinels[KUBUS_F_STATUS_IGNORE][4] = MPI_F_STATUS_IGNORE;
  kubus_f_sentinels[KUBUS_F_STATUSES_IGNORE][4] = MPI_F_STATUSES_IGNORE;
  __atomic_store_n (&kubus_f_ready, 1, __ATOMIC_RELEASE);
}

int
kubus_f_peers (MPI_Comm comm, int how)
{
  int n = 0;
  if (how == KUBUS_F_PEERS)
    {
      int inter = 0;
      if (PMPI_Comm_test_inter (comm, &inter) != MPI_SUCCESS)
        return 0;
      if (inter)
        PMPI_Comm_remote_size (comm, &n);
      else
        PMPI_Comm_size (comm, &n);
      return n;
    }
  int topo = MPI_UNDEFINED;
  if (PMPI_Topo_test (comm, &topo) != MPI_SUCCESS)
    return 0;
  if (topo == MPI_CART)
    {
      /* two neighbours per dimension, in and out alike */
      if (PMPI_Cartdim_get (comm, &n) != MPI_SUCCESS)
        return 0;
      return 2 * n;
    }
  if (topo == MPI_GRAPH)
    {
      int rank = 0;
      PMPI_Comm_rank (comm, &rank);
      if (PMPI_Graph_neighbors_count (comm, rank, &n) != MPI_SUCCESS)
        return 0;
      return n;
    }
  if (topo == MPI_DIST_GRAPH)
    {
      int in = 0, out = 0, weighted = 0;
      if (PMPI_Dist_graph_neighbors_count (comm, &in, &out, &weighted) != MPI_SUCCESS)
        return 0;
      return how == KUBUS_F_INDEGREE ? in : out;
    }
  return 0;
}

void *
kubus_f_array (void *stack, size_t stack_n, long n, size_t size)
{
  if (n <= 0 || (size_t)n <= stack_n)
    return stack;
  return malloc ((size_t)n * size);
}

void
kubus_f_array_free (void *p, void *stack)
{
  if (p != stack)
    free (p);
}

char *
kubus_f_string (const char *s, size_t len)
{
  while (len > 0 && s[len - 1] == ' ')
    len--;
  char *c = malloc (len + 1);
  if (c != NULL)
    {
      memcpy (c, s, len);
      c[len] = '\0';
    }
  return c;
}

int
kubus_f_no_memory (void)
{
  PMPI_Comm_call_errhandler (MPI_COMM_WORLD, MPI_ERR_NO_MEM);
  return MPI_ERR_NO_MEM;
}
