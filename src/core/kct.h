/* kct.h: compressed traces in src/core — loading and saving .kct files, kubus-trace's
 * info / expand / compress / extrapolate, and the expansion to a temporary OTF2 archive that
 * the browser's Analyze action can call.  The model and its encoding are plain C shared with
 * the collector (src/collect/kct-format.h); replay without expansion: kct-replay.h. */
#pragma once

#include <glib.h>

#include "kct-format.h"
#include "kct-replay.h"

#define KCT_ERROR (kct_error_quark ())
GQuark kct_error_quark (void);

typedef enum
{
  KCT_ERROR_FILE,    /* cannot read or write a file */
  KCT_ERROR_CORRUPT, /* not a valid .kct */
  KCT_ERROR_OTF2,    /* an OTF2 archive could not be read or written */
  KCT_ERROR_EXTRAPOLATE,
} KctError;

/* kct-load.c.  Returns a trace (free with kct_trace_free) or NULL with @error naming the file
 * and what is wrong with it. */
KctTrace *kct_load (const char *path, GError **error);
/* Writes a finished trace (kct_finish) through a temporary file and a rename. */
gboolean kct_save (const KctTrace *t, const char *path, GError **error);

/* kct-info.c */
typedef struct
{
  guint64 events;      /* all ranks */
  guint64 leaves, bodies, rsds, prsds;
  guint64 otf2_bytes;  /* measured (the OTF2 trace of the same run) or estimated */
  gboolean otf2_measured;
} KctStats;

void kct_stats (const KctTrace *t, KctStats *st);
/* Estimated size of the OTF2 archive holding the same events. */
guint64 kct_otf2_estimate (const KctTrace *t);
/* calls[region] for all ranks together; @calls has n_regions entries */
void kct_calls_per_region (const KctTrace *t, guint64 *calls);
/* The text of `kubus-trace info` (with --calls: calls per MPI function). */
char *kct_info_text (const KctTrace *t, const char *path, guint64 file_bytes, gboolean calls);

/* kct_comms_new with the reason it fails as a GError (KCT_ERROR_CORRUPT). */
KctComms *kct_comms_open (const KctTrace *t, GError **error);

/* kct-expand.c: an OTF2 archive with every rank's events, the one kubus-run writes
 * (DIR/traces.otf2, DIR/traces/, DIR/traces.def), written to a temporary directory that is
 * renamed to @dir at the end.  @dir must not exist unless @force. */
gboolean kct_expand (const KctTrace *t, const char *dir, gboolean force, GError **error);
/* The same archive without events: the definitions (regions, communicators, locations with
 * their event counts, topologies) for a reader that takes each rank's events from a
 * KctReplay instead (the simulator replaying a compressed trace without expanding it: read
 * the definitions as from any OTF2 trace, then the events of rank r from
 * kct_replay_new (t, comms, r); global ids agree by construction). */
gboolean kct_expand_definitions (const KctTrace *t, const char *dir, gboolean force,
                                 GError **error);
/* What the expansion's causal order changes: receives that lay before their send (and moved
 * to it), events moved in all, the largest move (ticks), receives without a send. */
typedef struct
{
  guint64 receives_moved, events_moved, largest_move, unmatched;
} KctExpandStats;
/* The expansion's causal pass alone (no output). */
gboolean kct_expand_check (const KctTrace *t, KctExpandStats *st, GError **error);
/* For the browser's Analyze action: expands @kct_path into a new temporary directory and
 * returns its path (an experiment directory for kubus-analyze; the caller deletes it when
 * done), or NULL. */
char *kct_expand_temporary (const char *kct_path, GError **error);
/* The same in a new hidden directory .kubus-kct-XXXXXX inside @parent (NULL: $TMPDIR), the
 * way kubus-analyze analyses a compressed trace; kct_remove_temporary deletes such a
 * directory with everything in it. */
char *kct_expand_temporary_in (const char *kct_path, const char *parent, GError **error);
gboolean kct_remove_temporary (const char *dir);

/* How exactly times are kept: the error bound (0 = the defaults, 1 us or 1 %) and the ranks
 * per group with times of their own (0 = KCT_TIMELINES). */
typedef struct
{
  double  abs_seconds;
  guint32 bits;
  guint32 timelines;
} KctTimeSettings;

/* "1us,0.0015%" (either part alone) -> settings; FALSE when malformed. */
gboolean kct_parse_time_settings (const char *s, KctTimeSettings *ts);

/* kct-compress.c: the collector's compression, offline, from an OTF2 archive (its anchor
 * file traces.otf2).  Returns a finished trace or NULL; *@skipped counts the events of kinds
 * compressed traces do not hold (metrics, parameters, ...), which were left out. */
KctTrace *kct_compress_otf2 (const char *anchor, const KctTimeSettings *ts, guint64 *skipped,
                             GError **error);
/* Every event of an OTF2 archive that a compressed trace holds, rank by rank in order, with
 * its time as read (before the recorder sees it: requests are ids, not slots); @n_ranks (may be
 * NULL): the archive's MPI ranks. */
typedef void (*KctOtf2EventFunc) (guint32 rank, guint64 time, const KctRaw *ev, gpointer data);
gboolean kct_otf2_events (const char *anchor, KctOtf2EventFunc observe, gpointer data,
                          guint32 *n_ranks, GError **error);

/* kct-check.c: kubus-trace info --check: the compressed trace @kct_path (loaded as @t)
 * against the OTF2 trace of the same run in @expdir, time per event and the two analyses
 * (kubus-analyze runs on both); the report goes to @out. */
gboolean kct_check (const KctTrace *t, const char *kct_path, const char *expdir, GString *out,
                    GError **error);
/* kct-info.c: the timing error bound in words ("1 µs or 0.0015 % of the time since the rank's
 * previous event"); a duration in words ("1.5 ms"). */
char *kct_bound_text (const KctTrace *t);
char *kct_duration_text (double seconds);

/* kct-extrapolate.c: traces of the same program at several rank counts to a trace at
 * @ranks (see the file for what it can and cannot infer).  @dims (n_dims > 0) fixes the
 * process grid of the result; otherwise it is derived the way MPI_Dims_create would. */
KctTrace *kct_extrapolate (KctTrace *const *in,
                           guint            n_in,
                           guint32          ranks,
                           const guint32   *dims,
                           guint            n_dims,
                           GError         **error);
