/* ws-finalize.c — Wait at Finalize: after a common start, rank r reaches MPI_Finalize r·100 ms
 * later than rank 0, so every rank but the last waits there for the last one. Truth: the
 * arrival times themselves (ws_finalize: CLOCK_MONOTONIC right before MPI_Finalize, written
 * per rank after it returns), so oversleeping on a busy machine changes the truth, not the
 * agreement. Rank 0 writes the planned total to argv[1] as a declaration. */
#include "ws-common.h"

int
main (int argc, char **argv)
{
  int rank, size;
  double t0;

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);

  /* planned waits: (size − 1 − r) · 100 ms; the test replaces them by the measured ones */
  ws_add (WS_FINALIZE_WAIT, 0.1 * (size - 1 - rank));
  ws_write (argc > 1 ? argv[1] : NULL);
  MPI_Barrier (MPI_COMM_WORLD);
  t0 = ws_now () + 0.05;
  MPI_Bcast (&t0, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  ws_sleep_until (t0 + 0.1 * rank);
  ws_finalize (argc > 1 ? argv[1] : NULL);
  return 0;
}
