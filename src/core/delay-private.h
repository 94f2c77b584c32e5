/* delay-private.h — the root-cause and critical-path passes (delay-*.c, critical-*.c): one
 * rank's timeline of exclusive time between its communication events, its synchronization
 * points, and the state of the backward replay that charges wait states to the delays that
 * caused them (Böhme et al., "Identifying the root causes of wait states in large-scale
 * parallel applications", ICPP 2010 / TOPC 3(2) 2016; "Scalable critical-path based performance
 * analysis", IPDPS 2012). PATTERNS.md defines the metrics; docs/decisions/2026-11-28-root-causes.md
 * says where and why the passes are built the way they are.
 *
 * Order of the passes (delay-run.c), after the wait-state replay:
 *   reading       the trace reader records the timeline (delay-timeline.c) when asked to
 *   syncpoints    bulk exchanges find every rank's synchronization points: the waits, and the
 *                 events on the other side that caused them (delay-syncpoints.c)
 *   backward      the events in reverse: every wait hands its costs to the rank that made it
 *                 wait, which charges them to the call paths of its delay (delay-replay.c over
 *                 the message-driven replay of replay-msg.c); the critical path is followed
 *                 back at the same time (critical-path.c)
 *   forward       indirect and propagating wait states (delay-propagation.c)
 *   report        rank 0 derives the critical-path impacts from every rank's profile
 *                 (critical-impact.c) */
#pragma once

#include "analyze-private.h"

/* ---- timeline (delay-timeline.c) ----------------------------------------------------------- */

#define TL_UNSET G_MININT64

/* One event that may be a synchronization point, in event order: the call that holds it and the
 * end of the exclusive time flushed before it. Time is flushed at enters and leaves only (the
 * innermost open call path gets the time since the last flush), so a mark's segment ends at
 * the last enter or leave before its event, as in Scalasca's time-map cache. */
typedef struct
{
  guint32 cnode;     /* the call path of the call that holds the event */
  guint32 seg_end;   /* end of this mark's segment in DelayTimeline.seg */
  Tick    enter;     /* enter and leave of that call */
  Tick    leave;
} DelayMark;

typedef struct
{
  guint32 cnode;
  guint32 pad;
  Tick    t;
} DelaySeg;

typedef struct
{
  /* plain arrays, not GArrays: the reader appends to them at every message event */
  DelayMark  *marks;
  guint32     n_marks, cap_marks;
  DelaySeg   *seg;           /* each segment's flushed time, one entry per call path */
  guint32     n_seg, cap_seg;
  DelaySeg   *pending;       /* flushed since the last mark */
  guint32     n_pending, cap_pending;
  guint32    *pend_idx;      /* per cnode: position in pending + 1, 0 if absent */
  guint32     cap_pend_idx;
  Tick        last;          /* time of the last flush */
  guint32     tail_end;      /* end of the time after the last mark */
  /* the marks of the records, parallel to RankData's arrays (NO_INDEX: none) */
  GArray     *send_mark;     /* per send: the send event */
  GArray     *send_cmark;    /* per send: the event that completed it (blocking send: the same) */
  GArray     *recv_mark;     /* per receive: the receive (completion) event */
  GArray     *recv_qmark;    /* per receive: the request event (blocking receive: the same) */
  GArray     *coll_mark;     /* per collective record: its MpiCollectiveEnd */
  GArray     *coll_begin;    /* per collective record: its MpiCollectiveBegin (Tick) */
  GArray     *nbc_smark;     /* per non-blocking collective (RankData.nbcs): its request event */
  GArray     *nbc_cmark;     /* and its completion event (NO_INDEX until completed) */
  GHashTable *req_mark;      /* MPI_Irecv request -> mark + 1, until its completion */
  Tick        begin_time;    /* the last MpiCollectiveBegin */
  guint32     init_mark;     /* MPI_Init's and MPI_Finalize's leave, NO_INDEX if absent */
  guint32     finalize_mark;
} DelayTimeline;

/* @reserve: marks to reserve address space for (from the location's event count) */
DelayTimeline *delay_timeline_new (guint32 reserve);
void           delay_timeline_free (DelayTimeline *tl);
/* Time since the last flush goes to @cnode (NO_INDEX: to nobody, as before the first enter). */
void           delay_timeline_flush (DelayTimeline *tl, guint32 cnode, Tick t);
/* A new mark for an event of the call @cnode entered at @enter; returns its index. */
guint32        delay_timeline_mark (DelayTimeline *tl, guint32 cnode, Tick enter);
/* The call entered when there were @mark0 marks left at @leave. */
void           delay_timeline_leave (DelayTimeline *tl, guint32 mark0, Tick leave);
/* After the last event: the tail segment. */
void           delay_timeline_finish (DelayTimeline *tl);
gsize          delay_timeline_bytes (const DelayTimeline *tl);

/* ---- time maps ---------------------------------------------------------------------------- */

/* Time per call path, keyed by the call path's identity across ranks (a hash of its region
 * path; delay_cnode_key): the maps of two ranks are compared key by key. Sorted by key. */
typedef struct
{
  guint64 key;
  guint32 cnode;    /* the local call path (NO_INDEX in a map from another rank) */
  guint32 pad;
  double  t;        /* ticks */
} TmEntry;

typedef struct
{
  GArray *e;        /* TmEntry, sorted by key */
  double  sum;
} TimeMap;

/* ---- synchronization points (delay-syncpoints.c) ------------------------------------------ */

typedef enum
{
  SP_LS_RECV,       /* a receive that waited for a late sender (its largest wait, for Waitall) */
  SP_LS_SEND,       /* the send it waited for */
  SP_LR_SEND,       /* a send completion that waited for a late receiver */
  SP_LR_RECV,       /* the receive request it waited for */
  SP_COLL,          /* a collective that synchronizes (scout's rules per kind) */
  SP_INIT,
  SP_FINALIZE,
} SpKind;

typedef enum
{
  CK_BARRIER,
  CK_N2N,
  CK_12N,
  CK_N21,
} CollKindSp;

typedef enum
{
  SR_ONE,           /* one rank (point-to-point partner) */
  SR_ALL,           /* every rank (MPI_Init, MPI_Finalize) */
  SR_LIST,          /* the ranks in sp_ranks[first .. first + n) */
} SyncRanksType;

typedef struct
{
  guint32 mark;     /* the event (index into the timeline's marks) */
  guint8  kind;     /* SpKind */
  guint8  ckind;    /* CollKindSp */
  guint8  root;     /* collective: this rank is the one the others waited for */
  guint8  sr_type;  /* SyncRanksType */
  gint32  peer;     /* point-to-point partner; collective: world rank of the root */
  guint32 sr_first; /* SR_LIST: first index into Causes.sp_ranks */
  guint32 sr_n;
  guint64 msg;      /* the message the replay exchanges for it (replay-msg.h key) */
  guint32 comm;     /* collective: comm index */
  guint32 n_up;     /* collective root: how many members report to it */
  Tick    wait;     /* waiting time (scout's), ≥ 0 */
  Tick    total;    /* leave − enter of the call */
  Tick    completion;
  guint32 rec;      /* the record: receive, send or collective index */
  guint32 pad;
} SyncPoint;

/* ---- the per-rank state -------------------------------------------------------------------- */

enum
{
  LT_LS,
  LT_LR,
  LT_BARRIER,
  LT_N2N,
  LT_12N,
  LT_N21,
  N_LT
};

typedef struct _Causes
{
  DelayTimeline *tl;
  guint          groups;       /* METRIC_GROUP bits that run */
  GArray        *keys;         /* guint64 per cnode: delay_cnode_key */
  GArray        *sps;          /* SyncPoint, in event order */
  GArray        *sp_ranks;     /* gint32: SR_LIST members (sorted) */
  guint32       *sp_of_mark;   /* mark -> sync point + 1, 0 if none */
  guint32       *send_sp;      /* per send: its SP_LS_SEND or SP_LR_SEND point + 1 */
  guint32       *recv_sp;      /* per receive: its SP_LS_RECV or SP_LR_RECV point + 1 */
  /* backward replay */
  double        *cost;         /* N_LT per sync point: long-term costs (m_cost) */
  double        *pw_ind;       /* per sync point: indirect wait it passes on (LS send, LR recv) */
  double        *pw_prop;      /* per sync point: propagating part of its wait */
  gboolean       on_path;      /* the critical path runs through this rank now */
  guint32        path_end;     /* mark where the critical path segment ends */
  guint32        next_sp;      /* the backward replay's position: sync points left */
  gboolean       finished;
  /* results: N_CAUSE_METRICS doubles per cnode (ticks) */
  GArray        *sev;
  double        *ltimes;       /* per cnode: time minus waits (critical-path impacts) */
  guint64        n_msgs;       /* replay messages sent */
  /* scratch per cnode for building time maps and wait maps (zero between uses) */
  double        *acc_t, *acc_w;
  guint32       *list_t, *list_w;
  guint8        *in_t, *in_w;
  guint32        n_scratch;
} Causes;

Causes  *causes_new (guint groups);
void     causes_free (Causes *c);
double  *causes_row (RankData *rd, guint32 cnode);
guint64  delay_cnode_key (RankData *rd, guint32 cnode);

/* Time maps over a rank's own timeline: marks @from (exclusive) to @to (NO_INDEX: from the
 * start / to the end). */
void     timemap_runtimes (RankData *rd, gint64 from, gint64 to, TimeMap *out);
void     timemap_init (TimeMap *m);
void     timemap_clear (TimeMap *m);
double   timemap_get (const TimeMap *m, guint64 key);

/* Previous synchronization point (index, -1 if none) before sync point @sp that synchronized
 * with world rank @rank. */
gint64   delay_prev_sp (RankData *rd, guint32 sp, int rank);
gboolean delay_sp_has_rank (RankData *rd, const SyncPoint *s, int rank);

gboolean delay_syncpoints_build (Transport *t, RankData **rds, GError **error);
gboolean delay_replay_run (Transport *t, gboolean mpi, RankData **rds, GError **error);
gboolean delay_propagation_run (Transport *t, RankData **rds, GError **error);
