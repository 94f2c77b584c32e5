/* sim-private.h — types shared by the simulator's files (kubus-sim): one rank's complete event
 * list, hypotheses, the per-call replay plan, the offline model and the driver options.
 * docs/decisions/2026-11-25-sim-design.md explains the design. */
#pragma once

#include "analyze-private.h"

/* ---- one rank's events (trace-events.c) ---------------------------------------------------- */

typedef enum
{
  EV_PROGRAM_BEGIN,
  EV_PROGRAM_END,
  EV_ENTER,
  EV_LEAVE,
  EV_SEND,              /* comm, peer, tag, len */
  EV_ISEND,             /* comm, peer, tag, len, req */
  EV_ISEND_COMPLETE,    /* req */
  EV_IRECV_REQUEST,     /* req */
  EV_RECV,              /* comm, peer, tag, len */
  EV_IRECV,             /* comm, peer, tag, len, req */
  EV_REQUEST_TEST,      /* req */
  EV_REQUEST_CANCELLED, /* req */
  EV_COLL_BEGIN,
  EV_COLL_END,          /* comm, peer = root, tag = op, len = sent, req = received */
  EV_NBC_REQUEST,       /* a non-blocking collective started: req; link = its EV_NBC_COMPLETE */
  EV_NBC_COMPLETE,      /* ... completed: as EV_COLL_END; link = its EV_NBC_REQUEST (whose req
                         * is the request id) */
  EV_N_TYPES
} SimEvType;

enum
{
  EVF_REMOVED = 1 << 0,   /* dropped by a hypothesis */
  EVF_CPU     = 1 << 1,   /* spare holds the CPU and sleep shares of the interval before it (sim-cpu.c) */
  EVF_UNRECEIVED = 1 << 2, /* with EVF_REMOVED: a send nobody received (sim-match.c); its call stays */
  EVF_SENT_EAGER = 1 << 3, /* a send that was done before its receiver was ready, in the original */
  EVF_SENT_RDV   = 1 << 4, /* ... that was done only just after: it waited for it (sim-model.c) */
};

/* 48 bytes. Times are nanoseconds from the trace's global offset. */
typedef struct
{
  Tick    time;
  guint8  type;       /* SimEvType */
  guint8  flags;
  guint16 spare;      /* EVF_CPU: low byte the CPU share, high byte the sleep share of the
                       * interval that ends here, in 255ths (sim-cpu.c) */
  guint32 region;     /* enter/leave: region id; messages and collectives: OTF2 comm id */
  guint32 peer;       /* comm-local rank as recorded; collectives: root (OTF2_UNDEFINED_UINT32) */
  guint32 tag;        /* collectives: OTF2_CollectiveOp */
  guint64 len;        /* bytes; collectives: bytes sent; program end: exit status */
  guint64 req;        /* request id; collectives: bytes received */
  guint32 link;       /* sends/receives: the matching event's index on the peer rank (sim-match.c);
                       * irecv request <-> irecv completion; NO_INDEX if none */
  gint32  peer_world; /* sends/receives: world rank of the peer, -1 if unknown */
} SimEvent;

/* One of the collector's CPU samples (collect-cputime.c): taken at event @ev (the MPI Enter or
 * Leave that ended a long interval), cumulative since the thread started, ns. */
typedef struct
{
  guint32 ev;
  Tick    cpu;     /* CPU time */
  Tick    wait;    /* time waiting, runnable, for a CPU; -1 unknown */
  gint32  where;   /* the CPU it ran on when sampled; -1 unknown */
  gboolean bound;  /* ... and it could run on that CPU only (KUBUS_CPU_ID_BOUND) */
} SimCpuSample;

typedef struct
{
  int         rank;
  TraceDefs  *defs;
  GArray     *ev;              /* SimEvent, in trace order */
  GArray     *cpu;             /* SimCpuSample, in trace order; NULL without samples */
  /* ProgramBegin's arguments (at most one per location) */
  guint32     prog_name;
  guint32     n_args;
  guint32    *args;
  /* events the simulator drops (measurement-only: metrics, parameters, buffer flushes, ...) and
   * events it cannot re-enact (threads, RMA, I/O, ...): kind name -> count */
  GHashTable *dropped;
  GHashTable *refused;
  /* MPI_Init / MPI_Finalize: how long the call lasted after the last rank entered it, in the
   * original trace (sim-plan.c); -1 when the call is absent */
  Tick        init_tail;
  Tick        fin_tail;
  /* results: the simulated time of every event (same indices as ev) */
  Tick       *new_time;
  /* blocking sends and receives of large messages (SIM_LARGE_MSG and more), event index + 1 ->
   * Tick: how long the call lasted in the original after its peer was ready (the receive
   * posted, the send started): its own cost, the copy (sim-match.c, used by sim-replay.c);
   * blocking collectives (their COLL_END): how long the call lasted after the last member
   * entered it (sim_plan_coll_costs) */
  GHashTable *copy_cost;
  /* blocking collectives (their COLL_END, event index + 1) whose members all entered within
   * SIM_COLL_SHORT_NS of each other in the original: the same set on every member
   * (sim_plan_coll_costs), so that the real-time re-enactment may run them in their blocking
   * form on every member alike */
  GHashTable *coll_short;
  /* set before trace_events_read: every timestamp is read through it (replay-clock.h) */
  const ClockMap *clock_map;
} SimRank;

SimRank    *sim_rank_new (int rank, TraceDefs *defs);
void        sim_rank_free (SimRank *sr);
/* Reads location @sr->rank's local definitions and all its events (times in ns, through
 * sr->clock_map when set: the repaired times, sim-run.c). */
gboolean    trace_events_read (const char   *anchor,
                               SimRank      *sr,
                               ProgressFunc  progress,
                               gpointer      progress_data,
                               GError      **error);
const char *sim_event_type_name (SimEvType type);
/* TRUE when @region is an MPI function (not user code). */
gboolean    sim_region_is_mpi (const TraceDefs *defs, guint32 region);
/* TRUE when @region is a polling call (MPI_Test*, MPI_Iprobe, MPI_Improbe,
 * MPI_Request_get_status): one that never waits; without events inside it found nothing. */
gboolean    sim_is_poll_region (const TraceDefs *defs, guint32 region);

/* ---- CPU shares where ranks outnumbered cores (sim-cpu.c) -------------------------------- */

typedef struct
{
  guint  samples;
  double gap_wall, gap_cpu, gap_wait, gap_sleep;   /* long computation intervals, ns */
  double call_wall, call_cpu, call_wait;           /* long MPI calls, ns */
  /* sim_cores_shortfall, −1 unknown (kubus-sim knows it where it has every rank: offline) */
  double shortfall;
  /* the ranks' time in polls that found nothing, and from their first to their last event, ns
   * (sim_poll_time); the share, on an oversubscribed run (−1: not known or not oversubscribed) */
  double poll_wall, rank_wall;
  double poll_share;
  /* the ranks' MPI calls (outermost, MPI_Init's and MPI_Finalize's left out) and the time from
   * MPI_Init's Leave to their last Enter, ns (sim_call_rate) */
  double n_calls, call_span;
} SimCpuStats;

typedef struct
{
  guint    n_hosts;
  guint    max_ranks_per_host;
  guint    min_cpus;        /* 0 unknown */
  gboolean cpus_known;      /* every host's KUBUS::CPUS is in the definitions */
  gboolean oversubscribed;  /* some host ran more ranks than it had CPUs */
  gboolean has_samples;     /* the trace defines the collector's CPU samples */
  /* the most other programs can have delayed the ranks, as a share of the ranks' time: the
   * largest over hosts of KUBUS::OTHER_CPU_NS / (the host's ranks x KUBUS::OTHER_WALL_NS);
   * known only when every host has them */
  gboolean other_known;
  double   other_bound;
  /* the share of the CPU time the ranks could have had that other programs took, largest over
   * hosts: (OTHER_CPU_NS / OTHER_WALL_NS less the CPUs the ranks left idle) / the CPUs the ranks
   * could use (min of ranks and CPUs); known with other_known, samples or not (sim_load_advice),
   * and with the ranks and CPUs of that host */
  double   other_share;
  guint    other_share_ranks, other_share_cpus;
} SimHosts;

/* The share of their sampled computation time, or of their sampled MPI calls' time, the ranks
 * waited, runnable, for a CPU above which the real-time re-enactment brings the contention back
 * (sim-run.c) */
#define SIM_CONTENTION_SHARE 0.05
/* the offline model shares a host's CPUs per CPU only where its ranks' computation waited less
 * than this share of its time for a CPU (sim-model.c fit_per_cpu) */
#define SIM_PER_CPU_WAIT 0.15

/* Marks every event of a sampled long interval with its CPU and sleep shares (EVF_CPU). With
 * @conserve (the real-time re-enactment, which computes for that much CPU time), also the short
 * intervals of a window where they were longer than the CPU time the window got: they share it
 * (the offline model's fit takes them as they were). */
SimCpuStats sim_cpu_shares (SimRank *sr, gboolean conserve);
/* The CPU (or sleep) share of the interval ending at @e: 1 (0) where it was not sampled. */
double      sim_cpu_share (const SimEvent *e, gboolean sleep);
void        sim_cpu_hosts (const TraceDefs *defs, SimHosts *h);
/* KUBUS::CPUS of the host @rank ran on, 0 when unknown */
guint32     sim_cpu_host_cpus (const TraceDefs *defs, int rank);

/* Processor sharing on a host whose ranks outnumbered its CPUs (the offline model's cores): from
 * time t on, each rank that wants a CPU gets @rate of one. */
typedef struct
{
  Tick   t;
  double rate;
} SimRateStep;

/* The rate steps of a host's ranks (@ranks, @n_ranks of them) over their events' times (@times,
 * per world rank; without removed events where @skip_removed): computing ranks want a CPU
 * (less their sampled sleep), ranks in MPI calls do not; @cpus CPUs shared evenly. With
 * @plans (per world rank), the polls inside a computation interval want one too (the interval's
 * CPU time holds theirs), and the polling loops that end a call do not (SimCall.tail). */
struct SimPlan;
GArray     *sim_cores_profile (SimRank **srs, const int *ranks, int n_ranks, const Tick *const *times,
                               gboolean skip_removed, double cpus, struct SimPlan *const *plans);
/* The CPUs (at most @cpus) with which processor sharing gives the sampled computation intervals
 * of the host's ranks, on their recorded times, the CPU time they got: fewer where other
 * programs took some of them. @n_intervals: how many were sampled. */
double      sim_cores_fit_cpus (SimRank **srs, const int *ranks, int n_ranks, const Tick *const *times,
                                guint32 cpus, guint *n_intervals);
/* ... of the intervals ending at an event @cls marks @cls_want (per world rank, per event) */
double      sim_cores_fit_cpus_of (SimRank **srs, const int *ranks, int n_ranks, const Tick *const *times,
                                   guint32 cpus, const guint8 *const *cls, guint8 cls_want, guint *n_intervals);
/* The share of the CPU time that sharing its CPUs among its ranks (sim_cores_profile on the
 * recorded times) would have given the sampled computation intervals which they did not get, on
 * the host of an oversubscribed run where it is largest: other programs took it (0 where nothing
 * was sampled; every rank's events needed) */
double      sim_cores_shortfall (SimRank **srs, int n_ranks);
/* Adds to @polls the time rank @sr spent in polls that found nothing (MPI_Test*, MPI_Iprobe, ...
 * without an event inside) and to @span its time from first to last event. */
void        sim_poll_time (SimRank *sr, double *polls, double *span);
/* Adds to @calls rank @sr's outermost MPI calls after MPI_Init (MPI_Finalize left out) and to
 * @span the time from MPI_Init's Leave (its first event without one) to the last of them's Enter. */
void        sim_call_rate (SimRank *sr, double *calls, double *span);
/* The time slice Linux's scheduler gives a task on a host of @cpus CPUs before it lets another
 * runnable one have the CPU: 0.75 ms times 1 + log2(min(@cpus, 8)) (the default logarithmic
 * scaling of CFS's minimum granularity and of EEVDF's base slice; 1.5 ms on 2 CPUs). */
gint64      sim_sched_slice_ns (guint cpus);
/* above this poll share the offline model does not share the cores (sim-run.c): the ranks
 * mostly polled, and a polling rank yields its CPU to its mates in slices the sharing does not
 * describe (HPCC at 4 ranks on 2 cores: 75-79 %, shared +20 .. +26 %, not shared -0.1 %; LAMMPS
 * and the computing programs: 0) */
#define SIM_POLL_SHARE 0.5
/* MPI calls per scheduler time slice (sim_call_rate, sim_sched_slice_ns) beyond which the
 * contention re-enactment is said to miss (sim_fine_grain_advice): a rank that enters MPI more
 * often than the scheduler would switch by itself hands its CPU over at its calls */
#define SIM_CALLS_PER_SLICE 1.0
/* ... where the sampled computation waited this share of its time for a CPU or more: ranks
 * computing at the same time on a CPU, whose order the hand-overs at the calls decide (ranks
 * whose computation hardly waited had the CPU to themselves while the others sat in MPI) */
#define SIM_FINE_WAIT_SHARE 0.10
/* above this shortfall other programs took the CPUs (quiet traces, 2026-11-29: at most 0.30,
 * 6 ranks on 2 cores; 4 ranks at most 0.15) */
#define SIM_SHORTFALL 0.35
/* a blocking collective whose members entered within this of each other (sim_plan_coll_costs) */
#define SIM_COLL_SHORT_NS 1000000
/* CPU time a rank that wants a CPU gets from @a to @b */
double      sim_cores_work (const GArray *steps, Tick a, Tick b);
/* how long from @a a rank that wants a CPU takes to get @work ns of CPU time */
double      sim_cores_span (const GArray *steps, Tick a, double work);
/* per event (@len) the median of its times in @n passes of the offline cores' iteration (the
 * mean of the two middle ones where @n is even): an order that holds in every pass holds for
 * the median (docs/decisions/2026-12-02-cores-median-of-passes.md) */
void        sim_cores_median (Tick *out, const Tick *const *passes, int n, guint len);
/* Where the samples say which CPU each rank ran on (KUBUS_CPU_ID): per event of @sr its CPU (the
 * first sample's at or after it, the last sample's after the last); NULL without. */
gint16     *sim_cpu_where (const SimRank *sr);
/* Walks a rank's events in order and says of each stretch (from the event before to the one
 * passed) whether its rank wanted a CPU then: outside MPI, or in a poll that found nothing
 * (not a planned call), unless, with @tails, it is in a polling loop that ends a call
 * (SimPlan.in_tail); in any other MPI call, one without communication too, it did not. Zeroed
 * at the rank's first event or at the Leave of an outermost call. */
typedef struct
{
  int      depth;
  gboolean polls;   /* the outermost call is a poll that found nothing */
} SimWantWalk;
gboolean    sim_want_step (SimWantWalk *w, const SimRank *sr, const struct SimPlan *plan, guint k,
                           gboolean tails);
/* per CPU id below @n_ids of a host, the steps of the number of its ranks computing there
 * (SimRateStep.rate: the number, weighted by 1 - the interval's sleep share) */
GArray    **sim_cores_cpu_counts (SimRank **srs, const int *ranks, int n_ranks, const Tick *const *times,
                                  gboolean skip_removed, gint16 *const *where, int n_ids,
                                  struct SimPlan *const *plans);
/* the rates those counts give a rank computing there (1 / max (1, n)) or, @call, in MPI there
 * (1 / (1 + n)) */
GArray     *sim_cores_cpu_rates (const GArray *counts, gboolean call);
/* per CPU id of a host, arrays from the function above (NULL: none) */
void        sim_cores_cpu_free (GArray **a, int n_ids);

/* ---- hypotheses (sim-hypothesis.c) ------------------------------------------------------- */

typedef enum
{
  RULE_SCALE,
  RULE_BALANCE,
  RULE_BALANCE_GLOBAL,
  RULE_REMOVE_SIZE,
  RULE_REMOVE_TAG,
  RULE_REMOVE_REGION,
} RuleKind;

typedef enum
{
  OP_LT,
  OP_LE,
  OP_EQ,
  OP_GE,
  OP_GT,
} RuleOp;

typedef struct
{
  RuleKind kind;
  guint    line;
  guint    name_col;       /* column of the region name */
  char    *region_name;    /* scale, balance, remove in region */
  guint32 *regions;        /* every region id with that name (resolved by sim_hypothesis_resolve) */
  guint    n_regions;
  double   factor;         /* scale */
  RuleOp   op;             /* remove with size|tag */
  guint64  value;
  char    *text;           /* the rule as written */
} Rule;

typedef struct
{
  char      *path;
  GPtrArray *rules;        /* of Rule* */
  GPtrArray *broken;       /* of Rule*: lines with an error, as far as they were read (their
                              region names are still checked, so that every error is found) */
} Hypothesis;

/* NULL and @error when the text has an error; the message lists every error, one a line
 * ("PATH:LINE:COL: …"). */
Hypothesis *sim_hypothesis_parse (const char *path, const char *text, gsize len, GError **error);
/* Every error of @text appended to @errors (char*, "PATH:LINE:COL: …", in line order); the rules
 * that parsed. NULL only for a file that is not text (a NUL byte, invalid UTF-8). */
Hypothesis *sim_hypothesis_parse_all (const char *path, const char *text, gsize len, GPtrArray *errors);
/* The region names of every rule of @h (also of broken lines) checked against @names (@n of
 * them, a report's or a trace's regions; @is_mpi says which are MPI functions, may be NULL):
 * unknown names with the closest known ones, and MPI functions that cannot be scaled or
 * balanced, appended to @errors. Used by the browser's Simulate dialog as the user types. */
void        sim_hypothesis_check_names (const Hypothesis *h, const char *const *names, guint n,
                                        const gboolean *is_mpi, GPtrArray *errors);
Hypothesis *sim_hypothesis_load (const char *path, GError **error);
/* Looks every region name up in the trace's definitions; an unknown name is refused with the
 * closest names that are there (every such error, one a line). */
gboolean    sim_hypothesis_resolve (Hypothesis *h, const TraceDefs *defs, GError **error);
/* sim_hypothesis_load and sim_hypothesis_resolve at once: the syntax errors and the unknown
 * regions (also those on lines with a syntax error) in one message, in line order. */
Hypothesis *sim_hypothesis_load_resolved (const char *path, const TraceDefs *defs, GError **error);
void        sim_hypothesis_free (Hypothesis *h);
gboolean    sim_rule_op_holds (RuleOp op, guint64 a, guint64 b);
/* Levenshtein distance (bytes), for "did you mean". */
guint       sim_edit_distance (const char *a, const char *b);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Hypothesis, sim_hypothesis_free)

/* ---- message matching and the transformation (sim-match.c, sim-transform.c) --------------- */

typedef struct
{
  guint64 messages;
  guint64 removed_messages;
  guint64 removed_calls;
  guint64 changed_visits;
  Tick    removed_time;     /* summed duration of removed calls, ns */
  Tick    added_time;       /* computation time added (negative: removed) by scale/balance */
  guint64 unreceived;       /* sends no receive took (left in flight at the end): not re-enacted */
} SimTransformStats;

/* Pairs every send with its receive (MPI's non-overtaking order per communicator, source and
 * tag) over the transport, sets the link fields, and marks messages for removal: @remove_send
 * and @remove_recv say per event whether a rule wants the message gone (may be NULL). A send no
 * receive took (a program may leave a message in flight at MPI_Finalize) is marked
 * EVF_REMOVED | EVF_UNRECEIVED: not re-enacted, its call keeping its time. Fails naming the
 * first receive without a send. */
gboolean sim_match_messages (Transport     *t,
                             SimRank      **srs,
                             guint8       **remove_send,
                             guint8       **remove_recv,
                             SimTransformStats *stats,
                             GError       **error);
gboolean sim_transform (Transport         *t,
                        SimRank          **srs,
                        const Hypothesis  *h,
                        SimTransformStats *stats,
                        GError           **error);

/* ---- the replay plan (sim-plan.c) -------------------------------------------------------- */

typedef enum
{
  ACT_ELAPSE,        /* no communication to re-enact: the recorded duration */
  ACT_SEND,          /* blocking send */
  ACT_RECV,          /* blocking receive */
  ACT_SENDRECV,      /* a send (this action) and a receive (the next action) together */
  ACT_ISEND,
  ACT_IRECV,
  ACT_WAIT,          /* completes the requests slots[first .. first + n) */
  ACT_COLL,
  ACT_PROBE,         /* a blocking probe for the message of receive event `ev` */
  ACT_SYNC,          /* MPI_Init / MPI_Finalize: all ranks meet, then the recorded tail */
  ACT_FREE,          /* MPI_Request_free of an active request: slot */
  ACT_ICOLL,         /* starts a non-blocking collective (as ACT_COLL) into request slot `slot`;
                      * an ACT_WAIT completes it */
} SimActKind;

enum
{
  SEND_STANDARD,
  SEND_SYNC,         /* MPI_Ssend, MPI_Issend */
  SEND_BUFFERED,     /* MPI_Bsend: re-enacted as MPI_Isend + MPI_Request_free (returns at once) */
  SEND_MODE_MASK = 0x0f,
  REQ_PERSISTENT = 0x10,  /* ACT_ISEND / ACT_IRECV started by MPI_Start*: a persistent request */
};

#define SIM_LARGE_MSG 65536   /* bytes: a message whose copy costs more than the call around it */
#define SIM_WORLD_KEY (G_MAXUINT - 7)   /* transport key of MPI_COMM_WORLD for the simulator */

typedef struct
{
  guint8  kind;      /* SimActKind */
  guint8  mode;      /* SEND_* */
  guint16 op;        /* ACT_COLL, ACT_ICOLL: OTF2_CollectiveOp */
  guint32 ev;        /* the event it re-enacts (send / recv / coll end / irecv completion;
                      * ACT_ICOLL: the EV_NBC_COMPLETE) */
  guint32 comm;      /* dense comm index (TraceComm.index) */
  gint32  peer;      /* comm-local rank; ACT_COLL, ACT_ICOLL: root, -1 if none */
  gint32  tag;
  guint32 slot;      /* request slot (ACT_ISEND, ACT_IRECV); ACT_WAIT: first slot index */
  guint32 n;         /* ACT_WAIT: number of slots */
  guint64 bytes;     /* ACT_COLL, ACT_ICOLL: bytes sent */
  guint64 bytes2;    /* ACT_COLL, ACT_ICOLL: bytes received */
} SimAction;

typedef struct
{
  guint32 enter;     /* event index of the Enter */
  guint32 leave;     /* event index of the Leave */
  guint32 first;     /* actions[first .. first + n) */
  guint32 n;
  guint32 region;
  guint32 tail;      /* the Enter of the polling loop the call ends (sim-plan.c, poll_tails), or
                      * NO_INDEX */
} SimCall;

typedef struct SimPlan
{
  GArray   *calls;       /* SimCall: every MPI call with something to re-enact, in order */
  GArray   *actions;     /* SimAction */
  GArray   *wait_slots;  /* guint32 request slots of ACT_WAIT actions */
  guint32   n_slots;     /* request slots needed at once */
  guint64   max_send;    /* largest buffer needs, bytes */
  guint64   max_recv;
  guint32  *call_at;     /* per event: index into calls when it is a planned call's Enter, else NO_INDEX */
  guint8   *in_tail;     /* per event: the stretch that ends there is in a polling loop a call
                          * ends (after SimCall.tail, up to the call's Enter) */
  guint64   n_events;
} SimPlan;

typedef struct
{
  GHashTable *approximated;   /* "MPI_Ibarrier" -> count: re-enacted by recorded duration */
  GHashTable *notes;          /* other substitutions: "MPI_Rsend re-enacted as MPI_Send" -> count */
} SimPlanNotes;

/* Measures, before any transformation, how long MPI_Init and MPI_Finalize lasted after the last
 * rank entered them (every rank's init_tail / fin_tail). */
void      sim_plan_sync_tails (Transport *t, SimRank **srs);
/* Measures, before any transformation, how long every blocking collective lasted after the last
 * member of its communicator entered it, and records it in SimRank.copy_cost (the COLL_END's
 * index + 1): what the operation itself cost once nobody was late. */
void      sim_plan_coll_costs (Transport *t, SimRank **srs);
/* Every member of each communicator completed the same number of collective operations (a
 * rank cut short by an abort has fewer, and a re-enactment would wait for it forever): FALSE
 * with @error naming @anchor otherwise.  Collective over the transport. */
gboolean  sim_plan_check_colls (Transport *t, SimRank **srs, const char *anchor, GError **error);
/* The MPI calls of other threads than MPI_Init's that the trace leaves out (KUBUS::UNTRACED_THREAD_CALLS,
 * MPI_THREAD_MULTIPLE) as "rank 0: 1282, rank 2: 5", or NULL when it leaves out none: the reason
 * why messages and collectives do not match in a run that was not aborted. */
char     *sim_untraced_threads_text (const TraceDefs *defs);
SimPlan  *sim_plan_build (SimRank *sr, SimPlanNotes *notes, GError **error);
void      sim_plan_free (SimPlan *p);
void      sim_plan_notes_init (SimPlanNotes *n);
void      sim_plan_notes_clear (SimPlanNotes *n);

/* ---- precise waiting (sim-wait.c) ---------------------------------------------------------- */

typedef struct
{
  gint64 sleep_margin;   /* ns before a deadline at which sleeping stops and spinning starts */
  gint64 min_wait;       /* shorter remaining intervals are not waited for (grouped with the next) */
  gint64 clock_cost;     /* ns per clock read */
  gint64 sleep_overshoot;/* measured 90th percentile of nanosleep's lateness */
  gint64 yield_cost;     /* ns per sched_yield (median): a spin closer to its deadline stops yielding */
  gboolean realtime;     /* the replay runs under SCHED_RR (permitted, not disabled by KUBUS_SIM_NO_RT) */
} SimWaitCal;

gint64 sim_now (void);                  /* CLOCK_MONOTONIC, ns (sim-clock.c) */
/* Collective: what to add to this process's sim_now() for rank 0's clock (host leaders measure
 * it by ping-pong, their hosts share it); @n_hosts: how many hosts the ranks run on. */
gint64 sim_clock_offset (guint *n_hosts);
gint64 sim_thread_cpu (void);           /* CLOCK_THREAD_CPUTIME_ID, ns */
int    sim_cmp_i64 (gconstpointer a, gconstpointer b);   /* ascending gint64 (sim-wait.c) */
/* Also switches this process to SCHED_RR where permitted and @allow_rt (cal->realtime);
 * sim_wait_release switches back. */
void   sim_wait_calibrate (SimWaitCal *cal, gboolean allow_rt);
/* Computes (spins) until this thread has used @cpu_goal ns of CPU time (sim_thread_cpu). */
void   sim_burn_until (gint64 cpu_goal);
void   sim_wait_release (SimWaitCal *cal);
/* Under SCHED_RR: keeps this thread under the kernel's real-time throttling (SCHED_OTHER for the
 * rest of a window once it used its share; SCHED_RR again in the next). Call it often while
 * running (@now: sim_now()); it reads the CPU clock at most once per millisecond. */
void   sim_rt_budget (gint64 now);
guint  sim_rt_demotions (void);         /* how many windows ended under SCHED_OTHER */
/* Waits until @deadline (CLOCK_MONOTONIC ns): sleeps most of it, spins (yielding) the rest.
 * Returns how late it woke up (0 when there was nothing to wait for). */
gint64 sim_wait_until (const SimWaitCal *cal, gint64 deadline);

/* ---- real-time re-enactment (sim-replay.c, MPI) and offline engine (sim-offline.c) ------- */

/* How the real-time re-enactment runs (sim-replay.c). */
typedef struct
{
  /* The original shared cores (more ranks than CPUs on a host, and the trace has the
   * collector's CPU samples): computation is re-enacted by computing for the CPU time the rank
   * got and sleeping for the time it slept, MPI waits spin (yielding) as MPI's own do, under the
   * normal scheduler, on as many CPUs as the original host had: the contention comes back. */
  gboolean contention;
  guint32  cpus;              /* CPUs of the original host of this rank (contention), 0 unknown */
} SimReplayMode;

typedef struct
{
  guint64 events;
  guint64 calls;
  gint64  wall_ns;            /* replay wall time */
  gint64  late_ns;            /* summed lateness of the waits that missed their deadline */
  guint64 late_events;        /* waits that woke up later than the calibrated margin */
  gint64  caught_up_ns;       /* the replay's own lateness taken back from later computation
                                 (SIM_CATCH_UP; summed over the ranks after the run) */
  guint64 polls;              /* polling calls that found nothing, re-enacted as a progress call */
  guint64 rt_demotions;       /* windows a rank ended under SCHED_OTHER, its real-time budget used
                                 (sim_rt_budget; summed over the ranks after the run) */
  gboolean contention;        /* re-enacted with the original's CPU contention (SimReplayMode) */
  guint32  cpus_used;         /* CPUs the re-enactment's ranks of this host ran on (contention) */
  gboolean pinned;            /* each rank ran on the CPU the original's samples place it on */
  guint    hosts;             /* hosts the re-enactment ran on */
  /* blocking calls that moved SIM_LARGE_BYTES or more (summed over the ranks after the run):
   * how long they took in the re-enactment, before any floor, and in the original */
  guint64  large_calls;
  gint64   large_replay_ns;
  gint64   large_orig_ns;
  SimWaitCal cal;
} SimReplayStats;

#define SIM_LARGE_BYTES (1u << 20)
/* The share of each stretch of computation a rank that fell behind its schedule (a late
 * wake-up of the replay's, not of the original's) may skip to catch up (sim-replay.c): half
 * keeps every stretch's order and most of its length (real time at 2 ranks, the best of three
 * per trace: LAMMPS +0.5 .. +2.5 % -> -0.1 .. +1.4 %, pw.x +1.7 .. +3.6 % -> +0.7 .. +2.2 %;
 * docs/decisions/2026-12-02-replay-catch-up.md) */
#define SIM_CATCH_UP 0.5

/* Where a rank was in MPI (the offline model's progress, sim-offline.c, sim-model.c): spans
 * closer than this are one (a polling loop is in MPI throughout, and costs one span, not two
 * points per poll). */
#define SIM_PRESENCE_GAP_NS 2000

/* A sentence on the re-enactment's large messages where they took @ratio times as long as in the
 * original (@calls calls), 1.5 or more; NULL otherwise (sim-identity.c). */
char *sim_large_messages_note (guint64 calls, double ratio);

gboolean sim_replay_run (SimRank             *sr,
                         SimPlan             *plan,
                         const SimReplayMode *mode,
                         SimReplayStats      *stats,
                         GError             **error);

/* The offline model (sim-model.c), fitted from the original trace, all times in ns.
 *
 * Messages: per transport (between ranks of one host, between hosts), a message of s bytes
 * arrives T(s) = latency + per_byte·s (beyond the sampled sizes per_byte_beyond) after its send
 * started, or — above the transport's eager
 * limit, and for synchronous sends — after both the send started and the receive was posted.
 * Every MPI call then costs, beyond what it waited for, the mean of what calls of its class cost
 * in the original (its residual: recorded Leave − the Leave the model gives from the recorded
 * times): class = (rank, region, size class, transport or communicator size, waited or not). */
typedef struct
{
  double  latency;         /* T(0) */
  double  per_byte;
  guint64 eager_limit;     /* largest eager message; G_MAXUINT64: no rendezvous seen */
  guint   n_samples;       /* transfer samples */
  guint   votes_eager;     /* sends that returned before their receive was posted */
  guint   votes_rdv;       /* sends that returned only once it was */
  guint64 sampled_max;     /* largest size among the transfer samples (0: none) */
  double  per_byte_beyond; /* the slope above sampled_max: per_byte, capped by the trace's
                            * larger messages (sim-model.c, cap_line) */
  guint64 capped_by;       /* size of the message that capped it (0: none) */
  guint64 eager_library;   /* the MPI library's eager limit (TraceDefs.eager_limit_lib), 0 unknown */
  gboolean eager_from_library; /* eager_limit is that limit: no send voted rendezvous */
} SimTransport;

typedef struct
{
  SimTransport tr[2];      /* 0: same host, 1: between hosts */
  int          n_ranks;
  int         *host;       /* world rank -> host index */
  GHashTable  *cost;       /* class key (guint64) -> SimCost */
  guint        n_cost_samples;
  guint        n_classes;
  /* non-blocking collectives (sim-offline.c): (comm, op, member, other member) -> votes + 2^30,
   * whether the member's completion waited for the other's progress after its start (NULL: none) */
  GHashTable  *nbc_needs;
  GHashTable  *coll_deps;  /* sim_model_coll_key -> guint64[size]: per member, the members it waits for */
  guint        n_coll_deps;
  /* hosts whose ranks outnumbered their CPUs (the offline model's cores, sim-offline.c): per
   * host index its CPUs, 0 where every rank had one or the model does not share them; the CPUs
   * the sharing had, fitted (sim_cores_fit_cpus) */
  guint        n_hosts;
  guint32     *host_cpus;
  double      *host_cpus_fit;
  guint       *host_intervals; /* sampled computation intervals the fit had */
  gboolean     sharing;      /* some host shared its CPUs */
  int          cores_passes; /* passes the last simulation ran (sim_offline_run) */
  int          cores_best_pass; /* ... and the one whose times it kept: the one that moved least;
                                 * 0 where it kept the median of the passes from ... */
  int          cores_median_from; /* ... this one on (they did not settle; 0: a pass was kept) */
  /* the cores per CPU (docs/decisions/2026-11-30-cores-per-cpu.md), on hosts whose ranks'
   * samples name the CPU they ran on and that have at most 64 ranks: */
  int         *host_ids;     /* per host: CPU ids (the largest + 1); 0: its CPUs shared as one */
  /* hosts shared evenly whose ranks sat on the CPUs unevenly in phases of the run
   * (docs/decisions/2026-12-01-placement-phases.md): per rank, per event whether it was in
   * such a phase (NULL: never), and per host the CPUs the sharing had there (0: none;
   * host_cpus_fit then holds those of the even phases) */
  guint8     **uneven;
  gboolean    *host_bound;   /* per host: every rank's samples said it was bound to its CPU */
  double      *host_cpus_uneven;
  gint16     **where;        /* per rank: per event the CPU it ran on (NULL: unknown) */
  guint64    **mates;        /* per rank, per event: the ranks on its CPU then (bits: host index) */
  gboolean    *mates_vary;   /* per rank: how many shared its CPU changed during the run (then its
                              * calls' cost classes are per placement, sim_model_class_mates) */
  int        **host_rank;    /* per host, per index there: the world rank */
  guint8     **gate_ok;      /* per rank, per call's Leave: its wait for its CPU held in the original */
  GArray    ***counts_orig;  /* per host, per CPU id: its ranks computing there, recorded times */
  int          cpu_hosts;    /* hosts shared per CPU */
} SimModel;

typedef struct
{
  double sum;
  guint  n;
} SimCost;

/* Fits transfer times and eager limits, then the cost classes: the plans of the untransformed
 * trace run through the offline engine on the recorded times (sim_offline_run with @fit).
 * Where a host ran more ranks than it had CPUs and the trace has the collector's CPU samples,
 * and @cores, also how the ranks shared the CPUs (sim_cores_profile): the simulation then
 * shares them too (sim_offline_run). */
SimModel *sim_model_fit_cores (SimRank **srs, int n_ranks, gboolean cores);
SimModel *sim_model_fit (SimRank **srs, int n_ranks);   /* ... with @cores */
void      sim_model_free (SimModel *m);
/* The eager limit from votes per message size (@sizes ascending): the split that contradicts
 * the fewest votes; the largest size voted eager below it; G_MAXUINT64 without rendezvous. */
guint64   sim_model_eager_split (const guint64 *sizes, const guint *eager, const guint *rdv, guint n);
/* a transport's eager limit from its votes (@n sizes ascending) and the MPI library's configured
 * limit @library (0: unknown), into @t (eager_limit, eager_library, eager_from_library) */
guint64   sim_model_eager_limit (SimTransport *t, const guint64 *sz, const guint *eager, const guint *rdv,
                                 guint n, guint64 library);
int       sim_model_transport (const SimModel *m, int a, int b);
double    sim_model_transfer (const SimModel *m, int from, int to, guint64 bytes);
gboolean  sim_model_rendezvous (const SimModel *m, int from, int to, guint64 bytes, gboolean sync,
                                guint8 send_flags);
guint64   sim_model_class (int rank, guint32 region, guint64 bytes, int kind, gboolean waited);
guint64   sim_model_class_mates (guint64 key, guint mates);
void      sim_model_add_cost (SimModel *m, guint64 key, double residual);
/* the mean residual of the class, else of ever coarser classes, else 0; a class of fewer than
 * SIM_COST_MIN_SAMPLES calls yields to the first coarser one that has that many */
#define SIM_COST_MIN_SAMPLES 5
/* ... and a class of one placement of the ranks on the CPUs (sim_model_class_mates) fewer than
 * this: such a class splits a class of the whole run, and the split needs the calls of a phase
 * of the run, not of a few iterations (sim-patterns at 3 ranks, 40 calls a class and a rank
 * moved near the end: up to +5 % worse with 5) */
#define SIM_COST_MIN_PHASE 100
double    sim_model_cost (const SimModel *m, guint64 key);
char     *sim_model_describe (const SimModel *m);   /* JSON object */
/* Collectives whose members do not all wait for one another (one-to-all, all-to-one, scans):
 * the members each member waited for in the original beyond the operation's own rule — an
 * MPI library's tree (sim_model_fit). NULL: none learned for this communicator, operation and
 * root. */
#define SIM_COLL_DEPS_MAX 64     /* members: larger communicators learn nothing */
#define SIM_COLL_LEARN_MAX 1024  /* instances per communicator the fit learns from */
guint64         sim_model_coll_key (guint32 comm, guint op, int root);
const guint64  *sim_model_coll_deps (const SimModel *m, guint32 comm, guint op, int root);
/* When member @pos of a collective leaves by the operation's own rule, given every member's
 * arrival (@enters, @max_e the latest): the root for one-to-all, everyone for the root of
 * all-to-one, the members before it for scans, everyone otherwise. */
Tick            sim_coll_rule (guint op, int pos, int root, const Tick *enters, int size, Tick max_e);

/* @fit: run on the recorded times and add every call's residual to @model's cost classes
 * (sim_model_fit); otherwise simulate with them. */
gboolean sim_offline_run (SimRank       **srs,
                          SimPlan       **plans,
                          int             n_ranks,
                          SimModel       *model,
                          gboolean        fit,
                          guint64        *n_events,
                          GError        **error);

/* ---- writing the simulated trace (trace-write.c) ------------------------------------------ */

/* Writes @anchor (and its folder) with the global definitions of @orig_anchor and the new event
 * times. Collective over the transport's processes (MPI: every rank writes its own location). */
gboolean trace_write_sim (const char *orig_anchor,
                          const char *anchor,
                          Transport  *t,
                          SimRank   **srs,
                          gboolean    mpi,
                          GError    **error);

/* ---- report (sim-report.c) and driver (sim-run.c) ----------------------------------------- */

typedef struct
{
  char       *expdir;       /* or NULL when an anchor was given */
  char       *anchor;
  char       *hypothesis;
  char       *simdir;
  char       *launcher;
  char      **launcher_argv;  /* the launcher command after "--" (kubus-run's syntax), or NULL */
  gboolean    offline;
  gboolean    no_identity;    /* no error bar: skip the identity simulation */
  gboolean    identity_again; /* measure the identity error again instead of the cached one */
  gboolean    quiet;
  gboolean    no_clock_repair;
  int         argc;         /* for re-executing under mpirun */
  char      **argv;
  /* an experiment with only a compressed trace: its path; @anchor is then the
   * definitions-only archive written beside it (trace-kct.h) */
  char       *kct;
} SimOptions;

typedef struct
{
  double      orig_runtime;     /* seconds: first to last event of any rank */
  double      sim_runtime;
  double      orig_after_init;  /* seconds from the last rank's MPI_Init leave to the end, −1 */
  double      sim_after_init;
  double      sim_after_init_any; /* after MPI_Init, or the whole run without one */
  gboolean    offline;
  const Hypothesis *hyp;
  SimTransformStats tstats;
  SimPlanNotes *notes;
  GHashTable *dropped;          /* merged over ranks */
  SimReplayStats rstats;
  char       *model_json;       /* offline: fitted parameters */
  guint64     n_events;
  gboolean    clock_repaired;   /* the clock repair ran on the original trace */
  guint64     clock_violations; /* what it found (receives before sends, collective ends) */
  guint64     clock_corrections;
  double      clock_largest;    /* seconds */
  /* the error bar (sim-identity.c): the identity simulation of the same trace and mode */
  gboolean    have_identity;
  gboolean    identity_cached;  /* reused from an earlier simulation */
  double      identity_error;   /* percent: identity run time after MPI_Init / original − 1 */
  gboolean    have_other_identity; /* the other mode's: cached, or measured now (offline only) */
  double      other_identity_error;
  char       *identity_advice;  /* sim_identity_advice() */
  /* the identity re-enactment run now (not cached): its large messages (SimReplayStats) */
  guint64     identity_large_calls;
  double      identity_large_ratio;
  /* what the run time can and cannot show (sim-advice.c): NULL or a sentence */
  char       *mode_advice;
  /* how the original shared its cores (sim-cpu.c) and whether the re-enactment brought the
   * contention back */
  SimHosts    hosts;
  SimCpuStats cpu;
  gboolean    contention;
} SimSummary;

gboolean sim_report_write (const char  *orig_cube,
                           const char  *sim_cube,
                           const char  *diff_cube,
                           const char  *summary_json,
                           SimSummary  *s,
                           GString     *out,
                           GError     **error);

/* The headline lines of the printed summary (also the tests' reference for the wording). */
void     sim_report_headline (GString *out, double original_s, double predicted_s, double change_pct,
                              gboolean after_init, gboolean have_identity, double identity_pct,
                              int significant);

int      sim_main (SimOptions *opt);

/* sim-incomplete.c: NULL when the experiment folder @expdir holds a run that ended as a whole
 * (or says nothing about it: a trace outside an experiment), else why it did not (an aborted run,
 * a process killed by a signal, a measurement stopped before the program ended). */
char    *sim_incomplete_reason (const char *expdir);
/* The check before a simulation: 0 to go on (complete; or incomplete, @allow, and warned on
 * stderr), 1 after the error naming the experiment and the reason. */
int      sim_check_complete (const SimOptions *opt, gboolean allow);

/* sim-identity.c: the error bar of every prediction, cached per trace and mode */
char    *sim_identity_cache_path (const SimOptions *opt);
/* ... of the given mode (the other mode's: whether it reproduces this trace better) */
char    *sim_identity_cache_path_for (const SimOptions *opt, gboolean offline);
/* "+0.4 %", "−33.6 %" (a real minus sign), "0.0 %" (no sign on a zero): @v with @decimals and @unit */
char    *sim_signed_figure (double v, int decimals, const char *unit);
/* percent the identity error may reach: 2 where every rank had a core, 5 where ranks shared them */
double   sim_identity_goal (const SimHosts *h);
/* NULL, or the sentence saying that this mode misses the trace beyond the goal: with the other
 * mode's identity error on it where that is known, naming the closer of the two, or naming the
 * other mode as the one to try */
/* mode, @rt_advised_against (offline only: the real-time re-enactment is known to miss runs of
 * this kind by more) says so instead of naming it */
char    *sim_identity_advice (gboolean offline, const SimHosts *h, double error_percent,
                              gboolean other_known, double other_percent, gboolean rt_advised_against);
gboolean sim_identity_cache_load (const char *path, double *error_percent);
/* @rt_advised_against: 1 or 0 kept beside the figure (an offline identity: whether the trace is
 * of a kind the real-time re-enactment misses by more), −1 not known */
void     sim_identity_cache_store (const char *path, const SimOptions *opt, double error_percent,
                                   double original_s, double predicted_s, int rt_advised_against);
/* what the cache at @path keeps of that: 1, 0, or −1 where it says nothing */
int      sim_identity_cache_rt_advised_against (const char *path);
gboolean sim_hypothesis_is_identity (const Hypothesis *h);
/* 1 when |change| is larger than |identity error|, 0 when not, −1 when unknown */
int      sim_significance (double change_percent, gboolean have_identity, double identity_percent);

/* sim-advice.c: NULL, or why this mode cannot reproduce this run and which mode would */
char    *sim_mode_advice (const SimOptions *opt, const TraceDefs *defs, const SimHosts *h);
/* TRUE where the ranks' computation computed (slept less than half of it) and it, or their MPI
 * calls, waited runnable for a CPU more than SIM_CONTENTION_SHARE of their time: they competed
 * for the cores (where they shared them, the real-time mode re-enacts that contention) */
gboolean sim_ranks_competed (const SimCpuStats *c);
/* TRUE where the real-time re-enactment is known to miss a run like the trace's by more than the
 * offline model (one of the notes that name the offline mode before it re-enacts would be said) */
gboolean sim_rt_advised_against (const SimOptions *opt, const TraceDefs *defs, const SimHosts *h,
                                 const SimCpuStats *c);
guint    sim_local_cpus (void);   /* CPUs the re-enactment may use here (KUBUS_SIM_CPUS in the ranks) */
/* share of the ranks' time spent waiting for a CPU that other programs took (−1 unknown) */
double   sim_outside_load (const SimHosts *h, const SimCpuStats *c);
char    *sim_load_advice (const SimHosts *h, const SimCpuStats *c);
/* NULL, or the sentence saying that the contention re-enactment misses runs whose ranks shared
 * the CPUs, computed at the same time on them and called MPI more often than once per scheduler
 * time slice, naming --offline (@c summed over all ranks) */
char    *sim_fine_grain_advice (const SimHosts *h, const SimCpuStats *c);
/* the ranks' MPI calls per scheduler time slice (@c summed over all ranks; 0 unknown) */
double   sim_calls_per_slice (const SimHosts *h, const SimCpuStats *c);
/* NULL, or the sentence saying that the re-enactment's MPI library (its eager limits @here[i],
 * known where @have[i]; 0 between ranks of a host, 1 between hosts) sends messages of other
 * sizes eagerly than the original's did (TraceDefs.eager_limit_lib): between hosts only where
 * the original ran on several (@hosts) */
char    *sim_eager_advice (const TraceDefs *defs, guint hosts, const unsigned long long here[2], const int have[2]);

/* sim-launch.c */
char    *sim_workdir_name (const char *simdir, int pid);   /* ".NAME.tmp-PID" beside SIMDIR */
void     sim_remove_stale_workdirs (const char *simdir);
gboolean sim_install (const char *workdir, const char *simdir, GError **error);
/* mpirun (launch-mpi.c) with KUBUS_SIM_WORKDIR=@workdir: the exit status for main() */
int      sim_spawn_ranks (SimOptions *opt, int n_ranks, const char *workdir);
