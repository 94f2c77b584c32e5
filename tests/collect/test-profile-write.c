/* test-profile-write.c — the profile's record merger and CUBE 3 writer (collect-profile-write.c)
 * on hand-made records: the report read back with src/cube has exactly the values put in;
 * minima of locations that never visited a call path are "no value" for every reader; broken
 * records are refused whole with a message; a folder of saved records with a broken one. */
#include "collect-profile-write.h"

#include <cube.h>
#include <float.h>
#include <glib/gstdio.h>
#include <locale.h>
#include <math.h>
#include <string.h>

/* strings of the records below */
enum
{
  S_PROG,
  S_MAIN,
  S_SEND,
  S_ALLREDUCE,
  S_MODULE,
  N_S
};
static const char *strs[N_S] = { "prog", "main", "MPI_Send", "MPI_Allreduce", "0badc0de /bin/prog" };

typedef struct
{
  uint64_t parent, region, n_sites, sites[2][2]; /* call sites: module string + 1, offset */
  uint64_t v[KP_N];
} Node;

static void
put_record (KubusWords *b, int rank, int world, const char *reason, int n_threads,
            const Node *const *threads, const int *n_nodes)
{
  kubus_words_put (b, KUBUS_PROF_MAGIC);
  kubus_words_put (b, KUBUS_PROF_VERSION);
  kubus_words_put (b, (uint64_t)rank);
  kubus_words_put (b, (uint64_t)world);
  kubus_words_put (b, reason ? KUBUS_PROF_FLAG_INCOMPLETE : 0);
  kubus_words_put (b, 1000); /* path limit */
  kubus_words_put (b, 0);
  kubus_words_put (b, 4096);
  kubus_words_put_str (b, rank == 0 ? "alpha" : "beta");
  kubus_words_put_str (b, reason ? reason : "");
  kubus_words_put (b, N_S);
  for (int i = 0; i < N_S; i++)
    kubus_words_put_str (b, strs[i]);
  kubus_words_put (b, (uint64_t)n_threads);
  for (int t = 0; t < n_threads; t++)
    {
      kubus_words_put (b, (uint64_t)t);
      kubus_words_put (b, (uint64_t)n_nodes[t]);
      for (int i = 0; i < n_nodes[t]; i++)
        {
          const Node *n = &threads[t][i];
          kubus_words_put (b, n->parent);
          kubus_words_put (b, n->region);
          kubus_words_put (b, n->n_sites);
          for (uint64_t k = 0; k < n->n_sites; k++)
            {
              kubus_words_put (b, n->sites[k][0]);
              kubus_words_put (b, n->sites[k][1]);
            }
          uint64_t mask = 0;
          for (int k = 0; k < KP_N; k++)
            if (n->v[k])
              mask |= 1ull << k;
          kubus_words_put (b, mask);
          for (int k = 0; k < KP_N; k++)
            if (n->v[k])
              kubus_words_put (b, n->v[k]);
        }
    }
}

/* rank 0: prog / main / MPI_Send (call site 0x10) and prog / MPI_Allreduce; rank 1: prog /
 * main / MPI_Send from call site 0x10 and from 0x20 (two call paths: one per call site),
 * prog / main / MPI_Allreduce, and a second thread with prog / MPI_Send (0x10). */
#define SITE(o) 1, { { S_MODULE + 1, o } }
static const Node r0[] = {
  { 0, S_PROG, 0, { { 0 } }, { [KP_VISITS] = 1, [KP_TIME] = 2000000000, [KP_MIN] = 3500000000,
                       [KP_MAX] = 3500000000 } },
  { 1, S_MAIN, 0, { { 0 } }, { [KP_VISITS] = 1, [KP_TIME] = 500000000, [KP_MIN] = 1000000000,
                       [KP_MAX] = 1000000000 } },
  { 2, S_SEND, SITE (0x10),
    { [KP_VISITS] = 4, [KP_TIME] = 500000000, [KP_MIN] = 100, [KP_MAX] = 400000000,
      [KP_BYTES_SENT] = 64, [KP_COMMS_SEND] = 3, [KP_SYNCS_SEND] = 1, [KP_LR] = 700000000 } },
  { 1, S_ALLREDUCE, SITE (0x30),
    { [KP_VISITS] = 2, [KP_TIME] = 1000000000, [KP_MIN] = 200000000, [KP_MAX] = 800000000,
      [KP_BYTES_COUT] = 16, [KP_BYTES_CIN] = 16, [KP_COMMS_CXCH] = 2, [KP_NXN] = 600000000 } },
};
static const Node r1[] = {
  { 0, S_PROG, 0, { { 0 } }, { [KP_VISITS] = 1, [KP_TIME] = 1, [KP_MIN] = 7, [KP_MAX] = 7 } },
  { 1, S_MAIN, 0, { { 0 } }, { [KP_VISITS] = 1, [KP_TIME] = 2, [KP_MIN] = 6, [KP_MAX] = 6 } },
  { 2, S_SEND, SITE (0x10), { [KP_VISITS] = 3, [KP_TIME] = 4, [KP_MIN] = 0, [KP_MAX] = 3 } },
  { 2, S_ALLREDUCE, SITE (0x40), { [KP_VISITS] = 1, [KP_TIME] = 5, [KP_MIN] = 5, [KP_MAX] = 5 } },
  { 2, S_SEND, SITE (0x20), { [KP_VISITS] = 2, [KP_TIME] = 6, [KP_MIN] = 1, [KP_MAX] = 5 } },
};
static const Node r1t[] = {
  { 0, S_PROG, 0, { { 0 } }, { 0 } },
  { 1, S_SEND, SITE (0x10), { [KP_VISITS] = 9, [KP_TIME] = 90, [KP_MIN] = 5, [KP_MAX] = 20 } },
};

static void
record (KubusWords *b, int rank, const char *reason)
{
  memset (b, 0, sizeof *b);
  if (rank == 0)
    {
      const Node *t[] = { r0 };
      int         n[] = { G_N_ELEMENTS (r0) };
      put_record (b, 0, 2, reason, 1, t, n);
    }
  else
    {
      const Node *t[] = { r1, r1t };
      int         n[] = { G_N_ELEMENTS (r1), G_N_ELEMENTS (r1t) };
      put_record (b, 1, 2, reason, 2, t, n);
    }
  g_assert_false (b->failed);
}

static CubeCnode *
cnode_at (CubeReport *r, const char *path_names, gint64 line_hint)
{
  (void)line_hint;
  g_auto (GStrv) names = g_strsplit (path_names, "/", -1);
  GPtrArray *level = r->cnode_roots;
  CubeCnode *found = NULL;
  for (int i = 0; names[i]; i++)
    {
      found = NULL;
      for (guint k = 0; k < level->len && !found; k++)
        {
          CubeCnode *c = g_ptr_array_index (level, k);
          if (g_strcmp0 (c->callee->name, names[i]) == 0)
            found = c;
        }
      g_assert_nonnull (found);
      level = found->children;
    }
  return found;
}

static double
stored (CubeReport *r, const char *metric, CubeCnode *c, guint loc)
{
  CubeMetric *m = cube_report_find_metric (r, metric);
  double      row[8];
  g_assert_nonnull (m);
  g_assert_cmpuint (r->locations->len, <=, G_N_ELEMENTS (row));
  g_assert_true (cube_report_get_row (r, m, c, row, NULL));
  return row[loc];
}

static void
test_merge_write (void)
{
  g_autofree char *dir = g_dir_make_tmp ("kubus-prof-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "profile.cube", NULL);
  KubusWords       a, b;
  char             err[256];
  KubusProfMerge  *m = kubus_prof_merge_new (2);

  record (&a, 0, NULL);
  record (&b, 1, NULL);
  g_assert_cmpint (kubus_prof_merge_add (m, b.w, b.n, err, sizeof err), ==, 0);
  g_assert_cmpint (kubus_prof_merge_add (m, a.w, a.n, err, sizeof err), ==, 0);
  /* the same rank twice: refused */
  g_assert_cmpint (kubus_prof_merge_add (m, a.w, a.n, err, sizeof err), ==, -1);
  g_assert_cmpstr (err, ==, "a second profile record for the same rank");
  /* the writer's numbers do not follow the locale */
  setlocale (LC_NUMERIC, "de_DE.UTF-8");
  g_assert_cmpint (kubus_prof_merge_write (m, path, "test", NULL, err, sizeof err), ==, 0);
  setlocale (LC_NUMERIC, "C");
  kubus_prof_merge_free (m);
  kubus_words_clear (&a);
  kubus_words_clear (&b);

  g_autoptr (GError) error = NULL;
  g_autoptr (CubeReport) r = cube_report_load (path, CUBE_LOAD_EAGER, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  /* locations: rank 0 (1 thread), rank 1 (2 threads), in that order */
  g_assert_cmpuint (r->locations->len, ==, 3);
  const CubeSysNode *t2 = g_ptr_array_index (r->locations, 2);
  g_assert_cmpstr (t2->name, ==, "Thread 1");
  g_assert_cmpint (t2->parent->rank, ==, 1);
  /* call paths (parent, region, call site): prog, main, main's MPI_Send from 0x10 and from
   * 0x20 and its MPI_Allreduce, prog's MPI_Allreduce and the other thread's MPI_Send beneath
   * the program */
  g_assert_cmpuint (r->cnodes->len, ==, 7);
  CubeCnode *prog = cnode_at (r, "prog", -1);
  CubeCnode *send = cnode_at (r, "prog/main/MPI_Send", -1);
  CubeCnode *main_ = cnode_at (r, "prog/main", -1);
  CubeCnode *mallr = cnode_at (r, "prog/main/MPI_Allreduce", -1);
  CubeCnode *allr = cnode_at (r, "prog/MPI_Allreduce", -1);
  CubeCnode *tsend = cnode_at (r, "prog/MPI_Send", -1);
  g_assert_cmpuint (main_->children->len, ==, 3);
  CubeCnode *send2 = NULL;
  for (guint i = 0; i < main_->children->len; i++)
    {
      CubeCnode *c = g_ptr_array_index (main_->children, i);
      if (c != send && g_str_equal (c->callee->name, "MPI_Send"))
        send2 = c;
    }
  g_assert_nonnull (send2);
  g_assert_cmpfloat (stored (r, "visits", send2, 1), ==, 2);
  g_assert_cmpfloat (stored (r, "visits", send2, 0), ==, 0);
  g_assert_cmpfloat (stored (r, "time", send2, 1), ==, 6e-9);
  /* exact values: seconds from nanoseconds */
  g_assert_cmpfloat (stored (r, "time", prog, 0), ==, 2.0);
  g_assert_cmpfloat (stored (r, "comp", prog, 0), ==, 2.0);
  g_assert_cmpfloat (stored (r, "mpi", prog, 0), ==, 0.0);
  g_assert_cmpfloat (stored (r, "time", send, 0), ==, 0.5);
  g_assert_cmpfloat (stored (r, "mpi", send, 0), ==, 0.5);
  g_assert_cmpfloat (stored (r, "mpi_point2point", send, 0), ==, 0.5);
  g_assert_cmpfloat (stored (r, "comp", send, 0), ==, 0.0);
  g_assert_cmpfloat (stored (r, "mpi_collective", allr, 0), ==, 1.0);
  g_assert_cmpfloat (stored (r, "mpi_wait_nxn", allr, 0), ==, 0.6);
  /* an estimate never exceeds the call path's time */
  g_assert_cmpfloat (stored (r, "mpi_latereceiver", send, 0), ==, 0.5);
  g_assert_cmpfloat (stored (r, "visits", tsend, 2), ==, 9);
  g_assert_cmpfloat (stored (r, "time", tsend, 2), ==, 90e-9);
  g_assert_cmpfloat (stored (r, "time", send, 2), ==, 0.0);
  g_assert_cmpfloat (stored (r, "bytes", send, 0), ==, 64);
  g_assert_cmpfloat (stored (r, "comms", send, 0), ==, 3);
  g_assert_cmpfloat (stored (r, "syncs_send", send, 0), ==, 1);
  g_assert_cmpfloat (stored (r, "bytes", allr, 0), ==, 32);
  g_assert_cmpfloat (stored (r, "min_time", send, 0), ==, 100e-9);
  g_assert_cmpfloat (stored (r, "min_time", send, 1), ==, 0.0); /* a real zero */
  g_assert_cmpfloat (stored (r, "visits", send, 1), ==, 3);
  /* no visit: the minimum is "no value", the maximum 0 */
  CubeMetric *mn = cube_report_find_metric (r, "min_time");
  CubeMetric *mx = cube_report_find_metric (r, "max_time");
  g_assert_cmpint (mn->dtype, ==, CUBE_DTYPE_MINDOUBLE);
  g_assert_cmpint (mx->dtype, ==, CUBE_DTYPE_MAXDOUBLE);
  g_assert_true (cube_value_is_none (mn, stored (r, "min_time", mallr, 0)));
  g_assert_true (cube_value_is_none (mn, stored (r, "min_time", allr, 1)));
  g_assert_cmpfloat (stored (r, "max_time", allr, 1), ==, 0.0);
  /* views: the minimum along the call tree and over locations passes over "no value" */
  double incl[7], excl[7];
  CubeMetricSel ms = { mn, FALSE };
  g_assert_true (cube_values_cnodes (r, &ms, 1, NULL, 0, incl, excl, NULL));
  g_assert_cmpfloat (excl[allr->index], ==, 0.2);         /* rank 0 only */
  g_assert_cmpfloat (incl[main_->index], ==, 0.0);        /* rank 1's real 0 */
  g_assert_cmpfloat (excl[mallr->index], ==, 5e-9);        /* rank 1 only */
  g_assert_cmpfloat (excl[send->index], ==, 0.0);
  g_assert_cmpfloat (incl[prog->index], ==, 0.0);
  CubeCnodeSel cs = { allr, TRUE };
  double       per[3];
  g_assert_true (cube_values_locations (r, &ms, 1, &cs, 1, per, NULL));
  g_assert_cmpfloat (per[0], ==, 0.2);
  g_assert_cmpfloat (per[1], ==, 0.0); /* shown as 0 */
  /* call sites: module and offset kept for kubus-run and kubus-cube callsites */
  g_assert_cmpstr (cube_report_get_attr (r, "kubus::module::0"), ==, "0badc0de /bin/prog");
  g_autofree char *key = g_strdup_printf ("kubus::site::%lld", (long long)send->file_id);
  g_assert_cmpstr (cube_report_get_attr (r, key), ==, "0+0x10");
  g_autofree char *key2 = g_strdup_printf ("kubus::site::%lld", (long long)send2->file_id);
  g_assert_cmpstr (cube_report_get_attr (r, key2), ==, "0+0x20");
  g_assert_cmpstr (cube_report_get_attr (r, "kubus::ranks_without_profile"), ==, "0");
  g_assert_null (cube_report_get_attr (r, "kubus::incomplete"));
  /* algebra: the mean of the profile and itself keeps "no value" (not 2 * DBL_MAX = inf) */
  CubeReport *two[] = { r, r };
  g_autoptr (CubeReport) mean = cube_algebra_mean (two, 2, &error);
  g_assert_no_error (error);
  CubeMetric *mmn = cube_report_find_metric (mean, "min_time");
  CubeCnode  *mm = cnode_at (mean, "prog/main/MPI_Allreduce", -1);
  double      row[3];
  g_assert_true (cube_report_get_row (mean, mmn, mm, row, NULL));
  g_assert_true (cube_value_is_none (mmn, row[0]));
  g_assert_cmpfloat (row[1], ==, 5e-9);
  g_autofree char *out = g_build_filename (dir, "mean.cube", NULL);
  g_assert_true (cube_report_write (mean, out, &error));
  g_remove (out);
  g_remove (path);
  g_rmdir (dir);
}

/* a site key as kubus-run's: offsets 0x10 and 0x20 are one source line */
static guint64
same_line (void *data, const char *module, guint64 offset)
{
  g_assert_cmpstr (module, ==, "0badc0de /bin/prog");
  (*(int *)data)++;
  return offset == 0x20 ? 0x10 : offset;
}

/* Call sites with the same key (the compiler's two calls of one source line) merge into one
 * call path, with both sites kept for the source lookup. */
static void
test_merge_keyed (void)
{
  g_autofree char *dir = g_dir_make_tmp ("kubus-prof-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "profile.cube", NULL);
  KubusWords       a, b;
  char             err[256];
  int              calls = 0;
  KubusProfMerge  *m = kubus_prof_merge_new (2);

  kubus_prof_merge_set_site_key (m, same_line, &calls);
  record (&a, 0, NULL);
  record (&b, 1, NULL);
  g_assert_cmpint (kubus_prof_merge_add (m, a.w, a.n, err, sizeof err), ==, 0);
  g_assert_cmpint (kubus_prof_merge_add (m, b.w, b.n, err, sizeof err), ==, 0);
  g_assert_cmpint (kubus_prof_merge_write (m, path, "test", NULL, err, sizeof err), ==, 0);
  kubus_prof_merge_free (m);
  kubus_words_clear (&a);
  kubus_words_clear (&b);
  g_assert_cmpint (calls, >, 0);
  g_autoptr (GError) error = NULL;
  g_autoptr (CubeReport) r = cube_report_load (path, CUBE_LOAD_EAGER, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  /* main's MPI_Send from 0x10 and 0x20 is one call path now: 6 in all, rank 1's 3 + 2 visits */
  g_assert_cmpuint (r->cnodes->len, ==, 6);
  CubeCnode *send = cnode_at (r, "prog/main/MPI_Send", -1);
  g_assert_cmpfloat (stored (r, "visits", send, 1), ==, 5);
  g_assert_cmpfloat (stored (r, "visits", send, 0), ==, 4);
  g_autofree char *key = g_strdup_printf ("kubus::site::%lld", (long long)send->file_id);
  g_assert_cmpstr (cube_report_get_attr (r, key), ==, "0+0x10 0+0x20");
  g_remove (path);
  g_rmdir (dir);
}

/* Broken records: refused with a message, nothing of them merged. */
static void
test_bad_records (void)
{
  KubusWords      a;
  char            err[256];
  KubusProfMerge *m = kubus_prof_merge_new (2);
  record (&a, 0, NULL);
  struct
  {
    size_t      at;    /* word to change, or SIZE_MAX: cut the record there */
    uint64_t    value;
    size_t      cut;
    const char *message;
  } cases[] = {
    { 0, 42, 0, "not a Kubus profile record (bad magic number)" },
    { 1, 99, 0, "profile record of an unknown version" },
    { 3, 3, 0, "profile record of another run (rank or rank count does not fit)" },
    { 2, 5, 0, "profile record of another run (rank or rank count does not fit)" },
    { SIZE_MAX, 0, 5, "truncated profile record (header)" },
    { SIZE_MAX, 0, a.n - 1, "bad call path in profile record" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree uint64_t *w = g_memdup2 (a.w, a.n * sizeof *w);
      size_t               n = a.n;
      if (cases[i].at != SIZE_MAX)
        w[cases[i].at] = cases[i].value;
      else
        n = cases[i].cut;
      g_assert_cmpint (kubus_prof_merge_add (m, w, n, err, sizeof err), ==, -1);
      g_assert_cmpstr (err, ==, cases[i].message);
    }
  /* every word changed in turn: a valid record or a refused one, never a crash */
  for (size_t k = 0; k < a.n; k++)
    {
      g_autofree uint64_t *w = g_memdup2 (a.w, a.n * sizeof *w);
      w[k] ^= 0x40000000ull;
      kubus_prof_merge_add (m, w, a.n, err, sizeof err);
    }
  g_assert_cmpint (kubus_prof_merge_ranks (m), <=, 1);
  kubus_prof_merge_free (m);
  kubus_words_clear (&a);
}

/* A folder of saved records (an aborted run) with one that is not a record. */
static void
test_merge_dir (void)
{
  g_autofree char *dir = g_dir_make_tmp ("kubus-prof-XXXXXX", NULL);
  g_autofree char *saved = g_build_filename (dir, "saved", NULL);
  g_autofree char *path = g_build_filename (dir, "profile.cube", NULL);
  g_mkdir (saved, 0700);
  KubusWords a;
  record (&a, 0, "rank 0 called MPI_Abort (error code 3)");
  g_autofree char *f0 = g_build_filename (saved, "rank.0", NULL);
  g_autofree char *f1 = g_build_filename (saved, "rank.1", NULL);
  g_assert_true (g_file_set_contents (f0, (const char *)a.w, (gssize)(a.n * 8), NULL));
  g_assert_true (g_file_set_contents (f1, "garbage!", 8, NULL));
  kubus_words_clear (&a);
  char skipped[1024], err[256];
  int  ranks = 0, world = 0;
  g_assert_cmpint (kubus_prof_merge_dir (saved, path, "test", &ranks, &world, skipped,
                                         sizeof skipped, err, sizeof err),
                   ==, 0);
  g_assert_cmpint (ranks, ==, 1);
  g_assert_cmpint (world, ==, 2);
  g_assert_nonnull (strstr (skipped, "rank.1: not a whole profile record"));
  g_autoptr (GError) error = NULL;
  g_autoptr (CubeReport) r = cube_report_load (path, CUBE_LOAD_EAGER, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (cube_report_get_attr (r, "kubus::incomplete"), ==,
                   "rank 0 called MPI_Abort (error code 3)");
  g_assert_cmpstr (cube_report_get_attr (r, "kubus::ranks_without_profile"), ==, "1");
  g_assert_cmpuint (r->locations->len, ==, 2); /* rank 1 is there, without values */
  /* no record at all: an error naming the folder, no report */
  g_remove (f0);
  g_remove (path);
  g_assert_cmpint (kubus_prof_merge_dir (saved, path, "test", NULL, NULL, NULL, 0, err, sizeof err),
                   ==, -1);
  g_assert_nonnull (strstr (err, "no readable profile record in"));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  /* cannot write: the reason, and no temporary file left */
  g_autofree char *blocked = g_build_filename (dir, "missing", "profile.cube", NULL);
  KubusProfMerge  *m = kubus_prof_merge_new (1);
  g_assert_cmpint (kubus_prof_merge_write (m, blocked, "t", NULL, err, sizeof err), ==, -1);
  g_assert_nonnull (strstr (err, "cannot create a file next to"));
  kubus_prof_merge_free (m);
  g_remove (f1);
  g_rmdir (saved);
  g_rmdir (dir);
}

static void
test_categories (void)
{
  g_assert_cmpint (kubus_prof_category ("main"), ==, KUBUS_CAT_USER);
  g_assert_cmpint (kubus_prof_category ("MPI_Init_thread"), ==, KUBUS_CAT_INIT_EXIT);
  g_assert_cmpint (kubus_prof_category ("MPI_Finalize"), ==, KUBUS_CAT_INIT_EXIT);
  g_assert_cmpint (kubus_prof_category ("MPI_Ibarrier"), ==, KUBUS_CAT_BARRIER);
  g_assert_cmpint (kubus_prof_category ("MPI_Comm_split"), ==, KUBUS_CAT_MGMT);
  g_assert_cmpint (kubus_prof_category ("MPI_Allgatherv"), ==, KUBUS_CAT_COLL);
  g_assert_cmpint (kubus_prof_category ("MPI_Reduce_local"), ==, KUBUS_CAT_OTHER);
  g_assert_cmpint (kubus_prof_category ("MPI_Sendrecv_replace"), ==, KUBUS_CAT_P2P);
  g_assert_cmpint (kubus_prof_category ("MPI_Waitsome"), ==, KUBUS_CAT_P2P);
  g_assert_cmpint (kubus_prof_category ("MPI_Neighbor_alltoall"), ==, KUBUS_CAT_COLL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/profile/merge-write", test_merge_write);
  g_test_add_func ("/profile/merge-keyed", test_merge_keyed);
  g_test_add_func ("/profile/bad-records", test_bad_records);
  g_test_add_func ("/profile/merge-dir", test_merge_dir);
  g_test_add_func ("/profile/categories", test_categories);
  return g_test_run ();
}
