/* analyze-mode.h — how an analysis runs: in this process (threads across its ranks) or as the
 * parallel MPI replay, chosen from what can be seen before any event is read: the trace's size
 * and rank count, this machine's cores and memory, and whether the process runs inside an MPI
 * job or a batch allocation (docs/decisions/2026-11-28-analysis-mode.md).
 *
 * Every analysis Kubus runs takes this choice: kubus-analyze, the browser's Analyze (it runs
 * kubus-analyze), kubus-sim's analyses of the original and the simulated trace, and
 * kubus-analyze --verify-causes (through kubus-sim's library). */
#pragma once

#include "analyze-private.h"

G_BEGIN_DECLS

typedef enum
{
  ANALYZE_MODE_AUTO = 0,
  ANALYZE_MODE_IN_PROCESS,  /* every rank in this process, over the in-memory transport */
  ANALYZE_MODE_PARALLEL,    /* the MPI replay: ranks spread over MPI processes */
} AnalyzeModeKind;

/* What the user asked for (kubus-analyze's options; zero: choose). */
typedef struct
{
  AnalyzeModeKind want;         /* --serial: IN_PROCESS, --parallel: PARALLEL */
  int             processes;    /* --parallel=N */
  int             threads;      /* --threads N */
  guint64         budget;       /* --memory-budget in bytes */
  double          budget_share; /* --memory-budget N%: share of the available memory (0..1) */
} AnalyzeModeOptions;

/* What can be seen of the machine and the environment (analyze_machine_probe; tests fill it). */
typedef struct
{
  int      cores;          /* cores this process may use (affinity, cgroup CPU quota) */
  guint64  mem_available;  /* bytes: MemAvailable, or less when a cgroup limit is lower */
  gboolean mem_known;
  int      job_size;       /* processes of the MPI job this process is a rank of (0: none) */
  int      job_local;      /* of those, on this node (0: unknown) */
  int      alloc_tasks;    /* tasks (cores) of the batch allocation we run in (0: none) */
  int      alloc_nodes;    /* its nodes (0: unknown) */
  char     alloc_kind[16]; /* "Slurm", "PBS", "LSF" */
} AnalyzeMachine;

/* The trace, as far as the definitions and the file sizes tell. */
typedef struct
{
  int     n_ranks;
  guint64 event_bytes;     /* sum of the ranks' .evt files */
  guint64 largest_rank;    /* the largest of them */
  guint64 n_events;        /* from the location definitions, 0 if they do not say */
  guint64 estimate;        /* bytes the analysis needs in one process */
} AnalyzeTraceSize;

typedef struct
{
  AnalyzeModeKind kind;      /* IN_PROCESS or PARALLEL */
  int             processes; /* PARALLEL: MPI processes (inside a job: the job's) */
  int             threads;   /* threads of each process */
  gboolean        in_job;    /* the decision was made inside an MPI job */
  gboolean        rank0;     /* inside a job: rank 0 analyses in-process, the others wait */
  gboolean        fallback;  /* PARALLEL because the trace exceeds the memory budget */
  guint64         budget;    /* bytes */
  char           *why;       /* one line: what was chosen and why (translated) */
} AnalyzeMode;

/* Reads the process's environment, /proc and the cgroup files. */
void     analyze_machine_probe   (AnalyzeMachine *m);
/* Sizes @defs from its location definitions and the sizes of its event files beside @anchor;
 * reads no event. */
void     analyze_trace_size      (const TraceDefs  *defs,
                                  const char       *anchor,
                                  AnalyzeTraceSize *s);
/* The memory the analysis of a trace with @n_ranks ranks and @event_bytes of event files
 * needs in one process (the model is in analyze-mode.c). */
guint64  analyze_memory_estimate (int      n_ranks,
                                  guint64  event_bytes,
                                  guint64  n_events);
/* The choice itself: pure, the same inputs give the same mode. @in_job: this process is a
 * rank of an MPI job (@m->job_size > 0). */
void     analyze_mode_decide     (const AnalyzeModeOptions *o,
                                  const AnalyzeMachine     *m,
                                  const AnalyzeTraceSize   *s,
                                  AnalyzeMode              *out);
void     analyze_mode_clear      (AnalyzeMode *mode);

/* Parses --memory-budget's value: "512M", "4G", "2.5GiB", "1048576", "30%". */
gboolean analyze_parse_budget    (const char          *text,
                                  AnalyzeModeOptions  *o,
                                  GError             **error);
/* "1.5 GiB": a size for the user (the caller frees it). */
char    *analyze_format_bytes    (guint64 bytes);

/* Options from the environment for the programs without options of their own (kubus-sim and
 * --verify-causes): KUBUS_ANALYZE_MODE=serial|parallel[=N]|auto, KUBUS_ANALYZE_THREADS=N,
 * KUBUS_ANALYZE_MEMORY_BUDGET=SIZE. Unknown values are ignored with a warning. */
void     analyze_mode_options_from_env (AnalyzeModeOptions *o);

/* ---- running it (analyze-auto.c) ------------------------------------------------------ */

/* Chooses for the analysis of @defs (@anchor: its event files). @mpi: this process is a rank of
 * an MPI job (MPI is initialised): rank 0 decides from what it sees, every process gets that
 * choice; mode->why only on rank 0. */
void     analyze_mode_choose (const AnalyzeModeOptions *o,
                              gboolean                  mpi,
                              const TraceDefs          *defs,
                              const char               *anchor,
                              AnalyzeMode              *mode);
/* The choice's line on standard error ("PROG: why"), by the root unless quiet. */
void     analyze_mode_say    (const AnalyzeProgress *prog,
                              const AnalyzeMode     *mode);
/* analyze_run where @mode says: over @t (the job's transport, @mpi) for the parallel replay
 * inside a job; in this process (or the job's rank 0, the others waiting) over an in-memory
 * transport with mode->threads threads; from outside a job, a parallel replay starts
 * kubus-analyze --parallel=N (with --mpirun @launcher if not NULL), which writes @cube_path
 * and its statistics beside it. The same result on every process, as analyze_run. */
gboolean analyze_run_mode    (const AnalyzeMode *mode,
                              Transport         *t,
                              gboolean           mpi,
                              TraceDefs         *defs,
                              gboolean           clock_repair,
                              const char        *anchor,
                              const char        *cube_path,
                              const char        *stats_path,
                              const char        *launcher,
                              AnalyzeProgress   *prog,
                              GString           *summary,
                              GError           **error);
/* Choose (@o, NULL: from the environment, analyze_mode_options_from_env), say, run: what
 * kubus-sim calls for each analysis. */
gboolean analyze_run_auto    (const AnalyzeModeOptions *o,
                              Transport                *t,
                              gboolean                  mpi,
                              TraceDefs                *defs,
                              gboolean                  clock_repair,
                              const char               *anchor,
                              const char               *cube_path,
                              const char               *stats_path,
                              const char               *launcher,
                              AnalyzeProgress          *prog,
                              GString                  *summary,
                              GError                  **error);

G_END_DECLS
