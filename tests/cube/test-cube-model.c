/* test-cube-model.c — builder, values API, writer round trip and anchor parsing on small
 * hand-made reports whose numbers are worked out by hand in the comments. Trees are rendered
 * to strings and compared with expected strings (GTK test-suite style). */
#include "cube-private.h"

#include <float.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

/* ---- the hand-made report --------------------------------------------------------------------
 *
 * metrics: time (FLOAT) ─ wait (FLOAT);  visits (INTEGER);  minm (MINDOUBLE)
 * call tree: c0 main ─ c1 foo ─ c2 bar
 *                    └ c3 bar
 * system: machine m ─ node n ─ p0 ─ t0 (loc 0), t1 (loc 1)
 *                             └ p1 ─ t2 (loc 2)
 * stored values (CUBE 3: metric-inclusive, call-exclusive), per location 0 1 2:
 *   time  c0: 1 2 3   c1: 10 20 30   c2: 100 200 300   c3: 1000 2000 3000
 *   wait  c0: .5 0 0  c1: 5 0 0      c2: 0 0 50        c3: (no row)
 *   visits c0: 1 1 1
 *   minm  c0: 4 2 8   c1: 3 9 7
 */
typedef struct
{
  CubeReport  *r;
  CubeMetric  *time, *wait, *visits, *minm;
  CubeCnode   *c[4];
  CubeSysNode *machine, *node, *p0, *p1, *t0, *t1, *t2;
} Fixture;

static void
fixture_build (Fixture *f)
{
  CubeRegion         *main_r, *foo, *bar;
  static const double time_v[4][3]
      = { { 1, 2, 3 }, { 10, 20, 30 }, { 100, 200, 300 }, { 1000, 2000, 3000 } };
  static const double wait_v[3][3] = { { .5, 0, 0 }, { 5, 0, 0 }, { 0, 0, 50 } };
  static const double minm_v[2][3] = { { 4, 2, 8 }, { 3, 9, 7 } };

  f->r = cube_report_new ();
  f->time = cube_report_add_metric (f->r, NULL, "time", "Time", CUBE_DTYPE_DOUBLE, "sec",
                                    "@mirror@t.html", "all");
  f->wait
      = cube_report_add_metric (f->r, f->time, "wait", "Wait", CUBE_DTYPE_DOUBLE, "sec", "", "");
  f->visits
      = cube_report_add_metric (f->r, NULL, "visits", "Visits", CUBE_DTYPE_INT64, "occ", "", "");
  f->minm = cube_report_add_metric (f->r, NULL, "minm", "Min", CUBE_DTYPE_MINDOUBLE, "sec", "", "");
  main_r = cube_report_add_region (f->r, "main", "a.c", 1, 50);
  foo = cube_report_add_region (f->r, "foo", "a.c", 60, 70);
  bar = cube_report_add_region (f->r, "bar", "b.c", -1, -1);
  f->c[0] = cube_report_add_cnode (f->r, NULL, main_r, -1, "a.c");
  f->c[1] = cube_report_add_cnode (f->r, f->c[0], foo, 10, "a.c");
  f->c[2] = cube_report_add_cnode (f->r, f->c[1], bar, 65, "a.c");
  f->c[3] = cube_report_add_cnode (f->r, f->c[0], bar, 20, "a.c");
  f->machine = cube_report_add_sysnode (f->r, NULL, CUBE_SYS_MACHINE, "m", -1);
  f->node = cube_report_add_sysnode (f->r, f->machine, CUBE_SYS_NODE, "n", -1);
  f->p0 = cube_report_add_sysnode (f->r, f->node, CUBE_SYS_PROCESS, "p0", 0);
  f->t0 = cube_report_add_sysnode (f->r, f->p0, CUBE_SYS_THREAD, "t0", 0);
  f->t1 = cube_report_add_sysnode (f->r, f->p0, CUBE_SYS_THREAD, "t1", 1);
  f->p1 = cube_report_add_sysnode (f->r, f->node, CUBE_SYS_PROCESS, "p1", 1);
  f->t2 = cube_report_add_sysnode (f->r, f->p1, CUBE_SYS_THREAD, "t2", 0);
  for (guint c = 0; c < 4; c++)
    for (guint l = 0; l < 3; l++)
      {
        cube_report_set_value (f->r, f->time, f->c[c], l, time_v[c][l]);
        if (c < 3 && wait_v[c][l] != 0)
          cube_report_set_value (f->r, f->wait, f->c[c], l, wait_v[c][l]);
        if (c < 2)
          cube_report_set_value (f->r, f->minm, f->c[c], l, minm_v[c][l]);
      }
  for (guint l = 0; l < 3; l++)
    cube_report_add_value (f->r, f->visits, f->c[0], l, 1);
}

static void
append_number (GString *s, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append (s, g_ascii_formatd (buf, sizeof buf, "%.10g", v));
}

/* "name incl/excl" per node, two spaces per depth. */
static char *
render_cnodes (Fixture *f, const CubeMetricSel *msel, guint n, const CubeSysSel *sys, guint n_sys)
{
  GString           *s = g_string_new (NULL);
  guint              len = f->r->cnodes->len;
  g_autofree double *incl = g_new (double, len);
  g_autofree double *excl = g_new (double, len);
  g_autoptr (GError) error = NULL;

  g_assert_true (cube_values_cnodes (f->r, msel, n, sys, n_sys, incl, excl, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < len; i++)
    {
      const CubeCnode *c = g_ptr_array_index (f->r->cnodes, i);
      g_string_append_printf (s, "%*s%s ", 2 * c->depth, "", c->callee->name);
      append_number (s, incl[i]);
      g_string_append_c (s, '/');
      append_number (s, excl[i]);
      g_string_append_c (s, '\n');
    }
  return g_string_free (s, FALSE);
}

static char *
render_system (
    Fixture *f, const CubeMetricSel *msel, guint n, const CubeCnodeSel *csel, guint n_csel)
{
  GString           *s = g_string_new (NULL);
  g_autofree double *per = g_new (double, f->r->locations->len);
  g_autofree double *incl = g_new (double, f->r->sysnodes->len);
  g_autofree double *excl = g_new (double, f->r->sysnodes->len);
  g_autoptr (GError) error = NULL;

  g_assert_true (cube_values_locations (f->r, msel, n, csel, n_csel, per, &error));
  cube_values_sysnodes (f->r, msel[0].metric, per, incl, excl);
  for (guint i = 0; i < f->r->sysnodes->len; i++)
    {
      const CubeSysNode *sn = g_ptr_array_index (f->r->sysnodes, i);
      g_string_append_printf (s, "%*s%s ", 2 * sn->depth, "", sn->name);
      append_number (s, incl[i]);
      g_string_append_c (s, '/');
      append_number (s, excl[i]);
      g_string_append_c (s, '\n');
    }
  return g_string_free (s, FALSE);
}

static void
test_values_metrics (void)
{
  Fixture f;
  double  incl[4], excl[4];
  g_autoptr (GError) error = NULL;

  fixture_build (&f);
  g_assert_true (cube_values_metrics (f.r, incl, excl, &error));
  /* time: everything = 6 + 60 + 600 + 6000 = 6666; its child wait = .5 + 5 + 50 = 55.5 */
  g_assert_cmpfloat (incl[f.time->index], ==, 6666);
  g_assert_cmpfloat (excl[f.time->index], ==, 6610.5);
  g_assert_cmpfloat (incl[f.wait->index], ==, 55.5);
  g_assert_cmpfloat (excl[f.wait->index], ==, 55.5);
  g_assert_cmpfloat (incl[f.visits->index], ==, 3);
  /* minm: min over every stored value = 2; a min is not split along the metric tree */
  g_assert_cmpfloat (incl[f.minm->index], ==, 2);
  g_assert_cmpfloat (excl[f.minm->index], ==, 2);
  cube_report_free (f.r);
}

static void
test_values_cnodes (void)
{
  Fixture f;
  char   *s;

  fixture_build (&f);
  {
    /* time collapsed: exclusive = row sums; inclusive adds the subtrees */
    CubeMetricSel m[] = { { f.time, FALSE } };
    s = render_cnodes (&f, m, 1, NULL, 0);
    g_assert_cmpstr (s, ==,
                     "main 6666/6\n"
                     "  foo 660/60\n"
                     "    bar 600/600\n"
                     "  bar 6000/6000\n");
    g_free (s);
  }
  {
    /* time expanded: minus wait (c0 .5, c1 5, c2 50) */
    CubeMetricSel m[] = { { f.time, TRUE } };
    s = render_cnodes (&f, m, 1, NULL, 0);
    g_assert_cmpstr (s, ==,
                     "main 6610.5/5.5\n"
                     "  foo 605/55\n"
                     "    bar 550/550\n"
                     "  bar 6000/6000\n");
    g_free (s);
  }
  {
    /* expanded time + collapsed wait = collapsed time */
    CubeMetricSel m[] = { { f.time, TRUE }, { f.wait, FALSE } };
    s = render_cnodes (&f, m, 2, NULL, 0);
    g_assert_cmpstr (s, ==,
                     "main 6666/6\n"
                     "  foo 660/60\n"
                     "    bar 600/600\n"
                     "  bar 6000/6000\n");
    g_free (s);
  }
  {
    /* over process p0 (locations 0 and 1) */
    CubeMetricSel m[] = { { f.time, FALSE } };
    CubeSysSel    sys[] = { { f.p0, FALSE } };
    s = render_cnodes (&f, m, 1, sys, 1);
    g_assert_cmpstr (s, ==,
                     "main 3333/3\n"
                     "  foo 330/30\n"
                     "    bar 300/300\n"
                     "  bar 3000/3000\n");
    g_free (s);
  }
  {
    /* expanded p0 is an inner node: nothing of its own. t0 expanded: location 0 */
    CubeMetricSel m[] = { { f.wait, FALSE } };
    CubeSysSel    sys[] = { { f.p0, TRUE }, { f.t0, TRUE } };
    s = render_cnodes (&f, m, 1, sys, 2);
    g_assert_cmpstr (s, ==,
                     "main 5.5/0.5\n"
                     "  foo 5/5\n"
                     "    bar 0/0\n"
                     "  bar 0/0\n");
    g_free (s);
  }
  {
    /* min: c0 min(4,2,8) = 2, c1 min(3,9,7) = 3, no rows below: 0 shown; inclusive = min */
    CubeMetricSel m[] = { { f.minm, FALSE } };
    s = render_cnodes (&f, m, 1, NULL, 0);
    g_assert_cmpstr (s, ==,
                     "main 2/2\n"
                     "  foo 3/3\n"
                     "    bar 0/0\n"
                     "  bar 0/0\n");
    g_free (s);
  }
  cube_report_free (f.r);
}

static void
test_values_system (void)
{
  Fixture f;
  char   *s;

  fixture_build (&f);
  {
    /* time, foo collapsed (c1 + c2): 110 220 330 */
    CubeMetricSel m[] = { { f.time, FALSE } };
    CubeCnodeSel  c[] = { { f.c[1], FALSE } };
    s = render_system (&f, m, 1, c, 1);
    g_assert_cmpstr (s, ==,
                     "m 660/0\n"
                     "  n 660/0\n"
                     "    p0 330/0\n"
                     "      t0 110/110\n"
                     "      t1 220/220\n"
                     "    p1 330/0\n"
                     "      t2 330/330\n");
    g_free (s);
  }
  {
    /* time expanded, foo expanded: 10-5, 20-0, 30-0 */
    CubeMetricSel m[] = { { f.time, TRUE } };
    CubeCnodeSel  c[] = { { f.c[1], TRUE } };
    s = render_system (&f, m, 1, c, 1);
    g_assert_cmpstr (s, ==,
                     "m 55/0\n"
                     "  n 55/0\n"
                     "    p0 25/0\n"
                     "      t0 5/5\n"
                     "      t1 20/20\n"
                     "    p1 30/0\n"
                     "      t2 30/30\n");
    g_free (s);
  }
  {
    /* no call path selected = whole call tree: 1111 2222 3333 */
    CubeMetricSel m[] = { { f.time, FALSE } };
    s = render_system (&f, m, 1, NULL, 0);
    g_assert_cmpstr (s, ==,
                     "m 6666/0\n"
                     "  n 6666/0\n"
                     "    p0 3333/0\n"
                     "      t0 1111/1111\n"
                     "      t1 2222/2222\n"
                     "    p1 3333/0\n"
                     "      t2 3333/3333\n");
    g_free (s);
  }
  {
    /* min per location over c0, c1: 3 2 7; min up the system tree */
    CubeMetricSel m[] = { { f.minm, FALSE } };
    s = render_system (&f, m, 1, NULL, 0);
    g_assert_cmpstr (s, ==,
                     "m 2/0\n"
                     "  n 2/0\n"
                     "    p0 2/0\n"
                     "      t0 3/3\n"
                     "      t1 2/2\n"
                     "    p1 7/0\n"
                     "      t2 7/7\n");
    g_free (s);
  }
  {
    CubeMetricSel m1[] = { { f.time, FALSE } };
    CubeMetricSel m2[] = { { f.time, TRUE } };
    CubeMetricSel m3[] = { { f.visits, FALSE } };
    CubeCnodeSel  c0[] = { { f.c[0], FALSE } };
    CubeCnodeSel  c1[] = { { f.c[1], TRUE } };
    CubeSysSel    t0[] = { { f.t0, TRUE } };
    CubeSysSel    p0[] = { { f.p0, FALSE } };
    CubeSysSel    two[] = { { f.p0, FALSE }, { f.t0, TRUE } };

    g_assert_cmpfloat (cube_value (f.r, m1, 1, c0, 1, NULL, 0), ==, 6666);
    g_assert_cmpfloat (cube_value (f.r, m2, 1, c1, 1, t0, 1), ==, 5);   /* 10 - 5 */
    g_assert_cmpfloat (cube_value (f.r, m3, 1, c0, 1, p0, 1), ==, 2);   /* visits of t0 + t1 */
    g_assert_cmpfloat (cube_value (f.r, m1, 1, c1, 1, two, 2), ==, 40); /* (10 + 20) + 10 */
  }
  cube_report_free (f.r);
}

/* A minimum over the system tree where some locations never visited the call path (a profile's
 * other threads): they hold DBL_MAX, cubelib's "no value". The process and machine take the
 * minimum of the locations that have one (not 0); what each location shows is 0. */
static void
test_values_system_none (void)
{
  Fixture            f;
  CubeMetricSel      m[] = { { NULL, FALSE } };
  CubeCnodeSel       c[] = { { NULL, FALSE } };
  double             per[3], incl[7], excl[7];
  g_autoptr (GError) error = NULL;
  static const double want_incl[7] = { 1.5, 1.5, 1.5, 1.5, 0, 0, 0 };
  static const double want_excl[7] = { 0, 0, 0, 1.5, 0, 0, 0 };

  fixture_build (&f);
  m[0].metric = f.minm;
  c[0].cnode = f.c[2];
  cube_report_set_value (f.r, f.minm, f.c[2], 0, 1.5);
  cube_report_set_value (f.r, f.minm, f.c[2], 1, G_MAXDOUBLE);
  cube_report_set_value (f.r, f.minm, f.c[2], 2, G_MAXDOUBLE);
  g_assert_true (cube_values_locations_keep_none (f.r, m, 1, c, 1, per, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (per[0], ==, 1.5);
  g_assert_true (cube_value_is_none (f.minm, per[1]) && cube_value_is_none (f.minm, per[2]));
  cube_values_sysnodes (f.r, f.minm, per, incl, excl);
  for (guint i = 0; i < 7; i++)
    {
      g_assert_cmpfloat (incl[i], ==, want_incl[i]);
      g_assert_cmpfloat (excl[i], ==, want_excl[i]);
    }
  cube_values_none_to_zero (per, 3);
  g_assert_cmpfloat (per[0], ==, 1.5);
  g_assert_cmpfloat (per[1], ==, 0);
  g_assert_cmpfloat (per[2], ==, 0);
  /* what the system pane showed before: the values already 0 pull every minimum to 0 */
  g_assert_true (cube_values_locations (f.r, m, 1, c, 1, per, NULL));
  g_assert_cmpfloat (per[1], ==, 0);
  cube_report_free (f.r);
}

static void
test_ct_aggr_max (void)
{
  Fixture     f;
  double      incl[4];
  CubeRegion *init;
  CubeCnode  *c4;
  g_autoptr (GError) error = NULL;

  fixture_build (&f);
  init = cube_report_add_region (f.r, "init", "", -1, -1);
  c4 = cube_report_add_cnode (f.r, NULL, init, -1, "");
  for (guint l = 0; l < 3; l++)
    cube_report_set_value (f.r, f.time, c4, l, 5);
  g_assert_true (cube_values_metrics (f.r, incl, NULL, &error));
  g_assert_cmpfloat (incl[f.time->index], ==, 6681); /* 6666 + 15 */
  cube_report_set_attr (f.r, "CUBE_CT_AGGR", "MAX");
  g_assert_true (f.r->ct_aggr_max);
  g_assert_true (cube_values_metrics (f.r, incl, NULL, &error));
  g_assert_cmpfloat (incl[f.time->index], ==, 6666); /* max (6666, 15) */
  {
    CubeMetricSel m[] = { { f.time, FALSE } };
    CubeSysSel    t2[] = { { f.t2, TRUE } };
    CubeSysSel    all[] = { { f.machine, FALSE } };
    g_assert_cmpfloat (cube_value (f.r, m, 1, NULL, 0, t2, 1), ==, 3333);  /* max (3333, 5) */
    g_assert_cmpfloat (cube_value (f.r, m, 1, NULL, 0, all, 1), ==, 6666); /* max (6666, 15) */
    g_assert_cmpfloat (cube_value (f.r, m, 1, NULL, 0, NULL, 0), ==, 6666);
  }
  cube_report_free (f.r);
}

/* ---- builder order --------------------------------------------------------------------------- */

static void
test_builder_preorder (void)
{
  g_autoptr (CubeReport) r = cube_report_new ();
  CubeMetric *a, *b, *a1;
  CubeRegion *reg;
  CubeCnode  *x, *y, *x1;
  double      row[2];
  g_autoptr (GError) error = NULL;

  a = cube_report_add_metric (r, NULL, "a", NULL, CUBE_DTYPE_DOUBLE, "sec", NULL, NULL);
  b = cube_report_add_metric (r, NULL, "b", NULL, CUBE_DTYPE_DOUBLE, "sec", NULL, NULL);
  a1 = cube_report_add_metric (r, a, "a1", NULL, CUBE_DTYPE_DOUBLE, "sec", NULL, NULL);
  g_assert_true (g_ptr_array_index (r->metrics, 1) == a1);
  g_assert_cmpuint (b->index, ==, 2);
  g_assert_true (cube_report_find_metric (r, "a1") == a1);

  reg = cube_report_add_region (r, "f", NULL, -1, -1);
  cube_report_add_sysnode (r, NULL, CUBE_SYS_THREAD, "t0", 0);
  cube_report_add_sysnode (r, NULL, CUBE_SYS_THREAD, "t1", 1);
  x = cube_report_add_cnode (r, NULL, reg, -1, NULL);
  y = cube_report_add_cnode (r, NULL, reg, -1, NULL);
  cube_report_set_value (r, a, y, 1, 7);
  x1 = cube_report_add_cnode (r, x, reg, -1, NULL); /* goes before y: y's row must move */
  g_assert_cmpuint (x1->index, ==, 1);
  g_assert_cmpuint (y->index, ==, 2);
  g_assert_true (cube_report_cnode_by_file_id (r, y->file_id) == y);
  g_assert_true (cube_report_get_row (r, a, y, row, &error));
  g_assert_cmpfloat (row[0], ==, 0);
  g_assert_cmpfloat (row[1], ==, 7);
  g_assert_true (cube_report_get_row (r, a, x1, row, &error));
  g_assert_cmpfloat (row[1], ==, 0);
  /* a location added after values exist widens the rows with zeros */
  cube_report_add_sysnode (r, NULL, CUBE_SYS_THREAD, "t2", 2);
  {
    double wide[3];
    g_assert_true (cube_report_get_row (r, a, y, wide, &error));
    g_assert_cmpfloat (wide[1], ==, 7);
    g_assert_cmpfloat (wide[2], ==, 0);
  }
  g_assert_cmpstr (cube_dtype_to_string (cube_dtype_from_string ("integer")), ==, "INT64");
  g_assert_cmpint (cube_dtype_from_string ("HISTOGRAM(10)"), ==, CUBE_DTYPE_UNSUPPORTED);
}

/* ---- Cube 4 storage conversion ------------------------------------------------------------------
 */

static void
test_stored_conversion (void)
{
  Fixture f;
  double  row[3];
  g_autoptr (GError) error = NULL;
  /* Store time the Cube 4 way: inclusive along the call tree, exclusive along the metric
   * tree (time minus wait). get_row must give back the CUBE 3 values. */
  double              incl_excl[4][3];
  static const double time_v[4][3]
      = { { 1, 2, 3 }, { 10, 20, 30 }, { 100, 200, 300 }, { 1000, 2000, 3000 } };
  static const double wait_v[4][3] = { { .5, 0, 0 }, { 5, 0, 0 }, { 0, 0, 50 }, { 0, 0, 0 } };
  int                 sub[4][2] = { { 1, 3 }, { 2, -1 }, { -1, -1 }, { -1, -1 } }; /* children */

  fixture_build (&f);
  for (int c = 3; c >= 0; c--)
    for (int l = 0; l < 3; l++)
      {
        double v = time_v[c][l] - wait_v[c][l];
        for (int k = 0; k < 2; k++)
          if (sub[c][k] >= 0)
            v += incl_excl[sub[c][k]][l];
        incl_excl[c][l] = v;
      }
  for (int c = 0; c < 4; c++)
    memcpy (cube_metric_alloc_row (f.r, f.time, c), incl_excl[c], sizeof row);
  f.time->data->stored_call_inclusive = TRUE;
  f.time->data->stored_metric_exclusive = TRUE;
  cube_report_invalidate_values (f.r);
  for (int c = 0; c < 4; c++)
    {
      g_assert_true (cube_report_get_row (f.r, f.time, f.c[c], row, &error));
      for (int l = 0; l < 3; l++)
        g_assert_cmpfloat_with_epsilon (row[l], time_v[c][l], 1e-12);
    }
  {
    CubeMetricSel m[] = { { f.time, FALSE } };
    char         *s = render_cnodes (&f, m, 1, NULL, 0);
    g_assert_cmpstr (s, ==,
                     "main 6666/6\n"
                     "  foo 660/60\n"
                     "    bar 600/600\n"
                     "  bar 6000/6000\n");
    g_free (s);
  }
  cube_report_free (f.r);
}

/* ---- writer round trip --------------------------------------------------------------------------
 */

static void
append_attrs (GString *s, GPtrArray *attrs)
{
  for (guint i = 0; attrs != NULL && i < attrs->len; i++)
    {
      CubeAttr *a = g_ptr_array_index (attrs, i);
      g_string_append_printf (s, " [%s=%s]", a->key, a->value);
    }
}

/* Everything CUBE 3 XML can hold, as text. */
static char *
render_report (CubeReport *r)
{
  GString           *s = g_string_new (NULL);
  g_autofree double *row = g_new (double, MAX (r->locations->len, 1));
  g_autoptr (GError) error = NULL;

  g_string_append (s, "attrs:");
  append_attrs (s, r->attrs);
  g_string_append_printf (s, "\nct_aggr_max %d\n", r->ct_aggr_max);
  for (guint i = 0; i < r->mirrors->len; i++)
    g_string_append_printf (s, "mirror %s\n", (char *)g_ptr_array_index (r->mirrors, i));
  for (guint i = 0; i < r->metrics->len; i++)
    {
      CubeMetric      *m = g_ptr_array_index (r->metrics, i);
      g_autofree char *url = cube_metric_expand_url (r, m, 0);
      g_string_append_printf (s, "%*smetric %s|%s|%s|%s|%s|%s|%s\n", 2 * m->depth, "", m->uniq_name,
                              m->disp_name, cube_dtype_to_string (m->dtype), m->uom, m->url,
                              url ? url : "(null)", m->descr);
    }
  for (guint i = 0; i < r->regions->len; i++)
    {
      CubeRegion *g = g_ptr_array_index (r->regions, i);
      g_string_append_printf (s, "region %s|%s|%" G_GINT64_FORMAT "|%" G_GINT64_FORMAT "\n",
                              g->name, g->mod, g->begin_line, g->end_line);
    }
  for (guint i = 0; i < r->cnodes->len; i++)
    {
      CubeCnode *c = g_ptr_array_index (r->cnodes, i);
      g_string_append_printf (s, "%*scnode %s line %" G_GINT64_FORMAT " mod %s\n", 2 * c->depth, "",
                              c->callee->name, c->line, c->mod);
    }
  for (guint i = 0; i < r->sysnodes->len; i++)
    {
      CubeSysNode *n = g_ptr_array_index (r->sysnodes, i);
      g_string_append_printf (s, "%*ssys %d %s rank %" G_GINT64_FORMAT " loc %d\n", 2 * n->depth,
                              "", n->kind, n->name, n->rank, n->location);
    }
  for (guint t = 0; t < r->topologies->len; t++)
    {
      CubeCart *cart = g_ptr_array_index (r->topologies, t);
      g_string_append_printf (s, "cart %s ndims %u:", cart->name ? cart->name : "(unnamed)",
                              cart->ndims);
      for (guint d = 0; d < cart->ndims; d++)
        g_string_append_printf (s, " %s=%" G_GINT64_FORMAT "%s",
                                cart->dims[d].name ? cart->dims[d].name : "_", cart->dims[d].size,
                                cart->dims[d].periodic ? "p" : "");
      g_string_append_c (s, '\n');
      for (guint i = 0; i < cart->coords->len; i++)
        {
          CubeCartCoord *c = g_ptr_array_index (cart->coords, i);
          g_string_append_printf (s, "  %s:", c->node->name);
          for (guint d = 0; d < cart->ndims; d++)
            g_string_append_printf (s, " %" G_GINT64_FORMAT, c->coord[d]);
          g_string_append_c (s, '\n');
        }
    }
  for (guint mi = 0; mi < r->metrics->len; mi++)
    for (guint ci = 0; ci < r->cnodes->len; ci++)
      {
        CubeMetric *m = g_ptr_array_index (r->metrics, mi);
        CubeCnode  *c = g_ptr_array_index (r->cnodes, ci);
        g_assert_true (cube_report_get_row (r, m, c, row, &error));
        for (guint l = 0; l < r->locations->len; l++)
          if (row[l] != 0)
            g_string_append_printf (s, "value %s %u %u %.17g\n", m->uniq_name, ci, l, row[l]);
      }
  return g_string_free (s, FALSE);
}

static void
record_progress (double fraction, gpointer data)
{
  double *last = data;

  g_assert_cmpfloat (fraction, >=, *last);
  g_assert_cmpfloat (fraction, <=, 1.0);
  *last = fraction;
}

static void
test_writer_roundtrip (void)
{
  Fixture          f;
  g_autofree char *dir = g_dir_make_tmp ("kubus-cube-test-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "rt.cube", NULL);
  g_autofree char *gzpath = g_build_filename (dir, "rt.cube.gz", NULL);
  g_autofree char *before = NULL;
  g_autoptr (GError) error = NULL;
  gint64    sizes14[14], coord14[14];
  gboolean  periodic14[14] = { TRUE };
  CubeCart *cart;

  fixture_build (&f);
  /* Names with every character XML escapes, attributes, mirrors, and topologies. */
  cube_report_set_attr (f.r, "CUBE_CT_AGGR", "SUM");
  cube_report_set_attr (f.r, "key <&> \"q\" 'a'", "value <&> \"q\" 'a'");
  cube_report_add_mirror (f.r, "http://example.org/doc/");
  cube_metric_set_string (&f.wait->disp_name, "Wait <&> \"quoted\"");
  cube_metric_set_string (&((CubeRegion *)g_ptr_array_index (f.r->regions, 1))->name,
                          "foo<int>&'x'");
  cube_metric_set_string (&f.t1->name, "Thread 1 <<worker>>");
  cart
      = cube_report_add_cart (f.r, "grid & co", 2, (gint64[]){ 2, 2 }, (gboolean[]){ TRUE, FALSE });
  cube_cart_set_dim_name (cart, 0, "X<");
  cube_cart_set_coord (cart, f.t0, (gint64[]){ 0, 1 });
  cube_cart_set_coord (cart, f.t2, (gint64[]){ 1, 1 });
  for (guint d = 0; d < 14; d++)
    {
      sizes14[d] = 3;
      coord14[d] = d % 3;
    }
  cart = cube_report_add_cart (f.r, NULL, 14, sizes14, periodic14);
  cube_cart_set_coord (cart, f.t1, coord14);
  cube_report_set_value (f.r, f.time, f.c[2], 1, 1.0 / 3.0); /* needs all 17 digits */
  cube_report_set_value (f.r, f.visits, f.c[3], 2, 123456789012345.0);
  cube_report_set_value (f.r, f.wait, f.c[3], 0, -2.5e-300);

  before = render_report (f.r);
  g_assert_true (cube_report_write (f.r, path, &error));
  g_assert_no_error (error);
  g_assert_true (cube_report_write (f.r, gzpath, &error));
  for (guint k = 0; k < 2; k++)
    {
      g_autoptr (CubeReport) back
          = cube_report_load (k ? gzpath : path, 0, NULL, NULL, NULL, &error);
      g_autofree char *after = NULL;
      g_assert_no_error (error);
      g_assert_nonnull (back);
      g_assert_cmpint (back->format, ==, k ? CUBE_FORMAT_CUBE3_GZ : CUBE_FORMAT_CUBE3);
      after = render_report (back);
      g_assert_cmpstr (after, ==, before);
    }
  g_assert_nonnull (strstr (
      before, "metric time|Time|DOUBLE|sec|@mirror@t.html|http://example.org/doc/t.html|all"));
  /* progress reaches 1; a cancelled load stops with G_IO_ERROR_CANCELLED */
  {
    double last = -1;
    g_autoptr (GCancellable) cancel = g_cancellable_new ();
    g_autoptr (GError) cerr = NULL;
    g_autoptr (CubeReport) again = cube_report_load (path, 0, NULL, record_progress, &last, &error);
    g_assert_no_error (error);
    g_assert_nonnull (again);
    g_assert_cmpfloat (last, ==, 1.0);
    g_cancellable_cancel (cancel);
    g_assert_null (cube_report_load (path, 0, cancel, NULL, NULL, &cerr));
    g_assert_error (cerr, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  }
  /* writing over an existing file replaces it atomically and leaves no temporary behind */
  g_assert_true (cube_report_write (f.r, path, &error));
  {
    g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
    const char *name;
    guint       n = 0;
    while ((name = g_dir_read_name (d)) != NULL)
      {
        g_assert_null (strstr (name, ".tmp-"));
        n++;
      }
    g_assert_cmpuint (n, ==, 2);
  }
  /* a folder that does not exist: error naming the file */
  {
    g_autofree char *bad = g_build_filename (dir, "no", "such", "x.cube", NULL);
    g_autoptr (GError) werr = NULL;
    g_assert_false (cube_report_write (f.r, bad, &werr));
    g_assert_error (werr, CUBE_ERROR, CUBE_ERROR_IO);
    g_assert_nonnull (strstr (werr->message, "x.cube"));
  }
  g_unlink (path);
  g_unlink (gzpath);
  g_rmdir (dir);
  cube_report_free (f.r);
}

/* ---- anchor parsing (Cube 4 additions)
 * ------------------------------------------------------------ */

static const char anchor[]
    = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<cube version=\"4.5\">\n"
      "<attr key=\"CUBE_CT_AGGR\" value=\"MAX\"/>\n"
      "<doc><mirrors><murl>http://m/</murl></mirrors></doc>\n"
      "<metrics title=\"x\">\n"
      " <metric id=\"0\" type=\"INCLUSIVE\" convertible=\"false\">\n"
      "  "
      "<disp_name>Time</disp_name><uniq_name>time</uniq_name><dtype>DOUBLE</dtype><uom>sec</uom>\n"
      "  <url>@mirror@a.html</url><descr>d</descr><attr key=\"k\" value=\"v\"/>\n"
      "  <metric id=\"1\" viztype=\"GHOST\" cacheable=\"false\">\n"
      "   "
      "<disp_name>C</disp_name><uniq_name>c</uniq_name><dtype>HISTOGRAM(10)</dtype><uom></"
      "uom><url></url><descr></descr>\n"
      "  </metric>\n"
      " </metric>\n"
      " <metric id=\"2\" type=\"POSTDERIVED\">\n"
      "  "
      "<disp_name>D</disp_name><uniq_name>d</uniq_name><dtype>DOUBLE</dtype><uom>sec</uom><url></"
      "url><descr></descr>\n"
      "  <cubepl>metric::time() * 2</cubepl>\n"
      " </metric>\n"
      " <metric "
      "id=\"3\"><disp_name>V</disp_name><uniq_name>v</uniq_name><dtype>UINT64</dtype><uom>occ</"
      "uom></metric>\n"
      "</metrics>\n"
      "<program>\n"
      " <cnode id=\"5\" calleeId=\"1\">\n"
      "  <parameter partype=\"numeric\" parkey=\"n\" parvalue=\"42\"/>\n"
      "  <attr key=\"ca\" value=\"cv\"/>\n"
      "  <cnode id=\"3\" calleeId=\"0\" line=\"7\" mod=\"m.c\"></cnode>\n"
      " </cnode>\n"
      " <region id=\"0\" mod=\"m.c\" begin=\"1\" "
      "end=\"2\"><name>f&amp;g</name><mangled_name>_Z1fv</mangled_name>"
      "<paradigm>compiler</paradigm><role>function</role><url></url><descr></descr><attr "
      "key=\"ra\" value=\"rv\"/></region>\n"
      " <region id=\"1\" mod=\"\" begin=\"-1\" end=\"-1\"><name>main</name></region>\n"
      "</program>\n"
      "<system>\n"
      " <systemtreenode Id=\"0\"><name>machine</name><class>machine</class><attr key=\"platform\" "
      "value=\"Linux\"/>\n"
      "  <systemtreenode Id=\"1\"><name>node0</name><class>node</class>\n"
      "   <locationgroup Id=\"0\"><name>rank 0</name><rank>0</rank><type>process</type>\n"
      "    <location Id=\"1\"><name>thread 1</name><rank>1</rank><type>thread</type></location>\n"
      "    <location Id=\"0\"><name>thread 0</name><rank>0</rank><type>thread</type></location>\n"
      "   </locationgroup>\n"
      "  </systemtreenode>\n"
      " </systemtreenode>\n"
      " <topologies><cart name=\"PxT\" ndims=\"2\"><dim name=\"P\" size=\"1\" periodic=\"false\"/>"
      "<dim size=\"2\" periodic=\"true\"/><coord locId=\"1\">0 1</coord><coord lgId=\"0\">0 "
      "0</coord>"
      "<coord stnId=\"1\">0 0</coord></cart></topologies>\n"
      "</system>\n"
      "</cube>\n";

static void
test_anchor (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CubeReport) r = cube_xml_parse_memory (anchor, strlen (anchor), "x.cubex:anchor.xml",
                                                    CUBE_XML_ANCHOR, &error);
  CubeMetric  *time, *c, *d, *v;
  CubeCnode   *c5, *c3;
  CubeRegion  *f;
  CubeSysNode *l0;
  CubeCart    *cart;

  g_assert_no_error (error);
  g_assert_nonnull (r);
  g_assert_cmpstr (r->version, ==, "4.5");
  g_assert_true (r->ct_aggr_max);
  time = cube_report_find_metric (r, "time");
  c = cube_report_find_metric (r, "c");
  d = cube_report_find_metric (r, "d");
  v = cube_report_find_metric (r, "v");
  g_assert_cmpint (time->kind, ==, CUBE_METRIC_INCLUSIVE);
  g_assert_false (time->convertible);
  g_assert_true (time->cacheable);
  g_assert_true (time->data->stored_call_inclusive);
  g_assert_false (time->data->stored_metric_exclusive);
  g_assert_cmpstr (((CubeAttr *)g_ptr_array_index (time->attrs, 0))->value, ==, "v");
  g_assert_true (c->parent == time && c->ghost && !c->cacheable);
  g_assert_cmpint (c->dtype, ==, CUBE_DTYPE_UNSUPPORTED);
  g_assert_cmpstr (c->dtype_name, ==, "HISTOGRAM(10)");
  g_assert_false (cube_metric_has_data (c));
  g_assert_cmpint (d->kind, ==, CUBE_METRIC_POSTDERIVED);
  g_assert_cmpstr (d->cubepl, ==, "metric::time() * 2");
  g_assert_false (cube_metric_has_data (d));
  g_assert_cmpint (v->kind, ==, CUBE_METRIC_EXCLUSIVE);
  g_assert_cmpint (v->dtype, ==, CUBE_DTYPE_UINT64);
  g_assert_false (v->data->stored_call_inclusive);
  g_assert_true (cube_report_metric_by_file_id (r, 2) == d);

  /* regions may follow the call tree; ids need not be pre-order */
  c5 = cube_report_cnode_by_file_id (r, 5);
  c3 = cube_report_cnode_by_file_id (r, 3);
  g_assert_cmpuint (c5->index, ==, 0);
  g_assert_cmpuint (c3->index, ==, 1);
  g_assert_cmpstr (c5->callee->name, ==, "main");
  f = c3->callee;
  g_assert_cmpstr (f->name, ==, "f&g");
  g_assert_cmpstr (f->mangled_name, ==, "_Z1fv");
  g_assert_cmpstr (f->paradigm, ==, "compiler");
  g_assert_cmpstr (f->role, ==, "function");
  g_assert_cmpint (c3->line, ==, 7);
  g_assert_cmpstr (((CubeAttr *)g_ptr_array_index (c5->params, 0))->key, ==, "n");
  g_assert_cmpstr (((CubeAttr *)g_ptr_array_index (c5->params, 0))->value, ==, "42");
  g_assert_cmpstr (((CubeAttr *)g_ptr_array_index (c5->attrs, 0))->key, ==, "ca");
  g_assert_cmpstr (((CubeAttr *)g_ptr_array_index (f->attrs, 0))->value, ==, "rv");

  /* locations sorted by id whatever the order of definition */
  g_assert_cmpuint (r->locations->len, ==, 2);
  l0 = g_ptr_array_index (r->locations, 0);
  g_assert_cmpstr (l0->name, ==, "thread 0");
  g_assert_cmpint (l0->location, ==, 0);
  g_assert_cmpint (((CubeSysNode *)g_ptr_array_index (r->locations, 1))->location, ==, 1);
  g_assert_cmpint (l0->kind, ==, CUBE_SYS_THREAD);
  g_assert_cmpstr (l0->class_name, ==, "thread");
  g_assert_cmpint (l0->parent->kind, ==, CUBE_SYS_PROCESS);
  g_assert_cmpint (l0->parent->parent->kind, ==, CUBE_SYS_TREENODE);
  g_assert_cmpstr (l0->parent->parent->class_name, ==, "node");
  g_assert_cmpstr (((CubeAttr *)g_ptr_array_index (l0->parent->parent->parent->attrs, 0))->key, ==,
                   "platform");

  cart = g_ptr_array_index (r->topologies, 0);
  g_assert_cmpuint (cart->ndims, ==, 2);
  g_assert_cmpstr (cart->dims[0].name, ==, "P");
  g_assert_null (cart->dims[1].name);
  g_assert_true (cart->dims[1].periodic);
  g_assert_cmpuint (cart->coords->len, ==, 3);
  g_assert_cmpstr (((CubeCartCoord *)g_ptr_array_index (cart->coords, 0))->node->name, ==,
                   "thread 1");
  g_assert_cmpint (((CubeCartCoord *)g_ptr_array_index (cart->coords, 1))->node->kind, ==,
                   CUBE_SYS_PROCESS);
  g_assert_cmpint (((CubeCartCoord *)g_ptr_array_index (cart->coords, 2))->node->kind, ==,
                   CUBE_SYS_TREENODE);

  /* the same anchor, gzip-compressed, and with the wrong version */
  {
    g_autoptr (GError) e2 = NULL;
    g_autoptr (CubeReport) r3
        = cube_xml_parse_memory (anchor, strlen (anchor), "a.xml", CUBE_XML_CUBE3, &e2);
    g_assert_null (r3);
    g_assert_error (e2, CUBE_ERROR, CUBE_ERROR_UNSUPPORTED);
    g_assert_nonnull (strstr (e2->message, "a.xml:2:"));
  }
  {
    g_autoptr (GError) e3 = NULL;
    g_autoptr (CubeReport) r4
        = cube_xml_parse_memory (anchor, strlen (anchor) / 2, "half.xml", CUBE_XML_ANCHOR, &e3);
    g_assert_null (r4);
    g_assert_error (e3, CUBE_ERROR, CUBE_ERROR_FORMAT);
    g_assert_nonnull (strstr (e3->message, "half.xml:"));
  }
}

static void
test_anchor_gzip (void)
{
  g_autoptr (GConverter) z = G_CONVERTER (g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 6));
  g_autoptr (GInputStream) mem
      = g_memory_input_stream_new_from_data (anchor, strlen (anchor), NULL);
  g_autoptr (GInputStream) zs = g_converter_input_stream_new (mem, z);
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr (GError) error = NULL;
  g_autoptr (CubeReport) r = NULL;
  gsize len;

  g_output_stream_splice (out, zs,
                          G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE | G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET,
                          NULL, &error);
  g_assert_no_error (error);
  len = g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out));
  r = cube_xml_parse_memory (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out)), len,
                             "z.xml", CUBE_XML_ANCHOR, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (r->metrics->len, ==, 4);
  /* cut-off gzip: an error, not a crash */
  {
    g_autoptr (GError) e2 = NULL;
    g_autoptr (CubeReport) r2
        = cube_xml_parse_memory (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out)),
                                 len / 2, "z.xml", CUBE_XML_ANCHOR, &e2);
    g_assert_null (r2);
    g_assert_nonnull (e2);
    g_assert_nonnull (strstr (e2->message, "z.xml"));
  }
}

/* Numbers as CUBE writers print them, split across parser chunks at every position. */
static void
test_number_forms (void)
{
  static const char *values[] = { "0",
                                  "1.5e-06",
                                  "-1123.4",
                                  "3567.9",
                                  "12345678901234567890",
                                  "1E+3",
                                  "0.000181790997885",
                                  "6.77700001006e-05",
                                  "+2",
                                  "1e-320",
                                  "123456789.123456789" };
  GString           *doc = g_string_new (NULL);
  guint              n = G_N_ELEMENTS (values);

  g_string_append (
      doc,
      "<?xml version=\"1.0\"?><cube version=\"3.1\"><metrics><metric "
      "id=\"0\"><uniq_name>m</uniq_name>"
      "<dtype>FLOAT</dtype></metric></metrics><program><region id=\"0\"><name>r</name></region>"
      "<cnode id=\"0\" calleeId=\"0\"/></program><system><machine Id=\"0\"><node Id=\"0\">"
      "<process Id=\"0\">");
  for (guint i = 0; i < n; i++)
    g_string_append_printf (doc, "<thread id=\"%u\"/>", n - 1 - i);
  g_string_append (
      doc,
      "</process></node></machine></system><severity><matrix metricId=\"0\"><row cnodeId=\"0\">");
  for (guint i = 0; i < n; i++)
    g_string_append_printf (doc, "%s%s", values[i], i % 2 ? "\n" : " \t ");
  g_string_append (doc, "</row></matrix></severity></cube>");

  for (gsize chunk = 1; chunk <= doc->len; chunk = chunk < 64 ? chunk + 1 : chunk * 2)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CubeReport) r = cube_xml_parse_memory_chunked (doc->str, doc->len, "n.cube",
                                                                CUBE_XML_CUBE3, chunk, &error);
      double row[G_N_ELEMENTS (values)];
      g_assert_no_error (error);
      g_assert_true (cube_report_get_row (r, g_ptr_array_index (r->metrics, 0),
                                          g_ptr_array_index (r->cnodes, 0), row, &error));
      for (guint i = 0; i < n; i++)
        g_assert_true (row[i] == g_ascii_strtod (values[i], NULL)); /* bit-exact */
    }
  g_string_free (doc, TRUE);
}

/* Trees far deeper than the stack allows recursion (a deeply recursive program): writing,
 * reading back and the algebra must neither crash nor grow quadratically. 200 000 levels of
 * call tree and Cube 4 system tree in one report, of metric tree in another (the writer visits
 * every metric × call path pair, so both deep at once would test patience, not depth). The
 * file was once 800 MB for 20 000 levels (indentation), and writing 300 000 levels overflowed
 * the stack. */
#define DEEP 200000

static CubeReport *
deep_report (gint64 rank, gboolean deep_metrics)
{
  CubeReport  *r = cube_report_new ();
  CubeRegion  *reg = cube_report_add_region (r, "recurse", "r.c", 1, 2);
  CubeMetric  *m = NULL, *root = NULL;
  CubeCnode   *c = NULL;
  CubeSysNode *s = NULL, *p, *t;

  for (guint i = 0; i < (deep_metrics ? DEEP : 2); i++)
    {
      g_autofree char *name = g_strdup_printf ("m%u", i);

      m = cube_report_add_metric (r, m, name, name, CUBE_DTYPE_DOUBLE, "sec", "", "");
      if (root == NULL)
        root = m;
    }
  for (guint i = 0; i < (deep_metrics ? 1 : DEEP); i++)
    {
      c = cube_report_add_cnode (r, c, reg, i, "r.c");
      s = cube_report_add_sysnode (r, s, CUBE_SYS_TREENODE, "level", -1);
    }
  p = cube_report_add_sysnode (r, s, CUBE_SYS_PROCESS, "process", rank);
  t = cube_report_add_sysnode (r, p, CUBE_SYS_THREAD, "thread", 0);
  g_assert_cmpint (t->location, ==, 0);
  cube_report_set_value (r, root, c, 0, 1.5 + (double) rank);
  cube_report_set_value (r, m, c, 0, 0.25);
  return r;
}

/* Writes @r, checks the size is linear in the number of nodes and reads it back. */
static CubeReport *
deep_round_trip (CubeReport *r, const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "deep.cube", NULL);
  g_autoptr (GError) error = NULL;
  CubeReport *back;
  GStatBuf    st;
  double      row[1];

  g_assert_true (cube_report_write (r, path, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  /* about 150 bytes per call path, 550 per metric; quadratic indentation made it GBs */
  g_assert_cmpint (st.st_size, <, 600 * DEEP);
  back = cube_report_load (path, CUBE_LOAD_EAGER, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_unlink (path);
  g_assert_cmpuint (back->cnodes->len, ==, r->cnodes->len);
  g_assert_cmpuint (back->metrics->len, ==, r->metrics->len);
  /* the root metric at the deepest call path, and the deepest metric there */
  g_assert_true (cube_report_get_row (back, g_ptr_array_index (back->metrics, 0),
                                      g_ptr_array_index (back->cnodes, back->cnodes->len - 1),
                                      row, &error));
  g_assert_cmpfloat (row[0], ==, 1.5);
  g_assert_true (cube_report_get_row (back,
                                      g_ptr_array_index (back->metrics, back->metrics->len - 1),
                                      g_ptr_array_index (back->cnodes, back->cnodes->len - 1),
                                      row, &error));
  g_assert_cmpfloat (row[0], ==, 0.25);
  return back;
}

static void
test_deep_trees (void)
{
  g_autofree char *dir = g_dir_make_tmp ("kubus-cube-deep-XXXXXX", NULL);
  g_autoptr (CubeReport) a = deep_report (0, FALSE);
  g_autoptr (CubeReport) b = deep_report (1, FALSE);
  g_autoptr (CubeReport) deep_m = deep_report (0, TRUE);
  g_autoptr (CubeReport) back = NULL;
  g_autoptr (CubeReport) back_m = NULL;
  g_autoptr (CubeReport) merged = NULL;
  g_autoptr (GError) error = NULL;
  CubeReport   *both[2] = { a, b };
  CubeMetricSel msel = { NULL, FALSE };
  CubeCnodeSel  csel = { NULL, FALSE };
  double        row[2];
  double        per_loc[1];

  back = deep_round_trip (a, dir);
  back_m = deep_round_trip (deep_m, dir);
  g_assert_cmpuint (back->cnodes->len, ==, DEEP);
  g_assert_cmpuint (back_m->metrics->len, ==, DEEP);

  /* the whole call tree from its root, per location */
  msel.metric = g_ptr_array_index (back->metrics, 0);
  csel.cnode = g_ptr_array_index (back->cnodes, 0);
  g_assert_true (cube_values_locations (back, &msel, 1, &csel, 1, per_loc, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (per_loc[0], ==, 1.5);

  /* b's location (process rank 1) joins a's system tree under the same 200 000 levels */
  merged = cube_algebra_mean (both, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (merged->locations->len, ==, 2);
  g_assert_cmpuint (merged->sysnodes->len, ==, DEEP + 4); /* levels, 2 × (process, thread) */
  g_assert_true (cube_report_get_row (merged, g_ptr_array_index (merged->metrics, 0),
                                      g_ptr_array_index (merged->cnodes, DEEP - 1), row, &error));
  g_assert_cmpfloat (row[0], ==, 0.75); /* (1.5 + 0) / 2 */
  g_assert_cmpfloat (row[1], ==, 1.25); /* (0 + 2.5) / 2 */
  g_rmdir (dir);
}

/* Work that must stay linear in the size of the report. Both were quadratic once: setting
 * 100 000 coordinates took 8 s (a scan of the topology per coordinate), and `mean` of a call
 * tree with 50 000 siblings 11 s (a scan of the siblings per call path). At the sizes below
 * the quadratic versions need minutes; the linear ones well under a second even under
 * AddressSanitizer, so the 10 s bound does not depend on the machine's load. */
/* CPU seconds of this thread: unlike the wall clock, not stretched by other programs on a
 * busy machine.  The bounds below are 20 times what the linear code needs under ASan; a
 * quadratic step on 400 000 items needs minutes. */
static double
thread_cpu_seconds (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
test_linear_work (void)
{
  const guint WIDE = 400000;
  g_autoptr (CubeReport) r = cube_report_new ();
  g_autoptr (CubeReport) w = cube_report_new ();
  g_autoptr (CubeReport) mean = NULL;
  g_autoptr (GError) error = NULL;
  CubeReport  *twice[2] = { w, w };
  CubeRegion  *reg[2];
  CubeCnode   *root;
  CubeMetric  *m;
  CubeSysNode *proc;
  CubeCart    *cart;
  gint64       size = WIDE;
  double       t0;
  gboolean     periodic = FALSE;
  double       row[1];

  /* 400 000 threads with a coordinate each */
  proc = cube_report_add_sysnode (r, NULL, CUBE_SYS_PROCESS, "p", 0);
  for (guint i = 0; i < WIDE; i++)
    cube_report_add_sysnode (r, proc, CUBE_SYS_THREAD, "t", i);
  cart = cube_report_add_cart (r, "line", 1, &size, &periodic);
  t0 = thread_cpu_seconds ();
  for (guint i = 0; i < WIDE; i++)
    {
      gint64 x = i;
      cube_cart_set_coord (cart, g_ptr_array_index (r->locations, i), &x);
    }
  { /* setting one again replaces its coordinate */
    gint64 x = 7;
    cube_cart_set_coord (cart, g_ptr_array_index (r->locations, 3), &x);
  }
  g_assert_cmpfloat (thread_cpu_seconds () - t0, <, 30.0);
  g_assert_cmpuint (cart->coords->len, ==, WIDE);
  g_assert_cmpint (((CubeCartCoord *) g_ptr_array_index (cart->coords, 3))->coord[0], ==, 7);

  /* a call tree 200 000 wide (alternating two regions) on one thread, meeting itself */
  m = cube_report_add_metric (w, NULL, "time", "Time", CUBE_DTYPE_DOUBLE, "sec", "", "");
  reg[0] = cube_report_add_region (w, "main", "", -1, -1);
  reg[1] = cube_report_add_region (w, "leaf", "", -1, -1);
  cube_report_add_sysnode (w, cube_report_add_sysnode (w, NULL, CUBE_SYS_PROCESS, "p", 0),
                           CUBE_SYS_THREAD, "t", 0);
  root = cube_report_add_cnode (w, NULL, reg[0], -1, "");
  for (guint i = 0; i < WIDE / 2; i++)
    cube_report_add_cnode (w, root, reg[i % 2], i, "");
  cube_report_set_value (w, m, g_ptr_array_index (w->cnodes, WIDE / 2), 0, 4.0);
  t0 = thread_cpu_seconds ();
  mean = cube_algebra_mean (twice, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (thread_cpu_seconds () - t0, <, 30.0);
  /* every call site stays distinct, and the last one keeps its value and id */
  g_assert_cmpuint (mean->cnodes->len, ==, WIDE / 2 + 1);
  g_assert_true (cube_report_get_row (mean, g_ptr_array_index (mean->metrics, 0),
                                      g_ptr_array_index (mean->cnodes, WIDE / 2), row, &error));
  g_assert_cmpfloat (row[0], ==, 4.0);
  g_assert_cmpint (((CubeCnode *) g_ptr_array_index (mean->cnodes, WIDE / 2))->file_id, ==,
                   ((CubeCnode *) g_ptr_array_index (w->cnodes, WIDE / 2))->file_id);
}

/* ---- rounding residues of the call-tree conversion, plain vs difference reports ---------- */

static void
test_residue_rule (void)
{
  const double e = DBL_EPSILON;

  /* the bound is (n + 1) ε max(|a|, Σ|c|), inclusive */
  g_assert_true (cube_value_is_residue (2 * e, 1.0, 1.0, 1));
  g_assert_false (cube_value_is_residue (2 * e * (1 + e), 1.0, 1.0, 1));
  g_assert_true (cube_value_is_residue (-3 * e * 4.0, 4.0, 3.5, 2));
  g_assert_false (cube_value_is_residue (-3.5 * e * 4.0, 4.0, 3.5, 2));
  g_assert_true (cube_value_is_residue (5 * e * 8.0, 1.0, 8.0, 4));  /* M from the children */
  g_assert_false (cube_value_is_residue (1e-9, 1.0, 1.0, 1));
  g_assert_false (cube_value_is_residue (0.0, 1.0, 1.0, 1));          /* nothing to zero */
}

/* A call-inclusive metric as a Cube 4 reader leaves it: the exclusive value of a node whose
 * own part is zero comes out as exactly 0 (not 5.55e-17), a real small own part stays. */
static void
test_residue_rows (void)
{
  g_autoptr (CubeReport) r = cube_report_new ();
  CubeMetric  *t = cube_report_add_metric (r, NULL, "time", "Time", CUBE_DTYPE_DOUBLE, "sec", "", "");
  CubeRegion  *rm = cube_report_add_region (r, "main", "", -1, -1);
  CubeRegion  *ra = cube_report_add_region (r, "a", "", -1, -1);
  CubeRegion  *rb = cube_report_add_region (r, "b", "", -1, -1);
  CubeCnode   *cm = cube_report_add_cnode (r, NULL, rm, -1, NULL);
  CubeCnode   *ca = cube_report_add_cnode (r, cm, ra, -1, NULL);
  CubeCnode   *cb = cube_report_add_cnode (r, cm, rb, -1, NULL);
  CubeSysNode *p = cube_report_add_sysnode (r, NULL, CUBE_SYS_PROCESS, "p", 0);
  double       row[3];

  for (int l = 0; l < 3; l++)
    cube_report_add_sysnode (r, p, CUBE_SYS_THREAD, "t", l);
  /* stored inclusive: main = a + b up to rounding (0.1 + 0.2 = 0.30000000000000004), then with
   * a real own part of 1e-15 s, then 0.3 - (0.1 + 0.2) the other way round (-5.55e-17) */
  cube_report_set_value (r, t, cm, 0, 0.1 + 0.2);
  cube_report_set_value (r, t, cm, 1, 0.30000000000000004 + 1e-15);
  cube_report_set_value (r, t, cm, 2, 0.3);
  for (int l = 0; l < 3; l++)
    {
      cube_report_set_value (r, t, ca, l, 0.1);
      cube_report_set_value (r, t, cb, l, 0.2);
    }
  t->data->stored_call_inclusive = TRUE;
  cube_report_invalidate_values (r);

  g_assert_true (cube_report_get_row (r, t, cm, row, NULL));
  g_assert_true (row[0] == 0.0 && !signbit (row[0]));
  g_assert_cmpfloat (row[1], ==, (0.30000000000000004 + 1e-15) - 0.1 - 0.2);
  g_assert_cmpfloat (row[1], >, 9e-16);
  g_assert_true (row[2] == 0.0 && !signbit (row[2]));
  g_assert_true (cube_report_get_row (r, t, ca, row, NULL));
  g_assert_cmpfloat (row[0], ==, 0.1);
}

static void
test_plain (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CubeReport) a = cube_report_new ();
  g_autoptr (CubeReport) d = NULL;
  g_autoptr (CubeReport) merged = NULL;
  g_autoptr (CubeReport) mixed = NULL;
  g_autoptr (CubeReport) back = NULL;
  g_autofree char *dir = g_dir_make_tmp ("kubus-plain-XXXXXX", NULL);
  CubeMetric *t = cube_report_add_metric (a, NULL, "time", "Time", CUBE_DTYPE_DOUBLE, "sec", "", "");
  CubeCnode  *c = cube_report_add_cnode (a, NULL, cube_report_add_region (a, "main", "", -1, -1),
                                         -1, NULL);
  CubeSysNode *p = cube_report_add_sysnode (a, NULL, CUBE_SYS_PROCESS, "p", 0);
  CubeReport *two[2];
  const char *exts[] = { "d.cube", "d.cubex", "d.cube.gz" };

  cube_report_add_sysnode (a, p, CUBE_SYS_THREAD, "t", 0);
  cube_report_set_value (a, t, c, 0, 2.5);
  g_assert_true (cube_report_is_plain (a));

  d = cube_algebra_diff (a, a, &error);
  g_assert_no_error (error);
  g_assert_false (cube_report_is_plain (d));
  g_assert_cmpstr (cube_report_get_attr (d, CUBE_ATTR_DIFFERENCE), ==, "A − B");

  two[0] = a, two[1] = a;
  merged = cube_algebra_mean (two, 2, &error);
  g_assert_true (cube_report_is_plain (merged));
  two[1] = d;
  mixed = cube_algebra_mean (two, 2, &error);
  g_assert_false (cube_report_is_plain (mixed));

  /* a difference stays one through every writer */
  for (guint i = 0; i < G_N_ELEMENTS (exts); i++)
    {
      g_autofree char *path = g_build_filename (dir, exts[i], NULL);
      g_assert_true (cube_report_write (d, path, &error));
      g_assert_no_error (error);
      back = cube_report_load (path, CUBE_LOAD_DEFAULT, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_false (cube_report_is_plain (back));
      g_clear_pointer (&back, cube_report_free);
      g_unlink (path);
    }
  g_rmdir (dir);
}

/* a folder given for a report: the reports in it by name, or that there are none */
static void
test_folder (void)
{
  g_autofree char *dir = g_dir_make_tmp ("kubus-test-folder-XXXXXX", NULL);
  g_autofree char *a = g_build_filename (dir, "profile.cube", NULL);
  g_autofree char *b = g_build_filename (dir, "analysis.cubex", NULL);
  g_autofree char *c = g_build_filename (dir, "notes.txt", NULL);
  g_autofree char *want = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_null (cube_report_load (dir, 0, NULL, NULL, NULL, &error));
  g_assert_error (error, CUBE_ERROR, CUBE_ERROR_IO);
  want = g_strdup_printf ("%s: a folder, not a report, and no report (.cube, .cube.gz, .cubex) is in it", dir);
  g_assert_cmpstr (error->message, ==, want);
  g_clear_error (&error);
  g_clear_pointer (&want, g_free);
  g_assert_true (g_file_set_contents (a, "x", 1, NULL));
  g_assert_true (g_file_set_contents (b, "x", 1, NULL));
  g_assert_true (g_file_set_contents (c, "x", 1, NULL));
  g_assert_null (cube_report_load (dir, 0, NULL, NULL, NULL, &error));
  want = g_strdup_printf ("%s: a folder, not a report; the reports in it: analysis.cubex, profile.cube", dir);
  g_assert_cmpstr (error->message, ==, want);
  /* the report a folder stands for, as Scalasca's square picks it */
  {
    static const char *const order[] = { "profile.cube", "summary.cubex", "scout.cubex", "trace.cubex", "analysis.cubex" };
    g_autofree char *d = g_dir_make_tmp ("kubus-test-pick-XXXXXX", NULL);
    g_autofree char *none = cube_report_in_folder (d);
    g_autofree char *file = cube_report_in_folder (a);

    g_assert_cmpstr (none, ==, d);                      /* no report in it: the folder */
    g_assert_cmpstr (file, ==, a);                      /* no folder: itself */
    for (guint i = 0; i < G_N_ELEMENTS (order); i++)    /* each new one is preferred */
      {
        g_autofree char *f = g_build_filename (d, order[i], NULL);
        g_autofree char *got = NULL;

        g_assert_true (g_file_set_contents (f, "x", 1, NULL));
        got = cube_report_in_folder (d);
        g_assert_cmpstr (got, ==, f);
      }
    for (guint i = 0; i < G_N_ELEMENTS (order); i++)
      {
        g_autofree char *f = g_build_filename (d, order[i], NULL);
        g_unlink (f);
      }
    g_rmdir (d);
  }
  g_unlink (a);
  g_unlink (b);
  g_unlink (c);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cube/values/metrics", test_values_metrics);
  g_test_add_func ("/cube/values/residue-rule", test_residue_rule);
  g_test_add_func ("/cube/values/residue-rows", test_residue_rows);
  g_test_add_func ("/cube/values/plain", test_plain);
  g_test_add_func ("/cube/values/cnodes", test_values_cnodes);
  g_test_add_func ("/cube/values/system", test_values_system);
  g_test_add_func ("/cube/values/ct-aggr-max", test_ct_aggr_max);
  g_test_add_func ("/cube/values/system-none", test_values_system_none);
  g_test_add_func ("/cube/model/builder-preorder", test_builder_preorder);
  g_test_add_func ("/cube/model/stored-conversion", test_stored_conversion);
  g_test_add_func ("/cube/writer/roundtrip", test_writer_roundtrip);
  g_test_add_func ("/cube/reader/anchor", test_anchor);
  g_test_add_func ("/cube/reader/anchor-gzip", test_anchor_gzip);
  g_test_add_func ("/cube/reader/numbers", test_number_forms);
  g_test_add_func ("/cube/writer/deep-trees", test_deep_trees);
  g_test_add_func ("/cube/model/linear-work", test_linear_work);
  g_test_add_func ("/cube/reader/folder", test_folder);
  return g_test_run ();
}
