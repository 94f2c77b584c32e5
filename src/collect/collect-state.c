/* collect-state.c: measurement life cycle (MPI_Init … MPI_Finalize/Abort).
 *
 * Each rank is one OTF2 location (id = world rank).  The archive is
 * EXPDIR/traces.otf2 with its traces/ folder and traces.def.
 */
#define OTF2_MPI_USE_PMPI
#include "collect.h"
#include "kubus-text.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <otf2/OTF2_MPI_Collectives.h>

int             kubus_recording;
__thread int    kubus_main_thread __attribute__ ((tls_model ("initial-exec")));
OTF2_EvtWriter *kubus_evt;
int             kubus_flush_pending;
uint32_t        kubus_current_mpi = OTF2_UNDEFINED_REGION;
int             kubus_world_rank;
int             kubus_world_size;
MPI_Comm        kubus_internal_comm = MPI_COMM_NULL;
char            kubus_program_path[4096] = "program";
int             kubus_threads_join;
uint64_t        kubus_untraced_calls;
int             kubus_thread_level = -1;
int             kubus_user_seen;

static OTF2_Archive         *archive;
static int                   verbose;
static int                   started; /* the same on every rank: set after collective checks */
static int                   finished;
static char                  expdir[PATH_MAX];
static OTF2_MPI_UserData    *collectives; /* freed by OTF2 at close */
static volatile sig_atomic_t in_abort;
static char                  abort_reason[160]; /* why the run ends early (the initiator's) */
/* Peers on the same host are asked to save their trace (a real-time signal)
 * before MPI_Abort lets mpirun kill them within milliseconds. */
#define KUBUS_SAVE_SIGNAL (SIGRTMIN + 7)
static int     *peer_ids; /* world_size x { pid, tid }, pid 0 = do not signal */
static pid_t    main_tid;
static uint64_t flush_begin, flush_end;
/* When the library was loaded (before main): the program region starts here, so the time
 * before MPI_Init is part of the program, as in Score-P's ProgramBegin. */
static uint64_t program_begin;
static int      program_open; /* ProgramBegin written, ProgramEnd not yet */

__attribute__ ((constructor)) static void
note_program_begin (void)
{
  program_begin = kubus_monotonic_ns ();
}

void
kubus_log (const char *fmt, ...)
{
  if (!verbose)
    return;
  char    line[512];
  va_list ap;
  va_start (ap, fmt);
  int n = snprintf (line, sizeof line, "kubus[%d]: ", kubus_world_rank);
  vsnprintf (line + n, sizeof line - (size_t)n, fmt, ap);
  va_end (ap);
  size_t len = strlen (line);
  if (len < sizeof line - 1)
    line[len++] = '\n';
  ssize_t w = write (STDERR_FILENO, line, len);
  (void)w;
}

/* What went wrong with this rank's measurement, said whatever the verbosity and left for
 * kubus-run as a line of EXPDIR/.kubus-incomplete-RANK: kubus-run names the ranks whose
 * measurement is incomplete and fails instead of reporting a good run. */
void
kubus_incomplete (const char *fmt, ...)
{
  char    why[400];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (why, sizeof why, fmt, ap);
  va_end (ap);
  char line[512];
  int  n = snprintf (line, sizeof line, "kubus[%d]: %s\n", kubus_world_rank, why);
  ssize_t w = write (STDERR_FILENO, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1));
  (void)w;
  if (expdir[0] == '\0')
    return;
  char path[PATH_MAX + 64];
  snprintf (path, sizeof path, "%s/.kubus-incomplete-%d", expdir, kubus_world_rank);
  int fd = open (path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (fd >= 0)
    {
      n = snprintf (line, sizeof line, "%s\n", why);
      w = write (fd, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1));
      (void)w;
      close (fd);
    }
}

/* Any internal error: stop recording; the application carries on. */
void
kubus_fail (const char *what)
{
  if (kubus_recording)
    kubus_incomplete ("internal error in %s: tracing disabled for this rank", what);
  kubus_recording = 0;
}

static OTF2_ErrorCode
otf2_error_quiet (void          *user_data,
                  const char    *file,
                  uint64_t       line,
                  const char    *function,
                  OTF2_ErrorCode code,
                  const char    *msg_format,
                  va_list        va)
{
  (void)user_data;
  (void)file;
  (void)line;
  (void)function;
  if (verbose)
    {
      char msg[256];
      vsnprintf (msg, sizeof msg, msg_format, va);
      kubus_log ("OTF2: %s: %s", OTF2_Error_GetName (code), msg);
    }
  return code;
}

static void save_from_signal (int sig);
/* a save signal came while the event buffer was written out (collect-buffer.c) */
volatile sig_atomic_t kubus_save_deferred;
/* KUBUS_TEST_SAVE_IN_FLUSH=RANK (a test of the deferred save): that rank gets the save signal,
 * as when a peer aborts, while OTF2 flushes in the middle of writing the buffer out; once saved
 * it ends like a process mpirun kills */
static int test_save_in_flush = -1;

/* Flush callbacks.  OTF2 writes events only while the event buffer's records are written out
 * (collect-buffer.c), and its flushes are part of that: the buffer records the whole as region
 * KUBUS_FLUSH (kubus_note_flush), so these only say "flush". */

static OTF2_FlushType
pre_flush (void *user_data, OTF2_FileType type, OTF2_LocationRef location, void *caller, bool final)
{
  (void)user_data;
  (void)location;
  (void)caller;
  if (__builtin_expect (test_save_in_flush >= 0, 0) && type == OTF2_FILETYPE_EVENTS && !final
      && kubus_raw_draining () && test_save_in_flush == kubus_world_rank)
    syscall (SYS_tgkill, getpid (), main_tid, KUBUS_SAVE_SIGNAL);
  return OTF2_FLUSH;
}

static OTF2_TimeStamp
post_flush (void *user_data, OTF2_FileType type, OTF2_LocationRef location)
{
  (void)user_data;
  (void)type;
  (void)location;
  return kubus_raw_flush_time ();
}

static const OTF2_FlushCallbacks flush_callbacks = { pre_flush, post_flush };

/* The event buffer was full and written out from @b to @e, inside an event's append: the
 * next event site records it (kubus_record_flush), as the first thing of an MPI call's events
 * or before the events after the call (kubus_time_after_call). */
void
kubus_note_flush (uint64_t b, uint64_t e)
{
  flush_begin = b;
  flush_end = e;
  kubus_flush_pending = 1;
}

/* A save signal came while the event buffer was written out: the record whose append wrote it
 * out is in the buffer, the next append saves the trace (collect-buffer.c). */
void
kubus_save_deferred_run (void)
{
  kubus_save_deferred = 0;
  save_from_signal (KUBUS_SAVE_SIGNAL);
  if (test_save_in_flush == kubus_world_rank)
    kill (getpid (), SIGKILL);
}

void
kubus_record_flush (void)
{
  kubus_flush_pending = 0;
  kubus_stamp_fresh = 0; /* events after the flush need a later time */
  uint64_t b = flush_begin, e = flush_end;
  flush_begin = 0;
  if (!kubus_recording)
    return;
  kubus_log ("buffer flushed to disk (%.3f ms)", (double)(e - b) / 1e6);
  kubus_check (OTF2_EvtWriter_Enter (kubus_evt, NULL, b, KUBUS_R_FLUSH), "flush Enter");
  kubus_check (OTF2_EvtWriter_Leave (kubus_evt, NULL, e, KUBUS_R_FLUSH), "flush Leave");
  if (e > kubus_alive)
    kubus_alive = e;
  kubus_prof_flush (b, e);
}

/* Default experiment directory when not started by kubus-run:
 * kubus_<program>_<ranks>, with .1, .2 … appended rather than overwriting. */
static void
choose_expdir (void)
{
  const char *env = getenv ("KUBUS_EXPDIR");
  if (env != NULL && env[0] != '\0')
    {
      snprintf (expdir, sizeof expdir, "%s", env);
      return;
    }
  char    exe[PATH_MAX] = "program";
  ssize_t n = readlink ("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0)
    exe[n] = '\0';
  const char *base = strrchr (exe, '/');
  base = base ? base + 1 : exe;
  char name[PATH_MAX - 16];
  snprintf (name, sizeof name, "kubus_%.*s_%d", (int)kubus_text_cut (base, 200), base,
            kubus_world_size);
  if (kubus_world_rank == 0)
    {
      snprintf (expdir, sizeof expdir, "%s", name);
      for (int i = 1; access (expdir, F_OK) == 0 && i < 1000; i++)
        snprintf (expdir, sizeof expdir, "%s.%d", name, i);
    }
  PMPI_Bcast (expdir, sizeof expdir, MPI_CHAR, 0, MPI_COMM_WORLD);
}

/* A hand-over file EXPDIR/NAME for kubus-run, written to a temporary name first (kubus-run
 * never reads half a file): open it, fill it, then handover_close(). NULL if it cannot be made. */
typedef struct
{
  char path[PATH_MAX + 32], tmp[PATH_MAX + 48];
} Handover;

static FILE *
handover_open (Handover   *h,
               const char *name)
{
  snprintf (h->path, sizeof h->path, "%s/%s", expdir, name);
  snprintf (h->tmp, sizeof h->tmp, "%s/%s.%d", expdir, name, kubus_world_rank);
  return fopen (h->tmp, "w");
}

static void
handover_close (Handover *h,
                FILE     *f)
{
  if (fclose (f) == 0)
    rename (h->tmp, h->path);
  else
    unlink (h->tmp);
}

/* The distinct host names, for kubus-run's kubus.json. */
static void
write_hosts (void)
{
  Handover h;
  FILE *f = handover_open (&h, ".kubus-hosts");
  if (f == NULL)
    return;
  for (int r = 0; r < kubus_world_size; r++)
    {
      const char *kh = kubus_hostnames + (size_t)r * KUBUS_HOST_LEN;
      int         q;
      for (q = 0; q < r; q++)
        if (strcmp (kh, kubus_hostnames + (size_t)q * KUBUS_HOST_LEN) == 0)
          break;
      if (q == r)
        fprintf (f, "%s\n", kh);
    }
  handover_close (&h, f);
}

/* How the clock was handled, for kubus-run's kubus.json. */
static void
write_clock_file (void)
{
  Handover h;
  FILE *f = handover_open (&h, ".kubus-clock");
  if (f == NULL)
    return;
  kubus_clock_describe (f);
  handover_close (&h, f);
}

/* ---- other threads (docs/decisions/2026-11-29-threads.md) ---------------------------------- */

/* untraced calls of other threads per world rank (rank 0, after the gather at MPI_Finalize) */
static uint64_t *untraced_of_rank;

int
kubus_other_thread_call (void)
{
  /* MPI_THREAD_SERIALIZED or less: this call cannot overlap another one, so it goes into the
   * rank's event stream (collect-unwind.c switches the open frames to this thread's stack).
   * Not while user regions are recorded: the main thread writes their events outside MPI
   * calls, concurrently with this one. */
  if (kubus_threads_join && !kubus_user_seen && !in_abort && !finished)
    {
      kubus_unwind_foreign ();
      return 1;
    }
  if (kubus_recording)
    __atomic_fetch_add (&kubus_untraced_calls, 1, __ATOMIC_RELAXED);
  return 0;
}

/* MPI_Finalize, collective: rank 0 learns every rank's count and leaves EXPDIR/.kubus-threads
 * ("RANK COUNT" lines, ranks with calls only) for kubus-run */
static void
gather_untraced (void)
{
  /* one reduction in the common case (no calls on other threads): the total, and whether rank
   * 0 lacks the memory for the gather */
  uint64_t  mine = __atomic_load_n (&kubus_untraced_calls, __ATOMIC_RELAXED);
  uint64_t *all = NULL;
  if (kubus_world_rank == 0)
    all = calloc ((size_t)kubus_world_size, sizeof *all);
  uint64_t in[2] = { mine, kubus_world_rank == 0 && all == NULL }, sum[2] = { 0, 1 };
  PMPI_Allreduce (in, sum, 2, MPI_UINT64_T, MPI_SUM, kubus_internal_comm);
  if (sum[0] == 0 || sum[1] != 0)
    {
      free (all);
      return;
    }
  PMPI_Gather (&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, kubus_internal_comm);
  if (all == NULL)
    return;
  untraced_of_rank = all;
  Handover h;
  FILE *f = handover_open (&h, ".kubus-threads");
  if (f == NULL)
    return;
  static const char *levels[] = { "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                  "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE" };
  int l = kubus_thread_level == MPI_THREAD_SINGLE       ? 0
          : kubus_thread_level == MPI_THREAD_FUNNELED   ? 1
          : kubus_thread_level == MPI_THREAD_SERIALIZED ? 2
                                                        : 3;
  fprintf (f, "level %s\n", levels[l]);
  for (int r = 0; r < kubus_world_size; r++)
    if (all[r] != 0)
      fprintf (f, "%d %llu\n", r, (unsigned long long)all[r]);
  handover_close (&h, f);
}

/* KUBUS::UNTRACED_THREAD_CALLS: "RANK:COUNT,RANK:COUNT" (ranks with calls only) */
void
kubus_threads_properties (OTF2_Archive *a)
{
  if (untraced_of_rank == NULL)
    return;
  size_t cap = (size_t)kubus_world_size * 32 + 1, o = 0;
  char  *v = malloc (cap);
  if (v == NULL)
    return;
  v[0] = '\0';
  for (int r = 0; r < kubus_world_size; r++)
    if (untraced_of_rank[r] != 0)
      o += (size_t)snprintf (v + o, cap - o, "%s%d:%llu", o ? "," : "", r,
                             (unsigned long long)untraced_of_rank[r]);
  OTF2_Archive_SetProperty (a, "KUBUS::UNTRACED_THREAD_CALLS", v, true);
  free (v);
}

static void save_from_signal (int sig);

/* Returns 1 when the save signal is ours to use. */
static int
install_save_handler (void)
{
  struct sigaction old;
  if (sigaction (KUBUS_SAVE_SIGNAL, NULL, &old) != 0 || old.sa_handler != SIG_DFL
      || (old.sa_flags & SA_SIGINFO))
    return 0;
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = save_from_signal;
  sa.sa_flags = SA_RESTART;
  sigemptyset (&sa.sa_mask);
  sigaddset (&sa.sa_mask, SIGTERM);
  return sigaction (KUBUS_SAVE_SIGNAL, &sa, NULL) == 0;
}

static const int fatal_signals[] = { SIGSEGV, SIGABRT, SIGTERM, SIGBUS, SIGFPE };
#define N_FATAL (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction previous[N_FATAL];

static void abort_from_signal (int sig, siginfo_t *info, void *ctx);

/* Our handlers go first and then hand over to whatever was installed
 * before (Open MPI's backtrace printer, AddressSanitizer, the program's
 * own), so the program's behaviour on a fatal signal stays its own. */
static void
install_signal_handlers (void)
{
  for (size_t i = 0; i < N_FATAL; i++)
    {
      if (sigaction (fatal_signals[i], NULL, &previous[i]) != 0
          || previous[i].sa_handler == SIG_IGN)
        continue;
      /* mpirun may send SIGTERM more than once: keep all of them blocked
       * while the handler writes, so a second one cannot cut it short. */
      struct sigaction sa;
      memset (&sa, 0, sizeof sa);
      sa.sa_sigaction = abort_from_signal;
      sa.sa_flags = SA_SIGINFO;
      sigemptyset (&sa.sa_mask);
      for (size_t k = 0; k < N_FATAL; k++)
        sigaddset (&sa.sa_mask, fatal_signals[k]);
      sigaction (fatal_signals[i], &sa, NULL);
    }
}

static void
chain_signal (int sig, siginfo_t *info, void *ctx)
{
  for (size_t i = 0; i < N_FATAL; i++)
    if (fatal_signals[i] == sig)
      {
        struct sigaction old = previous[i];
        sigaction (sig, &old, NULL);
        if (old.sa_flags & SA_SIGINFO)
          old.sa_sigaction (sig, info, ctx);
        else if (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN)
          old.sa_handler (sig);
        else
          raise (sig); /* delivered with the default action on return */
        return;
      }
}

static void write_after_abort (uint32_t open_region, int initiator, int64_t status);

/* The last events of a location: Leave of the program region, ProgramEnd.  The program's
 * exit status is unknown here (OTF2_UNDEFINED_INT64, as Score-P writes it) except after
 * MPI_Abort, which names its error code. */
static void
close_program (uint64_t t, int64_t status)
{
  if (!program_open || (kubus_evt == NULL && !kubus_kct_on))
    return;
  program_open = 0;
  kubus_check (OTF2_EvtWriter_Leave (kubus_evt, NULL, t, KUBUS_R_PROGRAM), "Leave");
  kubus_check (OTF2_EvtWriter_ProgramEnd (kubus_evt, NULL, t, status), "ProgramEnd");
}

/* exit() without MPI_Finalize (an error path in the program): save like an
 * abort, so the trace is readable up to that point. */
static void
save_at_exit (void)
{
  if (!finished && !in_abort && kubus_main_thread)
    {
      in_abort = 1;
      snprintf (abort_reason, sizeof abort_reason, "rank %d exited without MPI_Finalize",
                kubus_world_rank);
      write_after_abort (kubus_current_mpi, 1, OTF2_UNDEFINED_INT64);
    }
}

static int open_trace (void);

void
kubus_measurement_start (uint64_t t0, uint32_t init_region)
{
  const char *v = getenv ("KUBUS_VERBOSE");
  verbose = v != NULL && v[0] != '\0' && strcmp (v, "0") != 0;
  if (getenv ("KUBUS_DISABLE") != NULL)
    return;
  /* Processes started by MPI_Comm_spawn inherit kubus-run's environment but are an
   * MPI_COMM_WORLD of their own: measured, their rank 0 would write its archive over the
   * parents' experiment (both traces lost).  They are left unmeasured; the parents' calls,
   * MPI_Comm_spawn and the traffic over the inter-communicator included, are measured. */
  MPI_Comm parent = MPI_COMM_NULL;
  if (PMPI_Comm_get_parent (&parent) == MPI_SUCCESS && parent != MPI_COMM_NULL)
    {
      int r = 0;
      PMPI_Comm_rank (MPI_COMM_WORLD, &r);
      if (r == 0)
        {
          static const char note[] = "kubus: processes started by MPI_Comm_spawn are not measured "
                                     "(only those mpirun started are)\n";
          ssize_t w = write (STDERR_FILENO, note, sizeof note - 1);
          (void)w;
        }
      return;
    }
  kubus_kct_configure ();
  kubus_unwind_configure ();
  PMPI_Comm_rank (MPI_COMM_WORLD, &kubus_world_rank);
  PMPI_Comm_size (MPI_COMM_WORLD, &kubus_world_size);
  if (PMPI_Comm_dup (MPI_COMM_WORLD, &kubus_internal_comm) != MPI_SUCCESS)
    return;

  choose_expdir ();
  if (kubus_world_rank == 0)
    mkdir (expdir, 0777);

  /* Host names: known to every rank so that whoever writes the global
   * definitions (rank 0, or the aborting rank) can build the system tree. */
  kubus_hostnames = calloc ((size_t)kubus_world_size, KUBUS_HOST_LEN);
  char host[KUBUS_HOST_LEN] = "localhost";
  gethostname (host, sizeof host - 1);
  host[kubus_text_cut (host, sizeof host - 1)] = '\0'; /* a long name loses whole characters */
  int ok = kubus_hostnames != NULL;
  int all_ok = 0;
  PMPI_Allreduce (&ok, &all_ok, 1, MPI_INT, MPI_LAND, kubus_internal_comm);
  if (!all_ok)
    return;
  PMPI_Allgather (host, KUBUS_HOST_LEN, MPI_CHAR, kubus_hostnames, KUBUS_HOST_LEN, MPI_CHAR,
                  kubus_internal_comm);
  main_tid = (pid_t)syscall (SYS_gettid);
  int ids[2] = { install_save_handler () ? (int)getpid () : 0, (int)main_tid };
  peer_ids = calloc ((size_t)kubus_world_size * 2, sizeof *peer_ids);
  if (peer_ids != NULL)
    PMPI_Allgather (ids, 2, MPI_INT, peer_ids, 2, MPI_INT, kubus_internal_comm);
  else
    PMPI_Allgather (ids, 2, MPI_INT, NULL, 0, MPI_INT, kubus_internal_comm);

  if (kubus_world_rank == 0)
    write_hosts ();
  /* one time base per host, offsets between hosts (collective) */
  if (kubus_clock_setup () != 0)
    {
      kubus_incomplete ("cannot find the ranks of this host: tracing disabled");
      return;
    }
  /* the program region starts when the library was loaded; a library loaded late (dlopen
   * without a constructor run before MPI_Init) starts it at MPI_Init */
  uint64_t begin = program_begin != 0 && program_begin <= t0 ? program_begin : t0;
  char     exe[sizeof kubus_program_path];
  ssize_t  n_exe = readlink ("/proc/self/exe", exe, sizeof exe - 1);
  if (n_exe > 0)
    {
      exe[n_exe] = '\0';
      memcpy (kubus_program_path, exe, (size_t)n_exe + 1);
    }
  /* the writer of an abort trace knows when the others started (as readers will see it) */
  uint64_t begin_seen = kubus_clock_correct (begin);
  PMPI_Allreduce (&begin_seen, &kubus_clock.global_start, 1, MPI_UINT64_T, MPI_MIN,
                  kubus_internal_comm);

  /* kubus-run --no-trace: the profile alone */
  int trace = kubus_trace_wanted ();
  if (!trace && !kubus_prof_wanted ())
    return;
  /* --trace-format=compressed: no OTF2 archive, only traces.kct (collect-kct.c) */
  if (trace && kubus_trace_otf2 && open_trace () != 0)
    return;

  /* CPU time samples where ranks outnumber cores (collective) */
  kubus_cpu_setup (t0, trace);
  kubus_comm_init ();
  kubus_user_init ();
  kubus_clock.start_time = begin;

  if (trace)
    kubus_kct_start ();
  /* other threads' calls join the event stream where they cannot overlap */
  int provided = MPI_THREAD_SINGLE;
  PMPI_Query_thread (&provided);
  kubus_thread_level = provided;
  kubus_threads_join = provided != MPI_THREAD_MULTIPLE;
  kubus_main_thread = 1;
  kubus_recording = trace;
  started = 1;
  install_signal_handlers ();
  atexit (save_at_exit);
  /* Every location's trace: ProgramBegin and the program region at load time, the user
   * frames opened before MPI_Init (an instrumented main) beneath it, then MPI_Init. */
  if (trace)
    {
      kubus_check (OTF2_EvtWriter_ProgramBegin (kubus_evt, NULL, begin, KUBUS_S_PROGRAM, 0, NULL),
                   "ProgramBegin");
      kubus_check (OTF2_EvtWriter_Enter (kubus_evt, NULL, begin, KUBUS_R_PROGRAM), "Enter");
    }
  program_open = kubus_recording;
  const char *test_save = getenv ("KUBUS_TEST_SAVE_IN_FLUSH");
  if (test_save != NULL && test_save[0] != '\0')
    test_save_in_flush = atoi (test_save);
  /* KUBUS_TEST_FAIL=RANK: that rank's collector fails here as on an internal error (the tests of
   * what kubus-run says then) */
  const char *test_fail = getenv ("KUBUS_TEST_FAIL");
  if (trace && test_fail != NULL && test_fail[0] != '\0' && atoi (test_fail) == kubus_world_rank)
    kubus_fail ("a test (KUBUS_TEST_FAIL)");
  kubus_prof_begin (begin);
  kubus_user_open_frames (begin, t0);
  kubus_alive = t0;
  if (kubus_unwind_on)
    kubus_unwind_update (kubus_prof_site_hint, t0);
  if (trace)
    kubus_check (OTF2_EvtWriter_Enter (kubus_evt, NULL, t0, init_region), "Enter");
  if (kubus_profiling)
    kubus_prof_enter (init_region, kubus_prof_site_hint, t0);
  kubus_ev_leave (init_region);
  kubus_log (!trace ? "profiling to %s/profile.cube"
             : kubus_trace_otf2 ? "tracing to %s/traces.otf2" : "tracing to %s/traces.kct", expdir);
}

/* The OTF2 archive EXPDIR/traces.otf2 and this rank's event writer (collective: every rank
 * calls it).  Returns 0, or -1 when some rank cannot write its trace. */
static int
open_trace (void)
{
  int ok, all_ok = 0;
  OTF2_Error_RegisterCallback (otf2_error_quiet, NULL);
  uint64_t    chunk = OTF2_CHUNK_SIZE_EVENTS_DEFAULT;
  const char *buf_spec = getenv ("KUBUS_BUFFER");
  /* The chunk size must be known before opening; compute it from the spec. */
  kubus_buffer_setup (NULL, buf_spec, &chunk);
  /* Same as OTF2_MPI_Archive_SetCollectiveCallbacks, but with the user
   * data in our hands so that the abort path can make them local.  Every
   * rank takes part (the context duplicates MPI_COMM_WORLD). */
  collectives = calloc (1, sizeof *collectives);
  if (collectives != NULL)
    otf2_mpi_get_collectives (&collectives->callbacks);
  OTF2_CollectiveContext *context = otf2_mpi_create_context (MPI_COMM_WORLD, true);
  if (collectives != NULL)
    collectives->global = context;
  archive = OTF2_Archive_Open (expdir, "traces", OTF2_FILEMODE_WRITE, chunk,
                               OTF2_CHUNK_SIZE_MIN, /* small: written fast on abort */
                               OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  ok = archive != NULL;
  if (ok)
    {
      ok = OTF2_Archive_SetFlushCallbacks (archive, &flush_callbacks, NULL) == OTF2_SUCCESS;
      ok = ok && kubus_buffer_setup (archive, buf_spec, &chunk) == 0;
      ok = ok && collectives != NULL && collectives->global != NULL
           && OTF2_Archive_SetCollectiveCallbacks (archive, &collectives->callbacks, collectives,
                                                   collectives->global, NULL)
                  == OTF2_SUCCESS;
      ok = ok && OTF2_Archive_SetCreator (archive, "Kubus " KUBUS_VERSION) == OTF2_SUCCESS;
    }
  PMPI_Allreduce (&ok, &all_ok, 1, MPI_INT, MPI_LAND, kubus_internal_comm);
  if (!all_ok)
    {
      kubus_incomplete ("cannot create the trace archive in %s", expdir);
      return -1;
    }
  ok = OTF2_Archive_OpenEvtFiles (archive) == OTF2_SUCCESS;
  kubus_evt = ok ? OTF2_Archive_GetEvtWriter (archive, (OTF2_LocationRef)kubus_world_rank) : NULL;
  ok = kubus_evt != NULL;
  PMPI_Allreduce (&ok, &all_ok, 1, MPI_INT, MPI_LAND, kubus_internal_comm);
  if (!all_ok)
    {
      kubus_incomplete ("cannot open the event files in %s", expdir);
      return -1;
    }
  return 0;
}

/* MPI_Finalize.  The call is recorded as Enter, a barrier over all ranks, Leave: the time a
 * rank waits in MPI_Finalize for the last one to arrive is then inside its MPI_Finalize
 * region, where the analyzer's Wait at Finalize finds it (PATTERNS.md).  Only after the leave
 * come the second clock offset measurement, the unification of the definitions and the final
 * flush, which cost the same on every rank and are no wait.  Every rank takes part in these
 * collective steps even when its own recording failed or MPI_Finalize is called from a thread
 * that does not record; unification tolerates ranks that lost events. */
void
kubus_measurement_finish (uint32_t finalize_region)
{
  static int in_finalize;
  if (!started || finished || in_finalize)
    return;
  in_finalize = 1;
  int record = KUBUS_ON ();
  if (record)
    kubus_ev_enter (finalize_region, kubus_prof_site_hint);
  /* Until everybody has arrived the rank can still be killed because another one aborted
   * or crashed: `finished` stays clear so that the signal handlers save the trace. */
  PMPI_Barrier (kubus_internal_comm);
  uint64_t t = kubus_now ();
  if (finished)
    return; /* saved by an abort meanwhile */
  finished = 1;
  kubus_cpu_finish ();
  gather_untraced ();
  if (record && kubus_recording)
    {
      if (kubus_flush_pending)
        kubus_record_flush ();
      kubus_current_mpi = OTF2_UNDEFINED_REGION;
      kubus_check (OTF2_EvtWriter_Leave (kubus_evt, NULL, t, finalize_region), "Leave");
      kubus_user_close_frames (t);
      close_program (t, OTF2_UNDEFINED_INT64);
    }
  if (record)
    kubus_prof_close (t);
  kubus_clock.end_time = t;
  kubus_recording = 0;
  kubus_unwind_report ();
  kubus_clock_finish ();
  /* the time base of the trace, OTF2 or compressed (kubus.json "clock") */
  if (kubus_world_rank == 0 && kubus_trace_wanted ())
    write_clock_file ();
  if (archive != NULL)
    {
      kubus_buffer_log_pages ();
      if (kubus_unify_and_write (archive) != 0)
        kubus_incomplete ("writing the definitions failed; the trace may be incomplete");
      kubus_log ("trace written to %s", expdir);
    }
  kubus_kct_finish ();
  kubus_prof_finish (expdir, kubus_internal_comm);
}

/* The collective callbacks after an abort: nobody else will answer, so they
 * only act locally.  The rank that wins the lock file plays rank 0. */
static void
local_release (void *u, OTF2_CollectiveContext *g, OTF2_CollectiveContext *l)
{
  (void)u;
  (void)g;
  (void)l; /* freeing the MPI communicator would need the other ranks */
}

static OTF2_CallbackCode
local_barrier (void *u, OTF2_CollectiveContext *c)
{
  (void)u;
  (void)c;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
local_bcast (
    void *u, OTF2_CollectiveContext *c, void *data, uint32_t n, OTF2_Type type, uint32_t root)
{
  (void)u;
  (void)c;
  (void)data;
  (void)n;
  (void)type;
  (void)root;
  return OTF2_CALLBACK_SUCCESS;
}

static size_t
otf2_type_size (OTF2_Type type)
{
  int size = 1;
  PMPI_Type_size (otf2_mpi_get_type (type), &size);
  return (size_t)size;
}

static OTF2_CallbackCode
local_gather (void                   *u,
              OTF2_CollectiveContext *c,
              const void             *in,
              void                   *out,
              uint32_t                n,
              OTF2_Type               type,
              uint32_t                root)
{
  (void)u;
  (void)root;
  if (c->rank == 0 && out != NULL && in != NULL)
    memcpy (out, in, (size_t)n * otf2_type_size (type));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
local_gatherv (void                   *u,
               OTF2_CollectiveContext *c,
               const void             *in,
               uint32_t                n,
               void                   *out,
               const uint32_t         *counts,
               OTF2_Type               type,
               uint32_t                root)
{
  (void)counts;
  return local_gather (u, c, in, out, n, type, root);
}

static OTF2_CallbackCode
local_scatter (void                   *u,
               OTF2_CollectiveContext *c,
               const void             *in,
               void                   *out,
               uint32_t                n,
               OTF2_Type               type,
               uint32_t                root)
{
  (void)u;
  (void)root;
  if (c->rank == 0 && out != NULL && in != NULL)
    memcpy (out, in, (size_t)n * otf2_type_size (type));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
local_scatterv (void                   *u,
                OTF2_CollectiveContext *c,
                const void             *in,
                const uint32_t         *counts,
                void                   *out,
                uint32_t                n,
                OTF2_Type               type,
                uint32_t                root)
{
  (void)counts;
  return local_scatter (u, c, in, out, n, type, root);
}

/* The lock on writing the global definitions after an abort: EXPDIR/.kubus-abort-definitions
 * holds the rank that took it, followed by " stopped" where that rank did not fail itself but
 * was stopped (mpirun's SIGTERM: the failing rank ended without a word, as an MPI library ends a
 * rank on MPI_ERRORS_ARE_FATAL). kubus-sim reads it (sim-incomplete.c). */
static int
win_global_lock (int initiator)
{
  char path[PATH_MAX + 32];
  snprintf (path, sizeof path, "%s/.kubus-abort-definitions", expdir);
  int fd = open (path, O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0)
    return 0;
  char    line[32];
  int     n = snprintf (line, sizeof line, initiator ? "%d\n" : "%d stopped\n", kubus_world_rank);
  ssize_t w = write (fd, line, (size_t)n);
  (void)w;
  close (fd);
  return 1;
}

static int
same_host (int r)
{
  return strcmp (kubus_hostnames + (size_t)r * KUBUS_HOST_LEN,
                 kubus_hostnames + (size_t)kubus_world_rank * KUBUS_HOST_LEN)
         == 0;
}

static void
saved_marker_path (char *path, size_t len, int r)
{
  snprintf (path, len, "%s/.kubus-saved-%d", expdir, r);
}

static void
mark_saved (void)
{
  char path[PATH_MAX + 32];
  saved_marker_path (path, sizeof path, kubus_world_rank);
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0)
    close (fd);
}

/* A peer process has ended: gone, or a zombie its parent has not reaped yet (an MPI library
 * that aborts on an error ends its rank at once, and the launcher reaps it only later). */
static int
peer_gone (pid_t pid)
{
  char path[64], buf[256];
  if (kill (pid, 0) != 0 && errno == ESRCH)
    return 1;
  snprintf (path, sizeof path, "/proc/%d/stat", (int)pid);
  int fd = open (path, O_RDONLY);
  if (fd < 0)
    return 0;
  ssize_t n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return 0;
  buf[n] = '\0';
  /* "PID (COMM) STATE ...": COMM may hold anything, the state follows its last ')' */
  const char *paren = strrchr (buf, ')');
  return paren != NULL && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

/* The initiator asks its peers on this host to save their traces now. */
static void
notify_peers (void)
{
  if (peer_ids == NULL)
    return;
  for (int r = 0; r < kubus_world_size; r++)
    if (r != kubus_world_rank && peer_ids[2 * r] != 0 && same_host (r))
      syscall (SYS_tgkill, peer_ids[2 * r], peer_ids[2 * r + 1], KUBUS_SAVE_SIGNAL);
}

/* … and waits (at most 5 s) until each has saved or is gone. */
static void
wait_for_peers (void)
{
  if (peer_ids == NULL)
    return;
  for (int waited_ms = 0; waited_ms < 5000; waited_ms++)
    {
      int pending = 0;
      for (int r = 0; r < kubus_world_size && !pending; r++)
        {
          if (r == kubus_world_rank || peer_ids[2 * r] == 0 || !same_host (r))
            continue;
          char path[PATH_MAX + 32];
          saved_marker_path (path, sizeof path, r);
          if (access (path, F_OK) != 0 && !peer_gone (peer_ids[2 * r]))
            pending = 1;
        }
      if (!pending)
        return;
      struct timespec ms = { 0, 1000000 };
      nanosleep (&ms, NULL);
    }
  kubus_log ("abort: some ranks did not save their trace in time");
}

/* After an abort the rank writing the global definitions cannot ask the others for their last
 * event: every rank that saves leaves its first and last event time (as readers see them) in
 * .kubus-span-RANK, and the writer waits (at most 5 s, together) for those of the ranks on this
 * machine that it asked to save or that are still alive.  A rank it cannot hear from (another
 * machine, or gone without a word) may still write events after the definitions: the window
 * then reaches ABORT_MARGIN past the last known event — OTF2 needs the trace length to hold
 * every event, not to be tight. */
#define ABORT_MARGIN 300000000000ull /* 300 s */

void
kubus_abort_span_write (uint64_t first, uint64_t last)
{
  char path[PATH_MAX + 32], tmp[PATH_MAX + 48];
  snprintf (path, sizeof path, "%s/.kubus-span-%d", expdir, kubus_world_rank);
  snprintf (tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen (tmp, "w");
  if (f == NULL)
    return;
  /* then the two ClockOffset records, for kubus-run's stand-in definitions of a rank killed
   * before it wrote its own */
  fprintf (f, "%llu %llu %llu %lld %llu %lld\n", (unsigned long long)first,
           (unsigned long long)last, (unsigned long long)kubus_clock.time_begin,
           (long long)kubus_clock.offset_begin, (unsigned long long)kubus_clock.time_end,
           (long long)kubus_clock.offset_end);
  if (fclose (f) == 0)
    rename (tmp, path);
  else
    unlink (tmp);
}

static int
read_span (int r, uint64_t *first, uint64_t *last)
{
  char path[PATH_MAX + 32];
  snprintf (path, sizeof path, "%s/.kubus-span-%d", expdir, r);
  FILE *f = fopen (path, "r");
  if (f == NULL)
    return 0;
  unsigned long long a, b;
  int ok = fscanf (f, "%llu %llu", &a, &b) == 2;
  fclose (f);
  if (ok)
    {
      *first = a;
      *last = b;
    }
  return ok;
}

static int same_host (int r);

void
kubus_abort_span_gather (uint64_t *first, uint64_t *last)
{
  int n = kubus_world_size;
  char *known = calloc ((size_t)n, 1);
  if (known == NULL)
    {
      *last += ABORT_MARGIN;
      return;
    }
  known[kubus_world_rank] = 1;
  for (int waited_ms = 0;; waited_ms++)
    {
      int pending = 0;
      for (int r = 0; r < n; r++)
        {
          uint64_t a, b;
          if (known[r])
            continue;
          if (read_span (r, &a, &b))
            {
              known[r] = 1;
              *first = a < *first ? a : *first;
              *last = b > *last ? b : *last;
            }
          else if (peer_ids != NULL && peer_ids[2 * r] != 0 && same_host (r)
                   && !peer_gone (peer_ids[2 * r]))
            pending = 1;
        }
      if (!pending || waited_ms >= 5000)
        break;
      struct timespec ms = { 0, 1000000 };
      nanosleep (&ms, NULL);
    }
  for (int r = 0; r < n; r++)
    if (!known[r])
      {
        kubus_log ("abort: rank %d's last event is unknown; the trace length has a margin", r);
        *last += ABORT_MARGIN;
        break;
      }
  free (known);
}

/* Shared by MPI_Abort and the signal handlers: write what this rank has
 * without collective operations.  The initiator (the rank that aborts or
 * crashes) takes the global definitions and asks its peers to save. */
static void
write_after_abort (uint32_t open_region, int initiator, int64_t status)
{
  int traced = archive != NULL && kubus_evt != NULL && collectives != NULL;
  int kct = kubus_kct_on;
  if (finished || (!traced && !kct && !kubus_prof_started ()))
    return;
  finished = 1;
  int global = traced && win_global_lock (initiator);
  if (initiator)
    notify_peers ();
  int was = kubus_recording;
  kubus_recording = 0;
  uint64_t t = kubus_now ();
  kubus_prof_close (t);
  if (!traced && !kct)
    goto profile;
  if (was)
    {
      if (open_region != OTF2_UNDEFINED_REGION)
        OTF2_EvtWriter_Leave (kubus_evt, NULL, t, open_region);
      kubus_recording = 1;
      kubus_user_close_frames (t);
      close_program (t, status);
      kubus_recording = 0;
    }
  kubus_clock.end_time = t;
  kubus_clock_stop_after_abort (t);
  /* the compressed trace: this rank's part, merged by kubus-run after the run */
  if (kct)
    kubus_kct_save_alone (expdir, initiator);
  if (!traced)
    goto profile;
  if (global)
    write_clock_file ();

  collectives->callbacks.otf2_release = local_release;
  collectives->callbacks.otf2_barrier = local_barrier;
  collectives->callbacks.otf2_bcast = local_bcast;
  collectives->callbacks.otf2_gather = local_gather;
  collectives->callbacks.otf2_gatherv = local_gatherv;
  collectives->callbacks.otf2_scatter = local_scatter;
  collectives->callbacks.otf2_scatterv = local_scatterv;
  collectives->global->rank = global ? 0 : (kubus_world_rank == 0 ? 1 : kubus_world_rank);
  if (kubus_write_local_only (archive, global) == 1)
    return; /* test hook: "killed" before saving its definitions */
  kubus_log ("abort: trace written to %s%s", expdir, global ? " (with global definitions)" : "");
profile:
  /* the profile: this rank's record now, the report from what the peers saved once they
   * are done (kubus-run merges again after the run, when every rank has ended) */
  kubus_prof_save (expdir, initiator ? abort_reason : NULL);
  mark_saved ();
  if (initiator)
    {
      wait_for_peers ();
      kubus_prof_merge_saved (expdir);
    }
}

void
kubus_measurement_abort (uint32_t abort_region, int errorcode)
{
  in_abort = 1;
  snprintf (abort_reason, sizeof abort_reason, "rank %d called MPI_Abort (error code %d)",
            kubus_world_rank, errorcode);
  write_after_abort (abort_region, 1, errorcode);
}

static int
on_main_thread (void)
{
  return (pid_t)syscall (SYS_gettid) == main_tid;
}

/* Fatal signals.  Not async-signal-safe (OTF2 allocates): a best effort
 * that runs once, after which the previous handler or the default action
 * follows.  SIGTERM comes from mpirun killing the job (somebody else
 * failed); the others mean this rank failed, so it asks its peers to save
 * as well. */
static void
abort_from_signal (int sig, siginfo_t *info, void *ctx)
{
  if (sig == SIGTERM && !on_main_thread () && main_tid > 0 && !in_abort)
    {
      /* process-directed: let the thread that owns the trace save it */
      syscall (SYS_tgkill, getpid (), main_tid, sig);
      return;
    }
  if (!in_abort && on_main_thread ())
    {
      in_abort = 1;
      snprintf (abort_reason, sizeof abort_reason, "rank %d ended by signal %d (%s)",
                kubus_world_rank, sig, sig == SIGTERM ? "terminated" : "crashed");
      /* a crash (not mpirun's SIGTERM, which may come at any moment, also inside the dynamic
       * loader the unwinder needs): the frames it happened in, outside any MPI call */
      if (sig != SIGTERM && kubus_unwind_on && kubus_recording
          && kubus_current_mpi == OTF2_UNDEFINED_REGION)
        kubus_unwind_at_signal (kubus_now ());
      write_after_abort (kubus_current_mpi, sig != SIGTERM, OTF2_UNDEFINED_INT64);
    }
  chain_signal (sig, info, ctx);
}

/* Another rank on this host aborts: save now, keep running (mpirun will
 * end this process shortly; its SIGTERM then finds the work done). */
static void
save_from_signal (int sig)
{
  if (!on_main_thread ())
    {
      syscall (SYS_tgkill, getpid (), main_tid, sig);
      return;
    }
  /* the event buffer is being written to OTF2 (a flush): writing into the same writer from
   * here would cut a record in two; the first append after the flush saves the trace
   * (kubus_raw_more) */
  if (kubus_raw_draining () && !finished)
    {
      kubus_save_deferred = 1;
      return;
    }
  int was = in_abort;
  in_abort = 1;
  if (!was)
    write_after_abort (kubus_current_mpi, 0, OTF2_UNDEFINED_INT64);
  else
    mark_saved ();
}

KUBUS_INTERNAL const char *
kubus_expdir (void)
{
  return expdir;
}

/* Keep the helpers of OTF2_MPI_Collectives.h that we do not call quiet. */
static void __attribute__ ((unused)) kubus_unused_otf2_helpers (void)
{
  (void)OTF2_MPI_Archive_SetCollectiveCallbacks;
}
