/* sim-fresh.c — large messages into fresh buffers (tests/sim, issue 21): the original's copies
 * pay the page faults of memory touched for the first time; the re-enactment's buffers, reused
 * for every message, do not, so it needs the original's copy costs from the trace.
 *
 * ROUNDS times, between ranks 0 and 1: each maps a fresh receive buffer of SIZE bytes (never
 * touched before the receive) and fills its send buffer (computation, outside MPI); rank 1
 * posts its receive, rank 0 computes COMPUTE_MS and sends; then the other way round; both meet
 * in MPI_Barrier and unmap. Extra ranks only take part in the barriers. Computation is
 * nanosleep (exact on a busy machine), apart from the fill. */
#include "ws-common.h"
#include "sim-common.h"

#include <string.h>
#include <sys/mman.h>

#define ROUNDS 6
#define SIZE (16 << 20)
#define COMPUTE_MS 2.0

static char *
fresh (void)
{
  void *p = mmap (NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    MPI_Abort (MPI_COMM_WORLD, 2);
  return p;
}

int
main (int    argc,
      char **argv)
{
  int rank, size;

  MPI_Init (&argc, &argv);
  sim_app_precise ();
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  MPI_Barrier (MPI_COMM_WORLD);
  for (int r = 0; r < ROUNDS && size >= 2; r++)
    {
      char *in = fresh (), *out = fresh ();
      memset (out, r + 1, SIZE);
      for (int dir = 0; dir < 2; dir++)
        {
          int from = dir, to = 1 - dir;
          if (rank == to)
            MPI_Recv (in, SIZE, MPI_BYTE, from, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          else if (rank == from)
            {
              ws_sleep_ms (COMPUTE_MS);
              MPI_Send (out, SIZE, MPI_BYTE, to, r, MPI_COMM_WORLD);
            }
        }
      MPI_Barrier (MPI_COMM_WORLD);
      munmap (in, SIZE);
      munmap (out, SIZE);
    }
  MPI_Finalize ();
  return 0;
}
