/* mpit-limits.c — the MPI library's eager limits through the MPI tool information interface
 * (MPI_T control variables, MPI 3.0): the largest btl_{vader,sm}_eager_limit (Open MPI's shared
 * memory, between ranks of a host) and btl_tcp_eager_limit (between hosts). Plain C and MPI
 * only: the collector records them in the trace (collect-mpit.c), and kubus-sim compares the
 * re-enactment's own with the trace's (sim-run.c). MPI_T may be initialised before, during or
 * after MPI itself. */
#include "mpit-limits.h"

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

void
kubus_mpit_eager_limits (unsigned long long limit[2],
                         int                have[2])
{
  int provided = 0, n = 0;
  limit[0] = limit[1] = 0;
  have[0] = have[1] = 0;
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
            limit[0] = have[0] && limit[0] > x ? limit[0] : x;
            have[0] = 1;
          }
        else if (strcmp (name, "btl_tcp_eager_limit") == 0 && cvar_read (i, dt, &x) && x > 0)
          {
            limit[1] = x;
            have[1] = 1;
          }
      }
  MPI_T_finalize ();
}
