/* kubus-pane-model.c — see kubus-pane-model.h. */
#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "kubus-node.h"
#include "cube-format.h"
#include "cube-path.h"
#include "kubus-text-gstring.h"
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
  g_clear_handle_id (&self->keep_selection_id, g_source_remove);
  g_clear_pointer (&self->selected_chains, g_ptr_array_unref);
  g_clear_pointer (&self->expand_rest, g_ptr_array_unref);
  if (self->selection != NULL)
    g_signal_handlers_disconnect_by_data (self->selection, self);
  g_clear_object (&self->selection);
  g_clear_object (&self->filtered);
  g_clear_object (&self->sorted);
  g_clear_object (&self->row_sorter);
  g_clear_object (&self->value_sorter);
  g_clear_object (&self->name_sorter);
  g_clear_pointer (&self->name_keys, g_hash_table_unref);
  g_clear_object (&self->filter);
  if (self->tree != NULL)
    g_signal_handlers_disconnect_by_data (self->tree, self);
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
  self->format = KUBUS_FORMAT_READABLE;
  self->may_be_signed = TRUE;
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

/* By name in natural order: "Process 2" before "Process 10" (issue 16, defect 10), with
 * g_utf8_collate_key_for_filename. The key of each node is made once and kept (the
 * comparisons then cost a hash lookup and a strcmp), as the GtkStringSorter used before did
 * for its plain collation keys (bench/gui: 10,000 children). */
static const char *
name_key (KubusPaneModel *self,
          KubusNodeRow   *row)
{
  gpointer node = kubus_node_row_get_node (row);
  char *key = g_hash_table_lookup (self->name_keys, node);

  if (key == NULL)
    {
      key = g_utf8_collate_key_for_filename (kubus_node_name (kubus_node_row_get_kind (row), node), -1);
      g_hash_table_insert (self->name_keys, node, key);
    }
  return key;
}

static int
compare_names (gconstpointer a,
               gconstpointer b,
               gpointer      user_data)
{
  KubusPaneModel *self = user_data;
  int c = strcmp (name_key (self, (KubusNodeRow *) a), name_key (self, (KubusNodeRow *) b));

  return c < 0 ? GTK_ORDERING_SMALLER : c > 0 ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

static void
make_sorters (KubusPaneModel *self)
{
  self->value_sorter = GTK_SORTER (gtk_custom_sorter_new (compare_values, self, NULL));
  self->name_keys = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  self->name_sorter = GTK_SORTER (gtk_custom_sorter_new (compare_names, self, NULL));
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

/* ---- selection kept visible -------------------------------------------------------------- */

/* Collapsing a row destroys the rows below it, and GtkMultiSelection drops a destroyed selected
 * row silently: the panes to the right then fell back to "nothing selected" (issue 16, defect
 * 4). The pane remembers each selected row with its ancestors, and after a collapse selects the
 * nearest ancestor that is still shown, as CubeGUI does. */
static void
record_selection (KubusPaneModel *self)
{
  g_autoptr (GtkBitset) set = gtk_selection_model_get_selection (GTK_SELECTION_MODEL (self->selection));
  GtkBitsetIter iter;
  guint pos, n = 0;

  g_clear_pointer (&self->selected_chains, g_ptr_array_unref);
  self->selected_chains = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  /* A selection of thousands of rows is a "select all": remembering the first 1,000 is plenty. */
  if (gtk_bitset_iter_init_first (&iter, set, &pos))
    do
      {
        GtkTreeListRow *row = g_list_model_get_item (G_LIST_MODEL (self->selection), pos);
        GPtrArray *chain = g_ptr_array_new_with_free_func (g_object_unref);

        while (row != NULL)
          {
            g_ptr_array_add (chain, row);
            row = gtk_tree_list_row_get_parent (row);
          }
        g_ptr_array_add (self->selected_chains, chain);
      }
    while (++n < 1000 && gtk_bitset_iter_next (&iter, &pos));
}

/* A row object outlives its tree node when someone holds it; the model then hands out
 * another object (or none) at its old position. */
static gboolean
row_alive (KubusPaneModel *self,
           GtkTreeListRow *row)
{
  g_autoptr (GtkTreeListRow) here = g_list_model_get_item (G_LIST_MODEL (self->tree),
                                                           gtk_tree_list_row_get_position (row));

  return here == row;
}

static void
keep_selection_visible (KubusPaneModel *self)
{
  GListModel *rows = G_LIST_MODEL (self->selection);
  g_autoptr (GHashTable) position = NULL;
  g_autoptr (GtkBitset) want = NULL;
  g_autoptr (GtkBitset) mask = NULL;
  gboolean lost = FALSE;
  guint n;

  g_clear_handle_id (&self->keep_selection_id, g_source_remove);
  if (self->selected_chains == NULL)
    return;
  for (guint i = 0; i < self->selected_chains->len && !lost; i++)
    {
      GPtrArray *chain = g_ptr_array_index (self->selected_chains, i);
      lost = !row_alive (self, g_ptr_array_index (chain, 0));
    }
  if (!lost)
    return;

  n = g_list_model_get_n_items (rows);
  position = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GtkTreeListRow) row = g_list_model_get_item (rows, i);
      g_hash_table_insert (position, row, GUINT_TO_POINTER (i + 1));
    }
  want = gtk_bitset_new_empty ();
  for (guint i = 0; i < self->selected_chains->len; i++)
    {
      GPtrArray *chain = g_ptr_array_index (self->selected_chains, i);

      for (guint k = 0; k < chain->len; k++)
        {
          GtkTreeListRow *row = g_ptr_array_index (chain, k);
          guint pos = GPOINTER_TO_UINT (g_hash_table_lookup (position, row));

          if (pos > 0 && row_alive (self, row))
            {
              gtk_bitset_add (want, pos - 1);
              break;
            }
        }
    }
  mask = gtk_bitset_new_range (0, n);
  gtk_selection_model_set_selection (GTK_SELECTION_MODEL (self->selection), want, mask);
  record_selection (self);
}

static gboolean
keep_selection_idle (gpointer data)
{
  KubusPaneModel *self = data;

  self->keep_selection_id = 0;
  keep_selection_visible (self);
  return G_SOURCE_REMOVE;
}

static void
on_own_selection_changed (GtkSelectionModel *model,
                          guint              position,
                          guint              n_items,
                          gpointer           user_data)
{
  (void) model, (void) position, (void) n_items;
  record_selection (user_data);
}

static void
on_own_items_changed (GListModel *model,
                      guint       position,
                      guint       removed,
                      guint       added,
                      gpointer    user_data)
{
  KubusPaneModel *self = user_data;

  (void) model, (void) position, (void) added;
  /* Not from inside the emission: the list view may not have seen it yet. Before the
   * browser's update (DEFAULT_IDLE) and the next frame, so neither sees the lost selection. */
  if (removed > 0 && self->selected_chains != NULL && self->selected_chains->len > 0
      && self->keep_selection_id == 0)
    self->keep_selection_id = g_idle_add_full (G_PRIORITY_HIGH_IDLE, keep_selection_idle, self, NULL);
}

/* Rows were added to the tree (rows expanded): let need_children fill in their values before
 * the sort and filter models (connected after this handler) look at them. Not from
 * create_children: GtkTreeExpander calls that for every row it shows, to learn whether the row
 * can expand at all. */
static void
on_tree_items_changed (GListModel *model,
                       guint       position,
                       guint       removed,
                       guint       added,
                       gpointer    user_data)
{
  KubusPaneModel *self = user_data;
  gpointer last = NULL;

  (void) removed;
  if (self->need_children == NULL)
    return;
  for (guint i = position; i < position + added; i++)
    {
      g_autoptr (GtkTreeListRow) row = g_list_model_get_item (model, i);
      g_autoptr (GtkTreeListRow) parent = row != NULL ? gtk_tree_list_row_get_parent (row) : NULL;
      g_autoptr (KubusNodeRow) item = parent != NULL ? gtk_tree_list_row_get_item (parent) : NULL;
      gpointer node = item != NULL ? kubus_node_row_get_node (item) : NULL;

      if (node != NULL && node != last)
        self->need_children (self, node, self->need_children_data);
      last = node;
    }
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
  g_signal_connect (self->tree, "items-changed", G_CALLBACK (on_tree_items_changed), self);
  make_sorters (self);
  self->row_sorter = gtk_tree_list_row_sorter_new (g_object_ref (self->value_sorter));
  self->sorted = gtk_sort_list_model_new (g_object_ref (G_LIST_MODEL (self->tree)),
                                          g_object_ref (GTK_SORTER (self->row_sorter)));
  self->filter = gtk_custom_filter_new (filter_row, self, NULL);
  self->filtered = gtk_filter_list_model_new (g_object_ref (G_LIST_MODEL (self->sorted)),
                                              g_object_ref (GTK_FILTER (self->filter)));
  update_pass_through (self);
  self->selection = gtk_multi_selection_new (g_object_ref (G_LIST_MODEL (self->filtered)));
  g_signal_connect (self->selection, "selection-changed", G_CALLBACK (on_own_selection_changed), self);
  g_signal_connect (self->selection, "items-changed", G_CALLBACK (on_own_items_changed), self);
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

static KubusValueMode
shown_mode (KubusPaneModel *self)
{
  return kubus_pane_model_mode_available (self, self->mode) ? self->mode : KUBUS_MODE_ABSOLUTE;
}

/* What the percent modes divide @node's value by; NaN when there is nothing to divide by. */
static double
denominator (KubusPaneModel *self,
             KubusValueMode  mode,
             KubusNodeKind   kind,
             gconstpointer   node)
{
  switch (mode)
    {
    case KUBUS_MODE_PERCENT:
    case KUBUS_MODE_RELATIVE:
      if (self->kind == KUBUS_PANE_METRIC)
        return self->metric_percent[node_index (kind, node)];
      return mode == KUBUS_MODE_PERCENT ? self->denom_percent : self->denom_relative;
    case KUBUS_MODE_EXTERNAL:
      return self->kind == KUBUS_PANE_METRIC ? self->metric_external[node_index (kind, node)]
                                             : self->denom_external;
    case KUBUS_MODE_ABSOLUTE:
    case KUBUS_MODE_PEER_PERCENT:
    case KUBUS_MODE_PEER_DISTRIBUTION:
    case KUBUS_N_MODES:
    default:
      return NAN;
    }
}

static double
node_display_value (KubusPaneModel *self,
                    KubusNodeKind   kind,
                    gconstpointer   node,
                    gboolean        expanded)
{
  double v = node_raw_value (self, kind, node, expanded);
  double d;
  KubusValueMode mode = shown_mode (self);

  switch (mode)
    {
    case KUBUS_MODE_ABSOLUTE:
      return v;
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
    default:
      break;
    }
  d = denominator (self, mode, kind, node);
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

/* How many steps of a colour scale a reader tells apart: values one step apart get different
 * colours, so their numbers must read differently too (issue 24, item 4). */
#define COLOUR_STEPS 20

/* The number for @v in the current mode. @integer: a count metric. @per_row: no common
 * exponent (the metric pane, whose rows differ in unit). @resolution: what one colour step
 * stands for, in the mode's units (0: nothing to tell apart). The rule is src/cube's. */
static char *
format_number (KubusPaneModel *self,
               double          v,
               gboolean        integer,
               gboolean        per_row,
               double          resolution)
{
  KubusValueMode mode = shown_mode (self);
  CubeNumberFormat f = { CUBE_NOTATION_READABLE, self->digits, FALSE, FALSE, resolution, 0 };

  if (mode != KUBUS_MODE_ABSOLUTE)
    return cube_format_number (v, &f);
  f.integer = integer;
  switch (self->format)
    {
    case KUBUS_FORMAT_COMMON_EXPONENT:
      f.notation = per_row ? CUBE_NOTATION_SCIENTIFIC : CUBE_NOTATION_COMMON_EXPONENT;
      f.exponent = self->exponent;
      break;
    case KUBUS_FORMAT_SCIENTIFIC:
      f.notation = CUBE_NOTATION_SCIENTIFIC;
      break;
    case KUBUS_FORMAT_READABLE:
    default:
      /* counts with the locale's grouping (130,023,456 visits), times in full (30,812.45) */
      f.grouping = TRUE;
      break;
    }
  return cube_format_number (v, &f);
}

static gboolean
row_is_integer (KubusPaneModel *self,
                KubusNodeRow   *row)
{
  if (kubus_node_row_get_kind (row) == KUBUS_NODE_METRIC)
    {
      const CubeMetric *m = kubus_node_row_get_node (row);
      return m->dtype != CUBE_DTYPE_DOUBLE && m->dtype != CUBE_DTYPE_MINDOUBLE
             && m->dtype != CUBE_DTYPE_MAXDOUBLE;
    }
  return self->integer_values;
}

static KubusDiverging
pane_diverging (KubusPaneModel *self)
{
  return self->saved_added ? KUBUS_DIVERGING_SAVED_ADDED : KUBUS_DIVERGING_DIFFERENCE;
}

/* The system tree's default colouring (absolute and percent modes): each node between the
 * smallest and the largest of its peers (the nodes at its depth), so that 64 threads between
 * 10.80 and 13.45 s do not all take the colour of "13 % of the root" (issue 16, defect 2).
 * Differences keep the diverging scale over the pane's range. */
static gboolean
colour_by_peers (KubusPaneModel *self)
{
  return self->kind == KUBUS_PANE_SYSTEM && !self->is_signed
         && self->mode != KUBUS_MODE_PEER_PERCENT && self->mode != KUBUS_MODE_PEER_DISTRIBUTION;
}

/* The colour scale of the nodes at @depth: from their smallest to their largest value, but at
 * least 10 % of the largest wide, so that 0.1 % of noise between 64 equal ranks does not span
 * blue to red (only a real spread, like 10.80 to 13.45 s, uses the whole scale). */
static void
peer_scale (KubusPaneModel *self,
            guint           depth,
            double         *lo,
            double         *hi)
{
  *lo = depth < self->n_depths ? self->peer_min[depth] : 0;
  *hi = depth < self->n_depths ? self->peer_max[depth] : 0;
  if (!isfinite (*lo) || !isfinite (*hi))
    *lo = *hi = 0;
  if (*hi > 0)
    *lo = MIN (*lo, *hi * 0.9);
}

/* What one colour step of @node's square stands for, in the current mode's units. */
static double
node_resolution (KubusPaneModel *self,
                 KubusNodeKind   kind,
                 gconstpointer   node)
{
  KubusValueMode mode = shown_mode (self);
  double width, d;

  if (mode == KUBUS_MODE_PEER_PERCENT || mode == KUBUS_MODE_PEER_DISTRIBUTION)
    return 100.0 / COLOUR_STEPS;
  if (self->kind == KUBUS_PANE_METRIC)
    width = fabs (self->metric_root_incl[node_index (kind, node)]);
  else if (colour_by_peers (self))
    {
      double lo, hi;

      peer_scale (self, kubus_node_depth (kind, node), &lo, &hi);
      width = hi - lo;
    }
  else
    width = self->max_abs;
  if (!(width > 0) || !isfinite (width))
    return 0;
  if (mode == KUBUS_MODE_ABSOLUTE)
    return width / COLOUR_STEPS;
  d = denominator (self, mode, kind, node);
  return isnan (d) || d == 0.0 ? 0 : width / fabs (d) * 100.0 / COLOUR_STEPS;
}

char *
kubus_pane_model_format_value (KubusPaneModel *self,
                               KubusNodeRow   *row,
                               gboolean        expanded)
{
  KubusNodeKind kind = kubus_node_row_get_kind (row);
  gconstpointer node = kubus_node_row_get_node (row);

  /* The metric pane mixes units (seconds, visits, bytes): no common exponent there. */
  return format_number (self, node_display_value (self, kind, node, expanded), row_is_integer (self, row),
                        self->kind == KUBUS_PANE_METRIC, node_resolution (self, kind, node));
}

/* What the current mode's numbers are: "% of total", …; NULL for absolute values. */
static const char *
mode_unit (KubusValueMode mode)
{
  switch (mode)
    {
    case KUBUS_MODE_PERCENT:
      /* xgettext:no-c-format */
      return _("% of total");
    case KUBUS_MODE_RELATIVE:
      /* xgettext:no-c-format */
      return _("% of selection");
    case KUBUS_MODE_PEER_PERCENT:
      /* xgettext:no-c-format */
      return _("% of the largest peer");
    case KUBUS_MODE_PEER_DISTRIBUTION:
      /* xgettext:no-c-format */
      return _("% of the peer range");
    case KUBUS_MODE_EXTERNAL:
      /* xgettext:no-c-format */
      return _("% of external total");
    case KUBUS_MODE_ABSOLUTE:
    case KUBUS_N_MODES:
    default:
      return NULL;
    }
}

static const char *
row_unit (KubusPaneModel *self,
          KubusNodeRow   *row)
{
  if (kubus_node_row_get_kind (row) == KUBUS_NODE_METRIC)
    return ((const CubeMetric *) kubus_node_row_get_node (row))->uom;
  return self->unit;
}

/* Tooltips carry more digits than a row has room for, but not float noise. */
#define TOOLTIP_DIGITS 6

/* "0.379 s saved" / "0.0325 s added": a difference of original − simulated in words. */
static char *
saved_added_text (double      value,
                  const char *number,
                  const char *unit)
{
  if (value > 0)
    /* TRANSLATORS: a simulation's gain: "0.379 sec saved" */
    return g_strdup_printf (_("%s %s saved"), number, unit);
  if (value < 0)
    /* TRANSLATORS: a simulation's loss: "0.0325 sec added" */
    return g_strdup_printf (_("%s %s added"), number, unit);
  return g_strdup_printf ("%s %s", number, unit);
}

char *
kubus_pane_model_value_tooltip (KubusPaneModel *self,
                                KubusNodeRow   *row,
                                gboolean        expanded)
{
  KubusValueMode mode = shown_mode (self);
  double raw = kubus_pane_model_raw_value (self, row, expanded);
  const char *unit = row_unit (self, row);
  const char *what = expanded ? _("exclusive") : _("inclusive");
  g_autofree char *number = cube_format_significant (self->saved_added ? fabs (raw) : raw, TOOLTIP_DIGITS);
  g_autofree char *absolute = NULL;

  if (self->saved_added)
    absolute = saved_added_text (raw, number, unit != NULL ? unit : "");
  else
    absolute = unit != NULL && unit[0] != '\0' ? g_strdup_printf ("%s %s", number, unit) : g_strdup (number);
  if (mode == KUBUS_MODE_ABSOLUTE)
    return g_strdup_printf ("%s (%s)", absolute, what);
  {
    double shown = kubus_pane_model_display_value (self, row, expanded);
    g_autofree char *text = isnan (shown) ? g_strdup ("–") : cube_format_significant (shown, TOOLTIP_DIGITS);

    return g_strdup_printf ("%s %s\n%s (%s)", text, mode_unit (mode), absolute, what);
  }
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
  double resolution = 0;

  /* the topology's cells: the locations' level of the system tree */
  if (self->kind == KUBUS_PANE_SYSTEM && self->report->locations->len > 0)
    resolution = node_resolution (self, KUBUS_NODE_SYSNODE, g_ptr_array_index (self->report->locations, 0));
  return format_number (self, value, self->integer_values, TRUE, resolution);
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
  double fraction, range = self->max_abs;
  gboolean lighten;

  if (self->kind == KUBUS_PANE_METRIC)
    range = fabs (self->metric_root_incl[node_index (kubus_node_row_get_kind (row),
                                                     kubus_node_row_get_node (row))]);
  *is_negative = FALSE;
  /* Rounding residues are zero already (kubus_pane_model_values_changed). */
  if (v == 0.0 || isnan (v))
    return FALSE;
  /* A plain pane has no place for negative values on its scale. */
  if (!self->is_signed && v < 0)
    return FALSE;
  *is_negative = v < 0;
  if (self->mode == KUBUS_MODE_PEER_PERCENT || self->mode == KUBUS_MODE_PEER_DISTRIBUTION)
    {
      fraction = kubus_pane_model_display_value (self, row, expanded) / 100.0;
      lighten = fabs (fraction) < self->insignificant;
    }
  else if (colour_by_peers (self))
    {
      guint depth = kubus_node_depth (kubus_node_row_get_kind (row), kubus_node_row_get_node (row));
      double lo, hi;

      peer_scale (self, depth, &lo, &hi);
      /* Peers compare by inclusive values; an expanded node's own value sits below them. */
      fraction = hi > lo ? (v - lo) / (hi - lo) : 1.0;
      /* Pale only when small in itself, not for being the smallest of close peers. */
      lighten = hi > 0 && v / hi < self->insignificant;
    }
  else
    {
      /* A metric whose root is zero (derived metrics) still shows that it has a value. */
      fraction = range > 0 ? v / range : self->kind == KUBUS_PANE_METRIC ? 1.0 : 0;
      lighten = fabs (fraction) < self->insignificant;
    }
  fraction = CLAMP (fraction, -1.0, 1.0);
  if (fraction == 0.0)
    fraction = v > 0 ? 1e-9 : -1e-9;
  return kubus_severity_color_full (self->scale, self->is_signed ? pane_diverging (self) : KUBUS_DIVERGING_NONE,
                                    fraction, lighten, color);
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
  g_clear_pointer (&info->tooltip, g_free);
  g_clear_pointer (&info->low_word, g_free);
  g_clear_pointer (&info->high_word, g_free);
}

/* A raw value of the call or system pane in the current mode. */
static double
display_of_raw (KubusPaneModel *self,
                KubusValueMode  mode,
                double          v)
{
  double d;

  switch (mode)
    {
    case KUBUS_MODE_PERCENT:
      d = self->denom_percent;
      break;
    case KUBUS_MODE_RELATIVE:
      d = self->denom_relative;
      break;
    case KUBUS_MODE_EXTERNAL:
      d = self->denom_external;
      break;
    default:
      return v;
    }
  return d != 0 && !isnan (d) ? v / fabs (d) * 100.0 : NAN;
}

/* "×10⁴ sec": the unit, after the common power of ten when that format shows one. */
static char *
absolute_caption (KubusPaneModel *self)
{
  GString *c = g_string_new (NULL);

  if (self->format == KUBUS_FORMAT_COMMON_EXPONENT && self->exponent != 0)
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
  return g_string_free (c, FALSE);
}

/* "processes", "threads": the system tree's level of @node's kind, for the legend. */
static const char *
level_name (const CubeSysNode *node)
{
  switch (node->kind)
    {
    case CUBE_SYS_MACHINE:
      return _("machines");
    case CUBE_SYS_NODE:
      return _("nodes");
    case CUBE_SYS_PROCESS:
      return _("processes");
    case CUBE_SYS_THREAD:
      return _("threads");
    case CUBE_SYS_TREENODE:
    default:
      /* Cube 4 names its levels by class */
      if (g_strcmp0 (node->class_name, "machine") == 0)
        return _("machines");
      if (g_strcmp0 (node->class_name, "node") == 0)
        return _("nodes");
      return _("system tree nodes");
    }
}

/* The level of the system tree whose colours the legend describes: of the rows shown, the
 * level most of them are at (the deeper one of a tie). Each level is coloured between its own
 * peers, so the legend can describe one: the one the eye is on (issue 24, item 5: it
 * described the locations while the processes were shown). @example gets a node of it.
 * Returns the number of levels shown. */
static guint
shown_level (KubusPaneModel     *self,
             guint              *depth,
             const CubeSysNode **example)
{
  GListModel *rows = G_LIST_MODEL (self->selection);
  guint n = rows != NULL ? g_list_model_get_n_items (rows) : 0, levels = 0, best = 0;
  g_autofree guint *count = g_new0 (guint, MAX (self->n_depths, 1));
  g_autofree const CubeSysNode **first = g_new0 (const CubeSysNode *, MAX (self->n_depths, 1));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GtkTreeListRow) row = g_list_model_get_item (rows, i);
      g_autoptr (KubusNodeRow) item = row != NULL ? gtk_tree_list_row_get_item (row) : NULL;
      const CubeSysNode *node;

      if (item == NULL || kubus_node_row_get_kind (item) != KUBUS_NODE_SYSNODE)
        continue;
      node = kubus_node_row_get_node (item);
      if (node->depth >= self->n_depths)
        continue;
      if (count[node->depth]++ == 0)
        {
          first[node->depth] = node;
          levels++;
        }
    }
  *depth = 0;
  *example = NULL;
  for (guint d = 0; d < self->n_depths; d++)
    if (count[d] > 0 && count[d] >= best)
      {
        best = count[d];
        *depth = d;
        *example = first[d];
      }
  return levels;
}

void
kubus_pane_model_get_legend (KubusPaneModel  *self,
                             KubusLegendInfo *info)
{
  KubusValueMode mode = shown_mode (self);
  double hi;

  info->max_abs = self->max_abs;
  info->is_signed = self->is_signed;
  if (self->kind == KUBUS_PANE_METRIC)
    {
      info->low = g_strdup (self->is_signed ? "−" : "0");
      info->high = g_strdup (self->is_signed ? "+" : "");
      if (self->is_signed && self->saved_added)
        {
          info->low_word = g_strdup (_("added"));
          info->high_word = g_strdup (_("saved"));
        }
      info->caption = g_strdup (mode == KUBUS_MODE_ABSOLUTE ? _("share of each metric root")
                                                             : _("% of the metric root"));
      info->tooltip = g_strdup (_("Each metric is coloured by its share of its root metric: "
                                  "metrics of different units share no scale."));
      return;
    }

  switch (mode)
    {
    case KUBUS_MODE_PEER_PERCENT:
    case KUBUS_MODE_PEER_DISTRIBUTION:
      info->low = g_strdup ("0");
      info->high = g_strdup ("100");
      info->caption = g_strdup (mode_unit (mode));
      return;
    case KUBUS_MODE_ABSOLUTE:
      info->caption = absolute_caption (self);
      break;
    default:
      info->caption = g_strdup (mode_unit (mode));
      break;
    }
  if (colour_by_peers (self))
    {
      /* The scale runs over the peers of the level shown; its ends are that level's. */
      const CubeSysNode *example = NULL;
      guint depth, levels = shown_level (self, &depth, &example);
      double lo, top, resolution;
      g_autofree char *caption = info->caption;
      g_autofree char *exact_lo = NULL, *exact_hi = NULL;

      if (example == NULL)
        {
          info->caption = g_steal_pointer (&caption);
          info->low = g_strdup ("0");
          info->high = g_strdup ("");
          return;
        }
      peer_scale (self, depth, &lo, &top);
      resolution = node_resolution (self, KUBUS_NODE_SYSNODE, example);
      info->low = format_number (self, display_of_raw (self, mode, lo), self->integer_values, FALSE, resolution);
      info->high = format_number (self, display_of_raw (self, mode, top), self->integer_values, FALSE, resolution);
      /* TRANSLATORS: legend of the system tree: "<unit> · <level>: min → max", e.g.
       * "sec · processes: min → max" */
      info->caption = g_strdup_printf (_("%s · %s: min → max"), caption, level_name (example));
      exact_lo = cube_format_significant (display_of_raw (self, mode, lo), TOOLTIP_DIGITS);
      exact_hi = cube_format_significant (display_of_raw (self, mode, top), TOOLTIP_DIGITS);
      info->tooltip = g_strdup_printf (_("Colours place each node between the smallest and the largest "
                                         "value at its level of the system tree (its peers; the scale is "
                                         "at least a tenth of the largest wide), so that differences "
                                         "between locations show. The %s shown range from %s to %s %s."),
                                       level_name (example), exact_lo, exact_hi, caption);
      if (levels > 1)
        {
          g_autofree char *more = info->tooltip;
          info->tooltip = g_strdup_printf ("%s %s", more, _("Rows of the other levels shown are coloured "
                                                            "between their own peers."));
        }
      return;
    }
  hi = display_of_raw (self, mode, self->max_abs);
  {
    double resolution = hi / COLOUR_STEPS;
    g_autofree char *h = format_number (self, hi, self->integer_values, FALSE, resolution);
    g_autofree char *exact = isnan (hi) ? g_strdup ("–") : cube_format_significant (hi, TOOLTIP_DIGITS);

    if (!self->is_signed)
      {
        info->high = g_strdup (h);
        info->low = g_strdup ("0");
        info->tooltip = g_strdup_printf (_("Colours from 0 to the largest value shown, %s %s."), exact, info->caption);
      }
    else if (self->saved_added)
      {
        /* original − simulated: the ends say what they mean, not only a sign */
        info->high = g_strdup_printf ("+%s", h);
        info->low = g_strdup_printf ("−%s", h);
        info->low_word = g_strdup (_("added"));
        info->high_word = g_strdup (_("saved"));
        info->tooltip = g_strdup_printf (_("Original − simulated: time the hypothesis saves in blue-green, up to "
                                           "%s %s; time it adds in orange, up to %s %s."),
                                         exact, info->caption, exact, info->caption);
      }
    else
      {
        info->high = g_strdup_printf ("+%s", h);
        info->low = g_strdup_printf ("−%s", h);
        info->tooltip = g_strdup_printf (_("Gains and losses: warm colours up to +%s, cold colours down to −%s %s."),
                                         exact, exact, info->caption);
      }
  }
}

static void
update_range_one (KubusPaneModel *self,
                  double          v)
{
  if (fabs (v) > self->max_abs)
    self->max_abs = fabs (v);
  if (v < self->min_value)
    self->min_value = v;
}

static gboolean
metric_hidden (const CubeMetric *m)
{
  for (; m != NULL; m = m->parent)
    if (m->ghost)
      return TRUE;
  return FALSE;
}

/* A value within CUBE_RESIDUE_FRACTION of the metric's total is a rounding residue of the
 * subtraction that made it (an exclusive value from inclusive ones, a difference of two equal
 * sums): it is 0 wherever values are shown, coloured, scaled, sorted or exported (issue 24,
 * item 3: "−1.78e-15 … 8.88e-16 sec" in a legend whose rows all read 0). The metric's total is
 * the percent denominator (A's for a difference); when there is none, the largest value. */
static void
clamp_all (double *values,
           guint   n,
           double  scale)
{
  for (guint i = 0; i < n; i++)
    values[i] = cube_value_clamp_residue (values[i], scale);
}

static void
clamp_residues (KubusPaneModel *self)
{
  double scale = self->kind != KUBUS_PANE_METRIC && isfinite (self->denom_percent) ? fabs (self->denom_percent) : 0;

  if (self->kind == KUBUS_PANE_METRIC)
    {
      for (guint i = 0; i < self->n_values; i++)
        {
          self->incl[i] = cube_value_clamp_residue (self->incl[i], self->metric_root_incl[i]);
          self->excl[i] = cube_value_clamp_residue (self->excl[i], self->metric_root_incl[i]);
        }
      return;
    }
  if (scale == 0)
    for (guint i = 0; i < self->n_values; i++)
      scale = MAX (scale, MAX (fabs (self->incl[i]), fabs (self->excl[i])));
  clamp_all (self->incl, self->n_values, scale);
  clamp_all (self->excl, self->n_values, scale);
  if (self->kind == KUBUS_PANE_CALL && self->profile != NULL)
    {
      for (guint r = 0; r < self->profile->regions->len; r++)
        {
          KubusFlatRegion *fr = g_ptr_array_index (self->profile->regions, r);
          fr->incl = cube_value_clamp_residue (fr->incl, scale);
          fr->excl = cube_value_clamp_residue (fr->excl, scale);
          for (guint c = 0; c < fr->callees->len; c++)
            {
              KubusFlatCallee *callee = g_ptr_array_index (fr->callees, c);
              callee->value = cube_value_clamp_residue (callee->value, scale);
            }
        }
      for (guint m = 0; m < self->profile->modules->len; m++)
        {
          KubusModule *module = g_ptr_array_index (self->profile->modules, m);
          module->incl = cube_value_clamp_residue (module->incl, scale);
        }
    }
}

void
kubus_pane_model_clamp_residues (KubusPaneModel *self)
{
  clamp_residues (self);
}

void
kubus_pane_model_values_changed (KubusPaneModel *self)
{
  clamp_residues (self);
  self->max_abs = 0;
  self->min_value = 0;
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
  /* Diverging colours only for a report that may hold differences, and only for values
   * below zero (residues are zero by now: issue 16, −3.99e-16 in a Cube 4 summary made a plain
   * report a "difference"). */
  self->is_signed = self->may_be_signed && (self->min_value < 0 || self->saved_added);
  /* One colour scale for the call and the system pane of a difference (the browser sets it). */
  self->max_abs = MAX (self->max_abs, self->range_floor);

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

void
kubus_pane_model_share_range (KubusPaneModel *a,
                              KubusPaneModel *b)
{
  double range = MAX (a->max_abs, b->max_abs);
  gboolean is_signed = a->is_signed || b->is_signed;

  for (KubusPaneModel **p = (KubusPaneModel *[]) { a, b, NULL }; *p != NULL; p++)
    if ((*p)->max_abs != range || (*p)->is_signed != is_signed)
      {
        (*p)->max_abs = range;
        (*p)->is_signed = is_signed && (*p)->may_be_signed;
        g_signal_emit (*p, signals[VALUES_CHANGED], 0);
      }
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
      /* Only with an external report loaded (before: always, showing "–" everywhere). */
      return self->have_external
             && (self->kind == KUBUS_PANE_METRIC || !isnan (self->denom_external));
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
kubus_pane_model_set_saved_added (KubusPaneModel *self,
                                  gboolean        saved_added)
{
  if (self->saved_added == saved_added)
    return;
  self->saved_added = saved_added;
  /* gains and losses on one diverging scale, also while no value is negative */
  kubus_pane_model_values_changed (self);
}

gboolean
kubus_pane_model_get_saved_added (KubusPaneModel *self)
{
  return self->saved_added;
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
                                KubusNumberFormat format)
{
  self->digits = MIN (digits, 12);
  self->format = format;
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

      if (n > 0 && self->need_children != NULL)
        self->need_children (self, kubus_node_row_get_node (here), self->need_children_data);
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

/* Expands every collapsed row at or below @row. The tree model expands in autoexpand mode
 * (the caller sets it): a collapsed row then gets its whole subtree in one items-changed, so
 * only the already expanded rows are walked, and the sort, filter and selection models and the
 * list view see one change per collapsed row met (after Collapse All: one per root) instead of
 * one per row of the tree (bench/gui/bench-frames --expand-all). Nothing is removed, so the
 * selection stays where it was. */
static void
expand_below (GtkTreeListRow *row)
{
  GListModel *children;
  guint n;

  if (!gtk_tree_list_row_get_expanded (row))
    {
      gtk_tree_list_row_set_expanded (row, TRUE); /* a leaf stays as it is */
      return;
    }
  children = gtk_tree_list_row_get_children (row);
  n = children != NULL ? g_list_model_get_n_items (children) : 0;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GtkTreeListRow) child = gtk_tree_list_row_get_child_row (row, i);
      if (child != NULL)
        expand_below (child);
    }
}

/* The rows an Expand All or Collapse All at @position acts on: every root for G_MAXUINT (the
 * whole tree), else the row at @position (none if there is none). */
static GPtrArray *
target_rows (KubusPaneModel *self,
             guint           position)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func (g_object_unref);

  if (position == G_MAXUINT)
    {
      guint n = g_list_model_get_n_items (G_LIST_MODEL (self->roots));
      for (guint i = 0; i < n; i++)
        {
          GtkTreeListRow *row = gtk_tree_list_model_get_child_row (self->tree, i);
          if (row != NULL)
            g_ptr_array_add (rows, row);
        }
    }
  else
    {
      GtkTreeListRow *row = g_list_model_get_item (G_LIST_MODEL (self->selection), position);
      if (row != NULL)
        g_ptr_array_add (rows, row);
    }
  return rows;
}

void
kubus_pane_model_collapse_all (KubusPaneModel *self,
                               guint           position)
{
  /* Collapsing a row drops its whole subtree from the GtkTreeListModel (children come back
   * collapsed), in one items-changed. Collapsing every expanded row bottom-up, as before,
   * sent one items-changed per row through the sort, filter and selection models and the
   * list view: 12-14 s for 1,000 call paths (issue 16, defect 4; bench-frames --collapse). */
  g_autoptr (GPtrArray) rows = NULL;

  /* An Expand All still to be finished ends here: its rows are all collapsed now. */
  if (position == G_MAXUINT)
    g_clear_pointer (&self->expand_rest, g_ptr_array_unref);
  rows = target_rows (self, position);
  for (guint i = 0; i < rows->len; i++)
    {
      GtkTreeListRow *row = g_ptr_array_index (rows, i);
      /* Collapsed after the Expand All that waits for it: it stays collapsed (the rows
       * below it are gone with the collapse and left alone by the finish). */
      if (self->expand_rest != NULL)
        g_ptr_array_remove (self->expand_rest, row);
      if (gtk_tree_list_row_get_expanded (row))
        gtk_tree_list_row_set_expanded (row, FALSE);
    }
  /* Now rather than from the idle handler: callers (tests, benchmarks) read the result. */
  keep_selection_visible (self);
}

void
kubus_pane_model_expand_all (KubusPaneModel *self,
                             guint           position,
                             gboolean        expand)
{
  g_autoptr (GPtrArray) rows = NULL;

  if (!expand)
    {
      kubus_pane_model_collapse_all (self, position);
      return;
    }
  /* The whole tree expanded now: nothing is left for an earlier start's finish. */
  if (position == G_MAXUINT)
    g_clear_pointer (&self->expand_rest, g_ptr_array_unref);
  rows = target_rows (self, position);
  gtk_tree_list_model_set_autoexpand (self->tree, TRUE);
  for (guint i = 0; i < rows->len; i++)
    expand_below (g_ptr_array_index (rows, i));
  /* Rows the user expands later open one level, as always. */
  gtk_tree_list_model_set_autoexpand (self->tree, FALSE);
}

/* Rows of @node's subtree (itself included) when all of it is expanded, counted up to @limit
 * (then more than @limit): the children are those create_children gives the tree model. */
static guint
subtree_rows (KubusNodeKind kind,
              gconstpointer node,
              guint         limit)
{
  KubusNodeKind child_kind;
  g_autoptr (GPtrArray) children = kubus_node_children (kind, node, &child_kind);
  guint n = 1;

  for (guint i = 0; children != NULL && i < children->len && n <= limit; i++)
    n += subtree_rows (child_kind, g_ptr_array_index (children, i), limit - n);
  return n;
}

static GQuark
waiting_open_quark (void)
{
  static GQuark q;
  if (q == 0)
    q = g_quark_from_static_string ("kubus-expand-all-waiting-open");
  return q;
}

/* A row put aside for a later part of an Expand All is still to be expanded: it is still in
 * the tree (a collapse above it since has removed it) and the user has not closed it with its
 * expander since (Collapse All takes it out of the rows that wait; an expander does not). */
static gboolean
row_still_waits (GtkTreeListRow *row)
{
  g_autoptr (GObject) item = gtk_tree_list_row_get_item (row);
  gboolean was_open = GPOINTER_TO_INT (g_object_get_qdata (G_OBJECT (row), waiting_open_quark ())) == 2;

  return item != NULL && !(was_open && !gtk_tree_list_row_get_expanded (row));
}

/* A part of an Expand All in parts: walks @row and the rows below it in tree order
 * while *@budget rows are left. A collapsed row with at most @whole rows in its subtree is
 * expanded with all of them (autoexpand: one items-changed), a larger one by one level, and
 * its children are walked; where the budget ends the row goes to @rest, for the second part.
 * Each items-changed among the rows on screen costs the list view about 0.7 ms (it renumbers
 * its ~200 row widgets), so few large ones: on a system tree, 64 process rows expanded one by
 * one made the frame 45-70 ms slower (bench-frames --expand-all). */
static void
expand_first_rows (KubusPaneModel *self,
                   GtkTreeListRow *row,
                   guint           whole,
                   guint          *budget,
                   GPtrArray      *rest)
{
  GListModel *children;
  guint n;

  if (*budget == 0)
    {
      /* Whether it was open: if it is closed when its part comes, its expander closed it. */
      g_object_set_qdata (G_OBJECT (row), waiting_open_quark (),
                          GINT_TO_POINTER (gtk_tree_list_row_get_expanded (row) ? 2 : 1));
      g_ptr_array_add (rest, g_object_ref (row));
      return;
    }
  if (!gtk_tree_list_row_get_expanded (row))
    {
      g_autoptr (KubusNodeRow) item = gtk_tree_list_row_get_item (row);
      guint size = subtree_rows (kubus_node_row_get_kind (item), kubus_node_row_get_node (item),
                                 whole);

      if (size <= whole)
        {
          gtk_tree_list_model_set_autoexpand (self->tree, TRUE);
          gtk_tree_list_row_set_expanded (row, TRUE); /* a leaf stays as it is */
          gtk_tree_list_model_set_autoexpand (self->tree, FALSE);
          *budget -= MIN (size, *budget);
          return;
        }
      gtk_tree_list_row_set_expanded (row, TRUE);
    }
  (*budget)--;
  children = gtk_tree_list_row_get_children (row);
  n = children != NULL ? g_list_model_get_n_items (children) : 0;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GtkTreeListRow) child = gtk_tree_list_row_get_child_row (row, i);
      if (child != NULL)
        expand_first_rows (self, child, whole, budget, rest);
    }
}

/* Why parts: on this project's virtual machine the first Expand All of a session paid for
 * every page of memory the process had not used before (up to 18 µs a page,
 * docs/benchmarks.md), and in one frame the new row widgets, the renderer's surfaces and the
 * 20,000 new tree rows went over the 100 ms goal. The first parts make the rows the list view
 * shows (and its widgets), the last, in a later frame, the tree rows below them, which the
 * view only counts (kubus_pane_view_expand_all). */
gboolean
kubus_pane_model_expand_all_start (KubusPaneModel *self,
                                   guint           position,
                                   guint           n_rows)
{
  g_autoptr (GPtrArray) rest = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GPtrArray) rows = NULL;
  guint budget = n_rows, whole = n_rows <= G_MAXUINT / 4 ? 4 * n_rows : G_MAXUINT;

  if (position == G_MAXUINT)
    g_clear_pointer (&self->expand_rest, g_ptr_array_unref);
  rows = target_rows (self, position);
  for (guint i = 0; i < rows->len; i++)
    expand_first_rows (self, g_ptr_array_index (rows, i), whole, &budget, rest);
  if (rest->len == 0)
    return self->expand_rest != NULL;
  if (self->expand_rest == NULL)
    self->expand_rest = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_extend_and_steal (self->expand_rest, g_steal_pointer (&rest));
  return TRUE;
}

gboolean
kubus_pane_model_expand_all_continue (KubusPaneModel *self,
                                      guint           n_rows)
{
  g_autoptr (GPtrArray) rest = g_steal_pointer (&self->expand_rest);
  g_autoptr (GPtrArray) next = NULL;
  guint budget = n_rows, whole;

  if (rest == NULL)
    return FALSE;
  if (n_rows == G_MAXUINT)
    {
      /* the rest: each row that waits with everything below it, as kubus_pane_model_expand_all */
      gtk_tree_list_model_set_autoexpand (self->tree, TRUE);
      for (guint i = 0; i < rest->len; i++)
        {
          GtkTreeListRow *row = g_ptr_array_index (rest, i);
          if (row_still_waits (row))
            expand_below (row);
        }
      gtk_tree_list_model_set_autoexpand (self->tree, FALSE);
      return FALSE;
    }
  /* the next @n_rows rows in tree order: the rows that wait are in tree order */
  whole = n_rows <= G_MAXUINT / 4 ? 4 * n_rows : G_MAXUINT;
  next = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < rest->len; i++)
    {
      GtkTreeListRow *row = g_ptr_array_index (rest, i);
      if (row_still_waits (row))
        expand_first_rows (self, row, whole, &budget, next);
    }
  if (next->len > 0)
    self->expand_rest = g_steal_pointer (&next);
  return self->expand_rest != NULL;
}

void
kubus_pane_model_expand_all_finish (KubusPaneModel *self)
{
  kubus_pane_model_expand_all_continue (self, G_MAXUINT);
}

gboolean
kubus_pane_model_expand_all_pending (KubusPaneModel *self)
{
  return self->expand_rest != NULL;
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

guint
kubus_pane_model_find_position (KubusPaneModel *self,
                                guint          *n_matches)
{
  *n_matches = self->match_list != NULL ? self->match_list->len : 0;
  return self->match_pos >= 0 ? (guint) self->match_pos + 1 : 0;
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

/* A CSV field (kubus-text.h: quoted when it holds a comma, a quote or a line break), then the
 * separator or the line end. */
static void
append_csv_field (GString    *s,
                  const char *text,
                  gboolean    last)
{
  kubus_text_append_csv (s, text != NULL ? text : "");
  g_string_append (s, last ? "\r\n" : ",");
}

/* The row's call path from the root ("main/foo/MPI_Send") for call tree rows, its name for
 * the other views' rows. */
static char *
row_path (KubusNodeRow *item)
{
  if (kubus_node_row_get_kind (item) == KUBUS_NODE_CNODE)
    return cube_cnode_path (kubus_node_row_get_node (item));
  return g_strdup (kubus_node_name (kubus_node_row_get_kind (item), kubus_node_row_get_node (item)));
}

char *
kubus_pane_model_to_csv (KubusPaneModel *self,
                         const char     *metric,
                         const char     *metric_name,
                         const char     *call_path)
{
  GString *s = g_string_new (NULL);
  GListModel *model = G_LIST_MODEL (self->selection);
  guint n = g_list_model_get_n_items (model);
  KubusValueMode mode = shown_mode (self);

  /* What the values are of stands in every row (a spreadsheet keeps it when rows are sorted or
   * copied elsewhere): comment lines above the header would break the import. */
  g_string_append (s, "metric,metric_name,call_path,depth,name,value,mode,unit,inclusive,exclusive,state\r\n");
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GtkTreeListRow) row = g_list_model_get_item (model, i);
      g_autoptr (KubusNodeRow) item = gtk_tree_list_row_get_item (row);
      gboolean expanded = gtk_tree_list_row_get_expanded (row);
      double shown = kubus_pane_model_display_value (self, item, expanded);
      g_autofree char *depth = g_strdup_printf ("%u", gtk_tree_list_row_get_depth (row));
      g_autofree char *value = isnan (shown) ? g_strdup ("") : cube_format_shortest (shown);
      g_autofree char *incl = cube_format_shortest (kubus_pane_model_raw_value (self, item, FALSE));
      g_autofree char *excl = cube_format_shortest (kubus_pane_model_raw_value (self, item, TRUE));
      g_autofree char *path = NULL;
      const char *unit = mode == KUBUS_MODE_ABSOLUTE ? row_unit (self, item) : mode_unit (mode);

      if (self->kind == KUBUS_PANE_METRIC)
        {
          const CubeMetric *m = kubus_node_row_get_node (item);
          append_csv_field (s, m->uniq_name, FALSE);
          append_csv_field (s, kubus_node_name (KUBUS_NODE_METRIC, m), FALSE);
          append_csv_field (s, call_path, FALSE);
        }
      else
        {
          append_csv_field (s, metric, FALSE);
          append_csv_field (s, metric_name, FALSE);
          if (self->kind == KUBUS_PANE_CALL)
            path = row_path (item);
          append_csv_field (s, path != NULL ? path : call_path, FALSE);
        }
      append_csv_field (s, depth, FALSE);
      append_csv_field (s, kubus_node_name (kubus_node_row_get_kind (item), kubus_node_row_get_node (item)), FALSE);
      append_csv_field (s, value, FALSE);
      append_csv_field (s, kubus_value_mode_to_string (mode), FALSE);
      append_csv_field (s, unit, FALSE);
      append_csv_field (s, incl, FALSE);
      append_csv_field (s, excl, FALSE);
      append_csv_field (s, expanded ? "expanded" : gtk_tree_list_row_is_expandable (row) ? "collapsed" : "leaf", TRUE);
    }
  return g_string_free (s, FALSE);
}
