/* kubus-run-callsites.h: file:line of the profile's MPI call sites (libdw, after the run). */
#pragma once

#include <cube.h>

/* Sets file and line of every call site of @report (a profile) that the debug information
 * knows.  @mapped / @sites: call sites given a source line / all call sites. */
void kubus_run_map_callsites (CubeReport *report, guint *mapped, guint *sites);

/* The key of a call site for the profile's merge (KubusSiteKeyFunc): the first offset seen in
 * @module with the same source line, or @offset itself when the line is unknown.  @data: a
 * KubusRunSiteKeys. */
typedef struct KubusRunSiteKeys KubusRunSiteKeys;
KubusRunSiteKeys *kubus_run_site_keys_new (void);
void              kubus_run_site_keys_free (KubusRunSiteKeys *k);
guint64           kubus_run_site_key (void *data, const char *module, guint64 offset);
