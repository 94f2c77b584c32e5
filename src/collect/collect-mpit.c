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

#include <stdio.h>
#include <string.h>

/* the value of control variable @i (of datatype @dt, bound to no object) into @out */
static int
cvar_read (int i, MPI_Datatype dt, unsigned long long *out)
{
  MPI_T_cvar_handle h;
  int count = 0, ok = 0;
  if (MPI_T_cvar_handle_alloc (i, NULL, &h, &count) != MPI_SUCCESS)
    return 0;
  if (count == 1)
    {
      if (dt == MPI_INT)
        {
          int v = 0;
          ok = MPI_T_cvar_read (h, &v) == MPI_SUCCESS && v >= 0;
          *out = (unsigned long long)v;
        }
      else if (dt == MPI_UNSIGNED)
        {
          unsigned v = 0;
          ok = MPI_T_cvar_read (h, &v) == MPI_SUCCESS;
          *out = v;
        }
      else if (dt == MPI_UNSIGNED_LONG)
        {
          unsigned long v = 0;
          ok = MPI_T_cvar_read (h, &v) == MPI_SUCCESS;
          *out = v;
        }
      else if (dt == MPI_UNSIGNED_LONG_LONG)
        {
          unsigned long long v = 0;
          ok = MPI_T_cvar_read (h, &v) == MPI_SUCCESS;
          *out = v;
        }
      else if (dt == MPI_COUNT)
        {
          MPI_Count v = 0;
          ok = MPI_T_cvar_read (h, &v) == MPI_SUCCESS && v >= 0;
          *out = (unsigned long long)v;
        }
    }
  MPI_T_cvar_handle_free (&h);
  return ok;
}

/* the limits, read once (the OTF2 archive's rank 0 and the compressed trace's both want them) */
static int read_done, have_same, have_between;
static unsigned long long same, between;

static void
read_limits (void)
{
  int provided = 0, n = 0;

  if (read_done)
    return;
  read_done = 1;
  if (getenv ("KUBUS_TEST_NO_MPIT"))   /* test-only: a library without the variables */
    return;
  if (MPI_T_init_thread (MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
    return;
  if (MPI_T_cvar_get_num (&n) == MPI_SUCCESS)
    for (int i = 0; i < n; i++)
      {
        char name[256], desc[8];
        int name_len = sizeof name, desc_len = sizeof desc, verbosity, bind, scope;
        MPI_Datatype dt;
        MPI_T_enum et;
        unsigned long long x;
        if (MPI_T_cvar_get_info (i, name, &name_len, &verbosity, &dt, &et, desc, &desc_len, &bind, &scope)
            != MPI_SUCCESS || bind != MPI_T_BIND_NO_OBJECT)
          continue;
        if ((strcmp (name, "btl_vader_eager_limit") == 0 || strcmp (name, "btl_sm_eager_limit") == 0)
            && cvar_read (i, dt, &x) && x > 0)
          {
            same = have_same && same > x ? same : x;
            have_same = 1;
          }
        else if (strcmp (name, "btl_tcp_eager_limit") == 0 && cvar_read (i, dt, &x) && x > 0)
          {
            between = x;
            have_between = 1;
          }
      }
  MPI_T_finalize ();
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
