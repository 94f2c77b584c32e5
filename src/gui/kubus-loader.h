/* kubus-loader.h — reading reports in a worker thread (GTask), with progress and cancel.
 *
 * One call loads a report, or two reports and their difference A − B (cube_algebra_diff). */
#pragma once

#include <gio/gio.h>

#include "cube.h"

G_BEGIN_DECLS

typedef struct
{
  CubeReport *report;   /* what to show */
  CubeReport *base;     /* A when report is A − B, else NULL */
  /* For A − B: call paths of A, of B, and of both (matched by region names along the path,
   * as the difference matches them). Few in common: the reports come from different programs. */
  guint       cnodes_a;
  guint       cnodes_b;
  guint       cnodes_common;
} KubusLoadResult;

void             kubus_load_result_free (KubusLoadResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (KubusLoadResult, kubus_load_result_free)

/* @path_b non-NULL: load @path (A) and @path_b (B) and show A − B. */
GTask           *kubus_load_async       (const char          *path,
                                         const char          *path_b,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data);
/* Starts reading @path in a thread of its own right now (e.g. from main(), before GTK is up);
 * the next kubus_load_async() of the same file (as @path or @path_b) takes that result instead
 * of reading the file again. Any thread. A prefetch nobody claims is never freed: call it only
 * for files the program is about to open. */
void             kubus_load_prefetch    (const char *path);
/* Cancels every prefetch not yet claimed (a usage error: nothing will open them). They stay
 * registered, so a later kubus_load_async of the same file reports it as cancelled. */
void             kubus_load_prefetch_cancel_all (void);
/* Fraction done (0…1) of a task returned by kubus_load_async; any thread. */
double           kubus_load_get_progress (GTask *task);
KubusLoadResult *kubus_load_finish      (GAsyncResult  *result,
                                         GError       **error);

/* The report a browser opens for @file: @file itself, or for an experiment folder its
 * analysis.cube (else its profile.cube); a folder without either stays @file (its load then
 * says what a folder should hold). New ref. */
GFile           *kubus_report_in_folder (GFile *file);

G_END_DECLS
