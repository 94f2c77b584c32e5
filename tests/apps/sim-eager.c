/* sim-eager.c — the eager / rendezvous test program of the simulator (tests/sim, issue 21): a
 * sweep of message sizes across the MPI library's eager limit, where the protocol decides the
 * run time.
 *
 * For every size of the sweep, ROUNDS times: rank 0 sends the message with MPI_Send and then
 * computes COMPUTE_MS; rank 1 computes COMPUTE_MS first and only then posts the receive; both
 * meet in MPI_Barrier. An eager message leaves rank 0's send at once (a round takes COMPUTE_MS),
 * a rendezvous message waits in it for the receive (a round takes twice that). The sweep
 * brackets Open MPI's TCP eager limit (64 KB including the header; tests/sim runs it with
 * OMPI_MCA_btl=self,tcp). Over shared memory (vader, without single-copy) even small blocking
 * sends wait for the receiver's progress: their fragments come back only when the receiver
 * has copied them out, so there is no size below which a send returns at once. Computation is
 * nanosleep (exact on a busy machine). Extra ranks (if any) only take part in the barriers. */
#include "ws-common.h"
#include "sim-common.h"

#define ROUNDS 12   /* 0.66 s: one late wake-up of the re-enactment (4 ms) is 0.6 %, not 2 % */
#define COMPUTE_MS 3.0

static const int sizes[] = { 8192, 16384, 32768, 49152, 60000, 65000, 65400, 65536, 66000, 81920, 98304, 131072 };

int
main (int    argc,
      char **argv)
{
  int rank, size;
  static char buf[131072];

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
