/* sim-trace-gen.h — synthetic OTF2 traces for the simulator tests (sim-trace-gen.c). */
#pragma once

#include <glib.h>

/* Writes DIR/traces.otf2 of @variant ("exact", "unmatched", "omp", "approx", "clockviol", "frames", "irecv", "progress", "cutcoll", "flush", "tree": 4 ranks, "waits", "extrapolate", "scatter"). */
gboolean sim_trace_gen_write (const char *dir, const char *variant);
