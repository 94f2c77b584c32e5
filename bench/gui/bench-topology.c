/* bench-topology — speed of the topology view (issue #10 "Speed"); prints Markdown.
 *
 *   bench-topology --offscreen [--frames F]
 *       No display. Synthetic grids (tests/gui/topology-test-report.c) of 32³ and 64³
 *       locations, drawn by the TopoScene into a 1200×900 software (cairo image) surface while
 *       the camera turns 3° per frame: per-frame wall and CPU time. Static parts (colours,
 *       plane images, texts) are cached; the baseline in the same run draws every frame with
 *       those caches dropped (what a renderer without caching pays). Then, on a 16³ grid
 *       (4,096 locations): selecting one location in the system tree (its row already
 *       revealed) until the view is repainted (outline found, image drawn).
 *   bench-topology --widget [--frames F]
 *       Under a display (Xvfb, GSK_RENDERER=cairo): the KubusTopologyView of a window, turned
 *       by 3° in a tick callback every frame (32³ and 64³), then a selection change per frame
 *       (16³). Frame = frame clock "before-paint" → end of "after-paint". Baseline: the same
 *       window redrawn with no change.
 *
 * Goals: 32³ < 16 ms and 64³ < 50 ms per frame while rotating; selection change to repaint
 * < 30 ms for 4,096 locations. Figures are printed as ratios to the goals and the baselines. */
#include <gtk/gtk.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "kubus-browser.h"
#include "kubus-topology-values.h"
#include "kubus-topology-view.h"
#include "kubus-window.h"
#include "topology-test-report.h"

static gboolean opt_offscreen, opt_widget;
static guint n_frames = 60;

static double
now_ms (void)
{
  return g_get_monotonic_time () / 1000.0;
}

static double
cpu_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

typedef struct
{
  double median, p95, max;
} Summary;

static Summary
summarize (GArray *ms)
{
  Summary s = { 0, 0, 0 };
  double *v = (double *) ms->data;

  if (ms->len == 0)
    return s;
  qsort (v, ms->len, sizeof (double), cmp_double);
  s.median = v[ms->len / 2];
  s.p95 = v[MIN (ms->len - 1, (guint) (ms->len * 0.95))];
  s.max = v[ms->len - 1];
  return s;
}

static KubusBrowser *
grid_browser (gint64 n)
{
  const gint64 dims[3] = { n, n, n };
  g_autoptr (GError) error = NULL;
  KubusBrowser *b = kubus_browser_new (topology_test_report_new (dims, 90, 100, 0), NULL, &error);

  if (b == NULL)
    g_error ("%s", error->message);
  kubus_browser_select_default (b);
  kubus_browser_flush (b);
  return b;
}

static const CubeSysNode *
thread_of_rank (CubeReport *report, gint64 rank)
{
  /* topology_test_report_new adds machine, node, then process/thread pairs in rank order. */
  const CubeSysNode *t = g_ptr_array_index (report->sysnodes, 2 + 2 * rank + 1);

  g_assert (t->kind == CUBE_SYS_THREAD && t->parent->rank == rank);
  return t;
}

/* ---- offscreen --------------------------------------------------------------------------- */

static void
offscreen_rotate (gint64 n,
                  double goal)
{
  g_autoptr (KubusBrowser) b = grid_browser (n);
  g_autoptr (TopoGrid) grid = kubus_topology_grid_new (b, 0, NULL, NULL);
  g_autoptr (TopoScene) scene = topo_scene_new ();
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 1200, 900);
  cairo_t *cr = cairo_create (surface);
  g_autoptr (GArray) wall = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) cpu = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) base = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) base_cpu = g_array_new (FALSE, FALSE, sizeof (double));
  TopoSettings s;
  Summary sw, sc, sb, sbc;

  topo_settings_init_default (&s, (guint) n);
  topo_scene_set_settings (scene, &s);
  topo_scene_set_grid (scene, grid);
  kubus_topology_values_apply (b, 0, grid, scene);
  topo_scene_render (scene, cr, 1200, 900);   /* warm: caches filled */
  /* Cached and uncached frames interleaved, so that both see the same machine load. */
  for (guint f = 0; f < 2 * n_frames; f++)
    {
      double t0 = now_ms (), c0 = cpu_ms (), t, c;

      s.camera.yaw += 3;
      topo_scene_set_settings (scene, &s);
      if (f % 2 == 1)
        topo_scene_values_changed (scene);   /* baseline: nothing cached */
      topo_scene_render (scene, cr, 1200, 900);
      cairo_surface_flush (surface);
      t = now_ms () - t0;
      c = cpu_ms () - c0;
      g_array_append_val (f % 2 == 0 ? wall : base, t);
      if (f % 2 == 0)
        g_array_append_val (cpu, c);
      else
        g_array_append_val (base_cpu, c);
    }
  sw = summarize (wall), sc = summarize (cpu), sb = summarize (base), sbc = summarize (base_cpu);
  printf ("| rotate %" G_GINT64_FORMAT "³ (%" G_GINT64_FORMAT " cells), offscreen 1200×900 | %.1f / %.1f / %.1f | %.1f | %.2f (CPU %.2f) | %.1f (CPU %.1f) | %.2f (CPU %.2f) |\n",
          n, n * n * n, sw.median, sw.p95, sw.max, sc.median, sw.median / goal, sc.median / goal,
          sb.median, sbc.median, sw.median / sb.median, sc.median / sbc.median);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

static void
offscreen_selection (void)
{
  const gint64 n = 16;
  g_autoptr (KubusBrowser) b = grid_browser (n);
  CubeReport *report = kubus_browser_get_report (b);
  KubusPaneModel *system = kubus_browser_get_pane (b, KUBUS_PANE_SYSTEM);
  GtkSelectionModel *sel = kubus_pane_model_get_selection (system);
  g_autoptr (TopoGrid) grid = kubus_topology_grid_new (b, 0, NULL, NULL);
  g_autoptr (TopoScene) scene = topo_scene_new ();
  g_autoptr (GArray) cells = g_array_new (FALSE, FALSE, sizeof (gint64));
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 1200, 900);
  cairo_t *cr = cairo_create (surface);
  g_autoptr (GArray) wall = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) base = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) cpu = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) base_cpu = g_array_new (FALSE, FALSE, sizeof (double));
  g_autofree guint *pos = g_new (guint, n_frames);
  TopoSettings s;
  Summary sw, sb, sc, sbc;

  topo_settings_init_default (&s, (guint) n);
  topo_scene_set_settings (scene, &s);
  topo_scene_set_grid (scene, grid);
  kubus_topology_values_apply (b, 0, grid, scene);
  for (guint f = 0; f < n_frames; f++)   /* rows revealed beforehand, as a user sees them */
    pos[f] = kubus_pane_model_reveal (system, KUBUS_NODE_SYSNODE,
                                      thread_of_rank (report, (f * 997) % (n * n * n)));
  for (guint f = 0; f < n_frames; f++)
    pos[f] = kubus_pane_model_reveal (system, KUBUS_NODE_SYSNODE,
                                      thread_of_rank (report, (f * 997) % (n * n * n)));
  topo_scene_render (scene, cr, 1200, 900);
  for (guint f = 0; f < n_frames; f++)
    {
      double t0 = now_ms (), c0 = cpu_ms (), t, c;

      gtk_selection_model_select_item (sel, pos[f], TRUE);
      g_array_set_size (cells, 0);
      kubus_topology_selected_cells (b, grid, cells);
      topo_scene_set_selection (scene, (gint64 *) cells->data, cells->len);
      topo_scene_render (scene, cr, 1200, 900);
      cairo_surface_flush (surface);
      t = now_ms () - t0;
      c = cpu_ms () - c0;
      g_assert (cells->len == 1 && g_array_index (cells, gint64, 0) == (gint64) ((f * 997) % (n * n * n)));
      g_array_append_val (wall, t);
      g_array_append_val (cpu, c);
      t0 = now_ms (), c0 = cpu_ms ();
      topo_scene_render (scene, cr, 1200, 900);   /* baseline: the same repaint, no change */
      cairo_surface_flush (surface);
      t = now_ms () - t0;
      c = cpu_ms () - c0;
      g_array_append_val (base, t);
      g_array_append_val (base_cpu, c);
    }
  sw = summarize (wall), sb = summarize (base), sc = summarize (cpu), sbc = summarize (base_cpu);
  printf ("| selection change → repaint, 16³ (4,096 locations), offscreen | %.1f / %.1f / %.1f | %.1f | %.2f (CPU %.2f) | %.1f (CPU %.1f) | %.2f (CPU %.2f) |\n",
          sw.median, sw.p95, sw.max, sc.median, sw.median / 30.0, sc.median / 30.0, sb.median, sbc.median,
          sw.median / sb.median, sc.median / sbc.median);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

/* ---- widget ------------------------------------------------------------------------------ */

typedef struct
{
  GtkWidget         *window;
  KubusTopologyView *view;
  KubusBrowser      *browser;
  GtkSelectionModel *sel;
  guint             *pos;
  int                mode;      /* 0 idle redraw, 1 rotate, 2 select */
  guint              frame;
  guint              warmup;
  double             start, cpu_start;
  GArray            *ms, *cpu;
  GMainLoop         *loop;
} Widget;

static void
on_before_paint (GdkFrameClock *clock, Widget *w)
{
  (void) clock;
  w->start = now_ms ();
  w->cpu_start = cpu_ms ();
}

static void
on_after_paint (GdkFrameClock *clock, Widget *w)
{
  (void) clock;
  if (w->warmup > 0)
    {
      w->warmup--;
      return;
    }
  {
    double t = now_ms () - w->start, c = cpu_ms () - w->cpu_start;
    g_array_append_val (w->ms, t);
    g_array_append_val (w->cpu, c);
  }
  if (w->ms->len >= n_frames)
    g_main_loop_quit (w->loop);
}

static gboolean
tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  Widget *w = data;

  (void) widget, (void) clock;
  if (w->mode == 1)
    {
      TopoSettings s = *kubus_topology_view_get_settings (w->view);
      s.camera.yaw += 3;
      kubus_topology_view_set_settings (w->view, &s);
    }
  else if (w->mode == 2)
    gtk_selection_model_select_item (w->sel, w->pos[w->frame % n_frames], TRUE);
  else
    gtk_widget_queue_draw (kubus_topology_view_get_canvas (w->view));
  w->frame++;
  return G_SOURCE_CONTINUE;
}

static Summary
widget_run (Widget *w, int mode, Summary *cpu)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (w->window);
  gulong b = g_signal_connect (clock, "before-paint", G_CALLBACK (on_before_paint), w);
  gulong a = g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), w);
  guint id = gtk_widget_add_tick_callback (w->window, tick, w, NULL);
  Summary s;

  w->mode = mode;
  w->frame = 0;
  w->warmup = 3;
  g_array_set_size (w->ms, 0);
  g_array_set_size (w->cpu, 0);
  g_main_loop_run (w->loop);
  gtk_widget_remove_tick_callback (w->window, id);
  g_signal_handler_disconnect (clock, b);
  g_signal_handler_disconnect (clock, a);
  s = summarize (w->ms);
  *cpu = summarize (w->cpu);
  return s;
}

static void
widget_bench (gint64 n, gboolean select)
{
  g_autoptr (KubusBrowser) b = grid_browser (n);
  CubeReport *report = kubus_browser_get_report (b);
  KubusPaneModel *system = kubus_browser_get_pane (b, KUBUS_PANE_SYSTEM);
  Widget w = { 0 };
  Summary s, c, base, cbase;

  w.loop = g_main_loop_new (NULL, FALSE);
  w.ms = g_array_new (FALSE, FALSE, sizeof (double));
  w.cpu = g_array_new (FALSE, FALSE, sizeof (double));
  w.browser = b;
  w.sel = kubus_pane_model_get_selection (system);
  w.window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (w.window), 1000, 800);
  w.view = KUBUS_TOPOLOGY_VIEW (kubus_topology_view_new ());
  kubus_topology_view_set_browser (w.view, b, 0, NULL);
  gtk_window_set_child (GTK_WINDOW (w.window), GTK_WIDGET (w.view));
  gtk_window_present (GTK_WINDOW (w.window));
  w.pos = g_new (guint, n_frames);
  for (int k = 0; k < 2; k++)   /* revealing shifts earlier positions: twice */
    for (guint f = 0; f < n_frames; f++)
      w.pos[f] = kubus_pane_model_reveal (system, KUBUS_NODE_SYSNODE,
                                          thread_of_rank (report, (f * 997) % (n * n * n)));

  base = widget_run (&w, 0, &cbase);
  s = widget_run (&w, select ? 2 : 1, &c);
  if (select)
    printf ("| selection change → repaint, 16³ (4,096 locations), window 1000×800 | %.1f / %.1f / %.1f | %.1f | %.2f | %.1f | %.2f |\n",
            s.median, s.p95, s.max, c.median, s.median / 30.0, base.median, s.median / base.median);
  else
    printf ("| rotate %" G_GINT64_FORMAT "³, window 1000×800 | %.1f / %.1f / %.1f | %.1f | %.2f | %.1f | %.2f |\n",
            n, s.median, s.p95, s.max, c.median, s.median / (n <= 32 ? 16.0 : 50.0), base.median,
            s.median / base.median);
  gtk_window_destroy (GTK_WINDOW (w.window));
  g_free (w.pos);
  g_array_unref (w.ms);
  g_array_unref (w.cpu);
  g_main_loop_unref (w.loop);
}

int
main (int argc, char **argv)
{
  const GOptionEntry entries[] = {
    { "offscreen", 0, 0, G_OPTION_ARG_NONE, &opt_offscreen, "Render into an image surface (no display)", NULL },
    { "widget", 0, 0, G_OPTION_ARG_NONE, &opt_widget, "Frames of the view in a window (needs a display)", NULL },
    { "frames", 0, 0, G_OPTION_ARG_INT, &n_frames, "Frames per measurement (60)", "F" },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- topology view speed");
  g_autoptr (GError) error = NULL;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || (!opt_offscreen && !opt_widget) || n_frames < 5)
    {
      g_printerr ("usage: bench-topology --offscreen|--widget [--frames F]\n");
      return 2;
    }
  printf ("| measurement | frame ms median / p95 / max | CPU ms median | ÷ goal | baseline ms | ÷ baseline |\n");
  printf ("|---|---|---|---|---|---|\n");
  if (opt_offscreen)
    {
      offscreen_rotate (32, 16.0);
      offscreen_rotate (64, 50.0);
      offscreen_selection ();
    }
  if (opt_widget)
    {
      gtk_init ();
      widget_bench (32, FALSE);
      widget_bench (64, FALSE);
      widget_bench (16, TRUE);
    }
  return 0;
}
