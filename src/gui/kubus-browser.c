/* kubus-browser.c — see kubus-browser.h. */
#include <glib/gi18n.h>
#include <math.h>

#include "cube-format.h"
#include "cube-path.h"
#include "kubus-browser.h"
#include "kubus-node.h"
#include "kubus-pane-model-private.h"

struct _KubusBrowser
{
  GObject         parent_instance;

  CubeReport     *report;
  CubeReport     *base;           /* A of a difference A − B, or NULL */
  CubeReport     *external;
  KubusProfile   *profile;
  KubusCallView   call_view;
  KubusPaneModel *panes[KUBUS_N_PANES];

  double         *base_metric_incl;     /* metric totals of base (or report) */
  double         *external_metric_incl; /* metric totals of the external report */

  GArray         *msel;           /* CubeMetricSel of the metric pane */
  GArray         *csel;           /* CubeCnodeSel of the call pane */
  double          relative_call;  /* what the metric selection shows: call pane 100% */
  double          relative_system;

  double         *per_location;   /* the system pane's values per location, last update */
  guint8         *metric_known;   /* metric pane: 1 collapsed value computed, 2 expanded too */
  char           *metric_error;   /* a metric's value could not be read while a row expanded */
  guint           metric_idle_id; /* reports that error and the new range after an expansion */
  guint           idle_id;
  int             pending_from;   /* first pane to recompute, KUBUS_N_PANES = none */
  gboolean        in_update;
};

enum
{
  ERROR,
  UPDATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (KubusBrowser, kubus_browser, G_TYPE_OBJECT)

static void
kubus_browser_dispose (GObject *object)
{
  KubusBrowser *self = KUBUS_BROWSER (object);

  g_clear_handle_id (&self->idle_id, g_source_remove);
  g_clear_handle_id (&self->metric_idle_id, g_source_remove);
  for (guint i = 0; i < KUBUS_N_PANES; i++)
    {
      if (self->panes[i] != NULL && self->panes[i]->selection != NULL)
        g_signal_handlers_disconnect_by_data (self->panes[i]->selection, self);
      g_clear_object (&self->panes[i]);
    }
  G_OBJECT_CLASS (kubus_browser_parent_class)->dispose (object);
}

static void
kubus_browser_finalize (GObject *object)
{
  KubusBrowser *self = KUBUS_BROWSER (object);

  g_clear_pointer (&self->profile, kubus_profile_free);
  g_clear_pointer (&self->report, cube_report_free);
  g_clear_pointer (&self->base, cube_report_free);
  g_clear_pointer (&self->external, cube_report_free);
  g_free (self->base_metric_incl);
  g_free (self->external_metric_incl);
  g_array_unref (self->msel);
  g_array_unref (self->csel);
  g_free (self->per_location);
  g_free (self->metric_known);
  g_free (self->metric_error);
  G_OBJECT_CLASS (kubus_browser_parent_class)->finalize (object);
}

static void
kubus_browser_class_init (KubusBrowserClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = kubus_browser_dispose;
  object_class->finalize = kubus_browser_finalize;

  /* A value could not be read (a corrupt lazily read row): the message names the file. */
  signals[ERROR] = g_signal_new ("error", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                 NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /* Panes from the given one to the right got new values. */
  signals[UPDATED] = g_signal_new ("updated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                   NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
}

static void
kubus_browser_init (KubusBrowser *self)
{
  self->msel = g_array_new (FALSE, FALSE, sizeof (CubeMetricSel));
  self->csel = g_array_new (FALSE, FALSE, sizeof (CubeCnodeSel));
  self->pending_from = KUBUS_N_PANES;
}

static const CubeMetric *
metric_root (const CubeMetric *m)
{
  while (m->parent != NULL)
    m = m->parent;
  return m;
}

/* Total of @m's root metric in @other (matched by unique name), NaN if absent. */
static double
root_total_in (CubeReport       *other,
               const double     *other_incl,
               const CubeMetric *m)
{
  const CubeMetric *root = metric_root (m);
  const CubeMetric *om;

  if (other == NULL || other_incl == NULL)
    return NAN;
  om = cube_report_find_metric (other, root->uniq_name);
  if (om == NULL)
    return NAN;
  return other_incl[om->index];
}

static double
percent_denominator (KubusBrowser     *self,
                     const CubeMetric *m)
{
  if (self->base != NULL)
    return root_total_in (self->base, self->base_metric_incl, m);
  return self->base_metric_incl[metric_root (m)->index];
}

/* ---- selection → cube selections ------------------------------------------------------- */

static void
add_cnodes (GArray    *csel,
            GPtrArray *cnodes,
            gboolean   expanded)
{
  for (guint i = 0; i < cnodes->len; i++)
    {
      CubeCnodeSel s = { g_ptr_array_index (cnodes, i), expanded };
      g_array_append_val (csel, s);
    }
}

/* Call pane row → the call paths it stands for, as a selection that src/cube sums. */
static void
append_call_row (GArray       *csel,
                 KubusNodeRow *row,
                 gboolean      expanded)
{
  gpointer node = kubus_node_row_get_node (row);

  switch (kubus_node_row_get_kind (row))
    {
    case KUBUS_NODE_CNODE:
      {
        CubeCnodeSel s = { node, expanded };
        g_array_append_val (csel, s);
        break;
      }
    case KUBUS_NODE_FLAT_REGION:
      {
        KubusFlatRegion *fr = node;
        add_cnodes (csel, fr->cnodes, TRUE);
        if (!expanded)
          for (guint i = 0; i < fr->callees->len; i++)
            add_cnodes (csel, ((KubusFlatCallee *) g_ptr_array_index (fr->callees, i))->cnodes, FALSE);
        break;
      }
    case KUBUS_NODE_MODULE_REGION:
      add_cnodes (csel, ((KubusFlatRegion *) node)->cnodes, TRUE);
      break;
    case KUBUS_NODE_FLAT_CALLEE:
      add_cnodes (csel, ((KubusFlatCallee *) node)->cnodes, FALSE);
      break;
    case KUBUS_NODE_MODULE:
      if (!expanded)
        {
          KubusModule *module = node;
          for (guint r = 0; r < module->regions->len; r++)
            add_cnodes (csel, ((KubusFlatRegion *) g_ptr_array_index (module->regions, r))->cnodes, TRUE);
        }
      break;
    default:
      break;
    }
}

/* Sum of what the selected rows of @pane show (raw). */
static double
collect_selection (KubusBrowser   *self,
                   KubusPaneModel *pane,
                   GArray         *out)
{
  GtkSelectionModel *model = GTK_SELECTION_MODEL (pane->selection);
  g_autoptr (GtkBitset) set = gtk_selection_model_get_selection (model);
  GtkBitsetIter iter;
  guint pos;
  double sum = 0;

  (void) self;
  g_array_set_size (out, 0);
  if (gtk_bitset_iter_init_first (&iter, set, &pos))
    do
      {
        g_autoptr (GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (model), pos);
        g_autoptr (KubusNodeRow) item = NULL;
        gboolean expanded;

        if (row == NULL)
          continue;
        item = gtk_tree_list_row_get_item (row);
        expanded = gtk_tree_list_row_get_expanded (row);
        sum += kubus_pane_model_raw_value (pane, item, expanded);
        if (pane->kind == KUBUS_PANE_METRIC)
          {
            CubeMetricSel s = { kubus_node_row_get_node (item), expanded };
            g_array_append_val (out, s);
          }
        else
          append_call_row (out, item, expanded);
      }
    while (gtk_bitset_iter_next (&iter, &pos));
  return sum;
}

/* ---- recomputation ----------------------------------------------------------------------- */

static void
report_error (KubusBrowser *self,
              GError       *error)
{
  g_signal_emit (self, signals[ERROR], 0, error->message);
}

static void
update_call (KubusBrowser *self)
{
  KubusPaneModel *pane = self->panes[KUBUS_PANE_CALL];
  g_autoptr (GError) error = NULL;
  const CubeMetric *first;

  self->relative_call = collect_selection (self, self->panes[KUBUS_PANE_METRIC], self->msel);
  if (self->msel->len == 0)
    {
      memset (pane->incl, 0, sizeof (double) * pane->n_values);
      memset (pane->excl, 0, sizeof (double) * pane->n_values);
      g_free (pane->unit);
      pane->unit = NULL;
      pane->denom_percent = pane->denom_relative = pane->denom_external = NAN;
    }
  else
    {
      if (!cube_values_cnodes (self->report, (CubeMetricSel *) self->msel->data, self->msel->len,
                               NULL, 0, pane->incl, pane->excl, &error))
        {
          report_error (self, error);
          memset (pane->incl, 0, sizeof (double) * pane->n_values);
          memset (pane->excl, 0, sizeof (double) * pane->n_values);
        }
      first = g_array_index (self->msel, CubeMetricSel, 0).metric;
      g_free (pane->unit);
      pane->unit = g_strdup (first->uom);
      pane->integer_values = first->dtype != CUBE_DTYPE_DOUBLE && first->dtype != CUBE_DTYPE_MINDOUBLE
                             && first->dtype != CUBE_DTYPE_MAXDOUBLE;
      pane->denom_percent = percent_denominator (self, first);
      pane->denom_relative = self->relative_call;
      pane->denom_external = root_total_in (self->external, self->external_metric_incl, first);
    }
  kubus_profile_update (self->profile, pane->incl, pane->excl);
  kubus_pane_model_values_changed (pane);
}

static void
update_system (KubusBrowser *self)
{
  KubusPaneModel *pane = self->panes[KUBUS_PANE_SYSTEM];
  KubusPaneModel *call = self->panes[KUBUS_PANE_CALL];
  g_autoptr (GError) error = NULL;
  g_autofree double *per_location = g_new0 (double, MAX (self->report->locations->len, 1));

  self->relative_system = collect_selection (self, call, self->csel);
  if (self->csel->len == 0)
    {
      /* Nothing selected in the call pane: the whole program. */
      self->relative_system = 0;
      for (guint i = 0; i < self->report->cnode_roots->len; i++)
        {
          CubeCnodeSel s = { g_ptr_array_index (self->report->cnode_roots, i), FALSE };
          g_array_append_val (self->csel, s);
          self->relative_system += call->incl[s.cnode->index];
        }
    }
  if (self->msel->len > 0
      && !cube_values_locations_keep_none (self->report, (CubeMetricSel *) self->msel->data,
                                           self->msel->len, (CubeCnodeSel *) self->csel->data,
                                           self->csel->len, per_location, &error))
    {
      report_error (self, error);
      memset (per_location, 0, sizeof (double) * self->report->locations->len);
    }
  cube_values_sysnodes (self->report,
                        self->msel->len > 0 ? g_array_index (self->msel, CubeMetricSel, 0).metric : NULL,
                        per_location, pane->incl, pane->excl);
  /* Minima/maxima: locations without a value were passed over above; they read 0. */
  cube_values_none_to_zero (per_location, self->report->locations->len);
  /* Rounding residues are 0 here too (statistics, topology), as in the pane. */
  {
    double scale = isfinite (call->denom_percent) ? fabs (call->denom_percent) : 0;

    for (guint l = 0; scale == 0 && l < self->report->locations->len; l++)
      scale = MAX (scale, fabs (per_location[l]));
    for (guint l = 0; l < self->report->locations->len; l++)
      per_location[l] = cube_value_clamp_residue (per_location[l], scale);
  }
  g_free (self->per_location);
  self->per_location = g_steal_pointer (&per_location);
  g_free (pane->unit);
  pane->unit = g_strdup (call->unit);
  pane->integer_values = call->integer_values;
  pane->denom_percent = call->denom_percent;
  pane->denom_relative = self->relative_system;
  pane->denom_external = call->denom_external;
  kubus_pane_model_values_changed (pane);
}

static void
run_update (KubusBrowser *self)
{
  int from = self->pending_from;

  self->pending_from = KUBUS_N_PANES;
  if (from >= KUBUS_N_PANES)
    return;
  self->in_update = TRUE;
  if (from <= KUBUS_PANE_CALL)
    update_call (self);
  update_system (self);
  /* A difference: one colour scale for the call and the system pane (issue 16, defect 6). */
  if (self->base != NULL)
    kubus_pane_model_share_range (self->panes[KUBUS_PANE_CALL], self->panes[KUBUS_PANE_SYSTEM]);
  self->in_update = FALSE;
  g_signal_emit (self, signals[UPDATED], 0, (guint) from);
}

static gboolean
update_idle (gpointer data)
{
  KubusBrowser *self = data;

  self->idle_id = 0;
  run_update (self);
  return G_SOURCE_REMOVE;
}

static void
queue_update (KubusBrowser *self,
              int           from)
{
  self->pending_from = MIN (self->pending_from, from);
  if (self->idle_id == 0)
    self->idle_id = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE - 10, update_idle, self, NULL);
}

void
kubus_browser_flush (KubusBrowser *self)
{
  g_clear_handle_id (&self->idle_id, g_source_remove);
  run_update (self);
}

static int
pane_index (KubusBrowser   *self,
            GListModel     *model)
{
  for (int i = 0; i < KUBUS_N_PANES; i++)
    if (self->panes[i] != NULL && G_LIST_MODEL (self->panes[i]->selection) == model)
      return i;
  return KUBUS_N_PANES;
}

static void
on_selection_changed (GtkSelectionModel *model,
                      guint              position,
                      guint              n_items,
                      gpointer           user_data)
{
  KubusBrowser *self = user_data;
  int i = pane_index (self, G_LIST_MODEL (model));

  (void) position, (void) n_items;
  if (i < KUBUS_PANE_SYSTEM)
    queue_update (self, i + 1);
}

static void
on_items_changed (GListModel *model,
                  guint       position,
                  guint       removed,
                  guint       added,
                  gpointer    user_data)
{
  KubusBrowser *self = user_data;
  int i = pane_index (self, model);

  (void) position, (void) removed, (void) added;
  /* An expanded or collapsed selected row now stands for another value. Re-sorting after our
   * own update changes positions only, which the next update would not change: skip it. */
  if (self->in_update || i >= KUBUS_PANE_SYSTEM)
    return;
  {
    g_autoptr (GtkBitset) set = gtk_selection_model_get_selection (GTK_SELECTION_MODEL (model));
    if (gtk_bitset_is_empty (set))
      return;
  }
  queue_update (self, i + 1);
}

static void
connect_pane (KubusBrowser   *self,
              KubusPaneModel *pane)
{
  g_signal_connect (pane->selection, "selection-changed", G_CALLBACK (on_selection_changed), self);
  g_signal_connect (pane->selection, "items-changed", G_CALLBACK (on_items_changed), self);
}

static void
set_call_roots (KubusBrowser *self)
{
  KubusPaneModel *pane = self->panes[KUBUS_PANE_CALL];

  if (pane->selection != NULL)
    g_signal_handlers_disconnect_by_data (pane->selection, self);
  pane->call_view = self->call_view;
  switch (self->call_view)
    {
    case KUBUS_CALL_VIEW_FLAT:
      kubus_pane_model_set_roots (pane, KUBUS_NODE_FLAT_REGION, self->profile->regions->pdata,
                                  self->profile->regions->len);
      break;
    case KUBUS_CALL_VIEW_MODULE:
      kubus_pane_model_set_roots (pane, KUBUS_NODE_MODULE, self->profile->modules->pdata,
                                  self->profile->modules->len);
      break;
    case KUBUS_CALL_VIEW_TREE:
    default:
      kubus_pane_model_set_roots (pane, KUBUS_NODE_CNODE, self->report->cnode_roots->pdata,
                                  self->report->cnode_roots->len);
      break;
    }
  connect_pane (self, pane);
}

/* ---- the metric pane, on demand ------------------------------------------------------------
 *
 * A report opens with its metric roots collapsed: only their totals are computed (for a .cubex
 * read lazily, only the rows those need). A metric's children get their values when it is
 * expanded (the pane asks before it creates their rows), and so does its expanded value. */

/* The collapsed (and with @expanded the expanded) value of @m into the metric pane. */
static gboolean
ensure_metric (KubusBrowser     *self,
               const CubeMetric *m,
               gboolean          expanded,
               GError          **error)
{
  KubusPaneModel *pane = self->panes[KUBUS_PANE_METRIC];
  guint8 want = expanded ? 2 : 1;

  if (self->metric_known[m->index] >= want)
    return TRUE;
  if (self->metric_known[m->index] < 1
      && !cube_values_metric_total (self->report, m, FALSE, &pane->incl[m->index], error))
    return FALSE;
  self->metric_known[m->index] = 1;
  if (expanded)
    {
      if (!cube_values_metric_total (self->report, m, TRUE, &pane->excl[m->index], error))
        return FALSE;
      self->metric_known[m->index] = 2;
    }
  return TRUE;
}

static gboolean
metric_values_idle (gpointer data)
{
  KubusBrowser *self = data;
  g_autofree char *message = g_steal_pointer (&self->metric_error);

  self->metric_idle_id = 0;
  /* Ranges and the sign of the colour scale may have changed with the new rows. */
  kubus_pane_model_values_changed (self->panes[KUBUS_PANE_METRIC]);
  if (message != NULL)
    g_signal_emit (self, signals[ERROR], 0, message);
  return G_SOURCE_REMOVE;
}

/* The metric pane is about to show the children of @node (a metric row expands). */
static void
on_metric_children (KubusPaneModel *pane,
                    gpointer        node,
                    gpointer        user_data)
{
  KubusBrowser *self = user_data;
  const CubeMetric *m = node;
  g_autoptr (GError) error = NULL;
  gboolean ok = ensure_metric (self, m, TRUE, &error);

  (void) pane;
  for (guint k = 0; ok && k < m->children->len; k++)
    ok = ensure_metric (self, g_ptr_array_index (m->children, k), FALSE, &error);
  if (!ok && self->metric_error == NULL)
    self->metric_error = g_strdup (error->message);
  /* the rows about to show read 0 for a residue at once, not after the idle below */
  kubus_pane_model_clamp_residues (pane);
  /* Not from inside the tree model's expansion: signals there would re-enter its models. */
  if (self->metric_idle_id == 0)
    self->metric_idle_id = g_idle_add_full (G_PRIORITY_HIGH_IDLE, metric_values_idle, self, NULL);
}

static gboolean
compute_metric_pane (KubusBrowser *self,
                     GError      **error)
{
  KubusPaneModel *pane = self->panes[KUBUS_PANE_METRIC];
  CubeReport *report = self->report;

  self->metric_known = g_new0 (guint8, MAX (report->metrics->len, 1));
  for (guint i = 0; i < report->metric_roots->len; i++)
    if (!ensure_metric (self, g_ptr_array_index (report->metric_roots, i), FALSE, error))
      return FALSE;
  for (guint i = 0; i < report->metrics->len; i++)
    {
      const CubeMetric *m = g_ptr_array_index (report->metrics, i);
      pane->metric_root_incl[i] = pane->incl[metric_root (m)->index];
    }
  pane->need_children = on_metric_children;
  pane->need_children_data = self;
  return TRUE;
}

/* Totals of @report's metric roots into @incl (per metric index; other entries stay 0): all
 * that percentages of a base or an external report need. */
static gboolean
root_totals (CubeReport *report,
             double     *incl,
             GError    **error)
{
  for (guint i = 0; i < report->metric_roots->len; i++)
    {
      const CubeMetric *m = g_ptr_array_index (report->metric_roots, i);

      if (!cube_values_metric_total (report, m, FALSE, &incl[m->index], error))
        return FALSE;
    }
  return TRUE;
}

static void
update_metric_denominators (KubusBrowser *self)
{
  KubusPaneModel *pane = self->panes[KUBUS_PANE_METRIC];

  for (guint i = 0; i < self->report->metrics->len; i++)
    {
      const CubeMetric *m = g_ptr_array_index (self->report->metrics, i);
      pane->metric_percent[i] = percent_denominator (self, m);
      pane->metric_external[i] = root_total_in (self->external, self->external_metric_incl, m);
    }
}

KubusBrowser *
kubus_browser_new (CubeReport  *report,
                   CubeReport  *base,
                   GError     **error)
{
  g_autoptr (KubusBrowser) self = g_object_new (KUBUS_TYPE_BROWSER, NULL);
  g_autoptr (GPtrArray) metric_roots = g_ptr_array_new ();

  g_return_val_if_fail (report != NULL, NULL);

  self->report = report;
  self->base = base;
  self->profile = kubus_profile_new (report);
  for (guint i = 0; i < KUBUS_N_PANES; i++)
    self->panes[i] = kubus_pane_model_new (i, report);
  self->panes[KUBUS_PANE_CALL]->profile = self->profile;

  if (!compute_metric_pane (self, error))
    return NULL;
  if (base != NULL)
    {
      self->base_metric_incl = g_new0 (double, MAX (base->metrics->len, 1));
      if (!root_totals (base, self->base_metric_incl, error))
        return NULL;
    }
  else
    self->base_metric_incl = g_memdup2 (self->panes[KUBUS_PANE_METRIC]->incl,
                                        sizeof (double) * MAX (report->metrics->len, 1));
  update_metric_denominators (self);

  for (guint i = 0; i < report->metric_roots->len; i++)
    {
      CubeMetric *m = g_ptr_array_index (report->metric_roots, i);
      if (!m->ghost)
        g_ptr_array_add (metric_roots, m);
    }
  kubus_pane_model_set_roots (self->panes[KUBUS_PANE_METRIC], KUBUS_NODE_METRIC,
                              metric_roots->pdata, metric_roots->len);
  connect_pane (self, self->panes[KUBUS_PANE_METRIC]);
  set_call_roots (self);
  kubus_pane_model_set_roots (self->panes[KUBUS_PANE_SYSTEM], KUBUS_NODE_SYSNODE,
                              report->system_roots->pdata, report->system_roots->len);
  kubus_pane_model_values_changed (self->panes[KUBUS_PANE_METRIC]);

  if (base != NULL)
    for (guint i = 0; i < KUBUS_N_PANES; i++)
      self->panes[i]->mode = KUBUS_MODE_PERCENT;

  self->pending_from = KUBUS_PANE_CALL;
  run_update (self);
  return g_steal_pointer (&self);
}

CubeReport *
kubus_browser_get_report (KubusBrowser *self)
{
  return self->report;
}

gboolean
kubus_browser_is_difference (KubusBrowser *self)
{
  return self->base != NULL;
}

KubusPaneModel *
kubus_browser_get_pane (KubusBrowser *self,
                        KubusPaneKind kind)
{
  g_return_val_if_fail (kind < KUBUS_N_PANES, NULL);
  return self->panes[kind];
}

gboolean
kubus_browser_set_external (KubusBrowser *self,
                            CubeReport   *external,
                            GError      **error)
{
  g_autofree double *incl = NULL;

  if (external != NULL)
    {
      incl = g_new0 (double, MAX (external->metrics->len, 1));
      if (!root_totals (external, incl, error))
        {
          cube_report_free (external);
          return FALSE;
        }
    }
  g_clear_pointer (&self->external, cube_report_free);
  g_free (self->external_metric_incl);
  self->external = external;
  self->external_metric_incl = g_steal_pointer (&incl);
  for (guint i = 0; i < KUBUS_N_PANES; i++)
    self->panes[i]->have_external = external != NULL;
  update_metric_denominators (self);
  kubus_pane_model_values_changed (self->panes[KUBUS_PANE_METRIC]);
  self->pending_from = KUBUS_PANE_CALL;
  kubus_browser_flush (self);
  return TRUE;
}

gboolean
kubus_browser_has_external (KubusBrowser *self)
{
  return self->external != NULL;
}

void
kubus_browser_set_call_view (KubusBrowser *self,
                             KubusCallView view)
{
  if (self->call_view == view)
    return;
  self->call_view = view;
  set_call_roots (self);
  self->pending_from = KUBUS_PANE_CALL;
  kubus_browser_flush (self);
}

KubusCallView
kubus_browser_get_call_view (KubusBrowser *self)
{
  return self->call_view;
}

void
kubus_browser_select_position (KubusBrowser *self,
                               KubusPaneKind pane,
                               guint         position)
{
  GtkSelectionModel *model = GTK_SELECTION_MODEL (self->panes[pane]->selection);

  if (position == G_MAXUINT)
    gtk_selection_model_unselect_all (model);
  else
    gtk_selection_model_select_item (model, position, TRUE);
}

/* The metric a report opens with: where the time goes is the first question, so the "time"
 * root if there is one (Score-P writes "visits" first), else the first root shown. */
static guint
default_metric_position (KubusBrowser *self)
{
  GListModel *roots = G_LIST_MODEL (self->panes[KUBUS_PANE_METRIC]->selection);
  guint n = g_list_model_get_n_items (roots);
  const CubeMetric *want = kubus_browser_default_metric (self->report);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GtkTreeListRow) row = g_list_model_get_item (roots, i);
      g_autoptr (KubusNodeRow) item = gtk_tree_list_row_get_item (row);

      if (gtk_tree_list_row_get_depth (row) == 0 && kubus_node_row_get_node (item) == want)
        return i;
    }
  return 0;
}

const CubeMetric *
kubus_browser_default_metric (const CubeReport *report)
{
  const CubeMetric *first = NULL;

  for (guint i = 0; i < report->metric_roots->len; i++)
    {
      const CubeMetric *m = g_ptr_array_index (report->metric_roots, i);

      if (m->ghost)
        continue;
      if (g_strcmp0 (m->uniq_name, "time") == 0)
        return m;
      if (first == NULL)
        first = m;
    }
  return first;
}

void
kubus_browser_warm (CubeReport *report)
{
  const CubeMetric *m = kubus_browser_default_metric (report);
  g_autofree double *incl = g_new0 (double, MAX (report->metrics->len, 1));
  g_autofree double *cnodes = g_new (double, MAX (report->cnodes->len, 1));

  /* Errors (a corrupt lazily read row) are met again, and reported, by the browser. */
  if (!root_totals (report, incl, NULL) || m == NULL)
    return;
  {
    CubeMetricSel sel = { m, FALSE };

    cube_values_cnodes (report, &sel, 1, NULL, 0, cnodes, NULL, NULL);
  }
}

void
kubus_browser_select_default (KubusBrowser *self)
{
  kubus_browser_select_position (self, KUBUS_PANE_METRIC, default_metric_position (self));
  kubus_browser_select_position (self, KUBUS_PANE_CALL, 0);
  kubus_browser_flush (self);
}

gboolean
kubus_browser_select_metric (KubusBrowser *self,
                             const char   *uniq_name)
{
  CubeMetric *m = cube_report_find_metric (self->report, uniq_name);
  guint pos;

  if (m == NULL)
    return FALSE;
  pos = kubus_pane_model_reveal (self->panes[KUBUS_PANE_METRIC], KUBUS_NODE_METRIC, m);
  if (pos == G_MAXUINT)
    return FALSE;
  kubus_browser_select_position (self, KUBUS_PANE_METRIC, pos);
  kubus_browser_flush (self);
  return TRUE;
}

gboolean
kubus_browser_select_cnode (KubusBrowser *self,
                            gint64        file_id)
{
  CubeCnode *c = cube_report_cnode_by_file_id (self->report, file_id);
  guint pos;

  if (c == NULL || self->call_view != KUBUS_CALL_VIEW_TREE)
    return FALSE;
  pos = kubus_pane_model_reveal (self->panes[KUBUS_PANE_CALL], KUBUS_NODE_CNODE, c);
  if (pos == G_MAXUINT)
    return FALSE;
  kubus_browser_select_position (self, KUBUS_PANE_CALL, pos);
  kubus_browser_flush (self);
  return TRUE;
}

void
kubus_browser_set_mode (KubusBrowser  *self,
                        KubusValueMode mode)
{
  for (guint i = 0; i < KUBUS_N_PANES; i++)
    if (kubus_pane_model_mode_available (self->panes[i], mode))
      kubus_pane_model_set_mode (self->panes[i], mode);
}

const double *
kubus_browser_get_location_values (KubusBrowser *self,
                                   guint        *n)
{
  *n = self->per_location != NULL ? self->report->locations->len : 0;
  return self->per_location;
}

/* The selected rows of @pane joined by " + ": metrics by unique name (@unique) or by the name
 * shown, call paths from the root ("main/foo"); " (exclusive)" after an expanded row's name
 * when @mark_exclusive. */
static char *
describe_pane_full (KubusBrowser *self,
                    KubusPaneKind kind,
                    gboolean      unique,
                    gboolean      mark_exclusive)
{
  GtkSelectionModel *model = GTK_SELECTION_MODEL (self->panes[kind]->selection);
  g_autoptr (GtkBitset) set = gtk_selection_model_get_selection (model);
  GtkBitsetIter iter;
  guint pos;
  GString *s = g_string_new (NULL);

  if (gtk_bitset_iter_init_first (&iter, set, &pos))
    do
      {
        gboolean expanded = FALSE;
        g_autoptr (KubusNodeRow) item = kubus_pane_model_get_row (self->panes[kind], pos, &expanded);
        g_autofree char *name = NULL;

        if (item == NULL)
          continue;
        if (kubus_node_row_get_kind (item) == KUBUS_NODE_CNODE)
          name = cube_cnode_path (kubus_node_row_get_node (item));
        else if (unique && kubus_node_row_get_kind (item) == KUBUS_NODE_METRIC)
          name = g_strdup (((const CubeMetric *) kubus_node_row_get_node (item))->uniq_name);
        else
          name = g_strdup (kubus_node_name (kubus_node_row_get_kind (item), kubus_node_row_get_node (item)));
        g_string_append_printf (s, "%s%s", s->len > 0 ? " + " : "", name);
        if (mark_exclusive && expanded)
          g_string_append_printf (s, " (%s)", _("exclusive"));
      }
    while (gtk_bitset_iter_next (&iter, &pos));
  return g_string_free (s, FALSE);
}

static char *
describe_pane (KubusBrowser *self,
               KubusPaneKind kind)
{
  return describe_pane_full (self, kind, FALSE, FALSE);
}

char *
kubus_browser_to_csv (KubusBrowser *self,
                      KubusPaneKind kind)
{
  g_autofree char *metric = describe_pane_full (self, KUBUS_PANE_METRIC, TRUE, FALSE);
  g_autofree char *metric_name = describe_pane_full (self, KUBUS_PANE_METRIC, FALSE, TRUE);
  g_autofree char *call = kind == KUBUS_PANE_SYSTEM ? describe_pane_full (self, KUBUS_PANE_CALL, FALSE, TRUE) : NULL;

  /* The system pane of nothing selected in the call pane shows the whole program. */
  if (call != NULL && call[0] == '\0')
    {
      g_free (call);
      call = g_strdup (_("the whole program"));
    }
  return kubus_pane_model_to_csv (self->panes[kind], metric, metric_name, call != NULL ? call : "");
}

char *
kubus_browser_describe_selection (KubusBrowser *self)
{
  g_autofree char *metric = describe_pane (self, KUBUS_PANE_METRIC);
  g_autofree char *call = describe_pane (self, KUBUS_PANE_CALL);

  /* TRANSLATORS: "<metric> at <call path>" above the statistics across locations */
  return g_strdup_printf (_("%s at %s"), metric[0] ? metric : "–", call[0] ? call : _("the whole program"));
}
