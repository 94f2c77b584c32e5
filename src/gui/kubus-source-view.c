/* kubus-source-view.c — see kubus-source-view.h. */
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "kubus-profile.h"
#include "kubus-source-view.h"

#define MAX_SOURCE (16 * 1024 * 1024)   /* larger files are not source code */

gboolean
kubus_source_location (KubusNodeKind  kind,
                       gconstpointer  node,
                       const char   **file,
                       gint64        *line)
{
  const CubeRegion *region = NULL;

  *file = NULL;
  *line = -1;
  switch (kind)
    {
    case KUBUS_NODE_CNODE:
      {
        const CubeCnode *c = node;
        const CubeRegion *caller = c->parent != NULL ? c->parent->callee : NULL;
        const char *mod = c->mod;

        /* The call site: where this call path's call is made. A call path that names no file
         * of its own is called from inside its caller's region, so the caller's file (when the
         * report says where the caller is defined); the callee's file is where the call goes. */
        if (mod == NULL || mod[0] == '\0')
          mod = caller != NULL && caller->begin_line >= 1 ? caller->mod : NULL;
        if (mod != NULL && mod[0] && c->line >= 1)
          {
            *file = mod;
            *line = c->line;
            return TRUE;
          }
        /* Else where its region is defined: analysis reports carry the regions' files and
         * lines where the program has debug information (item 7 of issue 24). */
        region = c->callee;
        break;
      }
    case KUBUS_NODE_FLAT_REGION:
    case KUBUS_NODE_MODULE_REGION:
      region = ((const KubusFlatRegion *) node)->region;
      break;
    case KUBUS_NODE_FLAT_CALLEE:
      region = ((const KubusFlatCallee *) node)->region;
      break;
    default:
      return FALSE;
    }
  /* Else where the region is defined. Without a line the "file" is usually a library's or
   * paradigm's name ("MPI"), not a file to show. */
  if (region == NULL || region->mod == NULL || region->mod[0] == '\0' || region->begin_line < 1)
    return FALSE;
  *file = region->mod;
  *line = region->begin_line;
  return TRUE;
}

static void
add_candidate (GPtrArray  *tried,
               char       *path)
{
  for (guint i = 0; i < tried->len; i++)
    if (g_str_equal (g_ptr_array_index (tried, i), path))
      {
        g_free (path);
        return;
      }
  g_ptr_array_add (tried, path);
}

char *
kubus_source_find (const char  *report_path,
                   const char  *file,
                   GError     **error)
{
  g_autoptr (GPtrArray) tried = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *dir = report_path != NULL ? g_path_get_dirname (report_path) : NULL;
  g_autofree char *list = NULL;
  g_auto (GStrv) parts = NULL;
  guint n_parts;

  g_return_val_if_fail (file != NULL, NULL);
  add_candidate (tried, g_canonicalize_filename (file, NULL));
  /* Reports name files as they were where the program was built (often absolute paths of
   * another machine): look for the path's last parts — "y_solve.f", "BT/y_solve.f", … —
   * next to the report and in the folders above it. */
  parts = g_strsplit (file, G_DIR_SEPARATOR_S, -1);
  n_parts = g_strv_length (parts);
  for (guint keep = 1; dir != NULL && keep <= n_parts && keep <= 4; keep++)
    {
      g_autofree char *tail = g_strjoinv (G_DIR_SEPARATOR_S, parts + n_parts - keep);
      g_autofree char *d = g_canonicalize_filename (dir, NULL);

      if (tail[0] == '\0')
        continue;
      for (int up = 0; up <= 3; up++)
        {
          g_autofree char *parent = NULL;

          add_candidate (tried, g_build_filename (d, tail, NULL));
          parent = g_path_get_dirname (d);
          if (g_str_equal (parent, d))
            break;
          g_free (d);
          d = g_steal_pointer (&parent);
        }
    }
  for (guint i = 0; i < tried->len; i++)
    {
      const char *p = g_ptr_array_index (tried, i);
      if (g_file_test (p, G_FILE_TEST_IS_REGULAR) && g_access (p, R_OK) == 0)
        return g_strdup (p);
    }
  g_ptr_array_add (tried, NULL);
  list = g_strjoinv ("\n", (char **) tried->pdata);
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
               _("The report places this code in “%s”, but no readable file of that name was found. "
                 "Copy the sources next to the report to see them here. Looked for:\n%s"),
               file, list);
  return NULL;
}

typedef struct
{
  GtkWidget *text_view;
  char      *text;       /* what is shown */
  gint64     line;
} SourceView;

static void
source_view_free (gpointer data)
{
  SourceView *sv = data;

  g_free (sv->text);
  g_free (sv);
}

/* Once laid out. Holds no reference: a window closed meanwhile is left alone (a strong one
 * outlived the window's transient parent). */
static gboolean
scroll_to_line (gpointer data)
{
  GWeakRef *ref = data;
  g_autoptr (GtkWidget) view = g_weak_ref_get (ref);

  g_weak_ref_clear (ref);
  g_free (ref);
  if (view != NULL && gtk_widget_get_realized (view))
    {
      SourceView *sv = g_object_get_data (G_OBJECT (view), "kubus-source");
      GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (sv->text_view));
      GtkTextIter iter;

      gtk_text_buffer_get_iter_at_line (buffer, &iter, (int) MAX (sv->line - 1, 0));
      gtk_text_view_scroll_to_iter (GTK_TEXT_VIEW (sv->text_view), &iter, 0.0, TRUE, 0.0, 0.35);
    }
  return G_SOURCE_REMOVE;
}

/* The file with a line-number gutter; @line highlighted. */
static void
fill_buffer (GtkTextBuffer *buffer,
             const char    *contents,
             gint64         line)
{
  GtkTextTag *number = gtk_text_buffer_create_tag (buffer, "number", "foreground", "#888888", NULL);
  GtkTextTag *current = gtk_text_buffer_create_tag (buffer, "current", "paragraph-background", "#fff1a8",
                                                    "weight", PANGO_WEIGHT_BOLD, NULL);
  g_auto (GStrv) lines = g_strsplit (contents, "\n", -1);
  guint n = g_strv_length (lines);
  GtkTextIter end;

  /* A file ending in a newline has no line after it. */
  if (n > 1 && lines[n - 1][0] == '\0')
    n--;
  for (guint i = 0; i < n; i++)
    {
      char gutter[32];

      g_snprintf (gutter, sizeof gutter, "%6u  ", i + 1);
      gtk_text_buffer_get_end_iter (buffer, &end);
      if ((gint64) i + 1 == line)
        {
          GtkTextMark *start = gtk_text_buffer_create_mark (buffer, NULL, &end, TRUE);
          GtkTextIter s;

          gtk_text_buffer_insert_with_tags (buffer, &end, gutter, -1, number, NULL);
          gtk_text_buffer_insert (buffer, &end, lines[i], -1);
          gtk_text_buffer_get_iter_at_mark (buffer, &s, start);
          gtk_text_buffer_apply_tag (buffer, current, &s, &end);
          gtk_text_buffer_delete_mark (buffer, start);
        }
      else
        {
          gtk_text_buffer_insert_with_tags (buffer, &end, gutter, -1, number, NULL);
          gtk_text_buffer_insert (buffer, &end, lines[i], -1);
        }
      gtk_text_buffer_insert (buffer, &end, "\n", 1);
    }
}

GtkWidget *
kubus_source_view_show (GtkWindow  *parent,
                        const char *title,
                        const char *path,
                        gint64      line,
                        const char *message)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *header = gtk_label_new (NULL);
  GtkWidget *scroller = gtk_scrolled_window_new ();
  SourceView *sv = g_new0 (SourceView, 1);
  GtkTextBuffer *buffer;
  g_autofree char *contents = NULL;
  g_autoptr (GError) error = NULL;
  gsize length = 0;

  g_object_set_data_full (G_OBJECT (window), "kubus-source", sv, source_view_free);
  gtk_window_set_title (GTK_WINDOW (window), title);
  gtk_window_set_transient_for (GTK_WINDOW (window), parent);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (window), TRUE);
  gtk_window_set_default_size (GTK_WINDOW (window), 760, 560);
  sv->line = line;
  sv->text_view = gtk_text_view_new ();
  gtk_text_view_set_editable (GTK_TEXT_VIEW (sv->text_view), FALSE);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (sv->text_view), TRUE);
  gtk_text_view_set_cursor_visible (GTK_TEXT_VIEW (sv->text_view), FALSE);
  /* room from the window's edges, as the heading has (issue 24, item 7: the message touched
   * the left edge) */
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (sv->text_view), 12);
  gtk_text_view_set_right_margin (GTK_TEXT_VIEW (sv->text_view), 12);
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (sv->text_view), 6);
  gtk_text_view_set_bottom_margin (GTK_TEXT_VIEW (sv->text_view), 6);
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (sv->text_view));

  if (path != NULL && !g_file_get_contents (path, &contents, &length, &error))
    {
      message = error->message;
      path = NULL;
    }
  else if (path != NULL && length > MAX_SOURCE)
    {
      /* TRANSLATORS: %s is a file name */
      g_autofree char *m = g_strdup_printf (_("%s is too large to be source code."), path);
      g_object_set_data_full (G_OBJECT (window), "kubus-source-message", g_steal_pointer (&m), g_free);
      message = g_object_get_data (G_OBJECT (window), "kubus-source-message");
      path = NULL;
    }
  if (path != NULL)
    {
      g_autofree char *valid = g_utf8_make_valid (contents, (gssize) length);
      g_autofree char *where = line > 0 ? g_strdup_printf (_("%s, line %lld"), path, (long long) line)
                                        : g_strdup (path);

      fill_buffer (buffer, valid, line);
      gtk_label_set_text (GTK_LABEL (header), where);
      {
        GtkTextIter a, b;
        gtk_text_buffer_get_bounds (buffer, &a, &b);
        sv->text = gtk_text_buffer_get_text (buffer, &a, &b, FALSE);
      }
      if (line > 0)
        {
          GWeakRef *ref = g_new0 (GWeakRef, 1);
          g_weak_ref_init (ref, window);
          g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, scroll_to_line, ref, NULL);
        }
    }
  else
    {
      /* Say plainly why there is nothing to show, in the window the user asked for. */
      gtk_label_set_text (GTK_LABEL (header), _("Source not available"));
      gtk_text_buffer_set_text (buffer, message != NULL ? message : "", -1);
      gtk_text_view_set_monospace (GTK_TEXT_VIEW (sv->text_view), FALSE);
      gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (sv->text_view), GTK_WRAP_WORD_CHAR);
      sv->text = g_strdup (message != NULL ? message : "");
      sv->line = 0;
    }
  gtk_label_set_xalign (GTK_LABEL (header), 0);
  gtk_label_set_wrap (GTK_LABEL (header), TRUE);
  gtk_widget_add_css_class (header, "heading");
  gtk_widget_set_margin_start (header, 12);
  gtk_widget_set_margin_end (header, 12);
  gtk_widget_set_margin_top (header, 8);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), sv->text_view);
  gtk_widget_set_vexpand (scroller, TRUE);
  gtk_box_append (GTK_BOX (box), header);
  gtk_box_append (GTK_BOX (box), scroller);
  gtk_window_set_child (GTK_WINDOW (window), box);
  {
    GtkEventController *shortcuts = gtk_shortcut_controller_new ();
    GtkShortcutTrigger *trigger = gtk_alternative_trigger_new (gtk_keyval_trigger_new (GDK_KEY_Escape, 0),
                                                               gtk_keyval_trigger_new (GDK_KEY_w, GDK_CONTROL_MASK));
    gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts),
                                          gtk_shortcut_new (trigger, gtk_named_action_new ("window.close")));
    gtk_widget_add_controller (window, shortcuts);
  }
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

const char *
kubus_source_view_text (GtkWidget *view)
{
  SourceView *sv = g_object_get_data (G_OBJECT (view), "kubus-source");

  return sv != NULL ? sv->text : NULL;
}

gint64
kubus_source_view_line (GtkWidget *view)
{
  SourceView *sv = g_object_get_data (G_OBJECT (view), "kubus-source");

  return sv != NULL ? sv->line : 0;
}
