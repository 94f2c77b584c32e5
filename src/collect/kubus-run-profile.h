/* kubus-run-profile.h: what kubus-run does with the profile after the run. */
#pragma once

#include <glib.h>

/* After the application ended: merges the records of an aborted run (EXPDIR/.kubus-profile),
 * maps the call sites to source lines and tells the user what is worth knowing (no profile,
 * the call-path limit was reached, the run ended early).  Messages go to stderr. */
void kubus_run_profile_finish (const char *expdir);
/* Names the functions the collector found on the stack in EXPDIR/traces.otf2's definitions. */
void kubus_run_name_trace (const char *expdir);
