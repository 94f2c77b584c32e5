/* kubus-run-callsites.h: file:line of the profile's MPI call sites (libdw, after the run). */
#pragma once

#include <cube.h>

/* Sets file and line of every call site of @report (a profile) that the debug information
 * knows.  @mapped / @sites: call sites given a source line / all call sites. */
void kubus_run_map_callsites (CubeReport *report, guint *mapped, guint *sites);
