/* analyze-mode.c — the choice between the in-process analysis and the parallel MPI replay
 * (analyze-mode.h, docs/decisions/2026-11-28-analysis-mode.md).
 *
 * The model (coarse on purpose; bench/core/mode-bench.py measures the choice it makes):
 *  - memory in one process: the compact records take about the size of the event files they
 *    come from (bench/core/RESULTS.md: 0.91 for ws-flood), the replay's exchange buffers and
 *    the OTF2 readers' chunks add to that while they live: MEM_PER_EVENT_BYTE times the event
 *    files, plus per pair of ranks the transport's buffer tables and the clock repair's global
 *    figures (they grow with ranks², which matters from thousands of ranks on), plus a constant;
 *  - time: a launch costs LAUNCH_S plus LAUNCH_PER_PROCESS_S per process before any work, the
 *    work is about SECONDS_PER_EVENT_BYTE per byte of events on one core and divides over
 *    cores.  On one machine the parallel replay cannot use more cores than the threads of the
 *    in-process analysis do, so it only pays where an allocation has more cores than this one,
 *    or where one process would not have the memory. */
#include "analyze-mode.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <libintl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEM_PER_EVENT_BYTE    1.6
#define MEM_PER_RANK_PAIR     160.0
#define MEM_PER_RANK          (96.0 * 1024)
#define MEM_BASE              (24.0 * 1024 * 1024)
#define DEFAULT_BUDGET_SHARE  0.5

#define LAUNCH_S              0.35
#define LAUNCH_PER_PROCESS_S  0.02
#define SECONDS_PER_EVENT_BYTE 5e-9
/* below this much event data one thread is as fast as several (the phases' hand-offs cost
 * more than the work they split) */
#define THREADS_MIN_BYTES     (4u * 1024 * 1024)
/* parallel replay only when it is expected this much faster */
#define PARALLEL_GAIN         1.1

/* ---- the machine ------------------------------------------------------------------------ */

static gboolean
read_u64_file (const char *path,
               guint64    *out)
{
  g_autofree char *text = NULL;
  char *end = NULL;
  guint64 v;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  g_strstrip (text);
  if (strcmp (text, "max") == 0 || !g_ascii_isdigit (text[0]))
    return FALSE;
  v = g_ascii_strtoull (text, &end, 10);
  if (end == text)
    return FALSE;
  *out = v;
  return TRUE;
}

/* The cgroup v2 folders of this process, innermost first (limits of every ancestor apply). */
static GPtrArray *
cgroup2_dirs (void)
{
  GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;

  if (!g_file_get_contents ("/proc/self/cgroup", &text, NULL, NULL))
    return dirs;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (g_str_has_prefix (lines[i], "0::/"))
      {
        g_autofree char *rel = g_strdup (lines[i] + 3);
        for (;;)
          {
            g_ptr_array_add (dirs, g_build_filename ("/sys/fs/cgroup", rel, NULL));
            char *slash = strrchr (rel, '/');
            if (!slash || slash == rel)
              break;
            *slash = '\0';
          }
        g_ptr_array_add (dirs, g_strdup ("/sys/fs/cgroup"));
        break;
      }
  return dirs;
}

static int
cgroup_cores (void)
{
  g_autoptr (GPtrArray) dirs = cgroup2_dirs ();
  int best = 0;

  for (guint i = 0; i < dirs->len; i++)
    {
      g_autofree char *path = g_build_filename (dirs->pdata[i], "cpu.max", NULL);
      g_autofree char *text = NULL;
      guint64 quota, period;
      if (!g_file_get_contents (path, &text, NULL, NULL))
        continue;
      if (sscanf (text, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT, &quota, &period) == 2 && period > 0)
        {
          int c = (int) MAX (1, (quota + period - 1) / period);
          best = best ? MIN (best, c) : c;
        }
    }
  if (!best)
    {
      /* cgroup v1 */
      guint64 quota, period;
      g_autofree char *q = NULL;
      if (g_file_get_contents ("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", &q, NULL, NULL) && atoll (q) > 0
          && read_u64_file ("/sys/fs/cgroup/cpu/cpu.cfs_period_us", &period) && period > 0)
        {
          quota = (guint64) atoll (q);
          best = (int) MAX (1, (quota + period - 1) / period);
        }
    }
  return best;
}

/* What the cgroups leave of their memory limit, G_MAXUINT64 without a limit. */
static guint64
cgroup_memory_left (void)
{
  g_autoptr (GPtrArray) dirs = cgroup2_dirs ();
  guint64 left = G_MAXUINT64, limit, used;

  for (guint i = 0; i < dirs->len; i++)
    {
      g_autofree char *max = g_build_filename (dirs->pdata[i], "memory.max", NULL);
      g_autofree char *cur = g_build_filename (dirs->pdata[i], "memory.current", NULL);
      if (read_u64_file (max, &limit))
        {
          if (!read_u64_file (cur, &used))
            used = 0;
          left = MIN (left, limit > used ? limit - used : 0);
        }
    }
  if (left == G_MAXUINT64 && read_u64_file ("/sys/fs/cgroup/memory/memory.limit_in_bytes", &limit)
      && limit < (G_GUINT64_CONSTANT (1) << 60))
    {
      if (!read_u64_file ("/sys/fs/cgroup/memory/memory.usage_in_bytes", &used))
        used = 0;
      left = limit > used ? limit - used : 0;
    }
  return left;
}

static gboolean
meminfo_available (guint64 *bytes)
{
  g_autofree char *text = NULL;
  const char *p;

  if (!g_file_get_contents ("/proc/meminfo", &text, NULL, NULL))
    return FALSE;
  p = strstr (text, "MemAvailable:");
  if (!p)
    p = strstr (text, "MemFree:");
  if (!p)
    return FALSE;
  p = strchr (p, ':') + 1;
  *bytes = g_ascii_strtoull (p, NULL, 10) * 1024;
  return TRUE;
}

static int
env_int (const char *name)
{
  const char *v = g_getenv (name);
  return v && g_ascii_isdigit (v[0]) ? atoi (v) : 0;
}

/* Distinct words of @list (host names). */
static int
count_distinct (char **words)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; words[i]; i++)
    if (*words[i])
      g_hash_table_add (seen, words[i]);
  return (int) g_hash_table_size (seen);
}

/* Slurm's "16(x4),8": 72. */
static int
slurm_cpus (const char *spec)
{
  int total = 0;
  while (spec && *spec)
    {
      char *end = NULL;
      long n = strtol (spec, &end, 10), times = 1;
      if (end == spec)
        break;
      if (g_str_has_prefix (end, "(x"))
        {
          times = strtol (end + 2, &end, 10);
          if (*end == ')')
            end++;
        }
      total += (int) (n * MAX (times, 1));
      spec = *end == ',' ? end + 1 : end;
      if (*end != ',')
        break;
    }
  return total;
}

static void
probe_allocation (AnalyzeMachine *m)
{
  const char *v;

  if (g_getenv ("SLURM_JOB_ID") || g_getenv ("SLURM_JOBID"))
    {
      m->alloc_tasks = env_int ("SLURM_NTASKS");
      if (!m->alloc_tasks)
        m->alloc_tasks = env_int ("SLURM_NPROCS");
      if (!m->alloc_tasks)
        m->alloc_tasks = slurm_cpus (g_getenv ("SLURM_JOB_CPUS_PER_NODE"));
      m->alloc_nodes = env_int ("SLURM_JOB_NUM_NODES");
      if (!m->alloc_nodes)
        m->alloc_nodes = env_int ("SLURM_NNODES");
      g_strlcpy (m->alloc_kind, "Slurm", sizeof m->alloc_kind);
    }
  else if ((v = g_getenv ("PBS_NODEFILE")) != NULL)
    {
      g_autofree char *text = NULL;
      if (g_file_get_contents (v, &text, NULL, NULL))
        {
          g_auto (GStrv) lines = g_strsplit_set (text, "\n", -1);
          for (guint i = 0; lines[i]; i++)
            {
              g_strstrip (lines[i]);
              if (*lines[i])
                m->alloc_tasks++;
            }
          m->alloc_nodes = count_distinct (lines);
        }
      if (!m->alloc_tasks)
        m->alloc_tasks = env_int ("PBS_NP");
      g_strlcpy (m->alloc_kind, "PBS", sizeof m->alloc_kind);
    }
  else if (g_getenv ("LSB_JOBID") || g_getenv ("LSB_DJOB_NUMPROC"))
    {
      m->alloc_tasks = env_int ("LSB_DJOB_NUMPROC");
      if ((v = g_getenv ("LSB_HOSTS")) != NULL)
        {
          g_auto (GStrv) hosts = g_strsplit_set (v, " \t", -1);
          if (!m->alloc_tasks)
            for (guint i = 0; hosts[i]; i++)
              m->alloc_tasks += *hosts[i] != '\0';
          m->alloc_nodes = count_distinct (hosts);
        }
      else if ((v = g_getenv ("LSB_MCPU_HOSTS")) != NULL)
        {
          /* "host1 16 host2 16" */
          g_auto (GStrv) w = g_strsplit_set (v, " \t", -1);
          int tasks = 0, nodes = 0;
          for (guint i = 0; w[i] && w[i + 1]; i += 2)
            {
              while (w[i] && !*w[i])
                i++;
              if (!w[i] || !w[i + 1])
                break;
              tasks += atoi (w[i + 1]);
              nodes++;
            }
          if (!m->alloc_tasks)
            m->alloc_tasks = tasks;
          m->alloc_nodes = nodes;
        }
      g_strlcpy (m->alloc_kind, "LSF", sizeof m->alloc_kind);
    }
}

void
analyze_machine_probe (AnalyzeMachine *m)
{
  guint64 avail = 0, left;
  int quota;

  memset (m, 0, sizeof *m);
  m->cores = (int) g_get_num_processors ();   /* the affinity mask's */
  quota = cgroup_cores ();
  if (quota > 0 && quota < m->cores)
    m->cores = quota;
  m->cores = MAX (m->cores, 1);

  m->mem_known = meminfo_available (&avail);
  left = cgroup_memory_left ();
  if (left != G_MAXUINT64)
    {
      avail = m->mem_known ? MIN (avail, left) : left;
      m->mem_known = TRUE;
    }
  m->mem_available = avail;

  /* an MPI job: its launcher's variables (MPI_Comm_size tells the same once MPI runs) */
  if (g_getenv ("OMPI_COMM_WORLD_SIZE"))
    {
      m->job_size = env_int ("OMPI_COMM_WORLD_SIZE");
      m->job_local = env_int ("OMPI_COMM_WORLD_LOCAL_SIZE");
    }
  else if (g_getenv ("PMI_SIZE"))
    m->job_size = env_int ("PMI_SIZE");
  else if (g_getenv ("MPI_LOCALNRANKS"))
    m->job_local = m->job_size = env_int ("MPI_LOCALNRANKS");
  else if (g_getenv ("PMIX_RANK") && g_getenv ("SLURM_STEP_NUM_TASKS"))
    m->job_size = env_int ("SLURM_STEP_NUM_TASKS");
  probe_allocation (m);
}

/* ---- the trace -------------------------------------------------------------------------- */

guint64
analyze_memory_estimate (int     n_ranks,
                         guint64 event_bytes,
                         guint64 n_events)
{
  double r = MAX (n_ranks, 1);
  double bytes = (double) event_bytes;

  /* no event files (a compressed trace as the source): about 10 bytes per event */
  if (bytes == 0 && n_events > 0)
    bytes = 10.0 * (double) n_events;
  return (guint64) (MEM_PER_EVENT_BYTE * bytes + MEM_PER_RANK_PAIR * r * r + MEM_PER_RANK * r + MEM_BASE);
}

void
analyze_trace_size (const TraceDefs  *defs,
                    const char       *anchor,
                    AnalyzeTraceSize *s)
{
  memset (s, 0, sizeof *s);
  s->n_ranks = defs->n_ranks;
  for (int r = 0; r < defs->n_ranks; r++)
    {
      const TraceLocation *loc = defs->rank_loc[r];
      GStatBuf st;
      if (!loc)
        continue;
      s->n_events += loc->n_events;
      if (anchor)
        {
          g_autofree char *evt = trace_event_file_path (anchor, loc->id, "evt");
          if (g_stat (evt, &st) == 0 && st.st_size > 0)
            {
              s->event_bytes += (guint64) st.st_size;
              s->largest_rank = MAX (s->largest_rank, (guint64) st.st_size);
            }
        }
    }
  s->estimate = analyze_memory_estimate (s->n_ranks, s->event_bytes, s->n_events);
}

/* ---- the choice ------------------------------------------------------------------------- */

char *
analyze_format_bytes (guint64 bytes)
{
  if (bytes >= (G_GUINT64_CONSTANT (1) << 30))
    return g_strdup_printf ("%.1f GiB", bytes / 1073741824.0);
  if (bytes >= (1u << 20))
    return g_strdup_printf ("%.1f MiB", bytes / 1048576.0);
  if (bytes >= 1024)
    return g_strdup_printf ("%.1f KiB", bytes / 1024.0);
  return g_strdup_printf ("%" G_GUINT64_FORMAT " B", bytes);
}

static char *
threads_text (int n)
{
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%d thread", "%d threads", n), n);
}

static char *
processes_text (int n)
{
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%d MPI process", "%d MPI processes", n), n);
}

/* Threads for the in-process analysis of @s on @cores cores. */
static int
auto_threads (const AnalyzeTraceSize *s,
              int                     cores)
{
  guint64 bytes = s->event_bytes ? s->event_bytes : 10 * s->n_events;
  if (s->n_ranks <= 1 || cores <= 1 || bytes < THREADS_MIN_BYTES)
    return 1;
  return MIN (cores, s->n_ranks);
}

static double
work_seconds (const AnalyzeTraceSize *s)
{
  guint64 bytes = s->event_bytes ? s->event_bytes : 10 * s->n_events;
  return SECONDS_PER_EVENT_BYTE * (double) bytes;
}

void
analyze_mode_decide (const AnalyzeModeOptions *o,
                     const AnalyzeMachine     *m,
                     const AnalyzeTraceSize   *s,
                     AnalyzeMode              *out)
{
  int cores = MAX (m->cores, 1);
  int ranks = MAX (s->n_ranks, 1);
  double share = o->budget_share > 0 ? o->budget_share : DEFAULT_BUDGET_SHARE;
  guint64 budget;
  gboolean fits;
  g_autofree char *need = analyze_format_bytes (s->estimate);
  g_autofree char *budget_text = NULL;
  g_autofree char *events = analyze_format_bytes (s->event_bytes ? s->event_bytes : 10 * s->n_events);
  g_autofree char *thr = NULL;
  g_autofree char *procs = NULL;

  memset (out, 0, sizeof *out);
  if (o->budget > 0)
    budget = o->budget;
  else if (m->mem_known)
    budget = (guint64) (share * (double) m->mem_available);
  else
    budget = G_MAXUINT64;   /* nothing known: no limit of ours */
  out->budget = budget;
  budget_text = budget == G_MAXUINT64 ? g_strdup (_("unknown")) : analyze_format_bytes (budget);
  fits = s->estimate <= budget;

  if (m->job_size > 0)
    {
      int local = m->job_local > 0 ? m->job_local : 1;
      out->in_job = TRUE;
      out->processes = m->job_size;
      if (o->want == ANALYZE_MODE_IN_PROCESS || m->job_size == 1
          || (o->want == ANALYZE_MODE_AUTO && fits && local > cores))
        {
          out->kind = ANALYZE_MODE_IN_PROCESS;
          out->rank0 = TRUE;
          out->threads = o->threads > 0 ? o->threads
                         : o->want == ANALYZE_MODE_IN_PROCESS ? 1 : auto_threads (s, cores);
          thr = threads_text (out->threads);
          if (o->want == ANALYZE_MODE_IN_PROCESS)
            out->why = g_strdup_printf (_("analysing in MPI rank 0 with %s (--serial); the job's other "
                                          "processes wait"), thr);
          else if (m->job_size == 1)
            out->why = g_strdup_printf (_("analysing in this process with %s: the MPI job has one process"), thr);
          else
            out->why = g_strdup_printf (_("analysing in MPI rank 0 with %s: the job's %d processes share the "
                                          "%d cores here, and the trace (about %s) fits in the memory budget "
                                          "(%s)"), thr, m->job_size, cores, need, budget_text);
        }
      else
        {
          out->kind = ANALYZE_MODE_PARALLEL;
          out->threads = o->threads > 0 ? o->threads : MAX (1, cores / local);
          thr = threads_text (out->threads);
          if (o->want == ANALYZE_MODE_PARALLEL || fits)
            out->why = g_strdup_printf (_("parallel replay over the %d processes of this MPI job (%s each)"),
                                        m->job_size, thr);
          else
            {
              out->fallback = TRUE;
              out->why = g_strdup_printf (_("parallel replay over the %d processes of this MPI job (%s each): "
                                            "the trace needs about %s, more than the memory budget (%s)"),
                                          m->job_size, thr, need, budget_text);
            }
        }
      return;
    }

  /* not in a job yet: how many processes a parallel replay would start */
  {
    int def_procs = m->alloc_tasks > 0 ? MIN (ranks, m->alloc_tasks) : ranks;
    int procs_n = o->processes > 0 ? MIN (o->processes, ranks) : def_procs;
    int nodes = m->alloc_tasks > 0 && m->alloc_nodes > 0 ? m->alloc_nodes : 1;
    int per_node = MAX (1, (procs_n + nodes - 1) / nodes);
    int par_threads = o->threads > 0 ? o->threads : MAX (1, cores / per_node);

    if (o->want == ANALYZE_MODE_PARALLEL)
      {
        out->kind = ANALYZE_MODE_PARALLEL;
        out->processes = procs_n;
        out->threads = par_threads;
        procs = processes_text (procs_n);
        out->why = g_strdup_printf (_("parallel replay with %s (--parallel)"), procs);
        return;
      }
    if (o->want == ANALYZE_MODE_IN_PROCESS)
      {
        out->kind = ANALYZE_MODE_IN_PROCESS;
        out->processes = 1;
        out->threads = o->threads > 0 ? o->threads : 1;
        thr = threads_text (out->threads);
        if (fits)
          out->why = g_strdup_printf (_("analysing in this process with %s (--serial)"), thr);
        else
          out->why = g_strdup_printf (_("analysing in this process with %s (--serial), although the trace "
                                        "needs about %s, more than the memory budget (%s)"), thr, need, budget_text);
        return;
      }

    if (ranks > 1 && !fits)
      {
        out->kind = ANALYZE_MODE_PARALLEL;
        out->processes = procs_n;
        out->threads = par_threads;
        out->fallback = TRUE;
        procs = processes_text (procs_n);
        out->why = g_strdup_printf (_("parallel replay with %s: the trace (%d ranks, %s of events) needs about "
                                      "%s, more than the memory budget (%s; --memory-budget)"),
                                    procs, ranks, events, need, budget_text);
        return;
      }
    if (ranks > 1 && m->alloc_tasks > cores)
      {
        /* an allocation with more cores than this machine: does the launch pay? */
        int in_threads = o->threads > 0 ? o->threads : MIN (cores, ranks);
        int par_cores = MIN (procs_n * par_threads, m->alloc_tasks);
        double t_in = work_seconds (s) / in_threads;
        double t_par = LAUNCH_S + LAUNCH_PER_PROCESS_S * per_node + work_seconds (s) / MAX (par_cores, 1);
        if (t_par * PARALLEL_GAIN < t_in)
          {
            out->kind = ANALYZE_MODE_PARALLEL;
            out->processes = procs_n;
            out->threads = par_threads;
            procs = processes_text (procs_n);
            out->why = g_strdup_printf (_("parallel replay with %s: the %s allocation has %d tasks on %d nodes, "
                                          "more cores than the %d here, for %d ranks and %s of events"),
                                        procs, m->alloc_kind, m->alloc_tasks, MAX (m->alloc_nodes, 1), cores,
                                        ranks, events);
            return;
          }
        out->kind = ANALYZE_MODE_IN_PROCESS;
        out->processes = 1;
        out->threads = o->threads > 0 ? o->threads : auto_threads (s, cores);
        thr = threads_text (out->threads);
        out->why = g_strdup_printf (_("analysing in this process with %s: %d ranks, %s of events (about %s in "
                                      "memory); starting the %s allocation's %d tasks would cost more than "
                                      "they gain"), thr, ranks, events, need, m->alloc_kind, m->alloc_tasks);
        return;
      }
    out->kind = ANALYZE_MODE_IN_PROCESS;
    out->processes = 1;
    out->threads = o->threads > 0 ? o->threads : auto_threads (s, cores);
    thr = threads_text (out->threads);
    if (ranks <= 1)
      out->why = g_strdup_printf (_("analysing in this process with %s: the trace has one rank"), thr);
    else
      out->why = g_strdup_printf (_("analysing in this process with %s: %d ranks, %s of events (about %s in "
                                    "memory, budget %s), and no allocation with more cores than the %d here"),
                                  thr, ranks, events, need, budget_text, cores);
  }
}

void
analyze_mode_clear (AnalyzeMode *mode)
{
  g_clear_pointer (&mode->why, g_free);
}

/* ---- options ---------------------------------------------------------------------------- */

gboolean
analyze_parse_budget (const char          *text,
                      AnalyzeModeOptions  *o,
                      GError             **error)
{
  g_autofree char *t = g_strstrip (g_strdup (text ? text : ""));
  char *end = NULL;
  double v = g_ascii_strtod (t, &end);
  double mult = 1;

  if (end == t || !(v >= 0) || v > 1e18)
    goto bad;
  while (*end == ' ')
    end++;
  if (*end == '%')
    {
      if (end[1] != '\0' || v <= 0 || v > 100)
        goto bad;
      o->budget_share = v / 100.0;
      o->budget = 0;
      return TRUE;
    }
  switch (g_ascii_toupper (*end))
    {
    case '\0': mult = 1; break;
    case 'K': mult = 1024.0; break;
    case 'M': mult = 1048576.0; break;
    case 'G': mult = 1073741824.0; break;
    case 'T': mult = 1099511627776.0; break;
    default: goto bad;
    }
  if (*end)
    {
      end++;
      if (g_ascii_strcasecmp (end, "") != 0 && g_ascii_strcasecmp (end, "B") != 0
          && g_ascii_strcasecmp (end, "iB") != 0)
        goto bad;
    }
  if (v * mult < 1)
    goto bad;
  o->budget = (guint64) (v * mult);
  o->budget_share = 0;
  return TRUE;

bad:
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               _("--memory-budget: “%s” is not a size (such as 512M, 4G) or a share of the available "
                 "memory (such as 30%%)"), text ? text : "");
  return FALSE;
}

void
analyze_mode_options_from_env (AnalyzeModeOptions *o)
{
  const char *v;

  if ((v = g_getenv ("KUBUS_ANALYZE_MODE")) != NULL && *v)
    {
      if (strcmp (v, "serial") == 0 || strcmp (v, "in-process") == 0)
        o->want = ANALYZE_MODE_IN_PROCESS;
      else if (strcmp (v, "parallel") == 0)
        o->want = ANALYZE_MODE_PARALLEL;
      else if (g_str_has_prefix (v, "parallel=") && atoi (v + 9) > 0)
        {
          o->want = ANALYZE_MODE_PARALLEL;
          o->processes = atoi (v + 9);
        }
      else if (strcmp (v, "auto") != 0)
        g_printerr (_("warning: KUBUS_ANALYZE_MODE=%s is none of serial, parallel, parallel=N, auto: "
                      "ignored\n"), v);
    }
  if ((v = g_getenv ("KUBUS_ANALYZE_THREADS")) != NULL && *v)
    {
      if (atoi (v) > 0)
        o->threads = atoi (v);
      else
        g_printerr (_("warning: KUBUS_ANALYZE_THREADS=%s is not a positive number: ignored\n"), v);
    }
  if ((v = g_getenv ("KUBUS_ANALYZE_MEMORY_BUDGET")) != NULL && *v)
    {
      g_autoptr (GError) error = NULL;
      if (!analyze_parse_budget (v, o, &error))
        g_printerr (_("warning: KUBUS_ANALYZE_MEMORY_BUDGET: %s: ignored\n"), error->message);
    }
}
