/* sim-clock.c — one time base for a real-time re-enactment across hosts, as the collector has
 * one for the traced run (src/collect/collect-clock.c): every process of a host reads the same
 * CLOCK_MONOTONIC, so only the host leaders (the lowest rank of each host) measure their offset
 * to rank 0's host, by ping-pong with rank 0 (the exchange with the shortest round trip of
 * ROUNDS, offset = rank 0's time − the middle of the round trip), and hand it to their host.
 * The re-enactment then schedules and stamps in rank 0's time: deadlines that cross hosts mean
 * the same moment everywhere, and the simulated trace has one time line.
 *
 * Tests: KUBUS_TEST_HOST_SPLIT=K pretends the ranks run on K hosts (contiguous blocks, as the
 * collector's test hook), KUBUS_SIM_TEST_SKEW=NS sets the clocks of pretend host h NS × h ahead. */
#include "sim-private.h"

#include <mpi.h>
#include <stdlib.h>

#define ROUNDS 20
#define TAG 31337

static gint64 test_skew;   /* added to this process's clock (tests only) */

gint64
sim_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec + test_skew;
}

/* The communicator of this process's host (pretend hosts under KUBUS_TEST_HOST_SPLIT). */
static MPI_Comm
host_comm (int  me,
           int  n,
           int *host_index)
{
  const char *split = g_getenv ("KUBUS_TEST_HOST_SPLIT");
  int k = split ? atoi (split) : 0;
  MPI_Comm c = MPI_COMM_NULL;
  *host_index = 0;
  if (k > 1 && k <= n)
    {
      *host_index = (int) ((gint64) me * k / n);
      MPI_Comm_split (MPI_COMM_WORLD, *host_index, me, &c);
    }
  else
    MPI_Comm_split_type (MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &c);
  return c;
}

gint64
sim_clock_offset (guint *n_hosts)
{
  int me, n, local_rank, leader, host_index, n_leaders = 0;
  const char *skew = g_getenv ("KUBUS_SIM_TEST_SKEW");
  MPI_Comm host, leaders;
  gint64 offset = 0;

  MPI_Comm_rank (MPI_COMM_WORLD, &me);
  MPI_Comm_size (MPI_COMM_WORLD, &n);
  host = host_comm (me, n, &host_index);
  MPI_Comm_rank (host, &local_rank);
  if (skew && *skew)
    test_skew = g_ascii_strtoll (skew, NULL, 10) * host_index;
  leader = local_rank == 0;
  MPI_Comm_split (MPI_COMM_WORLD, leader ? 0 : MPI_UNDEFINED, me, &leaders);
  if (leaders != MPI_COMM_NULL)
    {
      int lme;
      MPI_Comm_rank (leaders, &lme);
      MPI_Comm_size (leaders, &n_leaders);
      /* rank 0 is the first leader (the lowest rank of its host); it answers each leader in turn */
      for (int l = 1; l < n_leaders; l++)
        {
          if (lme == 0)
            for (int i = 0; i < ROUNDS; i++)
              {
                gint64 ping, pong;
                MPI_Recv (&ping, 1, MPI_INT64_T, l, TAG, leaders, MPI_STATUS_IGNORE);
                pong = sim_now ();
                MPI_Send (&pong, 1, MPI_INT64_T, l, TAG, leaders);
              }
          else if (lme == l)
            {
              gint64 best = G_MAXINT64;
              for (int i = 0; i < ROUNDS; i++)
                {
                  gint64 a = sim_now (), b, theirs;
                  MPI_Send (&a, 1, MPI_INT64_T, 0, TAG, leaders);
                  MPI_Recv (&theirs, 1, MPI_INT64_T, 0, TAG, leaders, MPI_STATUS_IGNORE);
                  b = sim_now ();
                  if (b - a < best)
                    {
                      best = b - a;
                      offset = theirs - (a + (b - a) / 2);
                    }
                }
            }
        }
      MPI_Comm_free (&leaders);
    }
  MPI_Bcast (&offset, 1, MPI_INT64_T, 0, host);
  MPI_Bcast (&n_leaders, 1, MPI_INT, 0, host);
  MPI_Comm_free (&host);
  if (n_hosts)
    *n_hosts = (guint) n_leaders;
  return offset;
}
