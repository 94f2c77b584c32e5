/* kubus-pane-model.h — one of the browser's three trees, without widgets.
 *
 * Holds the model chain a GtkColumnView shows:
 *   KubusNodeList (roots) → GtkTreeListModel (children created on expand)
 *   → GtkSortListModel (GtkTreeListRowSorter) → GtkFilterListModel → GtkMultiSelection
 * plus the values of every node under the current selection to the left, the value mode,
 * the colour range and the find matches. Values come from src/cube via KubusBrowser. */
#pragma once

#include <gtk/gtk.h>

#include "cube.h"
#include "kubus-node-row.h"
#include "kubus-severity.h"
#include "kubus-types.h"

G_BEGIN_DECLS

#define KUBUS_TYPE_PANE_MODEL (kubus_pane_model_get_type ())
G_DECLARE_FINAL_TYPE (KubusPaneModel, kubus_pane_model, KUBUS, PANE_MODEL, GObject)

typedef struct
{
  double   max_abs;        /* colour range in raw units */
  gboolean is_signed;      /* values of both signs: diverging scale */
  char    *low;            /* legend texts in the current mode (new strings) */
  char    *high;
  char    *caption;        /* e.g. "×10³ sec", "% of total" */
  char    *tooltip;        /* what the colours mean, with the exact ends */
  char    *low_word;       /* what the ends mean, where a sign does not say it: "added", */
  char    *high_word;      /* "saved" (original − simulated); else NULL */
} KubusLegendInfo;

void               kubus_legend_info_clear          (KubusLegendInfo *info);

KubusPaneKind      kubus_pane_model_get_kind        (KubusPaneModel *self);
/* The model to show: a GtkMultiSelection of GtkTreeListRow (items: KubusNodeRow). Replaced
 * when the call view changes (notify::selection). Borrowed. */
GtkSelectionModel *kubus_pane_model_get_selection   (KubusPaneModel *self);
GtkTreeListModel  *kubus_pane_model_get_tree        (KubusPaneModel *self);

/* Values: collapsed rows show inclusive values, expanded rows exclusive values. */
double             kubus_pane_model_raw_value       (KubusPaneModel *self,
                                                     KubusNodeRow   *row,
                                                     gboolean        expanded);
double             kubus_pane_model_display_value   (KubusPaneModel *self,
                                                     KubusNodeRow   *row,
                                                     gboolean        expanded);
char              *kubus_pane_model_format_value    (KubusPaneModel *self,
                                                     KubusNodeRow   *row,
                                                     gboolean        expanded);
/* The value in full precision with its unit, and in a percent mode also the absolute value:
 * "12.5 % of total\n2 sec" (the value's tooltip). */
char              *kubus_pane_model_value_tooltip   (KubusPaneModel *self,
                                                     KubusNodeRow   *row,
                                                     gboolean        expanded);
/* Colour of the row's square; FALSE for exactly zero (no colour). */
gboolean           kubus_pane_model_row_color       (KubusPaneModel *self,
                                                     KubusNodeRow   *row,
                                                     gboolean        expanded,
                                                     GdkRGBA        *color,
                                                     gboolean       *is_negative);
void               kubus_pane_model_get_legend      (KubusPaneModel  *self,
                                                     KubusLegendInfo *info);

KubusValueMode     kubus_pane_model_get_mode        (KubusPaneModel *self);
void               kubus_pane_model_set_mode        (KubusPaneModel *self,
                                                     KubusValueMode  mode);
gboolean           kubus_pane_model_mode_available  (KubusPaneModel *self,
                                                     KubusValueMode  mode);
void               kubus_pane_model_set_sort        (KubusPaneModel *self,
                                                     KubusSortKind   sort);
KubusSortKind      kubus_pane_model_get_sort        (KubusPaneModel *self);
void               kubus_pane_model_set_hide_zero   (KubusPaneModel *self,
                                                     gboolean        hide);
/* Hides rows whose collapsed value is below @percent of the pane's range (0 = off). */
void               kubus_pane_model_set_hide_below  (KubusPaneModel *self,
                                                     double          percent);
void               kubus_pane_model_set_color_scale (KubusPaneModel *self,
                                                     KubusColorScale scale,
                                                     double          insignificant);
void               kubus_pane_model_set_precision   (KubusPaneModel *self,
                                                     guint           digits,
                                                     KubusNumberFormat format);

/* Find: @pattern is a regular expression matched against names (case-insensitive).
 * Returns the number of matches, -1 with @error for a bad pattern. NULL/"" clears. */
int                kubus_pane_model_find            (KubusPaneModel *self,
                                                     const char     *pattern,
                                                     GError        **error);
/* 1 = the node matches, 2 = a descendant matches, 0 = neither. */
guint              kubus_pane_model_match_state     (KubusPaneModel *self,
                                                     KubusNodeRow   *row);
/* Expands the ancestors of the next (@forward) or previous match and returns its position in
 * the selection model, G_MAXUINT if there is none or it is filtered out. */
guint              kubus_pane_model_find_next       (KubusPaneModel *self,
                                                     gboolean        forward);

/* Which match find_next went to last, from 1 (0: none yet); @n_matches gets how many there are. */
guint              kubus_pane_model_find_position   (KubusPaneModel *self,
                                                     guint          *n_matches);
/* Expands the ancestors of @node and returns its position in the selection model or G_MAXUINT. */
guint              kubus_pane_model_reveal          (KubusPaneModel *self,
                                                     KubusNodeKind   kind,
                                                     gconstpointer   node);
/* From the row at @position (or the first root if G_MAXUINT) follows the child with the
 * largest collapsed value down to a leaf, expanding on the way; returns the leaf's position. */
guint              kubus_pane_model_expand_largest  (KubusPaneModel *self,
                                                     guint           position);
/* Expands (or collapses) @position and everything below it; G_MAXUINT: every root. */
void               kubus_pane_model_collapse_all    (KubusPaneModel *self,
                                                     guint           position);
void               kubus_pane_model_expand_all      (KubusPaneModel *self,
                                                     guint           position,
                                                     gboolean        expand);
/* Expand All in parts, one per frame (issue 25 §6): the first @n_rows rows at or below
 * @position (G_MAXUINT: every root), in tree order (a collapsed row with at most 4 × @n_rows
 * rows below it with all of them); TRUE when rows are left. Continue expands the next @n_rows
 * rows (G_MAXUINT: all that are left) and returns whether rows are still left; finish expands
 * all that are left. The parts together expand exactly what kubus_pane_model_expand_all
 * expands; a row collapsed in between (collapse_all) stays collapsed. */
gboolean           kubus_pane_model_expand_all_start    (KubusPaneModel *self,
                                                         guint           position,
                                                         guint           n_rows);
gboolean           kubus_pane_model_expand_all_continue (KubusPaneModel *self,
                                                         guint           n_rows);
void               kubus_pane_model_expand_all_finish   (KubusPaneModel *self);
gboolean           kubus_pane_model_expand_all_pending  (KubusPaneModel *self);
/* Row item at @position of the selection model (new ref) and its expanded state. */
KubusNodeRow      *kubus_pane_model_get_row         (KubusPaneModel *self,
                                                     guint           position,
                                                     gboolean       *expanded);

/* Value of a tree node (not necessarily a row) in the current mode, as its row shows it:
 * collapsed (@expanded FALSE) inclusive, expanded exclusive. For the topology view. */
double             kubus_pane_model_node_value      (KubusPaneModel *self,
                                                     KubusNodeKind   kind,
                                                     gconstpointer   node,
                                                     gboolean        expanded);
/* @value (in the current mode) written as the pane writes its rows, but on its own: in the
 * absolute mode with its own power of ten rather than the pane's common one (new string). */
char              *kubus_pane_model_format_number   (KubusPaneModel *self,
                                                     double          value);
/* Unit of the pane's values in the absolute mode ("sec", "occ"; "" when unknown). */
const char        *kubus_pane_model_get_unit        (KubusPaneModel *self);

/* The visible rows as text, one per line, indented two spaces per depth:
 * "<name> <value>" plus " [+]" for a collapsed row with children, " [-]" for an expanded one.
 * For tests and --dump. */
char              *kubus_pane_model_to_string       (KubusPaneModel *self);
/* The visible rows as CSV (RFC 4180, "." as the decimal point, shortest digits that read back):
 * a header, then per row what the values are of — the metric (@metric unique names,
 * @metric_name as shown; the metric pane: the row's own) and the call path (@call_path; the
 * call pane: the row's own) — depth, name, the value shown (and its mode and unit), the
 * absolute inclusive and exclusive values, and whether it is expanded. File › Export Values
 * (see kubus_browser_to_csv). */
char              *kubus_pane_model_to_csv          (KubusPaneModel *self,
                                                     const char     *metric,
                                                     const char     *metric_name,
                                                     const char     *call_path);
/* A difference original − simulated: positive values are time the hypothesis saves, negative
 * ones time it adds; tooltips and the legend say so, and the diverging colours are the
 * saved/added ones (not red for "more"). */
void               kubus_pane_model_set_saved_added (KubusPaneModel *self,
                                                     gboolean        saved_added);
gboolean           kubus_pane_model_get_saved_added (KubusPaneModel *self);

G_END_DECLS
