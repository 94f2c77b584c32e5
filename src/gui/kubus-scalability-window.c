/* kubus-scalability-window.c — see kubus-scalability-window.h.
 *
 * The statistics run in `kubus-cube scaling -o TMP/scaling.cube` (a GSubprocess, so the window
 * never blocks and Cancel stops it); the window then reads that report in a worker thread and
 * shows what it holds. The temporary folder goes away with the window. */
#include "kubus-scalability-window.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <math.h>
#include <signal.h>
#include <string.h>

#include "cube-format.h"
#include "kubus-file-chooser.h"
#include "kubus-scalability-plot.h"

struct _KubusScalabilityWindow
{
  GtkWindow           parent_instance;

  GtkListView        *input_view;
  GtkEntry           *metric_entry;
  GtkSpinner         *spinner;
  GtkLabel           *status_label;
  GtkColumnView      *column_view;
  GtkDrawingArea     *plot;
  GtkSpinButton      *threshold_spin;

  GtkStringList      *inputs;
  GtkSingleSelection *input_selection;
  GtkStringList      *rows;          /* "0", "1", …: positions in result->sites, in display order
                                        (the ranking, negligible callsites last) */
  GtkMultiSelection  *row_selection;
  GArray             *selected;      /* guint positions in result->sites, for the plot */

  KubusScalingResult *result;
  char               *tmpdir;
  char               *report_path;   /* the last result's report, in tmpdir */
  GSubprocess        *process;
  GCancellable       *cancellable;
  gboolean            busy;
  gboolean            disposed;      /* late callbacks find no widgets */
  gboolean            setting_threshold;
};

G_DEFINE_FINAL_TYPE (KubusScalabilityWindow, kubus_scalability_window, GTK_TYPE_WINDOW)

/* ---- state --------------------------------------------------------------------------------- */

static void
set_status (KubusScalabilityWindow *self, const char *text)
{
  gtk_label_set_text (self->status_label, text);
}

static void
update_actions (KubusScalabilityWindow *self)
{
  GtkWidget *w = GTK_WIDGET (self);
  guint n_inputs = g_list_model_get_n_items (G_LIST_MODEL (self->inputs));

  gtk_widget_action_set_enabled (w, "scalability.compute", !self->busy && n_inputs > 0);
  gtk_widget_action_set_enabled (w, "scalability.cancel", self->busy);
  gtk_widget_action_set_enabled (w, "scalability.add-folders", !self->busy);
  gtk_widget_action_set_enabled (w, "scalability.add-reports", !self->busy);
  gtk_widget_action_set_enabled (w, "scalability.remove", !self->busy && n_inputs > 0);
  gtk_widget_action_set_enabled (w, "scalability.clear", !self->busy && n_inputs > 0);
  gtk_widget_action_set_enabled (w, "scalability.export",
                                 self->result != NULL && self->selected->len > 0);
  gtk_widget_action_set_enabled (w, "scalability.open-report",
                                 self->result != NULL && gtk_window_get_application (GTK_WINDOW (self)));
  gtk_spinner_set_spinning (self->spinner, self->busy);
}

static void
update_selected (KubusScalabilityWindow *self)
{
  g_autoptr (GtkBitset) set = gtk_selection_model_get_selection (GTK_SELECTION_MODEL (self->row_selection));
  GtkBitsetIter iter;
  guint pos;

  g_array_set_size (self->selected, 0);
  if (gtk_bitset_iter_init_first (&iter, set, &pos))
    do
      {
        guint64 site;
        if (g_ascii_string_to_unsigned (gtk_string_list_get_string (self->rows, pos), 10, 0, G_MAXUINT,
                                        &site, NULL))
          {
            guint s = (guint) site;
            g_array_append_val (self->selected, s);
          }
      }
    while (gtk_bitset_iter_next (&iter, &pos));
  gtk_widget_queue_draw (GTK_WIDGET (self->plot));
  update_actions (self);
}

static void
on_selection_changed (GtkSelectionModel *model, guint position, guint n, gpointer user_data)
{
  (void) model, (void) position, (void) n;
  update_selected (user_data);
}

/* ---- the table ------------------------------------------------------------------------------ */

typedef enum
{
  COL_RANK,
  COL_CALLSITE,
  COL_RHO,
  COL_P,
  COL_SHARE,   /* + task count index */
} Column;

static void
cell_setup (GtkSignalListItemFactory *f, GtkListItem *item, gpointer data)
{
  GtkWidget *label = gtk_label_new (NULL);
  int column = GPOINTER_TO_INT (data);

  (void) f;
  if (column == COL_CALLSITE)
    {
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_START);
    }
  else
    {
      gtk_label_set_xalign (GTK_LABEL (label), 1);
      gtk_widget_add_css_class (label, "numeric");
    }
  gtk_list_item_set_child (item, label);
}

static void
cell_bind (GtkSignalListItemFactory *f, GtkListItem *item, gpointer data)
{
  KubusScalabilityWindow *self = g_object_get_data (G_OBJECT (f), "window");
  GtkLabel *label = GTK_LABEL (gtk_list_item_get_child (item));
  GtkStringObject *obj = gtk_list_item_get_item (item);
  int column = GPOINTER_TO_INT (data);
  guint64 pos = 0;
  const KubusScalingSite *s;
  g_autofree char *text = NULL;

  if (self->result == NULL
      || !g_ascii_string_to_unsigned (gtk_string_object_get_string (obj), 10, 0,
                                      self->result->sites->len - 1, &pos, NULL))
    return;
  s = g_ptr_array_index (self->result->sites, pos);
  /* negligible callsites (below the threshold at every task count) are listed last, dimmed */
  if (kubus_scaling_site_negligible (self->result, s, gtk_spin_button_get_value (self->threshold_spin) / 100))
    gtk_widget_add_css_class (GTK_WIDGET (label), "dim-label");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (label), "dim-label");
  switch (column)
    {
    case COL_RANK:
      text = g_strdup_printf ("%u", gtk_list_item_get_position (item) + 1);
      break;
    case COL_CALLSITE:
      text = g_strdup (s->name);
      gtk_widget_set_tooltip_text (GTK_WIDGET (label), s->name);
      break;
    case COL_RHO:
      text = s->defined ? g_strdup_printf ("%+.3f", s->rho) : g_strdup (_ ("undefined"));
      break;
    case COL_P:
      text = !s->defined ? g_strdup ("") : s->p_value < 0.001 ? g_strdup ("< 0.001")
                                                              : g_strdup_printf ("%.3f", s->p_value);
      break;
    default:
      {
        /* percent, three significant digits (0.0100, 7.08): "0.0000" said nothing */
        CubeNumberFormat f = { CUBE_NOTATION_READABLE, 2, FALSE, FALSE, 0, 0 };
        double share = s->share[column - COL_SHARE] * 100;
        g_autofree char *exact = cube_format_significant (share, 6);
        g_autofree char *tip = g_strdup_printf (_ ("%s %% of the communication time at %u tasks"), exact,
                                                self->result->counts[column - COL_SHARE]);

        text = cube_format_number (share, &f);
        gtk_widget_set_tooltip_text (GTK_WIDGET (label), tip);
        break;
      }
    }
  gtk_label_set_text (label, text);
}

static void
add_column (KubusScalabilityWindow *self, const char *title, int column, gboolean expand)
{
  GtkListItemFactory *f = gtk_signal_list_item_factory_new ();
  GtkColumnViewColumn *c;

  g_object_set_data (G_OBJECT (f), "window", self);
  g_signal_connect (f, "setup", G_CALLBACK (cell_setup), GINT_TO_POINTER (column));
  g_signal_connect (f, "bind", G_CALLBACK (cell_bind), GINT_TO_POINTER (column));
  c = gtk_column_view_column_new (title, f);
  /* call paths are long: the call path's column takes what the numbers leave (its labels are
   * ellipsized at the start; the tooltip has all), so no column needs horizontal scrolling */
  gtk_column_view_column_set_expand (c, expand);
  gtk_column_view_column_set_resizable (c, TRUE);
  gtk_column_view_append_column (self->column_view, c);
  g_object_unref (c);
}

/* Columns: rank, callsite, rho, p-value, then one share column per task count. */
static void
rebuild_columns (KubusScalabilityWindow *self)
{
  GListModel *cols = gtk_column_view_get_columns (self->column_view);

  while (g_list_model_get_n_items (cols) > 0)
    {
      g_autoptr (GtkColumnViewColumn) c = g_list_model_get_item (cols, 0);
      gtk_column_view_remove_column (self->column_view, c);
    }
  add_column (self, "#", COL_RANK, FALSE);
  add_column (self, _ ("Callsite"), COL_CALLSITE, TRUE);
  add_column (self, "ρ", COL_RHO, FALSE);
  add_column (self, _ ("p-value"), COL_P, FALSE);
  for (guint k = 0; self->result != NULL && k < self->result->n_counts; k++)
    {
      /* TRANSLATORS: column of the share (in percent) at a task count: "% at 64" */
      g_autofree char *title = g_strdup_printf (_ ("%% at %u"), self->result->counts[k]);
      add_column (self, title, COL_SHARE + (int) k, FALSE);
    }
}

static void update_status (KubusScalabilityWindow *self);

/* Row order: the report's ranking, then the callsites negligible under the window's threshold
 * (what matters first; with the report's threshold this is the report's own order). Fills
 * @strings (NULL-terminated) with positions in result->sites. */
static void
rank_rows (KubusScalabilityWindow *self, GPtrArray *strings)
{
  double threshold = gtk_spin_button_get_value (self->threshold_spin) / 100;
  guint n = self->result ? self->result->sites->len : 0;

  for (int negligible = 0; negligible <= 1; negligible++)
    for (guint i = 0; i < n; i++)
      if (kubus_scaling_site_negligible (self->result, g_ptr_array_index (self->result->sites, i), threshold)
          == negligible)
        g_ptr_array_add (strings, g_strdup_printf ("%u", i));
  g_ptr_array_add (strings, NULL);
}

static void
on_threshold_changed (GtkSpinButton *spin, gpointer user_data)
{
  KubusScalabilityWindow *self = user_data;
  g_autoptr (GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) keep = NULL;

  (void) spin;
  if (self->setting_threshold || self->result == NULL)
    return;
  keep = g_array_copy (self->selected);
  rank_rows (self, strings);
  gtk_string_list_splice (self->rows, 0, g_list_model_get_n_items (G_LIST_MODEL (self->rows)),
                          (const char *const *) strings->pdata);
  kubus_scalability_window_select (self, (const guint *) keep->data, keep->len);
  update_status (self);
}

static void
set_result (KubusScalabilityWindow *self, KubusScalingResult *result)
{
  guint n = result ? result->sites->len : 0;
  g_autoptr (GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);

  g_clear_pointer (&self->result, kubus_scaling_result_free);
  self->result = result;
  /* the report's own threshold, until the user picks another */
  if (result != NULL && result->negligible_below > 0)
    {
      self->setting_threshold = TRUE;
      gtk_spin_button_set_value (self->threshold_spin, result->negligible_below * 100);
      self->setting_threshold = FALSE;
    }
  rank_rows (self, strings);
  rebuild_columns (self);
  gtk_string_list_splice (self->rows, 0, g_list_model_get_n_items (G_LIST_MODEL (self->rows)),
                          (const char *const *) strings->pdata);
  /* show the three callsites that correlate most at first */
  gtk_selection_model_unselect_all (GTK_SELECTION_MODEL (self->row_selection));
  if (n > 0)
    gtk_selection_model_select_range (GTK_SELECTION_MODEL (self->row_selection), 0, MIN (n, 3),
                                      TRUE);
  update_selected (self);
}

/* ---- running kubus-cube scaling --------------------------------------------------------------- */

char *
kubus_scalability_find_tool (void)
{
  const char *env = g_getenv ("KUBUS_CUBE_PROGRAM");
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);

  if (env != NULL && *env != '\0')
    return g_strdup (env);
  if (exe != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (exe);
      /* installed: one bindir; build tree: src/gui/kubus and src/core/kubus-cube */
      const char *const rel[] = { "kubus-cube", "../core/kubus-cube" };

      for (guint i = 0; i < G_N_ELEMENTS (rel); i++)
        {
          g_autofree char *p = g_build_filename (dir, rel[i], NULL);
          if (g_file_test (p, G_FILE_TEST_IS_EXECUTABLE) && !g_file_test (p, G_FILE_TEST_IS_DIR))
            return g_steal_pointer (&p);
        }
    }
  return g_find_program_in_path ("kubus-cube");
}

static void
set_busy (KubusScalabilityWindow *self, gboolean busy)
{
  self->busy = busy;
  update_actions (self);
}

/* What the ranking says and what it cannot say: with too few runs no rho is significant (the
 * smallest p-value comes from kubus-cube's report, computed, not guessed). */
static void
update_status (KubusScalabilityWindow *self)
{
  const KubusScalingResult *result = self->result;
  g_autofree char *counts = NULL, *text = NULL;
  GString *s = g_string_new (NULL);
  guint negligible = 0;
  double threshold = gtk_spin_button_get_value (self->threshold_spin);

  if (result == NULL)
    {
      g_string_free (s, TRUE);
      return;
    }
  for (guint k = 0; k < result->n_counts; k++)
    g_string_append_printf (s, "%s%u", k ? ", " : "", result->counts[k]);
  counts = g_string_free (s, FALSE);
  s = g_string_new (NULL);
  g_string_append_printf (s,
                          ngettext ("%u callsite ranked by how its share of “%s” follows the task count (%s); "
                                    "%u runs.",
                                    "%u callsites ranked by how their share of “%s” follows the task count (%s); "
                                    "%u runs.",
                                    result->sites->len),
                          result->sites->len, result->metric, counts, result->runs);
  for (guint i = 0; i < result->sites->len; i++)
    negligible += kubus_scaling_site_negligible (result, g_ptr_array_index (result->sites, i), threshold / 100);
  if (negligible > 0)
    {
      g_string_append_c (s, ' ');
      g_string_append_printf (s, ngettext ("%u callsite stays below %g %% at every task count: listed last.",
                                           "%u callsites stay below %g %% at every task count: listed last.",
                                           negligible),
                              negligible, threshold);
    }
  if (!isnan (result->smallest_p) && result->smallest_p >= 0.05)
    {
      g_string_append_c (s, '\n');
      g_string_append_printf (s, ngettext ("With %u run no ρ can be significant: the smallest p-value any ρ can "
                                           "reach is %.3g. A significant ρ (p < 0.05) needs runs at %u or more "
                                           "different task counts.",
                                           "With %u runs no ρ can be significant: the smallest p-value any ρ can "
                                           "reach is %.3g. A significant ρ (p < 0.05) needs runs at %u or more "
                                           "different task counts.",
                                           result->runs),
                              result->runs, result->smallest_p, result->runs_for_significance);
    }
  text = g_string_free (s, FALSE);
  set_status (self, text);
}

static void
load_in_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  const char *path = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (CubeReport) report = NULL;
  KubusScalingResult *result;

  (void) source;
  report = cube_report_load (path, CUBE_LOAD_EAGER, cancellable, NULL, NULL, &error);
  if (report == NULL || (result = kubus_scaling_result_new (report, &error)) == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, result, (GDestroyNotify) kubus_scaling_result_free);
}

static void
on_loaded (GObject *source, GAsyncResult *res, gpointer data)
{
  KubusScalabilityWindow *self = KUBUS_SCALABILITY_WINDOW (source);
  g_autoptr (GError) error = NULL;
  KubusScalingResult *result = g_task_propagate_pointer (G_TASK (res), &error);

  (void) data;
  if (self->disposed)
    {
      g_clear_pointer (&result, kubus_scaling_result_free);
      return;
    }
  g_clear_object (&self->cancellable);
  set_busy (self, FALSE);
  if (result == NULL)
    {
      set_status (self, error->message);
      return;
    }
  set_result (self, result);
  update_status (self);
}

static void
on_computed (GObject *source, GAsyncResult *res, gpointer data)
{
  g_autoptr (KubusScalabilityWindow) self = data;
  GSubprocess *proc = G_SUBPROCESS (source);
  g_autoptr (GError) error = NULL;
  g_autofree char *err_text = NULL;
  g_autoptr (GTask) task = NULL;

  g_subprocess_communicate_utf8_finish (proc, res, NULL, &err_text, &error);
  if (self->disposed)
    return;
  if (error != NULL)
    {
      g_clear_object (&self->process);
      g_clear_object (&self->cancellable);
      set_busy (self, FALSE);
      set_status (self, g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED)
                            ? _ ("Cancelled.")
                            : error->message);
      return;
    }
  /* communicate returns after the process has exited */
  g_clear_object (&self->process);
  if (!g_subprocess_get_if_exited (proc) || g_subprocess_get_exit_status (proc) != 0)
    {
      const char *msg = err_text ? g_strstrip (err_text) : "";

      g_clear_object (&self->cancellable);
      set_busy (self, FALSE);
      /* kubus-cube's messages are already translated; drop its program prefix */
      if (g_str_has_prefix (msg, "kubus-cube: scaling: "))
        msg += strlen ("kubus-cube: scaling: ");
      else if (g_str_has_prefix (msg, "kubus-cube: "))
        msg += strlen ("kubus-cube: ");
      set_status (self, *msg ? msg : _ ("kubus-cube scaling failed without a message."));
      return;
    }
  set_status (self, _ ("Reading the result…"));
  task = g_task_new (self, self->cancellable, on_loaded, NULL);
  g_task_set_task_data (task, g_strdup (self->report_path), g_free);
  g_task_run_in_thread (task, load_in_thread);
}

void
kubus_scalability_window_compute (KubusScalabilityWindow *self)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *tool = NULL;
  const char *metric;
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->inputs));

  g_return_if_fail (KUBUS_IS_SCALABILITY_WINDOW (self));
  if (self->busy)
    return;
  if (n == 0)
    {
      set_status (self, _ ("Add experiments, folders of experiments or reports first."));
      return;
    }
  if ((tool = kubus_scalability_find_tool ()) == NULL)
    {
      set_status (self, _ ("kubus-cube was not found next to kubus or on the PATH: it computes "
                           "the statistics. Install it, or set KUBUS_CUBE_PROGRAM."));
      return;
    }
  if (self->tmpdir == NULL && (self->tmpdir = g_dir_make_tmp ("kubus-scaling-XXXXXX", &error)) == NULL)
    {
      set_status (self, error->message);
      return;
    }
  g_free (self->report_path);
  self->report_path = g_build_filename (self->tmpdir, "scaling.cube", NULL);
  /* the table, the plot and "Open as Report" never show a result of other inputs */
  g_unlink (self->report_path);
  set_result (self, NULL);

  g_ptr_array_add (argv, g_steal_pointer (&tool));
  g_ptr_array_add (argv, g_strdup ("scaling"));
  g_ptr_array_add (argv, g_strdup ("-o"));
  g_ptr_array_add (argv, g_strdup (self->report_path));
  metric = gtk_editable_get_text (GTK_EDITABLE (self->metric_entry));
  if (metric != NULL && *metric != '\0')
    {
      g_ptr_array_add (argv, g_strdup ("--metric"));
      g_ptr_array_add (argv, g_strstrip (g_strdup (metric)));
    }
  g_ptr_array_add (argv, g_strdup ("--"));
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (argv, g_strdup (gtk_string_list_get_string (self->inputs, i)));
  g_ptr_array_add (argv, NULL);

  self->process = g_subprocess_newv ((const char *const *) argv->pdata,
                                     G_SUBPROCESS_FLAGS_STDOUT_SILENCE
                                         | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                                     &error);
  if (self->process == NULL)
    {
      set_status (self, error->message);
      return;
    }
  self->cancellable = g_cancellable_new ();
  set_busy (self, TRUE);
  set_status (self, _ ("Computing…"));
  g_subprocess_communicate_utf8_async (self->process, NULL, self->cancellable, on_computed,
                                       g_object_ref (self));
}

void
kubus_scalability_window_cancel (KubusScalabilityWindow *self)
{
  g_return_if_fail (KUBUS_IS_SCALABILITY_WINDOW (self));
  /* SIGTERM: kubus-cube removes its half-written output and exits */
  if (self->process != NULL)
    g_subprocess_send_signal (self->process, SIGTERM);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
}

/* ---- inputs --------------------------------------------------------------------------------- */

void
kubus_scalability_window_add_input (KubusScalabilityWindow *self, const char *path)
{
  g_return_if_fail (KUBUS_IS_SCALABILITY_WINDOW (self) && path != NULL);
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (self->inputs)); i++)
    if (g_strcmp0 (gtk_string_list_get_string (self->inputs, i), path) == 0)
      return;
  gtk_string_list_append (self->inputs, path);
  update_actions (self);
}

void
kubus_scalability_window_set_metric (KubusScalabilityWindow *self, const char *metric)
{
  gtk_editable_set_text (GTK_EDITABLE (self->metric_entry), metric ? metric : "");
}

static void
on_inputs_chosen (GtkNativeDialog *dialog, int response, gpointer data)
{
  KubusScalabilityWindow *self = data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GListModel) files = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (dialog));

      for (guint i = 0; i < g_list_model_get_n_items (files); i++)
        {
          g_autoptr (GFile) file = g_list_model_get_item (files, i);
          g_autofree char *path = g_file_get_path (file);
          if (path != NULL)
            kubus_scalability_window_add_input (self, path);
        }
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

static void
choose_inputs (KubusScalabilityWindow *self, gboolean folders)
{
  GtkFileChooserNative *chooser = gtk_file_chooser_native_new (
      folders ? _ ("Add Experiment Folders") : _ ("Add Reports"), GTK_WINDOW (self),
      folders ? GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER : GTK_FILE_CHOOSER_ACTION_OPEN, _ ("_Add"),
      _ ("_Cancel"));

  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (chooser), TRUE);
  if (!folders)
    {
      GtkFileFilter *filter = gtk_file_filter_new ();
      gtk_file_filter_set_name (filter, _ ("CUBE reports"));
      gtk_file_filter_add_pattern (filter, "*.cube");
      gtk_file_filter_add_pattern (filter, "*.cube.gz");
      gtk_file_filter_add_pattern (filter, "*.cubex");
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
      g_object_unref (filter);
    }
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect (chooser, "response", G_CALLBACK (on_inputs_chosen), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

/* ---- actions -------------------------------------------------------------------------------- */

static void
action_add_folders (GtkWidget *w, const char *name, GVariant *p)
{
  (void) name, (void) p;
  choose_inputs (KUBUS_SCALABILITY_WINDOW (w), TRUE);
}

static void
action_add_reports (GtkWidget *w, const char *name, GVariant *p)
{
  (void) name, (void) p;
  choose_inputs (KUBUS_SCALABILITY_WINDOW (w), FALSE);
}

static void
action_remove (GtkWidget *w, const char *name, GVariant *p)
{
  KubusScalabilityWindow *self = KUBUS_SCALABILITY_WINDOW (w);
  guint pos = gtk_single_selection_get_selected (self->input_selection);

  (void) name, (void) p;
  if (pos != GTK_INVALID_LIST_POSITION)
    gtk_string_list_remove (self->inputs, pos);
  update_actions (self);
}

static void
action_clear (GtkWidget *w, const char *name, GVariant *p)
{
  KubusScalabilityWindow *self = KUBUS_SCALABILITY_WINDOW (w);

  (void) name, (void) p;
  gtk_string_list_splice (self->inputs, 0, g_list_model_get_n_items (G_LIST_MODEL (self->inputs)),
                          NULL);
  update_actions (self);
}

static void
action_compute (GtkWidget *w, const char *name, GVariant *p)
{
  (void) name, (void) p;
  kubus_scalability_window_compute (KUBUS_SCALABILITY_WINDOW (w));
}

static void
action_cancel (GtkWidget *w, const char *name, GVariant *p)
{
  (void) name, (void) p;
  kubus_scalability_window_cancel (KUBUS_SCALABILITY_WINDOW (w));
}

static void
on_export_chosen (GtkNativeDialog *dialog, int response, gpointer data)
{
  KubusScalabilityWindow *self = data;

  if (response == GTK_RESPONSE_ACCEPT && self->result != NULL)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = file ? g_file_get_path (file) : NULL;
      g_autoptr (GError) error = NULL;
      KubusPlotFormat format;
      int width = MAX (gtk_widget_get_width (GTK_WIDGET (self->plot)), 640);
      int height = MAX (gtk_widget_get_height (GTK_WIDGET (self->plot)), 480);

      if (path != NULL)
        {
          if (!kubus_plot_format_from_name (path, &format))
            {
              char *png = g_strconcat (path, ".png", NULL);
              g_free (path);
              path = png;
              format = KUBUS_PLOT_PNG;
            }
          if (kubus_scalability_plot_export (path, format, width, height, self->result,
                                             (const guint *) self->selected->data,
                                             self->selected->len, &error))
            {
              g_autofree char *text = g_strdup_printf (_ ("Plot saved as %s."), path);
              set_status (self, text);
            }
          else
            set_status (self, error->message);
        }
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

static void
action_export (GtkWidget *w, const char *name, GVariant *p)
{
  KubusScalabilityWindow *self = KUBUS_SCALABILITY_WINDOW (w);
  GtkFileChooserNative *chooser = gtk_file_chooser_native_new (
      _ ("Export Plot"), GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_SAVE, _ ("_Save"),
      _ ("_Cancel"));
  static const struct
  {
    const char *name;
    const char *pattern;
  } filters[] = { { N_ ("PNG image"), "*.png" }, { N_ ("SVG drawing"), "*.svg" },
                  { N_ ("PDF document"), "*.pdf" } };

  (void) name, (void) p;
  for (guint i = 0; i < G_N_ELEMENTS (filters); i++)
    {
      GtkFileFilter *filter = gtk_file_filter_new ();
      gtk_file_filter_set_name (filter, _ (filters[i].name));
      gtk_file_filter_add_pattern (filter, filters[i].pattern);
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
      g_object_unref (filter);
    }
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), "scalability.png");
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect (chooser, "response", G_CALLBACK (on_export_chosen), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
action_open_report (GtkWidget *w, const char *name, GVariant *p)
{
  KubusScalabilityWindow *self = KUBUS_SCALABILITY_WINDOW (w);
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  g_autofree char *uri = NULL;

  (void) name, (void) p;
  if (app == NULL || self->report_path == NULL)
    return;
  uri = g_filename_to_uri (self->report_path, NULL, NULL);
  if (uri != NULL)
    g_action_group_activate_action (G_ACTION_GROUP (app), "open-uri", g_variant_new_string (uri));
}

/* ---- plot ----------------------------------------------------------------------------------- */

static void
draw_plot (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  KubusScalabilityWindow *self = data;

  (void) area;
  kubus_scalability_plot_draw (cr, width, height, self->result,
                               (const guint *) self->selected->data, self->selected->len);
}

/* ---- input list rows -------------------------------------------------------------------------- */

static void
input_setup (GtkSignalListItemFactory *f, GtkListItem *item, gpointer data)
{
  GtkWidget *label = gtk_label_new (NULL);

  (void) f, (void) data;
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_START);
  gtk_list_item_set_child (item, label);
}

static void
input_bind (GtkSignalListItemFactory *f, GtkListItem *item, gpointer data)
{
  GtkStringObject *obj = gtk_list_item_get_item (item);

  (void) f, (void) data;
  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (item)),
                      gtk_string_object_get_string (obj));
}

/* ---- GObject -------------------------------------------------------------------------------- */

static void
remove_tmpdir (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d != NULL)
    while ((name = g_dir_read_name (d)) != NULL)
      {
        g_autofree char *p = g_build_filename (dir, name, NULL);
        g_unlink (p);
      }
  g_rmdir (dir);
}

static void
kubus_scalability_window_dispose (GObject *object)
{
  KubusScalabilityWindow *self = KUBUS_SCALABILITY_WINDOW (object);

  self->disposed = TRUE;
  kubus_scalability_window_cancel (self);
  g_clear_object (&self->process);
  g_clear_object (&self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), KUBUS_TYPE_SCALABILITY_WINDOW);
  G_OBJECT_CLASS (kubus_scalability_window_parent_class)->dispose (object);
}

static void
kubus_scalability_window_finalize (GObject *object)
{
  KubusScalabilityWindow *self = KUBUS_SCALABILITY_WINDOW (object);

  g_clear_pointer (&self->result, kubus_scaling_result_free);
  g_clear_object (&self->inputs);
  g_clear_object (&self->input_selection);
  g_clear_object (&self->rows);
  g_clear_object (&self->row_selection);
  g_array_unref (self->selected);
  if (self->tmpdir != NULL)
    remove_tmpdir (self->tmpdir);
  g_free (self->tmpdir);
  g_free (self->report_path);
  G_OBJECT_CLASS (kubus_scalability_window_parent_class)->finalize (object);
}

static void
kubus_scalability_window_class_init (KubusScalabilityWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = kubus_scalability_window_dispose;
  object_class->finalize = kubus_scalability_window_finalize;
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/kubus/Kubus/kubus-scalability-window.ui");
  gtk_widget_class_bind_template_child (widget_class, KubusScalabilityWindow, input_view);
  gtk_widget_class_bind_template_child (widget_class, KubusScalabilityWindow, metric_entry);
  gtk_widget_class_bind_template_child (widget_class, KubusScalabilityWindow, spinner);
  gtk_widget_class_bind_template_child (widget_class, KubusScalabilityWindow, status_label);
  gtk_widget_class_bind_template_child (widget_class, KubusScalabilityWindow, column_view);
  gtk_widget_class_bind_template_child (widget_class, KubusScalabilityWindow, plot);
  gtk_widget_class_bind_template_child (widget_class, KubusScalabilityWindow, threshold_spin);
  gtk_widget_class_install_action (widget_class, "scalability.add-folders", NULL, action_add_folders);
  gtk_widget_class_install_action (widget_class, "scalability.add-reports", NULL, action_add_reports);
  gtk_widget_class_install_action (widget_class, "scalability.remove", NULL, action_remove);
  gtk_widget_class_install_action (widget_class, "scalability.clear", NULL, action_clear);
  gtk_widget_class_install_action (widget_class, "scalability.compute", NULL, action_compute);
  gtk_widget_class_install_action (widget_class, "scalability.cancel", NULL, action_cancel);
  gtk_widget_class_install_action (widget_class, "scalability.export", NULL, action_export);
  gtk_widget_class_install_action (widget_class, "scalability.open-report", NULL,
                                   action_open_report);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Return, GDK_CONTROL_MASK,
                                       "scalability.compute", NULL);
}

static void
kubus_scalability_window_init (KubusScalabilityWindow *self)
{
  GtkListItemFactory *f;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->selected = g_array_new (FALSE, FALSE, sizeof (guint));

  self->inputs = gtk_string_list_new (NULL);
  self->input_selection = gtk_single_selection_new (G_LIST_MODEL (g_object_ref (self->inputs)));
  f = gtk_signal_list_item_factory_new ();
  g_signal_connect (f, "setup", G_CALLBACK (input_setup), NULL);
  g_signal_connect (f, "bind", G_CALLBACK (input_bind), NULL);
  gtk_list_view_set_factory (self->input_view, f);
  g_object_unref (f);
  gtk_list_view_set_model (self->input_view, GTK_SELECTION_MODEL (self->input_selection));

  self->rows = gtk_string_list_new (NULL);
  self->row_selection = gtk_multi_selection_new (G_LIST_MODEL (g_object_ref (self->rows)));
  g_signal_connect (self->row_selection, "selection-changed", G_CALLBACK (on_selection_changed),
                    self);
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (self->row_selection));
  rebuild_columns (self);

  gtk_drawing_area_set_draw_func (self->plot, draw_plot, self, NULL);
  g_signal_connect (self->threshold_spin, "value-changed", G_CALLBACK (on_threshold_changed), self);
  set_status (self, _ ("Add runs of one program at three or more task counts, then Compute."));
  update_actions (self);
}

KubusScalabilityWindow *
kubus_scalability_window_new (GtkApplication *app)
{
  return g_object_new (KUBUS_TYPE_SCALABILITY_WINDOW, "application", app, NULL);
}

void
kubus_scalability_show (GtkWindow *parent, GtkApplication *app)
{
  KubusScalabilityWindow *win = kubus_scalability_window_new (app);

  if (parent != NULL)
    gtk_window_set_transient_for (GTK_WINDOW (win), parent);
  gtk_window_present (GTK_WINDOW (win));
}

/* ---- accessors ------------------------------------------------------------------------------ */

gboolean
kubus_scalability_window_is_busy (KubusScalabilityWindow *self)
{
  return self->busy;
}

const char *
kubus_scalability_window_get_status (KubusScalabilityWindow *self)
{
  return gtk_label_get_text (self->status_label);
}

const KubusScalingResult *
kubus_scalability_window_get_result (KubusScalabilityWindow *self)
{
  return self->result;
}

void
kubus_scalability_window_select (KubusScalabilityWindow *self, const guint *rows, guint n_rows)
{
  GtkSelectionModel *model = GTK_SELECTION_MODEL (self->row_selection);

  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->rows));

  gtk_selection_model_unselect_all (model);
  for (guint i = 0; i < n_rows; i++)
    for (guint pos = 0; pos < n; pos++)
      {
        guint64 site;
        if (g_ascii_string_to_unsigned (gtk_string_list_get_string (self->rows, pos), 10, 0, G_MAXUINT, &site, NULL)
            && site == rows[i])
          gtk_selection_model_select_item (model, pos, FALSE);
      }
  update_selected (self);
}

const guint *
kubus_scalability_window_get_selected (KubusScalabilityWindow *self, guint *n_rows)
{
  *n_rows = self->selected->len;
  return (const guint *) self->selected->data;
}

const char *
kubus_scalability_window_get_report_path (KubusScalabilityWindow *self)
{
  return self->result != NULL ? self->report_path : NULL;
}
