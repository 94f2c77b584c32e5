/* ws-sweep.c — a SWEEP3D-like 2-D wavefront on a Cartesian grid (MPI_Cart_create, dims from
 * MPI_Dims_create: 2x2 on 4 ranks). Dimension 0 runs west → east, dimension 1 north → south.
 * Sweeps start from the corners NW, NE, SW, SE in turn: each rank receives from its upstream
 * neighbours, computes 40 ms (nanosleep) and sends downstream. The rank a wavefront reaches
 * last waits longest at the refill. A barrier separates the sweeps. Built with
 * -finstrument-functions so the call tree shows main › sweep › MPI_Recv.
 * usage: ws-sweep [INFO_FILE [ROUNDS [MS]]] (rank 0 writes the grid dimensions to INFO_FILE;
 * MS: the computation per step, default 40) */
#include "ws-common.h"

static MPI_Comm cart;
static double buf;
static double compute_ms = 40;

/* one sweep from a corner: receive from upstream, compute, send downstream */
static void __attribute__ ((noinline))
sweep (int dx, int dy)
{
  int up[2], down[2];
  for (int d = 0; d < 2; d++)
    MPI_Cart_shift (cart, d, d == 0 ? dx : dy, &up[d], &down[d]);
  for (int d = 0; d < 2; d++)
    if (up[d] != MPI_PROC_NULL)
      MPI_Recv (&buf, 1, MPI_DOUBLE, up[d], 10 + d, cart, MPI_STATUS_IGNORE);
  ws_sleep_ms (compute_ms);
  for (int d = 0; d < 2; d++)
    if (down[d] != MPI_PROC_NULL)
      MPI_Send (&buf, 1, MPI_DOUBLE, down[d], 10 + d, cart);
}

int
main (int argc, char **argv)
{
  int size, rank, dims[2] = { 0, 0 }, periods[2] = { 0, 0 }, coords[2];
  /* upstream direction per corner: {dx, dy} the wave travels */
  const int corners[4][2] = { { +1, +1 } /* NW */, { -1, +1 } /* NE */,
                              { +1, -1 } /* SW */, { -1, -1 } /* SE */ };
  int rounds = argc > 2 ? atoi (argv[2]) : 2;
  if (argc > 3)
    compute_ms = atof (argv[3]);

  MPI_Init (&argc, &argv);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  MPI_Dims_create (size, 2, dims);
  MPI_Cart_create (MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  MPI_Comm_rank (cart, &rank);
  MPI_Cart_coords (cart, rank, 2, coords);

  for (int round = 0; round < rounds; round++)
    for (int c = 0; c < 4; c++)
      {
        MPI_Barrier (cart);
        sweep (corners[c][0], corners[c][1]);
      }
  MPI_Barrier (cart);
  if (rank == 0 && argc > 1)
    {
      FILE *f = fopen (argv[1], "w");
      if (f)
        {
          fprintf (f, "dims %d %d\n", dims[0], dims[1]);
          fclose (f);
        }
    }
  MPI_Comm_free (&cart);
  MPI_Finalize ();
  return 0;
}
