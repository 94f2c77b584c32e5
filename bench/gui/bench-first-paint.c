/* bench-first-paint — open to first paint of a report in the real browser.
 *
 *   bench-first-paint FILE            run `kubus FILE` (the KubusApplication itself) and exit
 *                                     right after the first frame that shows the report
 *   bench-first-paint --prefetch FILE   the same with an extra kubus_load_prefetch (FILE) first;
 *                                     since 2026-11-24 the application's handle-local-options
 *                                     does that itself, so this equals the first form
 *   bench-first-paint --breakdown FILE  the same work without a window, step by step: the
 *       lazy load, the loader's warm-up (kubus_browser_warm: metric roots, the default metric's
 *       call paths), kubus_browser_new with the default selection; then the peak resident set
 *       and how many stored rows a lazily read .cubex decoded (issue 25 §3: as many as
 *       `kubus-cube info` plus the default metric, not the whole file)
 *
 * The first form hooks the application from outside (no code in src/gui knows about it): on
 * GtkApplication::window-added it connects to the window's "loaded" signal (the report is in
 * the panes), then to the frame clock's "after-paint": the first paint after "loaded" is the
 * first frame with the report on screen. It prints, in seconds,
 *   t_paint=…   from KUBUS_BENCH_T0 (wall-clock µs, set by the caller right before exec, e.g.
 *               bash's $EPOCHREALTIME) — or from main() if unset — to the end of that frame
 *   t_loaded=…  to "loaded" (report read in the worker and handed to the panes)
 *   t_main=…    to main() (exec, dynamic linking)
 *   t_startup=… to the end of GApplication::startup (gtk_init and kubus's own start-up)
 *   t_window=…  to the window's creation (template built; the load starts right after)
 *   t_paint2=…  to the end of the next frame (list rows bound late would show here)
 * and exits at once, so teardown is not counted. Run it under Xvfb with GSK_RENDERER=cairo. */
#include <glib/gi18n.h>
#include <gtk/gtk.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cube-private.h"
#include "gui-bench-report.h"
#include "kubus-application.h"
#include "kubus-browser.h"
#include "kubus-loader.h"
#include "kubus-window.h"

static gint64 t0_us;
static double t_main, t_startup = -1, t_window = -1, t_loaded = -1, t_paint = -1;
static guint  paints;

static double
since_t0 (void)
{
  return (g_get_real_time () - t0_us) / 1e6;
}

static void
on_after_paint (GdkFrameClock *clock, gpointer user_data)
{
  (void)clock, (void)user_data;
  if (t_loaded < 0)
    return;
  if (++paints == 1)
    {
      t_paint = since_t0 ();
      return;
    }
  printf ("t_main=%.4f t_startup=%.4f t_window=%.4f t_loaded=%.4f t_paint=%.4f t_paint2=%.4f\n",
          t_main, t_startup, t_window, t_loaded, t_paint, since_t0 ());
  fflush (stdout);
  _exit (0);
}

static void
on_realize (GtkWidget *window, gpointer user_data)
{
  (void)user_data;
  g_signal_connect (gtk_widget_get_frame_clock (window), "after-paint", G_CALLBACK (on_after_paint),
                    NULL);
}

static void
on_loaded (KubusWindow *window, gpointer user_data)
{
  (void)user_data;
  t_loaded = since_t0 ();
  gtk_widget_queue_draw (GTK_WIDGET (window));
}

static void
on_failed (KubusWindow *window, const char *message, gpointer user_data)
{
  (void)window, (void)user_data;
  g_printerr ("bench-first-paint: %s\n", message);
  _exit (2);
}

static void
on_window_added (GtkApplication *app, GtkWindow *window, gpointer user_data)
{
  (void)app, (void)user_data;
  if (!KUBUS_IS_WINDOW (window))
    return;
  t_window = since_t0 ();
  kubus_window_set_batch (KUBUS_WINDOW (window), TRUE); /* errors: no dialog, "failed" */
  g_signal_connect (window, "loaded", G_CALLBACK (on_loaded), NULL);
  g_signal_connect (window, "failed", G_CALLBACK (on_failed), NULL);
  g_signal_connect (window, "realize", G_CALLBACK (on_realize), NULL);
}

static void
on_startup (GApplication *app, gpointer user_data)
{
  (void)app, (void)user_data;
  t_startup = since_t0 ();
}

static gboolean
give_up (gpointer data)
{
  (void)data;
  g_printerr ("bench-first-paint: no frame with the report after 300 s\n");
  _exit (3);
}

/* The steps of an open without GTK widgets: worker-thread load, then what the main thread
 * does before the first frame (metric totals, the browser's models and first update). */
static int
breakdown (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KubusBrowser) b = NULL;
  CubeReport        *report;
  double             t0 = gui_bench_now (), t_load, t_totals, t_browser;
  g_autofree char   *status = NULL;
  const char        *hwm;

  report = cube_report_load (path, CUBE_LOAD_DEFAULT, NULL, NULL, NULL, &error);
  if (report == NULL)
    {
      g_printerr ("bench-first-paint: %s\n", error->message);
      return 2;
    }
  t_load = gui_bench_now () - t0;
  t0 = gui_bench_now ();
  kubus_browser_warm (report);   /* what the loader's worker thread does */
  t_totals = gui_bench_now () - t0;
  t0 = gui_bench_now ();
  b = kubus_browser_new (report, NULL, &error);
  if (b == NULL)
    g_error ("%s", error->message);
  kubus_browser_select_default (b);
  t_browser = gui_bench_now () - t0;
  g_file_get_contents ("/proc/self/status", &status, NULL, NULL);
  hwm = status != NULL ? strstr (status, "VmHWM:") : NULL;
  printf ("load_s=%.4f totals_s=%.4f browser_s=%.4f peak_rss_kb=%ld rows_decoded=%" G_GUINT64_FORMAT
          " of_rows=%" G_GUINT64_FORMAT "\n",
          t_load, t_totals, t_browser, hwm != NULL ? strtol (hwm + 6, NULL, 10) : -1L,
          report->priv->rows_decoded,
          (guint64) report->metrics->len * report->cnodes->len);
  return 0;
}

int
main (int argc, char *argv[])
{
  const char *env = g_getenv ("KUBUS_BENCH_T0");
  g_autoptr (KubusApplication) app = NULL;
  char *args[3];

  t0_us = g_get_real_time ();
  if (env != NULL)
    {
      /* $EPOCHREALTIME: seconds with a decimal point (or comma in some locales) */
      g_autofree char *copy = g_strdelimit (g_strdup (env), ",", '.');
      t0_us = (gint64)(g_ascii_strtod (copy, NULL) * 1e6);
    }
  t_main = since_t0 ();
  if (argc == 3 && g_str_equal (argv[1], "--breakdown"))
    return breakdown (argv[2]);
  if (argc == 3 && g_str_equal (argv[1], "--prefetch"))
    {
      kubus_load_prefetch (argv[2]);
      argv[1] = argv[2];
      argc = 2;
    }
  if (argc != 2)
    {
      g_printerr ("usage: bench-first-paint [--breakdown|--prefetch] FILE\n");
      return 1;
    }

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  app = kubus_application_new ();
  g_signal_connect (app, "window-added", G_CALLBACK (on_window_added), NULL);
  /* runs after the class handler (RUN_FIRST): GTK and kubus's start-up are done */
  g_signal_connect (app, "startup", G_CALLBACK (on_startup), NULL);
  g_timeout_add_seconds (300, give_up, NULL);
  args[0] = (char *)"kubus";
  args[1] = argv[1];
  args[2] = NULL;
  return g_application_run (G_APPLICATION (app), 2, args);
}
