/* kubus-pane-model.c — see kubus-pane-model.h. */
#include <glib/gi18n.h>
#include <math.h>

#include "kubus-node.h"
#include "kubus-pane-model-private.h"

enum
{
  PROP_0,
  PROP_SELECTION,
  N_PROPS
};

enum
{
  VALUES_CHANGED,
  N_SIGNALS
};

static GParamSpec *props[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (KubusPaneModel, kubus_pane_model, G_TYPE_OBJECT)

static void
clear_chain (KubusPaneModel *self)
{
  g_clear_object (&self->selection);
  g_clear_object (&self->filtered);
  g_clear_object (&self->sorted);
  g_clear_object (&self->row_sorter);
  g_clear_object (&self->value_sorter);
  g_clear_object (&self->name_sorter);
  g_clear_object (&self->filter);
  g_clear_object (&self->tree);
  g_clear_object (&self->roots);
}

static void
kubus_pane_model_finalize (GObject *object)
{
  KubusPaneModel *self = KUBUS_PANE_MODEL (object);

  clear_chain (self);
  g_free (self->incl);
  g_free (self->excl);
  g_free (self->metric_percent);
  g_free (self->metric_external);
  g_free (self->metric_root_incl);
  g_free (self->peer_min);
  g_free (self->peer_max);
  g_free (self->unit);
  g_clear_pointer (&self->matches, g_hash_table_unref);
  g_clear_pointer (&self->match_list, g_ptr_array_unref);
  g_clear_pointer (&self->pinned, g_hash_table_unref);
  G_OBJECT_CLASS (kubus_pane_model_parent_class)->finalize (object);
}

static void
kubus_pane_model_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  KubusPaneModel *self = KUBUS_PANE_MODEL (object);

  switch (prop_id)
    {
    case PROP_SELECTION:
      g_value_set_object (value, self->selection);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
kubus_pane_model_class_init (KubusPaneModelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = kubus_pane_model_finalize;
  object_class->get_property = kubus_pane_model_get_property;

  props[PROP_SELECTION] = g_param_spec_object ("selection", NULL, NULL, GTK_TYPE_SELECTION_MODEL,
                                               G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);

  /* Values, mode or colours changed: visible cells should re-read. */
  signals[VALUES_CHANGED] = g_signal_new ("values-changed", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 0);
}

static void
kubus_pane_model_init (KubusPaneModel *self)
{
  self->mode = KUBUS_MODE_ABSOLUTE;
  self->scale = KUBUS_SCALE_RAINBOW;
  self->insignificant = 0.01;
  self->digits = 2;
  self->common_exponent = TRUE;
  self->match_pos = -1;
}

KubusPaneModel *
kubus_pane_model_new (KubusPaneKind kind,
                      CubeReport   *report)
{
  KubusPaneModel *self = g_object_new (KUBUS_TYPE_PANE_MODEL, NULL);

  self->kind = kind;
  self->report = report;
  switch (kind)
    {
    case KUBUS_PANE_METRIC:
      self->n_values = report->metrics->len;
      self->metric_percent = g_new0 (double, MAX (self->n_values, 1));
      self->metric_external = g_new0 (double, MAX (self->n_values, 1));
      self->metric_root_incl = g_new0 (double, MAX (self->n_values, 1));
      break;
    case KUBUS_PANE_CALL:
      self->n_values = report->cnodes->len;
      break;
    case KUBUS_PANE_SYSTEM:
    default:
      self->n_values = report->sysnodes->len;
      for (guint i = 0; i < report->sysnodes->len; i++)
        {
          CubeSysNode *n = g_ptr_array_index (report->sysnodes, i);
          self->n_depths = MAX (self->n_depths, n->depth + 1);
        }
      self->peer_min = g_new0 (double, MAX (self->n_depths, 1));
      self->peer_max = g_new0 (double, MAX (self->n_depths, 1));
      break;
    }
  self->incl = g_new0 (double, MAX (self->n_values, 1));
  self->excl = g_new0 (double, MAX (self->n_values, 1));
  return self;
}

/* ---- model chain ------------------------------------------------------------------------ */

static GListModel *
create_children (gpointer item,
                 gpointer user_data)
{
  KubusNodeRow *row = item;
  KubusNodeKind child_kind;
  g_autoptr (GPtrArray) children = kubus_node_children (kubus_node_row_get_kind (row),
                                                        kubus_node_row_get_node (row),
                                                        &child_kind);

  (void) user_data;
  if (children == NULL)
    return NULL;
  return G_LIST_MODEL (kubus_node_list_new (child_kind, children->pdata, children->len));
}

static double
row_incl (KubusPaneModel *self,
          KubusNodeRow   *row)
{
  return kubus_pane_model_raw_value (self, row, FALSE);
}

/* By value: largest magnitude first (differences: losses and gains alike); ties keep file
 * order. A custom sorter: the comparison is two array reads, as cheap as a numeric key
 * (GtkNumericSorter with a closure expression measured no faster in bench/gui). */
static int
compare_values (gconstpointer a,
                gconstpointer b,
                gpointer      user_data)
{
  KubusPaneModel *self = user_data;
  double va = fabs (row_incl (self, (KubusNodeRow *) a)), vb = fabs (row_incl (self, (KubusNodeRow *) b));

  if (va != vb)
    return va > vb ? GTK_ORDERING_SMALLER : GTK_ORDERING_LARGER;
  return GTK_ORDERING_EQUAL;
}

/* By name: a GtkStringSorter makes one collation key per row when a sort starts (or rows are
 * added) and then compares keys, where g_utf8_collate in a custom sorter collated both names
 * again in each of the ~n log n comparisons (bench/gui: 10,000 children). */
static char *
row_sort_name (KubusNodeRow *row,
               gpointer      user_data)
{
  (void) user_data;
  return g_strdup (kubus_node_name (kubus_node_row_get_kind (row), kubus_node_row_get_node (row)));
}

static void
make_sorters (KubusPaneModel *self)
{
  GtkExpression *name = gtk_cclosure_expression_new (G_TYPE_STRING, NULL, 0, NULL,
                                                      G_CALLBACK (row_sort_name), NULL, NULL);

  self->value_sorter = GTK_SORTER (gtk_custom_sorter_new (compare_values, self, NULL));
  self->name_sorter = GTK_SORTER (gtk_string_sorter_new (name));
  gtk_string_sorter_set_ignore_case (GTK_STRING_SORTER (self->name_sorter), FALSE);
}

static gboolean
filter_row (gpointer item,
            gpointer user_data)
{
  KubusPaneModel *self = user_data;
  g_autoptr (KubusNodeRow) row = gtk_tree_list_row_get_item (GTK_TREE_LIST_ROW (item));
  double v = fabs (row_incl (self, row));
  double range = self->max_abs;

  /* A selected row never disappears: the panes to its right show its values, and a
   * selection lost to a filter would silently blank them. */
  if (self->pinned != NULL && g_hash_table_contains (self->pinned, kubus_node_row_get_node (row)))
    return TRUE;
  if (self->hide_zero && v == 0.0)
    return FALSE;
  /* Metrics of different units do not share a range: each compares with its own root. */
  if (self->kind == KUBUS_PANE_METRIC && self->metric_root_incl != NULL)
    {
      guint i = ((const CubeMetric *) kubus_node_row_get_node (row))->index;
      range = i < self->n_values ? fabs (self->metric_root_incl[i]) : 0;
    }
  if (self->hide_below > 0 && range > 0 && v / range * 100.0 < self->hide_below)
    return FALSE;
  return TRUE;
}

/* While a pane is unsorted and unfiltered its sort and filter models pass items through with no
 * sorter or filter at all: expanding a node with 10,000 children then costs no comparisons
 * (bench/gui, docs/decisions/gui-speed.md). */
static void
update_pass_through (KubusPaneModel *self)
{
  gboolean filtering = self->hide_zero || self->hide_below > 0;

  if (self->row_sorter != NULL)
    gtk_tree_list_row_sorter_set_sorter (self->row_sorter, self->sort == KUBUS_SORT_NAME
                                                           ? self->name_sorter : self->value_sorter);
  if (self->sorted != NULL)
    gtk_sort_list_model_set_sorter (self->sorted, self->sort == KUBUS_SORT_NONE
                                                  ? NULL : GTK_SORTER (self->row_sorter));
  if (self->filtered != NULL)
    gtk_filter_list_model_set_filter (self->filtered, filtering ? GTK_FILTER (self->filter) : NULL);
}

/* Re-runs the row filter, keeping the currently selected rows visible. Pinning may keep rows
 * a stricter filter would drop, so the change is always "different". */
static void
refilter (KubusPaneModel *self)
{
  g_autoptr (GtkBitset) set = NULL;
  GtkBitsetIter iter;
  guint pos;

  if (self->selection == NULL)
    return;
  if (self->pinned == NULL)
    self->pinned = g_hash_table_new (NULL, NULL);
  g_hash_table_remove_all (self->pinned);
  set = gtk_selection_model_get_selection (GTK_SELECTION_MODEL (self->selection));
  if (gtk_bitset_iter_init_first (&iter, set, &pos))
    do
      {
        g_autoptr (GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (self->selection), pos);
        g_autoptr (KubusNodeRow) item = row != NULL ? gtk_tree_list_row_get_item (row) : NULL;

        if (item != NULL)
          g_hash_table_add (self->pinned, kubus_node_row_get_node (item));
      }
    while (gtk_bitset_iter_next (&iter, &pos));
  update_pass_through (self);
  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
}

void
kubus_pane_model_set_roots (KubusPaneModel *self,
                            KubusNodeKind   kind,
                            gpointer const *nodes,
                            guint           n_nodes)
{
  clear_chain (self);
  self->root_kind = kind;
  self->roots = kubus_node_list_new (kind, nodes, n_nodes);
  self->tree = gtk_tree_list_model_new (g_object_ref (G_LIST_MODEL (self->roots)), FALSE, FALSE,
                                        create_children, self, NULL);
  make_sorters (self);
  self->row_sorter = gtk_tree_list_row_sorter_new (g_object_ref (self->value_sorter));
  self->sorted = gtk_sort_list_model_new (g_object_ref (G_LIST_MODEL (self->tree)),
                                          g_object_ref (GTK_SORTER (self->row_sorter)));
  self->filter = gtk_custom_filter_new (filter_row, self, NULL);
  self->filtered = gtk_filter_list_model_new (g_object_ref (G_LIST_MODEL (self->sorted)),
                                              g_object_ref (GTK_FILTER (self->filter)));
  update_pass_through (self);
  self->selection = gtk_multi_selection_new (g_object_ref (G_LIST_MODEL (self->filtered)));
  g_clear_pointer (&self->matches, g_hash_table_unref);
  g_clear_pointer (&self->match_list, g_ptr_array_unref);
  g_clear_pointer (&self->pinned, g_hash_table_unref);
  self->match_pos = -1;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_SELECTION]);
}

KubusPaneKind
kubus_pane_model_get_kind (KubusPaneModel *self)
{
  return self->kind;
}

GtkSelectionModel *
kubus_pane_model_get_selection (KubusPaneModel *self)
{
  return GTK_SELECTION_MODEL (self->selection);
}

GtkTreeListModel *
kubus_pane_model_get_tree (KubusPaneModel *self)
{
  return self->tree;
}

/* ---- values ------------------------------------------------------------------------------ */

static guint
node_index (KubusNodeKind kind,
            gconstpointer node)
{
  switch (kind)
    {
    case KUBUS_NODE_METRIC:
      return ((const CubeMetric *) node)->index;
    case KUBUS_NODE_CNODE:
      return ((const CubeCnode *) node)->index;
    case KUBUS_NODE_SYSNODE:
      return ((const CubeSysNode *) node)->index;
    default:
      return G_MAXUINT;
    }
}

static double
node_raw_value (KubusPaneModel *self,
                KubusNodeKind   kind,
                gconstpointer   node,
                gboolean        expanded)
{
  switch (kind)
    {
    case KUBUS_NODE_METRIC:
    case KUBUS_NODE_CNODE:
    case KUBUS_NODE_SYSNODE:
      {
        guint i = node_index (kind, node);
        if (i >= self->n_values)
          return 0;
        return expanded ? self->excl[i] : self->incl[i];
      }
    case KUBUS_NODE_FLAT_REGION:
      return expanded ? ((const KubusFlatRegion *) node)->excl : ((const KubusFlatRegion *) node)->incl;
    case KUBUS_NODE_MODULE_REGION:
      return ((const KubusFlatRegion *) node)->excl;
    case KUBUS_NODE_FLAT_CALLEE:
      return ((const KubusFlatCallee *) node)->value;
    case KUBUS_NODE_MODULE:
      return expanded ? 0.0 : ((const KubusModule *) node)->incl;
    default:
      return 0;
    }
}

double
kubus_pane_model_raw_value (KubusPaneModel *self,
                            KubusNodeRow   *row,
                            gboolean        expanded)
{
  return node_raw_value (self, kubus_node_row_get_kind (row), kubus_node_row_get_node (row),
                         expanded);
}

static double
node_display_value (KubusPaneModel *self,
                    KubusNodeKind   kind,
                    gconstpointer   node,
                    gboolean        expanded)
{
  double v = node_raw_value (self, kind, node, expanded);
  double d = NAN;
  KubusValueMode mode = self->mode;

  if (!kubus_pane_model_mode_available (self, mode))
    mode = KUBUS_MODE_ABSOLUTE;
  switch (mode)
    {
    case KUBUS_MODE_ABSOLUTE:
      return v;
    case KUBUS_MODE_PERCENT:
    case KUBUS_MODE_RELATIVE:
      if (self->kind == KUBUS_PANE_METRIC)
        d = self->metric_percent[node_index (kind, node)];
      else
        d = mode == KUBUS_MODE_PERCENT ? self->denom_percent : self->denom_relative;
      break;
    case KUBUS_MODE_EXTERNAL:
      d = self->kind == KUBUS_PANE_METRIC ? self->metric_external[node_index (kind, node)]
                                          : self->denom_external;
      break;
    case KUBUS_MODE_PEER_PERCENT:
    case KUBUS_MODE_PEER_DISTRIBUTION:
      {
        guint depth = kubus_node_depth (kind, node);
        double lo = depth < self->n_depths ? self->peer_min[depth] : 0;
        double hi = depth < self->n_depths ? self->peer_max[depth] : 0;

        if (mode == KUBUS_MODE_PEER_PERCENT)
          return hi != 0 ? v / hi * 100.0 : 0.0;
        if (!(hi > lo))
          return 0.0;
        /* Peers are compared by their inclusive values; an expanded row's exclusive value
         * (usually 0 above the threads) would land far outside the peer range. */
        if (expanded)
          return CLAMP ((v - lo) / (hi - lo) * 100.0, 0.0, 100.0);
        return (v - lo) / (hi - lo) * 100.0;
      }
    case KUBUS_N_MODES:
    default:
      return v;
    }
  if (isnan (d) || d == 0.0)
    return v == 0.0 ? 0.0 : NAN;
  return v / d * 100.0;
}

double
kubus_pane_model_display_value (KubusPaneModel *self,
                                KubusNodeRow   *row,
                                gboolean        expanded)
{
  return node_display_value (self, kubus_node_row_get_kind (row), kubus_node_row_get_node (row),
                             expanded);
}

static char *
format_number (KubusPaneModel *self,
               double          v,
               gboolean        per_row_exponent)
{
  KubusValueMode mode = kubus_pane_model_mode_available (self, self->mode) ? self->mode
                                                                            : KUBUS_MODE_ABSOLUTE;

  if (isnan (v))
    return g_strdup ("–");
  if (mode != KUBUS_MODE_ABSOLUTE)
    return g_strdup_printf ("%.*f", (int) self->digits, v);
  if (per_row_exponent || !self->common_exponent)
    {
      double a = fabs (v);
      if (v == 0.0)
        return g_strdup ("0");
      if (a >= 0.01 && a < 1e4)
        return g_strdup_printf ("%.*f", (a == floor (a) ? 0 : (int) self->digits), v);
      return g_strdup_printf ("%.*e", (int) self->digits, v);
    }
  if (self->exponent != 0)
    v /= pow (10.0, self->exponent);
  if (self->integer_values && self->exponent == 0)
    return g_strdup_printf ("%.0f", v);
  return g_strdup_printf ("%.*f", (int) self->digits, v);
}

char *
kubus_pane_model_format_value (KubusPaneModel *self,
                               KubusNodeRow   *row,
                               gboolean        expanded)
{
  double v = kubus_pane_model_display_value (self, row, expanded);

  /* The metric pane mixes units (seconds, visits, bytes): no common exponent there. */
  return format_number (self, v, self->kind == KUBUS_PANE_METRIC);
}

double
kubus_pane_model_node_value (KubusPaneModel *self,
                             KubusNodeKind   kind,
                             gconstpointer   node,
                             gboolean        expanded)
{
  return node_display_value (self, kind, node, expanded);
}

char *
kubus_pane_model_format_number (KubusPaneModel *self,
                                double          value)
{
  return format_number (self, value, TRUE);
}

const char *
kubus_pane_model_get_unit (KubusPaneModel *self)
{
  return self->unit != NULL ? self->unit : "";
}

gboolean
kubus_pane_model_row_color (KubusPaneModel *self,
                            KubusNodeRow   *row,
                            gboolean        expanded,
                            GdkRGBA        *color,
                            gboolean       *is_negative)
{
  double v = kubus_pane_model_raw_value (self, row, expanded);
  double fraction;

  *is_negative = v < 0;
  if (v == 0.0 || isnan (v))
    return FALSE;
  if (self->mode == KUBUS_MODE_PEER_PERCENT || self->mode == KUBUS_MODE_PEER_DISTRIBUTION)
    fraction = kubus_pane_model_display_value (self, row, expanded) / 100.0;
  else if (self->kind == KUBUS_PANE_METRIC)
    {
      double r = self->metric_root_incl[node_index (kubus_node_row_get_kind (row),
                                                    kubus_node_row_get_node (row))];
      fraction = r != 0 ? v / fabs (r) : 1.0;
    }
  else
    fraction = self->max_abs > 0 ? v / self->max_abs : 0;
  fraction = CLAMP (fraction, -1.0, 1.0);
  if (fraction == 0.0)
    fraction = v > 0 ? 1e-9 : -1e-9;
  return kubus_severity_color (self->scale, self->is_signed, fraction,
                               fabs (fraction) < self->insignificant, color);
}

static const char *
superscript (int digit)
{
  static const char *const sup[] = { "⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹" };
  return sup[digit % 10];
}

void
kubus_legend_info_clear (KubusLegendInfo *info)
{
  g_clear_pointer (&info->low, g_free);
  g_clear_pointer (&info->high, g_free);
  g_clear_pointer (&info->caption, g_free);
}

void
kubus_pane_model_get_legend (KubusPaneModel  *self,
                             KubusLegendInfo *info)
{
  KubusValueMode mode = kubus_pane_model_mode_available (self, self->mode) ? self->mode
                                                                            : KUBUS_MODE_ABSOLUTE;
  double hi;

  info->max_abs = self->max_abs;
  info->is_signed = self->is_signed;
  if (self->kind == KUBUS_PANE_METRIC)
    {
      info->low = g_strdup (self->is_signed ? "−" : "0");
      info->high = g_strdup ("");
      info->caption = g_strdup (mode == KUBUS_MODE_ABSOLUTE ? _("share of each metric root")
                                                             : _("% of the metric root"));
      return;
    }

  switch (mode)
    {
    case KUBUS_MODE_PEER_PERCENT:
    case KUBUS_MODE_PEER_DISTRIBUTION:
      info->low = g_strdup ("0");
      info->high = g_strdup ("100");
      info->caption = g_strdup (mode == KUBUS_MODE_PEER_PERCENT ? _("% of the largest peer")
                                                                 : _("% of the peer range"));
      return;
    case KUBUS_MODE_PERCENT:
      hi = self->denom_percent != 0 ? self->max_abs / fabs (self->denom_percent) * 100.0 : NAN;
      info->caption = g_strdup (_("% of total"));
      break;
    case KUBUS_MODE_RELATIVE:
      hi = self->denom_relative != 0 ? self->max_abs / fabs (self->denom_relative) * 100.0 : NAN;
      info->caption = g_strdup (_("% of selection"));
      break;
    case KUBUS_MODE_EXTERNAL:
      hi = self->denom_external != 0 && !isnan (self->denom_external)
           ? self->max_abs / fabs (self->denom_external) * 100.0 : NAN;
      info->caption = g_strdup (_("% of external total"));
      break;
    case KUBUS_MODE_ABSOLUTE:
    default:
      {
        GString *c = g_string_new (NULL);
        hi = self->max_abs;
        if (self->common_exponent && self->exponent != 0)
          {
            int e = ABS (self->exponent);
            g_string_append (c, "×10");
            if (self->exponent < 0)
              g_string_append (c, "⁻");
            if (e >= 100)
              g_string_append (c, superscript (e / 100));
            if (e >= 10)
              g_string_append (c, superscript ((e / 10) % 10));
            g_string_append (c, superscript (e % 10));
            g_string_append_c (c, ' ');
          }
        g_string_append (c, self->unit != NULL ? self->unit : "");
        info->caption = g_string_free (c, FALSE);
        break;
      }
    }
  {
    g_autofree char *h = format_number (self, hi, FALSE);
    info->high = self->is_signed ? g_strdup_printf ("±%s", h) : g_strdup (h);
    info->low = g_strdup (self->is_signed ? "−" : "0");
  }
}

static void
update_range_one (KubusPaneModel *self,
                  double          v)
{
  if (fabs (v) > self->max_abs)
    self->max_abs = fabs (v);
  if (v < 0)
    self->is_signed = TRUE;
}

static gboolean
metric_hidden (const CubeMetric *m)
{
  for (; m != NULL; m = m->parent)
    if (m->ghost)
      return TRUE;
  return FALSE;
}

void
kubus_pane_model_values_changed (KubusPaneModel *self)
{
  self->max_abs = 0;
  self->is_signed = FALSE;
  if (self->kind == KUBUS_PANE_CALL && self->call_view != KUBUS_CALL_VIEW_TREE)
    {
      for (guint r = 0; r < self->profile->regions->len; r++)
        {
          KubusFlatRegion *fr = g_ptr_array_index (self->profile->regions, r);
          update_range_one (self, fr->incl);
          update_range_one (self, fr->excl);
          for (guint c = 0; c < fr->callees->len; c++)
            update_range_one (self, ((KubusFlatCallee *) g_ptr_array_index (fr->callees, c))->value);
        }
      for (guint m = 0; m < self->profile->modules->len; m++)
        update_range_one (self, ((KubusModule *) g_ptr_array_index (self->profile->modules, m))->incl);
    }
  else
    for (guint i = 0; i < self->n_values; i++)
      {
        /* Hidden (ghost) metrics must not make the legend of what is shown diverging. */
        if (self->kind == KUBUS_PANE_METRIC && metric_hidden (g_ptr_array_index (self->report->metrics, i)))
          continue;
        update_range_one (self, self->incl[i]);
        /* Metric-exclusive values of derived or mixed metrics may dip below zero without
         * the report being a difference: only collapsed values decide the sign there. */
        if (self->kind != KUBUS_PANE_METRIC)
          update_range_one (self, self->excl[i]);
      }

  self->exponent = self->max_abs > 0 ? (int) floor (log10 (self->max_abs)) : 0;
  /* Small exponents read fine as plain numbers. */
  if (self->exponent >= 0 && self->exponent <= 3)
    self->exponent = 0;

  if (self->kind == KUBUS_PANE_SYSTEM)
    {
      for (guint d = 0; d < self->n_depths; d++)
        {
          self->peer_min[d] = INFINITY;
          self->peer_max[d] = -INFINITY;
        }
      for (guint i = 0; i < self->report->sysnodes->len; i++)
        {
          CubeSysNode *n = g_ptr_array_index (self->report->sysnodes, i);
          self->peer_min[n->depth] = MIN (self->peer_min[n->depth], self->incl[i]);
          self->peer_max[n->depth] = MAX (self->peer_max[n->depth], self->incl[i]);
        }
    }

  if (self->sort == KUBUS_SORT_VALUE)
    gtk_sorter_changed (self->value_sorter, GTK_SORTER_CHANGE_DIFFERENT);
  if (self->hide_zero || self->hide_below > 0)
    refilter (self);
  g_signal_emit (self, signals[VALUES_CHANGED], 0);
}

/* ---- settings ---------------------------------------------------------------------------- */

KubusValueMode
kubus_pane_model_get_mode (KubusPaneModel *self)
{
  return self->mode;
}

gboolean
kubus_pane_model_mode_available (KubusPaneModel *self,
                                 KubusValueMode  mode)
{
  switch (mode)
    {
    case KUBUS_MODE_PEER_PERCENT:
    case KUBUS_MODE_PEER_DISTRIBUTION:
      return self->kind == KUBUS_PANE_SYSTEM;
    case KUBUS_MODE_RELATIVE:
      return self->kind != KUBUS_PANE_METRIC;
    case KUBUS_MODE_EXTERNAL:
      return self->kind == KUBUS_PANE_METRIC ? self->metric_external != NULL
                                             : !isnan (self->denom_external);
    case KUBUS_MODE_ABSOLUTE:
    case KUBUS_MODE_PERCENT:
      return TRUE;
    case KUBUS_N_MODES:
    default:
      return FALSE;
    }
}

void
kubus_pane_model_set_mode (KubusPaneModel *self,
                           KubusValueMode  mode)
{
  if (self->mode == mode)
    return;
  self->mode = mode;
  g_signal_emit (self, signals[VALUES_CHANGED], 0);
}

void
kubus_pane_model_set_sort (KubusPaneModel *self,
                           KubusSortKind   sort)
{
  if (self->sort == sort)
    return;
  self->sort = sort;
  update_pass_through (self);
}

KubusSortKind
kubus_pane_model_get_sort (KubusPaneModel *self)
{
  return self->sort;
}

void
kubus_pane_model_set_hide_zero (KubusPaneModel *self,
                                gboolean        hide)
{
  if (self->hide_zero == hide)
    return;
  self->hide_zero = hide;
  refilter (self);
}

void
kubus_pane_model_set_hide_below (KubusPaneModel *self,
                                 double          percent)
{
  if (self->hide_below == percent)
    return;
  self->hide_below = percent;
  refilter (self);
}

void
kubus_pane_model_set_color_scale (KubusPaneModel *self,
                                  KubusColorScale scale,
                                  double          insignificant)
{
  self->scale = scale;
  self->insignificant = insignificant;
  g_signal_emit (self, signals[VALUES_CHANGED], 0);
}

void
kubus_pane_model_set_precision (KubusPaneModel *self,
                                guint           digits,
                                gboolean        common_exponent)
{
  self->digits = MIN (digits, 12);
  self->common_exponent = common_exponent;
  g_signal_emit (self, signals[VALUES_CHANGED], 0);
}

/* ---- rows, reveal, expand ---------------------------------------------------------------- */

KubusNodeRow *
kubus_pane_model_get_row (KubusPaneModel *self,
                          guint           position,
                          gboolean       *expanded)
{
  g_autoptr (GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (self->selection), position);

  if (row == NULL)
    return NULL;
  if (expanded != NULL)
    *expanded = gtk_tree_list_row_get_expanded (row);
  return gtk_tree_list_row_get_item (row);
}

static gconstpointer
node_parent (KubusPaneModel *self,
             KubusNodeKind   kind,
             gconstpointer   node,
             KubusNodeKind  *parent_kind)
{
  *parent_kind = kind;
  switch (kind)
    {
    case KUBUS_NODE_METRIC:
      return ((const CubeMetric *) node)->parent;
    case KUBUS_NODE_CNODE:
      return ((const CubeCnode *) node)->parent;
    case KUBUS_NODE_SYSNODE:
      return ((const CubeSysNode *) node)->parent;
    case KUBUS_NODE_MODULE_REGION:
      *parent_kind = KUBUS_NODE_MODULE;
      for (guint m = 0; self->profile != NULL && m < self->profile->modules->len; m++)
        {
          KubusModule *module = g_ptr_array_index (self->profile->modules, m);
          for (guint r = 0; r < module->regions->len; r++)
            if (g_ptr_array_index (module->regions, r) == node)
              return module;
        }
      return NULL;
    default:
      return NULL;
    }
}

static guint
position_of_row (KubusPaneModel *self,
                 GtkTreeListRow *target)
{
  GListModel *model = G_LIST_MODEL (self->selection);
  guint n = g_list_model_get_n_items (model);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GtkTreeListRow) row = g_list_model_get_item (model, i);
      if (row == target)
        return i;
    }
  return G_MAXUINT;
}

guint
kubus_pane_model_reveal (KubusPaneModel *self,
                         KubusNodeKind   kind,
                         gconstpointer   node)
{
  g_autoptr (GPtrArray) path = g_ptr_array_new ();
  g_autoptr (GtkTreeListRow) row = NULL;
  KubusNodeKind k = kind;
  guint pos;

  for (gconstpointer n = node; n != NULL; n = node_parent (self, k, n, &k))
    g_ptr_array_insert (path, 0, (gpointer) n);

  pos = kubus_node_list_find (self->roots, g_ptr_array_index (path, 0));
  if (pos == G_MAXUINT)
    return G_MAXUINT;
  row = gtk_tree_list_model_get_child_row (self->tree, pos);
  for (guint i = 1; row != NULL && i < path->len; i++)
    {
      GListModel *children;

      gtk_tree_list_row_set_expanded (row, TRUE);
      children = gtk_tree_list_row_get_children (row);
      if (children == NULL)
        return G_MAXUINT;
      pos = kubus_node_list_find (KUBUS_NODE_LIST (children), g_ptr_array_index (path, i));
      if (pos == G_MAXUINT)
        return G_MAXUINT;
      {
        GtkTreeListRow *child = gtk_tree_list_row_get_child_row (row, pos);
        g_object_unref (row);
        row = child;
      }
    }
  if (row == NULL)
    return G_MAXUINT;
  return position_of_row (self, row);
}

guint
kubus_pane_model_expand_largest (KubusPaneModel *self,
                                 guint           position)
{
  g_autoptr (GtkTreeListRow) row = NULL;

  if (position == G_MAXUINT)
    {
      /* Start at the largest root. */
      guint n = g_list_model_get_n_items (G_LIST_MODEL (self->roots)), best = 0;
      double best_v = -1;
      for (guint i = 0; i < n; i++)
        {
          g_autoptr (KubusNodeRow) r = g_list_model_get_item (G_LIST_MODEL (self->roots), i);
          double v = fabs (row_incl (self, r));
          if (v > best_v)
            best_v = v, best = i;
        }
      row = gtk_tree_list_model_get_child_row (self->tree, best);
    }
  else
    row = g_list_model_get_item (G_LIST_MODEL (self->selection), position);
  if (row == NULL)
    return G_MAXUINT;

  while (gtk_tree_list_row_is_expandable (row))
    {
      g_autoptr (KubusNodeRow) here = gtk_tree_list_row_get_item (row);
      KubusNodeKind child_kind;
      g_autoptr (GPtrArray) nodes = kubus_node_children (kubus_node_row_get_kind (here),
                                                         kubus_node_row_get_node (here), &child_kind);
      guint n = nodes != NULL ? nodes->len : 0, best = 0;
      double best_v = -1;

      for (guint i = 0; i < n; i++)
        {
          double v = fabs (node_raw_value (self, child_kind, g_ptr_array_index (nodes, i), FALSE));
          if (v > best_v)
            best_v = v, best = i;
        }
      /* Follow the hot path only while it carries a real share of the node: a path that ends
       * in a child worth a few per mille of its parent is noise, not "largest". */
      if (n == 0 || best_v <= 0.1 * fabs (row_incl (self, here)))
        break;
      gtk_tree_list_row_set_expanded (row, TRUE);
      {
        GtkTreeListRow *child = gtk_tree_list_row_get_child_row (row, best);
        g_object_unref (row);
        row = child;
      }
    }
  return position_of_row (self, row);
}

static void
expand_recursive (GtkTreeListRow *row,
                  gboolean        expand)
{
  if (!expand)
    {
      /* Collapse children first so that re-expanding shows them collapsed. */
      GListModel *children = gtk_tree_list_row_get_children (row);
      for (guint i = 0; children != NULL && i < g_list_model_get_n_items (children); i++)
        {
          g_autoptr (GtkTreeListRow) child = gtk_tree_list_row_get_child_row (row, i);
          if (child != NULL && gtk_tree_list_row_get_expanded (child))
            expand_recursive (child, FALSE);
        }
      gtk_tree_list_row_set_expanded (row, FALSE);
      return;
    }
  if (!gtk_tree_list_row_is_expandable (row))
    return;
  gtk_tree_list_row_set_expanded (row, TRUE);
  {
    GListModel *children = gtk_tree_list_row_get_children (row);
    guint n = children != NULL ? g_list_model_get_n_items (children) : 0;
    for (guint i = 0; i < n; i++)
      {
        g_autoptr (GtkTreeListRow) child = gtk_tree_list_row_get_child_row (row, i);
        if (child != NULL)
          expand_recursive (child, TRUE);
      }
  }
}

void
kubus_pane_model_expand_all (KubusPaneModel *self,
                             guint           position,
                             gboolean        expand)
{
  if (position == G_MAXUINT)
    {
      guint n = g_list_model_get_n_items (G_LIST_MODEL (self->roots));
      for (guint i = 0; i < n; i++)
        {
          g_autoptr (GtkTreeListRow) row = gtk_tree_list_model_get_child_row (self->tree, i);
          if (row != NULL)
            expand_recursive (row, expand);
        }
      return;
    }
  {
    g_autoptr (GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (self->selection), position);
    if (row != NULL)
      expand_recursive (row, expand);
  }
}

/* ---- find -------------------------------------------------------------------------------- */

static void
collect_nodes (KubusPaneModel *self,
               GPtrArray      *out,
               GArray         *kinds)
{
  CubeReport *report = self->report;

  switch (self->root_kind)
    {
    case KUBUS_NODE_METRIC:
      for (guint i = 0; i < report->metrics->len; i++)
        {
          CubeMetric *m = g_ptr_array_index (report->metrics, i);
          gboolean hidden = FALSE;
          for (CubeMetric *p = m; p != NULL; p = p->parent)
            hidden |= p->ghost;
          if (!hidden)
            {
              KubusNodeKind k = KUBUS_NODE_METRIC;
              g_ptr_array_add (out, m);
              g_array_append_val (kinds, k);
            }
        }
      break;
    case KUBUS_NODE_CNODE:
    case KUBUS_NODE_SYSNODE:
      {
        GPtrArray *all = self->root_kind == KUBUS_NODE_CNODE ? report->cnodes : report->sysnodes;
        for (guint i = 0; i < all->len; i++)
          {
            g_ptr_array_add (out, g_ptr_array_index (all, i));
            g_array_append_val (kinds, self->root_kind);
          }
        break;
      }
    case KUBUS_NODE_FLAT_REGION:
      for (guint i = 0; i < self->profile->regions->len; i++)
        {
          KubusNodeKind k = KUBUS_NODE_FLAT_REGION;
          g_ptr_array_add (out, g_ptr_array_index (self->profile->regions, i));
          g_array_append_val (kinds, k);
        }
      break;
    case KUBUS_NODE_MODULE:
      for (guint m = 0; m < self->profile->modules->len; m++)
        {
          KubusModule *module = g_ptr_array_index (self->profile->modules, m);
          KubusNodeKind k = KUBUS_NODE_MODULE, kr = KUBUS_NODE_MODULE_REGION;
          g_ptr_array_add (out, module);
          g_array_append_val (kinds, k);
          for (guint r = 0; r < module->regions->len; r++)
            {
              g_ptr_array_add (out, g_ptr_array_index (module->regions, r));
              g_array_append_val (kinds, kr);
            }
        }
      break;
    default:
      break;
    }
}

int
kubus_pane_model_find (KubusPaneModel *self,
                       const char     *pattern,
                       GError        **error)
{
  g_autoptr (GRegex) regex = NULL;
  g_autoptr (GPtrArray) nodes = g_ptr_array_new ();
  g_autoptr (GArray) kinds = g_array_new (FALSE, FALSE, sizeof (KubusNodeKind));

  g_clear_pointer (&self->matches, g_hash_table_unref);
  g_clear_pointer (&self->match_list, g_ptr_array_unref);
  self->match_pos = -1;
  if (pattern == NULL || pattern[0] == '\0')
    {
      g_signal_emit (self, signals[VALUES_CHANGED], 0);
      return 0;
    }
  regex = g_regex_new (pattern, G_REGEX_CASELESS | G_REGEX_OPTIMIZE, 0, error);
  if (regex == NULL)
    return -1;

  self->matches = g_hash_table_new (NULL, NULL);
  self->match_list = g_ptr_array_new ();
  collect_nodes (self, nodes, kinds);
  for (guint i = 0; i < nodes->len; i++)
    {
      gconstpointer node = g_ptr_array_index (nodes, i);
      KubusNodeKind kind = g_array_index (kinds, KubusNodeKind, i);

      if (!g_regex_match (regex, kubus_node_name (kind, node), 0, NULL))
        continue;
      g_ptr_array_add (self->match_list, (gpointer) node);
      g_array_index (kinds, KubusNodeKind, self->match_list->len - 1) = kind;
      g_hash_table_insert (self->matches, (gpointer) node, GUINT_TO_POINTER (1));
      for (gconstpointer p = node_parent (self, kind, node, &kind); p != NULL;
           p = node_parent (self, kind, p, &kind))
        if (!g_hash_table_contains (self->matches, p))
          g_hash_table_insert (self->matches, (gpointer) p, GUINT_TO_POINTER (2));
    }
  /* Kinds of matches, in order (metric tree, call tree, system tree have one kind; the
   * module view has two, so remember them alongside). */
  g_array_set_size (kinds, self->match_list->len);
  g_object_set_data_full (G_OBJECT (self), "kubus-match-kinds", g_array_ref (kinds),
                          (GDestroyNotify) g_array_unref);
  g_signal_emit (self, signals[VALUES_CHANGED], 0);
  return (int) self->match_list->len;
}

guint
kubus_pane_model_match_state (KubusPaneModel *self,
                              KubusNodeRow   *row)
{
  if (self->matches == NULL)
    return 0;
  return GPOINTER_TO_UINT (g_hash_table_lookup (self->matches, kubus_node_row_get_node (row)));
}

guint
kubus_pane_model_find_next (KubusPaneModel *self,
                            gboolean        forward)
{
  GArray *kinds;
  int n;

  if (self->match_list == NULL || self->match_list->len == 0)
    return G_MAXUINT;
  kinds = g_object_get_data (G_OBJECT (self), "kubus-match-kinds");
  n = (int) self->match_list->len;
  if (self->match_pos < 0)
    self->match_pos = forward ? 0 : n - 1;
  else
    self->match_pos = ((self->match_pos + (forward ? 1 : -1)) % n + n) % n;
  return kubus_pane_model_reveal (self, g_array_index (kinds, KubusNodeKind, self->match_pos),
                                  g_ptr_array_index (self->match_list, self->match_pos));
}

/* ---- text -------------------------------------------------------------------------------- */

char *
kubus_pane_model_to_string (KubusPaneModel *self)
{
  GString *s = g_string_new (NULL);
  GListModel *model = G_LIST_MODEL (self->selection);
  guint n = g_list_model_get_n_items (model);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GtkTreeListRow) row = g_list_model_get_item (model, i);
      g_autoptr (KubusNodeRow) item = gtk_tree_list_row_get_item (row);
      gboolean expanded = gtk_tree_list_row_get_expanded (row);
      g_autofree char *value = kubus_pane_model_format_value (self, item, expanded);

      g_string_append_printf (s, "%*s%s %s%s%s\n", (int) (2 * gtk_tree_list_row_get_depth (row)), "",
                              kubus_node_name (kubus_node_row_get_kind (item),
                                               kubus_node_row_get_node (item)),
                              value,
                              expanded ? " [-]" : gtk_tree_list_row_is_expandable (row) ? " [+]" : "",
                              gtk_selection_model_is_selected (GTK_SELECTION_MODEL (self->selection), i)
                              ? " *" : "");
    }
  return g_string_free (s, FALSE);
}
