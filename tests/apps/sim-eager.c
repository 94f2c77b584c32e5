/* sim-eager.c — the eager / rendezvous test program of the simulator (tests/sim, issue 21): a
 * sweep of message sizes across the MPI library's eager limit, where the protocol decides the
 * run time.
 *
 * For every size of the sweep, ROUNDS times: rank 0 sends the message with MPI_Send and then
 * computes COMPUTE_MS; rank 1 computes COMPUTE_MS first and only then posts the receive; both
 * meet in MPI_Barrier. An eager message leaves rank 0's send at once (a round takes COMPUTE_MS),
 * a rendezvous message waits in it for the receive (a round takes twice that). Sizes below 64
 * KB: Open MPI's shared memory limit is 4 KB, its TCP one 64 KB; the sweep brackets the first.
 * Computation is nanosleep (exact on a busy machine). Extra ranks (if any) only take part in
 * the barriers. */
#include "ws-common.h"
#include "sim-common.h"

#define ROUNDS 4
#define COMPUTE_MS 3.0

static const int sizes[] = { 1024, 2048, 3072, 3968, 4096, 4160, 5120, 8192, 12288, 16384, 32768, 49152 };

int
main (int    argc,
      char **argv)
{
  int rank, size;
  static char buf[65536];

  MPI_Init (&argc, &argv);
  sim_app_precise ();
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  MPI_Barrier (MPI_COMM_WORLD);
  for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int r = 0; r < ROUNDS; r++)
      {
        if (rank == 0)
          {
            MPI_Send (buf, sizes[s], MPI_BYTE, 1, s, MPI_COMM_WORLD);
            ws_sleep_ms (COMPUTE_MS);
          }
        else if (rank == 1)
          {
            ws_sleep_ms (COMPUTE_MS);
            MPI_Recv (buf, sizes[s], MPI_BYTE, 0, s, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          }
        MPI_Barrier (MPI_COMM_WORLD);
      }
  MPI_Finalize ();
  return 0;
}
