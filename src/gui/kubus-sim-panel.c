/* kubus-sim-panel.c — see kubus-sim-panel.h. */
#include "kubus-sim-panel.h"

#include <glib/gi18n.h>
#include <math.h>

#include "cube-format.h"
#include "kubus-metric-names.h"

#define SHOWN_CHANGES 5

struct _KubusSimPanel
{
  GtkWidget        parent_instance;

  GtkWidget       *box;
  KubusSimSummary *summary;
};

enum
{
  CHANGE_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (KubusSimPanel, kubus_sim_panel, GTK_TYPE_WIDGET)

static void
kubus_sim_panel_dispose (GObject *object)
{
  KubusSimPanel *self = KUBUS_SIM_PANEL (object);

  g_clear_pointer (&self->box, gtk_widget_unparent);
  g_clear_pointer (&self->summary, kubus_sim_summary_free);
  G_OBJECT_CLASS (kubus_sim_panel_parent_class)->dispose (object);
}

static void
kubus_sim_panel_class_init (KubusSimPanelClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = kubus_sim_panel_dispose;
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "kubus-sim-panel");
  signals[CHANGE_ACTIVATED] = g_signal_new ("change-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                            0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
}

static void
kubus_sim_panel_init (KubusSimPanel *self)
{
  gtk_widget_add_css_class (GTK_WIDGET (self), "view");
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
}

GtkWidget *
kubus_sim_panel_new (void)
{
  return g_object_new (KUBUS_TYPE_SIM_PANEL, NULL);
}

/* Seconds for a person: three significant digits, the same rule as the trees. */
static char *
seconds (double s)
{
  CubeNumberFormat f = { CUBE_NOTATION_READABLE, 2, FALSE, TRUE, 0, 0 };

  return cube_format_number (s, &f);
}

/* A duration for a person, with its unit: seconds down to 10 ms, then milliseconds, then
 * microseconds ("0.241 ms", not "2.41e-04 s"). */
static char *
duration (double s)
{
  double           a = fabs (s);
  g_autofree char *v = NULL;

  if (a >= 0.01 || a == 0 || !isfinite (a))
    {
      v = seconds (s);
      /* TRANSLATORS: a duration in seconds */
      return g_strdup_printf (_("%s s"), v);
    }
  if (a >= 1e-5)
    {
      v = seconds (s * 1e3);
      /* TRANSLATORS: a duration in milliseconds */
      return g_strdup_printf (_("%s ms"), v);
    }
  v = seconds (s * 1e6);
  /* TRANSLATORS: a duration in microseconds */
  return g_strdup_printf (_("%s µs"), v);
}

static GtkWidget *
label (GtkWidget  *box,
       const char *text,
       const char *css)
{
  GtkWidget *l = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (l), 0);
  gtk_label_set_wrap (GTK_LABEL (l), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (l), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (l), TRUE);
  gtk_widget_set_focusable (l, FALSE);
  if (css != NULL)
    gtk_widget_add_css_class (l, css);
  gtk_box_append (GTK_BOX (box), l);
  return l;
}

/* "3.13 s → 2.98 s: 0.148 s faster (−4.74 %)" */
static char *
runtime_text (const KubusSimSummary *s)
{
  g_autofree char *from = seconds (s->original_s);
  g_autofree char *to = seconds (s->predicted_s);
  g_autofree char *by = duration (fabs (s->change_s));
  g_autofree char *pct = isnan (s->change_percent) ? NULL : seconds (fabs (s->change_percent));

  if (s->change_s < 0)
    return pct != NULL
      /* TRANSLATORS: run times of a simulation: "3.13 s → 2.98 s: 0.148 s faster (−4.74 %)" */
      ? g_strdup_printf (_("Run time %s s → %s s: %s faster (−%s %%)"), from, to, by, pct)
      : g_strdup_printf (_("Run time %s s → %s s: %s faster"), from, to, by);
  if (s->change_s > 0)
    return pct != NULL
      /* TRANSLATORS: run times of a simulation: "3.13 s → 3.31 s: 0.180 s slower (+5.75 %)" */
      ? g_strdup_printf (_("Run time %s s → %s s: %s slower (+%s %%)"), from, to, by, pct)
      : g_strdup_printf (_("Run time %s s → %s s: %s slower"), from, to, by);
  return g_strdup_printf (_("Run time %s s → %s s: unchanged"), from, to);
}

/* Whether the predicted change is more than the simulator's own error on this run. */
static char *
identity_text (const KubusSimSummary *s)
{
  /* the error bar's size: "±14.37 %" where the identity ran 14.37 % short (its sign is in the
   * identity advice below, and in summary.json) */
  g_autofree char *err = isnan (s->identity_error_percent) ? NULL : seconds (fabs (s->identity_error_percent));
  const char *mode = s->identity_mode != NULL ? s->identity_mode : "";

  if (err == NULL)
    return g_strdup (_("Identity error unknown: simulate the identity hypothesis (no rules) to know how "
                       "closely the simulator reproduces this run."));
  switch (s->significant)
    {
    case KUBUS_SIM_SIGNIFICANT:
      /* TRANSLATORS: "±1.20 %", then the simulation mode ("real-time", "offline") */
      return g_strdup_printf (_("Significant: the change is larger than the simulator's identity error "
                                "(±%s %% %s)."), err, mode);
    case KUBUS_SIM_NOT_SIGNIFICANT:
      return g_strdup_printf (_("Not significant: the change is within the simulator's identity error "
                                "(±%s %% %s)."), err, mode);
    case KUBUS_SIM_SIGNIFICANCE_UNKNOWN:
    default:
      return g_strdup_printf (_("The simulator's identity error on this run: ±%s %% %s."), err, mode);
    }
}

/* "exchange_halo > MPI_Waitall": the last two steps of a call path; the tooltip has all. */
static char *
short_path (const char *path)
{
  g_auto (GStrv) parts = g_strsplit (path, " > ", -1);
  guint n = g_strv_length (parts);

  if (n <= 2)
    return g_strdup (path);
  return g_strdup_printf ("… > %s > %s", parts[n - 2], parts[n - 1]);
}

static void
on_change_clicked (GtkButton *button,
                   gpointer   user_data)
{
  KubusSimPanel *self = user_data;
  const KubusSimChange *c = g_object_get_data (G_OBJECT (button), "kubus-change");

  if (c != NULL)
    g_signal_emit (self, signals[CHANGE_ACTIVATED], 0, c->metric, c->call_path);
}

static void
add_changes (KubusSimPanel *self,
             GtkWidget     *column,
             GPtrArray     *changes,
             const char    *title,
             const char    *none)
{
  label (column, title, "heading");
  if (changes->len == 0)
    label (column, none, "dim-label");
  for (guint i = 0; i < changes->len && i < SHOWN_CHANGES; i++)
    {
      const KubusSimChange *c = g_ptr_array_index (changes, i);
      g_autofree char *amount = duration (fabs (c->seconds));
      g_autofree char *where = short_path (c->call_path);
      const char *metric = kubus_metric_name_for (c->metric, c->metric_name);
      /* TRANSLATORS: a gain or loss of a simulation: "0.379 s  Late Sender at … > MPI_Waitall"
         (the first %s is a duration with its unit) */
      g_autofree char *text = g_strdup_printf (_("%s  %s at %s"), amount, metric, where);
      GtkWidget *button = gtk_button_new_with_label (text);
      GtkWidget *child = gtk_button_get_child (GTK_BUTTON (button));
      g_autofree char *tip = g_strdup_printf (_("%s at %s — select it in the trees"), metric, c->call_path);

      gtk_label_set_xalign (GTK_LABEL (child), 0);
      gtk_label_set_ellipsize (GTK_LABEL (child), PANGO_ELLIPSIZE_END);
      gtk_widget_add_css_class (button, "flat");
      gtk_widget_add_css_class (button, "kubus-sim-change");
      gtk_widget_set_tooltip_text (button, tip);
      g_object_set_data (G_OBJECT (button), "kubus-change", (gpointer) c);
      g_signal_connect (button, "clicked", G_CALLBACK (on_change_clicked), self);
      gtk_box_append (GTK_BOX (column), button);
    }
}

static GtkWidget *
column (GtkWidget *row,
        int        width)
{
  GtkWidget *c = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);

  gtk_widget_set_hexpand (c, TRUE);
  gtk_widget_set_size_request (c, width, -1);
  gtk_box_append (GTK_BOX (row), c);
  return c;
}

/* A note of kubus-sim longer than this many characters shows its first lines, and a button
 * shows the rest: the note on shared cores is some 1,400 characters of figures and filled
 * half the window above the trees (the identity's advice, up to some 400, stays whole). */
#define NOTE_SHORT_CHARS 600
#define NOTE_SHORT_LINES 3

static void
set_note_short (GtkLabel  *note,
                GtkButton *more,
                gboolean   is_short)
{
  gtk_label_set_ellipsize (note, is_short ? PANGO_ELLIPSIZE_END : PANGO_ELLIPSIZE_NONE);
  gtk_label_set_lines (note, is_short ? NOTE_SHORT_LINES : -1);
  /* TRANSLATORS: a button under a long note of the simulator: show all of it, or its first lines again */
  gtk_button_set_label (more, is_short ? _("Show the whole note") : _("Show less of the note"));
}

static void
on_note_more_clicked (GtkButton *button,
                      gpointer   user_data)
{
  GtkLabel *note = GTK_LABEL (user_data);
  set_note_short (note, button, gtk_label_get_lines (note) < 0);
}

/* a note of kubus-sim, its first lines where it is long (the whole text stays the label's) */
static void
note (GtkWidget  *box,
      const char *text)
{
  GtkWidget *l = label (box, text, "warning");
  GtkWidget *more;

  if (g_utf8_strlen (text, -1) <= NOTE_SHORT_CHARS)
    return;
  /* no mnemonic: two long notes would share it (Tab reaches the button) */
  more = gtk_button_new ();
  gtk_widget_add_css_class (more, "flat");
  gtk_widget_set_halign (more, GTK_ALIGN_START);
  gtk_widget_set_name (more, "sim-note-more");
  set_note_short (GTK_LABEL (l), GTK_BUTTON (more), TRUE);
  g_signal_connect (more, "clicked", G_CALLBACK (on_note_more_clicked), l);
  gtk_box_append (GTK_BOX (box), more);
}

static void
on_hide_clicked (GtkButton *button,
                 gpointer   user_data)
{
  (void) button;
  gtk_widget_set_visible (GTK_WIDGET (user_data), FALSE);
}

void
kubus_sim_panel_set_summary (KubusSimPanel   *self,
                             KubusSimSummary *summary)
{
  GtkWidget *row, *left, *gains, *losses;
  g_autofree char *rules = NULL, *title = NULL, *runtime = NULL, *identity = NULL;

  g_clear_pointer (&self->box, gtk_widget_unparent);
  g_clear_pointer (&self->summary, kubus_sim_summary_free);
  self->summary = summary;
  gtk_widget_set_visible (GTK_WIDGET (self), summary != NULL);
  if (summary == NULL)
    return;

  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_widget_set_margin_start (self->box, 12);
  gtk_widget_set_margin_end (self->box, 12);
  gtk_widget_set_margin_top (self->box, 6);
  gtk_widget_set_margin_bottom (self->box, 6);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));

  rules = kubus_sim_summary_rules_text (summary);
  /* TRANSLATORS: heading of the simulation result: "Simulated: balance region compute" */
  title = g_strdup_printf (_("Simulated: %s"), rules);
  {
    GtkWidget *top = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
    GtkWidget *hide = gtk_button_new_from_icon_name ("window-close-symbolic");

    gtk_box_append (GTK_BOX (self->box), top);
    gtk_widget_set_hexpand (label (top, title, "title-4"), TRUE);
    gtk_widget_add_css_class (hide, "flat");
    gtk_widget_set_tooltip_text (hide, _("Hide the simulation result"));
    gtk_widget_set_valign (hide, GTK_ALIGN_START);
    g_signal_connect (hide, "clicked", G_CALLBACK (on_hide_clicked), self);
    gtk_box_append (GTK_BOX (top), hide);
  }
  row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 24);
  gtk_box_append (GTK_BOX (self->box), row);
  left = column (row, 360);
  runtime = runtime_text (summary);
  label (left, runtime, "heading");
  identity = identity_text (summary);
  label (left, identity, NULL);
  /* what kubus-sim said about this mode on this trace (another mode may reproduce it better) */
  for (guint i = 0; i < summary->advice->len; i++)
    note (left, g_ptr_array_index (summary->advice, i));
  if (summary->hypothesis != NULL)
    {
      g_autofree char *hyp = g_strdup_printf (_("Hypothesis file: %s (%s)"), summary->hypothesis,
                                              summary->mode != NULL ? summary->mode : "?");
      label (left, hyp, "dim-label");
    }
  if (summary->approximations->len > 0)
    {
      g_autofree char *joined = NULL;
      g_autofree char *text = NULL;

      g_ptr_array_add (summary->approximations, NULL);
      joined = g_strjoinv ("; ", (char **) summary->approximations->pdata);
      g_ptr_array_remove_index (summary->approximations, summary->approximations->len - 1);
      text = g_strdup_printf (_("Approximations: %s."), joined);
      label (left, text, "dim-label");
    }
  else
    label (left, _("Approximations: none."), "dim-label");
  gains = column (row, 240);
  add_changes (self, gains, summary->gains, _("Largest gains (time saved)"), _("none"));
  losses = column (row, 240);
  add_changes (self, losses, summary->losses, _("Largest losses (time added)"), _("none"));
}

const KubusSimSummary *
kubus_sim_panel_get_summary (KubusSimPanel *self)
{
  return self->summary;
}

static void
collect_text (GtkWidget *w,
              GString   *s)
{
  if (GTK_IS_LABEL (w))
    g_string_append_printf (s, "%s\n", gtk_label_get_text (GTK_LABEL (w)));
  for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL; c = gtk_widget_get_next_sibling (c))
    collect_text (c, s);
}

char *
kubus_sim_panel_get_text (KubusSimPanel *self)
{
  GString *s = g_string_new (NULL);

  if (self->box != NULL)
    collect_text (self->box, s);
  return g_string_free (s, FALSE);
}
