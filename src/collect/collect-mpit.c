/* collect-mpit.c — the MPI library's eager limits, for kubus-sim's offline model.
 *
 * A message up to the eager limit of its transport goes at once; a larger one waits for its
 * receiver (rendezvous). kubus-sim fits the limit from the trace, by what the sends did when their
 * receivers were late (sim-model.c). Where no receiver was ever late, the trace says nothing, and
 * a model that took every message for eager missed a polling loop of 16 KB messages by 4-5 %
 * (sim-poll at 2 ranks, whose few votes came from the stalls of a busy machine). So rank 0 also
 * reads the limits the library was configured with, through the MPI tool information interface
 * (MPI_T control variables, MPI 3.0), at MPI_Finalize: the largest btl_{vader,sm}_eager_limit
 * (Open MPI's shared memory, between ranks of a host) and btl_tcp_eager_limit (between hosts),
 * as the archive properties KUBUS::EAGER_LIMIT_SAME_HOST and KUBUS::EAGER_LIMIT_BETWEEN_HOSTS
 * (bytes, decimal), in the OTF2 archive and the compressed trace (its properties). Libraries
 * without those variables write none. */
#include "collect.h"
#include "mpit-limits.h"

#include <stdio.h>
#include <string.h>

/* the limits, read once (the OTF2 archive's rank 0 and the compressed trace's both want them) */
static int read_done, have_same, have_between;
static unsigned long long same, between;

static void
read_limits (void)
{
  unsigned long long limit[2];
  int have[2];

  if (read_done)
    return;
  read_done = 1;
  if (getenv ("KUBUS_TEST_NO_MPIT"))   /* test-only: a library without the variables */
    return;
  kubus_mpit_eager_limits (limit, have);
  same = limit[0];
  between = limit[1];
  have_same = have[0];
  have_between = have[1];
}

int
kubus_mpit_limit (int between_hosts, char value[32])
{
  read_limits ();
  if (between_hosts ? !have_between : !have_same)
    return 0;
  snprintf (value, 32, "%llu", between_hosts ? between : same);
  return 1;
}

void
kubus_mpit_properties (OTF2_Archive *archive)
{
  char v[32];
  if (kubus_mpit_limit (0, v))
    OTF2_Archive_SetProperty (archive, "KUBUS::EAGER_LIMIT_SAME_HOST", v, true);
  if (kubus_mpit_limit (1, v))
    OTF2_Archive_SetProperty (archive, "KUBUS::EAGER_LIMIT_BETWEEN_HOSTS", v, true);
}
