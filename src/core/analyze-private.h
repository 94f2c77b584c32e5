/* analyze-private.h — types shared by the analyzer's files: global trace definitions, the
 * compact per-rank record arrays, the transport and the per-rank analysis state. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "analyze-metrics.h"

typedef gint64 Tick;

#define NO_INDEX G_MAXUINT32

/* Hash of a 64-bit key (two 32-bit ids, a << 32 | b) held in a pointer. g_direct_hash keeps
 * the low 32 bits only: every key with the same b would collide, and a table of them costs
 * quadratic time (a program with thousands of communicators, all sending with tag 0). */
static inline guint
key64_hash (gconstpointer p)
{
  guint64 k = (guint64) GPOINTER_TO_SIZE (p) * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  return (guint) (k >> 32);
}

/* ---- global definitions (every analysis rank reads them: they are shared, not a rank's trace) */

typedef enum
{
  RC_USER = 0,
  RC_MPI_OTHER,
  RC_MPI_INIT,
  RC_MPI_FINALIZE,
  RC_MPI_MGMT_COMM,
  RC_MPI_BARRIER,
  RC_MPI_P2P,
  RC_MPI_COLL,
  RC_MPI_IO,      /* MPI_File_*: mpi_io */
  RC_MPI_IO_COLL, /* the collective ones: mpi_io_collective */
} RegionClass;

typedef enum
{
  RF_LR_SEND   = 1 << 0,  /* MPI_Send, MPI_Ssend: a blocking send that may wait for its receiver */
  RF_LR_WAIT   = 1 << 1,  /* MPI_Wait, MPI_Waitany: completes an Isend and may wait for the receiver */
  RF_TEST      = 1 << 2,  /* MPI_Test*: never waits */
  RF_WAIT_MANY = 1 << 3,  /* MPI_Waitall, MPI_Waitsome: Late Sender charged once */
  RF_FLUSH     = 1 << 4,  /* the measurement writing its trace buffer (KUBUS_FLUSH, Score-P's
                           * TRACE BUFFER FLUSH): not the program's time */
} RegionFlags;

typedef struct
{
  char   *name;
  char   *file;
  guint32 begin_line;
  guint32 end_line;
  guint8  klass;   /* RegionClass */
  guint8  flags;   /* RegionFlags */
  guint8  frame;   /* a function found on the stack (paradigm SAMPLING): no Enter/Leave of its own */
} TraceRegion;

typedef struct
{
  guint64  id;
  char    *name;
  int      group_type;     /* OTF2_GroupType */
  int      paradigm;       /* OTF2_Paradigm */
  guint32  n_members;
  guint64 *members;
} TraceGroup;

typedef struct
{
  guint32  id;
  guint32  index;          /* dense index among all comms */
  char    *name;
  int      size;           /* number of world ranks, 0 for a communicator we cannot map */
  int     *world;          /* comm-local rank -> world rank (size entries), -1 if not analysed */
  gboolean is_mpi;
  /* An inter-communicator (OTF2 InterComm): world/size are its group A, world_b/size_b its
   * group B; a point-to-point peer is a rank of the group the location is not in. */
  gboolean is_inter;
  int      size_b;
  int     *world_b;
  guint8  *in_b;           /* world rank -> 1 if in group B (n_ranks entries) */
} TraceComm;

typedef struct
{
  guint64 id;
  char   *name;
  char   *klass;
  guint64 parent;          /* OTF2_UNDEFINED_SYSTEM_TREE_NODE for a root */
  guint32 cpus;            /* KUBUS::CPUS property: CPUs the host's ranks could use; 0 unknown */
  /* KUBUS::OTHER_CPU_NS, KUBUS::OTHER_WALL_NS: CPU time other programs took on the host while
   * the ranks ran between MPI_Init and MPI_Finalize, and that interval; wall 0 unknown */
  guint64 other_cpu_ns, other_wall_ns;
} TraceSysNode;

typedef struct
{
  guint64 id;
  char   *name;
  guint64 sys_parent;
} TraceLocGroup;

typedef struct
{
  guint64 id;
  char   *name;
  guint64 group;
  guint64 n_events;
  int     rank;            /* world rank, -1 if this location is not analysed */
} TraceLocation;

typedef struct
{
  char    *name;
  guint32  size;
  gboolean periodic;
} TraceCartDim;

typedef struct
{
  guint32  id;
  char    *name;
  guint32  comm;
  guint    ndims;
  guint32 *dims;           /* cart dimension ids */
  int     *coords;         /* world rank * ndims, -1 where unknown */
} TraceCart;

typedef struct
{
  char       *path;            /* the anchor file */
  guint64     resolution;      /* ticks per second */
  guint64     global_offset;
  GHashTable *strings;         /* uint id -> char* */
  GHashTable *regions;         /* uint id -> TraceRegion* */
  GHashTable *groups;          /* uint id -> TraceGroup* */
  GHashTable *comm_by_id;      /* uint id -> TraceComm* */
  GPtrArray  *comms;           /* of TraceComm*, definition order */
  GPtrArray  *sysnodes;        /* of TraceSysNode* */
  GPtrArray  *locgroups;       /* of TraceLocGroup* */
  GPtrArray  *locations;       /* of TraceLocation* */
  GHashTable *cart_dims;       /* uint id -> TraceCartDim* */
  GPtrArray  *carts;           /* of TraceCart* */
  int         n_ranks;
  TraceLocation **rank_loc;    /* world rank -> location */
  TraceRegion **region_dense;  /* region id -> region, for ids < n_region_dense */
  TraceComm  **comm_dense;     /* comm id -> comm, for ids < n_comm_dense */
  guint       n_comm_dense;
  guint       n_region_dense;
  /* the metric class of the collector's KUBUS_CPU_TIME samples (collect-cputime.c), or
   * OTF2_UNDEFINED_METRIC */
  guint32     cpu_metric;
  gboolean    cpu_metric_wait; /* its second member is KUBUS_CPU_WAIT */
  gboolean    cpu_metric_where; /* its third member is KUBUS_CPU_ID */
  GHashTable *cpu_members;     /* member id -> 1 KUBUS_CPU_TIME, 2 KUBUS_CPU_WAIT (while reading) */
  /* the archive property KUBUS::UNTRACED_THREAD_CALLS ("RANK:COUNT,…": MPI calls of other threads
   * than MPI_Init's that the collector did not trace, MPI_THREAD_MULTIPLE), NULL without */
  char       *untraced_threads;
  /* the archive properties KUBUS::EAGER_LIMIT_SAME_HOST and ..._BETWEEN_HOSTS (collect-mpit.c):
   * the MPI library's configured eager limits in bytes, 0 unknown */
  guint64     eager_limit_lib[2];
} TraceDefs;

TraceDefs   *trace_defs_read (const char *anchor, GError **error);
void         trace_defs_free (TraceDefs *defs);
const char  *trace_defs_string (const TraceDefs *defs, guint64 id);
TraceRegion *trace_defs_region (const TraceDefs *defs, guint64 id);
TraceComm   *trace_defs_comm (const TraceDefs *defs, guint64 id);
/* World rank of comm-local rank @local_rank of @c as seen from world rank @my_rank (for an
 * inter-communicator: a rank of the group @my_rank is not in), -1 if it cannot be mapped. */
gint32       trace_defs_peer_rank (const TraceDefs *defs, const TraceComm *c, int my_rank,
                                   guint32 local_rank);
/* The 2-D Cartesian topology over MPI ranks used for wavefront analysis, or NULL. */
TraceCart   *trace_defs_wavefront_cart (const TraceDefs *defs);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TraceDefs, trace_defs_free)

/* ---- per-rank compact records -------------------------------------------------------------- */

/* One MPI call that may wait: completes a receive, a blocking send, a request completion, a
 * collective, or is MPI_Init / MPI_Finalize. Calls that only post (MPI_Isend, MPI_Irecv) leave
 * their enter time in the send / receive record instead. */
typedef struct
{
  Tick    enter;
  Tick    leave;
  guint32 cnode;   /* local call path */
  guint32 region;  /* region id */
} CallRec;

typedef struct
{
  Tick    time;          /* the send event (byte counts go to the severities while reading) */
  guint64 pos;           /* its position in the location's events (OTF2), for the clock repair */
  Tick    enter;         /* E(send): enter of the call that holds the send event */
  guint32 call;          /* the blocking send call that may wait (MPI_Send, MPI_Ssend), else NO_INDEX */
  guint32 complete_call; /* the call holding MpiIsendComplete, NO_INDEX if none */
  gint32  peer;          /* world rank of the receiver */
  guint32 comm;          /* comm index */
  guint32 tag;
  guint32 order;         /* number of call records when the send happened: orders sends and receives */
} SendRec;

typedef struct
{
  Tick    time;          /* the receive completion event */
  guint64 pos;           /* its position in the location's events */
  Tick    post_enter;    /* E(recv request): enter of MPI_Recv or of the MPI_Irecv that posted it */
  guint32 call;          /* the call that completed the message */
  gint32  peer;          /* world rank of the sender */
  guint32 comm;
  guint32 tag;
} RecvRec;

typedef struct
{
  guint32 call;
  guint32 comm;          /* comm index */
  guint32 root;          /* comm-local rank, NO_INDEX if none */
  guint32 op;            /* OTF2_CollectiveOp */
  guint64 sent;
  guint64 received;
  Tick    end;           /* the MpiCollectiveEnd event */
  guint64 enter_pos;     /* positions of the call's Enter and of the MpiCollectiveEnd */
  guint64 end_pos;
} CollRec;

/* A non-blocking collective (OTF2 3.0 NonBlockingCollectiveRequest / Complete), in the order
 * this rank started them (MPI's matching order on a communicator). */
typedef struct
{
  guint32 call;          /* the call that completed it (MPI_Wait*, MPI_Test*) */
  guint32 comm;          /* comm index; NO_INDEX while open, and for one never completed */
  guint32 root;          /* comm-local rank, NO_INDEX if none */
  guint32 op;            /* OTF2_CollectiveOp */
  guint8  sent;          /* it sent / received bytes (the root-cause rules, as blocking ones) */
  guint8  received;
  guint8  binds;         /* its wait is the one that held the completing call (the largest of
                          * the call's, beyond its Late Sender): the others met it there */
  guint8  pad;
  guint16 metric;        /* its wait state's metric (MetricId), when wait > 0 */
  guint16 pad2;
  Tick    start;         /* enter of the MPI_I* call that started it */
  Tick    wait;          /* its own wait in the completing call, before the charge-once rule */
  Tick    charged;       /* what the report charged it (pattern-collective.c, nbc_charge), the
                          * root-cause passes' waiting time */
  Tick    end;           /* the NonBlockingCollectiveComplete event */
  guint64 enter_pos;     /* positions of the MPI_I* call's Enter and of the completion, for the
                          * clock repair */
  guint64 end_pos;
} NbcRec;

typedef struct
{
  guint32 parent;        /* NO_INDEX for a root */
  guint32 region;
} LocalCnode;

typedef struct
{
  gint64  value;         /* ticks */
  guint32 cnode;         /* local cnode on the rank that waits (global after merging) */
  gint32  rank;
  Tick    when;          /* enter of the waiting call */
} Instance;

#define TOP_N 10

/* replay-clock.h: a location's repaired time (the controlled logical clock) */
typedef struct _ClockMap ClockMap;

/* delay-private.h: the root-cause and critical-path passes' state of one rank */
typedef struct _Causes Causes;

typedef struct
{
  int          rank;
  TraceDefs   *defs;
  GArray      *cnodes;         /* LocalCnode */
  GHashTable  *cnode_index;    /* (parent, region) -> cnode + 1 */
  GArray      *first_child;    /* guint32 per cnode + 1 (index 0: the roots), NO_INDEX if none */
  GArray      *next_sibling;   /* guint32 per cnode */
  GArray      *sev;            /* gint64 rows of N_METRICS per cnode */
  GArray      *calls;          /* CallRec */
  GArray      *sends;          /* SendRec */
  GArray      *recvs;          /* RecvRec */
  GArray      *colls;          /* CollRec */
  GArray      *nbcs;           /* NbcRec: non-blocking collectives in start order */
  guint32      init_call;      /* NO_INDEX if absent */
  guint32      finalize_call;
  /* positions of MPI_Init's and MPI_Finalize's Enter and Leave (0 = not seen) */
  guint64      init_pos[2];
  guint64      finalize_pos[2];
  Tick         first_time;     /* the location's first event */
  /* set before trace_read_rank: every timestamp is read through it (replay-clock.h) */
  const ClockMap *clock_map;
  guint64      n_events;
  Instance     top[N_METRICS][TOP_N];
  guint        n_top[N_METRICS];
  /* diagnostics */
  guint64      unmatched_recvs;
  guint64      unmatched_sends;
  guint64      clock_violations;
  guint64      collective_mismatch;
  /* clock repair (replay-clock.c), this rank's share */
  gboolean     clock_repair_ran;
  guint64      clock_found_p2p;      /* receives stamped before their send, as read */
  guint64      clock_found_coll;     /* collective ends before an enter they depend on */
  guint64      clock_corrections;    /* events the forward amortization moved */
  Tick         clock_largest;        /* largest correction */
  guint32      clock_passes;         /* forward replay passes (the same on every rank) */
  gboolean     clock_converged;
  /* root causes and the critical path (delay-private.h): the METRIC_GROUP bits that run (set
   * before trace_read_rank, which then records the timeline they need), and their state */
  guint        want_causes;
  Causes      *causes;
  GArray      *recv_send;     /* guint32 per receive: the matched send's index on its sender
                               * (pattern_p2p_run fills it when the passes run), NO_INDEX if none */
  GHashTable  *ls_wait;       /* call index + 1 -> gint64* Late Sender charged to it, for the
                               * calls that may also complete a non-blocking collective (filled
                               * by pattern_p2p_run when the rank has any; NULL if none) */
} RankData;

RankData *rank_data_new (int rank, TraceDefs *defs);
void      rank_data_free (RankData *rd);
gint64   *rank_data_row (RankData *rd, guint32 cnode);
void      rank_data_add (RankData *rd, MetricId m, guint32 cnode, gint64 value);
/* Adds a wait-state instance: the severity and the top-N list. */
void      rank_data_wait (RankData *rd, MetricId m, const CallRec *call, gint64 value);

typedef void (*ProgressFunc) (double fraction, gpointer user_data);

/* The path of location @loc's event (@ext "evt") or local definition ("def") file. */
char     *trace_event_file_path (const char *anchor, guint64 loc, const char *ext);

/* Reads location @rank's local definitions and events (and no other location's). */
gboolean  trace_read_rank (const char   *anchor,
                           RankData     *rd,
                           ProgressFunc  progress,
                           gpointer      progress_data,
                           GError      **error);

/* ---- transport: the message layer the replay runs over (MPI or in-process) -------------- */

typedef struct _Transport Transport;
struct _Transport
{
  int   n_ranks;
  int   n_local;          /* ranks analysed in this process */
  int  *local_ranks;
  /* All-to-all personalised exchange: out[i][dst] are the bytes local rank i sends to dst
   * (the transport may release them and set them to NULL); in[i][src] receives what src sent
   * to local rank i (new references). */
  gboolean (*alltoallv) (Transport *t, GByteArray ***out, GByteArray ***in, GError **error);
  /* Elementwise max over the members of a communicator (world ranks, in comm order).
   * vals[i] is local rank i's array of @count values, NULL if it is not a member.
   * @key identifies the communicator; every process calls this for every key in the same order. */
  void (*allreduce_max) (Transport *t, guint key, const int *members, int n_members,
                         gint64 **vals, gsize count);
  /* Inclusive prefix max in comm-rank order, same conventions. */
  void (*scan_max) (Transport *t, guint key, const int *members, int n_members,
                    gint64 **vals, gsize count);
  /* Gathers one byte array per rank at rank 0: root_in gets n_ranks arrays (only on the
   * process that holds rank 0; NULL elsewhere). */
  void (*gather) (Transport *t, GByteArray **out, GPtrArray **root_in);
  /* Point-to-point messages of the message-driven replay (replay-msg.c) to ranks in other
   * processes; NULL in a transport that holds every rank. msg_begin and msg_end are collective;
   * msg_send is asynchronous (takes @msg); msg_recv returns the next message that arrived, NULL
   * if none; msg_wave adds @mine (3 values; NULL: the wave already started) over every process
   * into @all without blocking: 1 when done, 0 while some process has not joined yet. */
  void    (*msg_begin) (Transport *t);
  void    (*msg_send) (Transport *t, int dst, GBytes *msg);
  GBytes *(*msg_recv) (Transport *t, int *src, int *dst, gboolean wait);
  int     (*msg_wave) (Transport *t, const gint64 *mine, gint64 *all);
  void    (*msg_end) (Transport *t);
  gboolean msg_spin;      /* set by msg_begin: every process has a core of its own, so a process
                           * waiting for a message may poll without pause */
  void (*free) (Transport *t);
  gpointer priv;
  /* threads for the per-rank work of a phase (replay-threads.c); 1: the calling thread only */
  int          n_threads;
  GThreadPool *pool;
  int         *rank_order;  /* local indices, most work first (NULL: in order) */
};

Transport *transport_local_new (int n_ranks);
/* One process of an MPI job holds a block of consecutive ranks: [@n_ranks·p/P, @n_ranks·(p+1)/P)
 * for process p of P (P ≤ @n_ranks). */
Transport *transport_mpi_new (int n_ranks);
/* The MPI process that holds @rank in a job of @n_procs processes. */
int        transport_mpi_owner (int n_ranks, int n_procs, int rank);
/* MPI_COMM_WORLD's barrier, waited for by testing and sleeping: a process that waits while
 * another works leaves it the CPU. */
void       transport_mpi_lazy_barrier (void);
gboolean   transport_is_root (Transport *t);

/* ---- for each local rank, in parallel (replay-threads.c) ------------------------------- */

typedef void (*ReplayRankFunc) (int i, gpointer data);

/* Calls @fn for every local index 0..n_local-1 on the transport's threads (the calling thread
 * takes part) and returns when all are done. @fn may change only local rank @i's state. */
void replay_for_each_local (Transport *t, ReplayRankFunc fn, gpointer data);
/* Sets the number of threads (1: none besides the caller). */
void replay_threads_set (Transport *t, int n_threads);
/* Hands out the ranks by decreasing @work (one value per local rank; NULL: in order). */
void replay_threads_order (Transport *t, const guint64 *work);
void replay_threads_stop (GThreadPool *pool);
/* For the transports' free(). */
void replay_threads_free (Transport *t);

/* ---- patterns --------------------------------------------------------------------------- */

typedef struct
{
  guint64 unmatched_recvs;
  guint64 unmatched_sends;
  guint64 clock_violations;
} P2PDiag;

gboolean pattern_p2p_run (Transport *t, RankData **rds, GError **error);
/* The leaf metric that holds the time of a call of region @r (analysis-report.c). */
int      analyze_category_metric (const TraceRegion *r);
void     pattern_collective_run (Transport *t, RankData **rds);
/* Wavefront classification (pattern-wavefront.c). NULL when the trace has no 2-D Cartesian
 * topology over MPI ranks or @rank has no coordinate there. */
typedef struct _Wavefront Wavefront;
Wavefront *wavefront_new (const TraceDefs *defs, int rank);
void       wavefront_free (Wavefront *wf);
/* For a rank's receives in order (sender world rank and burst number — a burst is a run of
 * receives with no send in between), sets metric[i] to the M_LS_WF_* metric of receive i when
 * its burst brings messages from other directions than the previous burst, else -1. */
void       wavefront_classify (Wavefront     *wf,
                               guint          n,
                               const gint32  *src,
                               const guint32 *burst,
                               int           *metric);

/* ---- results ---------------------------------------------------------------------------- */

GByteArray *analysis_serialize (RankData *rd);

/* Rank 0: merges every rank's results and writes the report and the statistics file. */
gboolean    analysis_write_report (TraceDefs   *defs,
                                   GPtrArray   *blobs,
                                   const char  *cube_path,
                                   const char  *stats_path,
                                   GString     *summary,
                                   GError     **error);

/* ---- the analyzer as a library call (analyze-run.c) ---------------------------------------- */

typedef struct
{
  const char *prog;        /* "kubus-analyze" / "kubus-sim": the progress line prefix */
  gboolean    root;
  gboolean    quiet;
  double      lo, hi;      /* this run's share of the whole progress */
  int         last_pct;
  guint       skip_groups; /* METRIC_GROUP bits not to compute (kubus-analyze --no-root-cause,
                            * --no-critical-path); 0: everything */
} AnalyzeProgress;

/* The root-cause and critical-path passes, after the wait-state replays (delay-run.c); every
 * process calls it. FALSE when an exchange failed. */
gboolean causes_run (Transport *t, gboolean mpi, RankData **rds, AnalyzeProgress *prog, GError **error);
/* Which METRIC_GROUP bits a run computes. */
guint    analyze_groups (const AnalyzeProgress *prog);
void     analyze_progress_line (AnalyzeProgress *p, double fraction, const char *what);
/* A new phase: always gets its line (and its elapsed time with KUBUS_ANALYZE_TIMING=1). */
void     analyze_progress_step (AnalyzeProgress *p, double at, const char *what);
/* Reads (repairing the clock condition first unless @clock_repair is FALSE, as kubus-analyze
 * does), replays and writes @cube_path (+ @stats_path) from @anchor on every process of @t;
 * returns the same result everywhere. A process whose own part went well but another's failed
 * gets G_IO_ERROR_FAILED_HANDLED: the failing process holds (and reports) the real message. */
gboolean analyze_run (Transport       *t,
                      gboolean         mpi,
                      TraceDefs       *defs,
                      gboolean         clock_repair,
                      const char      *anchor,
                      const char      *cube_path,
                      const char      *stats_path,
                      AnalyzeProgress *prog,
                      GString         *summary,
                      GError         **error);
/* Reads every local rank's events into rds[i] (made with rank_data_new) on the transport's
 * threads, the progress between @lo and @hi of @prog's share. With @map, only the ranks that
 * have a map read again, into fresh records that replace rds[i]. FALSE with the first failing
 * rank's error (in rank order); this process only. */
gboolean analyze_read_ranks (Transport        *t,
                             const char       *anchor,
                             RankData        **rds,
                             const ClockMap *(*map) (gpointer map_data, int i),
                             gpointer          map_data,
                             AnalyzeProgress  *prog,
                             double            lo,
                             double            hi,
                             const char       *what,
                             GError          **error);
/* TRUE on every process when @ok is TRUE on every process. */
gboolean analyze_all_ok (Transport *t, gboolean mpi, gboolean ok);
