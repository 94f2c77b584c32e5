/* stats-callsites.c — the MPI call sites of a report with count, min, mean, max, total time and
 * bytes per rank and for all ranks (Vetter's mpiP table), from the report's own metrics:
 * time (inclusive along the call tree), visits, min_time / max_time where the report has them,
 * bytes_sent + bytes_cout and bytes_rcvd (or bytes_received) + bytes_cin. */
#include "stats-callsites.h"
#include "kubus-text.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void
site_free (gpointer data)
{
  StatsCallsite *s = data;
  g_free (s->function);
  g_free (s->path);
  g_free (s->source);
  g_array_unref (s->ranks);
  g_free (s);
}

static char *
path_of (const CubeCnode *c)
{
  GPtrArray *names = g_ptr_array_new ();
  for (const CubeCnode *p = c; p != NULL; p = p->parent)
    g_ptr_array_add (names, p->callee != NULL && p->callee->name != NULL ? p->callee->name : "");
  GString *s = g_string_new (NULL);
  for (guint k = names->len; k > 0; k--)
    {
      if (s->len > 0)
        g_string_append_c (s, '/');
      g_string_append (s, g_ptr_array_index (names, k - 1));
    }
  g_ptr_array_unref (names);
  return g_string_free (s, FALSE);
}

/* The call site's source: every file:line kubus-run found (kubus::sources::CNODE), else the
 * call path's own file:line, else module+offset of each call site (a profile without debug
 * information), else "". Several are separated by "; ". */
static char *
source_of (const CubeReport *report, const CubeCnode *c)
{
  g_autofree char *skey = g_strdup_printf ("kubus::sources::%" G_GINT64_FORMAT, c->file_id);
  const char      *all = cube_report_get_attr (report, skey);
  if (all != NULL)
    return g_strdup (all);
  if (c->line >= 0 && c->mod != NULL && c->mod[0] != '\0')
    return g_strdup_printf ("%s:%" G_GINT64_FORMAT, c->mod, c->line);
  g_autofree char *key = g_strdup_printf ("kubus::site::%" G_GINT64_FORMAT, c->file_id);
  const char      *sites = cube_report_get_attr (report, key);
  if (sites == NULL)
    return g_strdup ("");
  g_auto (GStrv) list = g_strsplit (sites, " ", -1);
  GString *out = g_string_new (NULL);
  for (int k = 0; list[k] != NULL; k++)
    {
      const char *plus = strchr (list[k], '+');
      if (plus == NULL)
        continue;
      g_autofree char *num = g_strndup (list[k], (gsize)(plus - list[k]));
      g_autofree char *mkey = g_strdup_printf ("kubus::module::%s", num);
      const char      *module = cube_report_get_attr (report, mkey);
      const char      *path = module ? strchr (module, ' ') : NULL;
      g_autofree char *base = g_path_get_basename (path ? path + 1 : "?");
      g_string_append_printf (out, "%s%s%s", out->len ? "; " : "", base, plus);
    }
  return g_string_free (out, FALSE);
}

/* The stored row of @m at @c (zeros when the report has no such metric). */
static gboolean
row_of (CubeReport *report, const CubeMetric *m, const CubeCnode *c, double *row, GError **error)
{
  if (m == NULL)
    {
      memset (row, 0, sizeof (double) * report->locations->len);
      return TRUE;
    }
  return cube_report_get_row (report, m, c, row, error);
}

static int
cmp_site (gconstpointer a, gconstpointer b)
{
  const StatsCallsite *x = *(StatsCallsite *const *)a, *y = *(StatsCallsite *const *)b;
  if (x->all.total != y->all.total)
    return x->all.total > y->all.total ? -1 : 1;
  int c = strcmp (x->path, y->path);
  return c != 0 ? c : strcmp (x->source, y->source);
}

static int
cmp_i64 (const void *a, const void *b)
{
  gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;
  return x < y ? -1 : x > y;
}

static void
row_add (StatsCallsiteRow *r, double count, double total, double mn, double mx, double sent,
         double rcvd)
{
  r->count += count;
  r->total += total;
  r->bytes_sent += sent;
  r->bytes_received += rcvd;
  if (!isnan (mn))
    r->min = isnan (r->min) ? mn : MIN (r->min, mn);
  if (!isnan (mx))
    r->max = isnan (r->max) ? mx : MAX (r->max, mx);
}

GPtrArray *
stats_callsites (CubeReport *report, GError **error)
{
  CubeMetric *time = cube_report_find_metric (report, "time");
  if (time == NULL)
    {
      g_set_error (error, CUBE_ERROR, CUBE_ERROR_USAGE,
                   _ ("%s: the report has no “time” metric, so it has no call-site times"),
                   report->path ? report->path : "report");
      return NULL;
    }
  CubeMetric *visits = cube_report_find_metric (report, "visits");
  CubeMetric *mn = cube_report_find_metric (report, "min_time");
  CubeMetric *mx = cube_report_find_metric (report, "max_time");
  CubeMetric *sent[] = { cube_report_find_metric (report, "bytes_sent"),
                         cube_report_find_metric (report, "bytes_cout") };
  CubeMetric *rcvd[] = { cube_report_find_metric (report, "bytes_rcvd"),
                         cube_report_find_metric (report, "bytes_cin") };
  if (rcvd[0] == NULL)
    rcvd[0] = cube_report_find_metric (report, "bytes_received"); /* Score-P's name */
  guint nl = report->locations->len;
  /* location → process rank, and the distinct ranks in order */
  g_autofree gint64 *rank_of = g_new (gint64, MAX (nl, 1));
  g_autoptr (GArray) ranks = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autofree guint *slot_of = g_new (guint, MAX (nl, 1));
  g_autoptr (GHashTable) seen = g_hash_table_new (g_int64_hash, g_int64_equal);
  for (guint l = 0; l < nl; l++)
    {
      const CubeSysNode *t = g_ptr_array_index (report->locations, l);
      const CubeSysNode *p = t->parent;
      rank_of[l] = p != NULL && p->kind == CUBE_SYS_PROCESS && p->rank >= 0 ? p->rank : t->rank;
      if (g_hash_table_add (seen, &rank_of[l]))
        g_array_append_val (ranks, rank_of[l]);
    }
  /* ranks ascending: renumber the slots */
  g_autoptr (GArray) sorted = g_array_copy (ranks);
  g_array_sort (sorted, cmp_i64);
  for (guint l = 0; l < nl; l++)
    {
      gint64 *hit = bsearch (&rank_of[l], sorted->data, sorted->len, sizeof (gint64), cmp_i64);
      slot_of[l] = (guint)(hit - (gint64 *)(void *)sorted->data);
    }

  g_autofree double *t = g_new (double, MAX (nl, 1));
  g_autofree double *v = g_new (double, MAX (nl, 1));
  g_autofree double *lo = g_new (double, MAX (nl, 1));
  g_autofree double *hi = g_new (double, MAX (nl, 1));
  g_autofree double *s = g_new (double, MAX (nl, 1));
  g_autofree double *r = g_new (double, MAX (nl, 1));
  g_autofree double *tmp = g_new (double, MAX (nl, 1));
  g_autoptr (GPtrArray) out = g_ptr_array_new_with_free_func (site_free);
  for (guint ci = 0; ci < report->cnodes->len; ci++)
    {
      const CubeCnode *c = g_ptr_array_index (report->cnodes, ci);
      if (c->callee == NULL || c->callee->name == NULL || !g_str_has_prefix (c->callee->name, "MPI_"))
        continue;
      CubeMetricSel ms = { time, FALSE };
      CubeCnodeSel  cs = { c, FALSE };
      if (!cube_values_locations (report, &ms, 1, &cs, 1, t, error)
          || !row_of (report, visits, c, v, error) || !row_of (report, mn, c, lo, error)
          || !row_of (report, mx, c, hi, error))
        return NULL;
      memset (s, 0, sizeof (double) * nl);
      memset (r, 0, sizeof (double) * nl);
      for (guint k = 0; k < 2; k++)
        {
          if (!row_of (report, sent[k], c, tmp, error))
            return NULL;
          for (guint l = 0; l < nl; l++)
            s[l] += tmp[l];
          if (!row_of (report, rcvd[k], c, tmp, error))
            return NULL;
          for (guint l = 0; l < nl; l++)
            r[l] += tmp[l];
        }
      StatsCallsite *site = g_new0 (StatsCallsite, 1);
      site->cnode = c;
      site->function = g_strdup (c->callee->name);
      site->path = path_of (c);
      site->source = source_of (report, c);
      site->ranks = g_array_new (FALSE, TRUE, sizeof (StatsCallsiteRow));
      g_array_set_size (site->ranks, sorted->len);
      for (guint k = 0; k < sorted->len; k++)
        {
          StatsCallsiteRow *row = &g_array_index (site->ranks, StatsCallsiteRow, k);
          row->rank = g_array_index (sorted, gint64, k);
          row->min = row->max = NAN;
        }
      site->all = (StatsCallsiteRow){ -1, 0, NAN, NAN, 0, 0, 0 };
      for (guint l = 0; l < nl; l++)
        {
          if (v[l] == 0 && t[l] == 0)
            continue;
          /* a minimum or maximum exists only where the call site was visited */
          double a = mn != NULL && v[l] > 0 && !cube_value_is_none (mn, lo[l]) ? lo[l] : NAN;
          double b = mx != NULL && v[l] > 0 && !cube_value_is_none (mx, hi[l]) ? hi[l] : NAN;
          row_add (&g_array_index (site->ranks, StatsCallsiteRow, slot_of[l]), v[l], t[l], a, b,
                   s[l], r[l]);
          row_add (&site->all, v[l], t[l], a, b, s[l], r[l]);
        }
      /* ranks that never called it are left out */
      for (guint k = site->ranks->len; k > 0; k--)
        {
          const StatsCallsiteRow *row = &g_array_index (site->ranks, StatsCallsiteRow, k - 1);
          if (row->count == 0 && row->total == 0)
            g_array_remove_index (site->ranks, k - 1);
        }
      if (site->all.count == 0 && site->all.total == 0)
        site_free (site);
      else
        g_ptr_array_add (out, site);
    }
  g_ptr_array_sort (out, cmp_site);
  return g_steal_pointer (&out);
}

static char *
num (double x, const char *fmt)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  if (isnan (x))
    return g_strdup ("");
  return g_strdup (g_ascii_formatd (buf, sizeof buf, fmt, x));
}

/* The cells of one row: rank, count, min, mean, max, total, sent, received. */
static void
cells (const StatsCallsiteRow *row, gboolean csv, char *c[8])
{
  const char *tf = csv ? "%.9g" : "%.6g";
  c[0] = row->rank < 0 ? g_strdup ("all") : g_strdup_printf ("%" G_GINT64_FORMAT, row->rank);
  c[1] = num (row->count, "%.0f");
  c[2] = num (row->min, tf);
  c[3] = num (row->count > 0 ? row->total / row->count : NAN, tf);
  c[4] = num (row->max, tf);
  c[5] = num (row->total, tf);
  c[6] = num (row->bytes_sent, "%.0f");
  c[7] = num (row->bytes_received, "%.0f");
}

void
stats_callsites_print (GPtrArray *sites, gboolean csv, FILE *out)
{
  static const char *head[] = { "function", "callsite", "source", "rank", "count", "min",
                                "mean", "max", "total", "bytes_sent", "bytes_received" };
  enum
  {
    N_COLS = G_N_ELEMENTS (head)
  };
  /* all rows as cells first: the text table needs the column widths */
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify)g_strfreev);
  for (guint i = 0; i < sites->len; i++)
    {
      const StatsCallsite *s = g_ptr_array_index (sites, i);
      for (guint k = 0; k <= s->ranks->len; k++)
        {
          const StatsCallsiteRow *row
              = k == 0 ? &s->all : &g_array_index (s->ranks, StatsCallsiteRow, k - 1);
          char **cell = g_new0 (char *, N_COLS + 1);
          cell[0] = g_strdup (s->function);
          cell[1] = g_strdup (s->path);
          if (csv)
            cell[2] = g_strdup (s->source);
          else
            {
              /* the text table names the files, not their folders */
              g_auto (GStrv) parts = g_strsplit (s->source, "; ", -1);
              for (int k = 0; parts[k] != NULL; k++)
                {
                  const char *slash = strrchr (parts[k], '/');
                  if (slash != NULL)
                    memmove (parts[k], slash + 1, strlen (slash + 1) + 1);
                }
              cell[2] = g_strjoinv ("; ", parts);
            }
          cells (row, csv, cell + 3);
          g_ptr_array_add (rows, cell);
        }
    }
  if (csv)
    {
      for (guint c = 0; c < N_COLS; c++)
        fprintf (out, "%s%s", head[c], c + 1 < N_COLS ? "," : "\n");
      for (guint i = 0; i < rows->len; i++)
        {
          char **cell = g_ptr_array_index (rows, i);
          for (guint c = 0; c < N_COLS; c++)
            {
              kubus_text_csv (cell[c], kubus_text_to_file, out);
              fputc (c + 1 < N_COLS ? ',' : '\n', out);
            }
        }
      return;
    }
  gsize width[N_COLS];
  for (guint c = 0; c < N_COLS; c++)
    width[c] = strlen (head[c]);
  for (guint i = 0; i < rows->len; i++)
    {
      char **cell = g_ptr_array_index (rows, i);
      for (guint c = 0; c < N_COLS; c++)
        width[c] = MAX (width[c], (gsize)g_utf8_strlen (cell[c], -1));
    }
  for (guint i = 0; i <= rows->len; i++)
    {
      const char *const *cell = i == 0 ? head : (const char *const *)g_ptr_array_index (rows, i - 1);
      for (guint c = 0; c < N_COLS; c++)
        {
          gsize pad = width[c] - (gsize)g_utf8_strlen (cell[c], -1);
          /* text left, numbers right */
          if (c < 4)
            fprintf (out, "%s%*s", cell[c], c + 1 < N_COLS ? (int)pad + 2 : 0, "");
          else
            fprintf (out, "%*s%s%s", (int)pad, "", cell[c], c + 1 < N_COLS ? "  " : "");
        }
      fputc ('\n', out);
    }
}
