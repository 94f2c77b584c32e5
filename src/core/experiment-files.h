/* experiment-files.h — what kubus-run's kubus.json says of an experiment's traces. */
#pragma once

#include <glib.h>

/* Why the experiment folder @expdir holds no trace @file ("traces.otf2" or "traces.kct"), as a
 * sentence for a message, when its kubus.json says why ("not_written": the collector could not
 * complete it, no rank wrote it) or names it as the trace although it is not there (written by
 * a kubus-run of before 2026-11-29, which named the trace before it existed); NULL when
 * kubus.json says nothing of it, or there is no kubus.json. */
char *kubus_experiment_why_no_trace (const char *expdir,
                                     const char *file);

/* The same for a folder with neither trace: the reason for the one kubus.json names (the OTF2
 * trace's first); NULL when either trace is there or kubus.json says nothing. */
char *kubus_experiment_why_no_traces (const char *expdir);
