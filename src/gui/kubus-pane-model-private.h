/* kubus-pane-model-private.h — pane internals shared with KubusBrowser, which fills in the
 * values (the pane only turns them into text and colours). */
#pragma once

#include "kubus-node-list.h"
#include "kubus-pane-model.h"
#include "kubus-profile.h"

G_BEGIN_DECLS

struct _KubusPaneModel
{
  GObject             parent_instance;

  KubusPaneKind       kind;
  CubeReport         *report;           /* borrowed from the browser */
  KubusProfile       *profile;          /* call pane: borrowed */
  KubusCallView       call_view;

  KubusNodeKind       root_kind;
  KubusNodeList      *roots;
  GtkTreeListModel   *tree;
  GtkSorter          *value_sorter;   /* keyed sorters: one key per row, made once per sort */
  GtkSorter          *name_sorter;
  GHashTable         *name_keys;        /* node → natural-order collation key */
  GtkTreeListRowSorter *row_sorter;
  GtkSortListModel   *sorted;
  GtkCustomFilter    *filter;
  GtkFilterListModel *filtered;
  GtkMultiSelection  *selection;

  guint               n_values;
  double             *incl;             /* per node index (metric/cnode/sysnode) */
  double             *excl;

  /* Denominators of the percent modes. Metric pane: per metric (of its root); others: one. */
  double             *metric_percent;   /* metric pane, n_values */
  double             *metric_external;  /* metric pane, n_values (NaN: no external match) */
  double              denom_percent;
  double              denom_relative;
  double              denom_external;
  gboolean            have_external;    /* an external report is loaded */
  double             *metric_root_incl; /* metric pane colour range per metric (root incl) */

  double             *peer_min;         /* system pane, per depth */
  double             *peer_max;
  guint               n_depths;

  double              max_abs;
  gboolean            is_signed;
  gboolean            may_be_signed;    /* FALSE for a plain report: never the diverging scale */
  gboolean            saved_added;      /* original − simulated: gains and losses in words */
  double              min_value;
  double              range_floor;      /* colour range at least this (shared with another pane) */
  int                 exponent;         /* absolute mode: common exponent of call/system pane */
  gboolean            integer_values;
  char               *unit;

  KubusValueMode      mode;
  KubusSortKind       sort;
  gboolean            hide_zero;
  double              hide_below;
  GHashTable         *pinned;           /* nodes selected when the filter last changed */
  KubusColorScale     scale;
  double              insignificant;
  guint               digits;
  KubusNumberFormat   format;

  /* Selected rows with their ancestors (GPtrArray of GtkTreeListRow, row first): when a
   * collapse removes a selected row, the selection moves to its nearest visible ancestor. */
  GPtrArray          *selected_chains;
  guint               keep_selection_id;

  /* An Expand All in parts (kubus_pane_model_expand_all_start): the rows (GtkTreeListRow, in
   * tree order) at which the last part stopped, expanded with the rows below them next. */
  GPtrArray          *expand_rest;

  /* Called before the children of @node get rows (or are compared by value), so that their
   * values can be computed on demand (the metric pane: KubusBrowser). Only fills in values: it
   * must not change the models. */
  void              (*need_children) (KubusPaneModel *pane,
                                      gpointer        node,
                                      gpointer        data);
  gpointer            need_children_data;

  GHashTable         *matches;          /* node → 1 match / 2 ancestor of a match */
  GPtrArray          *match_list;       /* nodes in pre-order */
  KubusNodeKind       match_kind;
  int                 match_pos;
};

/* Builds the model chain for new roots (emits notify::selection). */
void kubus_pane_model_set_roots    (KubusPaneModel *self,
                                    KubusNodeKind   kind,
                                    gpointer const *nodes,
                                    guint           n_nodes);
/* Recomputes range and peers and tells views, sorter and filter that values changed. */
void kubus_pane_model_values_changed (KubusPaneModel *self);
/* Rounding residues of the values set so far made 0 (no signal: safe inside an expansion) */
void kubus_pane_model_clamp_residues (KubusPaneModel *self);
KubusPaneModel *kubus_pane_model_new (KubusPaneKind kind,
                                      CubeReport   *report);
/* Gives @a and @b one colour range, the larger of theirs (a difference's call and system
 * panes: a colour means the same value in both). */
void kubus_pane_model_share_range (KubusPaneModel *a,
                                   KubusPaneModel *b);

G_END_DECLS
