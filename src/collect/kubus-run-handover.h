/* kubus-run-handover.h: the small files the collector leaves kubus-run about the clock
 * (docs/decisions/2026-11-25-clock.md). GLib only, so the fuzz build compiles it without MPI. */
#pragma once

#include <glib.h>

/* .kubus-clock, "key value" lines → `  "clock": {...},\n` appended to @json (values that read
 * as numbers stay numbers; nothing is appended for text without a single pair). */
void kubus_run_clock_json (GString *json, const char *text);

/* .kubus-span-RANK: "FIRST LAST TIME1 OFFSET1 TIME2 OFFSET2" (a rank's first and last event as
 * readers see them and its two ClockOffset records). FALSE unless all six are there and
 * TIME2 > TIME1. */
typedef struct
{
  guint64 first, last;
  guint64 time[2];
  gint64  offset[2];
} KubusRunSpan;

gboolean kubus_run_parse_span (const char *text, KubusRunSpan *span);

/* .kubus-threads (rank 0 at MPI_Finalize, only when there were any): "level NAME" (the thread
 * level MPI provided, MPI_THREAD_SINGLE … MPI_THREAD_MULTIPLE: @level 0 … 3, else -1), then "RANK COUNT" lines, the MPI calls of other threads than MPI_Init's
 * that were not traced.  @counts gets guint64 pairs (rank, count), ranks ascending; FALSE
 * unless every line is one of these (counts > 0, ranks distinct and ascending). */
gboolean kubus_run_parse_threads (const char *text, int *level, GArray *counts);

/* Removes the files in @dir whose names start with @prefix (the collector's hand-over files,
 * once they served). */
void kubus_run_remove_prefixed (const char *dir, const char *prefix);
