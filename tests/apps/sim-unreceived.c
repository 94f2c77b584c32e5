/* sim-unreceived.c — a run that ends normally with two messages nobody received, as Ray (the
 * genome assembler) leaves its last message to itself in flight at MPI_Finalize: rank 0 sends
 * itself a message with MPI_Isend and waits for the send; rank 1 sends rank 0 a message with
 * MPI_Send; no receive is ever posted for either (tags 5 and 7, 28 and 4 bytes, small enough to
 * go eagerly). Around them, ROUNDS ring exchanges with COMPUTE_MS of computation (nanosleep)
 * before each and a barrier at the end. kubus-sim must re-enact such a trace without the two
 * messages, keeping the time of their calls (sim-unreceived). At least 2 ranks. */
#include "ws-common.h"
#include "sim-common.h"

#define ROUNDS 20
#define COMPUTE_MS 10.0

int
main (int    argc,
      char **argv)
{
  int rank, size, v, w = 0;
  char lost[28] = { 0 };
  MPI_Request req;

  MPI_Init (&argc, &argv);
  sim_app_precise ();
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (size < 2)
    MPI_Abort (MPI_COMM_WORLD, 2);
  v = rank;
  for (int i = 0; i < ROUNDS; i++)
    {
      ws_sleep_ms (COMPUTE_MS);
      if (i == ROUNDS / 2 && rank == 0)
        {
          MPI_Isend (lost, (int) sizeof lost, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &req);
          MPI_Wait (&req, MPI_STATUS_IGNORE);
        }
      if (i == ROUNDS / 2 && rank == 1)
        MPI_Send (&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
      MPI_Sendrecv (&v, 1, MPI_INT, (rank + 1) % size, 4, &w, 1, MPI_INT, (rank + size - 1) % size, 4,
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  MPI_Barrier (MPI_COMM_WORLD);
  MPI_Finalize ();
  return 0;
}
