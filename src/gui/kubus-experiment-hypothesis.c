/* kubus-experiment-hypothesis.c — see kubus-experiment-hypothesis.h. */
#include <glib/gi18n.h>

#include "kubus-experiment-hypothesis.h"
#include "sim-private.h"

#include <math.h>
#include <string.h>

const char *const kubus_hypothesis_ops[] = { "<", "<=", "==", ">=", ">", NULL };

char *
kubus_hypothesis_quote_name (const char  *name,
                             GError     **error)
{
  gboolean bare = TRUE;
  GString *s;

  g_return_val_if_fail (name != NULL, NULL);
  if (*name == '\0' || strpbrk (name, "\n") != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   *name == '\0' ? _("A region name is empty.") : _("The region name “%s” holds a line break: no rule can name it."),
                   name);
      return NULL;
    }
  if (!g_utf8_validate (name, -1, NULL))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("A region name is not valid UTF-8."));
      return NULL;
    }
  /* The parser splits bare words at blanks and '#', and a leading '"' opens a quoted name. */
  if (name[0] == '"' || strpbrk (name, " \t\r#\\\"") != NULL)
    bare = FALSE;
  if (bare)
    return g_strdup (name);
  s = g_string_new ("\"");
  for (const char *p = name; *p; p++)
    {
      if (*p == '"' || *p == '\\')
        g_string_append_c (s, '\\');
      g_string_append_c (s, *p);
    }
  g_string_append_c (s, '"');
  return g_string_free (s, FALSE);
}

char *
kubus_hypothesis_rule (KubusHypRule  rule,
                       const char   *region,
                       double        factor,
                       const char   *op,
                       gint64        n,
                       GError      **error)
{
  g_autofree char *name = NULL;
  gboolean op_ok = FALSE;

  switch (rule)
    {
    case KUBUS_HYP_SCALE:
    case KUBUS_HYP_BALANCE:
    case KUBUS_HYP_BALANCE_GLOBALLY:
    case KUBUS_HYP_REMOVE_IN_REGION:
      if (region == NULL || (name = kubus_hypothesis_quote_name (region, error)) == NULL)
        {
          if (region == NULL)
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("Choose a region."));
          return NULL;
        }
      break;
    case KUBUS_HYP_REMOVE_SIZE:
    case KUBUS_HYP_REMOVE_TAG:
      for (guint i = 0; op != NULL && kubus_hypothesis_ops[i] != NULL; i++)
        op_ok |= g_str_equal (op, kubus_hypothesis_ops[i]);
      if (!op_ok)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("“%s” is not a comparison."),
                       op != NULL ? op : "");
          return NULL;
        }
      if (n < 0)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       _("Message sizes and tags are not negative."));
          return NULL;
        }
      break;
    }

  switch (rule)
    {
    case KUBUS_HYP_SCALE:
      {
        char buf[G_ASCII_DTOSTR_BUF_SIZE];
        if (!isfinite (factor) || factor < 0)
          {
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                         _("The factor must be a number of at least 0 (0.5 halves the time)."));
            return NULL;
          }
        /* the shortest text that reads back as the same number, "." as the point */
        g_ascii_formatd (buf, sizeof buf, "%.15g", factor);
        if (g_ascii_strtod (buf, NULL) != factor)
          g_ascii_dtostr (buf, sizeof buf, factor);
        return g_strdup_printf ("scale region %s by %s", name, buf);
      }
    case KUBUS_HYP_BALANCE:
      return g_strdup_printf ("balance region %s", name);
    case KUBUS_HYP_BALANCE_GLOBALLY:
      return g_strdup_printf ("balance region %s globally", name);
    case KUBUS_HYP_REMOVE_SIZE:
      return g_strdup_printf ("remove messages with size %s %" G_GINT64_FORMAT, op, n);
    case KUBUS_HYP_REMOVE_TAG:
      return g_strdup_printf ("remove messages with tag %s %" G_GINT64_FORMAT, op, n);
    case KUBUS_HYP_REMOVE_IN_REGION:
      return g_strdup_printf ("remove messages in region %s", name);
    }
  g_return_val_if_reached (NULL);
}

gboolean
kubus_hypothesis_is_mpi_region (const CubeRegion *region)
{
  return (region->mod != NULL && g_str_equal (region->mod, "MPI"))
         || (region->name != NULL && g_str_has_prefix (region->name, "MPI_"));
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return g_utf8_collate (*(const char *const *) a, *(const char *const *) b);
}

GPtrArray *
kubus_hypothesis_region_names (CubeReport *report,
                               gboolean    with_mpi)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GPtrArray) user = g_ptr_array_new ();
  g_autoptr (GPtrArray) mpi = g_ptr_array_new ();
  GPtrArray *out = g_ptr_array_new ();

  g_return_val_if_fail (report != NULL, out);
  for (guint i = 0; i < report->cnodes->len; i++)
    {
      CubeCnode *c = report->cnodes->pdata[i];
      CubeRegion *r = c->callee;

      if (r == NULL || r->name == NULL || *r->name == '\0' || !g_hash_table_add (seen, r->name))
        continue;
      g_ptr_array_add (kubus_hypothesis_is_mpi_region (r) ? mpi : user, r->name);
    }
  g_ptr_array_sort (user, compare_names);
  g_ptr_array_sort (mpi, compare_names);
  g_ptr_array_extend (out, user, NULL, NULL);
  if (with_mpi)
    g_ptr_array_extend (out, mpi, NULL, NULL);
  return out;
}

/* ---- checking as the user types (issue 24, item 15) ------------------------------------------ */

void
kubus_hyp_error_free (KubusHypError *error)
{
  g_free (error->message);
  g_free (error);
}

/* "NAME:LINE:COL: …" → LINE and COL (the name may hold colons: read from the message's
 * start after @name). */
static void
locate (KubusHypError *e,
        const char    *name)
{
  const char *p = e->message;
  guint64 v;
  char *end;

  if (g_str_has_prefix (p, name) && p[strlen (name)] == ':')
    p += strlen (name) + 1;
  v = g_ascii_strtoull (p, &end, 10);
  if (end == p)
    return;
  e->line = (guint) v;
  if (*end == ':')
    {
      p = end + 1;
      v = g_ascii_strtoull (p, &end, 10);
      if (end != p && *end == ':')
        e->column = (guint) v;
    }
}

static int
by_position (gconstpointer a,
             gconstpointer b)
{
  const KubusHypError *x = *(const KubusHypError *const *) a, *y = *(const KubusHypError *const *) b;

  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  return x->column < y->column ? -1 : x->column > y->column;
}

GPtrArray *
kubus_hypothesis_check (const char        *name,
                        const char        *text,
                        const char *const *regions,
                        const gboolean    *is_mpi,
                        guint              n)
{
  g_autoptr (GPtrArray) messages = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (Hypothesis) h = sim_hypothesis_parse_all (name, text, strlen (text), messages);
  GPtrArray *errors = g_ptr_array_new_with_free_func ((GDestroyNotify) kubus_hyp_error_free);

  if (h != NULL && regions != NULL)
    sim_hypothesis_check_names (h, regions, n, is_mpi, messages);
  for (guint i = 0; i < messages->len; i++)
    {
      KubusHypError *e = g_new0 (KubusHypError, 1);

      e->message = g_strdup (messages->pdata[i]);
      locate (e, name);
      g_ptr_array_add (errors, e);
    }
  g_ptr_array_sort (errors, by_position);
  return errors;
}
