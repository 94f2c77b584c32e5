/* sim-hypothesis.c — the hypothesis file: one rule a line, `#` comments (docs/hypotheses.md).
 *
 *   scale region NAME by FACTOR
 *   balance region NAME [globally]
 *   remove messages with size|tag OP N        OP: < <= == >= >
 *   remove messages in region NAME
 *
 * NAME is a bare word or a "quoted string" (\" and \\ escape). Keywords ignore case. Errors name
 * the file, line and column; unknown regions get the closest names in the trace. */
#include "sim-private.h"

#include "kubus-text.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  char  *text;     /* unquoted */
  guint  col;      /* 1-based, in characters */
  gboolean quoted;
} Token;

typedef struct
{
  const char *path;
  guint       line;
  GArray     *tokens;   /* Token */
  guint       end_col;  /* column just past the last character */
} Line;

static void
token_clear (gpointer p)
{
  g_free (((Token *) p)->text);
}

static void
rule_free (gpointer p)
{
  Rule *r = p;
  g_free (r->region_name);
  g_free (r->regions);
  g_free (r->text);
  g_free (r);
}

void
sim_hypothesis_free (Hypothesis *h)
{
  if (!h)
    return;
  g_free (h->path);
  g_ptr_array_unref (h->rules);
  g_clear_pointer (&h->broken, g_ptr_array_unref);
  g_free (h);
}

gboolean
sim_rule_op_holds (RuleOp  op,
                   guint64 a,
                   guint64 b)
{
  switch (op)
    {
    case OP_LT: return a < b;
    case OP_LE: return a <= b;
    case OP_EQ: return a == b;
    case OP_GE: return a >= b;
    case OP_GT: return a > b;
    }
  return FALSE;
}

guint
sim_edit_distance (const char *a,
                   const char *b)
{
  gsize la = strlen (a), lb = strlen (b);
  g_autofree guint *row = g_new (guint, lb + 1);

  for (gsize j = 0; j <= lb; j++)
    row[j] = (guint) j;
  for (gsize i = 1; i <= la; i++)
    {
      guint diag = row[0];
      row[0] = (guint) i;
      for (gsize j = 1; j <= lb; j++)
        {
          guint up = row[j];
          guint cost = a[i - 1] == b[j - 1] ? 0 : 1;
          row[j] = MIN (MIN (row[j] + 1, row[j - 1] + 1), diag + cost);
          diag = up;
        }
    }
  return row[lb];
}

static gboolean
G_GNUC_PRINTF (4, 5)
line_error (const Line *l,
            guint       col,
            GError    **error,
            const char *fmt,
            ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s:%u:%u: %s", l->path, l->line, col, msg);
  return FALSE;
}

/* Splits one line into tokens; stops at a `#` outside quotes. */
static gboolean
tokenize (Line        *l,
          const char  *s,
          GError     **error)
{
  guint col = 1;
  const char *p = s;

  while (*p)
    {
      Token t = { 0 };
      if (*p == ' ' || *p == '\t' || *p == '\r')
        {
          p++;
          col++;
          continue;
        }
      if (*p == '#')
        break;
      t.col = col;
      if (*p == '"')
        {
          GString *v = g_string_new (NULL);
          p++;
          col++;
          while (*p && *p != '"')
            {
              if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
                {
                  p++;
                  col++;
                }
              g_string_append_c (v, *p);
              if (((guchar) *p & 0xC0) != 0x80)
                col++;
              p++;
            }
          if (*p != '"')
            {
              g_string_free (v, TRUE);
              return line_error (l, t.col, error, _("the quoted name has no closing quote"));
            }
          p++;
          col++;
          t.text = g_string_free (v, FALSE);
          t.quoted = TRUE;
        }
      else
        {
          const char *start = p;
          while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '#')
            {
              if (((guchar) *p & 0xC0) != 0x80)
                col++;
              p++;
            }
          t.text = g_strndup (start, p - start);
        }
      g_array_append_val (l->tokens, t);
    }
  l->end_col = col;
  return TRUE;
}

static Token *
tok (Line *l,
     guint i)
{
  return i < l->tokens->len ? &g_array_index (l->tokens, Token, i) : NULL;
}

static guint
tok_col (Line *l,
         guint i)
{
  Token *t = tok (l, i);
  return t ? t->col : l->end_col;
}

static gboolean
is_kw (Line       *l,
       guint       i,
       const char *kw)
{
  Token *t = tok (l, i);
  return t && !t->quoted && g_ascii_strcasecmp (t->text, kw) == 0;
}

/* "expected X, found Y" / "expected X at the end of the line" */
static gboolean
expect_kw (Line        *l,
           guint        i,
           const char  *kw,
           const char  *after,
           GError     **error)
{
  Token *t = tok (l, i);
  if (is_kw (l, i, kw))
    return TRUE;
  if (!t)
    return line_error (l, tok_col (l, i), error, _("expected “%s” after “%s”, found the end of the line"),
                       kw, after);
  if (sim_edit_distance (t->text, kw) <= 2)
    return line_error (l, t->col, error, _("expected “%s” after “%s”, found “%s” (did you mean “%s”?)"),
                       kw, after, t->text, kw);
  return line_error (l, t->col, error, _("expected “%s” after “%s”, found “%s”"), kw, after, t->text);
}

static gboolean
expect_end (Line        *l,
            guint        i,
            GError     **error)
{
  Token *t = tok (l, i);
  if (!t)
    return TRUE;
  return line_error (l, t->col, error, _("unexpected “%s” after the end of the rule"), t->text);
}

static gboolean
take_name (Line        *l,
           guint        i,
           Rule        *r,
           GError     **error)
{
  Token *t = tok (l, i);
  if (!t)
    return line_error (l, tok_col (l, i), error, _("expected a region name after “region”"));
  if (!*t->text)
    return line_error (l, t->col, error, _("the region name is empty"));
  r->region_name = g_strdup (t->text);
  r->name_col = t->col;
  return TRUE;
}

/* On a line whose keyword has a typo ("regon", "balanse"), the name where the rule holds its
 * region is still taken, so that a region typo on the same line is reported with it. */
static void
take_name_anyway (Line *l,
                  guint i,
                  Rule *r)
{
  g_autoptr (GError) ignored = NULL;
  Token *kw = tok (l, i - 1);

  if (kw != NULL && !kw->quoted && sim_edit_distance (kw->text, "region") <= 2)
    take_name (l, i, r, &ignored);
}

static gboolean
parse_rule (Line        *l,
            Rule        *r,
            GError     **error)
{
  Token *first = tok (l, 0);
  static const char *verbs[] = { "scale", "balance", "remove", NULL };

  if (is_kw (l, 0, "scale"))
    {
      Token *f;
      char *end = NULL;
      double v;

      r->kind = RULE_SCALE;
      if (!expect_kw (l, 1, "region", "scale", error))
        {
          take_name_anyway (l, 2, r);
          return FALSE;
        }
      if (!take_name (l, 2, r, error) || !expect_kw (l, 3, "by", r->region_name, error))
        return FALSE;
      f = tok (l, 4);
      if (!f)
        return line_error (l, tok_col (l, 4), error, _("expected a factor after “by” (a number such as 0.5)"));
      v = g_ascii_strtod (f->text, &end);
      if (f->quoted || end == f->text || *end || !isfinite (v))
        return line_error (l, f->col, error, _("“%s” is not a number (a factor such as 0.5 or 2)"), f->text);
      if (v < 0)
        return line_error (l, f->col, error, _("the factor %s is negative: a region cannot take less than no time"),
                           f->text);
      r->factor = v;
      return expect_end (l, 5, error);
    }
  if (is_kw (l, 0, "balance"))
    {
      r->kind = RULE_BALANCE;
      if (!expect_kw (l, 1, "region", "balance", error))
        {
          take_name_anyway (l, 2, r);
          return FALSE;
        }
      if (!take_name (l, 2, r, error))
        return FALSE;
      if (tok (l, 3))
        {
          if (!expect_kw (l, 3, "globally", r->region_name, error))
            return FALSE;
          r->kind = RULE_BALANCE_GLOBAL;
          return expect_end (l, 4, error);
        }
      return TRUE;
    }
  if (is_kw (l, 0, "remove"))
    {
      if (!expect_kw (l, 1, "messages", "remove", error))
        return FALSE;
      if (is_kw (l, 2, "in"))
        {
          r->kind = RULE_REMOVE_REGION;
          if (!expect_kw (l, 3, "region", "in", error))
            {
              take_name_anyway (l, 4, r);
              return FALSE;
            }
          if (!take_name (l, 4, r, error))
            return FALSE;
          return expect_end (l, 5, error);
        }
      if (is_kw (l, 2, "with"))
        {
          static const struct { const char *s; RuleOp op; } ops[] = {
            { "<", OP_LT }, { "<=", OP_LE }, { "==", OP_EQ }, { ">=", OP_GE }, { ">", OP_GT },
          };
          Token *o, *n;
          char *end = NULL;
          guint64 v;
          gboolean found = FALSE;

          if (is_kw (l, 3, "size"))
            r->kind = RULE_REMOVE_SIZE;
          else if (is_kw (l, 3, "tag"))
            r->kind = RULE_REMOVE_TAG;
          else if (tok (l, 3))
            return line_error (l, tok_col (l, 3), error, _("expected “size” or “tag” after “with”, found “%s”"),
                               tok (l, 3)->text);
          else
            return line_error (l, tok_col (l, 3), error, _("expected “size” or “tag” after “with”"));
          o = tok (l, 4);
          if (!o)
            return line_error (l, tok_col (l, 4), error, _("expected a comparison (< <= == >= >) after “%s”"),
                               tok (l, 3)->text);
          for (guint k = 0; k < G_N_ELEMENTS (ops); k++)
            if (!o->quoted && strcmp (o->text, ops[k].s) == 0)
              {
                r->op = ops[k].op;
                found = TRUE;
              }
          if (!found)
            {
              if (strcmp (o->text, "=") == 0)
                return line_error (l, o->col, error, _("“=” is not a comparison: write “==”"));
              return line_error (l, o->col, error, _("expected a comparison (< <= == >= >), found “%s”"), o->text);
            }
          n = tok (l, 5);
          if (!n)
            return line_error (l, tok_col (l, 5), error, _("expected a whole number after “%s”"), o->text);
          if (n->quoted || !g_ascii_isdigit (n->text[0]))
            return line_error (l, n->col, error, _("“%s” is not a whole number"), n->text);
          errno = 0;
          v = g_ascii_strtoull (n->text, &end, 10);
          if (*end || errno == ERANGE)
            return line_error (l, n->col, error, _("“%s” is not a whole number"), n->text);
          if (r->kind == RULE_REMOVE_TAG && v > G_MAXUINT32)
            return line_error (l, n->col, error, _("the tag %s is larger than any MPI tag"), n->text);
          r->value = v;
          return expect_end (l, 6, error);
        }
      if (tok (l, 2))
        return line_error (l, tok_col (l, 2), error, _("expected “with” or “in” after “remove messages”, found “%s”"),
                           tok (l, 2)->text);
      return line_error (l, tok_col (l, 2), error, _("expected “with size|tag OP N” or “in region NAME” after "
                                                     "“remove messages”"));
    }
  for (guint k = 0; verbs[k]; k++)
    if (!first->quoted && sim_edit_distance (first->text, verbs[k]) <= 2)
      {
        if (k < 2)  /* scale and balance hold their region third */
          take_name_anyway (l, 2, r);
        return line_error (l, first->col, error, _("unknown rule “%s” (did you mean “%s”?)"), first->text, verbs[k]);
      }
  return line_error (l, first->col, error, _("unknown rule “%s”: rules start with scale, balance or remove"),
                     first->text);
}

/* Every line is read, also after one with an error: all errors are reported at once (a region
 * typo and a keyword typo in the same file were found one run at a time). */
Hypothesis *
sim_hypothesis_parse_all (const char  *path,
                          const char  *text,
                          gsize        len,
                          GPtrArray   *errors)
{
  g_autoptr (Hypothesis) h = g_new0 (Hypothesis, 1);
  const char *p = text, *end = text + len;
  guint line = 0;

  h->path = g_strdup (path);
  h->rules = g_ptr_array_new_with_free_func (rule_free);
  h->broken = g_ptr_array_new_with_free_func (rule_free);
  {
    const char *nul = memchr (text, '\0', len);
    if (nul)
      {
        guint at = 1;
        for (const char *q = text; q < nul; q++)
          at += *q == '\n';
        g_ptr_array_add (errors, g_strdup_printf (_("%s:%u: a NUL byte in the line"), path, at));
        return NULL;
      }
  }
  if (!g_utf8_validate (text, len, NULL))
    {
      g_ptr_array_add (errors, g_strdup_printf (_("%s: not a text file (invalid UTF-8)"), path));
      return NULL;
    }
  while (p < end)
    {
      const char *nl = memchr (p, '\n', end - p);
      const char *stop = nl ? nl : end;
      g_autofree char *s = g_strndup (p, stop - p);
      Line l = { path, ++line, NULL, 1 };
      g_autoptr (GError) error = NULL;
      gboolean ok;

      l.tokens = g_array_new (FALSE, TRUE, sizeof (Token));
      g_array_set_clear_func (l.tokens, token_clear);
      ok = tokenize (&l, s, &error);
      if (ok && l.tokens->len > 0)
        {
          Rule *r = g_new0 (Rule, 1);
          r->line = line;
          g_strstrip (s);
          r->text = g_strdup (s);
          if (strchr (r->text, '#') && !strchr (r->text, '"'))
            {
              *strchr (r->text, '#') = '\0';
              g_strchomp (r->text);
            }
          ok = parse_rule (&l, r, &error);
          g_ptr_array_add (ok ? h->rules : h->broken, r);
        }
      g_array_unref (l.tokens);
      if (!ok)
        g_ptr_array_add (errors, g_strdup (error->message));
      p = nl ? nl + 1 : end;
    }
  return g_steal_pointer (&h);
}

/* The errors as one message, one a line. */
static void
set_errors (GError   **error,
            GPtrArray *errors)
{
  g_autofree char *joined = NULL;

  g_ptr_array_add (errors, NULL);
  joined = g_strjoinv ("\n", (char **) errors->pdata);
  g_ptr_array_remove_index (errors, errors->len - 1);
  g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, joined);
}

Hypothesis *
sim_hypothesis_parse (const char  *path,
                      const char  *text,
                      gsize        len,
                      GError     **error)
{
  g_autoptr (GPtrArray) errors = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (Hypothesis) h = sim_hypothesis_parse_all (path, text, len, errors);

  if (errors->len > 0)
    {
      set_errors (error, errors);
      return NULL;
    }
  return g_steal_pointer (&h);
}

/* The text of the hypothesis file @path, or NULL and @error. */
static char *
read_text (const char  *path,
           gsize       *len,
           GError     **error)
{
  char *text = NULL;
  g_autoptr (GError) local = NULL;

  if (!g_file_get_contents (path, &text, len, &local))
    g_set_error (error, G_FILE_ERROR, local->code, _("cannot read the hypothesis file: %s"),
                 local->message);
  return text;
}

Hypothesis *
sim_hypothesis_load (const char  *path,
                     GError     **error)
{
  gsize len = 0;
  g_autofree char *text = read_text (path, &len, error);

  return text != NULL ? sim_hypothesis_parse (path, text, len, error) : NULL;
}

typedef struct
{
  const char *name;
  guint       dist;
  gboolean    user;
} Candidate;

static int
candidate_cmp (gconstpointer a,
               gconstpointer b)
{
  const Candidate *x = a, *y = b;
  if (x->dist != y->dist)
    return x->dist < y->dist ? -1 : 1;
  if (x->user != y->user)
    return x->user ? -1 : 1;
  return strcmp (x->name, y->name);
}

static int
by_name (gconstpointer a,
         gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* When no name is close: which regions there are to name. With call paths from the stack, a
 * function is a region only where it is on the stack at an MPI call; a helper that computes and
 * calls no MPI is part of its caller's time, and a user who names it needs to hear that. Empty
 * without the program's own names (@user NULL: no way to tell them from MPI's). */
static char *
program_regions (const char *const *names,
                 const gboolean    *user,
                 guint              n_names)
{
  enum { SHOWN = 8 };
  g_autoptr (GPtrArray) own = g_ptr_array_new ();
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GString) list = g_string_new (NULL);

  if (user == NULL)
    return g_strdup ("");
  for (guint i = 0; i < n_names; i++)
    if (names[i] != NULL && user[i] && g_hash_table_add (seen, (gpointer) names[i]))
      g_ptr_array_add (own, (gpointer) names[i]);
  if (own->len == 0)
    return g_strdup ("");
  g_ptr_array_sort (own, by_name);
  for (guint i = 0; i < MIN (own->len, SHOWN); i++)
    {
      if (i > 0)
        g_string_append (list, ", ");
      g_string_append (list, own->pdata[i]);
    }
  if (own->len > SHOWN)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "; the program's regions are %s and %u more (with call paths "
                                         "from the stack, a function is a region where it is on the stack at an MPI call: "
                                         "one that calls no MPI counts as part of its caller; kubus_region_begin/end around "
                                         "it, or -finstrument-functions, make it a region)",
                                         "; the program's regions are %s and %u more (with call paths from the stack, a "
                                         "function is a region where it is on the stack at an MPI call: one that calls no "
                                         "MPI counts as part of its caller; kubus_region_begin/end around it, or "
                                         "-finstrument-functions, make it a region)",
                                         own->len - SHOWN),
                            list->str, own->len - SHOWN);
  return g_strdup_printf (_("; the program's regions are %s (with call paths from the stack, a function is a region "
                            "where it is on the stack at an MPI call: one that calls no MPI counts as part of its "
                            "caller; kubus_region_begin/end around it, or -finstrument-functions, make it a region)"),
                          list->str);
}

/* The name a C++ programmer writes for the function of @brief, a short form such as "void
 * ns::f<int>(…) const": "ns::f<int>", without the return type and the parameter list; NULL when
 * @brief has no "(…)". */
static char *
bare_function (const char *brief)
{
  const char *args = strstr (brief, "(\xE2\x80\xA6)");
  const char *from = brief;
  int depth = 0;

  if (args == NULL)
    return NULL;
  /* the return type ends at the last space outside template brackets */
  for (const char *p = brief; p < args; p++)
    if (*p == '<')
      depth++;
    else if (*p == '>')
      depth--;
    else if (*p == ' ' && depth == 0)
      from = p + 1;
  return g_strndup (from, (gsize) (args - from));
}

/* "; did you mean foo?" / "; did you mean foo, fob or fox?" among @names (@user: the program's
 * own, preferred; may be NULL); when nothing is close, the program's regions (program_regions). */
static char *
suggest_among (const char *const *names,
               const gboolean    *user,
               guint              n_names,
               const char        *name)
{
  g_autoptr (GArray) c = g_array_new (FALSE, FALSE, sizeof (Candidate));
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree char *lower_b = g_ascii_strdown (name, -1);
  guint limit = MAX (2, (guint) strlen (name) / 3);
  GString *s;
  guint n;

  for (guint i = 0; i < n_names; i++)
    {
      Candidate k;
      g_autofree char *lower_a = NULL;

      if (!names[i] || g_hash_table_contains (seen, names[i]))
        continue;
      g_hash_table_add (seen, (gpointer) names[i]);
      lower_a = g_ascii_strdown (names[i], -1);
      k.name = names[i];
      k.dist = sim_edit_distance (lower_a, lower_b);
      {
        /* or as far from the name kubus-sim's summary shows ("ns::f(…) const") */
        char *brief = kubus_text_short_function (lower_a);

        if (brief != NULL && strcmp (brief, lower_a) != 0)
          k.dist = MIN (k.dist, sim_edit_distance (brief, lower_b));
        if (brief != NULL && strchr (lower_b, '(') == NULL)
          {
            /* or from its name alone ("ns::f") */
            g_autofree char *bare = bare_function (brief);

            if (bare != NULL)
              k.dist = MIN (k.dist, sim_edit_distance (bare, lower_b));
          }
        free (brief);
      }
      if (strcmp (names[i], name) != 0 && strcmp (lower_a, lower_b) == 0)
        k.dist = 0;   /* a case difference is the closest match there is */
      k.user = user == NULL || user[i];
      if (k.dist <= limit)
        g_array_append_val (c, k);
    }
  if (c->len == 0)
    return program_regions (names, user, n_names);
  g_array_sort (c, candidate_cmp);
  n = MIN (c->len, 3);
  /* only the best distance, unless several are equally close */
  while (n > 1 && g_array_index (c, Candidate, n - 1).dist > g_array_index (c, Candidate, 0).dist)
    n--;
  s = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append (s, i + 1 == n ? _(" or ") : ", ");
      g_string_append (s, g_array_index (c, Candidate, i).name);
    }
  {
    char *out = g_strdup_printf (_("; did you mean %s?"), s->str);
    g_string_free (s, TRUE);
    return out;
  }
}

static char *
suggestions (const TraceDefs *defs,
             const char      *name)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autoptr (GArray) user = g_array_new (FALSE, FALSE, sizeof (gboolean));
  GHashTableIter it;
  gpointer v;

  g_hash_table_iter_init (&it, defs->regions);
  while (g_hash_table_iter_next (&it, NULL, &v))
    {
      TraceRegion *r = v;
      /* the measurement's, not the program's: its flushes, and the region every trace defines for
       * user regions whose names an abort lost (third sweep: it led every list of "the
       * program's regions") */
      gboolean u = r->klass == RC_USER && !(r->flags & RF_FLUSH) && strcmp (r->name, "KUBUS_UNKNOWN_REGION") != 0;

      g_ptr_array_add (names, r->name);
      g_array_append_val (user, u);
    }
  return suggest_among ((const char *const *) names->pdata, (const gboolean *) user->data, names->len, name);
}

static int
by_line (gconstpointer a,
         gconstpointer b)
{
  const Rule *x = *(const Rule *const *) a, *y = *(const Rule *const *) b;

  return x->line < y->line ? -1 : x->line > y->line;
}

/* The rules of @h and its broken lines, in line order (errors are reported that way). */
static GPtrArray *
rules_by_line (const Hypothesis *h)
{
  GPtrArray *all = g_ptr_array_new ();

  for (guint i = 0; i < h->rules->len; i++)
    g_ptr_array_add (all, h->rules->pdata[i]);
  for (guint i = 0; h->broken != NULL && i < h->broken->len; i++)
    g_ptr_array_add (all, h->broken->pdata[i]);
  g_ptr_array_sort (all, by_line);
  return all;
}

static gboolean
is_parsed (const Hypothesis *h,
           const Rule       *r)
{
  return g_ptr_array_find (h->rules, r, NULL);
}

/* The indices of @names (@n of them) that the rule's @wanted names: those equal to it; when none
 * is and @wanted is a C++ function as kubus-sim's summary lines show it, its parameter list left
 * out ("ns::f(…) const", kubus_text_short_function), those of which it is the short form, as
 * long as they are one function; when @wanted has no parameter list at all ("ns::C::f", as a C++
 * programmer names a member function), those whose short form is it followed by "(…)" and
 * qualifiers.  When they are several (overloads), none, and *@several gets them ("a, b or c"). */
static GArray *
region_matches (const char *const *names,
                guint              n,
                const char        *wanted,
                char             **several)
{
  GArray *at = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GPtrArray) distinct = NULL;
  gboolean bare;

  *several = NULL;
  for (guint k = 0; k < n; k++)
    if (names[k] != NULL && strcmp (names[k], wanted) == 0)
      g_array_append_val (at, k);
  bare = strchr (wanted, '(') == NULL;
  if (at->len > 0 || (!bare && strstr (wanted, "(\xE2\x80\xA6)") == NULL))
    return at;
  distinct = g_ptr_array_new ();
  for (guint k = 0; k < n; k++)
    {
      char *brief = names[k] != NULL ? kubus_text_short_function (names[k]) : NULL;
      gboolean same = brief != NULL && strcmp (brief, wanted) == 0;

      if (brief != NULL && bare)
        {
          /* "[return type ]NAME(…)[ const]": NAME is @wanted */
          g_autofree char *name = bare_function (brief);

          same = name != NULL && strcmp (name, wanted) == 0;
        }
      if (same)
        {
          g_array_append_val (at, k);
          if (!g_ptr_array_find_with_equal_func (distinct, names[k], g_str_equal, NULL))
            g_ptr_array_add (distinct, (gpointer) names[k]);
        }
      free (brief);
    }
  if (distinct->len > 1)
    {
      GString *list = g_string_new (NULL);

      g_ptr_array_sort (distinct, by_name);
      for (guint i = 0; i < distinct->len; i++)
        {
          if (i > 0)
            g_string_append (list, i + 1 == distinct->len ? _(" or ") : ", ");
          g_string_append (list, distinct->pdata[i]);
        }
      *several = g_string_free (list, FALSE);
      g_array_set_size (at, 0);
    }
  return at;
}

static char *
several_error (const Hypothesis *h,
               const Rule       *r,
               const char       *several)
{
  return g_strdup_printf (_("%s:%u:%u: region %s stands for several functions, %s: quote the one meant with its "
                            "parameter list"),
                          h->path, r->line, r->name_col, r->region_name, several);
}

void
sim_hypothesis_check_names (const Hypothesis   *h,
                            const char *const  *names,
                            guint               n,
                            const gboolean     *is_mpi,
                            GPtrArray          *errors)
{
  g_autofree gboolean *user = g_new (gboolean, MAX (n, 1));
  g_autoptr (GPtrArray) rules = h != NULL ? rules_by_line (h) : g_ptr_array_new ();

  for (guint i = 0; i < n; i++)
    user[i] = is_mpi == NULL || !is_mpi[i];
  for (guint i = 0; i < rules->len; i++)
    {
      Rule *r = rules->pdata[i];
      gboolean found, mpi = FALSE;
      g_autoptr (GArray) at = NULL;
      g_autofree char *several = NULL;

      if (!r->region_name)
        continue;
      at = region_matches (names, n, r->region_name, &several);
      found = at->len > 0;
      for (guint j = 0; j < at->len; j++)
        mpi |= is_mpi != NULL && is_mpi[g_array_index (at, guint, j)];
      if (several != NULL)
        g_ptr_array_add (errors, several_error (h, r, several));
      else if (!found)
        {
          g_autofree char *hint = suggest_among (names, user, n, r->region_name);
          g_ptr_array_add (errors, g_strdup_printf (_("%s:%u:%u: region %s is not in the report%s"), h->path, r->line,
                                                    r->name_col, r->region_name, hint));
        }
      else if (mpi && r->kind != RULE_REMOVE_REGION && is_parsed (h, r))
        g_ptr_array_add (errors, g_strdup_printf (_("%s:%u:%u: %s is an MPI function: its time comes from the re-enacted "
                                                    "communication; scale or balance the code around it instead"),
                                                  h->path, r->line, r->name_col, r->region_name));
    }
}

static void
resolve_into (Hypothesis      *h,
              const TraceDefs *defs,
              GPtrArray       *errors)
{
  g_autoptr (GPtrArray) rules = rules_by_line (h);

  for (guint i = 0; i < rules->len; i++)
    {
      Rule *r = rules->pdata[i];
      GArray *ids;
      GHashTableIter it;
      gpointer k, v;
      gboolean mpi = FALSE;
      g_autoptr (GPtrArray) names = NULL;
      g_autoptr (GArray) keys = NULL, at = NULL;
      g_autofree char *several = NULL;

      if (!r->region_name)
        continue;
      names = g_ptr_array_new ();
      keys = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_hash_table_iter_init (&it, defs->regions);
      while (g_hash_table_iter_next (&it, &k, &v))
        {
          guint32 id = GPOINTER_TO_UINT (k);

          g_ptr_array_add (names, ((TraceRegion *) v)->name);
          g_array_append_val (keys, id);
        }
      at = region_matches ((const char *const *) names->pdata, names->len, r->region_name, &several);
      if (several != NULL)
        {
          g_ptr_array_add (errors, several_error (h, r, several));
          continue;
        }
      ids = g_array_new (FALSE, FALSE, sizeof (guint32));
      for (guint j = 0; j < at->len; j++)
        {
          guint32 id = g_array_index (keys, guint32, g_array_index (at, guint, j));

          g_array_append_val (ids, id);
          mpi |= ((TraceRegion *) g_hash_table_lookup (defs->regions, GUINT_TO_POINTER (id)))->klass != RC_USER;
        }
      if (ids->len == 0)
        {
          g_autofree char *hint = suggestions (defs, r->region_name);
          g_array_unref (ids);
          g_ptr_array_add (errors, g_strdup_printf (_("%s:%u:%u: region %s is not in the trace%s"), h->path, r->line,
                                                    r->name_col, r->region_name, hint));
          continue;
        }
      if (mpi && r->kind != RULE_REMOVE_REGION && is_parsed (h, r))
        {
          g_array_unref (ids);
          g_ptr_array_add (errors, g_strdup_printf (_("%s:%u:%u: %s is an MPI function: its time comes from the "
                                                      "re-enacted communication; scale or balance the code around it "
                                                      "instead"),
                                                    h->path, r->line, r->name_col, r->region_name));
          continue;
        }
      g_free (r->regions);
      r->n_regions = ids->len;
      r->regions = (guint32 *) g_array_free (ids, FALSE);
    }
}

gboolean
sim_hypothesis_resolve (Hypothesis      *h,
                        const TraceDefs *defs,
                        GError         **error)
{
  g_autoptr (GPtrArray) errors = g_ptr_array_new_with_free_func (g_free);

  resolve_into (h, defs, errors);
  if (errors->len > 0)
    {
      set_errors (error, errors);
      return FALSE;
    }
  return TRUE;
}

/* The line and column of an error "PATH:LINE:COL: …" (0 where absent), after PATH's @skip bytes. */
static void
error_position (const char *message,
                gsize       skip,
                guint64     pos[2])
{
  const char *p = message + skip;
  char *end;

  pos[0] = pos[1] = 0;
  if (strlen (message) <= skip || *p != ':')
    return;
  pos[0] = g_ascii_strtoull (p + 1, &end, 10);
  if (*end == ':')
    pos[1] = g_ascii_strtoull (end + 1, NULL, 10);
}

/* By line, then column, as the Simulate dialog lists them; @data is PATH's length. */
static int
error_position_cmp (gconstpointer a,
                    gconstpointer b,
                    gpointer      data)
{
  guint64 x[2], y[2];

  error_position (*(const char *const *) a, GPOINTER_TO_SIZE (data), x);
  error_position (*(const char *const *) b, GPOINTER_TO_SIZE (data), y);
  if (x[0] != y[0])
    return x[0] < y[0] ? -1 : 1;
  return x[1] < y[1] ? -1 : x[1] > y[1];
}

Hypothesis *
sim_hypothesis_load_resolved (const char      *path,
                              const TraceDefs *defs,
                              GError         **error)
{
  gsize len = 0;
  g_autofree char *text = read_text (path, &len, error);
  g_autoptr (GPtrArray) errors = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (Hypothesis) h = NULL;

  if (text == NULL)
    return NULL;
  h = sim_hypothesis_parse_all (path, text, len, errors);
  if (h != NULL)
    resolve_into (h, defs, errors);
  if (errors->len > 0)
    {
      g_ptr_array_sort_with_data (errors, error_position_cmp, GSIZE_TO_POINTER (strlen (path)));
      set_errors (error, errors);
      return NULL;
    }
  return g_steal_pointer (&h);
}
