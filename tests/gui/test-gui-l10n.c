/* test-gui-l10n.c — issue 24, item 12: in German the browser shows the analysis metrics' names
 * and descriptions in German (translated where they are shown: the report stays English), for
 * kubus-analyze's metric table and for the Scalasca/Score-P names Kubus knows; a metric whose
 * unique name is known but whose text is not stays as written.
 * Run with LANGUAGE=de and the build's catalogue (KUBUS_BUILD_ROOT/po); no display needed. */
#include <glib/gi18n.h>
#include <gtk/gtk.h>
#include <locale.h>
#include <string.h>

#include "kubus-browser.h"
#include "kubus-metric-names.h"
#include "kubus-node.h"

static void
add_metric (CubeReport *r,
            CubeMetric *parent,
            const char *uniq,
            const char *name,
            const char *descr,
            CubeCnode  *c,
            double      v)
{
  CubeMetric *m = cube_report_add_metric (r, parent, uniq, name, CUBE_DTYPE_DOUBLE, "sec", NULL, descr);

  cube_report_set_value (r, m, c, 0, v);
}

static void
test_metric_names (void)
{
  g_autoptr (GError) error = NULL;
  CubeReport *r = cube_report_new ();
  CubeCnode *c = cube_report_add_cnode (r, NULL, cube_report_add_region (r, "main", "a.c", 1, 2), -1, NULL);
  g_autoptr (KubusBrowser) b = NULL;
  g_autofree char *text = NULL, *info = NULL;

  cube_report_add_sysnode (r, cube_report_add_sysnode (r, NULL, CUBE_SYS_MACHINE, "M", -1), CUBE_SYS_THREAD, "t", 0);
  /* as kubus-analyze writes them */
  add_metric (r, NULL, "time", "Time", "Total time: sum of (leave - enter) of each visit", c, 3);
  add_metric (r, NULL, "syncs", "MPI synchronizations", "Zero-byte MPI operations", c, 2);
  add_metric (r, NULL, "mpi_latesender", "Late Sender", "A receive waits for a send that has not started", c, 1);
  /* as Scalasca writes its own */
  add_metric (r, NULL, "mpi_latereceiver", "MPI Late Receiver",
              "Time in MPI point-to-point send operation waiting for the receiver to become ready", c, 1);
  /* a known unique name with another text: shown as written */
  add_metric (r, NULL, "comp", "My computation", "Measured by hand", c, 1);
  b = kubus_browser_new (r, NULL, &error);
  g_assert_no_error (error);
  kubus_browser_select_default (b);
  kubus_browser_flush (b);
  text = kubus_pane_model_to_string (kubus_browser_get_pane (b, KUBUS_PANE_METRIC));
  g_assert_cmpstr (text, ==,
                   "Zeit 3.00 *\n"
                   "MPI-Synchronisationen 2.00\n"
                   "Später Sender 1.00\n"
                   "MPI: Später Empfänger 1.00\n"
                   "My computation 1.00\n");
  info = kubus_node_info_markup (r, KUBUS_NODE_METRIC, cube_report_find_metric (r, "time"));
  g_assert_nonnull (strstr (info, "Gesamtzeit: Summe von (Verlassen − Betreten) jedes Besuchs"));
  /* the report itself keeps the English names (comparable with Scalasca's) */
  g_assert_cmpstr (cube_report_find_metric (r, "time")->disp_name, ==, "Time");
  g_assert_cmpstr (kubus_metric_name_for ("comp", "Computation"), ==, "Berechnung");
  g_assert_cmpstr (kubus_metric_description_for ("comp", "Measured by hand"), ==, "Measured by hand");
}

int
main (int argc, char **argv)
{
  const char *root = g_getenv ("KUBUS_BUILD_ROOT");
  g_autofree char *po = root != NULL ? g_build_filename (root, "po", NULL) : NULL;

  g_unsetenv ("LC_ALL");
  g_setenv ("LANGUAGE", "de", TRUE);
  setlocale (LC_ALL, "C.UTF-8");
  if (po == NULL || !g_file_test (po, G_FILE_TEST_IS_DIR))
    {
      g_print ("1..0 # SKIP no build catalogue (KUBUS_BUILD_ROOT/po)\n");
      return 77;
    }
  bindtextdomain (GETTEXT_PACKAGE, po);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gui/l10n/metric-names", test_metric_names);
  return g_test_run ();
}
