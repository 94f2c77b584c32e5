/* ws-demo.c — the bundled demo program: a small "solver" with a typical mix of wait states,
 * for scripts/demo (kubus-run on 4 ranks → kubus-analyze → browser).
 *
 *   main › solve › compute        load imbalance: rank r computes (1 + r/2)·20 ms
 *        › solve › exchange_halo  ring halo exchange (MPI_Irecv/MPI_Isend/MPI_Waitall): Late Sender
 *        › solve › MPI_Allreduce  residual: Wait at N x N
 *        › sweep                  2-D wavefront on an MPI_Cart_create grid: Late Sender split into
 *                                 the mpi_ls_wavefront_* refills; the report carries the topology
 *        › gather_results         MPI_Gather to rank 0, which arrives first: Early Reduce
 *        › MPI_Barrier            before the end: Wait at Barrier
 * Built with -finstrument-functions so the call tree shows the functions.
 * usage: ws-demo [ITERATIONS] (default 8) */
#include "ws-common.h"

static int rank, size;
static MPI_Comm cart;

static void __attribute__ ((noinline))
compute (double ms)
{
  ws_sleep_ms (ms);
}

static void __attribute__ ((noinline))
exchange_halo (void)
{
  double out = rank, in[2];
  MPI_Request req[4];
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  MPI_Irecv (&in[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[0]);
  MPI_Irecv (&in[1], 1, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &req[1]);
  MPI_Isend (&out, 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[2]);
  MPI_Isend (&out, 1, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &req[3]);
  MPI_Waitall (4, req, MPI_STATUSES_IGNORE);
}

static void __attribute__ ((noinline))
solve (int iterations)
{
  double r = 1, global;
  for (int i = 0; i < iterations; i++)
    {
      compute (20 * (1 + rank / 2.0));
      exchange_halo ();
      MPI_Allreduce (&r, &global, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
}

static void __attribute__ ((noinline))
sweep (int dx, int dy)
{
  int up[2], down[2];
  double buf = 0;
  for (int d = 0; d < 2; d++)
    MPI_Cart_shift (cart, d, d == 0 ? dx : dy, &up[d], &down[d]);
  for (int d = 0; d < 2; d++)
    if (up[d] != MPI_PROC_NULL)
      MPI_Recv (&buf, 1, MPI_DOUBLE, up[d], 10 + d, cart, MPI_STATUS_IGNORE);
  compute (30);
  for (int d = 0; d < 2; d++)
    if (down[d] != MPI_PROC_NULL)
      MPI_Send (&buf, 1, MPI_DOUBLE, down[d], 10 + d, cart);
}

static void __attribute__ ((noinline))
gather_results (void)
{
  double mine = rank, *all = malloc (sizeof (double) * size);
  if (rank != 0)
    compute (40 + 10 * rank);
  MPI_Gather (&mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  free (all);
}

int
main (int argc, char **argv)
{
  int dims[2] = { 0, 0 }, periods[2] = { 0, 0 };
  const int corners[4][2] = { { +1, +1 }, { -1, +1 }, { +1, -1 }, { -1, -1 } };
  int iterations = argc > 1 ? atoi (argv[1]) : 8;

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  MPI_Dims_create (size, 2, dims);
  MPI_Cart_create (MPI_COMM_WORLD, 2, dims, periods, 0, &cart);

  solve (iterations);
  for (int c = 0; c < 4; c++)
    {
      MPI_Barrier (cart);
      sweep (corners[c][0], corners[c][1]);
    }
  gather_results ();
  compute (rank == size - 1 ? 80 : 0);
  MPI_Barrier (MPI_COMM_WORLD);
  MPI_Comm_free (&cart);
  MPI_Finalize ();
  return 0;
}
