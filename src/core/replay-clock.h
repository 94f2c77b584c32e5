/* replay-clock.h — clock repair: the controlled logical clock (CLC) of Becker, Rabenseifner,
 * Wolf and Geimer ("Scalable timestamp synchronization for event traces of message-passing
 * applications", Parallel Computing 35(12), 2009) as a pass of the parallel replay.
 *
 * What it guarantees: after the repair no receive lies before its send and no rank leaves a
 * collective before a rank it depends on entered it (the clock condition), while the time
 * between a location's events changes as little as possible: forward amortization moves a
 * violating event to its send and lets the correction fade out at rate 1 − γ (γ = 0.99999)
 * rather than shifting the rest of the location rigidly, and backward amortization then spreads
 * each jump linearly over the time before it (at most 1 % faster, never past an earlier send
 * beyond its receive). A trace without violations comes out unchanged.
 *
 * Use (kubus-analyze; kubus-sim can do the same; every call is collective over the transport):
 *
 *   for every local rank i: rds[i] = rank_data_new (...); trace_read_rank (anchor, rds[i], ...);
 *   ClockRepair *cr = clock_repair_run (t, rds, &error);
 *   if (clock_repair_changed (cr))
 *     clock_repair_reread (cr, anchor, t, rds, ...);   each rank's records, call-path times and
 *                                                       all, read again in repaired time
 *   clock_repair_free (cr);
 *
 * clock_repair_reread just sets rds[i]->clock_map = clock_repair_map (cr, i) on a fresh
 * RankData and reads again: trace_read_rank passes every event time through the map. A program
 * with its own reader gets an event's repaired time from clock_map_apply (the location's map,
 * the event's original time and its position among the location's events as OTF2's reader
 * callbacks report it). The map lives as long as the ClockRepair. */
#pragma once

#include "analyze-private.h"

typedef struct _ClockRepair ClockRepair;

/* Global figures (the same on every process). */
typedef struct
{
  guint64  violations_p2p;  /* receives stamped before their send, as read */
  guint64  violations_coll; /* collective ends before an enter they depend on, as read */
  guint64  corrections;     /* receive / collective-end events the forward pass moved */
  Tick     largest;         /* largest correction of any event, in ticks */
  guint    passes;          /* forward replay passes (one more only when a correction moved a
                               send that another rank received) */
  gboolean converged;       /* FALSE: the pass limit stopped it (a cyclic, corrupt trace) */
} ClockRepairStats;

/* Repairs the clocks of the ranks in @rds (read with trace_read_rank, no map). Collective.
 * NULL when an exchange failed (the transport's error): other processes may then be waiting in
 * a collective, so an MPI caller aborts. */
ClockRepair    *clock_repair_run (Transport  *t,
                                  RankData  **rds,
                                  GError    **error);
/* TRUE when some location anywhere needs another time than it has (same on every process). */
gboolean        clock_repair_changed (const ClockRepair *cr);
/* Local rank @i's map, NULL when its times stay as they are. Owned by @cr. */
const ClockMap *clock_repair_map (const ClockRepair *cr,
                                  int                i);
void            clock_repair_stats (const ClockRepair *cr,
                                    ClockRepairStats  *stats);
/* Reads every local rank again with its map (fresh records in rds[i]); notes the repair's
 * figures in each RankData for the report. Collective (agrees on success). */
gboolean        clock_repair_reread (ClockRepair     *cr,
                                     const char      *anchor,
                                     Transport       *t,
                                     RankData       **rds,
                                     AnalyzeProgress *prog,
                                     GError         **error);
/* Notes the repair's figures in each local RankData (clock_repair_reread does it too). */
void            clock_repair_note (const ClockRepair *cr,
                                   RankData         **rds);
void            clock_repair_free (ClockRepair *cr);

/* Sequential use of a map: a cursor per location, events in the order of their positions. */
typedef struct
{
  guint next;
} ClockCursor;

Tick clock_map_apply (const ClockMap *map,
                      ClockCursor    *cursor,
                      Tick            time,
                      guint64         pos);
/* Any event, in any order. */
Tick clock_map_apply_at (const ClockMap *map,
                         Tick            time,
                         guint64         pos);

/* ---- the amortization itself, for the unit tests (tests/core/test-clock-repair.c) -------- */

/* One jump of the forward amortization: the event at @pos (original time @t) was moved from
 * @pre (where the amortized clock had it) to @c; the backward amortization ramps the events
 * of the last @window ticks before it (in forward time) up towards the jump. */
typedef struct
{
  guint64 pos;
  Tick    t;
  Tick    pre;
  Tick    c;
  Tick    window;
} ClockAnchor;

#define CLOCK_GAMMA_DIV 100000 /* γ = 1 − 1/100000 */
#define CLOCK_SLOPE_DIV 100    /* backward ramp: at most 1/100 of the time it spans */

/* The forward amortization's clock after @a (NULL: none) for an event of original time @t. */
Tick      clock_forward (const ClockAnchor *a,
                         Tick               t);
/* A map from anchors (sorted by position; copied). */
ClockMap *clock_map_new (const ClockAnchor *anchors,
                         guint              n);
void      clock_map_free (ClockMap *map);
