/* test-analyze-mode — the choice between the in-process analysis and the parallel MPI replay
 * (src/core/analyze-mode.c) on machines and traces described by hand: a laptop, a cluster
 * allocation, an MPI job, a trace too large for the memory budget, the options that decide
 * instead; the allocation probe and the budget parser. The decision is pure, so every expected
 * mode follows from the inputs and the model's constants. */
#include "analyze-mode.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MiB (G_GUINT64_CONSTANT (1) << 20)
#define GiB (G_GUINT64_CONSTANT (1) << 30)

static AnalyzeMachine
laptop (void)
{
  AnalyzeMachine m = { 0 };
  m.cores = 2;
  m.mem_available = 8 * GiB;
  m.mem_known = TRUE;
  return m;
}

static AnalyzeTraceSize
trace (int     ranks,
       guint64 event_bytes)
{
  AnalyzeTraceSize s = { 0 };
  s.n_ranks = ranks;
  s.event_bytes = event_bytes;
  s.largest_rank = event_bytes / MAX (ranks, 1);
  s.estimate = analyze_memory_estimate (ranks, event_bytes, 0);
  return s;
}

static void
decide (const AnalyzeModeOptions *o,
        const AnalyzeMachine     *m,
        const AnalyzeTraceSize   *s,
        AnalyzeMode              *out)
{
  analyze_mode_decide (o, m, s, out);
  g_assert_nonnull (out->why);
  g_test_message ("%s", out->why);
}

/* A small trace on a laptop: in this process, one thread (splitting 1 MiB costs more than it
 * gains); a large one: a thread per core, still in this process. */
static void
test_laptop (void)
{
  AnalyzeModeOptions o = { 0 };
  AnalyzeMachine m = laptop ();
  AnalyzeTraceSize small = trace (64, 1 * MiB), large = trace (4, 400 * MiB);
  AnalyzeMode mode;

  decide (&o, &m, &small, &mode);
  g_assert_cmpint (mode.kind, ==, ANALYZE_MODE_IN_PROCESS);
  g_assert_cmpint (mode.threads, ==, 1);
  g_assert_false (mode.fallback);
  g_assert_cmpuint (mode.budget, ==, 4 * GiB);
  g_assert_nonnull (strstr (mode.why, "analysing in this process with 1 thread: 64 ranks"));
  analyze_mode_clear (&mode);

  decide (&o, &m, &large, &mode);
  g_assert_cmpint (mode.kind, ==, ANALYZE_MODE_IN_PROCESS);
  g_assert_cmpint (mode.threads, ==, 2);
  analyze_mode_clear (&mode);

  /* never more threads than ranks */
  m.cores = 16;
  decide (&o, &m, &large, &mode);
  g_assert_cmpint (mode.threads, ==, 4);
  analyze_mode_clear (&mode);
}

/* Estimated memory above the budget: the parallel replay, one process per rank, and the line
 * says so; --serial keeps it here but warns. */
static void
test_budget (void)
{
  AnalyzeModeOptions o = { 0 };
  AnalyzeMachine m = laptop ();
  AnalyzeTraceSize s = trace (8, 100 * MiB);
  AnalyzeMode mode;

  g_assert_cmpuint (s.estimate, >, 100 * MiB);
  g_assert_true (analyze_parse_budget ("100M", &o, NULL));
  decide (&o, &m, &s, &mode);
  g_assert_cmpint (mode.kind, ==, ANALYZE_MODE_PARALLEL);
  g_assert_true (mode.fallback);
  g_assert_cmpint (mode.processes, ==, 8);
  g_assert_nonnull (strstr (mode.why, "more than the memory budget (100.0 MiB"));
  analyze_mode_clear (&mode);

  /* a share of the available memory: 2% of 8 GiB (163.8 MiB) is less than the estimate,
   * 3% (245.8 MiB) more */
  g_assert_true (analyze_parse_budget ("2%", &o, NULL));
  decide (&o, &m, &s, &mode);
  g_assert_cmpint (mode.kind, ==, ANALYZE_MODE_PARALLEL);
  analyze_mode_clear (&mode);
  g_assert_true (analyze_parse_budget ("3%", &o, NULL));
  decide (&o, &m, &s, &mode);
  g_assert_cmpint (mode.kind, ==, ANALYZE_MODE_IN_PROCESS);
  analyze_mode_clear (&mode);

  /* the default, half of what is available: 300 MiB available → 150 MiB budget */
  o = (AnalyzeModeOptions) { 0 };
  m.mem_available = 300 * MiB;
  decide (&o, &m, &s, &mode);
  g_assert_cmpint (mode.kind, ==, ANALYZE_MODE_PARALLEL);
  g_assert_cmpuint (mode.budget, ==, 150 * MiB);
  analyze_mode_clear (&mode);

  o.want = ANALYZE_MODE_IN_PROCESS;
  decide (&o, &m, &s, &mode);
  g_assert_cmpint (mode.kind, ==, ANALYZE_MODE_IN_PROCESS);
  g_assert_cmpint (mode.threads, ==, 1);
  g_assert_nonnull (strstr (mode.why, "(--serial), although"));
  analyze_mode_clear (&mode);

  /* one rank cannot be split: it stays here */
  o.want = ANALYZE_MODE_AUTO;
  s = trace (1, 1 * GiB);
  decide (&o, &m, &s, &mode);
  g_assert_cmpint (mode.kind, ==, ANALYZE_MODE_IN_PROCESS);
  analyze_mode_clear (&mode);
}

/* What the user asks for is done: --parallel=N never more processes than ranks. */
static void
test_options (void)
{
  AnalyzeModeOptions o = { .want = ANALYZE_MODE_PARALLEL, .processes = 3, .threads = 2 };
  AnalyzeMachine m = laptop ();
  AnalyzeTraceSize s = trace (10, 1 * MiB);
  AnalyzeMode mode;

  decide (&o, &m, &s, &mode);
  g_assert_cmpint (mode.kind, ==, ANALYZE_MODE_PARALLEL);
  g_assert_cmpint (mode.processes, ==, 3);
  g_assert_cmpint (mode.threads, ==, 2);
  g_assert_cmpstr (mode.why, ==, "parallel replay with 3 MPI processes (--parallel)");
  analyze_mode_clear (&mode);

  o.processes = 50;
  decide (&o, &m, &s, &mode);
  g_assert_cmpint (mode.processes, ==, 10);
  analyze_mode_clear (&mode);

  o = (AnalyzeModeOptions) { .want = ANALYZE_MODE_IN_PROCESS, .threads = 3 };
  decide (&o, &m, &s, &mode);
  g_assert_cmpint (mode.kind, ==, ANALYZE_MODE_IN_PROCESS);
  g_assert_cmpint (mode.threads, ==, 3);
  g_assert_cmpstr (mode.why, ==, "analysing in this process with 3 threads (--serial)");
  analyze_mode_clear (&mode);
}

/* A batch allocation with more cores than this node: the parallel replay when the work is
 * large enough to pay for the launch, in this process when it is not. */
static void
test_allocation (void)
{
  AnalyzeModeOptions o = { 0 };
  AnalyzeMachine m = { .cores = 32, .mem_available = 256 * GiB, .mem_known = TRUE,
                       .alloc_tasks = 256, .alloc_nodes = 8 };
  AnalyzeTraceSize big = trace (1024, 20 * GiB), small = trace (1024, 2 * MiB);
  AnalyzeMode mode;

  g_strlcpy (m.alloc_kind, "Slurm", sizeof m.alloc_kind);
  decide (&o, &m, &big, &mode);
  g_assert_cmpint (mode.kind, ==, ANALYZE_MODE_PARALLEL);
  g_assert_false (mode.fallback);
  g_assert_cmpint (mode.processes, ==, 256);
  g_assert_cmpint (mode.threads, ==, 1);   /* 32 processes per node on 32 cores */
  g_assert_nonnull (strstr (mode.why, "the Slurm allocation has 256 tasks on 8 nodes"));
  analyze_mode_clear (&mode);

  decide (&o, &m, &small, &mode);
  g_assert_cmpint (mode.kind, ==, ANALYZE_MODE_IN_PROCESS);
  g_assert_nonnull (strstr (mode.why, "would cost more than they gain"));
  analyze_mode_clear (&mode);

  /* an allocation no larger than this node: nothing to gain from a launch */
  m.alloc_tasks = 16;
  decide (&o, &m, &big, &mode);
  g_assert_cmpint (mode.kind, ==, ANALYZE_MODE_IN_PROCESS);
  g_assert_cmpint (mode.threads, ==, 32);
  analyze_mode_clear (&mode);
}

/* Already a rank of an MPI job: its processes replay in parallel when they have cores of their
 * own; when they share this node's fewer cores, rank 0 analyses with threads. */
static void
test_in_job (void)
{
  AnalyzeModeOptions o = { 0 };
  AnalyzeMachine m = laptop ();
  AnalyzeTraceSize s = trace (4, 100 * MiB);
  AnalyzeMode mode;

  m.job_size = m.job_local = 4;
  decide (&o, &m, &s, &mode);
  g_assert_true (mode.in_job);
  g_assert_cmpint (mode.kind, ==, ANALYZE_MODE_IN_PROCESS);
  g_assert_true (mode.rank0);
  g_assert_cmpint (mode.threads, ==, 2);
  analyze_mode_clear (&mode);

  m.cores = 8;
  m.job_local = 2;
  decide (&o, &m, &s, &mode);
  g_assert_cmpint (mode.kind, ==, ANALYZE_MODE_PARALLEL);
  g_assert_cmpint (mode.processes, ==, 4);
  g_assert_cmpint (mode.threads, ==, 4);
  analyze_mode_clear (&mode);

  m.job_size = 1;
  decide (&o, &m, &s, &mode);
  g_assert_cmpint (mode.kind, ==, ANALYZE_MODE_IN_PROCESS);
  g_assert_nonnull (strstr (mode.why, "the MPI job has one process"));
  analyze_mode_clear (&mode);
}

static void
test_parse_budget (void)
{
  AnalyzeModeOptions o = { 0 };
  const char *bad[] = { "", "abc", "0", "12X", "150%", "-3G", "5%%", "1GBs" };

  g_assert_true (analyze_parse_budget ("512M", &o, NULL));
  g_assert_cmpuint (o.budget, ==, 512 * MiB);
  g_assert_true (analyze_parse_budget ("2.5GiB", &o, NULL));
  g_assert_cmpuint (o.budget, ==, 5 * GiB / 2);
  g_assert_true (analyze_parse_budget ("1048576", &o, NULL));
  g_assert_cmpuint (o.budget, ==, MiB);
  g_assert_true (analyze_parse_budget ("30%", &o, NULL));
  g_assert_cmpuint (o.budget, ==, 0);
  g_assert_cmpfloat_with_epsilon (o.budget_share, 0.3, 1e-12);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_assert_false (analyze_parse_budget (bad[i], &o, &error));
      g_assert_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE);
    }
}

/* The batch systems' variables, as Slurm, PBS and LSF set them. */
static void
test_probe (void)
{
  AnalyzeMachine m;
  g_autofree char *nodefile = NULL;
  int fd;

  for (const char *const *v = (const char *const[]) { "SLURM_JOB_ID", "SLURM_JOBID", "SLURM_NTASKS",
                                                        "SLURM_NPROCS", "SLURM_JOB_NUM_NODES", "SLURM_NNODES",
                                                        "PBS_NODEFILE", "LSB_JOBID", "LSB_DJOB_NUMPROC",
                                                        "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                                        "MPI_LOCALNRANKS", NULL };
       *v; v++)
    g_unsetenv (*v);

  analyze_machine_probe (&m);
  g_assert_cmpint (m.cores, >=, 1);
  g_assert_cmpint (m.alloc_tasks, ==, 0);
  g_assert_cmpint (m.job_size, ==, 0);

  g_setenv ("SLURM_JOB_ID", "42", TRUE);
  g_setenv ("SLURM_JOB_CPUS_PER_NODE", "16(x4),8", TRUE);
  g_setenv ("SLURM_JOB_NUM_NODES", "5", TRUE);
  analyze_machine_probe (&m);
  g_assert_cmpint (m.alloc_tasks, ==, 72);
  g_assert_cmpint (m.alloc_nodes, ==, 5);
  g_assert_cmpstr (m.alloc_kind, ==, "Slurm");
  g_setenv ("SLURM_NTASKS", "20", TRUE);
  analyze_machine_probe (&m);
  g_assert_cmpint (m.alloc_tasks, ==, 20);
  g_unsetenv ("SLURM_JOB_ID");
  g_unsetenv ("SLURM_NTASKS");

  fd = g_file_open_tmp ("kubus-nodefile-XXXXXX", &nodefile, NULL);
  g_assert_cmpint (fd, >=, 0);
  g_assert_true (g_file_set_contents (nodefile, "n1\nn1\nn2\nn2\nn3\n\n", -1, NULL));
  close (fd);
  g_setenv ("PBS_NODEFILE", nodefile, TRUE);
  analyze_machine_probe (&m);
  g_assert_cmpint (m.alloc_tasks, ==, 5);
  g_assert_cmpint (m.alloc_nodes, ==, 3);
  g_assert_cmpstr (m.alloc_kind, ==, "PBS");
  g_unsetenv ("PBS_NODEFILE");
  g_unlink (nodefile);

  g_setenv ("LSB_JOBID", "7", TRUE);
  g_setenv ("LSB_MCPU_HOSTS", "hostA 16 hostB 8", TRUE);
  analyze_machine_probe (&m);
  g_assert_cmpint (m.alloc_tasks, ==, 24);
  g_assert_cmpint (m.alloc_nodes, ==, 2);
  g_assert_cmpstr (m.alloc_kind, ==, "LSF");
  g_unsetenv ("LSB_JOBID");
  g_unsetenv ("LSB_MCPU_HOSTS");

  g_setenv ("OMPI_COMM_WORLD_SIZE", "6", TRUE);
  g_setenv ("OMPI_COMM_WORLD_LOCAL_SIZE", "3", TRUE);
  analyze_machine_probe (&m);
  g_assert_cmpint (m.job_size, ==, 6);
  g_assert_cmpint (m.job_local, ==, 3);
  g_unsetenv ("OMPI_COMM_WORLD_SIZE");
  g_unsetenv ("OMPI_COMM_WORLD_LOCAL_SIZE");
}

/* The block of ranks each MPI process holds, and the owner of each rank. */
static void
test_owner (void)
{
  for (int n = 1; n <= 40; n++)
    for (int p = 1; p <= n; p++)
      for (int r = 0; r < n; r++)
        {
          int q = transport_mpi_owner (n, p, r);
          g_assert_cmpint ((gint64) n * q / p, <=, r);
          g_assert_cmpint ((gint64) n * (q + 1) / p, >, r);
        }
}

int
main (int    argc,
      char **argv)
{
  /* the why lines in English, whatever the test machine's locale */
  g_setenv ("LANGUAGE", "C", TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analyze-mode/laptop", test_laptop);
  g_test_add_func ("/analyze-mode/budget", test_budget);
  g_test_add_func ("/analyze-mode/options", test_options);
  g_test_add_func ("/analyze-mode/allocation", test_allocation);
  g_test_add_func ("/analyze-mode/in-job", test_in_job);
  g_test_add_func ("/analyze-mode/parse-budget", test_parse_budget);
  g_test_add_func ("/analyze-mode/probe", test_probe);
  g_test_add_func ("/analyze-mode/owner", test_owner);
  return g_test_run ();
}
