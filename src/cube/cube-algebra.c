/* cube-algebra.c — report algebra after Song et al.: difference, merge and mean of reports.
 *
 * The inputs' trees are integrated into one result before any value is computed:
 *   metrics    matched by unique name (union of the metric trees, first input's shape wins);
 *   call paths matched by the region names along the path (union of the call trees; the k-th
 *              of several sibling call sites of one region matches the k-th in other inputs);
 *   system     matched by (process rank, thread rank) (union; a location missing from an
 *              input is zero there).
 * Values are read with cube_report_get_row (CUBE 3 semantics: metric-inclusive,
 * call-exclusive), which are linear in the stored values, so the result is again a plain
 * CUBE 3 report built with the builder API. Minima and maxima have cells without a value: see
 * "values" below for what diff and mean make of them (docs/decisions/
 * 2026-11-28-cube-lazy-and-algebra.md, kubus-cube(1)). Derived metrics and metrics with an unsupported
 * dtype carry no values and are left out; their children become roots.
 * The topologies, attributes and mirrors are those of the first input.
 * See docs/decisions/algebra-integration.md. */
#include "cube-private.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

typedef enum
{
  ALGEBRA_DIFF,
  ALGEBRA_MERGE,
  ALGEBRA_MEAN,
} AlgebraOp;

/* How one input maps into the result. */
typedef struct
{
  CubeReport   *in;
  CubeCnode   **cnode_map;    /* input cnode index → result cnode */
  gint         *loc_map;      /* input location index → result location index */
  CubeSysNode **sys_map;      /* input sysnode index → result sysnode (first input only) */
  GStrv         loc_keys;     /* input location index → matching key */
} InputMap;

typedef struct
{
  CubeReport *out;
  GHashTable *region_by_name;  /* char* → CubeRegion* (result) */
  GHashTable *root_by_name;    /* char* → CubeCnode* (result call-tree roots) */
  GHashTable *child_by_name;   /* CubeCnode* → GHashTable (char* → CubeCnode*) */
  GHashTable *loc_by_key;      /* "prank/trank" → CubeSysNode* (result location) */
  GHashTable *proc_by_rank;    /* gint64* → CubeSysNode* (result process) */
} Builder;

static void
input_map_clear (InputMap *map)
{
  g_clear_pointer (&map->cnode_map, g_free);
  g_clear_pointer (&map->loc_map, g_free);
  g_clear_pointer (&map->sys_map, g_free);
  g_clear_pointer (&map->loc_keys, g_strfreev);
}

static void
builder_clear (Builder *b)
{
  g_clear_pointer (&b->region_by_name, g_hash_table_unref);
  g_clear_pointer (&b->root_by_name, g_hash_table_unref);
  g_clear_pointer (&b->child_by_name, g_hash_table_unref);
  g_clear_pointer (&b->loc_by_key, g_hash_table_unref);
  g_clear_pointer (&b->proc_by_rank, g_hash_table_unref);
}

static gboolean
metric_keeps_values (const CubeMetric *m)
{
  return cube_metric_has_data (m) && m->cubepl == NULL;
}

static const char *
region_name (const CubeCnode *c)
{
  return c->callee != NULL && c->callee->name != NULL ? c->callee->name : "";
}

/* ---- metrics ------------------------------------------------------------------------------- */

static CubeDtype
result_dtype (AlgebraOp op, CubeDtype dtype)
{
  if (op == ALGEBRA_MERGE || cube_dtype_is_minmax (dtype))
    return dtype;
  if (op == ALGEBRA_MEAN || dtype == CUBE_DTYPE_DOUBLE)
    return CUBE_DTYPE_DOUBLE;
  return CUBE_DTYPE_INT64; /* differences of counts are signed whole numbers */
}

/* The nearest ancestor of @m that the result keeps, as a result metric, or NULL (a root). */
static CubeMetric *
result_parent (CubeReport *out, const CubeMetric *m)
{
  for (const CubeMetric *p = m->parent; p != NULL; p = p->parent)
    if (metric_keeps_values (p))
      return cube_report_find_metric (out, p->uniq_name);
  return NULL;
}

static void
add_metrics (Builder *b, AlgebraOp op, CubeReport *in, gboolean first)
{
  /* report->metrics is in depth-first pre-order: parents come before their children. */
  for (guint i = 0; i < in->metrics->len; i++)
    {
      const CubeMetric *m = g_ptr_array_index (in->metrics, i);
      CubeMetric       *om;

      if (!metric_keeps_values (m) || cube_report_find_metric (b->out, m->uniq_name) != NULL)
        continue;
      om = cube_report_add_metric (b->out, result_parent (b->out, m), m->uniq_name, m->disp_name,
                                   result_dtype (op, m->dtype), m->uom, m->url, m->descr);
      cube_metric_set_string (&om->val, m->val);
      om->ghost = m->ghost;
      /* the first input's ids stay (unique there, so no clash); later ones get fresh ids */
      if (first)
        cube_metric_set_file_id (b->out, om, m->file_id);
    }
}

/* ---- call tree ----------------------------------------------------------------------------- */

static CubeRegion *
result_region (Builder *b, const CubeRegion *r)
{
  const char *name = r != NULL && r->name != NULL ? r->name : "";
  CubeRegion *oreg = g_hash_table_lookup (b->region_by_name, name);

  if (oreg != NULL)
    return oreg;
  oreg = cube_report_add_region (b->out, name, r ? r->mod : NULL, r ? r->begin_line : -1,
                               r ? r->end_line : -1);
  if (r != NULL)
    {
      cube_metric_set_string (&oreg->mangled_name, r->mangled_name);
      cube_metric_set_string (&oreg->paradigm, r->paradigm);
      cube_metric_set_string (&oreg->role, r->role);
      cube_metric_set_string (&oreg->url, r->url);
      cube_metric_set_string (&oreg->descr, r->descr);
    }
  g_hash_table_insert (b->region_by_name, oreg->name, oreg);
  return oreg;
}

/* For every call path of @in, how many earlier siblings call the same region (0 for the first).
 * One pass over each child list with a name → count table: counting by scanning the siblings
 * for each call path was quadratic in the width of the tree. */
static guint *
sibling_ordinals (const CubeReport *in)
{
  guint *ord = g_new0 (guint, MAX (in->cnodes->len, 1));
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i <= in->cnodes->len; i++)
    {
      /* i == cnodes->len stands for the list of roots */
      GPtrArray *kids = i < in->cnodes->len
                            ? ((CubeCnode *) g_ptr_array_index (in->cnodes, i))->children
                            : in->cnode_roots;

      if (kids->len < 2)
        continue;
      g_hash_table_remove_all (seen);
      for (guint k = 0; k < kids->len; k++)
        {
          const CubeCnode *c = g_ptr_array_index (kids, k);
          guint            n = GPOINTER_TO_UINT (g_hash_table_lookup (seen, region_name (c)));

          ord[c->index] = n;
          g_hash_table_insert (seen, (gpointer) region_name (c), GUINT_TO_POINTER (n + 1));
        }
    }
  return ord;
}

/* Key of @c among its siblings: the region name, plus "\x01k" for the k-th (k > 0) sibling that
 * calls the same region. Distinct call sites of one region thus stay distinct when a report
 * meets itself, and still match by name across reports. */
static char *
sibling_key (const CubeCnode *c, guint ordinal)
{
  const char *name = region_name (c);

  /* \x01 cannot occur in XML 1.0 text, so the suffix never collides with a real name */
  return ordinal == 0 ? g_strdup (name) : g_strdup_printf ("%s\x01%u", name, ordinal);
}

static void
map_cnodes (Builder *b, InputMap *map, gboolean first)
{
  CubeReport       *in = map->in;
  g_autofree guint *ordinals = sibling_ordinals (in);

  map->cnode_map = g_new0 (CubeCnode *, MAX (in->cnodes->len, 1));
  /* pre-order: a parent is mapped before its children */
  for (guint i = 0; i < in->cnodes->len; i++)
    {
      const CubeCnode *c = g_ptr_array_index (in->cnodes, i);
      CubeCnode       *oparent = c->parent ? map->cnode_map[c->parent->index] : NULL;
      GHashTable      *siblings;
      CubeCnode       *oc;
      char            *key = sibling_key (c, ordinals[i]);

      if (oparent == NULL)
        siblings = b->root_by_name;
      else
        {
          siblings = g_hash_table_lookup (b->child_by_name, oparent);
          if (siblings == NULL)
            {
              siblings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
              g_hash_table_insert (b->child_by_name, oparent, siblings);
            }
        }
      oc = g_hash_table_lookup (siblings, key);
      if (oc == NULL)
        {
          oc = cube_report_add_cnode (b->out, oparent, result_region (b, c->callee), c->line,
                                      c->mod);
          /* Call paths keep the first input's ids, so `mean A A` dumps exactly like A and a
           * difference's rows can be looked up in A. The first input's ids are unique and it
           * contributes before any other input, so this never clashes. */
          if (first)
            cube_cnode_set_file_id (b->out, oc, c->file_id);
          g_hash_table_insert (siblings, key, oc);
        }
      else
        g_free (key);
      map->cnode_map[i] = oc;
    }
}

/* ---- system tree --------------------------------------------------------------------------- */

static gint64
process_rank_of (const CubeSysNode *s)
{
  for (const CubeSysNode *p = s->parent; p != NULL; p = p->parent)
    if (p->kind == CUBE_SYS_PROCESS)
      return p->rank;
  return -1;
}

/* Keys of an input's locations, in location order: "process rank/thread rank", plus "#k" for
 * the k-th repeat of the same pair (ranks should be unique, but a report meeting itself must
 * still map one to one). */
static GStrv
location_keys (const CubeReport *in)
{
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GStrv keys = g_new0 (char *, in->locations->len + 1);

  for (guint l = 0; l < in->locations->len; l++)
    {
      const CubeSysNode *t = g_ptr_array_index (in->locations, l);
      char              *pair = g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT,
                                                 process_rank_of (t), t->rank);
      guint              k = GPOINTER_TO_UINT (g_hash_table_lookup (seen, pair));

      keys[l] = k == 0 ? g_strdup (pair) : g_strdup_printf ("%s#%u", pair, k);
      g_hash_table_replace (seen, pair, GUINT_TO_POINTER (k + 1));
    }
  return keys;
}

static CubeSysNode *
copy_sysnode (Builder *b, CubeSysNode *oparent, const CubeSysNode *s)
{
  CubeSysNode *os = cube_report_add_sysnode (b->out, oparent, s->kind, s->name, s->rank);

  cube_metric_set_string (&os->descr, s->descr);
  cube_metric_set_string (&os->class_name, s->class_name);
  if (s->kind == CUBE_SYS_PROCESS && s->rank >= 0
      && !g_hash_table_contains (b->proc_by_rank, &s->rank))
    g_hash_table_insert (b->proc_by_rank, g_memdup2 (&s->rank, sizeof s->rank), os);
  return os;
}

/* The first input's system tree is copied whole, node for node. */
static void
copy_system (Builder *b, InputMap *map)
{
  CubeReport *in = map->in;
  g_autoptr (GPtrArray) stack = g_ptr_array_new ();

  map->sys_map = g_new0 (CubeSysNode *, MAX (in->sysnodes->len, 1));
  for (guint r = in->system_roots->len; r > 0; r--)
    g_ptr_array_add (stack, g_ptr_array_index (in->system_roots, r - 1));
  while (stack->len > 0)
    {
      const CubeSysNode *s = g_ptr_array_steal_index (stack, stack->len - 1);
      CubeSysNode       *oparent = s->parent ? map->sys_map[s->parent->index] : NULL;
      CubeSysNode       *os = copy_sysnode (b, oparent, s);

      map->sys_map[s->index] = os;
      if (s->kind == CUBE_SYS_THREAD && s->location >= 0
          && (guint) s->location < in->locations->len)
        g_hash_table_insert (b->loc_by_key, g_strdup (map->loc_keys[s->location]), os);
      for (guint k = s->children->len; k > 0; k--)
        g_ptr_array_add (stack, g_ptr_array_index (s->children, k - 1));
    }
}

/* Finds or creates the result node for @s (not a thread) of a later input: a process by rank,
 * anything else by kind and name under the matching parent. Iterative (Cube 4 system trees
 * may nest arbitrarily deep): first up to the nearest process the result already has, then
 * down again, matching or copying each level. */
static CubeSysNode *
result_container (Builder *b, const CubeSysNode *s)
{
  g_autoptr (GPtrArray) chain = g_ptr_array_new ();
  CubeSysNode *o = NULL;

  for (const CubeSysNode *a = s; a != NULL; a = a->parent)
    {
      if (a->kind == CUBE_SYS_PROCESS && a->rank >= 0
          && (o = g_hash_table_lookup (b->proc_by_rank, &a->rank)) != NULL)
        break;
      g_ptr_array_add (chain, (gpointer) a);
    }
  for (guint i = chain->len; i-- > 0;)
    {
      const CubeSysNode *a = g_ptr_array_index (chain, i);
      GPtrArray         *candidates = o ? o->children : b->out->system_roots;
      CubeSysNode       *found = NULL;

      if (a->kind != CUBE_SYS_PROCESS)
        for (guint k = 0; k < candidates->len && found == NULL; k++)
          {
            CubeSysNode *c = g_ptr_array_index (candidates, k);
            if (c->kind == a->kind && g_strcmp0 (c->name, a->name) == 0)
              found = c;
          }
      o = found != NULL ? found : copy_sysnode (b, o, a);
    }
  return o;
}

static void
map_locations (Builder *b, InputMap *map, gboolean first)
{
  CubeReport *in = map->in;

  map->loc_keys = location_keys (in);
  if (first)
    copy_system (b, map);
  else
    for (guint l = 0; l < in->locations->len; l++)
      {
        const CubeSysNode *t = g_ptr_array_index (in->locations, l);

        if (!g_hash_table_contains (b->loc_by_key, map->loc_keys[l]))
          {
            CubeSysNode *parent = t->parent ? result_container (b, t->parent) : NULL;
            CubeSysNode *ot = copy_sysnode (b, parent, t);

            g_hash_table_insert (b->loc_by_key, g_strdup (map->loc_keys[l]), ot);
          }
      }
}

/* After the system tree is complete: result location indices are final. */
static void
finish_location_map (Builder *b, InputMap *map)
{
  CubeReport *in = map->in;

  map->loc_map = g_new (gint, MAX (in->locations->len, 1));
  for (guint l = 0; l < in->locations->len; l++)
    {
      const CubeSysNode *t = g_ptr_array_index (in->locations, l);
      CubeSysNode       *ot;

      if (map->sys_map != NULL)
        ot = map->sys_map[t->index];
      else
        ot = g_hash_table_lookup (b->loc_by_key, map->loc_keys[l]);
      map->loc_map[l] = ot->location;
    }
}

static void
copy_topologies (Builder *b, const InputMap *first)
{
  CubeReport *in = first->in;

  for (guint i = 0; i < in->topologies->len; i++)
    {
      const CubeCart    *cart = g_ptr_array_index (in->topologies, i);
      g_autofree gint64 *sizes = g_new (gint64, MAX (cart->ndims, 1));
      g_autofree gboolean *periodic = g_new (gboolean, MAX (cart->ndims, 1));
      CubeCart          *oc;

      for (guint d = 0; d < cart->ndims; d++)
        {
          sizes[d] = cart->dims[d].size;
          periodic[d] = cart->dims[d].periodic;
        }
      oc = cube_report_add_cart (b->out, cart->name, cart->ndims, sizes, periodic);
      for (guint d = 0; d < cart->ndims; d++)
        if (cart->dims[d].name != NULL)
          cube_cart_set_dim_name (oc, d, cart->dims[d].name);
      for (guint k = 0; k < cart->coords->len; k++)
        {
          const CubeCartCoord *cc = g_ptr_array_index (cart->coords, k);
          cube_cart_set_coord (oc, first->sys_map[cc->node->index], cc->coord);
        }
    }
}

/* ---- values --------------------------------------------------------------------------------
 *
 * Sums (times, counts, bytes): a missing metric, call path or location is zero there, so
 * diff = A − B and mean = (Σ inputs) / n cell by cell, linear in the stored values.
 * Minima and maxima (MINDOUBLE / MAXDOUBLE): a missing cell has no value, not 0 (the call path
 * was not visited there). diff = A − B only where both have a value; mean = the mean over the
 * inputs that have one; merge = the value of the input that provides the metric; elsewhere
 * the result has no value either (also on a location that input lacks). The counts of inputs with a
 * value are kept per cell next to the sums while accumulating. */

typedef struct
{
  double *sum;     /* the result row (owned by the report) */
  guint  *count;   /* min/max metrics: inputs with a value per location; NULL for sums */
} OutRow;

/* Adds weight × (values of @m in @map->in) into result metric @om. */
static gboolean
accumulate (CubeReport       *out,
            CubeMetric       *om,
            const InputMap   *map,
            const CubeMetric *m,
            double            weight,
            GHashTable       *counts,
            GError          **error)
{
  CubeReport        *in = map->in;
  guint              nl = in->locations->len;
  gboolean           minmax = counts != NULL;
  g_autofree double *row = g_new (double, MAX (nl, 1));

  for (guint c = 0; c < in->cnodes->len; c++)
    {
      const CubeCnode *cn = g_ptr_array_index (in->cnodes, c);
      gboolean         nonzero = FALSE;
      double          *orow;
      guint           *crow = NULL;

      if (!cube_report_get_row (in, m, cn, row, error))
        return FALSE;
      for (guint l = 0; l < nl && !nonzero; l++)
        nonzero = row[l] != 0.0;
      if (!nonzero)
        continue; /* a sum adds nothing; a min/max row of zeros is an absent row (no values) */
      orow = cube_metric_alloc_row (out, om, map->cnode_map[c]->index);
      if (minmax)
        {
          crow = g_hash_table_lookup (counts, orow);
          if (crow == NULL)
            {
              crow = g_new0 (guint, MAX (out->locations->len, 1));
              g_hash_table_insert (counts, orow, crow);
            }
        }
      for (guint l = 0; l < nl; l++)
        {
          if (minmax && cube_value_is_none (m, row[l]))
            continue;
          orow[map->loc_map[l]] += weight * row[l];
          if (minmax)
            crow[map->loc_map[l]]++;
        }
    }
  return TRUE;
}

/* The metric's final values: sums divided by @divisor (mean); min/max cells where enough
 * inputs had a value (diff: both; mean: one or more, divided by their number), else the "no
 * value" marker. Rows without a non-zero value (a − a) are dropped, so results stay sparse: an
 * all-zero row of a minimum or maximum reads as "no values" in every reader anyway. */
static void
finish_metric (CubeReport *out, CubeMetric *om, AlgebraOp op, double divisor, GHashTable *counts)
{
  guint  nl = out->locations->len;
  double none = om->dtype == CUBE_DTYPE_MAXDOUBLE ? -G_MAXDOUBLE : G_MAXDOUBLE;

  for (guint c = 0; c < om->data->n_rows; c++)
    {
      double  *row = om->data->rows[c];
      gboolean keep = FALSE;

      if (row == NULL)
        continue;
      if (counts != NULL)
        {
          const guint *crow = g_hash_table_lookup (counts, row);

          for (guint l = 0; l < nl; l++)
            {
              guint k = crow != NULL ? crow[l] : 0;

              if (op == ALGEBRA_DIFF ? k == 2 : k >= 1)
                {
                  if (op == ALGEBRA_MEAN)
                    row[l] /= k;
                  /* a row of zeros reads as an absent row (no values), as in a file */
                  keep = keep || row[l] != 0.0;
                }
              else
                row[l] = none;
            }
        }
      else
        for (guint l = 0; l < nl; l++)
          {
            if (divisor != 1.0)
              row[l] /= divisor;
            keep = keep || row[l] != 0.0;
          }
      if (!keep)
        cube_metric_drop_row (out, om, c);
    }
}

static CubeReport *
algebra_run (AlgebraOp op, CubeReport **reports, guint n, GError **error)
{
  g_autoptr (CubeReport) out = NULL;
  Builder   b = { 0 };
  InputMap *maps;
  gboolean  ok = TRUE;

  if (n == 0)
    {
      cube_set_error (error, CUBE_ERROR_USAGE, NULL, _("no reports given"));
      return NULL;
    }
  for (guint k = 0; k < n; k++)
    if (reports[k] == NULL)
      {
        cube_set_error (error, CUBE_ERROR_USAGE, NULL, _("report %u is missing"), k + 1);
        return NULL;
      }

  out = cube_report_new ();
  b.out = out;
  b.region_by_name = g_hash_table_new (g_str_hash, g_str_equal);
  b.root_by_name = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  b.child_by_name = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                           (GDestroyNotify) g_hash_table_unref);
  b.loc_by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  b.proc_by_rank = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  maps = g_new0 (InputMap, n);

  {
    CubeReport *first = reports[0];

    for (guint i = 0; i < first->attrs->len; i++)
      {
        const CubeAttr *attr = g_ptr_array_index (first->attrs, i);
        cube_report_set_attr (out, attr->key, attr->value);
      }
    for (guint i = 0; i < first->mirrors->len; i++)
      cube_report_add_mirror (out, g_ptr_array_index (first->mirrors, i));
    out->ct_aggr_max = first->ct_aggr_max;
  }

  /* 1. integrate the trees */
  for (guint k = 0; k < n; k++)
    {
      maps[k].in = reports[k];
      add_metrics (&b, op, reports[k], k == 0);
      map_cnodes (&b, &maps[k], k == 0);
      map_locations (&b, &maps[k], k == 0);
    }
  for (guint k = 0; k < n; k++)
    finish_location_map (&b, &maps[k]);
  copy_topologies (&b, &maps[0]);

  /* 2. values */
  for (guint i = 0; ok && i < out->metrics->len; i++)
    {
      CubeMetric *om = g_ptr_array_index (out->metrics, i);
      gboolean    minmax = cube_dtype_is_minmax (om->dtype);
      g_autoptr (GHashTable) counts = minmax ? g_hash_table_new_full (NULL, NULL, NULL, g_free)
                                             : NULL;

      /* A minimum or maximum that only one report has (profile.cube's min_time against an
       * analysis.cube): its difference to nothing is not −min or +min but no value at all. */
      if (op == ALGEBRA_DIFF && minmax
          && (cube_report_find_metric (reports[0], om->uniq_name) == NULL
              || cube_report_find_metric (reports[1], om->uniq_name) == NULL))
        continue;
      for (guint k = 0; ok && k < n; k++)
        {
          CubeMetric *m = cube_report_find_metric (reports[k], om->uniq_name);
          double      weight = 1.0;

          if (m == NULL || !metric_keeps_values (m))
            continue;
          if (op == ALGEBRA_DIFF && k > 0)
            weight = -1.0;
          ok = accumulate (out, om, &maps[k], m, weight, counts, error);
          if (op == ALGEBRA_MERGE)
            break; /* the first input that has the metric provides it */
        }
      if (ok)
        finish_metric (out, om, op, op == ALGEBRA_MEAN ? (double) n : 1.0, counts);
    }
  cube_report_invalidate_values (out);
  if (op == ALGEBRA_DIFF)
    {
      g_autofree char *na = g_path_get_basename (reports[0]->path ? reports[0]->path : "A");
      g_autofree char *nb = g_path_get_basename (reports[1]->path ? reports[1]->path : "B");
      g_autofree char *what = g_strdup_printf ("%s − %s", na, nb);
      cube_report_set_attr (out, CUBE_ATTR_DIFFERENCE, what);
    }
  else
    for (guint k = 0; k < n; k++)
      if (!cube_report_is_plain (reports[k]))
        cube_report_set_attr (out, CUBE_ATTR_DIFFERENCE,
                              cube_report_get_attr (reports[k], CUBE_ATTR_DIFFERENCE));

  for (guint k = 0; k < n; k++)
    input_map_clear (&maps[k]);
  g_free (maps);
  builder_clear (&b);
  return ok ? g_steal_pointer (&out) : NULL;
}

CubeReport *
cube_algebra_diff (CubeReport *a, CubeReport *b, GError **error)
{
  CubeReport *reports[2] = { a, b };

  return algebra_run (ALGEBRA_DIFF, reports, 2, error);
}

CubeReport *
cube_algebra_merge (CubeReport **reports, guint n, GError **error)
{
  return algebra_run (ALGEBRA_MERGE, reports, n, error);
}

CubeReport *
cube_algebra_mean (CubeReport **reports, guint n, GError **error)
{
  return algebra_run (ALGEBRA_MEAN, reports, n, error);
}
