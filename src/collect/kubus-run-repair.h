/* kubus-run-repair.h: make an aborted experiment readable (kubus-run). */
#pragma once

#include <glib.h>
#include <otf2/otf2.h>

/* After an abort (EXPDIR/.kubus-abort-definitions exists), ranks that mpirun
 * killed before they finished writing may have left an empty or missing
 * traces/<rank>.def or .evt.  Writes valid stand-ins (see
 * docs/decisions/collect-abort.md).  Returns the number of files replaced,
 * or -1 with error set. */
int kubus_run_repair (const char *expdir, int ranks, GError **error);

/* Flush callbacks for kubus-run's OTF2 writers (repair, frame names): buffers are written
 * when full, no timestamp is taken. */
extern const OTF2_FlushCallbacks kubus_run_flush_callbacks;
