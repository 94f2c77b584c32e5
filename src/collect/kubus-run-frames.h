/* kubus-run-frames.h: after an abort, the functions found on the stacks of the ranks that did
 * not write the global definitions (kubus-run-frames.c). */
#pragma once

#include "symbols.h"

typedef struct KubusRunFrames KubusRunFrames;

/* Reads (and removes) the ranks' EXPDIR/.kubus-frames-<rank> files: NULL when there are none. */
KubusRunFrames *kubus_run_abort_frames_plan (const char *expdir);
/* The regions to add to the global definitions (SymbolsNewRegion; owned by @p). */
const GArray   *kubus_run_abort_frames_regions (const KubusRunFrames *p);
/* Once they are defined: the ranks' local definitions map their frames to them. */
void            kubus_run_abort_frames_apply (const KubusRunFrames *p);
void            kubus_run_abort_frames_free (KubusRunFrames *p);
