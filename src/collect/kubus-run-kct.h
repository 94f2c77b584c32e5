/* kubus-run-kct.h: the compressed trace of an aborted run (kubus-run). */
#pragma once

#include <glib.h>

/* After a run with --trace-format=compressed|both that did not reach MPI_Finalize, the ranks
 * that saved left EXPDIR/.kubus-kct-RANK (collect-kct.c).  Merges them into EXPDIR/traces.kct
 * (a rank of @ranks without a part gets an empty stand-in, counted in *stand_ins) and removes
 * the parts.  Returns the number of parts merged (0: none, nothing written), or -1 with
 * @error set. */
int  kubus_run_kct_mend (const char *expdir, int ranks, int *stand_ins, GError **error);
/* Removes what is left of the parts (also temporary files). */
void kubus_run_kct_remove_parts (const char *expdir);
