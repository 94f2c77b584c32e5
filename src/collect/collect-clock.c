/* collect-clock.c: offset of this rank's clock to rank 0's.
 *
 * Rank 0 answers a few pings from every rank with its own time; each rank
 * keeps the answer with the smallest round trip and assumes the reply was
 * taken half-way: offset = t_root - (t_send + t_back) / 2.  Written as OTF2
 * ClockOffset definitions at MPI_Init and MPI_Finalize so that a reader can
 * interpolate drift.
 */
#include "collect.h"

#define PINGS 8

int64_t
kubus_clock_offset (void)
{
  int64_t offset = 0;
  if (kubus_world_size < 2)
    return 0;
  if (kubus_world_rank == 0)
    {
      for (int r = 1; r < kubus_world_size; r++)
        for (int k = 0; k < PINGS; k++)
          {
            char ping;
            PMPI_Recv (&ping, 1, MPI_CHAR, r, 77, kubus_internal_comm,
                       MPI_STATUS_IGNORE);
            uint64_t t = kubus_now ();
            PMPI_Send (&t, 1, MPI_UINT64_T, r, 78, kubus_internal_comm);
          }
    }
  else
    {
      uint64_t best = UINT64_MAX;
      for (int k = 0; k < PINGS; k++)
        {
          char ping = 0;
          uint64_t t_root = 0;
          uint64_t t1 = kubus_now ();
          PMPI_Send (&ping, 1, MPI_CHAR, 0, 77, kubus_internal_comm);
          PMPI_Recv (&t_root, 1, MPI_UINT64_T, 0, 78, kubus_internal_comm,
                     MPI_STATUS_IGNORE);
          uint64_t t2 = kubus_now ();
          if (t2 - t1 < best)
            {
              best = t2 - t1;
              offset = (int64_t) t_root - (int64_t) (t1 + (t2 - t1) / 2);
            }
        }
    }
  return offset;
}
