/* kubus-application.c — see kubus-application.h. */
#include <glib/gi18n.h>

#include "kubus-application.h"
#include "kubus-cli.h"
#include "kubus-experiment.h"
#include "kubus-file-chooser.h"
#include "kubus-loader.h"
#include "kubus-preferences.h"
#include "kubus-program.h"
#include "kubus-scalability-window.h"
#include "kubus-screenshot.h"
#include "kubus-topology-cli.h"
#include "kubus-window-private.h"

struct _KubusApplication
{
  GtkApplication parent_instance;

  int            exit_status;

  /* what the command line asked for, applied to every window it opens */
  KubusViewOptions *view_options;
  char          *external;

  /* screenshot (batch) mode */
  char          *screenshot;
  guint          ticks;
  guint          timeout_id;
};

G_DEFINE_FINAL_TYPE (KubusApplication, kubus_application, GTK_TYPE_APPLICATION)

/* ---- windows ----------------------------------------------------------------------------- */

/* File › Open and Open Recent show the report in the window they were chosen from, also
 * when it shows a report already (that report stays until the new one has loaded; a failed
 * open leaves it alone): before, every Open made another window (issue 16, defect 8). A new
 * window only when the active one is still loading. */
static KubusWindow *
reusable_window (KubusApplication *self)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (window != NULL && KUBUS_IS_WINDOW (window) && !kubus_window_is_busy (KUBUS_WINDOW (window)))
    return KUBUS_WINDOW (window);
  return NULL;
}

static void
open_file (KubusApplication *self,
           GFile            *file)
{
  KubusWindow *window = reusable_window (self);

  if (window == NULL)
    window = kubus_window_new (GTK_APPLICATION (self));
  kubus_window_open (window, file);
  gtk_window_present (GTK_WINDOW (window));
}

static void
on_open_chosen (GFile    *file,
                gpointer  user_data)
{
  open_file (user_data, file);
}

static void
action_open (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  KubusApplication *self = user_data;

  (void) a, (void) p;
  kubus_choose_report (gtk_application_get_active_window (GTK_APPLICATION (self)),
                       _("Open Report"), on_open_chosen, self);
}

static void
action_open_uri (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  g_autoptr (GFile) file = g_file_new_for_uri (g_variant_get_string (p, NULL));

  (void) a;
  open_file (user_data, file);
}

static void
action_new_window (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  (void) a, (void) p;
  gtk_window_present (GTK_WINDOW (kubus_window_new (GTK_APPLICATION (user_data))));
}

static void
action_quit (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  GList *windows;

  (void) a, (void) p;
  while ((windows = gtk_application_get_windows (GTK_APPLICATION (user_data))) != NULL)
    gtk_window_destroy (windows->data);
}

static void
action_about (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  const char *authors[] = { "The Kubus developers", NULL };

  (void) a, (void) p;
  gtk_show_about_dialog (gtk_application_get_active_window (GTK_APPLICATION (user_data)),
                         "program-name", _("Kubus"),
                         "logo-icon-name", "org.kubus.Kubus",
                         "version", KUBUS_VERSION,
                         "comments", _("Find where MPI programs wait"),
                         "license-type", GTK_LICENSE_GPL_3_0,
                         "authors", authors,
                         "translator-credits", _("translator-credits"),
                         NULL);
}

static void
action_preferences (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  (void) a, (void) p;
  kubus_preferences_show (gtk_application_get_active_window (GTK_APPLICATION (user_data)));
}

static void
action_scalability (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  (void) a, (void) p;
  kubus_scalability_show (gtk_application_get_active_window (GTK_APPLICATION (user_data)),
                          GTK_APPLICATION (user_data));
}

static const GActionEntry app_entries[] = {
  { "open", action_open, NULL, NULL, NULL, { 0 } },
  { "open-uri", action_open_uri, "s", NULL, NULL, { 0 } },
  { "new-window", action_new_window, NULL, NULL, NULL, { 0 } },
  { "quit", action_quit, NULL, NULL, NULL, { 0 } },
  { "about", action_about, NULL, NULL, NULL, { 0 } },
  { "preferences", action_preferences, NULL, NULL, NULL, { 0 } },
  { "scalability", action_scalability, NULL, NULL, NULL, { 0 } },
};

static const struct
{
  const char *action;
  const char *accels[3];
} accels[] = {
  { "app.open", { "<Control>o", NULL } },
  { "app.new-window", { "<Control>n", NULL } },
  { "app.quit", { "<Control>q", NULL } },
  { "app.preferences", { "<Control>comma", NULL } },
  { "win.close", { "<Control>w", NULL } },
  { "win.reload", { "F5", "<Control>r", NULL } },
  { "win.open-external", { "<Control><Shift>o", NULL } },
  { "win.compare", { "<Control>d", NULL } },
  { "win.find", { "<Control>f", NULL } },
  { "win.find-next", { "<Control>g", "F3", NULL } },
  { "win.find-previous", { "<Control><Shift>g", "<Shift>F3", NULL } },
  { "win.expand-largest", { "<Control>l", NULL } },
  { "win.expand-subtree", { "<Control>e", NULL } },
  { "win.collapse-subtree", { "<Control><Shift>e", NULL } },
  { "win.expand-all", { "<Control><Alt>e", NULL } },
  { "win.collapse-all", { "<Control><Alt><Shift>e", NULL } },
  { "win.mode::absolute", { "<Control>1", NULL } },
  { "win.mode::percent-of-total", { "<Control>2", NULL } },
  { "win.mode::percent-of-selection", { "<Control>3", NULL } },
  { "win.mode::peer-percent", { "<Control>4", NULL } },
  { "win.mode::peer-distribution", { "<Control>5", NULL } },
  { "win.mode::external-percent", { "<Control>6", NULL } },
  { "win.call-view::tree", { "<Alt>1", NULL } },
  { "win.call-view::flat", { "<Alt>2", NULL } },
  { "win.call-view::module", { "<Alt>3", NULL } },
  { "win.sort::none", { "<Control><Alt>o", NULL } },
  { "win.sort::value", { "<Control><Alt>v", NULL } },
  { "win.sort::name", { "<Control><Alt>n", NULL } },
  { "win.hide-zero", { "<Control>h", NULL } },
  { "win.hide-below", { "<Control><Shift>h", NULL } },
  { "win.copy-value", { "<Control>c", NULL } },
  { "win.copy-name", { "<Control><Shift>c", NULL } },
  { "win.info", { "<Control>i", NULL } },
  { "win.topology", { "<Control>t", NULL } },
  { "win.next-pane", { "F6", NULL } },
  { "win.previous-pane", { "<Shift>F6", NULL } },
  { "win.export-view", { "<Control><Shift>x", NULL } },
  { "win.export-values", { "<Control><Alt>s", NULL } },
  { "win.statistics", { "<Control>b", NULL } },
  { "win.source", { "<Control>u", NULL } },
  { "win.show-causes", { "<Control>k", NULL } },
  { "win.verify-causes", { "<Control><Shift>k", NULL } },
  { "app.scalability", { "<Control><Shift>s", NULL } },
};

static void
kubus_application_startup (GApplication *app)
{
  g_autoptr (GtkCssProvider) css = gtk_css_provider_new ();

  G_APPLICATION_CLASS (kubus_application_parent_class)->startup (app);
  g_action_map_add_action_entries (G_ACTION_MAP (app), app_entries, G_N_ELEMENTS (app_entries), app);
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (app), accels[i].action, accels[i].accels);
  gtk_css_provider_load_from_resource (css, "/org/kubus/Kubus/style.css");
  gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (css),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  gtk_window_set_default_icon_name ("org.kubus.Kubus");
  kubus_experiment_install (GTK_APPLICATION (app));
}

static void
kubus_application_activate (GApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    window = GTK_WINDOW (kubus_window_new (GTK_APPLICATION (app)));
  gtk_window_present (window);
}

/* Files opened through D-Bus (a file manager launching the DBusActivatable desktop file):
 * each in a window of its own, as from the command line. */
static void
kubus_application_open (GApplication  *app,
                        GFile        **files,
                        int            n_files,
                        const char    *hint)
{
  (void) hint;
  for (int i = 0; i < n_files; i++)
    {
      KubusWindow *window = kubus_window_new (GTK_APPLICATION (app));
      kubus_window_open (window, files[i]);
      gtk_window_present (GTK_WINDOW (window));
    }
}

/* ---- windows the command line opens ----------------------------------------------------------- */

/* Ends the run: @status 1 for a report or picture that failed, 2 for a usage error (an option
 * naming what the report does not have). */
static void
batch_fail (KubusApplication *self,
            const char       *message,
            int               status)
{
  g_printerr ("kubus: %s\n", message);
  self->exit_status = status;
  kubus_load_prefetch_cancel_all ();   /* e.g. the external report, not yet claimed */
  g_clear_handle_id (&self->timeout_id, g_source_remove);
  action_quit (NULL, NULL, self);
}

static gboolean
screenshot_tick (GtkWidget     *widget,
                 GdkFrameClock *clock,
                 gpointer       user_data)
{
  KubusApplication *self = user_data;
  g_autoptr (GError) error = NULL;

  (void) clock;
  /* Let two frames pass so that list views have laid out and bound their rows. */
  if (++self->ticks < 4)
    return G_SOURCE_CONTINUE;
  if (!kubus_screenshot_save (widget, self->screenshot, &error))
    {
      batch_fail (self, error->message, 1);
      return G_SOURCE_REMOVE;
    }
  g_clear_handle_id (&self->timeout_id, g_source_remove);
  action_quit (NULL, NULL, self);
  return G_SOURCE_REMOVE;
}

/* Per window opened from the command line: the view options wait for its report (and the
 * external report, if one was given) to be shown. */
typedef struct
{
  KubusApplication *app;
  gboolean          batch;
  gboolean          external_requested;
} CliWindow;

static void
on_cli_failed (KubusWindow *window,
               const char  *message,
               gpointer     user_data)
{
  CliWindow *cw = user_data;

  /* In a session the window says it itself (error dialog); a screenshot run ends here. */
  if (cw->batch)
    batch_fail (cw->app, message, 1);
  else
    g_signal_handlers_disconnect_by_data (window, cw);
}

static void
on_cli_loaded (KubusWindow *window,
               gpointer     user_data)
{
  CliWindow *cw = user_data;
  KubusApplication *self = cw->app;
  KubusBrowser *browser = kubus_window_get_browser (window);
  g_autoptr (GError) error = NULL;

  if (self->external != NULL && !cw->external_requested)
    {
      g_autoptr (GFile) file = g_file_new_for_commandline_arg (self->external);
      cw->external_requested = TRUE;
      kubus_window_open_external (window, file);
      return;
    }
  if (self->external != NULL && !kubus_browser_has_external (browser))
    {
      batch_fail (self, _("the external report could not be loaded"), 1);
      return;
    }
  if (self->view_options != NULL && !kubus_view_options_apply (self->view_options, window, &error))
    {
      batch_fail (self, error->message, 2);
      return;
    }
  if (!cw->batch)
    {
      /* Once: a reload keeps what the user chose since. */
      g_signal_handlers_disconnect_by_data (window, cw);
      return;
    }
  kubus_browser_flush (browser);
  gtk_widget_add_tick_callback (GTK_WIDGET (window), screenshot_tick, self, NULL);
  gtk_widget_queue_draw (GTK_WIDGET (window));
}

static KubusWindow *
cli_window (KubusApplication *self,
            gboolean          batch,
            int               width,
            int               height)
{
  KubusWindow *window = kubus_window_new (GTK_APPLICATION (self));
  CliWindow *cw = g_new0 (CliWindow, 1);

  cw->app = self;
  cw->batch = batch;
  g_object_set_data_full (G_OBJECT (window), "kubus-cli", cw, g_free);
  kubus_window_set_batch (window, batch);
  if (width > 0)
    gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  g_signal_connect (window, "loaded", G_CALLBACK (on_cli_loaded), cw);
  g_signal_connect (window, "failed", G_CALLBACK (on_cli_failed), cw);
  return window;
}

static gboolean
batch_timeout (gpointer data)
{
  KubusApplication *self = data;

  self->timeout_id = 0;
  batch_fail (self, _("timed out waiting for the window to be drawn"), 1);
  return G_SOURCE_REMOVE;
}

/* ---- command line ------------------------------------------------------------------------- */

static int
usage_error (GApplicationCommandLine *cmdline,
             const char              *message)
{
  g_application_command_line_printerr (cmdline, "kubus: %s\n", message);
  /* Nothing will claim the reports read ahead from the command line. */
  kubus_load_prefetch_cancel_all ();
  return 2;
}

static int
kubus_application_command_line (GApplication            *app,
                                GApplicationCommandLine *cmdline)
{
  KubusApplication *self = KUBUS_APPLICATION (app);
  GVariantDict *dict = g_application_command_line_get_options_dict (cmdline);
  g_autofree const char **files = NULL;
  g_autofree char *size = NULL, *view = NULL;
  g_autoptr (GError) error = NULL;
  guint topology = 0;
  gboolean compare = FALSE;
  int width = -1, height = -1;
  guint n_files = 0;
  KubusWindow *window;

  g_variant_dict_lookup (dict, G_OPTION_REMAINING, "^a&ay", &files);
  n_files = files != NULL ? g_strv_length ((char **) files) : 0;
  g_variant_dict_lookup (dict, "compare", "b", &compare);
  g_variant_dict_lookup (dict, "size", "s", &size);
  g_variant_dict_lookup (dict, "screenshot", "^ay", &self->screenshot);
  g_variant_dict_lookup (dict, "external", "^ay", &self->external);
  g_variant_dict_lookup (dict, "view", "s", &view);

  if (size != NULL && (sscanf (size, "%dx%d", &width, &height) != 2 || width < 200 || height < 150
                       || width > 8000 || height > 8000))
    return usage_error (cmdline, _("--size wants WxH, for example 1200x700"));
  self->view_options = kubus_view_options_new (dict, &error);
  if (self->view_options == NULL)
    return usage_error (cmdline, error->message);
  if (view != NULL && !kubus_topology_parse_view (view, &topology))
    return usage_error (cmdline, _("--view wants topology:N, N counting the report’s topologies from 0"));
  if (compare && n_files != 2)
    return usage_error (cmdline, _("--compare wants two reports: A B (shows A − B)"));
  if (self->screenshot != NULL && n_files == 0)
    return usage_error (cmdline, _("--screenshot wants a report to show"));
  if (self->screenshot != NULL && !compare && n_files != 1)
    return usage_error (cmdline, _("--screenshot shows one report"));
  if (self->screenshot != NULL && !kubus_screenshot_format_known (self->screenshot))
    return usage_error (cmdline, _("--screenshot writes .png, .svg or .pdf files"));

  if (compare || self->screenshot != NULL)
    {
      g_autoptr (GFile) a = g_application_command_line_create_file_for_arg (cmdline, files[0]);
      g_autoptr (GFile) b = compare ? g_application_command_line_create_file_for_arg (cmdline, files[1]) : NULL;

      window = cli_window (self, self->screenshot != NULL, width, height);
      if (view != NULL)   /* kubus_window_topology_update opens that tab */
        g_object_set_data (G_OBJECT (window), "kubus-topology-view", GUINT_TO_POINTER (topology + 1));
      if (self->screenshot != NULL)
        self->timeout_id = g_timeout_add_seconds (120, batch_timeout, self);
      if (compare)
        kubus_window_compare (window, a, b);
      else
        kubus_window_open (window, a);
      gtk_window_present (GTK_WINDOW (window));
      return 0;
    }

  for (guint i = 0; i < n_files; i++)
    {
      g_autoptr (GFile) file = g_application_command_line_create_file_for_arg (cmdline, files[i]);
      window = cli_window (self, FALSE, width, height);
      if (view != NULL)   /* kubus_window_topology_update opens that tab */
        g_object_set_data (G_OBJECT (window), "kubus-topology-view", GUINT_TO_POINTER (topology + 1));
      kubus_window_open (window, file);
      gtk_window_present (GTK_WINDOW (window));
    }
  if (n_files == 0)
    {
      window = kubus_window_new (GTK_APPLICATION (app));
      if (width > 0)
        gtk_window_set_default_size (GTK_WINDOW (window), width, height);
      gtk_window_present (GTK_WINDOW (window));
    }
  return 0;
}

/* Reports named on the command line start loading now, before GApplication::startup runs
 * gtk_init and the window is built, so that start-up overlaps with the read (issue #3: open to
 * first paint; kubus_load_async claims the result). Only existing regular files: anything else
 * takes the ordinary path and its ordinary error message. */
static void
prefetch_reports (GVariantDict *options)
{
  g_autofree const char **files = NULL;
  g_autofree char *external = NULL;
  guint n = 0;

  if (g_variant_dict_lookup (options, G_OPTION_REMAINING, "^a&ay", &files))
    n = g_strv_length ((char **) files);
  for (guint i = 0; i < n; i++)
    if (g_file_test (files[i], G_FILE_TEST_IS_REGULAR))
      kubus_load_prefetch (files[i]);
  /* In screenshot mode the external report is read right after the report is shown: start it
   * too. (Not in a session: if the report fails to open, nobody would claim it, and an
   * unclaimed prefetch keeps its report in memory.) */
  if (n > 0 && g_variant_dict_contains (options, "screenshot")
      && g_variant_dict_lookup (options, "external", "^ay", &external)
      && g_file_test (external, G_FILE_TEST_IS_REGULAR))
    kubus_load_prefetch (external);
}

/* TRUE when another instance owns the application id on the session bus. */
static gboolean
kubus_application_primary_elsewhere (GApplication *app)
{
  g_autoptr (GDBusConnection) bus = NULL;
  g_autoptr (GVariant) reply = NULL;
  gboolean owned = FALSE;

  if (g_application_get_flags (app) & G_APPLICATION_NON_UNIQUE)
    return FALSE;
  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
  if (bus != NULL)
    reply = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                         "NameHasOwner", g_variant_new ("(s)", g_application_get_application_id (app)),
                                         G_VARIANT_TYPE ("(b)"), G_DBUS_CALL_FLAGS_NONE, 2000, NULL, NULL);
  if (reply != NULL)
    g_variant_get (reply, "(b)", &owned);
  return owned;
}

static int
kubus_application_handle_local_options (GApplication *app,
                                        GVariantDict *options)
{
  if (g_variant_dict_contains (options, "version"))
    {
      return kubus_program_print_version ();
    }
  /* A topology screenshot needs no display at all: render it here, before GTK starts. */
  if (g_variant_dict_contains (options, "view") && g_variant_dict_contains (options, "screenshot"))
    return kubus_topology_screenshot_run (options);
  /* A screenshot needs no accessibility bus; without this GTK looks for a session bus to reach
   * AT-SPI and warns on every headless (Xvfb) run. Set before any thread starts (setenv). */
  if (g_variant_dict_contains (options, "screenshot"))
    g_setenv ("GTK_A11Y", "none", FALSE);
  /* One instance per session, as GNOME apps are (issue #12): a report opened while Kubus runs
   * opens in a window of the running instance. A screenshot stays a process of its own. */
  else
    g_application_set_flags (app, g_application_get_flags (app) & ~G_APPLICATION_NON_UNIQUE);
  /* This process only forwards its command line when another instance is primary. */
  if (!kubus_application_primary_elsewhere (app))
    prefetch_reports (options);
  return -1;
}

/* An unknown option or a malformed value is a usage error like any other: "kubus: …" and exit
 * status 2 (man page), where GApplication would print the bare message and exit with 1. */
static gboolean
kubus_application_local_command_line (GApplication *app,
                                      char       ***arguments,
                                      int          *exit_status)
{
  g_autoptr (GError) error = NULL;

  if (!kubus_cli_check_args (*arguments, &error))
    {
      g_printerr ("kubus: %s\n", error->message);
      g_printerr (_("Try “kubus --help” for the options.\n"));
      *exit_status = 2;
      return TRUE;
    }
  return G_APPLICATION_CLASS (kubus_application_parent_class)->local_command_line (app, arguments, exit_status);
}

static void
kubus_application_finalize (GObject *object)
{
  KubusApplication *self = KUBUS_APPLICATION (object);

  g_clear_handle_id (&self->timeout_id, g_source_remove);
  g_free (self->screenshot);
  g_clear_pointer (&self->view_options, kubus_view_options_free);
  g_free (self->external);
  G_OBJECT_CLASS (kubus_application_parent_class)->finalize (object);
}

static void
kubus_application_class_init (KubusApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = kubus_application_finalize;
  app_class->startup = kubus_application_startup;
  app_class->activate = kubus_application_activate;
  app_class->command_line = kubus_application_command_line;
  app_class->handle_local_options = kubus_application_handle_local_options;
  app_class->open = kubus_application_open;
  app_class->local_command_line = kubus_application_local_command_line;
}

static void
kubus_application_init (KubusApplication *self)
{
  g_application_add_main_option_entries (G_APPLICATION (self), kubus_cli_entries ());
  g_application_set_option_context_parameter_string (G_APPLICATION (self), _("[FILE…]"));
  g_application_set_option_context_summary (G_APPLICATION (self),
                                            _("Browse CUBE performance reports (.cube, .cube.gz, .cubex)."));
}

KubusApplication *
kubus_application_new (void)
{
  /* Non-unique as made (tests, embedding: every one its own process); g_application_run()
   * makes it the session's single instance unless it takes a screenshot
   * (handle_local_options). */
  return g_object_new (KUBUS_TYPE_APPLICATION,
                       "application-id", "org.kubus.Kubus",
                       "flags", G_APPLICATION_HANDLES_COMMAND_LINE | G_APPLICATION_HANDLES_OPEN
                                | G_APPLICATION_NON_UNIQUE,
                       "resource-base-path", "/org/kubus/Kubus",
                       NULL);
}

int
kubus_application_get_exit_status (KubusApplication *self)
{
  return self->exit_status;
}
