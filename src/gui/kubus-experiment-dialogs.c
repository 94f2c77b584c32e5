/* kubus-experiment-dialogs.c — see kubus-experiment-dialogs.h.
 *
 * The controls are reachable as object data of the dialog window (for the tests, which fill
 * and press them as a user would): measure: "executable", "arguments", "ranks",
 * "mpirun-options", "folder", "analyze", "run", "message"; simulate: "kind", "region",
 * "factor", "op", "number", "add", "text", "name", "run", "message"; compare: "original",
 * "simulated", "run", "message". */
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "kubus-experiment-dialogs.h"
#include "kubus-experiment-hypothesis.h"
#include "kubus-experiment-tools.h"
#include "kubus-file-chooser.h"

#include <string.h>

/* ---- common -------------------------------------------------------------------------------------- */

typedef void (*PathChosen) (const char *path, gpointer user_data);

typedef struct
{
  PathChosen chosen;
  gpointer   user_data;
} Pending;

static void
on_native_response (GtkNativeDialog *native,
                    int              response,
                    Pending         *pending)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autofree char *path = file ? g_file_get_path (file) : NULL;
      if (path != NULL)
        pending->chosen (path, pending->user_data);
    }
  g_free (pending);
  g_object_unref (native);
}

static void
choose_path (GtkWindow           *parent,
             const char          *title,
             GtkFileChooserAction action,
             const char          *start,
             PathChosen           chosen,
             gpointer             user_data)
{
  GtkFileChooserNative *native = gtk_file_chooser_native_new (title, parent, action, _("_Select"), _("_Cancel"));
  Pending *pending = g_new0 (Pending, 1);

  if (start != NULL && *start != '\0')
    {
      g_autoptr (GFile) f = g_file_new_for_path (start);
      g_autoptr (GFile) dir = g_file_test (start, G_FILE_TEST_IS_DIR) ? g_object_ref (f) : g_file_get_parent (f);
      if (dir != NULL && g_file_query_exists (dir, NULL))
        gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (native), dir, NULL);
    }
  pending->chosen = chosen;
  pending->user_data = user_data;
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  g_signal_connect (native, "response", G_CALLBACK (on_native_response), pending);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

/* A dialog window: header bar with Cancel and a suggested Run button, a grid for the controls
 * and an error line under it. */
static GtkWidget *
dialog_new (GtkWindow  *parent,
            const char *title,
            const char *run_label,
            GtkWidget **grid_out,
            GtkWidget **run_out)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *header = gtk_header_bar_new ();
  GtkWidget *cancel = gtk_button_new_with_mnemonic (_("_Cancel"));
  GtkWidget *run = gtk_button_new_with_mnemonic (run_label);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *grid = gtk_grid_new ();
  GtkWidget *message = gtk_label_new (NULL);

  gtk_window_set_title (GTK_WINDOW (window), title);
  gtk_window_set_transient_for (GTK_WINDOW (window), parent);
  gtk_window_set_modal (GTK_WINDOW (window), TRUE);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (window), TRUE);
  gtk_header_bar_set_show_title_buttons (GTK_HEADER_BAR (header), FALSE);
  gtk_header_bar_pack_start (GTK_HEADER_BAR (header), cancel);
  gtk_header_bar_pack_end (GTK_HEADER_BAR (header), run);
  gtk_widget_add_css_class (run, "suggested-action");
  gtk_window_set_titlebar (GTK_WINDOW (window), header);
  gtk_window_set_default_widget (GTK_WINDOW (window), run);
  g_signal_connect_swapped (cancel, "clicked", G_CALLBACK (gtk_window_destroy), window);
  {
    /* Escape cancels, as in every dialog */
    GtkEventController *keys = gtk_shortcut_controller_new ();
    gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
                                          gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Escape, 0),
                                                            gtk_named_action_new ("window.close")));
    gtk_widget_add_controller (window, keys);
  }

  gtk_widget_set_margin_start (box, 18);
  gtk_widget_set_margin_end (box, 18);
  gtk_widget_set_margin_top (box, 18);
  gtk_widget_set_margin_bottom (box, 18);
  gtk_grid_set_row_spacing (GTK_GRID (grid), 8);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
  gtk_box_append (GTK_BOX (box), grid);
  gtk_label_set_xalign (GTK_LABEL (message), 0);
  gtk_label_set_wrap (GTK_LABEL (message), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (message), 60);
  gtk_label_set_selectable (GTK_LABEL (message), TRUE);
  gtk_widget_add_css_class (message, "error");
  gtk_widget_set_visible (message, FALSE);
  gtk_box_append (GTK_BOX (box), message);
  gtk_window_set_child (GTK_WINDOW (window), box);

  g_object_set_data (G_OBJECT (window), "run", run);
  g_object_set_data (G_OBJECT (window), "message", message);
  g_object_set_data (G_OBJECT (window), "content", box);
  *grid_out = grid;
  *run_out = run;
  return window;
}

static void
show_message (GtkWidget  *window,
              const char *text)
{
  GtkWidget *message = g_object_get_data (G_OBJECT (window), "message");

  gtk_label_set_text (GTK_LABEL (message), text ? text : "");
  gtk_widget_set_visible (message, text != NULL);
}

static void
grid_row (GtkWidget  *grid,
          int         row,
          const char *label,
          GtkWidget  *control,
          GtkWidget  *extra,
          const char *help)
{
  GtkWidget *l = gtk_label_new_with_mnemonic (label);

  gtk_label_set_xalign (GTK_LABEL (l), 1);
  gtk_label_set_mnemonic_widget (GTK_LABEL (l), control);
  gtk_widget_set_hexpand (control, TRUE);
  if (help != NULL)
    gtk_widget_set_tooltip_text (control, help);
  gtk_grid_attach (GTK_GRID (grid), l, 0, row, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), control, 1, row, extra ? 1 : 2, 1);
  if (extra != NULL)
    gtk_grid_attach (GTK_GRID (grid), extra, 2, row, 1, 1);
}

/* The words of a command-line fragment ("a 'b c'" → a, b c); NULL and @error when it does not
 * parse. A blank text is no words. */
static char **
split_words (const char  *text,
             const char  *what,
             GError     **error)
{
  g_autoptr (GError) local = NULL;
  g_autofree char *trimmed = g_strstrip (g_strdup (text != NULL ? text : ""));
  char **v = NULL;

  if (*trimmed == '\0')
    return g_new0 (char *, 1);
  if (!g_shell_parse_argv (trimmed, NULL, &v, &local))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "%s: %s", what, local->message);
      return NULL;
    }
  return v;
}

/* ---- measure ------------------------------------------------------------------------------------- */

typedef struct
{
  GtkApplication *app;
  GtkWidget      *window;
  GtkWidget      *executable;
  GtkWidget      *arguments;
  GtkWidget      *ranks;
  GtkWidget      *options;
  GtkWidget      *folder;
  GtkWidget      *analyze;
  char           *auto_folder;   /* what the folder field was filled with, to follow the executable */
  char           *experiments;   /* the preference */
} Measure;

static void
measure_free (Measure *m)
{
  g_free (m->auto_folder);
  g_free (m->experiments);
  g_free (m);
}

static void
measure_update_folder (Measure *m)
{
  const char *exe = gtk_editable_get_text (GTK_EDITABLE (m->executable));
  const char *cur = gtk_editable_get_text (GTK_EDITABLE (m->folder));
  int ranks = gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (m->ranks));
  g_autofree char *fresh = NULL;

  /* follow the executable and rank count until the user writes a folder of their own */
  if (*cur != '\0' && g_strcmp0 (cur, m->auto_folder) != 0)
    return;
  if (*exe == '\0')
    return;
  fresh = kubus_measure_default_folder (m->experiments, exe, ranks);
  g_free (m->auto_folder);
  m->auto_folder = g_strdup (fresh);
  gtk_editable_set_text (GTK_EDITABLE (m->folder), fresh);
}

static void
on_measure_changed (Measure *m)
{
  gtk_widget_set_sensitive (g_object_get_data (G_OBJECT (m->window), "run"),
                            *gtk_editable_get_text (GTK_EDITABLE (m->executable)) != '\0');
  measure_update_folder (m);
}

static void
on_executable_chosen (const char *path,
                      gpointer    data)
{
  Measure *m = data;
  gtk_editable_set_text (GTK_EDITABLE (m->executable), path);
}

static void
on_choose_executable (Measure *m)
{
  choose_path (GTK_WINDOW (m->window), _("Choose the MPI Program"), GTK_FILE_CHOOSER_ACTION_OPEN,
               gtk_editable_get_text (GTK_EDITABLE (m->executable)), on_executable_chosen, m);
}

static void
on_folder_parent_chosen (const char *path,
                         gpointer    data)
{
  Measure *m = data;
  const char *cur = gtk_editable_get_text (GTK_EDITABLE (m->folder));
  g_autofree char *base = *cur ? g_path_get_basename (cur) : g_strdup ("kubus_experiment");
  g_autofree char *p = g_build_filename (path, base, NULL);

  gtk_editable_set_text (GTK_EDITABLE (m->folder), p);
}

static void
on_choose_folder (Measure *m)
{
  g_autofree char *dir = NULL;
  const char *cur = gtk_editable_get_text (GTK_EDITABLE (m->folder));

  dir = *cur ? g_path_get_dirname (cur) : g_strdup (m->experiments);
  choose_path (GTK_WINDOW (m->window), _("Folder for the Experiment"), GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
               dir, on_folder_parent_chosen, m);
}

static void
measure_activate (Measure  *m,
                  gboolean  replace)
{
  KubusMeasureParams p = { 0 };
  g_autoptr (GError) error = NULL;
  g_autofree char *folder = NULL;

  p.executable = g_strdup (gtk_editable_get_text (GTK_EDITABLE (m->executable)));
  if ((p.arguments = split_words (gtk_editable_get_text (GTK_EDITABLE (m->arguments)), _("Arguments"), &error)) == NULL
      || (p.mpirun_options = split_words (gtk_editable_get_text (GTK_EDITABLE (m->options)),
                                          _("Launcher options"), &error)) == NULL)
    {
      show_message (m->window, error->message);
      kubus_measure_params_clear (&p);
      return;
    }
  p.ranks = gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (m->ranks));
  folder = g_strdup (gtk_editable_get_text (GTK_EDITABLE (m->folder)));
  p.folder = g_canonicalize_filename (g_strstrip (folder), NULL);
  p.analyze = gtk_check_button_get_active (GTK_CHECK_BUTTON (m->analyze));
  p.replace = replace;
  g_action_group_activate_action (G_ACTION_GROUP (m->app), "measure", kubus_measure_params_build (&p));
  kubus_measure_params_clear (&p);
  gtk_window_destroy (GTK_WINDOW (m->window));
}

static void
on_replace_response (GtkDialog *dialog,
                     int        response,
                     Measure   *m)
{
  gtk_window_destroy (GTK_WINDOW (dialog));
  if (response == GTK_RESPONSE_ACCEPT)
    measure_activate (m, TRUE);
}

static void
on_measure_run (Measure *m)
{
  const char *exe = gtk_editable_get_text (GTK_EDITABLE (m->executable));
  g_autofree char *folder = g_strdup (gtk_editable_get_text (GTK_EDITABLE (m->folder)));
  g_autofree char *found = NULL;

  g_strstrip (folder);
  if (*exe == '\0')
    return;
  found = strchr (exe, '/') != NULL ? g_strdup (exe) : g_find_program_in_path (exe);
  if (found == NULL || !g_file_test (found, G_FILE_TEST_IS_EXECUTABLE) || g_file_test (found, G_FILE_TEST_IS_DIR))
    {
      g_autofree char *msg = g_strdup_printf (_("%s is not an executable program."), exe);
      show_message (m->window, msg);
      return;
    }
  if (*folder == '\0')
    {
      show_message (m->window, _("Give the experiment a folder."));
      return;
    }
  if (g_file_test (folder, G_FILE_TEST_EXISTS))
    {
      GtkWidget *ask;

      if (!g_file_test (folder, G_FILE_TEST_IS_DIR))
        {
          g_autofree char *msg = g_strdup_printf (_("%s exists and is not a folder."), folder);
          show_message (m->window, msg);
          return;
        }
      ask = gtk_message_dialog_new (GTK_WINDOW (m->window), GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                    GTK_MESSAGE_QUESTION, GTK_BUTTONS_NONE, _("Replace the experiment?"));
      gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (ask),
                                                _("%s exists. The new measurement replaces it when it ends."),
                                                folder);
      gtk_dialog_add_buttons (GTK_DIALOG (ask), _("_Cancel"), GTK_RESPONSE_CANCEL, _("_Replace"),
                              GTK_RESPONSE_ACCEPT, NULL);
      gtk_widget_add_css_class (gtk_dialog_get_widget_for_response (GTK_DIALOG (ask), GTK_RESPONSE_ACCEPT),
                                "destructive-action");
      g_signal_connect (ask, "response", G_CALLBACK (on_replace_response), m);
      gtk_window_present (GTK_WINDOW (ask));
      return;
    }
  measure_activate (m, FALSE);
}

GtkWindow *
kubus_measure_dialog_show (GtkWindow      *parent,
                           GtkApplication *app)
{
  Measure *m = g_new0 (Measure, 1);
  KubusToolPrefs prefs;
  GtkWidget *grid, *run, *choose_exe, *choose_dir;

  kubus_tool_prefs_load (&prefs);
  m->app = app;
  m->experiments = g_strdup (prefs.experiments_folder);
  m->window = dialog_new (parent, _("Measure an MPI Program"), _("_Measure"), &grid, &run);
  g_object_set_data_full (G_OBJECT (m->window), "kubus-measure", m, (GDestroyNotify) measure_free);

  m->executable = gtk_entry_new ();
  gtk_entry_set_placeholder_text (GTK_ENTRY (m->executable), _("/path/to/program"));
  choose_exe = gtk_button_new_with_mnemonic (_("C_hoose…"));
  g_signal_connect_swapped (choose_exe, "clicked", G_CALLBACK (on_choose_executable), m);
  grid_row (grid, 0, _("_Program"), m->executable, choose_exe, _("The MPI program to run and measure"));

  m->arguments = gtk_entry_new ();
  gtk_entry_set_placeholder_text (GTK_ENTRY (m->arguments), _("as on a command line: quotes keep spaces"));
  grid_row (grid, 1, _("_Arguments"), m->arguments, NULL, _("The program's arguments; no shell runs them"));

  m->ranks = gtk_spin_button_new_with_range (1, 4096, 1);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (m->ranks), prefs.default_ranks);
  gtk_widget_set_halign (m->ranks, GTK_ALIGN_START);
  grid_row (grid, 2, _("_Ranks"), m->ranks, NULL, _("How many MPI processes to start"));

  m->options = gtk_entry_new ();
  {
    g_autofree char *ph = g_strdup_printf (_("after “%s %s”, e.g. --bind-to none"), prefs.mpirun_command,
                                           prefs.mpirun_options);
    gtk_entry_set_placeholder_text (GTK_ENTRY (m->options), ph);
  }
  grid_row (grid, 3, _("_Launcher options"), m->options, NULL,
            _("Extra options for the MPI launcher, after those of the preferences"));

  m->folder = gtk_entry_new ();
  choose_dir = gtk_button_new_with_mnemonic (_("Ch_oose…"));
  g_signal_connect_swapped (choose_dir, "clicked", G_CALLBACK (on_choose_folder), m);
  grid_row (grid, 4, _("_Experiment folder"), m->folder, choose_dir,
            _("Where the trace goes; it appears when the measurement ends"));

  m->analyze = gtk_check_button_new_with_mnemonic (_("Analy_ze the trace when the run ends"));
  gtk_grid_attach (GTK_GRID (grid), m->analyze, 1, 5, 2, 1);

  g_signal_connect_swapped (m->executable, "changed", G_CALLBACK (on_measure_changed), m);
  g_signal_connect_swapped (m->ranks, "value-changed", G_CALLBACK (on_measure_changed), m);
  g_signal_connect_swapped (run, "clicked", G_CALLBACK (on_measure_run), m);
  gtk_widget_set_sensitive (run, FALSE);
  gtk_window_set_default_size (GTK_WINDOW (m->window), 620, -1);

  g_object_set_data (G_OBJECT (m->window), "executable", m->executable);
  g_object_set_data (G_OBJECT (m->window), "arguments", m->arguments);
  g_object_set_data (G_OBJECT (m->window), "ranks", m->ranks);
  g_object_set_data (G_OBJECT (m->window), "mpirun-options", m->options);
  g_object_set_data (G_OBJECT (m->window), "folder", m->folder);
  g_object_set_data (G_OBJECT (m->window), "analyze", m->analyze);
  kubus_tool_prefs_clear (&prefs);
  gtk_window_present (GTK_WINDOW (m->window));
  return GTK_WINDOW (m->window);
}

/* ---- analyze ------------------------------------------------------------------------------------- */

static void
on_analyze_chosen (const char *path,
                   gpointer    data)
{
  g_action_group_activate_action (G_ACTION_GROUP (data), "analyze", g_variant_new_string (path));
}

void
kubus_analyze_dialog_show (GtkWindow      *parent,
                           GtkApplication *app)
{
  KubusToolPrefs prefs;

  kubus_tool_prefs_load (&prefs);
  choose_path (parent, _("Analyze an Experiment Folder"), GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
               prefs.experiments_folder, on_analyze_chosen, app);
  kubus_tool_prefs_clear (&prefs);
}

static void
on_offer_response (GtkDialog *dialog,
                   int        response,
                   gpointer   data)
{
  GtkApplication *app = data;
  const char *folder = g_object_get_data (G_OBJECT (dialog), "folder");

  if (response == GTK_RESPONSE_ACCEPT)
    g_action_group_activate_action (G_ACTION_GROUP (app), "analyze", g_variant_new_string (folder));
  else if (response == KUBUS_OFFER_RESPONSE_PROFILE)
    {
      /* kubus-run's profile (profile.cube), in a window of its own as `kubus FILE` opens it */
      g_autofree char *path = g_build_filename (folder, "profile.cube", NULL);
      g_autoptr (GFile) file = g_file_new_for_path (path);
      g_application_open (G_APPLICATION (app), &file, 1, "");
    }
  gtk_window_destroy (GTK_WINDOW (dialog));
}

void
kubus_offer_analyze (GtkWindow      *parent,
                     GtkApplication *app,
                     const char     *folder)
{
  GtkWidget *dialog = gtk_message_dialog_new (parent, GTK_DIALOG_DESTROY_WITH_PARENT, GTK_MESSAGE_QUESTION,
                                              GTK_BUTTONS_NONE, _("The measurement has ended"));

  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog),
                                            _("The trace is in %s. Analyze it now to find where the program waits?"),
                                            folder);
  g_autofree char *profile = g_build_filename (folder, "profile.cube", NULL);

  gtk_dialog_add_button (GTK_DIALOG (dialog), _("_Not Now"), GTK_RESPONSE_CANCEL);
  /* kubus-run writes a profile with every measurement: it opens at once, without an analysis */
  if (g_file_test (profile, G_FILE_TEST_IS_REGULAR))
    gtk_dialog_add_button (GTK_DIALOG (dialog), _("Open _Profile"), KUBUS_OFFER_RESPONSE_PROFILE);
  gtk_dialog_add_button (GTK_DIALOG (dialog), _("_Analyze"), GTK_RESPONSE_ACCEPT);
  gtk_dialog_set_default_response (GTK_DIALOG (dialog), GTK_RESPONSE_ACCEPT);
  g_object_set_data_full (G_OBJECT (dialog), "folder", g_strdup (folder), g_free);
  gtk_widget_add_css_class (dialog, "kubus-offer-analyze");
  g_signal_connect (dialog, "response", G_CALLBACK (on_offer_response), app);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ---- simulate ------------------------------------------------------------------------------------ */

typedef struct
{
  GtkApplication *app;
  GtkWidget      *window;
  char           *experiment;
  GtkStringList  *user_regions;
  GtkStringList  *all_regions;
  GtkWidget      *kind;
  GtkWidget      *region;
  GtkWidget      *factor;
  GtkWidget      *op;
  GtkWidget      *number;
  GtkWidget      *text;
  GtkWidget      *name;
  GtkWidget      *output;
  GtkWidget      *check;        /* every error of the text, checked as the user types */
  GtkWidget      *run;
  guint           check_id;
} Simulate;

/* The rule kinds in the order of the drop-down. */
static const KubusHypRule rule_kinds[] = {
  KUBUS_HYP_BALANCE, KUBUS_HYP_BALANCE_GLOBALLY, KUBUS_HYP_SCALE,
  KUBUS_HYP_REMOVE_SIZE, KUBUS_HYP_REMOVE_TAG, KUBUS_HYP_REMOVE_IN_REGION,
};

static void
simulate_free (Simulate *s)
{
  g_clear_handle_id (&s->check_id, g_source_remove);
  g_free (s->experiment);
  g_clear_object (&s->user_regions);
  g_clear_object (&s->all_regions);
  g_free (s);
}

static KubusHypRule
current_kind (Simulate *s)
{
  guint i = gtk_drop_down_get_selected (GTK_DROP_DOWN (s->kind));
  return rule_kinds[MIN (i, G_N_ELEMENTS (rule_kinds) - 1)];
}

static void
on_kind_changed (Simulate *s)
{
  KubusHypRule k = current_kind (s);
  gboolean region = k != KUBUS_HYP_REMOVE_SIZE && k != KUBUS_HYP_REMOVE_TAG;
  GListModel *want = G_LIST_MODEL (k == KUBUS_HYP_REMOVE_IN_REGION ? s->all_regions : s->user_regions);

  if (gtk_drop_down_get_model (GTK_DROP_DOWN (s->region)) != want)
    gtk_drop_down_set_model (GTK_DROP_DOWN (s->region), want);
  gtk_widget_set_visible (s->region, region);
  gtk_widget_set_visible (s->factor, k == KUBUS_HYP_SCALE);
  gtk_widget_set_visible (s->op, !region);
  gtk_widget_set_visible (s->number, !region);
}

static void
on_add_rule (Simulate *s)
{
  KubusHypRule k = current_kind (s);
  GtkStringObject *item = gtk_drop_down_get_selected_item (GTK_DROP_DOWN (s->region));
  const char *region = item != NULL ? gtk_string_object_get_string (item) : NULL;
  const char *op = kubus_hypothesis_ops[MIN (gtk_drop_down_get_selected (GTK_DROP_DOWN (s->op)), 4u)];
  g_autoptr (GError) error = NULL;
  g_autofree char *rule = kubus_hypothesis_rule (k, region, gtk_spin_button_get_value (GTK_SPIN_BUTTON (s->factor)),
                                                 op, (gint64) gtk_spin_button_get_value (GTK_SPIN_BUTTON (s->number)),
                                                 &error);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (s->text));
  GtkTextIter end;

  if (rule == NULL)
    {
      show_message (s->window, error->message);
      return;
    }
  show_message (s->window, NULL);
  gtk_text_buffer_get_end_iter (buffer, &end);
  if (!gtk_text_iter_starts_line (&end))
    gtk_text_buffer_insert (buffer, &end, "\n", 1);
  gtk_text_buffer_insert (buffer, &end, rule, -1);
  gtk_text_buffer_insert (buffer, &end, "\n", 1);
}

/* ---- the hypothesis checked as the user types (issue 24, item 15) ---- */

static gboolean
check_hypothesis (gpointer data)
{
  Simulate *s = data;
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (s->text));
  const char *name = gtk_editable_get_text (GTK_EDITABLE (s->name));
  g_autofree char *file = g_strdup_printf ("%s.hyp", *name ? name : "hypothesis");
  g_autofree char *text = NULL;
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autoptr (GArray) mpi = g_array_new (FALSE, FALSE, sizeof (gboolean));
  g_autoptr (GPtrArray) errors = NULL;
  GtkTextIter a, b;
  GString *shown = g_string_new (NULL);
  guint n_all = g_list_model_get_n_items (G_LIST_MODEL (s->all_regions));
  guint n_user = g_list_model_get_n_items (G_LIST_MODEL (s->user_regions));

  s->check_id = 0;
  gtk_text_buffer_get_bounds (buffer, &a, &b);
  text = gtk_text_buffer_get_text (buffer, &a, &b, FALSE);
  gtk_text_buffer_remove_tag_by_name (buffer, "kubus-error", &a, &b);
  /* the open report's regions: the program's own, then the MPI functions */
  for (guint i = 0; i < n_all; i++)
    {
      const char *region = gtk_string_list_get_string (s->all_regions, i);
      gboolean is_mpi = TRUE;

      for (guint k = 0; k < n_user && is_mpi; k++)
        is_mpi = !g_str_equal (region, gtk_string_list_get_string (s->user_regions, k));
      g_ptr_array_add (names, (gpointer) region);
      g_array_append_val (mpi, is_mpi);
    }
  errors = kubus_hypothesis_check (file, text, n_all > 0 ? (const char *const *) names->pdata : NULL,
                                   (const gboolean *) mpi->data, n_all);
  for (guint i = 0; i < errors->len; i++)
    {
      const KubusHypError *e = g_ptr_array_index (errors, i);
      GtkTextIter from, to;

      g_string_append_printf (shown, "%s%s", i > 0 ? "\n" : "", e->message);
      if (e->line > 0)
        {
          gtk_text_buffer_get_iter_at_line (buffer, &from, (int) e->line - 1);
          to = from;
          if (!gtk_text_iter_ends_line (&to))
            gtk_text_iter_forward_to_line_end (&to);
          gtk_text_buffer_apply_tag_by_name (buffer, "kubus-error", &from, &to);
        }
    }
  gtk_label_set_text (GTK_LABEL (s->check), shown->str);
  gtk_widget_set_visible (s->check, shown->len > 0);
  /* kubus-sim would refuse it: say so now, not after the tool has started */
  gtk_widget_set_sensitive (s->run, errors->len == 0);
  g_string_free (shown, TRUE);
  return G_SOURCE_REMOVE;
}

static void
queue_check (Simulate *s)
{
  g_clear_handle_id (&s->check_id, g_source_remove);
  s->check_id = g_timeout_add (250, check_hypothesis, s);
}

static gboolean
valid_name (const char *name)
{
  return *name != '\0' && name[0] != '.' && strchr (name, '/') == NULL && strlen (name) < 200;
}

static void
on_name_changed (Simulate *s)
{
  const char *name = gtk_editable_get_text (GTK_EDITABLE (s->name));
  g_autofree char *hyp = g_strdup_printf ("%s.hyp", name);
  g_autofree char *path = g_build_filename (s->experiment, hyp, NULL);
  g_autofree char *out = kubus_simulate_default_output (s->experiment, path);
  g_autofree char *text = NULL;

  if (!valid_name (name))
    {
      gtk_label_set_text (GTK_LABEL (s->output), "");
      return;
    }
  text = g_strdup_printf (_("Saved as %s; the simulation goes to %s"), path, out);
  gtk_label_set_text (GTK_LABEL (s->output), text);
}

static void
on_simulate_run (Simulate *s)
{
  const char *name = gtk_editable_get_text (GTK_EDITABLE (s->name));
  g_autofree char *hyp = NULL, *path = NULL, *text = NULL;
  g_autoptr (GError) error = NULL;
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (s->text));
  GtkTextIter a, b;

  if (!valid_name (name))
    {
      show_message (s->window, _("Give the hypothesis a name (a file name without “/”)."));
      return;
    }
  hyp = g_strdup_printf ("%s.hyp", name);
  path = g_build_filename (s->experiment, hyp, NULL);
  gtk_text_buffer_get_bounds (buffer, &a, &b);
  text = gtk_text_buffer_get_text (buffer, &a, &b, FALSE);
  if (*text != '\0' && !g_str_has_suffix (text, "\n"))
    {
      char *t = g_strconcat (text, "\n", NULL);
      g_free (text);
      text = t;
    }
  /* saved with the experiment (g_file_set_contents: a temporary file renamed into place) */
  if (!g_file_set_contents (path, text, -1, &error))
    {
      show_message (s->window, error->message);
      return;
    }
  g_action_group_activate_action (G_ACTION_GROUP (s->app), "simulate", g_variant_new ("(sss)", s->experiment, path, ""));
  gtk_window_destroy (GTK_WINDOW (s->window));
}

/* The newest NAME.hyp of the experiment, to start from (NULL if none). */
static char *
newest_hypothesis (const char *experiment)
{
  g_autoptr (GDir) dir = g_dir_open (experiment, 0, NULL);
  const char *n;
  char *best = NULL;
  time_t best_time = 0;

  while (dir != NULL && (n = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *p = NULL;
      GStatBuf st;

      if (!g_str_has_suffix (n, ".hyp") || n[0] == '.')
        continue;
      p = g_build_filename (experiment, n, NULL);
      if (g_stat (p, &st) == 0 && S_ISREG (st.st_mode) && (best == NULL || st.st_mtime > best_time))
        {
          g_free (best);
          best = g_steal_pointer (&p);
          best_time = st.st_mtime;
        }
    }
  return best;
}

GtkWindow *
kubus_simulate_dialog_show (GtkWindow      *parent,
                            GtkApplication *app,
                            const char     *experiment,
                            CubeReport     *report)
{
  Simulate *s = g_new0 (Simulate, 1);
  GtkWidget *grid, *run, *add, *form, *scrolled, *label;
  g_autofree char *title = NULL, *base = g_path_get_basename (experiment), *start = NULL;
  const char *kinds[] = { _("Balance region"), _("Balance region globally"), _("Scale region"),
                          _("Remove messages by size"), _("Remove messages by tag"),
                          _("Remove messages in region"), NULL };

  s->app = app;
  s->experiment = g_canonicalize_filename (experiment, NULL);
  s->user_regions = gtk_string_list_new (NULL);
  s->all_regions = gtk_string_list_new (NULL);
  if (report != NULL)
    {
      g_autoptr (GPtrArray) user = kubus_hypothesis_region_names (report, FALSE);
      g_autoptr (GPtrArray) all = kubus_hypothesis_region_names (report, TRUE);
      for (guint i = 0; i < user->len; i++)
        gtk_string_list_append (s->user_regions, user->pdata[i]);
      for (guint i = 0; i < all->len; i++)
        gtk_string_list_append (s->all_regions, all->pdata[i]);
    }
  title = g_strdup_printf (_("Simulate a Hypothesis on %s"), base);
  s->window = dialog_new (parent, title, _("_Simulate"), &grid, &run);
  g_object_set_data_full (G_OBJECT (s->window), "kubus-simulate", s, (GDestroyNotify) simulate_free);

  /* the rule form: kind, then what that kind needs */
  form = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  s->kind = gtk_drop_down_new_from_strings (kinds);
  s->region = gtk_drop_down_new (G_LIST_MODEL (g_object_ref (s->user_regions)), NULL);
  gtk_drop_down_set_enable_search (GTK_DROP_DOWN (s->region), TRUE);
  gtk_drop_down_set_expression (GTK_DROP_DOWN (s->region),
                                gtk_property_expression_new (GTK_TYPE_STRING_OBJECT, NULL, "string"));
  gtk_widget_set_hexpand (s->region, TRUE);
  s->factor = gtk_spin_button_new_with_range (0, 1000, 0.05);
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (s->factor), 2);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (s->factor), 0.5);
  gtk_widget_set_tooltip_text (s->factor, _("Factor: 0.5 halves the computation in the region, 2 doubles it"));
  s->op = gtk_drop_down_new_from_strings ((const char *const *) kubus_hypothesis_ops);
  gtk_widget_set_tooltip_text (s->op, _("Comparison"));
  s->number = gtk_spin_button_new_with_range (0, (double) G_MAXINT32, 1);
  gtk_widget_set_tooltip_text (s->number, _("Bytes for the size, the tag number for the tag"));
  gtk_widget_set_hexpand (s->number, TRUE);
  add = gtk_button_new_with_mnemonic (_("A_dd Rule"));
  gtk_widget_set_tooltip_text (add, _("Append the rule to the hypothesis below"));
  gtk_box_append (GTK_BOX (form), s->region);
  gtk_box_append (GTK_BOX (form), s->factor);
  gtk_box_append (GTK_BOX (form), s->op);
  gtk_box_append (GTK_BOX (form), s->number);
  gtk_box_append (GTK_BOX (form), add);
  grid_row (grid, 0, _("_Rule"), s->kind, NULL, _("What the hypothesis changes in the trace (docs/hypotheses.md)"));
  gtk_grid_attach (GTK_GRID (grid), form, 1, 1, 2, 1);

  s->text = gtk_text_view_new ();
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (s->text), TRUE);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (s->text), 6);
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (s->text), 6);
  scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), s->text);
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scrolled), 180);
  gtk_widget_add_css_class (scrolled, "frame");
  gtk_widget_set_vexpand (scrolled, TRUE);
  label = gtk_label_new_with_mnemonic (_("_Hypothesis"));
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), s->text);
  gtk_label_set_xalign (GTK_LABEL (label), 1);
  gtk_widget_set_valign (label, GTK_ALIGN_START);
  gtk_grid_attach (GTK_GRID (grid), label, 0, 2, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), scrolled, 1, 2, 2, 1);

  s->name = gtk_entry_new ();
  grid_row (grid, 3, _("_Name"), s->name, NULL, _("The hypothesis file is NAME.hyp in the experiment folder"));
  s->output = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (s->output), 0);
  gtk_label_set_wrap (GTK_LABEL (s->output), TRUE);
  gtk_label_set_selectable (GTK_LABEL (s->output), TRUE);
  gtk_widget_add_css_class (s->output, "dim-label");
  gtk_grid_attach (GTK_GRID (grid), s->output, 1, 4, 2, 1);
  /* every error of the text, with its line, as the user types */
  s->run = run;
  s->check = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (s->check), 0);
  gtk_label_set_wrap (GTK_LABEL (s->check), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (s->check), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (s->check), TRUE);
  gtk_widget_add_css_class (s->check, "error");
  gtk_widget_set_visible (s->check, FALSE);
  gtk_grid_attach (GTK_GRID (grid), s->check, 1, 5, 2, 1);
  gtk_text_buffer_create_tag (gtk_text_view_get_buffer (GTK_TEXT_VIEW (s->text)), "kubus-error",
                              "underline", PANGO_UNDERLINE_ERROR, NULL);

  /* start from the experiment's newest hypothesis, if it has one */
  start = newest_hypothesis (s->experiment);
  if (start != NULL)
    {
      g_autofree char *contents = NULL, *name = g_path_get_basename (start);
      if (g_file_get_contents (start, &contents, NULL, NULL) && g_utf8_validate (contents, -1, NULL))
        gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (s->text)), contents, -1);
      name[strlen (name) - 4] = '\0';
      gtk_editable_set_text (GTK_EDITABLE (s->name), name);
    }
  else
    gtk_editable_set_text (GTK_EDITABLE (s->name), "hypothesis");

  g_signal_connect_swapped (s->kind, "notify::selected", G_CALLBACK (on_kind_changed), s);
  g_signal_connect_swapped (add, "clicked", G_CALLBACK (on_add_rule), s);
  g_signal_connect_swapped (s->name, "changed", G_CALLBACK (on_name_changed), s);
  g_signal_connect_swapped (run, "clicked", G_CALLBACK (on_simulate_run), s);
  g_signal_connect_swapped (gtk_text_view_get_buffer (GTK_TEXT_VIEW (s->text)), "changed", G_CALLBACK (queue_check), s);
  g_signal_connect_swapped (s->name, "changed", G_CALLBACK (queue_check), s);
  on_kind_changed (s);
  on_name_changed (s);
  check_hypothesis (s);
  gtk_window_set_default_size (GTK_WINDOW (s->window), 680, 460);

  g_object_set_data (G_OBJECT (s->window), "kind", s->kind);
  g_object_set_data (G_OBJECT (s->window), "region", s->region);
  g_object_set_data (G_OBJECT (s->window), "factor", s->factor);
  g_object_set_data (G_OBJECT (s->window), "op", s->op);
  g_object_set_data (G_OBJECT (s->window), "number", s->number);
  g_object_set_data (G_OBJECT (s->window), "add", add);
  g_object_set_data (G_OBJECT (s->window), "text", s->text);
  g_object_set_data (G_OBJECT (s->window), "name", s->name);
  g_object_set_data (G_OBJECT (s->window), "check", s->check);
  g_object_set_data (G_OBJECT (s->window), "run", s->run);
  gtk_window_present (GTK_WINDOW (s->window));
  return GTK_WINDOW (s->window);
}

/* ---- compare ------------------------------------------------------------------------------------- */

typedef struct
{
  GtkApplication *app;
  GtkWidget      *window;
  GtkWidget      *original;
  GtkWidget      *simulated;
} Compare;

static void
on_report_chosen (GFile    *file,
                  gpointer  data)
{
  g_autofree char *path = g_file_get_path (file);

  if (path != NULL)
    gtk_editable_set_text (GTK_EDITABLE (data), path);
}

static void
on_choose_original (Compare *c)
{
  kubus_choose_report (GTK_WINDOW (c->window), _("Original Report"), on_report_chosen, c->original);
}

static void
on_choose_simulated (Compare *c)
{
  kubus_choose_report (GTK_WINDOW (c->window), _("Simulated Report"), on_report_chosen, c->simulated);
}

static void
on_compare_run (Compare *c)
{
  const char *a = gtk_editable_get_text (GTK_EDITABLE (c->original));
  const char *b = gtk_editable_get_text (GTK_EDITABLE (c->simulated));

  if (*a == '\0' || *b == '\0')
    {
      show_message (c->window, _("Choose both reports."));
      return;
    }
  g_action_group_activate_action (G_ACTION_GROUP (c->app), "compare", g_variant_new ("(ss)", a, b));
  gtk_window_destroy (GTK_WINDOW (c->window));
}

GtkWindow *
kubus_compare_dialog_show (GtkWindow      *parent,
                           GtkApplication *app,
                           const char     *original,
                           const char     *simulated)
{
  Compare *c = g_new0 (Compare, 1);
  GtkWidget *grid, *run, *ca, *cb;

  c->app = app;
  c->window = dialog_new (parent, _("Compare Original and Simulated Run"), _("C_ompare"), &grid, &run);
  g_object_set_data_full (G_OBJECT (c->window), "kubus-compare", c, g_free);
  c->original = gtk_entry_new ();
  c->simulated = gtk_entry_new ();
  if (original != NULL)
    gtk_editable_set_text (GTK_EDITABLE (c->original), original);
  if (simulated != NULL)
    gtk_editable_set_text (GTK_EDITABLE (c->simulated), simulated);
  ca = gtk_button_new_with_mnemonic (_("C_hoose…"));
  cb = gtk_button_new_with_mnemonic (_("Ch_oose…"));
  g_signal_connect_swapped (ca, "clicked", G_CALLBACK (on_choose_original), c);
  g_signal_connect_swapped (cb, "clicked", G_CALLBACK (on_choose_simulated), c);
  grid_row (grid, 0, _("_Original (A)"), c->original, ca, _("The measured run's report"));
  grid_row (grid, 1, _("_Simulated (B)"), c->simulated, cb, _("The simulated run's report; the view shows A − B"));
  g_signal_connect_swapped (run, "clicked", G_CALLBACK (on_compare_run), c);
  gtk_window_set_default_size (GTK_WINDOW (c->window), 620, -1);
  g_object_set_data (G_OBJECT (c->window), "original", c->original);
  g_object_set_data (G_OBJECT (c->window), "simulated", c->simulated);
  gtk_window_present (GTK_WINDOW (c->window));
  return GTK_WINDOW (c->window);
}
