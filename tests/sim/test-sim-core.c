/* test-sim-core — unit tests of the simulator's pieces on traces with known times
 * (sim-trace-gen.c "exact": one tick is one millisecond): the hypothesis parser and its errors,
 * region lookup with suggestions, every transformation, message matching, the offline engine
 * with a hand-set model, the model fit, the OTF2 writer (write, read back, same events). */
#include "sim-private.h"
#include "remove-tree.h"
#include "sim-trace-gen.h"

#include <glib/gstdio.h>
#include <math.h>
#include <otf2/otf2.h>
#include <string.h>
#include <unistd.h>

void analyze_quiet_otf2 (void);

typedef struct
{
  char      *dir;
  char      *anchor;
  TraceDefs *defs;
  Transport *t;
  SimRank   *srs[4];
  int        n;
} Fixture;

static void
fixture_load (Fixture    *f,
              const char *variant)
{
  g_autoptr (GError) error = NULL;
  f->dir = g_dir_make_tmp ("sim-test-XXXXXX", &error);
  g_assert_no_error (error);
  g_assert_true (sim_trace_gen_write (f->dir, variant));
  f->anchor = g_build_filename (f->dir, "traces.otf2", NULL);
  f->defs = trace_defs_read (f->anchor, &error);
  g_assert_no_error (error);
  f->n = f->defs->n_ranks;
  g_assert_cmpint (f->n, ==, strcmp (variant, "tree") == 0 ? 4 : 2);
  f->t = transport_local_new (f->n);
  for (int r = 0; r < f->n; r++)
    {
      f->srs[r] = sim_rank_new (r, f->defs);
      g_assert_true (trace_events_read (f->anchor, f->srs[r], NULL, NULL, &error));
      g_assert_no_error (error);
    }
}

static void
fixture_free (Fixture *f)
{
  for (int r = 0; r < f->n; r++)
    sim_rank_free (f->srs[r]);
  f->t->free (f->t);
  trace_defs_free (f->defs);
  kubus_remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->anchor);
}

static guint32
region_id (const TraceDefs *defs,
           const char      *name)
{
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, defs->regions);
  while (g_hash_table_iter_next (&it, &k, &v))
    if (strcmp (((TraceRegion *) v)->name, name) == 0)
      return GPOINTER_TO_UINT (k);
  g_assert_not_reached ();
  return 0;
}

/* Time in ms of the @nth (0-based) event of @type (with region @name for Enter/Leave) on @sr:
 * the transformed time, or the simulated one when @use_new. -1 if there is none. */
static double
ev_ms (SimRank    *sr,
       SimEvType   type,
       const char *name,
       int         nth,
       gboolean    use_new)
{
  guint32 reg = name ? region_id (sr->defs, name) : 0;
  SimEvent *ev = (SimEvent *) sr->ev->data;
  for (guint k = 0; k < sr->ev->len; k++)
    {
      if (ev[k].type != type || (ev[k].flags & EVF_REMOVED))
        continue;
      if (name && ev[k].region != reg)
        continue;
      if (nth-- == 0)
        return (use_new ? sr->new_time[k] : ev[k].time) / 1e6;
    }
  return -1;
}

static Hypothesis *
hyp (const char *text)
{
  g_autoptr (GError) error = NULL;
  Hypothesis *h = sim_hypothesis_parse ("h.hyp", text, strlen (text), &error);
  g_assert_no_error (error);
  return h;
}

/* ---- parser ---------------------------------------------------------------------------- */

static void
test_parse_ok (void)
{
  g_autoptr (Hypothesis) h = hyp ("# comment\n"
                                  "scale region foo by 0.5   # halve it\n"
                                  "\n"
                                  "  BALANCE Region \"my region\"\n"
                                  "balance region bar globally\n"
                                  "remove messages with size <= 1024\n"
                                  "remove messages with tag == 7\n"
                                  "remove messages in region halo\r\n");
  Rule *r;
  g_assert_cmpuint (h->rules->len, ==, 6);
  r = h->rules->pdata[0];
  g_assert_cmpint (r->kind, ==, RULE_SCALE);
  g_assert_cmpstr (r->region_name, ==, "foo");
  g_assert_cmpfloat (r->factor, ==, 0.5);
  g_assert_cmpuint (r->line, ==, 2);
  g_assert_cmpstr (r->text, ==, "scale region foo by 0.5");
  r = h->rules->pdata[1];
  g_assert_cmpint (r->kind, ==, RULE_BALANCE);
  g_assert_cmpstr (r->region_name, ==, "my region");
  g_assert_cmpuint (r->name_col, ==, 18);
  g_assert_cmpint (((Rule *) h->rules->pdata[2])->kind, ==, RULE_BALANCE_GLOBAL);
  r = h->rules->pdata[3];
  g_assert_cmpint (r->kind, ==, RULE_REMOVE_SIZE);
  g_assert_cmpint (r->op, ==, OP_LE);
  g_assert_cmpuint (r->value, ==, 1024);
  r = h->rules->pdata[4];
  g_assert_cmpint (r->kind, ==, RULE_REMOVE_TAG);
  g_assert_cmpint (r->op, ==, OP_EQ);
  g_assert_cmpuint (r->value, ==, 7);
  r = h->rules->pdata[5];
  g_assert_cmpint (r->kind, ==, RULE_REMOVE_REGION);
  g_assert_cmpstr (r->region_name, ==, "halo");
  g_assert_true (sim_rule_op_holds (OP_LT, 1, 2) && !sim_rule_op_holds (OP_GT, 1, 2));
  g_assert_cmpuint (sim_edit_distance ("kitten", "sitting"), ==, 3);
  g_assert_cmpuint (sim_edit_distance ("", "foo"), ==, 3);
}

static void
test_parse_empty (void)
{
  g_autoptr (Hypothesis) h = hyp ("");
  g_autoptr (Hypothesis) h2 = hyp ("# nothing but comments\n\n   \n");
  g_assert_cmpuint (h->rules->len, ==, 0);
  g_assert_cmpuint (h2->rules->len, ==, 0);
}

static void
test_parse_errors (void)
{
  static const char *cases[][2] = {
    { "scale foo by 2", "h.hyp:1:7: expected “region” after “scale”, found “foo”" },
    { "scale region foo by x", "h.hyp:1:21: “x” is not a number (a factor such as 0.5 or 2)" },
    { "scale region foo by -1", "h.hyp:1:21: the factor -1 is negative: a region cannot take less than no time" },
    { "scale region foo", "h.hyp:1:17: expected “by” after “foo”, found the end of the line" },
    { "scale region foo bye 2", "h.hyp:1:18: expected “by” after “foo”, found “bye” (did you mean “by”?)" },
    { "scale region foo by 2 now", "h.hyp:1:23: unexpected “now” after the end of the rule" },
    { "balance region foo globaly", "h.hyp:1:20: expected “globally” after “foo”, found “globaly” (did you mean “globally”?)" },
    { "balance region", "h.hyp:1:15: expected a region name after “region”" },
    { "remove messages with size = 0", "h.hyp:1:27: “=” is not a comparison: write “==”" },
    { "remove messages with color == 0", "h.hyp:1:22: expected “size” or “tag” after “with”, found “color”" },
    { "remove messages with size == many", "h.hyp:1:30: “many” is not a whole number" },
    { "remove messages with tag == 99999999999", "h.hyp:1:29: the tag 99999999999 is larger than any MPI tag" },
    { "remove messages", "h.hyp:1:16: expected “with size|tag OP N” or “in region NAME” after “remove messages”" },
    { "sclae region foo by 2", "h.hyp:1:1: unknown rule “sclae” (did you mean “scale”?)" },
    { "speed up foo", "h.hyp:1:1: unknown rule “speed”: rules start with scale, balance or remove" },
    { "# ok\n\n  remove messages in region \"foo", "h.hyp:3:29: the quoted name has no closing quote" },
    { "balance region \"\"", "h.hyp:1:16: the region name is empty" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      Hypothesis *h = sim_hypothesis_parse ("h.hyp", cases[i][0], strlen (cases[i][0]), &error);
      g_assert_null (h);
      g_assert_nonnull (error);
      g_assert_cmpstr (error->message, ==, cases[i][1]);
    }
  {
    g_autoptr (GError) error = NULL;
    g_assert_null (sim_hypothesis_parse ("h.hyp", "scale\0region", 12, &error));
    g_assert_cmpstr (error->message, ==, "h.hyp:1: a NUL byte in the line");
  }
  {
    g_autoptr (GError) error = NULL;
    g_assert_null (sim_hypothesis_parse ("h.hyp", "scale \xff", 7, &error));
    g_assert_cmpstr (error->message, ==, "h.hyp: not a text file (invalid UTF-8)");
  }
}

/* every example in data/hypotheses parses */
static void
test_examples (void)
{
  const char *root = g_getenv ("KUBUS_SOURCE_ROOT");
  g_autofree char *dir = NULL;
  GDir *d;
  const char *name;
  guint n = 0;

  if (!root)
    {
      g_test_skip ("KUBUS_SOURCE_ROOT not set");
      return;
    }
  dir = g_build_filename (root, "data", "hypotheses", NULL);
  d = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)))
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (Hypothesis) h = NULL;
      if (!g_str_has_suffix (name, ".hyp"))
        continue;
      h = sim_hypothesis_load (path, &error);
      g_assert_no_error (error);
      g_assert_true (strcmp (name, "identity.hyp") == 0 ? h->rules->len == 0 : h->rules->len > 0);
      n++;
    }
  g_dir_close (d);
  g_assert_cmpuint (n, >=, 6);
}

static void
test_resolve (void)
{
  Fixture f = { 0 };
  static const char *cases[][2] = {
    { "balance region fo", "h.hyp:1:16: region fo is not in the trace; did you mean foo?" },
    { "balance region Foo", "h.hyp:1:16: region Foo is not in the trace; did you mean foo?" },
    { "scale region baz by 2", "h.hyp:1:14: region baz is not in the trace; did you mean bar?" },
    { "scale region computation by 2", "h.hyp:1:14: region computation is not in the trace; the program's regions are "
                                       "bar, foo, main (with call paths from the stack, a function is a region where it "
                                       "is on the stack at an MPI call: one that calls no MPI counts as part of its "
                                       "caller; kubus_region_begin/end around it, or -finstrument-functions, make "
                                       "it a region)" },
    { "\nscale region MPI_Send by 0.5",
      "h.hyp:2:14: MPI_Send is an MPI function: its time comes from the re-enacted communication; "
      "scale or balance the code around it instead" },
  };
  fixture_load (&f, "exact");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (Hypothesis) h = hyp (cases[i][0]);
      g_assert_false (sim_hypothesis_resolve (h, f.defs, &error));
      g_assert_cmpstr (error->message, ==, cases[i][1]);
    }
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (Hypothesis) h = hyp ("remove messages in region MPI_Send\nbalance region foo");
    g_assert_true (sim_hypothesis_resolve (h, f.defs, &error));
    g_assert_cmpuint (((Rule *) h->rules->pdata[1])->n_regions, ==, 1);
  }
  fixture_free (&f);
}

static void
add_region (TraceDefs  *defs,
            guint32     id,
            const char *name)
{
  TraceRegion *r = g_new0 (TraceRegion, 1);

  r->name = g_strdup (name);
  r->klass = RC_USER;
  g_assert_null (g_hash_table_lookup (defs->regions, GUINT_TO_POINTER (id)));
  g_hash_table_insert (defs->regions, GUINT_TO_POINTER (id), r);
}

/* A C++ function written as kubus-sim's summary shows it, its parameter list left out, names the
 * function when it is one (OpenFOAM, second sweep of 2026-11-29: "Foam::PCG::scalarSolve(…) const"
 * copied from the summary was refused); overloads are refused with their names; a whole name wins. */
static void
test_resolve_short (void)
{
  Fixture f = { 0 };

  fixture_load (&f, "exact");
  add_region (f.defs, 9001, "ns::Solver::solve(double*, int) const");
  add_region (f.defs, 9002, "ns::grad<double>(ns::Field<double> const&)");
  add_region (f.defs, 9003, "ns::grad<double>(ns::Field<double>&)");
  add_region (f.defs, 9004, "ns::norm(…)");
  add_region (f.defs, 9005, "ns::norm(int)");
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (Hypothesis) h = hyp ("scale region \"ns::Solver::solve(…) const\" by 0.5\n"
                                    "balance region \"ns::norm(…)\"");
    g_assert_true (sim_hypothesis_resolve (h, f.defs, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (((Rule *) h->rules->pdata[0])->n_regions, ==, 1);
    g_assert_cmpuint (((Rule *) h->rules->pdata[0])->regions[0], ==, 9001);
    g_assert_cmpuint (((Rule *) h->rules->pdata[1])->n_regions, ==, 1);
    g_assert_cmpuint (((Rule *) h->rules->pdata[1])->regions[0], ==, 9004);
  }
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (Hypothesis) h = hyp ("scale region \"ns::grad<double>(…)\" by 2\n"
                                    "scale region \"ns::Solver::solve(…)\" by 2");
    g_assert_false (sim_hypothesis_resolve (h, f.defs, &error));
    g_assert_cmpstr (error->message, ==,
                     "h.hyp:1:14: region ns::grad<double>(…) stands for several functions, "
                     "ns::grad<double>(ns::Field<double> const&) or ns::grad<double>(ns::Field<double>&): "
                     "quote the one meant with its parameter list\n"
                     "h.hyp:2:14: region ns::Solver::solve(…) is not in the trace; did you mean "
                     "ns::Solver::solve(double*, int) const?");
  }
  /* a C++ function named without its parameter list, as its programmer writes it (third sweep:
   * Boost.MPI's "physics::Solver::step" was not in the trace): the one function of that name,
   * a template instance after its return type too; overloads refused; a name that is only the
   * end of a qualified one ("Solver::solve") is not it */
  add_region (f.defs, 9006, "void ns::halo<ns::Field<double> >(ns::Field<double>&, int)");
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (Hypothesis) h = hyp ("scale region ns::Solver::solve by 0.5\n"
                                    "scale region \"ns::halo<ns::Field<double> >\" by 0.5");
    g_assert_true (sim_hypothesis_resolve (h, f.defs, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (((Rule *) h->rules->pdata[0])->n_regions, ==, 1);
    g_assert_cmpuint (((Rule *) h->rules->pdata[0])->regions[0], ==, 9001);
    g_assert_cmpuint (((Rule *) h->rules->pdata[1])->n_regions, ==, 1);
    g_assert_cmpuint (((Rule *) h->rules->pdata[1])->regions[0], ==, 9006);
  }
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (Hypothesis) h = hyp ("scale region \"ns::grad<double>\" by 2\nscale region Solver::solve by 2");
    g_assert_false (sim_hypothesis_resolve (h, f.defs, &error));
    g_assert_cmpstr (error->message, ==,
                     "h.hyp:1:14: region ns::grad<double> stands for several functions, "
                     "ns::grad<double>(ns::Field<double> const&) or ns::grad<double>(ns::Field<double>&): "
                     "quote the one meant with its parameter list\n"
                     "h.hyp:2:14: region Solver::solve is not in the trace; did you mean "
                     "ns::Solver::solve(double*, int) const?");
  }
  /* no name close: the program's regions are listed, not the measurement's KUBUS_UNKNOWN_REGION
   * (every trace defines it; it came first in every such list) */
  add_region (f.defs, 9007, "KUBUS_UNKNOWN_REGION");
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (Hypothesis) h = hyp ("scale region qqqqqqqqqqqq by 2");
    g_assert_false (sim_hypothesis_resolve (h, f.defs, &error));
    g_assert_true (g_str_has_prefix (error->message, "h.hyp:1:14: region qqqqqqqqqqqq is not in the trace; the "
                                                     "program's regions are bar, foo, main, ns::Solver::solve(double*, "
                                                     "int) const, ns::grad<double>(ns::Field<double> const&), "
                                                     "ns::grad<double>(ns::Field<double>&), ns::norm(int), ns::norm(…) "
                                                     "and 1 more ("));
  }
  /* the same against a report's names, as the Simulate dialog checks */
  {
    const char *const names[] = { "main", "a::f(int)", "a::f(long)", "a::g(int) const", "MPI_Send" };
    const gboolean mpi[] = { FALSE, FALSE, FALSE, FALSE, TRUE };
    static const char text[] = "scale region \"a::g(…) const\" by 2\nbalance region \"a::f(…)\"\nbalance region a::g\n";
    g_autoptr (GPtrArray) errors = g_ptr_array_new_with_free_func (g_free);
    g_autoptr (Hypothesis) m = sim_hypothesis_parse_all ("h.hyp", text, strlen (text), errors);

    g_assert_cmpuint (errors->len, ==, 0);
    sim_hypothesis_check_names (m, names, G_N_ELEMENTS (names), mpi, errors);
    g_assert_cmpuint (errors->len, ==, 1);
    g_assert_cmpstr (errors->pdata[0], ==, "h.hyp:2:16: region a::f(…) stands for several functions, a::f(int) or "
                                           "a::f(long): quote the one meant with its parameter list");
  }
  fixture_free (&f);
}

/* Every error at once, in line order: a keyword typo and a region typo in the same line, a bad
 * number, a bad comparison (issue 24, item 15: they came one kubus-sim run at a time). */
static void
test_all_errors (void)
{
  Fixture f = { 0 };
  static const char text[] =
    "balance region fo globaly\n"
    "scale region foo by x\n"
    "# fine\n"
    "balance region bar\n"
    "remove messages with size = 0\n"
    "scale region baz by 2\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) errors = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (Hypothesis) all = NULL;

  g_assert_null (sim_hypothesis_parse ("h.hyp", text, strlen (text), &error));
  g_assert_cmpstr (error->message, ==,
                   "h.hyp:1:19: expected “globally” after “fo”, found “globaly” (did you mean “globally”?)\n"
                   "h.hyp:2:21: “x” is not a number (a factor such as 0.5 or 2)\n"
                   "h.hyp:5:27: “=” is not a comparison: write “==”");
  /* the rules that parsed, and the broken lines' region names, checked against the trace */
  all = sim_hypothesis_parse_all ("h.hyp", text, strlen (text), errors);
  g_assert_nonnull (all);
  g_assert_cmpuint (errors->len, ==, 3);
  g_assert_cmpuint (all->rules->len, ==, 2);
  fixture_load (&f, "exact");
  g_clear_error (&error);
  g_assert_false (sim_hypothesis_resolve (all, f.defs, &error));
  g_assert_cmpstr (error->message, ==,
                   "h.hyp:1:16: region fo is not in the trace; did you mean foo?\n"
                   "h.hyp:6:14: region baz is not in the trace; did you mean bar?");
  /* the same against a report's names, as the Simulate dialog checks */
  {
    const char *const names[] = { "main", "foo", "bar", "MPI_Send" };
    const gboolean mpi[] = { FALSE, FALSE, FALSE, TRUE };
    g_autoptr (GPtrArray) more = g_ptr_array_new_with_free_func (g_free);
    g_autoptr (Hypothesis) m = sim_hypothesis_parse_all ("h.hyp", "scale region MPI_Send by 2\nbalance region mian\n",
                                                         46, more);

    g_assert_cmpuint (more->len, ==, 0);
    sim_hypothesis_check_names (m, names, G_N_ELEMENTS (names), mpi, more);
    g_assert_cmpuint (more->len, ==, 2);
    g_assert_cmpstr (more->pdata[0], ==, "h.hyp:1:14: MPI_Send is an MPI function: its time comes from the "
                                         "re-enacted communication; scale or balance the code around it instead");
    g_assert_cmpstr (more->pdata[1], ==, "h.hyp:2:16: region mian is not in the report; did you mean main?");
  }
  /* nothing close among many: the first eight of the program's regions by name, and how many more;
   * MPI's are not offered */
  {
    const char *const names[] = { "k", "j", "i", "h", "g", "f", "e", "d", "c", "b", "MPI_Send", "a", "b" };
    const gboolean mpi[] = { FALSE, FALSE, FALSE, FALSE, FALSE, FALSE, FALSE, FALSE, FALSE, FALSE, TRUE, FALSE, FALSE };
    g_autoptr (GPtrArray) more = g_ptr_array_new_with_free_func (g_free);
    g_autoptr (GError) parse_error = NULL;
    g_autoptr (Hypothesis) m = sim_hypothesis_parse ("h.hyp", "balance region solver_kernel", 28, &parse_error);

    g_assert_no_error (parse_error);
    sim_hypothesis_check_names (m, names, G_N_ELEMENTS (names), mpi, more);
    g_assert_cmpuint (more->len, ==, 1);
    g_assert_cmpstr (more->pdata[0], ==, "h.hyp:1:16: region solver_kernel is not in the report; the program's regions "
                                         "are a, b, c, d, e, f, g, h and 3 more (with call paths from the stack, a "
                                         "function is a region where it is on the stack at an MPI call: one that calls "
                                         "no MPI counts as part of its caller; kubus_region_begin/end around it, or "
                                         "-finstrument-functions, make it a region)");
  }
  /* kubus-sim itself: syntax errors and unknown regions in one message, in line order, also the
   * region of a line whose keyword has a typo (before, kubus-sim stopped at the syntax errors) */
  {
    g_autofree char *path = g_build_filename (g_get_tmp_dir (), "kubus-test-typos-XXXXXX.hyp", NULL);
    static const char typos[] = "balanse region fo\n"
                                "balance regon fo\n"
                                "balance region fo\n"
                                "scale region foo by x\n"
                                "remove messages in regin baz\n"
                                "balance region foo\n";
    int fd = g_mkstemp (path);

    g_assert_cmpint (fd, >=, 0);
    g_assert_true (g_file_set_contents (path, typos, -1, NULL));
    close (fd);
    g_clear_error (&error);
    g_assert_null (sim_hypothesis_load_resolved (path, f.defs, &error));
    {
      g_autofree char *want = g_strdup_printf (
        "%1$s:1:1: unknown rule “balanse” (did you mean “balance”?)\n"
        "%1$s:1:16: region fo is not in the trace; did you mean foo?\n"
        "%1$s:2:9: expected “region” after “balance”, found “regon” (did you mean “region”?)\n"
        "%1$s:2:15: region fo is not in the trace; did you mean foo?\n"
        "%1$s:3:16: region fo is not in the trace; did you mean foo?\n"
        "%1$s:4:21: “x” is not a number (a factor such as 0.5 or 2)\n"
        "%1$s:5:20: expected “region” after “in”, found “regin” (did you mean “region”?)\n"
        "%1$s:5:26: region baz is not in the trace; did you mean bar?", path);
      g_assert_cmpstr (error->message, ==, want);
    }
    g_unlink (path);
  }
  fixture_free (&f);
}

/* ---- transformations -------------------------------------------------------------------- */

static void
transform (Fixture           *f,
           const char        *text,
           SimTransformStats *st)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (Hypothesis) h = hyp (text);
  g_assert_true (sim_hypothesis_resolve (h, f->defs, &error));
  g_assert_true (sim_transform (f->t, f->srs, h, st, &error));
  g_assert_no_error (error);
}

static void
test_identity (void)
{
  Fixture f = { 0 };
  SimTransformStats st = { 0 };
  fixture_load (&f, "exact");
  g_assert_cmpuint (f.srs[0]->ev->len, ==, 23);
  g_assert_cmpuint (f.srs[1]->ev->len, ==, 25);
  transform (&f, "", &st);
  g_assert_cmpuint (st.messages, ==, 2);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_LEAVE, "main", 0, FALSE), ==, 41);
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_RECV, NULL, 0, FALSE), ==, 15);
  /* the matching links both sides */
  {
    SimEvent *ev0 = (SimEvent *) f.srs[0]->ev->data, *ev1 = (SimEvent *) f.srs[1]->ev->data;
    for (guint k = 0; k < f.srs[0]->ev->len; k++)
      if (ev0[k].type == EV_SEND)
        {
          g_assert_cmpint (ev1[ev0[k].link].type, ==, EV_RECV);
          g_assert_cmpuint (ev1[ev0[k].link].link, ==, k);
        }
  }
  fixture_free (&f);
}

static void
test_scale (void)
{
  Fixture f = { 0 };
  SimTransformStats st = { 0 };
  fixture_load (&f, "exact");
  transform (&f, "scale region foo by 2", &st);
  /* rank 0: foo 3..13 → 3..23; Send 23..24; foo 24..32; Isend 32; Allreduce 39; main ends 55 */
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_LEAVE, "foo", 0, FALSE), ==, 23);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_SEND, NULL, 0, FALSE), ==, 23);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_LEAVE, "foo", 1, FALSE), ==, 32);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_ENTER, "MPI_Allreduce", 0, FALSE), ==, 39);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_LEAVE, "main", 0, FALSE), ==, 55);
  /* rank 1: foo 3..7; the receive keeps its 10 ms; foo 17..41 */
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_LEAVE, "foo", 0, FALSE), ==, 7);
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_RECV, NULL, 0, FALSE), ==, 17);
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_LEAVE, "foo", 1, FALSE), ==, 41);
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_LEAVE, "bar", 0, FALSE), ==, 45);
  g_assert_cmpint (st.added_time, ==, 28000000);
  fixture_free (&f);
}

/* A trace buffer flush inside the region is the measurement's time, not the program's: scale
 * and balance leave it as it was (Ray's trace: 0.39 s of KUBUS_FLUSH were scaled with it). */
static void
test_scale_flush (void)
{
  Fixture f = { 0 };
  SimTransformStats st = { 0 };
  fixture_load (&f, "flush");
  transform (&f, "scale region foo by 2", &st);
  /* rank 0: foo 3..13 holds 8 ms of computation and the 2 ms flush → 3..21 */
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_ENTER, "KUBUS_FLUSH", 0, FALSE), ==, 7);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_LEAVE, "KUBUS_FLUSH", 0, FALSE), ==, 9);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_LEAVE, "foo", 0, FALSE), ==, 21);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_SEND, NULL, 0, FALSE), ==, 21);
  g_assert_cmpint (st.added_time, ==, 26000000);
  fixture_free (&f);
}

static void
test_balance (void)
{
  Fixture f = { 0 };
  SimTransformStats st = { 0 };
  fixture_load (&f, "exact");
  transform (&f, "balance region foo", &st);
  /* per instance: visit 1 → 6 ms, visit 2 → 8 ms on both ranks */
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_LEAVE, "foo", 0, FALSE), ==, 9);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_ENTER, "foo", 1, FALSE), ==, 10);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_LEAVE, "foo", 1, FALSE), ==, 18);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_LEAVE, "main", 0, FALSE), ==, 41);
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_LEAVE, "foo", 0, FALSE), ==, 9);
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_RECV, NULL, 0, FALSE), ==, 19);
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_LEAVE, "foo", 1, FALSE), ==, 27);
  fixture_free (&f);
}

/* Where the collector sampled a visit (ranks that outnumbered the cores), balance evens out
 * the time each visit needs on a core of its own, its CPU time and sleep, not its wall time:
 * rank 0's first foo (10 ms) ran a fifth of it and slept a fifth (4 ms of its own), rank 1's
 * (2 ms) was not sampled (on its CPU throughout): both need 3 ms, so rank 0's takes 7.5 ms of
 * wall time at its shares and rank 1's 3 ms. */
static void
test_balance_cpu (void)
{
  Fixture f = { 0 };
  SimTransformStats st = { 0 };
  SimEvent *ev;
  guint32 foo;
  guint enter = 0, leave = 0;

  fixture_load (&f, "exact");
  ev = (SimEvent *) f.srs[0]->ev->data;
  foo = region_id (f.srs[0]->defs, "foo");
  for (guint k = 0; k < f.srs[0]->ev->len; k++)
    if (ev[k].region == foo && ev[k].type == EV_ENTER && enter == 0)
      enter = k;
    else if (ev[k].region == foo && ev[k].type == EV_LEAVE && leave == 0)
      leave = k;
  g_assert_cmpuint (leave, >, enter);
  for (guint k = enter + 1; k <= leave; k++)
    {
      ev[k].flags |= EVF_CPU;
      ev[k].spare = 51 | (51 << 8);
    }
  transform (&f, "balance region foo", &st);
  g_assert_cmpfloat_with_epsilon (ev_ms (f.srs[0], EV_LEAVE, "foo", 0, FALSE), 10.5, 1e-6);
  g_assert_cmpfloat_with_epsilon (ev_ms (f.srs[1], EV_LEAVE, "foo", 0, FALSE), 6.0, 1e-6);
  fixture_free (&f);
}

static void
test_balance_global (void)
{
  Fixture f = { 0 };
  SimTransformStats st = { 0 };
  fixture_load (&f, "exact");
  transform (&f, "balance region foo globally", &st);
  /* every visit → 7 ms */
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_LEAVE, "foo", 0, FALSE), ==, 10);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_LEAVE, "foo", 1, FALSE), ==, 18);
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_LEAVE, "foo", 0, FALSE), ==, 10);
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_ENTER, "foo", 1, FALSE), ==, 20);
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_LEAVE, "foo", 1, FALSE), ==, 27);
  g_assert_cmpint (st.added_time, ==, 0);
  fixture_free (&f);
}

/* A function known only from the stack: balanced per computation phase (docs/hypotheses.md),
 * phase means 1.5, 6, 8, 0, 4, 1, 1 ms; a user region of the same shape per visit. */
static void
test_balance_phases (void)
{
  Fixture f = { 0 };
  SimTransformStats st = { 0 };
  fixture_load (&f, "frames");
  transform (&f, "balance region main", &st);
  /* rank 0: MPI_Init 1.5..3.5; foo 3.5..9.5; Send ..10.5; foo 10.5..18.5; Isend, Wait ..20.5;
   * Allreduce from 24.5 */
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_ENTER, "MPI_Init", 0, FALSE), ==, 1.5);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_LEAVE, "foo", 0, FALSE), ==, 9.5);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_LEAVE, "foo", 1, FALSE), ==, 18.5);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_ENTER, "MPI_Allreduce", 0, FALSE), ==, 24.5);
  /* rank 1: MPI_Init 1.5..2.5; foo 2.5..8.5; the receive keeps its 10 ms; foo 18.5..26.5;
   * bar stretched from 3 to 4 ms: 27.5..31.5 */
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_ENTER, "MPI_Init", 0, FALSE), ==, 1.5);
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_LEAVE, "foo", 0, FALSE), ==, 8.5);
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_LEAVE, "foo", 1, FALSE), ==, 26.5);
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_LEAVE, "bar", 0, FALSE), ==, 31.5);
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_ENTER, "MPI_Allreduce", 0, FALSE), ==, 31.5);
  fixture_free (&f);
  /* the same trace with main a user region: one visit each (22 and 21 ms), both 21.5 */
  fixture_load (&f, "exact");
  transform (&f, "balance region main", &st);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_LEAVE, "foo", 0, FALSE), !=, 9.5);
  fixture_free (&f);
}

static void
test_remove_size (void)
{
  Fixture f = { 0 };
  SimTransformStats st = { 0 };
  fixture_load (&f, "exact");
  transform (&f, "remove messages with size == 0", &st);
  g_assert_cmpuint (st.messages, ==, 2);
  g_assert_cmpuint (st.removed_messages, ==, 1);
  g_assert_cmpuint (st.removed_calls, ==, 4);
  g_assert_cmpint (st.removed_time, ==, 3000000);   /* Isend 1 + Wait 1 + Irecv 1 + Wait 0 ms */
  /* both sides and their request calls are gone; later events move up by the calls' time */
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_ENTER, "MPI_Isend", 0, FALSE), ==, -1);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_ISEND_COMPLETE, NULL, 0, FALSE), ==, -1);
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_IRECV_REQUEST, NULL, 0, FALSE), ==, -1);
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_ENTER, "MPI_Wait", 0, FALSE), ==, -1);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_ENTER, "MPI_Allreduce", 0, FALSE), ==, 23);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_LEAVE, "main", 0, FALSE), ==, 39);
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_ENTER, "bar", 0, FALSE), ==, 27);
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_LEAVE, "main", 0, FALSE), ==, 40);
  /* the 8-byte message stays */
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_RECV, NULL, 0, FALSE), ==, 15);
  fixture_free (&f);
}

static void
test_remove_tag_region (void)
{
  Fixture f = { 0 };
  SimTransformStats st = { 0 };
  fixture_load (&f, "exact");
  transform (&f, "remove messages in region foo\nremove messages with tag == 1", &st);
  g_assert_cmpuint (st.removed_messages, ==, 1);
  g_assert_cmpuint (st.removed_calls, ==, 2);
  /* rank 1's 10 ms receive disappears: foo's second visit follows the first */
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_RECV, NULL, 0, FALSE), ==, -1);
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_ENTER, "foo", 1, FALSE), ==, 5);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_ENTER, "foo", 1, FALSE), ==, 13);
  fixture_free (&f);
}

static void
test_remove_in_region (void)
{
  Fixture f = { 0 };
  SimTransformStats st = { 0 };
  fixture_load (&f, "exact");
  /* the receiving side alone decides: the message received in MPI_Recv goes from both sides */
  transform (&f, "remove messages in region MPI_Recv", &st);
  g_assert_cmpuint (st.removed_messages, ==, 1);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_SEND, NULL, 0, FALSE), ==, -1);
  fixture_free (&f);
}

/* A send nobody received (a message left in flight at the end) is left out, not refused: its
 * call keeps its time, nothing else is removed. */
static void
test_unmatched (void)
{
  Fixture f = { 0 };
  SimTransformStats st = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (Hypothesis) h = hyp ("");
  fixture_load (&f, "unmatched");
  g_assert_true (sim_transform (f.t, f.srs, h, &st, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (st.unreceived, ==, 1);
  g_assert_cmpuint (st.removed_messages, ==, 0);
  g_assert_cmpuint (st.removed_calls, ==, 0);
  g_assert_cmpint (st.removed_time, ==, 0);
  /* the first send left is the received one of tag 1 at 13 ms; MPI_Send 6..7 stays */
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_SEND, NULL, 0, FALSE), ==, 13);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_ENTER, "MPI_Send", 0, FALSE), ==, 6);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_LEAVE, "MPI_Send", 0, FALSE), ==, 7);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_ENTER, "MPI_Send", 1, FALSE), ==, 13);
  /* the received message is still matched */
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_RECV, NULL, 0, FALSE), ==, 15);
  fixture_free (&f);
}

static void
test_refused_and_approximated (void)
{
  Fixture f = { 0 };
  SimPlanNotes notes;
  fixture_load (&f, "omp");
  g_assert_cmpuint (GPOINTER_TO_SIZE (g_hash_table_lookup (f.srs[1]->refused, "ThreadFork")), ==, 1);
  g_assert_cmpuint (g_hash_table_size (f.srs[0]->refused), ==, 0);
  fixture_free (&f);

  fixture_load (&f, "approx");
  sim_plan_notes_init (&notes);
  for (int r = 0; r < 2; r++)
    {
      g_autoptr (GError) error = NULL;
      SimPlan *p = sim_plan_build (f.srs[r], &notes, &error);
      g_assert_no_error (error);
      sim_plan_free (p);
    }
  g_assert_cmpuint (GPOINTER_TO_SIZE (g_hash_table_lookup (notes.approximated, "MPI_Ibarrier")), ==, 2);
  sim_plan_notes_clear (&notes);
  fixture_free (&f);
}

/* ---- plan, offline engine, model, writer ------------------------------------------------ */

static void
offline (Fixture  *f,
         SimModel *m,
         guint64   expect_events)
{
  g_autoptr (GError) error = NULL;
  SimPlanNotes notes;
  SimPlan *plans[4];
  guint64 n = 0;

  sim_plan_notes_init (&notes);
  for (int r = 0; r < f->n; r++)
    {
      plans[r] = sim_plan_build (f->srs[r], &notes, &error);
      g_assert_no_error (error);
    }
  g_assert_true (sim_offline_run (f->srs, plans, f->n, m, FALSE, &n, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n, ==, expect_events);
  for (int r = 0; r < f->n; r++)
    sim_plan_free (plans[r]);
  sim_plan_notes_clear (&notes);
}

static SimModel *
fit (Fixture *f)
{
  sim_plan_sync_tails (f->t, f->srs);
  g_assert_true (sim_match_messages (f->t, f->srs, NULL, NULL, NULL, NULL));
  return sim_model_fit (f->srs, f->n);
}

/* The identity: every call costs what its class cost (here one call per class), so every event
 * comes back at its recorded time. */
static void
test_offline_identity (void)
{
  Fixture f = { 0 };
  SimTransformStats st = { 0 };
  SimModel *m;

  fixture_load (&f, "exact");
  m = fit (&f);
  g_assert_cmpint (f.srs[0]->init_tail, ==, 1000000);
  g_assert_cmpint (f.srs[1]->fin_tail, ==, 5000000);
  transform (&f, "", &st);
  offline (&f, m, 48);
  for (int r = 0; r < 2; r++)
    for (guint k = 0; k < f.srs[r]->ev->len; k++)
      g_assert_cmpint (f.srs[r]->new_time[k], ==, g_array_index (f.srs[r]->ev, SimEvent, k).time);
  sim_model_free (m);
  fixture_free (&f);
}

/* scale region foo by 0.5, worked out in sim-trace-gen.c's terms (ms); T(8) = 2 (the one
 * transfer sample), T(0) = 2 − 0.8 ns; costs: Send, Isend, Wait (rank 0) and Irecv 1, the
 * Allreduce 3 after the last member arrived, the others 0. */
static void
test_offline_scale (void)
{
  Fixture f = { 0 };
  SimTransformStats st = { 0 };
  SimModel *m;

  fixture_load (&f, "exact");
  m = fit (&f);
  transform (&f, "scale region foo by 0.5", &st);
  offline (&f, m, 48);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_ENTER, "MPI_Send", 0, TRUE), ==, 8);    /* foo 3..8 */
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_LEAVE, "MPI_Send", 0, TRUE), ==, 9);    /* eager: its cost, 1 */
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_ENTER, "MPI_Recv", 0, TRUE), ==, 4);    /* foo 3..4 */
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_LEAVE, "MPI_Recv", 0, TRUE), ==, 10);   /* sent 8 + T 2 */
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_ENTER, "MPI_Isend", 0, TRUE), ==, 11);  /* foo 9..11 */
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_LEAVE, "MPI_Wait", 0, TRUE), ==, 13);
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_LEAVE, "MPI_Irecv", 0, TRUE), ==, 17);  /* foo 10..16, 1 */
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_LEAVE, "MPI_Wait", 0, TRUE), ==, 17);   /* arrived at 13 */
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_ENTER, "MPI_Allreduce", 0, TRUE), ==, 18);
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_ENTER, "MPI_Allreduce", 0, TRUE), ==, 20);  /* bar 17..20 */
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_LEAVE, "MPI_Allreduce", 0, TRUE), ==, 23);  /* last 20 + 3 */
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_LEAVE, "MPI_Allreduce", 0, TRUE), ==, 23);
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_LEAVE, "MPI_Finalize", 0, TRUE), ==, 29);   /* 24 + 5 */
  sim_model_free (m);
  fixture_free (&f);
}

static void
test_model_fit (void)
{
  Fixture f = { 0 };
  SimModel *m;
  g_autofree char *json = NULL;
  fixture_load (&f, "exact");
  m = fit (&f);
  /* one transfer sample: rank 1 waited in MPI_Recv from before the send (13) to 15 */
  g_assert_cmpuint (m->tr[0].n_samples, ==, 1);
  g_assert_cmpfloat (fabs (sim_model_transfer (m, 0, 1, 8) - 2e6), <, 1);
  /* one vote: the Isend of 0 bytes was done (20) before its receive was posted (27) */
  g_assert_cmpuint (m->tr[0].votes_eager, ==, 1);
  g_assert_cmpuint (m->tr[0].votes_rdv, ==, 0);
  g_assert_false (sim_model_rendezvous (m, 0, 1, 1 << 20, FALSE, 0));
  g_assert_true (sim_model_rendezvous (m, 0, 1, 0, TRUE, 0));
  /* both ranks on one host: every message is on the same transport */
  g_assert_cmpint (sim_model_transport (m, 0, 1), ==, 0);
  /* the costs: the Allreduce 3 ms after the last member arrived, on both ranks; rank 1's
   * receive left when its message arrived */
  g_assert_cmpfloat (sim_model_cost (m, sim_model_class (0, region_id (f.defs, "MPI_Allreduce"), 16, 3, TRUE)),
                     ==, 3e6);
  g_assert_cmpfloat (sim_model_cost (m, sim_model_class (1, region_id (f.defs, "MPI_Allreduce"), 16, 3, FALSE)),
                     ==, 3e6);
  g_assert_cmpfloat (sim_model_cost (m, sim_model_class (1, region_id (f.defs, "MPI_Recv"), 8, 0, TRUE)), ==, 0);
  g_assert_cmpfloat (sim_model_cost (m, sim_model_class (0, region_id (f.defs, "MPI_Send"), 8, 0, FALSE)), ==, 1e6);
  /* a class not in the trace falls back to coarser ones: the Send of rank 0 at any size */
  g_assert_cmpfloat (sim_model_cost (m, sim_model_class (1, region_id (f.defs, "MPI_Send"), 1 << 20, 0, TRUE)),
                     ==, 1e6);
  g_assert_cmpuint (m->n_cost_samples, ==, 8);   /* the planned calls but MPI_Init and MPI_Finalize */
  json = sim_model_describe (m);
  g_assert_nonnull (strstr (json, "\"message_samples\": 1, \"largest_sample_bytes\": 8, "
                                  "\"per_byte_beyond_samples_ns\": 0.10000, \"per_byte_capped_by_bytes\": null, "
                                  "\"eager_votes\": 1"));
  g_assert_nonnull (strstr (json, "\"eager_limit\": null"));
  sim_model_free (m);
  fixture_free (&f);
}

/* Where nothing voted, the MPI library's own limit (KUBUS::EAGER_LIMIT_SAME_HOST,
 * collect-mpit.c) decides, less Open MPI's header; where something voted, the votes. The exact
 * trace's one eager vote (0 bytes) keeps it all eager; without votes a mebibyte and a 4096-byte
 * message go by rendezvous and 8 bytes stay eager. The limit shows in summary.json. */
static void
test_model_eager_library (void)
{
  Fixture f = { 0 };
  SimModel *m;
  g_autofree char *json = NULL;
  const guint64 sizes[] = { 8, 65536 };
  const guint none[] = { 0, 0 }, some[] = { 0, 3 };
  SimTransport t = { 0 };

  fixture_load (&f, "exact");
  f.defs->eager_limit_lib[0] = 4096;
  m = fit (&f);
  g_assert_cmpuint (m->tr[0].votes_eager, ==, 1);
  g_assert_cmpuint (m->tr[0].eager_limit, ==, G_MAXUINT64);
  g_assert_false (m->tr[0].eager_from_library);
  json = sim_model_describe (m);
  g_assert_nonnull (strstr (json, "\"eager_votes\": 1, \"rendezvous_votes\": 0, \"eager_limit_library\": 4096, "
                                  "\"eager_limit_from\": \"none\"}"));
  sim_model_free (m);
  fixture_free (&f);

  g_assert_cmpuint (sim_model_eager_limit (&t, sizes, none, none, 2, 4096), ==, 4096 - 64);
  g_assert_true (t.eager_from_library);
  g_assert_cmpuint (t.eager_library, ==, 4096);
  {
    SimModel mm = { 0 };
    mm.tr[0] = t;
    mm.n_ranks = 2;
    mm.host = (int[]) { 0, 0 };
    g_assert_true (sim_model_rendezvous (&mm, 0, 1, 1 << 20, FALSE, 0));
    g_assert_true (sim_model_rendezvous (&mm, 0, 1, 4096, FALSE, 0));
    g_assert_false (sim_model_rendezvous (&mm, 0, 1, 8, FALSE, 0));
  }
  t = (SimTransport) { 0 };
  g_assert_cmpuint (sim_model_eager_limit (&t, sizes, none, some, 2, 4096), ==, 8);   /* the votes */
  g_assert_false (t.eager_from_library);
  t = (SimTransport) { 0 };
  g_assert_cmpuint (sim_model_eager_limit (&t, sizes, none, none, 2, 0), ==, G_MAXUINT64);   /* neither */
  g_assert_false (t.eager_from_library);
}

/* The eager limit is the split of the voted sizes that contradicts the fewest votes. */
static void
test_model_eager_limit (void)
{
  /* Open MPI's shared memory: eager up to 4 KB; one late eager vote above is noise */
  const guint64 sizes[] = { 1024, 2048, 4000, 4096, 4200, 8192, 16384 };
  const guint eager[] = { 5, 5, 5, 5, 0, 1, 0 };
  const guint rdv[] = { 0, 0, 0, 0, 5, 5, 5 };
  const guint none[] = { 0, 0, 0, 0, 0, 0, 0 };
  g_assert_cmpuint (sim_model_eager_split (sizes, eager, rdv, 7), ==, 4096);
  /* only eager votes: no limit seen */
  g_assert_cmpuint (sim_model_eager_split (sizes, eager, none, 7), ==, G_MAXUINT64);
  /* only rendezvous votes: eager up to the largest size none of them contradicts */
  g_assert_cmpuint (sim_model_eager_split (sizes, none, rdv, 7), ==, 4096);
  g_assert_cmpuint (sim_model_eager_split (sizes + 4, none, rdv + 4, 3), ==, 4199);
  g_assert_cmpuint (sim_model_eager_split (sizes, NULL, NULL, 0), ==, G_MAXUINT64);
}

/* A rendezvous needs the receiver in MPI: rank 1 posted its receive at 5 and computes until its
 * MPI_Wait; rank 0's send of 8 bytes left when that Wait began (a rendezvous vote), the 0-byte
 * Isend was done before its receive was posted (eager). Scaling foo by 0.5 moves the send to 8
 * and the Wait to 9: the send goes on at 9, not at 8 (transfer 2 µs, its cost −2 µs as fitted). */
static void
test_offline_progress (void)
{
  Fixture f = { 0 };
  SimTransformStats st = { 0 };
  SimModel *m;

  fixture_load (&f, "progress");
  m = fit (&f);
  g_assert_cmpuint (m->tr[0].votes_rdv, ==, 1);
  g_assert_cmpuint (m->tr[0].votes_eager, ==, 1);
  g_assert_true (sim_model_rendezvous (m, 0, 1, 8, FALSE, 0));
  g_assert_false (sim_model_rendezvous (m, 0, 1, 0, FALSE, 0));
  /* each voting send keeps what it did, whatever the limit (docs/decisions/
   * 2026-12-02-protocol-per-message.md): the 8-byte MPI_Send waited, the 0-byte MPI_Isend did not */
  {
    guint n_rdv = 0, n_eager = 0;
    for (guint k = 0; k < f.srs[0]->ev->len; k++)
      {
        const SimEvent *x = &g_array_index (f.srs[0]->ev, SimEvent, k);
        if (x->type == EV_SEND)
          {
            g_assert_cmpuint (x->len, ==, 8);
            g_assert_cmpuint (x->flags & (EVF_SENT_RDV | EVF_SENT_EAGER), ==, EVF_SENT_RDV);
            n_rdv++;
          }
        if (x->type == EV_ISEND)
          {
            g_assert_cmpuint (x->len, ==, 0);
            g_assert_cmpuint (x->flags & (EVF_SENT_RDV | EVF_SENT_EAGER), ==, EVF_SENT_EAGER);
            n_eager++;
          }
      }
    g_assert_cmpuint (n_rdv, ==, 1);
    g_assert_cmpuint (n_eager, ==, 1);
    g_assert_true (sim_model_rendezvous (m, 0, 1, 0, FALSE, EVF_SENT_RDV));
    g_assert_false (sim_model_rendezvous (m, 0, 1, 1 << 20, FALSE, EVF_SENT_EAGER));
    g_assert_true (sim_model_rendezvous (m, 0, 1, 0, TRUE, EVF_SENT_EAGER));   /* synchronous: always */
  }
  /* the identity: every event where it was */
  transform (&f, "", &st);
  offline (&f, m, 53);
  for (int r = 0; r < 2; r++)
    for (guint k = 0; k < f.srs[r]->ev->len; k++)
      g_assert_cmpint (f.srs[r]->new_time[k], ==, g_array_index (f.srs[r]->ev, SimEvent, k).time);
  sim_model_free (m);
  fixture_free (&f);

  fixture_load (&f, "progress");
  m = fit (&f);
  transform (&f, "scale region foo by 0.5", &st);
  offline (&f, m, 53);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_ENTER, "MPI_Send", 0, TRUE), ==, 8);    /* foo 3..8 */
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_ENTER, "MPI_Wait", 0, TRUE), ==, 9);    /* foo 4..9 */
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_LEAVE, "MPI_Send", 0, TRUE), ==, 9);    /* not 8 */
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_LEAVE, "MPI_Wait", 0, TRUE), ==, 10);   /* 9 + 2 µs + 0.998 */
  sim_model_free (m);
  fixture_free (&f);
}

/* A send still in its call when its receive was posted votes rendezvous where it left within
 * 200 µs plus the message's transfer time: the second 8-byte send left 3 ms after the post, as
 * long as the first took from send to receive (the line: 3 ms). With 200 µs alone it said
 * nothing, and large messages between ranks sharing CPUs went eager (bigp2p at 4 ranks on 2
 * cores, -6 %). The identity gives every event back. */
static void
test_model_slow_rendezvous (void)
{
  Fixture f = { 0 };
  SimTransformStats st = { 0 };
  SimModel *m;

  fixture_load (&f, "slowrdv");
  m = fit (&f);
  g_assert_cmpuint (m->tr[0].n_samples, ==, 1);
  g_assert_cmpfloat (fabs (sim_model_transfer (m, 0, 1, 8) - 3e6), <, 1);
  g_assert_cmpuint (m->tr[0].votes_eager, ==, 0);
  g_assert_cmpuint (m->tr[0].votes_rdv, ==, 1);
  g_assert_true (sim_model_rendezvous (m, 0, 1, 8, FALSE, 0));
  transform (&f, "", &st);
  offline (&f, m, 36);
  for (int r = 0; r < 2; r++)
    for (guint k = 0; k < f.srs[r]->ev->len; k++)
      g_assert_cmpint (f.srs[r]->new_time[k], ==, g_array_index (f.srs[r]->ev, SimEvent, k).time);
  sim_model_free (m);
  fixture_free (&f);
}

/* The line T(s) beyond the sampled sizes: the samples (8 bytes in 2 ms, 16 in 3 ms) give
 * 1 ms + 125 µs per byte, and the 4096-byte message, whose receive was posted 9 ms after its
 * send started (an eager vote), would then take 513 s. It was there 12 ms after the send
 * started: from 16 bytes on the line rises by at most (12 − 3) ms / (4096 − 16) bytes. Within
 * the samples it stays theirs; the identity gives every event back. */
static void
test_offline_extrapolate (void)
{
  Fixture f = { 0 };
  SimTransformStats st = { 0 };
  SimModel *m;
  g_autofree char *json = NULL;

  fixture_load (&f, "extrapolate");
  m = fit (&f);
  g_assert_cmpuint (m->tr[0].n_samples, ==, 2);
  g_assert_cmpuint (m->tr[0].sampled_max, ==, 16);
  g_assert_cmpfloat (m->tr[0].latency, ==, 1e6);
  g_assert_cmpfloat (m->tr[0].per_byte, ==, 125000);
  g_assert_cmpfloat (m->tr[0].per_byte_beyond, ==, 9e6 / 4080);
  g_assert_cmpuint (m->tr[0].capped_by, ==, 4096);
  g_assert_cmpfloat (fabs (sim_model_transfer (m, 0, 1, 8) - 2e6), <, 1);
  g_assert_cmpfloat (fabs (sim_model_transfer (m, 0, 1, 16) - 3e6), <, 1);
  g_assert_cmpfloat (fabs (sim_model_transfer (m, 0, 1, 4096) - 12e6), <, 1);
  g_assert_cmpuint (m->tr[0].votes_eager, ==, 1);
  g_assert_false (sim_model_rendezvous (m, 0, 1, 4096, FALSE, 0));
  /* the other transport has no samples: it borrows the capped line */
  g_assert_cmpfloat (m->tr[1].per_byte_beyond, ==, 9e6 / 4080);
  json = sim_model_describe (m);
  g_assert_nonnull (strstr (json, "\"largest_sample_bytes\": 16, \"per_byte_beyond_samples_ns\": 2205.88235, "
                                  "\"per_byte_capped_by_bytes\": 4096"));
  transform (&f, "", &st);
  offline (&f, m, 46);
  for (int r = 0; r < 2; r++)
    for (guint k = 0; k < f.srs[r]->ev->len; k++)
      g_assert_cmpint (f.srs[r]->new_time[k], ==, g_array_index (f.srs[r]->ev, SimEvent, k).time);
  sim_model_free (m);
  fixture_free (&f);
}

/* A median of two samples is a sample: 1 ms at 8 bytes (three samples: 1, 1, 2 ms) and 9 ms at
 * 16 (two: 1 and 9, the upper taken) would give 1 ms a byte (the least squares' latency clamped
 * at 0). Only the 8-byte size has the three samples a median needs to reject one: the line is
 * the one-size line through it (0.1 ns a byte), and the 16-byte messages are beyond it, where
 * the one done 1 ms after its send started keeps the line flat. */
static void
test_model_scatter (void)
{
  Fixture f = { 0 };
  SimModel *m;

  fixture_load (&f, "scatter");
  m = fit (&f);
  g_assert_cmpuint (m->tr[0].n_samples, ==, 5);
  g_assert_cmpuint (m->tr[0].sampled_max, ==, 8);
  g_assert_cmpfloat (m->tr[0].per_byte, ==, 0.1);
  g_assert_cmpfloat (fabs (m->tr[0].latency - (1e6 - 0.8)), <, 1e-6);
  g_assert_cmpfloat (m->tr[0].per_byte_beyond, ==, 0);
  g_assert_cmpuint (m->tr[0].capped_by, ==, 16);
  g_assert_cmpfloat (fabs (sim_model_transfer (m, 0, 1, 16) - 1e6), <, 1e-6);
  sim_model_free (m);
  fixture_free (&f);
}

/* Where larger messages were no slower, the line is flat at the median of all the samples: the
 * three 0-byte messages took 5, 6 and 7 ms, the five of 8 bytes 1 ms each. The line through
 * the two sizes' medians (6 and 1 ms) falls; clamped flat, it was their mean, 3.5 ms, each
 * size counting as much however few its samples (LAMMPS at 4 ranks on 2 cores: four 0-byte
 * messages held up by the scheduler beside 155 of 4 bytes, and every message took 250 µs
 * instead of 9). */
static void
test_model_flat_line (void)
{
  Fixture f = { 0 };
  SimModel *m;

  fixture_load (&f, "flatline");
  m = fit (&f);
  g_assert_cmpuint (m->tr[0].n_samples, ==, 8);
  g_assert_cmpuint (m->tr[0].sampled_max, ==, 8);
  g_assert_cmpfloat (m->tr[0].per_byte, ==, 0);
  g_assert_cmpfloat (m->tr[0].latency, ==, 1e6);
  g_assert_cmpfloat (fabs (sim_model_transfer (m, 0, 1, 0) - 1e6), <, 1e-6);
  g_assert_cmpfloat (fabs (sim_model_transfer (m, 0, 1, 8) - 1e6), <, 1e-6);
  sim_model_free (m);
  fixture_free (&f);
}

/* An MPI library's tree: in the first MPI_Bcast rank 3 waited for rank 1 (its parent), not for
 * the root. The fit learns that, and nothing else: rank 2 left before rank 1 came, the root
 * before anyone. The identity then gives every event back (without the rule rank 3's wait of
 * 7 ms was a cost, averaged with the 1 ms of its second MPI_Bcast: both would leave 3 ms off);
 * with foo halved, rank 3 leaves 1 ms after rank 1 arrives (11), not after the root (6). */
static void
test_offline_tree (void)
{
  Fixture f = { 0 };
  SimTransformStats st = { 0 };
  SimModel *m;
  const guint64 *deps;
  g_autofree char *json = NULL;

  fixture_load (&f, "tree");
  m = fit (&f);
  g_assert_cmpuint (m->n_coll_deps, ==, 1);
  deps = sim_model_coll_deps (m, 0, OTF2_COLLECTIVE_OP_BCAST, 0);
  g_assert_nonnull (deps);
  g_assert_cmphex (deps[0], ==, 0);
  g_assert_cmphex (deps[1], ==, 0);
  g_assert_cmphex (deps[2], ==, 0);
  g_assert_cmphex (deps[3], ==, 1 << 1);
  g_assert_null (sim_model_coll_deps (m, 0, OTF2_COLLECTIVE_OP_BCAST, 1));
  json = sim_model_describe (m);
  g_assert_nonnull (strstr (json, "\"collective_waits\": 1,"));
  transform (&f, "", &st);
  offline (&f, m, 80);
  for (int r = 0; r < f.n; r++)
    for (guint k = 0; k < f.srs[r]->ev->len; k++)
      g_assert_cmpint (f.srs[r]->new_time[k], ==, g_array_index (f.srs[r]->ev, SimEvent, k).time);
  sim_model_free (m);
  fixture_free (&f);

  fixture_load (&f, "tree");
  m = fit (&f);
  transform (&f, "scale region foo by 0.5", &st);
  offline (&f, m, 80);
  g_assert_cmpfloat (ev_ms (f.srs[1], EV_ENTER, "MPI_Bcast", 0, TRUE), ==, 11);
  g_assert_cmpfloat (ev_ms (f.srs[3], EV_ENTER, "MPI_Bcast", 0, TRUE), ==, 8);
  g_assert_cmpfloat (ev_ms (f.srs[3], EV_LEAVE, "MPI_Bcast", 0, TRUE), ==, 12);
  g_assert_cmpfloat (ev_ms (f.srs[2], EV_LEAVE, "MPI_Bcast", 0, TRUE), ==, 8);   /* 2 + 5, 1 */
  sim_model_free (m);
  fixture_free (&f);
}

/* A wait is costed by what it completed: rank 0's MPI_Wait on its MPI_Isend took 3 ms each
 * time (a send over shared memory waits for the receiver), its MPI_Wait on a message that had
 * arrived 1 ms. In one class both would cost 2 ms and the identity would miss every Wait by
 * 1 ms. A class of fewer than SIM_COST_MIN_SAMPLES calls yields to a coarser one. */
static void
test_offline_wait_classes (void)
{
  Fixture f = { 0 };
  SimTransformStats st = { 0 };
  SimModel *m;
  guint32 wait;

  fixture_load (&f, "waits");
  m = fit (&f);
  wait = region_id (f.defs, "MPI_Wait");
  g_assert_cmpfloat (sim_model_cost (m, sim_model_class (0, wait, 8, 2, FALSE)), ==, 3e6);   /* sends */
  g_assert_cmpfloat (sim_model_cost (m, sim_model_class (0, wait, 8, 0, FALSE)), ==, 1e6);   /* receives */
  transform (&f, "", &st);
  offline (&f, m, 156);
  for (int r = 0; r < f.n; r++)
    for (guint k = 0; k < f.srs[r]->ev->len; k++)
      g_assert_cmpint (f.srs[r]->new_time[k], ==, g_array_index (f.srs[r]->ev, SimEvent, k).time);
  /* one late sample of its own (waited) next to the five: the five and it, 2.5 ms */
  sim_model_add_cost (m, sim_model_class (0, wait, 8, 2, TRUE), 0);
  g_assert_cmpfloat (sim_model_cost (m, sim_model_class (0, wait, 8, 2, TRUE)), ==, 2.5e6);
  sim_model_free (m);
  fixture_free (&f);
}

/* Costs per placement: a rank that shared its CPU with two others for the first half of the run
 * and with one for the second has its calls costed per phase (each phase's own mean), where a
 * phase has SIM_COST_MIN_PHASE calls of the class; else by the class of the whole run. */
static void
test_model_cost_phase (void)
{
  Fixture f = { 0 };
  SimModel *m;
  guint32 send;
  guint64 key;

  fixture_load (&f, "waits");
  m = fit (&f);
  send = region_id (f.defs, "MPI_Send");
  key = sim_model_class (3, send, 14000, 0, TRUE);   /* a rank and size the trace has not */
  for (int i = 0; i < SIM_COST_MIN_PHASE; i++)
    {
      sim_model_add_cost (m, sim_model_class_mates (key, 3), 30e3);
      sim_model_add_cost (m, sim_model_class_mates (key, 2), 10e3);
    }
  for (int i = 0; i < SIM_COST_MIN_PHASE - 1; i++)
    sim_model_add_cost (m, sim_model_class_mates (key, 1), 50e3);
  g_assert_cmpfloat_with_epsilon (sim_model_cost (m, sim_model_class_mates (key, 3)), 30e3, 1e-6);
  g_assert_cmpfloat_with_epsilon (sim_model_cost (m, sim_model_class_mates (key, 2)), 10e3, 1e-6);
  /* the class of the whole run: the three phases' calls together */
  g_assert_cmpfloat_with_epsilon (sim_model_cost (m, key), (30e3 + 10e3 + 50e3) * 100 / 299 - 50e3 / 299, 1e-6);
  /* a phase of too few calls: the whole run's */
  g_assert_cmpfloat_with_epsilon (sim_model_cost (m, sim_model_class_mates (key, 1)), sim_model_cost (m, key), 1e-6);
  sim_model_free (m);
  fixture_free (&f);
}

static void
test_write_roundtrip (void)
{
  Fixture f = { 0 };
  SimTransformStats st = { 0 };
  SimModel *m;
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL;
  fixture_load (&f, "exact");
  sim_plan_sync_tails (f.t, f.srs);
  g_assert_true (sim_match_messages (f.t, f.srs, NULL, NULL, NULL, NULL));
  m = sim_model_fit (f.srs, 2);
  transform (&f, "remove messages with size == 0", &st);
  offline (&f, m, 36);   /* 48 − 2 × 6 removed */
  out = g_build_filename (f.dir, "sim", "traces.otf2", NULL);
  {
    g_autofree char *d = g_path_get_dirname (out);
    g_mkdir (d, 0755);
  }
  g_assert_true (trace_write_sim (f.anchor, out, f.t, f.srs, FALSE, &error));
  g_assert_no_error (error);
  {
    g_autoptr (TraceDefs) d2 = trace_defs_read (out, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (d2->resolution, ==, 1000000000u);
    g_assert_cmpuint (d2->rank_loc[0]->n_events, ==, 17);   /* 23 − the Isend and Wait calls */
    for (int r = 0; r < 2; r++)
      {
        SimRank *back = sim_rank_new (r, d2);
        SimEvent *a = (SimEvent *) f.srs[r]->ev->data;
        guint j = 0;
        g_assert_true (trace_events_read (out, back, NULL, NULL, &error));
        for (guint k = 0; k < f.srs[r]->ev->len; k++)
          {
            SimEvent *b;
            if (a[k].flags & EVF_REMOVED)
              continue;
            b = &g_array_index (back->ev, SimEvent, j++);
            g_assert_cmpint (b->type, ==, a[k].type);
            g_assert_cmpint (b->time + (Tick) d2->global_offset, ==, f.srs[r]->new_time[k]);
          }
        g_assert_cmpuint (j, ==, back->ev->len);
        sim_rank_free (back);
      }
  }
  sim_model_free (m);
  fixture_free (&f);
}

static guint
event_index (SimRank    *sr,
             SimEvType   type,
             const char *name)
{
  guint32 reg = region_id (sr->defs, name);
  for (guint k = 0; k < sr->ev->len; k++)
    {
      SimEvent *e = &g_array_index (sr->ev, SimEvent, k);
      if (e->type == type && e->region == reg)
        return k;
    }
  g_assert_not_reached ();
  return 0;
}

/* The time in polls that found nothing (sim_poll_time), which decides whether the offline model
 * shares the cores at all (SIM_POLL_SHARE): the "polls" fixture's rank 0 polls 10..12 and in a
 * loop 20..23; the MPI_Wait that completes its request, and rank 1's calls, are no polls. */
static void
test_poll_time (void)
{
  Fixture f = { 0 };
  const double ms = 1e6;
  double polls = 0, span = 0;

  /* the sums after rank 0, then after rank 1 too */
  const double want[2][2] = { { 5 * ms, 40 * ms }, { 5 * ms, 80 * ms } };

  fixture_load (&f, "polls");
  for (int r = 0; r < 2; r++)
    {
      sim_poll_time (f.srs[r], &polls, &span);
      g_assert_cmpfloat (polls, ==, want[r][0]);
      g_assert_cmpfloat (span, ==, want[r][1]);
    }
  fixture_free (&f);
}

/* The ranks' MPI calls over their time (sim_call_rate) against the scheduler's time slice
 * (sim_sched_slice_ns), and the advice it gives (sim_fine_grain_advice): the "polls" fixture's
 * rank 0 makes six calls between MPI_Init's Leave (2 ms) and MPI_Finalize, the last entered at
 * 23 ms; rank 1 one, its MPI_Send at 22 ms. */
static void
test_call_rate (void)
{
  Fixture f = { 0 };
  const double ms = 1e6;
  double calls = 0, span = 0;
  /* the sums after rank 0, then after rank 1 too */
  const double want[2][2] = { { 6, 21 * ms }, { 7, 41 * ms } };
  SimHosts h = { 0 };
  SimCpuStats c = { 0 };
  g_autofree char *said = NULL;

  fixture_load (&f, "polls");
  for (int r = 0; r < 2; r++)
    {
      sim_call_rate (f.srs[r], &calls, &span);
      g_assert_cmpfloat (calls, ==, want[r][0]);
      g_assert_cmpfloat (span, ==, want[r][1]);
    }
  fixture_free (&f);

  g_assert_cmpint (sim_sched_slice_ns (0), ==, 750000);
  g_assert_cmpint (sim_sched_slice_ns (1), ==, 750000);
  g_assert_cmpint (sim_sched_slice_ns (2), ==, 1500000);
  g_assert_cmpint (sim_sched_slice_ns (3), ==, 1500000);
  g_assert_cmpint (sim_sched_slice_ns (4), ==, 2250000);
  g_assert_cmpint (sim_sched_slice_ns (8), ==, 3000000);
  g_assert_cmpint (sim_sched_slice_ns (128), ==, 3000000);

  /* said where the ranks called MPI more often than once per slice, on shared cores only */
  h.oversubscribed = TRUE;
  h.min_cpus = 2;
  h.max_ranks_per_host = 4;
  c.gap_wall = 100 * ms;   /* the sampled computation waited 10 % of its time for a CPU */
  c.gap_wait = 10 * ms;
  c.n_calls = calls;
  c.call_span = span;
  g_assert_cmpfloat (fabs (sim_calls_per_slice (&h, &c) - 7 * 1.5 / 41), <, 1e-12);
  g_assert_null (sim_fine_grain_advice (&h, &c));
  c.n_calls = 30;
  c.call_span = 45 * ms;
  g_assert_null (sim_fine_grain_advice (&h, &c));   /* once per slice */
  c.n_calls = 60;
  said = sim_fine_grain_advice (&h, &c);
  g_assert_nonnull (said);
  g_assert_nonnull (strstr (said, "their computation waited 10 % of its time for a CPU, and they called MPI 2.0 "
                                  "times per time slice of the scheduler (1.50 ms on 2 CPUs)"));
  g_assert_nonnull (strstr (said, "simulate with --offline."));
  /* ranks whose computation hardly waited had a CPU to themselves while they computed */
  c.gap_wait = 9 * ms;
  g_assert_null (sim_fine_grain_advice (&h, &c));
  c.gap_wait = 10 * ms;
  h.oversubscribed = FALSE;
  g_assert_null (sim_fine_grain_advice (&h, &c));
  h.oversubscribed = TRUE;
  c.n_calls = c.call_span = 0;
  g_assert_cmpfloat (sim_calls_per_slice (&h, &c), ==, 0);
  g_assert_null (sim_fine_grain_advice (&h, &c));
}

/* Loads the "exact" fixture's rank 0 with three CPU samples: at MPI_Init's leave (1 ms CPU),
 * at the MPI_Send's enter (13 ms; foo 3..13 got 4 ms of CPU and slept 3 ms) and at the
 * MPI_Isend's enter (18 ms, after the Send 13..14 and foo 14..18): @cpu3 ns of CPU by then,
 * 4 ms slept. */
static SimRank *
load_sampled (Fixture *f, gint64 cpu3, guint *send_enter, guint *isend_enter)
{
  SimRank *sr;
  SimCpuSample smp[3];
  guint init_leave;

  fixture_load (f, "exact");
  sr = f->srs[0];
  init_leave = event_index (sr, EV_LEAVE, "MPI_Init");      /* 3 ms */
  *send_enter = event_index (sr, EV_ENTER, "MPI_Send");     /* 13 ms, after foo 3..13 */
  *isend_enter = event_index (sr, EV_ENTER, "MPI_Isend");   /* 18 ms, after foo 14..18 */
  smp[0] = (SimCpuSample) { init_leave, 1000000, 0, -1, FALSE };
  smp[1] = (SimCpuSample) { *send_enter, 5000000, 3000000, -1, FALSE };
  smp[2] = (SimCpuSample) { *isend_enter, cpu3, 4000000, -1, FALSE };
  sr->cpu = g_array_new (FALSE, FALSE, sizeof (SimCpuSample));
  g_array_append_vals (sr->cpu, smp, 3);
  return sr;
}

/* The collector's CPU samples (collect-cputime.c) become CPU and sleep shares of the long
 * interval before each sample; the short intervals between two samples ran on their CPU. */
static void
test_cpu_shares (void)
{
  Fixture f = { 0 };
  SimRank *sr;
  SimCpuStats st;
  guint init_leave, send_enter, isend_enter;
  SimEvent *ev;

  /* foo 3..13: 4 ms on a CPU, 3 ms waiting for one: it slept 3 ms; then the Send (13..14,
   * short: CPU = wall) and foo 14..18: 1 ms + 2 ms CPU, 1 ms waiting */
  sr = load_sampled (&f, 8000000, &send_enter, &isend_enter);
  ev = (SimEvent *) sr->ev->data;
  init_leave = event_index (sr, EV_LEAVE, "MPI_Init");
  st = sim_cpu_shares (sr, FALSE);
  g_assert_cmpuint (st.samples, ==, 2);
  g_assert_cmpfloat (st.gap_wall, ==, 14e6);
  g_assert_cmpfloat (st.gap_cpu, ==, 6e6);
  g_assert_cmpfloat (st.gap_wait, ==, 4e6);
  g_assert_cmpfloat (st.gap_sleep, ==, 4e6);
  for (guint k = init_leave + 1; k <= send_enter; k++)
    {
      g_assert_true (ev[k].flags & EVF_CPU);
      g_assert_cmpfloat (fabs (sim_cpu_share (&ev[k], FALSE) - 0.4), <=, 0.5 / 255);
      g_assert_cmpfloat (fabs (sim_cpu_share (&ev[k], TRUE) - 0.3), <=, 0.5 / 255);
    }
  /* the Send's own events: short, not sampled: all CPU */
  g_assert_false (ev[send_enter + 1].flags & EVF_CPU);
  g_assert_cmpfloat (sim_cpu_share (&ev[send_enter + 1], FALSE), ==, 1.0);
  g_assert_cmpfloat (sim_cpu_share (&ev[send_enter + 1], TRUE), ==, 0.0);
  g_assert_cmpfloat (fabs (sim_cpu_share (&ev[isend_enter], FALSE) - 0.5), <=, 0.5 / 255);
  g_assert_cmpfloat (fabs (sim_cpu_share (&ev[isend_enter], TRUE) - 0.25), <=, 0.5 / 255);
  fixture_free (&f);
}

/* A sample is read a little after its event's time stamp. A rank preempted in between counts
 * that wait in the window before and the wall time in the next, which would seem to have slept:
 * the counters' excess over a window's wall time is the next window's wait. Here foo 3..13
 * computed 6 ms and waited 4 ms, and the rank waited 2 ms more after the MPI_Send's time stamp
 * (13 ms) before the sample was read; then the Send (13..14, short: CPU = wall) and foo 14..18
 * computed 3 ms in all. */
static void
test_cpu_shares_late_sample (void)
{
  Fixture f = { 0 };
  SimRank *sr;
  SimCpuStats st;
  SimCpuSample smp[3];
  guint init_leave, send_enter, isend_enter;
  SimEvent *ev;

  fixture_load (&f, "exact");
  sr = f.srs[0];
  ev = (SimEvent *) sr->ev->data;
  init_leave = event_index (sr, EV_LEAVE, "MPI_Init");
  send_enter = event_index (sr, EV_ENTER, "MPI_Send");
  isend_enter = event_index (sr, EV_ENTER, "MPI_Isend");
  smp[0] = (SimCpuSample) { init_leave, 1000000, 0, -1, FALSE };
  smp[1] = (SimCpuSample) { send_enter, 7000000, 6000000, -1, FALSE };
  smp[2] = (SimCpuSample) { isend_enter, 10000000, 6000000, -1, FALSE };
  sr->cpu = g_array_new (FALSE, FALSE, sizeof (SimCpuSample));
  g_array_append_vals (sr->cpu, smp, 3);
  st = sim_cpu_shares (sr, FALSE);
  g_assert_cmpuint (st.samples, ==, 2);
  /* foo 3..13: 6 ms of CPU, 4 of waiting, no sleep; foo 14..18: 2 ms of CPU (the window's 3
   * less the Send's 1) and the 2 ms wait, not 2 ms of sleep */
  g_assert_cmpfloat (st.gap_cpu, ==, 8e6);
  g_assert_cmpfloat (st.gap_wait, ==, 6e6);
  g_assert_cmpfloat (st.gap_sleep, ==, 0);
  g_assert_cmpfloat (fabs (sim_cpu_share (&ev[send_enter], FALSE) - 0.6), <=, 0.5 / 255);
  g_assert_cmpfloat (sim_cpu_share (&ev[send_enter], TRUE), ==, 0);
  g_assert_cmpfloat (fabs (sim_cpu_share (&ev[isend_enter], FALSE) - 0.5), <=, 0.5 / 255);
  g_assert_cmpfloat (sim_cpu_share (&ev[isend_enter], TRUE), ==, 0);
  fixture_free (&f);
}

/* Where the short intervals between two samples were longer than the CPU time the window got,
 * they waited for the CPU too: the real-time re-enactment (@conserve) gives them the window's
 * CPU time in proportion, so that it computes no more than the rank did; the offline model's
 * fit takes them as they were. */
static void
test_cpu_shares_conserve (void)
{
  for (int conserve = 0; conserve < 2; conserve++)
    {
      Fixture f = { 0 };
      SimRank *sr;
      guint send_enter, isend_enter;
      SimEvent *ev;

      /* the window 13..18 got 0.4 ms of CPU: less than the Send's 1 ms (13..14) */
      sr = load_sampled (&f, 5400000, &send_enter, &isend_enter);
      ev = (SimEvent *) sr->ev->data;
      sim_cpu_shares (sr, conserve);
      for (guint k = send_enter + 1; ev[k - 1].type != EV_LEAVE || ev[k - 1].region != ev[send_enter].region; k++)
        {
          if (conserve)
            {
              g_assert_true (ev[k].flags & EVF_CPU);
              g_assert_cmpfloat (fabs (sim_cpu_share (&ev[k], FALSE) - 0.4), <=, 0.5 / 255);
            }
          else
            g_assert_cmpfloat (sim_cpu_share (&ev[k], FALSE), ==, 1.0);
        }
      /* foo 14..18 got none of it either way */
      g_assert_cmpfloat (sim_cpu_share (&ev[isend_enter], FALSE), ==, 0.0);
      /* the CPU time the window's events say: 0.4 ms, or the Send's whole 1 ms */
      {
        double cpu = 0;
        for (guint k = send_enter + 1; k <= isend_enter; k++)
          cpu += sim_cpu_share (&ev[k], FALSE) * (double) (ev[k].time - ev[k - 1].time);
        g_assert_cmpfloat (fabs (cpu - (conserve ? 400000.0 : 1000000.0)), <=, 1000000.0 / 255);
      }
      fixture_free (&f);
    }
}

/* The advice sim_eager_advice gives @hosts hosts, @lib and @vars: non-NULL, holding each of
 * @want (NULL-terminated). */
static void
assert_eager_advice (const TraceDefs *defs, guint hosts, const unsigned long long *lib, const int *vars,
                     const char *const *want)
{
  char *a = sim_eager_advice (defs, hosts, lib, vars);

  g_assert_nonnull (a);
  for (; *want; want++)
    if (!strstr (a, *want))
      g_error ("eager advice \"%s\" lacks \"%s\"", a, *want);
  g_free (a);
}

/* Where the re-enactment's MPI library sends other sizes eagerly than the original's did, it is
 * told before it starts, with the setting that restores the original's; between hosts only where
 * the original ran on several. */
static void
test_eager_advice (void)
{
  Fixture f = { 0 };
  unsigned long long same[2] = { 4096, 65536 }, more[2] = { 16384, 65536 }, tcp[2] = { 4096, 131072 };
  int both[2] = { 1, 1 }, none[2] = { 0, 0 };

  fixture_load (&f, "exact");
  f.defs->eager_limit_lib[0] = 4096;
  f.defs->eager_limit_lib[1] = 65536;
  g_assert_null (sim_eager_advice (f.defs, 1, same, both));
  g_assert_null (sim_eager_advice (f.defs, 1, more, none));      /* this library has no such variables */
  assert_eager_advice (f.defs, 1, more, both, (const char *const[]) {
                         "up to 4096 bytes between ranks of a host at once", "does so up to 16384 bytes",
                         "OMPI_MCA_btl_vader_eager_limit=4096", NULL });
  g_assert_null (sim_eager_advice (f.defs, 1, tcp, both));       /* the original ran on one host */
  assert_eager_advice (f.defs, 2, tcp, both, (const char *const[]) {
                         "up to 65536 bytes between hosts at once", "does so up to 131072 bytes",
                         "OMPI_MCA_btl_tcp_eager_limit=65536", NULL });
  f.defs->eager_limit_lib[0] = 0;                                 /* an older trace: not recorded */
  g_assert_null (sim_eager_advice (f.defs, 1, more, both));
  fixture_free (&f);
}

/* The exact trace as if its 2 ranks had shared 1 CPU, with the collector's samples defined
 * (none taken: every interval ran, as far as the samples tell, on its CPU all its length). */
static void
share_one_cpu (Fixture *f)
{
  for (guint n = 0; n < f->defs->sysnodes->len; n++)
    ((TraceSysNode *) f->defs->sysnodes->pdata[n])->cpus = 1;
  f->defs->cpu_metric = 0;
}

/* Polls that found nothing (sim-plan.c, poll_tails; sim-cpu.c, rank_deltas): rank 0's MPI_Test
 * 10..12 inside its computation 3..20 is part of it and wants the CPU, its tight loop of three
 * 20..23 before the MPI_Wait is the Wait's polling loop and wants none. On 1 CPU shared with
 * rank 1 (computing 2..22), 10..12 gives each rank half of it; without the plans the Test was
 * MPI and rank 1 had it alone. A sample spanning the Test gives its wait for the CPU to the Test
 * first (sim-cpu.c). */
static void
test_cores_polls (void)
{
  Fixture f = { 0 };
  g_autoptr (GError) error = NULL;
  SimPlanNotes notes;
  SimPlan *plans[2];
  int ranks[2] = { 0, 1 };
  Tick *times[2];
  GArray *p;
  SimCpuSample smp[2];
  SimCpuStats stats;
  SimEvent *ev;
  guint wait, first = 0;
  const double ms = 1e6;

  fixture_load (&f, "polls");
  sim_plan_notes_init (&notes);
  for (int r = 0; r < 2; r++)
    {
      plans[r] = sim_plan_build (f.srs[r], &notes, &error);
      g_assert_no_error (error);
      times[r] = g_new (Tick, f.srs[r]->ev->len);
      for (guint k = 0; k < f.srs[r]->ev->len; k++)
        times[r][k] = g_array_index (f.srs[r]->ev, SimEvent, k).time;
    }
  /* the Wait ends the loop from the Test entered at 20, not the Test at 10 */
  ev = (SimEvent *) f.srs[0]->ev->data;
  wait = event_index (f.srs[0], EV_ENTER, "MPI_Wait");
  g_assert_cmpuint (plans[0]->call_at[wait], !=, NO_INDEX);
  {
    const SimCall *c = &g_array_index (plans[0]->calls, SimCall, plans[0]->call_at[wait]);
    g_assert_cmpuint (c->tail, !=, NO_INDEX);
    g_assert_cmpint (ev[c->tail].time, ==, 20 * ms);
    g_assert_cmpint (ev[c->tail].type, ==, EV_ENTER);
    first = c->tail;
    for (guint k = 0; k < f.srs[0]->ev->len; k++)
      g_assert_cmpint (plans[0]->in_tail[k], ==, k > c->tail && k <= wait);
  }
  for (guint c = 0; c < plans[1]->calls->len; c++)
    g_assert_cmpuint (g_array_index (plans[1]->calls, SimCall, c).tail, ==, NO_INDEX);

  p = sim_cores_profile (f.srs, ranks, 2, (const Tick *const *) times, FALSE, 1.0, plans);
  g_assert_cmpfloat_with_epsilon (sim_cores_work (p, 10 * ms, 12 * ms), 1 * ms, 1);
  g_assert_cmpfloat_with_epsilon (sim_cores_work (p, 20 * ms, 22 * ms), 2 * ms, 1);
  g_array_unref (p);
  p = sim_cores_profile (f.srs, ranks, 2, (const Tick *const *) times, FALSE, 1.0, NULL);
  g_assert_cmpfloat_with_epsilon (sim_cores_work (p, 10 * ms, 12 * ms), 2 * ms, 1);
  g_array_unref (p);
  for (int r = 0; r < 2; r++)
    {
      sim_plan_free (plans[r]);
      g_free (times[r]);
    }
  sim_plan_notes_clear (&notes);

  /* samples at the Irecv's Leave (3) and at the loop's first poll (20): 11 ms of CPU and 6 of
   * waiting for it in those 17. The Test 10..12 waited first (2 of the 6: no CPU), so foo
   * 3..10 ran on its CPU and foo 12..20 got the other 4 of CPU and 4 of waiting: half */
  smp[0] = (SimCpuSample) { event_index (f.srs[0], EV_LEAVE, "MPI_Irecv"), 1 * ms, 0, -1, FALSE };
  smp[1] = (SimCpuSample) { first, 12 * ms, 6 * ms, -1, FALSE };
  f.srs[0]->cpu = g_array_new (FALSE, FALSE, sizeof (SimCpuSample));
  g_array_append_vals (f.srs[0]->cpu, smp, 2);
  stats = sim_cpu_shares (f.srs[0], FALSE);
  g_assert_cmpfloat (sim_cpu_share (&ev[event_index (f.srs[0], EV_LEAVE, "MPI_Test")], FALSE), ==, 0.0);
  g_assert_cmpfloat (sim_cpu_share (&ev[first], FALSE), ==, 128.0 / 255);
  g_assert_cmpfloat (sim_cpu_share (&ev[first], TRUE), ==, 0.0);
  g_assert_cmpfloat (stats.gap_wait, ==, 4 * ms);
  g_assert_cmpfloat (stats.gap_cpu, ==, 4 * ms);
  fixture_free (&f);
}

/* Processor sharing (the offline model's cores) on the exact trace's times, 1 CPU: rank 0
 * computes 0..1, 3..13, 14..18, 20..25, 34..35; rank 1 0..2, 3..5, 15..27, 28..31, 34..35 (from
 * a Leave of MPI to the next Enter); both at once, each gets half the CPU. */
static void
test_cores_profile (void)
{
  Fixture f = { 0 };
  int ranks[2] = { 0, 1 };
  Tick *times[2];
  GArray *p;
  SimCpuSample smp[2];
  guint n_iv = 0;
  const double ms = 1e6;

  fixture_load (&f, "exact");
  for (int r = 0; r < 2; r++)
    {
      times[r] = g_new (Tick, f.srs[r]->ev->len);
      for (guint k = 0; k < f.srs[r]->ev->len; k++)
        times[r][k] = g_array_index (f.srs[r]->ev, SimEvent, k).time;
    }
  p = sim_cores_profile (f.srs, ranks, 2, (const Tick *const *) times, FALSE, 1.0, NULL);
  /* rank 0's foo 3..13: both compute to 5, then rank 0 alone (rank 1 in MPI_Recv 5..15) */
  g_assert_cmpfloat_with_epsilon (sim_cores_work (p, 3 * ms, 13 * ms), 9 * ms, 1);
  /* rank 1's foo 15..27: shared 15..18 and 20..25, alone 18..20 and 25..27 */
  g_assert_cmpfloat_with_epsilon (sim_cores_work (p, 15 * ms, 27 * ms), 8 * ms, 1);
  /* 9 ms of CPU from 3 take to 13; 1 ms from 34 (shared to 35, then nobody computes) to 35.5 */
  g_assert_cmpfloat_with_epsilon (sim_cores_span (p, 3 * ms, 9 * ms), 10 * ms, 1);
  g_assert_cmpfloat_with_epsilon (sim_cores_span (p, 34 * ms, 1 * ms), 1.5 * ms, 1);
  g_assert_cmpfloat_with_epsilon (sim_cores_span (p, 28 * ms, 0), 0, 1e-9);
  g_array_unref (p);
  /* 2 CPUs: nobody waits */
  p = sim_cores_profile (f.srs, ranks, 2, (const Tick *const *) times, FALSE, 2.0, NULL);
  g_assert_cmpfloat_with_epsilon (sim_cores_work (p, 3 * ms, 13 * ms), 10 * ms, 1);
  g_array_unref (p);

  /* the CPUs the sharing had, from the samples: rank 0's foo 3..13 got 7 ms of CPU; processor
   * sharing on c < 1 CPUs gives it 2 c / 2 + 8 c = 9 c */
  g_assert_cmpfloat (sim_cores_fit_cpus (f.srs, ranks, 2, (const Tick *const *) times, 1, &n_iv), ==, 1.0);
  g_assert_cmpuint (n_iv, ==, 0);   /* nothing sampled: nothing to fit */
  smp[0] = (SimCpuSample) { event_index (f.srs[0], EV_LEAVE, "MPI_Init"), 1000000, 0, -1, FALSE };
  smp[1] = (SimCpuSample) { event_index (f.srs[0], EV_ENTER, "MPI_Send"), 8000000, 3000000, -1, FALSE };
  f.srs[0]->cpu = g_array_new (FALSE, FALSE, sizeof (SimCpuSample));
  g_array_append_vals (f.srs[0]->cpu, smp, 2);
  sim_cpu_shares (f.srs[0], FALSE);
  g_assert_cmpfloat_with_epsilon (sim_cores_fit_cpus (f.srs, ranks, 2, (const Tick *const *) times, 1, &n_iv),
                                  7.0 / 9.0, 10.0 / 9.0 * 0.5 / 255 + 1e-6);   /* shares in 255ths */
  g_assert_cmpuint (n_iv, ==, 1);
  /* what it did not get: on the host's one CPU sharing gives foo 9 ms of CPU, it got 7 (179/255
   * of its 10 ms); nothing without the samples' metric, nothing where each rank has a CPU */
  g_assert_cmpfloat (sim_cores_shortfall (f.srs, 2), ==, 0);
  share_one_cpu (&f);
  g_assert_cmpfloat_with_epsilon (sim_cores_shortfall (f.srs, 2), 1.0 - 179.0 / 255 * 10 / 9, 1e-9);
  for (guint n = 0; n < f.defs->sysnodes->len; n++)
    ((TraceSysNode *) f.defs->sysnodes->pdata[n])->cpus = 2;
  g_assert_cmpfloat (sim_cores_shortfall (f.srs, 2), ==, 0);
  for (int r = 0; r < 2; r++)
    g_free (times[r]);
  fixture_free (&f);
}

/* The offline engine with the cores shared. The exact trace on 1 CPU, no interval sampled (so
 * each ran on its CPU for all its length: 2 ranks that never shared it, as the model sees the
 * samples); the identity then makes them share it where both compute. Worked out by hand:
 * rank 0 computes 1 ms and rank 1 2 ms from 0, at half a CPU each until 2, rank 1 alone to 3;
 * MPI_Init ends 1 ms after the last rank came (its recorded tail): at 4 on both; then rank 0's
 * foo (10 ms of CPU) and rank 1's (2 ms) share the CPU until 8, rank 1 waits in MPI_Recv and
 * rank 0 computes alone to 16. Without the sharing: 3, 5 and 13. */
static void
test_offline_cores (void)
{
  Fixture f = { 0 };
  SimTransformStats st = { 0 };
  SimModel *m;

  fixture_load (&f, "exact");
  share_one_cpu (&f);
  m = fit (&f);
  g_assert_true (m->sharing);
  g_assert_cmpuint (m->host_cpus[m->host[0]], ==, 1);
  g_assert_cmpfloat (m->host_cpus_fit[m->host[0]], ==, 1.0);   /* nothing sampled to fit */
  transform (&f, "", &st);
  offline (&f, m, 48);
  for (int r = 0; r < 2; r++)
    g_assert_cmpfloat_with_epsilon (ev_ms (f.srs[r], EV_LEAVE, "MPI_Init", 0, TRUE), 4, 0.005);
  g_assert_cmpfloat_with_epsilon (ev_ms (f.srs[0], EV_ENTER, "MPI_Init", 0, TRUE), 2, 0.005);
  g_assert_cmpfloat_with_epsilon (ev_ms (f.srs[1], EV_ENTER, "MPI_Init", 0, TRUE), 3, 0.005);
  g_assert_cmpfloat_with_epsilon (ev_ms (f.srs[1], EV_LEAVE, "foo", 0, TRUE), 8, 0.005);
  g_assert_cmpfloat_with_epsilon (ev_ms (f.srs[0], EV_LEAVE, "foo", 0, TRUE), 16, 0.005);
  g_assert_cmpint (m->cores_passes, >, 1);
  g_assert_cmpint (m->cores_passes, <=, 12);
  sim_model_free (m);
  fixture_free (&f);

  /* the CPU time of an interval is counted per sampled stretch: rank 0's foo 3..13 got 9 ms of
   * CPU (sampled, waiting the rest: 230/255 of it in the shares), its foo 14..18 ran (not
   * sampled); with its MPI_Send removed (and rank 1's MPI_Recv) they are one interval 3..17
   * that needs 13.02 ms of CPU, not 14 (the share at its end); from MPI_Init's end at 4 both
   * share the CPU, rank 0 is done at 30.04 (rank 1's 14 ms end alone at 31.02); with 14 ms
   * both would end at 32 */
  fixture_load (&f, "exact");
  share_one_cpu (&f);
  {
    SimCpuSample smp[2] = { { event_index (f.srs[0], EV_LEAVE, "MPI_Init"), 1000000, 0, -1, FALSE },
                            { event_index (f.srs[0], EV_ENTER, "MPI_Send"), 10000000, 1000000, -1, FALSE } };
    f.srs[0]->cpu = g_array_new (FALSE, FALSE, sizeof (SimCpuSample));
    g_array_append_vals (f.srs[0]->cpu, smp, 2);
    sim_cpu_shares (f.srs[0], FALSE);
  }
  m = fit (&f);
  transform (&f, "remove messages with tag == 1", &st);
  offline (&f, m, 42);
  g_assert_cmpfloat_with_epsilon (m->host_cpus_fit[m->host[0]], 1.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (ev_ms (f.srs[0], EV_ENTER, "MPI_Isend", 0, TRUE), 4 + 2 * (10 * 230.0 / 255 + 4), 0.005);
  g_assert_cmpfloat_with_epsilon (ev_ms (f.srs[1], EV_ENTER, "MPI_Irecv", 0, TRUE), 4 + (10 * 230.0 / 255 + 4) + 14, 0.005);
  sim_model_free (m);
  fixture_free (&f);

  /* not where the model is told not to share (other programs loaded the machine) */
  fixture_load (&f, "exact");
  share_one_cpu (&f);
  sim_plan_sync_tails (f.t, f.srs);
  g_assert_true (sim_match_messages (f.t, f.srs, NULL, NULL, NULL, NULL));
  m = sim_model_fit_cores (f.srs, f.n, FALSE);
  g_assert_false (m->sharing);
  transform (&f, "", &st);
  offline (&f, m, 48);
  g_assert_cmpfloat (ev_ms (f.srs[0], EV_LEAVE, "foo", 0, TRUE), ==, 13);
  g_assert_cmpint (m->cores_passes, ==, 0);
  sim_model_free (m);
  fixture_free (&f);
}

/* The cores per CPU (docs/decisions/2026-11-30-cores-per-cpu.md): which CPU each rank ran on
 * comes from the samples (each event takes the CPU of the first sample at or after it), and the
 * ranks share a CPU only where they ran on the same one. The exact trace on a host of 1 CPU (as
 * test_offline_cores), nothing sampled long enough to give shares: both ranks on CPU 0 share it
 * as processor sharing on the one CPU does (MPI_Init ends at 4, rank 1's foo at 8, rank 0's at
 * 16); rank 0 on CPU 0 and rank 1 on CPU 1 share nothing (3, 5, 13), whatever the host's count.
 * Rank 1's MPI_Recv (5..15) waited for rank 0's message: a rank waiting in MPI runs only once
 * the ranks computing on its CPU are in MPI too. The message arrives, as the model has it, after
 * rank 0 left its MPI_Send at 14, and rank 0 computed until 18, after the Recv had ended: the
 * original does not bear the rule out there (gate_ok 0), and the model does not apply it. */
/* the median of the last passes where they swing: per event, robust to one pass far out, and
 * an order every pass keeps (a rank's events) holds in it */
static void
test_offline_cores_median (void)
{
  /* six passes of three events of one rank: a swing around 10/20/30, one pass far out */
  const Tick p[6][3] = { { 9, 19, 29 }, { 11, 21, 31 }, { 9, 18, 30 }, { 11, 22, 30 }, { 10, 20, 30 },
                         { 10, 90, 95 } };
  const Tick *pp[6] = { p[0], p[1], p[2], p[3], p[4], p[5] };
  Tick out[3];
  sim_cores_median (out, pp, 6, 3);
  g_assert_cmpint (out[0], ==, 10);
  g_assert_cmpint (out[1], ==, 20);   /* 18 19 20 21 22 90: (20 + 21) / 2 in whole ticks */
  g_assert_cmpint (out[2], ==, 30);
  /* an odd number: the middle one */
  sim_cores_median (out, pp, 5, 3);
  g_assert_cmpint (out[0], ==, 10);
  g_assert_cmpint (out[1], ==, 20);
  g_assert_cmpint (out[2], ==, 30);
  /* every pass in order: the medians too, whatever the passes */
  for (guint seed = 1; seed <= 200; seed++)
    {
      GRand *rnd = g_rand_new_with_seed (seed);
      Tick q[6][8], o[8];
      const Tick *qq[6];
      for (int i = 0; i < 6; i++)
        {
          Tick t = g_rand_int_range (rnd, 0, 1000);
          for (int k = 0; k < 8; k++)
            q[i][k] = t += g_rand_int_range (rnd, 0, 1000);
          qq[i] = q[i];
        }
      sim_cores_median (o, qq, 6, 8);
      for (int k = 1; k < 8; k++)
        g_assert_cmpint (o[k - 1], <=, o[k]);
      g_rand_free (rnd);
    }
}

static void
test_offline_cores_per_cpu (void)
{
  for (int apart = 0; apart < 2; apart++)
    {
      Fixture f = { 0 };
      SimTransformStats st = { 0 };
      SimModel *m;
      guint init_leave, recv_leave;
      gint16 *w;

      fixture_load (&f, "exact");
      share_one_cpu (&f);
      f.defs->cpu_metric_where = TRUE;
      for (int r = 0; r < 2; r++)
        {
          /* one sample each, too few for shares: where only */
          SimCpuSample smp = { event_index (f.srs[r], EV_LEAVE, "MPI_Init"), 1000000, 0, apart ? r : 0, FALSE };
          f.srs[r]->cpu = g_array_new (FALSE, FALSE, sizeof (SimCpuSample));
          g_array_append_val (f.srs[r]->cpu, smp);
        }
      /* where: the first sample's CPU at or after each event, the last sample's after it */
      w = sim_cpu_where (f.srs[1]);
      g_assert_nonnull (w);
      g_assert_cmpint (w[0], ==, apart);
      g_assert_cmpint (w[f.srs[1]->ev->len - 1], ==, apart);
      g_free (w);
      {
        SimCpuSample two[2] = { { 2, 0, 0, 1, FALSE }, { 5, 0, 0, 0, FALSE } };
        GArray *keep = f.srs[0]->cpu;
        f.srs[0]->cpu = g_array_new (FALSE, FALSE, sizeof (SimCpuSample));
        g_array_append_vals (f.srs[0]->cpu, two, 2);
        w = sim_cpu_where (f.srs[0]);
        g_assert_cmpint (w[0], ==, 1);
        g_assert_cmpint (w[2], ==, 1);
        g_assert_cmpint (w[3], ==, 0);
        g_assert_cmpint (w[5], ==, 0);
        g_assert_cmpint (w[6], ==, 0);
        g_free (w);
        g_array_unref (f.srs[0]->cpu);
        f.srs[0]->cpu = keep;
      }
      m = fit (&f);
      g_assert_true (m->sharing);
      g_assert_cmpint (m->cpu_hosts, ==, 1);
      g_assert_cmpint (m->host_ids[m->host[0]], ==, apart ? 2 : 1);
      init_leave = event_index (f.srs[0], EV_LEAVE, "MPI_Init");
      recv_leave = event_index (f.srs[1], EV_LEAVE, "MPI_Recv");
      /* who shared rank 0's CPU at its MPI_Init's Leave: rank 1, unless apart */
      g_assert_cmpuint (m->mates[0][init_leave], ==, apart ? 0 : 2);
      /* the placement did not change: the whole run's cost classes */
      g_assert_false (m->mates_vary[0]);
      g_assert_false (m->mates_vary[1]);
      g_assert_cmpuint (m->gate_ok[1][recv_leave], ==, apart ? 1 : 0);
      transform (&f, "", &st);
      offline (&f, m, 48);
      g_assert_cmpfloat_with_epsilon (ev_ms (f.srs[0], EV_LEAVE, "MPI_Init", 0, TRUE), apart ? 3 : 4, 0.005);
      g_assert_cmpfloat_with_epsilon (ev_ms (f.srs[1], EV_LEAVE, "foo", 0, TRUE), apart ? 5 : 8, 0.005);
      g_assert_cmpfloat_with_epsilon (ev_ms (f.srs[0], EV_LEAVE, "foo", 0, TRUE), apart ? 13 : 16, 0.005);
      sim_model_free (m);
      fixture_free (&f);
    }
}

/* The headline of the printed summary: the prediction with its error bar, time saved or added
 * as a positive time, "not significant" when the change is within the identity error. */
static void
test_report_headline (void)
{
  g_autoptr (GString) out = g_string_new (NULL);
  g_assert_cmpint (sim_significance (-33.6, TRUE, 0.4), ==, 1);
  g_assert_cmpint (sim_significance (0.3, TRUE, -0.4), ==, 0);
  g_assert_cmpint (sim_significance (-5, FALSE, 0), ==, -1);
  sim_report_headline (out, 4.941, 3.280, -33.6, TRUE, TRUE, 0.4, 1);
  g_assert_cmpstr (out->str, ==,
                   "Run time after MPI_Init: original 4.941 s, predicted 3.280 s (−33.6 %); identity error of "
                   "this trace +0.4 %\nTime saved: 1.661000 s\n");
  g_string_truncate (out, 0);
  sim_report_headline (out, 2.0, 2.004, 0.2, TRUE, TRUE, -0.4, 0);
  g_assert_cmpstr (out->str, ==,
                   "Run time after MPI_Init: original 2.000 s, predicted 2.004 s (+0.2 %); identity error of "
                   "this trace −0.4 %\nTime added: 0.004000 s — not significant: smaller than the identity "
                   "error of this trace\n");
  g_string_truncate (out, 0);
  sim_report_headline (out, 1.0, 1.0, 0.0, FALSE, FALSE, 0, -1);
  g_assert_cmpstr (out->str, ==, "Run time: original 1.000 s, predicted 1.000 s (0.0 %)\nNo change\n");
}

/* the advice when a mode misses its goal: figures with a real minus sign, the closer mode named */
static void
test_identity_advice (void)
{
  SimHosts h = { .n_hosts = 1, .max_ranks_per_host = 4, .min_cpus = 2, .cpus_known = TRUE, .oversubscribed = TRUE };
  g_autofree char *within = sim_identity_advice (FALSE, &h, -4.9, TRUE, 0.1, FALSE);
  g_autofree char *better = sim_identity_advice (FALSE, &h, -6.1, TRUE, 0.8, FALSE);
  g_autofree char *closer = sim_identity_advice (TRUE, &h, -15.21, TRUE, 20.0, TRUE);
  g_autofree char *unknown = NULL, *against = NULL, *against_known = NULL;

  g_assert_null (within);
  g_assert_cmpstr (better, ==, "On this trace the real-time re-enactment misses the run as it was by −6.1 % (its "
                               "identity error; the goal where ranks share cores is 5 %), the offline model by +0.8 %: "
                               "simulate with --offline.");
  g_assert_cmpstr (closer, ==, "On this trace the offline model misses the run as it was by −15.2 % (its identity "
                               "error; the goal where ranks share cores is 5 %), the real-time re-enactment by +20.0 %: "
                               "the offline model is the closer of the two.");
  /* offline beyond the goal on a run the real-time re-enactment misses by more: not named as
   * the one to try; where its figure is known, the two figures decide as before */
  against = sim_identity_advice (TRUE, &h, -7.15, FALSE, NAN, TRUE);
  g_assert_cmpstr (against, ==, "On this trace the offline model misses the run as it was by −7.2 % (its identity "
                                "error; the goal where ranks share cores is 5 %). The real-time re-enactment misses "
                                "runs like this one by more (a simulation without --offline says why before it "
                                "starts), so the offline model stays the closer: a prediction smaller than this error "
                                "is not significant.");
  against_known = sim_identity_advice (TRUE, &h, -7.15, TRUE, -3.0, TRUE);
  g_assert_true (g_str_has_suffix (against_known, "the real-time re-enactment by −3.0 %: simulate without --offline."));
  g_assert_null (sim_identity_advice (TRUE, &h, -4.9, FALSE, NAN, TRUE));
  h.oversubscribed = FALSE;
  unknown = sim_identity_advice (TRUE, &h, -2.5, FALSE, NAN, FALSE);
  g_assert_cmpstr (unknown, ==, "On this trace the offline model misses the run as it was by −2.5 % (its identity "
                                "error; the goal where every rank has a core is 2 %). The real-time re-enactment may "
                                "do better: an identity simulation without --offline measures it (an empty hypothesis "
                                "file).");
}

/* the re-enactment's large messages: a note where they took 1.5 times as long as in the original
 * or more, over 8 calls or more; faster ones get the original's time from the copy floors */
static void
test_large_messages_note (void)
{
  g_autofree char *slow = sim_large_messages_note (642, 3.84);
  g_autofree char *edge = sim_large_messages_note (8, 1.5);
  g_assert_cmpstr (slow, ==, "Its large messages (1 MiB and more, 642 calls) took 3.8× as long as in the original run: "
                             "the machine moved them at another speed this time (some machines do from launch to "
                             "launch; bench/sim/exchange-modes.sh measures it). Another re-enactment may come closer.");
  g_assert_nonnull (edge);
  g_assert_null (sim_large_messages_note (7, 3.84));
  g_assert_null (sim_large_messages_note (642, 1.49));
  g_assert_null (sim_large_messages_note (24, 0.37));   /* sim-fresh: fresh buffers in the original */
  g_assert_null (sim_large_messages_note (642, NAN));
}

/* other programs' load: the ranks' wait for a CPU beyond what sharing the cores among
 * themselves explains; the advice only above 5 % and only with samples */
static void
test_outside_load (void)
{
  SimHosts    h = { .n_hosts = 1, .max_ranks_per_host = 2, .min_cpus = 2, .cpus_known = TRUE,
                    .oversubscribed = FALSE, .has_samples = TRUE };
  SimCpuStats c = { .samples = 10, .gap_wall = 600, .gap_wait = 30, .call_wall = 400, .call_wait = 20 };
  char *advice;

  g_assert_cmpfloat_with_epsilon (sim_outside_load (&h, &c), 0.05, 1e-12);
  g_assert_null (sim_load_advice (&h, &c));     /* 5 %: not above */
  c.call_wait = 400;                            /* 43 % of the time */
  g_assert_cmpfloat_with_epsilon (sim_outside_load (&h, &c), 0.43, 1e-12);
  advice = sim_load_advice (&h, &c);
  g_assert_nonnull (advice);
  g_assert_true (strstr (advice, "43 %") != NULL);
  g_free (advice);
  /* 4 ranks on 2 CPUs: half of their time waiting is their own sharing */
  h.max_ranks_per_host = 4;
  h.oversubscribed = TRUE;
  g_assert_cmpfloat_with_epsilon (sim_outside_load (&h, &c), 0.0, 1e-12);
  c.gap_wait = 330;                             /* 73 %: 23 % beyond the half */
  g_assert_cmpfloat_with_epsilon (sim_outside_load (&h, &c), 0.23, 1e-12);
  advice = sim_load_advice (&h, &c);
  g_assert_nonnull (advice);
  g_free (advice);
  /* no samples, or no CPU count: unknown */
  h.has_samples = FALSE;
  g_assert_cmpfloat (sim_outside_load (&h, &c), <, 0);
  g_assert_null (sim_load_advice (&h, &c));
  h.has_samples = TRUE;
  h.cpus_known = FALSE;
  g_assert_cmpfloat (sim_outside_load (&h, &c), <, 0);
  /* the host's accounting bounds it: other programs took 4 % of the ranks' time at most (the
   * rest of the 23 % is the scheduler's balance among the ranks): no advice */
  h.cpus_known = TRUE;
  h.other_known = TRUE;
  h.other_bound = 0.04;
  g_assert_cmpfloat_with_epsilon (sim_outside_load (&h, &c), 0.04, 1e-12);
  g_assert_null (sim_load_advice (&h, &c));
  /* they took more than the waits show: the waits stand */
  h.other_bound = 0.6;
  g_assert_cmpfloat_with_epsilon (sim_outside_load (&h, &c), 0.23, 1e-12);
  advice = sim_load_advice (&h, &c);
  g_assert_nonnull (advice);
  g_free (advice);
}

/* What other programs took of the host where the ranks did not sample (ranks did not outnumber
 * cores): from KUBUS::OTHER_CPU_NS / KUBUS::OTHER_WALL_NS less the CPUs the ranks left idle, over
 * the CPUs the ranks could use; the advice above 5 % (docs/decisions/2026-11-29-outside-load-
 * always.md) */
static void
set_host (Fixture *f, guint32 cpus, guint64 other_cpu_ns, guint64 other_wall_ns)
{
  for (guint n = 0; n < f->defs->sysnodes->len; n++)
    {
      TraceSysNode *sn = f->defs->sysnodes->pdata[n];
      sn->cpus = cpus;
      sn->other_cpu_ns = other_cpu_ns;
      sn->other_wall_ns = other_wall_ns;
    }
}

static void
test_outside_cpu_share (void)
{
  Fixture f = { 0 };
  SimHosts h;
  SimCpuStats none = { 0 };
  SimCpuStats c = { .samples = 10, .gap_wall = 600, .gap_wait = 6, .call_wall = 400, .call_wait = 4 };
  char *advice;

  fixture_load (&f, "exact");
  g_assert_true (f.defs->cpu_metric == OTF2_UNDEFINED_METRIC);
  /* no properties (a trace of an older collector): unknown, nothing said */
  sim_cpu_hosts (f.defs, &h);
  g_assert_false (h.other_known);
  g_assert_null (sim_load_advice (&h, &none));
  /* 2 ranks on 2 CPUs, other programs kept 0.4 CPUs busy: 20 % of the ranks' CPUs */
  set_host (&f, 2, 400000000, 1000000000);
  sim_cpu_hosts (f.defs, &h);
  g_assert_true (h.other_known && !h.has_samples && !h.oversubscribed);
  g_assert_cmpfloat_with_epsilon (h.other_share, 0.2, 1e-12);
  g_assert_cmpuint (h.other_share_ranks, ==, 2);
  g_assert_cmpuint (h.other_share_cpus, ==, 2);
  g_assert_cmpfloat (sim_outside_load (&h, &none), <, 0);   /* the waits' figure stays unknown */
  advice = sim_load_advice (&h, &none);
  g_assert_nonnull (advice);
  g_assert_true (g_str_has_prefix (advice, "Other programs shared the host with the original run: they took 20 % "
                                           "of the CPU time its ranks could have had (2 ranks on 2 CPUs)."));
  g_assert_true (strstr (advice, "quiet machine") != NULL);
  g_free (advice);
  /* 4 CPUs: the first 2 CPUs other programs kept busy were the ones the ranks left idle */
  set_host (&f, 4, 2400000000, 1000000000);
  sim_cpu_hosts (f.defs, &h);
  g_assert_cmpfloat_with_epsilon (h.other_share, 0.2, 1e-12);
  advice = sim_load_advice (&h, &none);
  g_assert_true (advice && strstr (advice, "20 % of the CPU time its ranks could have had (2 ranks on 4 CPUs)"));
  g_free (advice);
  set_host (&f, 4, 1500000000, 1000000000);
  sim_cpu_hosts (f.defs, &h);
  g_assert_cmpfloat (h.other_share, ==, 0.0);
  g_assert_null (sim_load_advice (&h, &none));
  /* 5 %: not above; all of the CPUs (and more, by the accounting's error): at most 100 % */
  set_host (&f, 2, 100000000, 1000000000);
  sim_cpu_hosts (f.defs, &h);
  g_assert_cmpfloat_with_epsilon (h.other_share, 0.05, 1e-12);
  g_assert_null (sim_load_advice (&h, &none));
  set_host (&f, 2, 2500000000, 1000000000);
  sim_cpu_hosts (f.defs, &h);
  g_assert_cmpfloat (h.other_share, ==, 1.0);
  /* 2 ranks on 1 CPU: the share of that one CPU */
  set_host (&f, 1, 300000000, 1000000000);
  sim_cpu_hosts (f.defs, &h);
  g_assert_true (h.oversubscribed);
  g_assert_cmpfloat_with_epsilon (h.other_share, 0.3, 1e-12);
  /* with samples the ranks' waits for a CPU decide (1 % here): the existing note's rule */
  set_host (&f, 2, 400000000, 1000000000);
  f.defs->cpu_metric = 0;
  sim_cpu_hosts (f.defs, &h);
  g_assert_true (h.has_samples);
  g_assert_cmpfloat_with_epsilon (sim_outside_load (&h, &c), 0.01, 1e-12);
  g_assert_null (sim_load_advice (&h, &c));
  fixture_free (&f);
}

/* The floors the real-time replay takes from the original (sim_plan_coll_costs, and the costs
 * message matching notes): a blocking call's cost after the peers it waits for were ready. */
static gint64
floor_ms (SimRank  *sr,
          SimEvType type)
{
  SimEvent *ev = (SimEvent *) sr->ev->data;
  for (guint k = 0; k < sr->ev->len; k++)
    if (ev[k].type == type)
      {
        const gint64 *c = sr->copy_cost ? g_hash_table_lookup (sr->copy_cost, GUINT_TO_POINTER (k + 1)) : NULL;
        return c ? *c / 1000000 : -1;
      }
  g_assert_not_reached ();
  return -1;
}

static void
test_floors (void)
{
  Fixture f;
  fixture_load (&f, "exact");
  sim_plan_coll_costs (f.t, f.srs);
  g_assert_true (sim_match_messages (f.t, f.srs, NULL, NULL, NULL, NULL));
  /* MPI_Allreduce 25..34 and 31..34: 3 ms each after rank 1 entered (not 9 on rank 0) */
  g_assert_cmpint (floor_ms (f.srs[0], EV_COLL_END), ==, 3);
  g_assert_cmpint (floor_ms (f.srs[1], EV_COLL_END), ==, 3);
  /* MPI_Send 13..14 to a receive in MPI since 5: 1 ms; MPI_Recv 5..15 of a send from 13: 2 ms */
  g_assert_cmpint (floor_ms (f.srs[0], EV_SEND), ==, 1);
  g_assert_cmpint (floor_ms (f.srs[1], EV_RECV), ==, 2);
  /* the members entered 6 ms apart: not an instance the re-enactment may run blocking */
  g_assert_null (f.srs[0]->coll_short);
  g_assert_null (f.srs[1]->coll_short);
  fixture_free (&f);

  /* rank 0 entering the MPI_Allreduce at 30.2 ms instead, 0.8 ms before rank 1: a short
   * instance, on both members alike */
  fixture_load (&f, "exact");
  for (guint k = 1; k < f.srs[0]->ev->len; k++)
    if (g_array_index (f.srs[0]->ev, SimEvent, k).type == EV_COLL_END)
      {
        guint e = k;
        while (e > 0 && g_array_index (f.srs[0]->ev, SimEvent, e).type != EV_ENTER)
          e--;
        g_array_index (f.srs[0]->ev, SimEvent, e).time = 30200000;
        for (guint j = e + 1; j < k; j++)
          g_array_index (f.srs[0]->ev, SimEvent, j).time = MAX (g_array_index (f.srs[0]->ev, SimEvent, j).time, 30200000);
        break;
      }
  sim_plan_coll_costs (f.t, f.srs);
  for (int r = 0; r < 2; r++)
    {
      SimEvent *ev = (SimEvent *) f.srs[r]->ev->data;
      guint end = 0;
      for (guint k = 0; k < f.srs[r]->ev->len; k++)
        if (ev[k].type == EV_COLL_END)
          end = k;
      g_assert_nonnull (f.srs[r]->coll_short);
      g_assert_cmpuint (g_hash_table_size (f.srs[r]->coll_short), ==, 1);
      g_assert_true (g_hash_table_contains (f.srs[r]->coll_short, GUINT_TO_POINTER (end + 1)));
    }
  fixture_free (&f);

  /* the receive posted at 5, its rank computing until its MPI_Wait at 15: a rendezvous send
   * (13..17) could go on from 15, not 13 */
  fixture_load (&f, "irecv");
  sim_plan_coll_costs (f.t, f.srs);
  g_assert_true (sim_match_messages (f.t, f.srs, NULL, NULL, NULL, NULL));
  g_assert_cmpint (floor_ms (f.srs[0], EV_SEND), ==, 2);
  g_assert_cmpint (floor_ms (f.srs[0], EV_COLL_END), ==, 3);
  fixture_free (&f);
}

/* Why kubus-sim refuses an aborted experiment, from its abort marker and kubus.json: the rank
 * that failed, or, where the rank that wrote the definitions was stopped (" stopped"), no rank */
static void
test_incomplete_reason (void)
{
  g_autofree char *dir = g_dir_make_tmp ("kubus-incomplete-XXXXXX", NULL);
  g_autofree char *marker = g_build_filename (dir, ".kubus-abort-definitions", NULL);
  g_autofree char *json = g_build_filename (dir, "kubus.json", NULL);
  char *why;

  g_assert_nonnull (dir);
  g_assert_null (sim_incomplete_reason (dir));
  g_assert_true (g_file_set_contents (json, "{\"end_time\": \"x\", \"exit_status\": 6}", -1, NULL));
  g_assert_null (sim_incomplete_reason (dir));
  g_assert_true (g_file_set_contents (marker, "2\n", -1, NULL));
  why = sim_incomplete_reason (dir);
  g_assert_cmpstr (why, ==, "the measured run was aborted (rank 2 called MPI_Abort, died on a signal or exited "
                            "without MPI_Finalize, and the other ranks were stopped; exit status 6)");
  g_free (why);
  g_assert_true (g_file_set_contents (marker, "3 stopped\n", -1, NULL));
  why = sim_incomplete_reason (dir);
  g_assert_cmpstr (why, ==, "the measured run was aborted (a rank ended without saving its trace, as on an MPI "
                            "error the library found fatal, and the other ranks were stopped; exit status 6)");
  g_free (why);
  g_remove (marker);
  g_remove (json);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  analyze_quiet_otf2 ();
  g_test_add_func ("/sim/hypothesis/parse", test_parse_ok);
  g_test_add_func ("/sim/hypothesis/empty", test_parse_empty);
  g_test_add_func ("/sim/hypothesis/errors", test_parse_errors);
  g_test_add_func ("/sim/hypothesis/examples", test_examples);
  g_test_add_func ("/sim/hypothesis/resolve", test_resolve);
  g_test_add_func ("/sim/hypothesis/resolve-short", test_resolve_short);
  g_test_add_func ("/sim/hypothesis/all-errors", test_all_errors);
  g_test_add_func ("/sim/transform/identity", test_identity);
  g_test_add_func ("/sim/transform/scale", test_scale);
  g_test_add_func ("/sim/transform/scale-flush", test_scale_flush);
  g_test_add_func ("/sim/transform/balance", test_balance);
  g_test_add_func ("/sim/transform/balance-globally", test_balance_global);
  g_test_add_func ("/sim/transform/balance-cpu", test_balance_cpu);
  g_test_add_func ("/sim/transform/balance-phases", test_balance_phases);
  g_test_add_func ("/sim/transform/remove-size", test_remove_size);
  g_test_add_func ("/sim/transform/remove-tag", test_remove_tag_region);
  g_test_add_func ("/sim/transform/remove-in-region", test_remove_in_region);
  g_test_add_func ("/sim/match/unmatched", test_unmatched);
  g_test_add_func ("/sim/match/floors", test_floors);
  g_test_add_func ("/sim/plan/refused-approximated", test_refused_and_approximated);
  g_test_add_func ("/sim/offline/identity", test_offline_identity);
  g_test_add_func ("/sim/offline/scale", test_offline_scale);
  g_test_add_func ("/sim/model/fit", test_model_fit);
  g_test_add_func ("/sim/model/eager-limit", test_model_eager_limit);
  g_test_add_func ("/sim/offline/progress", test_offline_progress);
  g_test_add_func ("/sim/offline/tree", test_offline_tree);
  g_test_add_func ("/sim/offline/extrapolate", test_offline_extrapolate);
  g_test_add_func ("/sim/model/slow-rendezvous", test_model_slow_rendezvous);
  g_test_add_func ("/sim/model/eager-library", test_model_eager_library);
  g_test_add_func ("/sim/advice/eager", test_eager_advice);
  g_test_add_func ("/sim/cores/polls", test_cores_polls);
  g_test_add_func ("/sim/model/scatter", test_model_scatter);
  g_test_add_func ("/sim/model/flat-line", test_model_flat_line);
  g_test_add_func ("/sim/offline/wait-classes", test_offline_wait_classes);
  g_test_add_func ("/sim/model/cost-phase", test_model_cost_phase);
  g_test_add_func ("/sim/write/roundtrip", test_write_roundtrip);
  g_test_add_func ("/sim/report/headline", test_report_headline);
  g_test_add_func ("/sim/report/identity-advice", test_identity_advice);
  g_test_add_func ("/sim/report/incomplete-reason", test_incomplete_reason);
  g_test_add_func ("/sim/report/large-messages", test_large_messages_note);
  g_test_add_func ("/sim/cpu/shares", test_cpu_shares);
  g_test_add_func ("/sim/cpu/shares-conserve", test_cpu_shares_conserve);
  g_test_add_func ("/sim/cpu/shares-late-sample", test_cpu_shares_late_sample);
  g_test_add_func ("/sim/cpu/poll-time", test_poll_time);
  g_test_add_func ("/sim/cpu/call-rate", test_call_rate);
  g_test_add_func ("/sim/cpu/outside-load", test_outside_load);
  g_test_add_func ("/sim/cpu/outside-cpu-share", test_outside_cpu_share);
  g_test_add_func ("/sim/cpu/cores-profile", test_cores_profile);
  g_test_add_func ("/sim/offline/cores", test_offline_cores);
  g_test_add_func ("/sim/offline/cores-per-cpu", test_offline_cores_per_cpu);
  g_test_add_func ("/sim/offline/cores-median", test_offline_cores_median);
  return g_test_run ();
}
