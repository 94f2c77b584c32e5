/* kct-format.h: compressed traces (.kct, docs/formats/kct.md) — the data model, its encoding,
 * the on-the-fly compressor and the merge of compressed traces.
 *
 * Plain C17 without GLib, MPI or OTF2: the collector builds these files into the library it
 * preloads into applications, src/core (kubus-trace, the replay iterator) and the fuzz target
 * build the very same files, so writer and reader cannot drift.
 *
 * The model, after ScalaTrace (Mueller et al., PARA 2010):
 *  - a *leaf* is one MPI call with everything recorded inside it (Enter, the message or
 *    collective events, Leave), or one event outside any MPI call; leaves are interned;
 *  - a *body* is a sequence of elements, an *element* a leaf or a body repeated `count` times:
 *    a loop (RSD), a loop of loops (power-RSD); bodies are interned too;
 *  - a *group* is a set of ranks (PRSD-encoded rank list) whose whole event sequence is the
 *    same body, with delta-time histograms per pair of consecutive leaves;
 *  - peers are stored relative to the own rank, communicators by the rank's local id,
 *    requests by the index of a slot in a small table, so interior ranks of a stencil are
 *    identical and loops repeat exactly.
 *
 * Every function that can fail returns 0 on success, -1 on failure (out of memory or bad
 * input: the decoder then writes a message to its err buffer). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define KCT_MAGIC "KUBUSKCT"
#define KCT_VERSION 5u
/* the oldest version this reader still takes: 2 lacks the non-blocking collectives' events
 * (types 14 and 15), 3 the CPU samples (section CPUS) and the hosts' CPU counts, 4 the CPUs
 * the samples ran on (KCT_CPU_WHERE); nothing else differs */
#define KCT_VERSION_MIN 2u
#define KCT_NONE UINT32_MAX

/* ---- raw events: the OTF2 events the collector writes ------------------ */

enum
{
  KCT_RAW_ENTER = 1,
  KCT_RAW_LEAVE,
  KCT_RAW_SEND,
  KCT_RAW_RECV,
  KCT_RAW_ISEND,
  KCT_RAW_ISEND_COMPLETE,
  KCT_RAW_IRECV_REQUEST,
  KCT_RAW_IRECV,
  KCT_RAW_REQUEST_CANCELLED,
  KCT_RAW_COLL_BEGIN,
  KCT_RAW_COLL_END,
  KCT_RAW_PROGRAM_BEGIN,
  KCT_RAW_PROGRAM_END,
  /* version 3: a non-blocking collective's request (in its MPI_I* call, at the call's start)
   * and its completion (in the MPI_Wait* / MPI_Test* that completes it) */
  KCT_RAW_NBC_REQUEST,
  KCT_RAW_NBC_COMPLETE,
  KCT_RAW_N
};

/* When a raw event happens inside its leaf: at the leaf's first timestamp (a send is stamped
 * when its call is entered), at its last one (a receive when the call returns), or between. */
enum
{
  KCT_AT_START = 0,
  KCT_AT_END = 1,
  KCT_AT_MID = 2
};

/* 40 bytes, no padding; memset to 0 before filling so that leaves compare with memcmp. */
typedef struct
{
  uint8_t  type; /* KCT_RAW_* */
  uint8_t  at;   /* KCT_AT_*, set by the recorder */
  uint8_t  op;   /* COLL_END, NBC_COMPLETE: OTF2_CollectiveOp */
  uint8_t  pad;
  uint32_t a;    /* ENTER/LEAVE: region id; message and collective events: local communicator */
  int32_t  peer; /* messages: peer rank minus own rank (in the communicator); COLL_END and
                    NBC_COMPLETE: root, -1 when undefined */
  uint32_t tag;  /* messages: tag; ENTER of an MPI call: call-site signature */
  uint64_t bytes; /* messages: bytes; COLL_END, NBC_COMPLETE: bytes sent; PROGRAM_END: exit
                     status */
  uint64_t x;     /* request events (NBC_REQUEST and NBC_COMPLETE too): request (recorder input:
                     the request id; stored: the slot); COLL_END: bytes received */
  uint64_t y;     /* NBC_COMPLETE: bytes received */
} KctRaw;

/* ---- ordered rank lists (communicator members, the ranks of a group) ------ */

typedef struct
{
  uint32_t *v;
  uint32_t  n, cap;
} KctList;

int  kct_list_add (KctList *l, uint32_t v);
int  kct_list_copy (KctList *to, const KctList *from);
/* to := sorted union of two sorted lists */
int  kct_list_union (KctList *to, const KctList *a, const KctList *b);
int  kct_list_equal (const KctList *a, const KctList *b);
int  kct_list_contains_sorted (const KctList *l, uint32_t v);
void kct_list_clear (KctList *l);

/* ---- times (kct-time.c) ------------------------------------------------ */

/* Every timestamp is stored relative to the one before it on its rank (as stored: errors do
 * not add up), rounded to a grid: a value is a whole number u of abs ticks, kept exactly below
 * 2^bits and with its top bits (a binary float: bits - 1 of them after the leading one) above,
 * so the step next to a value v is at most max(abs, 2^(1 - bits) * v).  Defaults: 1 us or
 * 2^-16 (0.0015 %). */
#define KCT_TIME_BITS 17u
#define KCT_TIME_ABS_NS 1000u
#define KCT_TIME_BITS_MIN 4u
#define KCT_TIME_BITS_MAX 30u
/* timelines a trace holds, a group's mean counted: the ranks farthest from their group's mean
 * keep their own times while they fit, the others replay the mean of their group's others */
#define KCT_TIMELINES 16u
#define KCT_TIMELINES_MAX (1u << 24)

typedef struct
{
  uint64_t abs;
  uint32_t bits;
} KctGrid;

int  kct_grid_init (KctGrid *g, uint64_t abs, uint32_t bits);
void kct_grid_clear (KctGrid *g);
/* a grid point's value in ticks (UINT64_MAX: none) */
uint64_t kct_grid_value (const KctGrid *g, uint64_t code);

/* "1us,0.0015%" (a time from 1 ns to 1 s with ns, us, µs, ms or s, and/or a share; either
 * alone): sets *abs_seconds and *bits (the coarsest grid whose relative step is at most the
 * share) for what is given.  -1 when malformed. */
int kct_parse_time_error (const char *s, double *abs_seconds, uint32_t *bits);

/* How a timestamp is rounded to the grid: never later than the truth (a send: its message
 * cannot arrive before it), never earlier (a receive, the end of a collective), or nearest. */
enum
{
  KCT_ROUND_NEAREST = 0,
  KCT_ROUND_DOWN,
  KCT_ROUND_UP
};

/* The timestamps a leaf stores ("slots"): its start, one per event in between, and its end
 * when it has events there.  Returns the number of slots; dir[] (may be NULL, else
 * kct_leaf_slots entries) gets each slot's rounding. */
uint32_t kct_leaf_slots (const KctRaw *raw, uint32_t n, uint8_t *dir);

/* One rank's timeline as a byte stream: for each leaf occurrence in the order of the rank's
 * sequence its slots, for each poll run its start, number of calls, time in the calls and end,
 * every time as a grid point relative to the previous one, entropy-coded (a binary range
 * coder with adaptive models per leaf and slot, numbered by first appearance, so that the
 * stream does not depend on how a file numbers its leaves). */
typedef struct
{
  const KctGrid *grid;
  int            decoding;
  int            failed;
  /* range coder */
  uint64_t       low;
  uint32_t       range, code;
  uint8_t        cache;
  uint64_t       pending;
  uint8_t       *buf; /* encoding: the output (owned); decoding: the input */
  size_t         n, cap, pos;
  /* models: blocks of probabilities, per (leaf, slot) at first appearance */
  uint32_t      *leaf_block; /* leaf id -> first block + 1 */
  uint32_t      *poll_block;
  uint32_t       n_map;
  uint16_t      *p;
  uint32_t       n_blocks, cap_blocks;
  uint8_t       *dir;
  uint32_t       cap_dir;
  uint64_t       last; /* the last time, as stored */
  uint64_t       values;
} KctTimeCoder;

void kct_tc_encoder (KctTimeCoder *c, const KctGrid *grid);
int  kct_tc_decoder (KctTimeCoder *c, const KctGrid *grid, const uint8_t *bytes, size_t n);
/* A leaf occurrence: times[] holds kct_leaf_slots times; encoding stores them and replaces
 * them by the stored ones, decoding sets them.  -1: out of memory or a corrupt stream. */
int  kct_tc_leaf (KctTimeCoder *c, uint32_t leaf, const KctRaw *raw, uint32_t n, uint64_t *times);
/* A poll run: its start, number of calls (>= 1), time inside the calls, end; the same. */
int  kct_tc_poll (KctTimeCoder *c, uint32_t leaf, uint64_t *start, uint64_t *calls,
                  uint64_t *in_calls, uint64_t *end);
/* Encoding: ends the stream; the bytes are c->buf[0 .. c->n) (the caller takes them).
 * Decoding: 0 when the stream was read exactly to its end. */
int  kct_tc_finish (KctTimeCoder *c);
void kct_tc_clear (KctTimeCoder *c);

/* The times of a rank (or the mean of several) as a coded stream. */
typedef struct
{
  uint32_t rank;  /* KCT_NONE: the mean of the group's ranks without a timeline of their own */
  uint64_t start; /* its first event, from the trace's global start */
  uint8_t *bytes;
  size_t   n_bytes;
  uint64_t score; /* while merging: how far its times are from the group's mean */
} KctTimeline;

/* ---- walking a sequence ------------------------------------------------ */

typedef struct
{
  const void *t; /* const KctTrace * */
  struct KctWalkFrame
  {
    uint32_t body, pos, done;
  } *fr;
  uint32_t n_fr, cap_fr;
} KctWalk;

int  kct_walk_init (KctWalk *w, const void *trace, uint32_t body);
/* 1: *leaf is the next leaf occurrence (*poll: a poll run), 0: the end, -1: out of memory or
 * loops nested too deep */
int  kct_walk_next (KctWalk *w, uint32_t *leaf, int *poll);
void kct_walk_clear (KctWalk *w);

/* ---- elements, bodies, groups -------------------------------------- */

#define KCT_REF_BODY 0x80000000u /* else a leaf */
#define KCT_REF_POLL 0x40000000u /* a leaf: a run of unsuccessful polls, count 0 */
#define KCT_REF_ID(r) ((r) & 0x3fffffffu)
#define KCT_ID_MAX 0x3fffffffu

typedef struct
{
  uint32_t ref;
  uint32_t count; /* iterations (>= 1); 0 for a poll run */
} KctElem;

/* How many polls the runs of a poll leaf held, all ranks of a group together. */
typedef struct
{
  uint32_t leaf;
  uint64_t calls;
} KctPollCount;

typedef struct
{
  KctList       ranks; /* sorted world ranks */
  uint32_t      seq;   /* body: the whole event sequence of each of these ranks */
  KctPollCount *polls;
  uint32_t      n_polls, cap_polls;
  KctTimeline  *tl; /* ranks with times of their own, and the mean of the others */
  uint32_t      n_tl, cap_tl;
  /* while merging: the values (kct_timeline_values) of the ranks whose times went into the
   * mean, added up */
  uint64_t     *fold;
  uint64_t      n_fold;
  uint64_t      fold_start;
  uint32_t      n_folded;
} KctGroup;

KctPollCount       *kct_group_poll (KctGroup *g, uint32_t leaf); /* found or added */
const KctPollCount *kct_group_find_poll (const KctGroup *g, uint32_t leaf);
KctTimeline        *kct_group_timeline_add (KctGroup *g);
/* the timeline rank @rank replays: its own, else the group's mean; NULL: none */
const KctTimeline  *kct_group_timeline (const KctGroup *g, uint32_t rank);

/* ---- definitions --------------------------------------------------- */

#define KCT_REGION_CALL 1u /* an MPI call: its Enter opens a leaf, its Leave closes it */
#define KCT_REGION_POLL 2u /* a test or probe: calls that find nothing are aggregated */

typedef struct
{
  char   *name;
  char   *canonical; /* "" = the name */
  char   *file;
  char   *descr;
  uint8_t role;     /* OTF2_RegionRole */
  uint8_t paradigm; /* OTF2_Paradigm */
  uint8_t flags;    /* KCT_REGION_* */
} KctRegion;

#define KCT_COMM_INTER 1u /* an inter-communicator: members = group A, members_b = group B */
/* Not a communicator of its own: its users know communicator `parent` (an entry that is not
 * repeated) by a different local id than its other members do. */
#define KCT_COMM_ALIAS 2u

/* A communicator, or a family of them: instance k (k < repeat) has the members
 * members[i] + k * shift (MPI_COMM_SELF of every rank is one entry; so are the rows of a
 * grid split with MPI_Comm_split).  Events name a communicator by the local id its users
 * know it by. */
typedef struct
{
  uint64_t key;        /* identity while merging; 0 in a finished trace */
  uint64_t parent_key; /* while merging */
  uint32_t local_id;
  uint32_t flags;
  uint32_t parent; /* entry index in a finished trace, KCT_NONE = none */
  uint32_t repeat; /* >= 1 */
  int64_t  shift;
  KctList  members;   /* world ranks in communicator rank order */
  KctList  members_b; /* inter-communicator: group B */
  KctList  users;     /* sorted world ranks that use local_id for it; empty = every member */
} KctComm;

typedef struct
{
  uint64_t comm_key; /* while merging */
  uint32_t comm;     /* comm entry in a finished trace */
  char    *name;
  uint32_t ndims;
  uint32_t dims[16];
  uint8_t  periods[16];
  int      row_major;  /* coordinates of rank r in the communicator: row-major decomposition */
  KctList  coord_rank; /* else: ranks in the communicator that have coordinates… */
  KctList  coords;     /* …and ndims coordinates for each */
} KctTopo;

typedef struct
{
  char   *name;
  KctList ranks; /* sorted */
  /* version 4: KUBUS::CPUS (the CPUs the host's ranks could use, 0 = unknown) and, where the
   * collector measured them, KUBUS::OTHER_CPU_NS / KUBUS::OTHER_WALL_NS (CPU time other
   * programs took on the host, and over how long) */
  uint32_t cpus;
  int      other_known;
  uint64_t other_cpu_ns, other_wall_ns;
} KctHost;

/* ---- CPU samples (version 4) --------------------------------------------------------- */

/* The collector's KUBUS_CPU_TIME / KUBUS_CPU_WAIT / KUBUS_CPU_ID samples of one rank
 * (collect-cputime.c): each sample stands before one of the rank's events (an MPI call's Enter
 * or Leave, with its time), named by the number of the rank's events before it.  Coded as
 * varints, per sample: the events since the previous sample (uv; the first: since the rank's
 * first event), the CPU time minus the previous one's (sv, ns; the first: from 0), the wait
 * for a CPU plus 1 minus the previous one's (sv, modulo 2^64; 0 = unknown, the collector's all
 * ones) and, version 5 with KCT_CPU_WHERE only, the CPU id plus 1 minus the previous one's (sv,
 * modulo 2^64, the first from 0; 0 = unknown, the collector's all ones: ids rarely change, so
 * mostly one byte 0). */
#define KCT_CPU_SAMPLED 1u /* the run sampled (the OTF2 trace defines the metric) */
#define KCT_CPU_WAIT 2u    /* the metric has the second member KUBUS_CPU_WAIT */
/* version 5: the metric has the third member KUBUS_CPU_ID (only with KCT_CPU_WAIT), the
 * samples their fourth varint */
#define KCT_CPU_WHERE 4u

typedef struct
{
  uint32_t rank;
  int      where;    /* the samples have the fourth varint (the CPU id); set before the first */
  uint64_t n;        /* samples */
  uint8_t *bytes;
  size_t   n_bytes, cap;
  /* while recording: the last sample (event position, CPU ns, wait + 1, CPU id + 1), and where
   * the samples at the last position begin (dropped when no event follows them) */
  uint64_t last_pos, last_cpu, last_wait1, last_where1;
  size_t   tail_bytes;
  uint64_t tail_n;
} KctCpuStream;

/* KUBUS_CPU_ID (the OTF2 metric and the CPUS section alike): the CPU id, plus this where the
 * thread could run on that CPU only (bound to it; samples of collectors before 2026-12-01
 * never say so) */
#define KUBUS_CPU_ID_BOUND 65536u

/* Appends a sample standing before event @pos (>= the previous one's); @where: the CPU id
 * (UINT64_MAX: unknown; kept only when s->where); -1 out of memory. */
int  kct_cpu_append (KctCpuStream *s, uint64_t pos, uint64_t cpu, uint64_t wait, uint64_t where);
/* Rewrites the stream with (@where) or without the CPU ids (added: unknown); -1 out of memory
 * or a corrupt stream (left as it was). */
int  kct_cpu_recode (KctCpuStream *s, int where);
/* Drops the samples no event follows (@events: the rank's events). */
void kct_cpu_end (KctCpuStream *s, uint64_t events);
void kct_cpu_clear (KctCpuStream *s);

typedef struct
{
  const uint8_t *p;
  size_t         n, at;
  int            where;
  uint64_t       left;
  uint64_t       pos, cpu, wait1, where1;
} KctCpuReader;

void kct_cpu_reader (KctCpuReader *rd, const KctCpuStream *s);
/* 1: the next sample (*wait, *where UINT64_MAX: unknown; *where always so in a stream without
 * the ids; @where may be NULL), 0: the end (the stream read exactly), -1: corrupt */
int  kct_cpu_read (KctCpuReader *rd, uint64_t *pos, uint64_t *cpu, uint64_t *wait,
                   uint64_t *where);

#define KCT_FILE_OFFLINE 1u      /* made by kubus-trace compress from an OTF2 trace */
#define KCT_FILE_EXTRAPOLATED 2u /* made by kubus-trace extrapolate */
#define KCT_FILE_PARTIAL 4u      /* some ranks only: a message of the collector's merge */

typedef struct
{
  uint32_t n_ranks;
  uint32_t flags;
  uint64_t timer_resolution; /* ticks per second */
  uint64_t global_start;     /* first timestamp of the run */
  uint64_t length;           /* last minus first timestamp */
  uint64_t realtime_start;   /* ns since the epoch at global_start, 0 = unknown */
  uint64_t otf2_bytes;       /* size of the OTF2 trace of the same run, 0 = none written */
  char    *program;          /* path of the executable (ProgramBegin's name) */
  char    *creator;
  /* the timing error bound: every stored time within max(time_abs ticks, 2^(1 - time_bits)
   * of the time since the rank's previous stored time) of the truth */
  uint64_t time_abs;
  uint32_t time_bits;
  /* timelines, at most, means counted (one mean per group when there are more groups) */
  uint32_t timelines;
} KctHeader;

typedef struct
{
  KctHeader  h;
  KctRegion *regions;
  uint32_t   n_regions, cap_regions;
  KctComm   *comms;
  uint32_t   n_comms, cap_comms;
  KctTopo   *topos;
  uint32_t   n_topos, cap_topos;
  KctHost   *hosts;
  uint32_t   n_hosts, cap_hosts;

  /* leaves: raw events raw[leaf_off[i] .. leaf_off[i] + leaf_len[i]) */
  KctRaw   *raw;
  size_t    n_raw, cap_raw;
  uint32_t *leaf_off, *leaf_len;
  uint32_t  n_leaves, cap_leaves;
  uint32_t *leaf_index; /* open addressing: leaf + 1 */
  uint32_t  leaf_slots;

  /* bodies: elems[body_off[i] .. body_off[i] + body_len[i]) */
  KctElem  *elems;
  size_t    n_elems, cap_elems;
  uint32_t *body_off, *body_len;
  uint32_t  n_bodies, cap_bodies;
  uint32_t *body_index;
  uint32_t  body_slots;

  KctGroup *groups;
  uint32_t  n_groups, cap_groups;

  /* CPU samples (version 4): KCT_CPU_* flags, and the streams of the ranks that have times of
   * their own (sorted by rank; a rank replaying its group's mean has none) */
  uint32_t      cpu_flags;
  KctCpuStream *cpu;
  uint32_t      n_cpu, cap_cpu;

  /* the OTF2 archive's properties (name, value; e.g. KUBUS::EAGER_LIMIT_SAME_HOST): the
   * optional section PROP (version 5; a reader before it skips it) */
  char    **prop_names, **prop_values;
  uint32_t  n_props, cap_props;
} KctTrace;

KctTrace *kct_trace_new (void);
void      kct_trace_free (KctTrace *t);

int      kct_set_string (char **field, const char *s);
uint32_t kct_region_add (KctTrace *t, const KctRegion *r); /* copies; KCT_NONE on failure */
uint32_t kct_region_find (const KctTrace *t, const char *name);
KctComm *kct_comm_add (KctTrace *t);                       /* zeroed, repeat 1 */
KctTopo *kct_topo_add (KctTrace *t);
KctHost *kct_host_add (KctTrace *t, const char *name);
KctGroup *kct_group_add (KctTrace *t);
/* sets property @name to @value (replaced where it is there); -1 out of memory */
int         kct_prop_set (KctTrace *t, const char *name, const char *value);
/* the value of property @name, NULL where the trace has none */
const char *kct_prop_get (const KctTrace *t, const char *name);
/* the stream of @rank: found, or added (zeroed) when @add; NULL when not found / out of memory */
KctCpuStream *kct_cpu_stream (KctTrace *t, uint32_t rank, int add);
const KctCpuStream *kct_cpu_find (const KctTrace *t, uint32_t rank);
/* drops the streams of ranks without times of their own (they replay their group's mean) */
void kct_cpu_prune (KctTrace *t);

uint32_t kct_leaf_intern (KctTrace *t, const KctRaw *raw, uint32_t n);  /* KCT_NONE: failed */
uint32_t kct_body_intern (KctTrace *t, const KctElem *e, uint32_t n);

static inline const KctRaw *
kct_leaf (const KctTrace *t, uint32_t leaf, uint32_t *n)
{
  *n = t->leaf_len[leaf];
  return t->raw + t->leaf_off[leaf];
}

static inline const KctElem *
kct_body (const KctTrace *t, uint32_t body, uint32_t *n)
{
  *n = t->body_len[body];
  return t->elems + t->body_off[body];
}

/* The time settings of a trace: zeros in the header become the defaults for its timer. */
void kct_time_defaults (KctTrace *t);
/* Statistics over the structure (no expansion): events of one rank of group g (polls: the
 * recorded total of the group divided by its ranks), saturating at UINT64_MAX. */
uint64_t kct_group_events (const KctTrace *t, uint32_t g);
/* How often each leaf occurs in one rank of group g (malloc'd, n_leaves entries). */
uint64_t *kct_group_leaf_runs (const KctTrace *t, uint32_t g);
/* How many leaf calls of each region one rank of group g makes: calls[region] += … */
void kct_group_calls (const KctTrace *t, uint32_t g, uint64_t *calls);

/* ---- encoding (kct-format.c) ---------------------------------------- */

/* The whole trace as one .kct image (malloc'd). */
int kct_encode (const KctTrace *t, uint8_t **out, size_t *len);
/* The same in an older version's layout (KCT_VERSION_MIN .. KCT_VERSION; tests and fuzz
 * seeds): what that version lacks is left out (before 4: the CPU samples, the hosts' CPUs;
 * before 5: the samples' CPU ids and the properties). */
int kct_encode_version (const KctTrace *t, uint32_t version, uint8_t **out, size_t *len);
/* Checks everything (sizes, ids, checksums); on failure writes what is wrong to err. */
int kct_decode (const uint8_t *buf, size_t len, KctTrace **out, char *err, size_t errlen);

/* ---- the per-rank recorder (kct-fold.c) ------------------------------ */

typedef struct KctRank KctRank;

/* Records into group 0 of @t (created: ranks = { rank }); the timer resolution and time
 * settings of @t's header must be set before (kct_time_defaults fills what is 0). */
KctRank *kct_rank_new (KctTrace *t, uint32_t rank);
void     kct_rank_free (KctRank *r);
/* Region flags (KCT_REGION_*) of a region id, before its first event. */
int kct_rank_region_flags (KctRank *r, uint32_t region, uint8_t flags);
/* One event at local time @t; ev->at is set here, request events' ev->x (a request id) is
 * replaced by a slot.  Returns -1 once out of memory (then nothing more is recorded). */
int kct_rank_record (KctRank *r, uint64_t t, KctRaw *ev);
/* The same without a copy (the collector's hot path): fill the zeroed event that
 * kct_rank_prepare returns (NULL: out of memory), then commit it. */
KctRaw *kct_rank_prepare (KctRank *r);
int     kct_rank_commit (KctRank *r, uint64_t t);
/* Ends the sequence; @start_offset is added to local times to get the run's time base,
 * @global_start is the first timestamp of all ranks in that base. */
int kct_rank_end (KctRank *r, int64_t start_offset, uint64_t global_start);
/* A CPU sample (collect-cputime.c) standing before the rank's next event (@wait, @where — the
 * CPU it ran on — UINT64_MAX: unknown); the caller sets the trace's cpu_flags (the encoder
 * leaves the ids out without KCT_CPU_WHERE). */
int kct_rank_cpu (KctRank *r, uint64_t cpu, uint64_t wait, uint64_t where);
uint64_t kct_rank_first_time (const KctRank *r); /* local time of the first event */
uint64_t kct_rank_last_time (const KctRank *r);
uint64_t kct_rank_events (const KctRank *r);
size_t   kct_rank_memory (const KctRank *r); /* bytes held by the recorder and its trace */

/* ---- merging (kct-merge.c) -------------------------------------------- */

/* Moves everything of @from into @to: definitions united (regions by name, communicators by
 * key and local id), leaves and bodies re-interned, groups with the same sequence joined
 * (rank lists united, histograms added). */
int kct_merge (KctTrace *to, const KctTrace *from);
/* Before writing the final file: drop unreachable leaves and bodies and number bodies so
 * that a body refers only to bodies before it, fold communicator families, detect
 * row-major topology coordinates, code the mean times of each group. */
int kct_finish (KctTrace *t);

/* ---- timelines of groups (kct-time.c) ---------------------------------- */

/* The values of a timeline (one per stored time, see KctTimeline), malloc'd; -1 on a corrupt
 * stream or out of memory. */
int kct_timeline_values (const KctTrace *t, const KctGroup *g, const KctTimeline *tl,
                         const KctGrid *grid, uint64_t **values, uint64_t *n);
/* A timeline coded from values (the mean of several ranks: sums / @div, rounded). */
int kct_timeline_from_values (const KctTrace *t, const KctGroup *g, const KctGrid *grid,
                              const uint64_t *sums, uint64_t n, uint64_t div, KctTimeline *out);
void kct_timeline_clear (KctTimeline *tl);

/* ---- checksums (kct-format.c) --------------------------------------- */
uint32_t kct_crc32 (const void *data, size_t len);
