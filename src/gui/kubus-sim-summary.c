/* kubus-sim-summary.c — see kubus-sim-summary.h. */
#include "kubus-sim-summary.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>
#include <math.h>

static void
change_free (KubusSimChange *c)
{
  g_free (c->metric);
  g_free (c->metric_name);
  g_free (c->call_path);
  g_free (c);
}

void
kubus_sim_summary_free (KubusSimSummary *s)
{
  if (s == NULL)
    return;
  g_free (s->path);
  g_free (s->folder);
  g_free (s->hypothesis);
  g_strfreev (s->rules);
  g_free (s->mode);
  g_free (s->identity_mode);
  g_clear_pointer (&s->gains, g_ptr_array_unref);
  g_clear_pointer (&s->losses, g_ptr_array_unref);
  g_clear_pointer (&s->approximations, g_ptr_array_unref);
  g_clear_pointer (&s->advice, g_ptr_array_unref);
  g_free (s);
}

static gboolean
bad (GError    **error,
     const char *path,
     const char *what)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               _("%s: not a summary of kubus-sim: %s"), path, what);
  return FALSE;
}

/* A number member; NaN when absent or null. FALSE when it is there but not a number. */
static gboolean
get_number (JsonObject *o,
            const char *name,
            double     *out)
{
  JsonNode *n = json_object_get_member (o, name);

  *out = NAN;
  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (n))
    return FALSE;
  switch (json_node_get_value_type (n))
    {
    case G_TYPE_DOUBLE:
    case G_TYPE_INT64:
      *out = json_node_get_double (n);
      return isfinite (*out);
    default:
      return FALSE;
    }
}

/* A string member (new string); NULL when absent or null. FALSE when it is not a string. */
static gboolean
get_string (JsonObject *o,
            const char *name,
            char      **out)
{
  JsonNode *n = json_object_get_member (o, name);

  *out = NULL;
  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return FALSE;
  *out = g_utf8_make_valid (json_node_get_string (n), -1);
  return TRUE;
}

static gboolean
get_count (JsonNode *n,
           gint64   *out)
{
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64)
    return FALSE;
  *out = json_node_get_int (n);
  return *out >= 0;
}

static gboolean
read_changes (JsonObject *root,
              const char *name,
              GPtrArray  *out,
              const char *path,
              GError    **error)
{
  JsonNode *n = json_object_get_member (root, name);
  JsonArray *a;

  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (n))
    return bad (error, path, name);
  a = json_node_get_array (n);
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      KubusSimChange *c;
      JsonObject *o;

      if (!JSON_NODE_HOLDS_OBJECT (e))
        return bad (error, path, name);
      o = json_node_get_object (e);
      c = g_new0 (KubusSimChange, 1);
      g_ptr_array_add (out, c);
      if (!get_string (o, "metric", &c->metric) || !get_string (o, "metric_name", &c->metric_name)
          || !get_string (o, "call_path", &c->call_path) || !get_number (o, "seconds", &c->seconds)
          || c->metric == NULL || c->call_path == NULL || isnan (c->seconds))
        return bad (error, path, name);
    }
  return TRUE;
}

/* name → count objects ("approximated", "substitutions", "dropped_events") as lines. */
static gboolean
read_counts (JsonObject *root,
             const char *name,
             const char *format,
             GPtrArray  *out,
             const char *path,
             GError    **error)
{
  JsonNode *n = json_object_get_member (root, name);
  JsonObject *o;
  g_autoptr (GList) members = NULL;

  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (n))
    return bad (error, path, name);
  o = json_node_get_object (n);
  members = json_object_get_members (o);
  members = g_list_sort (members, (GCompareFunc) g_strcmp0);
  for (GList *l = members; l != NULL; l = l->next)
    {
      gint64 count;
      g_autofree char *what = g_utf8_make_valid (l->data, -1);

      if (!get_count (json_object_get_member (o, l->data), &count))
        return bad (error, path, name);
      g_ptr_array_add (out, g_strdup_printf (format, what, (long long) count));
    }
  return TRUE;
}

KubusSimSummary *
kubus_sim_summary_load (const char  *path,
                        GError     **error)
{
  g_autofree char *data = NULL;
  gsize length = 0;

  if (!g_file_get_contents (path, &data, &length, error))
    return NULL;
  return kubus_sim_summary_parse (data, length, path, error);
}

KubusSimSummary *
kubus_sim_summary_parse (const char  *data,
                         gsize        length,
                         const char  *path,
                         GError     **error)
{
  g_autoptr (JsonParser) parser = json_parser_new_immutable ();
  g_autoptr (KubusSimSummary) s = g_new0 (KubusSimSummary, 1);
  g_autoptr (GError) local = NULL;
  g_autoptr (GPtrArray) rules = g_ptr_array_new_with_free_func (g_free);
  JsonObject *root;
  JsonNode *n;
  double removed = NAN, messages = NAN;

  if (length > G_MAXSSIZE || !json_parser_load_from_data (parser, data, (gssize) length, &local))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: %s", path, local->message);
      return NULL;
    }
  if (json_parser_get_root (parser) == NULL || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    return bad (error, path, _("no object at the top")), NULL;
  root = json_node_get_object (json_parser_get_root (parser));
  s->path = g_strdup (path);
  s->folder = g_path_get_dirname (path);
  s->gains = g_ptr_array_new_with_free_func ((GDestroyNotify) change_free);
  s->losses = g_ptr_array_new_with_free_func ((GDestroyNotify) change_free);
  s->approximations = g_ptr_array_new_with_free_func (g_free);
  s->advice = g_ptr_array_new_with_free_func (g_free);
  if (!get_string (root, "hypothesis", &s->hypothesis) || !get_string (root, "mode", &s->mode)
      || !get_string (root, "identity_mode", &s->identity_mode))
    return bad (error, path, _("a name that is not a string")), NULL;
  for (guint i = 0; i < 2; i++)
    {
      char *text = NULL;
      if (!get_string (root, i == 0 ? "mode_advice" : "identity_advice", &text))
        return bad (error, path, _("a name that is not a string")), NULL;
      if (text != NULL)
        g_ptr_array_add (s->advice, text);
    }
  if (!get_number (root, "original_runtime_s", &s->original_s)
      || !get_number (root, "predicted_runtime_s", &s->predicted_s)
      || !get_number (root, "change_s", &s->change_s)
      || !get_number (root, "change_percent", &s->change_percent)
      || !get_number (root, "identity_error_percent", &s->identity_error_percent)
      || !get_number (root, "removed_messages", &removed) || !get_number (root, "messages", &messages))
    return bad (error, path, _("a run time or count that is not a number")), NULL;
  /* every summary has the two run times: without them it says nothing */
  if (isnan (s->original_s) || isnan (s->predicted_s))
    return bad (error, path, _("no original and predicted run time")), NULL;
  {
    /* the headline is the run time after MPI_Init (change_s and change_percent are of it),
     * not the whole run with the launch, when the summary has it */
    double after_o, after_p;
    if (!get_number (root, "original_runtime_after_init_s", &after_o)
        || !get_number (root, "predicted_runtime_after_init_s", &after_p))
      return bad (error, path, _("a run time or count that is not a number")), NULL;
    if (!isnan (after_o) && !isnan (after_p))
      {
        s->original_s = after_o;
        s->predicted_s = after_p;
      }
  }
  if (isnan (s->change_s))
    s->change_s = s->predicted_s - s->original_s;
  if (isnan (s->change_percent) && s->original_s > 0)
    s->change_percent = 100.0 * s->change_s / s->original_s;
  s->removed_messages = isnan (removed) || removed < 0 ? 0 : (guint64) removed;
  s->messages = isnan (messages) || messages < 0 ? 0 : (guint64) messages;
  n = json_object_get_member (root, "significant");
  if (n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_BOOLEAN)
    s->significant = json_node_get_boolean (n) ? KUBUS_SIM_SIGNIFICANT : KUBUS_SIM_NOT_SIGNIFICANT;
  else if (n != NULL && !JSON_NODE_HOLDS_NULL (n))
    return bad (error, path, "significant"), NULL;
  n = json_object_get_member (root, "rules");
  if (n != NULL && JSON_NODE_HOLDS_ARRAY (n))
    {
      JsonArray *a = json_node_get_array (n);
      for (guint i = 0; i < json_array_get_length (a); i++)
        {
          JsonNode *e = json_array_get_element (a, i);
          if (!JSON_NODE_HOLDS_VALUE (e) || json_node_get_value_type (e) != G_TYPE_STRING)
            return bad (error, path, "rules"), NULL;
          g_ptr_array_add (rules, g_utf8_make_valid (json_node_get_string (e), -1));
        }
    }
  else if (n != NULL && !JSON_NODE_HOLDS_NULL (n))
    return bad (error, path, "rules"), NULL;
  g_ptr_array_add (rules, NULL);
  s->rules = (GStrv) g_ptr_array_steal (rules, NULL);
  if (!read_changes (root, "gains", s->gains, path, error) || !read_changes (root, "losses", s->losses, path, error)
      /* TRANSLATORS: an MPI call the simulator re-enacted by its recorded duration: "MPI_Ibarrier: 4 calls" */
      || !read_counts (root, "approximated", _("%s: %lld calls re-enacted by their recorded duration"),
                       s->approximations, path, error)
      /* TRANSLATORS: "MPI_Rsend re-enacted as MPI_Send: 3 times" */
      || !read_counts (root, "substitutions", _("%s: %lld times"), s->approximations, path, error)
      /* TRANSLATORS: events of the trace the simulator left out: "MPI_Win_fence: 8 events dropped" */
      || !read_counts (root, "dropped_events", _("%s: %lld events dropped"), s->approximations, path, error))
    return NULL;
  n = json_object_get_member (root, "clock_repair");
  if (n != NULL && JSON_NODE_HOLDS_OBJECT (n))
    {
      JsonObject *o = json_node_get_object (n);
      gint64 corrections = 0;
      double largest = NAN;

      if (json_object_has_member (o, "corrections") && !get_count (json_object_get_member (o, "corrections"), &corrections))
        return bad (error, path, "clock_repair"), NULL;
      if (!get_number (o, "largest_correction_s", &largest))
        return bad (error, path, "clock_repair"), NULL;
      if (corrections > 0)
        g_ptr_array_add (s->approximations,
                         g_strdup_printf (_("clock repair before the simulation: %lld events moved, by at most %.3g s"),
                                          (long long) corrections, isnan (largest) ? 0.0 : largest));
    }
  return g_steal_pointer (&s);
}

KubusSimSummary *
kubus_sim_summary_for_report (GFile *report)
{
  g_autoptr (GFile) folder = report != NULL ? g_file_get_parent (report) : NULL;
  g_autoptr (GFile) json = folder != NULL ? g_file_get_child (folder, "summary.json") : NULL;
  g_autofree char *path = json != NULL ? g_file_get_path (json) : NULL;

  if (path == NULL || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return NULL;
  /* a summary that cannot be read only costs the panel: the report itself opens */
  return kubus_sim_summary_load (path, NULL);
}

char *
kubus_sim_summary_rules_text (const KubusSimSummary *s)
{
  if (s->rules == NULL || s->rules[0] == NULL)
    /* TRANSLATORS: a hypothesis without rules re-enacts the run as it was */
    return g_strdup (_("identity (no change)"));
  return g_strjoinv ("; ", s->rules);
}
