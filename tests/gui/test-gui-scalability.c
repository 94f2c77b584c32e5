/* test-gui-scalability.c — File › Scalability…: the result read from kubus-cube's scaling report
 * (exact values from the hand-made experiments of tests/stats/scaling-fixture.h), the plot's
 * geometry and pixels, PNG/SVG/PDF export, and the window driving the real kubus-cube
 * ($KUBUS_CUBE_PROGRAM) on a display: compute, error, cancel, open as report.
 *
 * Fixture (2, 4, 4, 8 tasks): ranking Allreduce (rho 1, shares 1/2, 16/22, 64/74.08), Bcast,
 * Recv, Recv#2, Comm_rank (undefined). Run under tests/gui/xvfb-wrap.sh for the window tests. */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <math.h>
#include <string.h>

#include "kubus-application.h"
#include "kubus-scalability-plot.h"
#include "kubus-scalability-window.h"
#include "kubus-screenshot.h"
#include "scaling-fixture.h"
#include "stats-scaling.h"

#define EPS 1e-9
#define WAIT_MS 60000

static char *tmpdir;
static GPtrArray *inputs;   /* the four experiment folders */
static KubusApplication *app;

static void
remove_tree (const char *path)
{
  g_autoptr (GDir) d = g_dir_open (path, 0, NULL);
  const char *name;

  if (d != NULL)
    while ((name = g_dir_read_name (d)) != NULL)
      {
        g_autofree char *p = g_build_filename (path, name, NULL);
        remove_tree (p);
      }
  g_remove (path);
}

/* The scaling report of the fixture, as kubus-cube writes it, read back. */
static CubeReport *
scaling_report (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StatsScaling) s = stats_scaling_compute ((const char *const *) inputs->pdata,
                                                      inputs->len, NULL, NULL, &error);
  g_autoptr (CubeReport) out = NULL;
  g_autofree char *path = g_build_filename (tmpdir, "scaling.cube", NULL);
  CubeReport *back;

  g_assert_no_error (error);
  out = stats_scaling_to_report (s);
  g_assert_true (cube_report_write (out, path, &error));
  back = cube_report_load (path, CUBE_LOAD_EAGER, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  return back;
}

/* ---- the result --------------------------------------------------------------------------- */

static void
test_result (void)
{
  g_autoptr (CubeReport) report = scaling_report ();
  g_autoptr (GError) error = NULL;
  g_autoptr (KubusScalingResult) r = kubus_scaling_result_new (report, &error);
  /* what matters first: Bcast (below 1 % at every count) after the receives (issue 24) */
  static const char *const names[] = { "main/solve/MPI_Allreduce", "main/solve/MPI_Recv",
                                       "main/solve/MPI_Recv#2", "main/solve/MPI_Bcast",
                                       "main/MPI_Comm_rank" };
  const KubusScalingSite *s;

  g_assert_no_error (error);
  g_assert_cmpstr (r->metric, ==, "time");
  g_assert_cmpuint (r->runs, ==, 4);
  g_assert_cmpuint (r->n_counts, ==, 3);
  g_assert_cmpuint (r->counts[0], ==, 2);
  g_assert_cmpuint (r->counts[2], ==, 8);
  g_assert_cmpuint (r->sites->len, ==, 5);
  for (guint i = 0; i < 5; i++)
    g_assert_cmpstr (((KubusScalingSite *) g_ptr_array_index (r->sites, i))->name, ==, names[i]);
  s = g_ptr_array_index (r->sites, 0);
  g_assert_true (s->defined);
  g_assert_cmpfloat_with_epsilon (s->rho, 1, EPS);
  g_assert_cmpfloat_with_epsilon (s->p_value, 1.0 / 6, EPS);
  g_assert_cmpfloat_with_epsilon (s->share[0], 0.5, EPS);
  g_assert_cmpfloat_with_epsilon (s->share[1], 16.0 / 22, EPS);
  g_assert_cmpfloat_with_epsilon (s->share[2], 64 / 74.08, EPS);
  s = g_ptr_array_index (r->sites, 3);
  g_assert_cmpfloat_with_epsilon (s->rho, sqrt (2.0 / 3), EPS);
  g_assert_cmpfloat (s->share[0], ==, 0);
  g_assert_true (kubus_scaling_site_negligible (r, s, r->negligible_below));
  s = g_ptr_array_index (r->sites, 1);
  g_assert_cmpfloat_with_epsilon (s->rho, -1, EPS);
  g_assert_false (kubus_scaling_site_negligible (r, s, r->negligible_below));
  s = g_ptr_array_index (r->sites, 4);
  g_assert_false (s->defined);
  /* what the runs allow: p ≥ 1/6 whatever the data; 5 task counts for p < 0.05 */
  g_assert_cmpfloat_with_epsilon (r->negligible_below, 0.01, 1e-12);
  g_assert_cmpfloat_with_epsilon (r->smallest_p, 1.0 / 6, 1e-6);
  g_assert_cmpuint (r->runs_for_significance, ==, 5);
}

/* Issue 24, item 9: callsites of different subtrees ranked apart (main/x/…, main/y/…, main/x/…)
 * come back under their own names: the ranking named other call paths once the report writer
 * had renumbered them (MPI_Send showed MPI_Recv's rho, an inner node showed up as a callsite). */
static CubeReport *
interleaved_run (guint P)
{
  CubeReport *r = cube_report_new ();
  CubeMetric *time = cube_report_add_metric (r, NULL, "time", "Time", CUBE_DTYPE_DOUBLE, "sec", NULL, NULL);
  CubeCnode *m = cube_report_add_cnode (r, NULL, cube_report_add_region (r, "main", "a.c", 1, 9), -1, NULL);
  CubeCnode *x = cube_report_add_cnode (r, m, cube_report_add_region (r, "x", "a.c", 10, 19), 2, "a.c");
  CubeCnode *y = cube_report_add_cnode (r, m, cube_report_add_region (r, "y", "a.c", 20, 29), 3, "a.c");
  CubeCnode *allreduce = cube_report_add_cnode (r, x, cube_report_add_region (r, "MPI_Allreduce", "MPI", -1, -1), 11, "a.c");
  CubeCnode *recv = cube_report_add_cnode (r, x, cube_report_add_region (r, "MPI_Recv", "MPI", -1, -1), 12, "a.c");
  CubeCnode *send = cube_report_add_cnode (r, y, cube_report_add_region (r, "MPI_Send", "MPI", -1, -1), 21, "a.c");
  CubeSysNode *mach = cube_report_add_sysnode (r, NULL, CUBE_SYS_MACHINE, "M", -1);

  for (guint p = 0; p < P; p++)
    {
      g_autofree char *name = g_strdup_printf ("rank %u", p);
      cube_report_add_sysnode (r, cube_report_add_sysnode (r, mach, CUBE_SYS_PROCESS, name, p), CUBE_SYS_THREAD, "t", 0);
      cube_report_set_value (r, time, m, p, 1);
      cube_report_set_value (r, time, allreduce, p, P);   /* grows */
      cube_report_set_value (r, time, send, p, 20);       /* falls, large */
      cube_report_set_value (r, time, recv, p, 4);        /* falls, smaller */
    }
  return r;
}

static void
test_result_interleaved (void)
{
  g_autoptr (GPtrArray) dirs = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;
  g_autoptr (StatsScaling) s = NULL;
  g_autoptr (CubeReport) out = NULL, back = NULL;
  g_autoptr (KubusScalingResult) r = NULL;
  g_autofree char *path = g_build_filename (tmpdir, "interleaved.cube", NULL);
  const guint counts[] = { 2, 4, 8 };
  static const char *const names[] = { "main/x/MPI_Allreduce", "main/y/MPI_Send", "main/x/MPI_Recv" };

  for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
    {
      g_autofree char *name = g_strdup_printf ("interleaved-%u", counts[i]);
      g_ptr_array_add (dirs, scaling_fixture_write (tmpdir, name, "analysis.cube", interleaved_run (counts[i])));
    }
  s = stats_scaling_compute ((const char *const *) dirs->pdata, dirs->len, NULL, NULL, &error);
  g_assert_no_error (error);
  out = stats_scaling_to_report (s);
  g_assert_true (cube_report_write (out, path, &error));
  back = cube_report_load (path, CUBE_LOAD_EAGER, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  r = kubus_scaling_result_new (back, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (r->sites->len, ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      const KubusScalingSite *site = g_ptr_array_index (r->sites, i);
      const StatsScalingCallsite *cs = g_ptr_array_index (s->callsites, i);

      g_assert_cmpstr (cs->name, ==, names[i]);
      g_assert_cmpstr (site->name, ==, names[i]);
      g_assert_cmpfloat_with_epsilon (site->rho, cs->rho, 1e-12);
      g_assert_cmpfloat_with_epsilon (site->share[2], cs->share_at[2], 1e-12);
    }
}

static void
expect_not_scaling (CubeReport *report, const char *key, const char *value)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KubusScalingResult) r = NULL;

  cube_report_set_attr (report, key, value);
  r = kubus_scaling_result_new (report, &error);
  g_assert_null (r);
  g_assert_error (error, CUBE_ERROR, CUBE_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "not a scalability report"));
  g_assert_nonnull (strstr (error->message, "scaling.cube"));
}

static void
test_result_bad (void)
{
  g_autoptr (CubeReport) report = scaling_report ();
  g_autofree char *ranking = g_strdup (cube_report_get_attr (report, "kubus.scaling.ranking"));
  g_autofree char *counts = g_strdup (cube_report_get_attr (report, "kubus.scaling.task_counts"));
  g_autofree char *twice = NULL;
  guint *c = NULL, n = 0;
  gint64 *ids = NULL;

  expect_not_scaling (report, "kubus.scaling.task_counts", "4,2,8");
  expect_not_scaling (report, "kubus.scaling.task_counts", "2,4,16");   /* no share metric */
  cube_report_set_attr (report, "kubus.scaling.task_counts", counts);
  expect_not_scaling (report, "kubus.scaling.ranking", "99999");
  twice = g_strdup_printf ("%s %s", ranking, ranking);
  expect_not_scaling (report, "kubus.scaling.ranking", twice);
  expect_not_scaling (report, "kubus.scaling.ranking", "1,2");
  cube_report_set_attr (report, "kubus.scaling.ranking", ranking);
  expect_not_scaling (report, "kubus.scaling.runs", "0");
  cube_report_set_attr (report, "kubus.scaling.runs", "4");
  expect_not_scaling (report, "kubus.scaling.undefined", "x");

  /* the list parsers on their own */
  g_assert_true (kubus_scaling_parse_counts ("2,3,4,6,8", &c, &n));
  g_assert_cmpuint (n, ==, 5);
  g_assert_cmpuint (c[4], ==, 8);
  g_free (c);
  for (const char *const *bad = (const char *const[]){ "", "2,,4", "4,2", "0,1", "2,x", "-1,2",
                                                         "2, 4", "2,4,", "4294967296", NULL };
       *bad != NULL; bad++)
    {
      g_assert_false (kubus_scaling_parse_counts (*bad, &c, &n));
      g_assert_null (c);
    }
  g_assert_true (kubus_scaling_parse_ids ("", &ids, &n));
  g_assert_cmpuint (n, ==, 0);
  g_assert_true (kubus_scaling_parse_ids ("7 0 12", &ids, &n));
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpint (ids[2], ==, 12);
  g_free (ids);
  for (const char *const *bad = (const char *const[]){ " 1", "1  2", "1 ", "a", "-3", NULL };
       *bad != NULL; bad++)
    g_assert_false (kubus_scaling_parse_ids (*bad, &ids, &n));
  g_assert_false (kubus_scaling_parse_ids (NULL, &ids, &n));

  /* any other report */
  {
    g_autoptr (CubeReport) other = scaling_fixture_report (4, &scaling_shape_plain);
    g_autoptr (GError) error = NULL;
    g_assert_null (kubus_scaling_result_new (other, &error));
    g_assert_error (error, CUBE_ERROR, CUBE_ERROR_FORMAT);
  }
}

/* ---- the plot ------------------------------------------------------------------------------ */

static void
pixel (cairo_surface_t *s, int x, int y, guint8 rgb[3])
{
  const guint8 *p = cairo_image_surface_get_data (s) + y * cairo_image_surface_get_stride (s) + 4 * x;
  guint32 v = *(const guint32 *) p;   /* native-endian 0x00RRGGBB */

  rgb[0] = (v >> 16) & 0xff;
  rgb[1] = (v >> 8) & 0xff;
  rgb[2] = v & 0xff;
}

static void
test_plot (void)
{
  g_autoptr (CubeReport) report = scaling_report ();
  g_autoptr (KubusScalingResult) r = kubus_scaling_result_new (report, NULL);
  const guint sites[] = { 0, 1 };   /* Allreduce (blue), Recv (vermillion) */
  KubusPlotFrame f;
  cairo_surface_t *surface;
  cairo_t *cr;
  double rgb[3];
  guint8 px[3];

  g_assert_cmpfloat_with_epsilon (kubus_plot_log_position (10, 1, 100, 0, 200), 100, 1e-12);
  g_assert_cmpfloat_with_epsilon (kubus_plot_log_position (1, 1, 100, 50, 250), 50, 1e-12);
  g_assert_cmpfloat_with_epsilon (kubus_plot_log_position (100, 1, 100, 300, 100), 100, 1e-12);

  /* shares 8/74.08 … 0.8639: decades 0.1 … 1; two legend lines */
  g_assert_true (kubus_scalability_plot_frame (r, sites, 2, 640, 480, &f));
  g_assert_cmpfloat_with_epsilon (f.y_lo, 0.1, 1e-12);
  g_assert_cmpfloat_with_epsilon (f.y_hi, 1, 1e-12);
  g_assert_cmpfloat_with_epsilon (f.x_lo, 2 / 1.12, 1e-12);
  g_assert_cmpfloat_with_epsilon (f.x_hi, 8 * 1.12, 1e-12);
  g_assert_cmpfloat (f.bottom, ==, 480 - 52 - 2 * 18);
  /* Bcast alone: 0.08/74.08 ≈ 0.00108 → 0.001 … 0.01; Comm_rank (all 0): nothing to plot */
  g_assert_true (kubus_scalability_plot_frame (r, (const guint[]){ 3 }, 1, 640, 480, &f));
  g_assert_cmpfloat_with_epsilon (f.y_lo, 0.001, 1e-15);
  g_assert_cmpfloat_with_epsilon (f.y_hi, 0.01, 1e-15);
  /* issue 24, item 9: the y title, the tick labels ("0.1 %" widest) and the axis do not
   * overlap; ticks read as percentages */
  {
    cairo_surface_t *scratch = cairo_image_surface_create (CAIRO_FORMAT_A8, 1, 1);
    cairo_t *m = cairo_create (scratch);
    g_autofree char *tick = kubus_scalability_plot_tick_label (0.001);
    cairo_text_extents_t e;

    g_assert_cmpstr (tick, ==, "0.1 %");
    cairo_select_font_face (m, "Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size (m, 12);
    cairo_text_extents (m, tick, &e);
    g_assert_cmpfloat (f.y_title_left, >=, 0);
    g_assert_cmpfloat (f.y_title_right, <, f.ticks_left);
    g_assert_cmpfloat (f.ticks_left + e.x_advance, <=, f.left - 4);
    cairo_destroy (m);
    cairo_surface_destroy (scratch);
  }
  g_assert_false (kubus_scalability_plot_frame (r, (const guint[]){ 4 }, 1, 640, 480, &f));
  g_assert_false (kubus_scalability_plot_frame (r, NULL, 0, 640, 480, &f));

  /* the points are drawn in their line's colour, exactly at their log position */
  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 640, 480);
  cr = cairo_create (surface);
  kubus_scalability_plot_draw (cr, 640, 480, r, sites, 2);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  g_assert_true (kubus_scalability_plot_frame (r, sites, 2, 640, 480, &f));
  for (guint i = 0; i < 2; i++)
    {
      const KubusScalingSite *s = g_ptr_array_index (r->sites, sites[i]);

      kubus_scalability_plot_color (i, rgb);
      for (guint k = 0; k < r->n_counts; k++)
        {
          int x = (int) floor (kubus_plot_log_position (r->counts[k], f.x_lo, f.x_hi, f.left, f.right));
          int y = (int) floor (kubus_plot_log_position (s->share[k], f.y_lo, f.y_hi, f.bottom, f.top));

          pixel (surface, x, y, px);
          for (int c = 0; c < 3; c++)
            g_assert_cmpint (abs ((int) px[c] - (int) lround (rgb[c] * 255)), <=, 2);
        }
    }
  /* background inside the plot, away from lines: white */
  pixel (surface, (int) f.left + 3, (int) f.top + 3, px);
  g_assert_cmpint (px[0] + px[1] + px[2], ==, 3 * 255);
  cairo_surface_destroy (surface);
}

static void
test_export (void)
{
  g_autoptr (CubeReport) report = scaling_report ();
  g_autoptr (KubusScalingResult) r = kubus_scaling_result_new (report, NULL);
  const guint sites[] = { 0, 1, 2 };
  static const struct
  {
    const char *name;
    const char *magic;
  } files[] = { { "plot.png", "\x89PNG" }, { "plot.SVG", "<?xml" }, { "plot.pdf", "%PDF" } };
  KubusPlotFormat format;

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (tmpdir, files[i].name, NULL);
      g_autofree char *contents = NULL;
      g_autoptr (GError) error = NULL;
      gsize len;

      g_assert_true (kubus_plot_format_from_name (path, &format));
      g_assert_cmpint (format, ==, i);
      g_assert_true (kubus_scalability_plot_export (path, format, 800, 500, r, sites, 3, &error));
      g_assert_no_error (error);
      g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
      g_assert_true (len > 1000 && memcmp (contents, files[i].magic, strlen (files[i].magic)) == 0);
      if (format == KUBUS_PLOT_PNG)
        {
          cairo_surface_t *png = cairo_image_surface_create_from_png (path);
          g_assert_cmpint (cairo_image_surface_get_width (png), ==, 800);
          g_assert_cmpint (cairo_image_surface_get_height (png), ==, 500);
          cairo_surface_destroy (png);
        }
      if (format == KUBUS_PLOT_SVG)
        g_assert_nonnull (strstr (contents, "width=\"800\""));
      g_remove (path);
    }
  g_assert_false (kubus_plot_format_from_name ("plot.jpg", &format));
  /* a folder that does not exist: an error naming the file, and nothing left behind */
  {
    g_autofree char *bad = g_build_filename (tmpdir, "no-such-folder", "plot.png", NULL);
    g_autoptr (GError) error = NULL;
    g_assert_false (kubus_scalability_plot_export (bad, KUBUS_PLOT_PNG, 100, 100, r, sites, 1,
                                                   &error));
    g_assert_nonnull (error);
    g_assert_nonnull (strstr (error->message, bad));
  }
  {
    g_autoptr (GDir) d = g_dir_open (tmpdir, 0, NULL);
    const char *name;
    while ((name = g_dir_read_name (d)) != NULL)
      g_assert_false (g_str_has_prefix (name, "plot."));
  }
}

/* ---- the window ----------------------------------------------------------------------------- */

static gboolean
keep_awake (gpointer data)
{
  (void) data;
  return G_SOURCE_CONTINUE;
}

static gboolean
wait_idle (KubusScalabilityWindow *win)
{
  gint64 end = g_get_monotonic_time () + (gint64) WAIT_MS * 1000;
  guint awake = g_timeout_add (10, keep_awake, NULL);

  while (kubus_scalability_window_is_busy (win) && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, TRUE);
  /* a frame to lay out and draw */
  for (int i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
  g_source_remove (awake);
  return !kubus_scalability_window_is_busy (win);
}

static gboolean
is_scroller_of_columns (GtkWidget *w, gpointer data)
{
  (void) data;
  return GTK_IS_SCROLLED_WINDOW (w) && GTK_IS_COLUMN_VIEW (gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (w)));
}

static GtkWidget *
find_in (GtkWidget *root, gboolean (*match) (GtkWidget *, gpointer), gpointer data)
{
  if (match (root, data))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_in (c, match, data);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* No column of the table needs horizontal scrolling at the window's default size: the table
 * is as wide as its frame, and the last share column ends inside it. */
static void
check_table_fits (KubusScalabilityWindow *win)
{
  GtkWidget *scroller = find_in (GTK_WIDGET (win), is_scroller_of_columns, NULL);
  GtkWidget *columns = gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scroller));
  GtkAdjustment *h = gtk_scrolled_window_get_hadjustment (GTK_SCROLLED_WINDOW (scroller));

  g_assert_nonnull (scroller);
  if (gtk_adjustment_get_upper (h) > gtk_adjustment_get_page_size (h) + 0.5
      || gtk_widget_get_width (columns) > gtk_widget_get_width (scroller))
    g_error ("the table needs horizontal scrolling: %g px of columns in %g px (%d in %d)",
             gtk_adjustment_get_upper (h), gtk_adjustment_get_page_size (h), gtk_widget_get_width (columns),
             gtk_widget_get_width (scroller));
}

static gboolean
is_spin (GtkWidget *w, gpointer data)
{
  (void) data;
  return GTK_IS_SPIN_BUTTON (w);
}

/* A higher threshold moves the receives (at most 25 %) below the others; the plot keeps its lines. */
static void
check_threshold (KubusScalabilityWindow *win)
{
  GtkSpinButton *spin = NULL;
  const guint *sel;
  guint n;

  spin = GTK_SPIN_BUTTON (find_in (GTK_WIDGET (win), is_spin, NULL));
  g_assert_nonnull (spin);
  g_assert_cmpfloat (gtk_spin_button_get_value (spin), ==, 1);
  gtk_spin_button_set_value (spin, 30);
  g_assert_nonnull (strstr (kubus_scalability_window_get_status (win),
                            "4 callsites stay below 30 % at every task count: listed last."));
  sel = kubus_scalability_window_get_selected (win, &n);
  g_assert_cmpuint (n, ==, 3);   /* Allreduce, Recv, Recv#2 still plotted */
  gtk_spin_button_set_value (spin, 1);
  sel = kubus_scalability_window_get_selected (win, &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpuint (sel[0], ==, 0);
}

static KubusScalabilityWindow *
open_window (void)
{
  GList *before = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (app)));
  KubusScalabilityWindow *win = NULL;

  /* the menu item's action, with its accelerator */
  {
    g_auto (GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app),
                                                                    "app.scalability");
    g_assert_cmpstr (accels[0], ==, "<Shift><Control>s");  /* GTK's spelling */
  }
  g_action_group_activate_action (G_ACTION_GROUP (app), "scalability", NULL);
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l; l = l->next)
    if (KUBUS_IS_SCALABILITY_WINDOW (l->data) && g_list_find (before, l->data) == NULL)
      win = l->data;
  g_list_free (before);
  g_assert_nonnull (win);
  return win;
}

static void
test_window (void)
{
  KubusScalabilityWindow *win = open_window ();
  const KubusScalingResult *r;
  const guint *sel;
  guint n, windows;

  for (guint i = 0; i < inputs->len; i++)
    kubus_scalability_window_add_input (win, g_ptr_array_index (inputs, i));
  kubus_scalability_window_add_input (win, g_ptr_array_index (inputs, 0));   /* once only */
  kubus_scalability_window_compute (win);
  g_assert_true (kubus_scalability_window_is_busy (win));
  g_assert_true (wait_idle (win));
  r = kubus_scalability_window_get_result (win);
  if (r == NULL)
    g_error ("no result; status: %s", kubus_scalability_window_get_status (win));
  g_assert_cmpuint (r->runs, ==, 4);
  g_assert_cmpuint (r->sites->len, ==, 5);
  g_assert_cmpstr (((KubusScalingSite *) g_ptr_array_index (r->sites, 0))->name, ==,
                   "main/solve/MPI_Allreduce");
  g_assert_nonnull (strstr (kubus_scalability_window_get_status (win), "5 callsites"));
  /* the top three are plotted at first */
  sel = kubus_scalability_window_get_selected (win, &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpuint (sel[0], ==, 0);
  g_assert_cmpuint (sel[2], ==, 2);
  /* issue 24, item 9: what the runs allow, said plainly; the negligible ones counted */
  if (strstr (kubus_scalability_window_get_status (win),
              "With 4 runs no ρ can be significant: the smallest p-value any ρ can reach is 0.167. "
              "A significant ρ (p < 0.05) needs runs at 5 or more different task counts.") == NULL
      || strstr (kubus_scalability_window_get_status (win),
                 "2 callsites stay below 1 % at every task count: listed last.") == NULL)
    g_error ("status: %s", kubus_scalability_window_get_status (win));
  check_table_fits (win);
  check_threshold (win);
  kubus_scalability_window_select (win, (const guint[]){ 0, 3 }, 2);
  sel = kubus_scalability_window_get_selected (win, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (sel[1], ==, 3);

  if (g_getenv ("KUBUS_SCALABILITY_SCREENSHOT") != NULL)
    {
      g_autoptr (GError) error = NULL;
      gint64 until = g_get_monotonic_time () + 1000 * 1000;
      guint awake = g_timeout_add (10, keep_awake, NULL);

      while (g_get_monotonic_time () < until)
        g_main_context_iteration (NULL, TRUE);
      g_source_remove (awake);
      if (!kubus_screenshot_save (GTK_WIDGET (win), g_getenv ("KUBUS_SCALABILITY_SCREENSHOT"),
                                  &error))
        g_warning ("screenshot: %s", error->message);
    }

  /* Open as Report: a browser window on the result */
  windows = g_list_length (gtk_application_get_windows (GTK_APPLICATION (app)));
  g_assert_true (g_file_test (kubus_scalability_window_get_report_path (win), G_FILE_TEST_IS_REGULAR));
  gtk_widget_activate_action (GTK_WIDGET (win), "scalability.open-report", NULL);
  g_assert_cmpuint (g_list_length (gtk_application_get_windows (GTK_APPLICATION (app))), ==,
                    windows + 1);

  /* the same with --metric: the Late Sender share of MPI_Recv falls */
  kubus_scalability_window_set_metric (win, "mpi_latesender");
  kubus_scalability_window_compute (win);
  g_assert_true (wait_idle (win));
  r = kubus_scalability_window_get_result (win);
  g_assert_cmpstr (r->metric, ==, "mpi_latesender");
  g_assert_cmpstr (((KubusScalingSite *) g_ptr_array_index (r->sites, 0))->name, ==,
                   "main/solve/MPI_Recv");

  /* an unknown metric: kubus-cube's message, without its program prefix */
  kubus_scalability_window_set_metric (win, "nope");
  kubus_scalability_window_compute (win);
  g_assert_true (wait_idle (win));
  g_assert_true (g_str_has_prefix (kubus_scalability_window_get_status (win),
                                   g_ptr_array_index (inputs, 0)));
  g_assert_nonnull (strstr (kubus_scalability_window_get_status (win), "“nope”"));
  gtk_window_destroy (GTK_WINDOW (win));
}

static void
test_window_errors (void)
{
  KubusScalabilityWindow *win = open_window ();
  g_autofree char *other = NULL;
  g_autofree char *slow = g_build_filename (tmpdir, "slow-tool.sh", NULL);
  g_autofree char *tool = g_strdup (g_getenv ("KUBUS_CUBE_PROGRAM"));
  ScalingShape shape = scaling_shape_plain;

  /* nothing to compute yet */
  kubus_scalability_window_compute (win);
  g_assert_false (kubus_scalability_window_is_busy (win));
  g_assert_nonnull (strstr (kubus_scalability_window_get_status (win), "first"));

  /* another program at 16 tasks */
  shape.main_name = "other";
  other = scaling_fixture_write (tmpdir, "other-16", "analysis.cube",
                                 scaling_fixture_report (16, &shape));
  for (guint i = 0; i < inputs->len; i++)
    kubus_scalability_window_add_input (win, g_ptr_array_index (inputs, i));
  kubus_scalability_window_add_input (win, other);
  kubus_scalability_window_compute (win);
  g_assert_true (wait_idle (win));
  g_assert_null (kubus_scalability_window_get_result (win));
  g_assert_nonnull (strstr (kubus_scalability_window_get_status (win), "different programs"));

  /* Cancel stops a tool that would take long */
  g_assert_true (g_file_set_contents (slow, "#!/bin/sh\nexec sleep 60\n", -1, NULL));
  g_chmod (slow, 0755);
  g_setenv ("KUBUS_CUBE_PROGRAM", slow, TRUE);
  kubus_scalability_window_compute (win);
  g_assert_true (kubus_scalability_window_is_busy (win));
  kubus_scalability_window_cancel (win);
  g_assert_true (wait_idle (win));
  g_assert_cmpstr (kubus_scalability_window_get_status (win), ==, "Cancelled.");

  /* no tool */
  g_setenv ("KUBUS_CUBE_PROGRAM", "/nonexistent/kubus-cube", TRUE);
  kubus_scalability_window_compute (win);
  g_assert_false (kubus_scalability_window_is_busy (win));
  g_assert_nonnull (strstr (kubus_scalability_window_get_status (win), "/nonexistent/kubus-cube"));
  g_setenv ("KUBUS_CUBE_PROGRAM", tool, TRUE);
  gtk_window_destroy (GTK_WINDOW (win));
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  gboolean display = g_getenv ("DISPLAY") != NULL && g_getenv ("DISPLAY")[0] != '\0';
  static const struct
  {
    const char *name;
    guint       tasks;
  } runs[] = { { "run-2", 2 }, { "run-4a", 4 }, { "run-4b", 4 }, { "run-8", 8 } };
  int status;

  g_setenv ("LC_ALL", "C.UTF-8", TRUE);
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  /* test-gui-scalability [KUBUS-CUBE]: the program the window runs */
  if (argc > 1 && argv[1][0] != '-')
    {
      g_autofree char *tool = g_canonicalize_filename (argv[1], NULL);
      g_setenv ("KUBUS_CUBE_PROGRAM", tool, TRUE);
      argv[1] = argv[0];
      argv++;
      argc--;
    }
  tmpdir = g_dir_make_tmp ("kubus-gui-scalability-XXXXXX", &error);
  g_assert_no_error (error);
  inputs = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < G_N_ELEMENTS (runs); i++)
    g_ptr_array_add (inputs, scaling_fixture_write (tmpdir, runs[i].name, "analysis.cube",
                                                    scaling_fixture_report (runs[i].tasks,
                                                                            &scaling_shape_plain)));
  if (display)
    {
      g_autofree char *data_home = g_build_filename (tmpdir, "data-home", NULL);
      g_setenv ("XDG_DATA_HOME", data_home, TRUE);
      gtk_test_init (&argc, &argv, NULL);
      app = kubus_application_new ();
      if (!g_application_register (G_APPLICATION (app), NULL, &error))
        g_error ("cannot register the application: %s", error->message);
      g_application_hold (G_APPLICATION (app));
    }
  else
    g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gui/scalability/result", test_result);
  g_test_add_func ("/gui/scalability/result-bad", test_result_bad);
  g_test_add_func ("/gui/scalability/result-interleaved", test_result_interleaved);
  g_test_add_func ("/gui/scalability/plot", test_plot);
  g_test_add_func ("/gui/scalability/export", test_export);
  if (display && g_getenv ("KUBUS_CUBE_PROGRAM") != NULL)
    {
      g_test_add_func ("/gui/scalability/window", test_window);
      g_test_add_func ("/gui/scalability/window-errors", test_window_errors);
    }
  else
    g_print ("# window tests skipped: no display or no KUBUS_CUBE_PROGRAM\n");
  status = g_test_run ();

  if (app != NULL)
    {
      g_application_release (G_APPLICATION (app));
      g_clear_object (&app);
    }
  g_ptr_array_unref (inputs);
  remove_tree (tmpdir);
  g_free (tmpdir);
  return status;
}
