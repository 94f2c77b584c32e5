/* gui-test-ui.h — driving a real KubusWindow on a display (Xvfb) the way a user does, for the
 * widget tests (test-gui-widgets.c, test-gui-browser.c).
 *
 * Rows appear after layout (a frame later), so every check waits (spinning the main loop) until
 * the widgets show the expected text, failing with the last text seen after a generous timeout.
 * A pane's rows read back as one line per visible row:
 * "<indent><name> <value>[ [+]| [-]][ *][ neg]" — [+] collapsed with children, [-] expanded,
 * * selected, "neg" when the value label has the negative style. */
#pragma once

#include <gtk/gtk.h>

#include "kubus-application.h"
#include "kubus-pane-view.h"
#include "kubus-window-private.h"

G_BEGIN_DECLS

#define WAIT_MS 20000   /* rows normally show within a frame or two; ASan builds are slow */

extern KubusApplication *app;   /* registered and held by gui_test_ui_init */
extern char *tmpdir;            /* the test's folder, removed by gui_test_ui_finish */

/* Skips (returns 77) without a display; else 0 after gtk_test_init, with XDG_DATA_HOME in the
 * test folder, memory GSettings and LC_ALL=C.UTF-8. */
int          gui_test_ui_init   (int *argc, char ***argv, const char *name);
void         gui_test_ui_finish (void);

/* gui_test_report_new (@scale) written as @name in the test folder (new ref). */
GFile       *report_file        (const char *name, double scale);
GFile       *bad_file           (const char *name, const char *contents);
void         remove_tree        (const char *path);

typedef gboolean (*Condition) (gpointer data);
/* Spins the main loop until @cond holds or @ms pass; returns whether it holds. */
gboolean     spin_until         (Condition cond, gpointer data, guint ms);
gboolean     never              (gpointer data);
void         spin               (guint ms);

typedef struct
{
  guint  loaded;
  guint  failed;
  char  *message;
} Events;

void         on_loaded          (KubusWindow *window, Events *ev);
void         on_failed          (KubusWindow *window, const char *message, Events *ev);
/* Waits until exactly @loaded "loaded" and @failed "failed" signals were counted. */
void         wait_events        (Events *ev, guint loaded, guint failed);

/* A shown 1200×800 window counting its signals in @ev. */
KubusWindow *new_window         (Events *ev);
void         close_window       (KubusWindow *window, Events *ev);
/* Activates the window action @action (it must exist and be enabled). */
void         activate           (KubusWindow *window, const char *action, GVariant *param);

/* The first shown toplevel window of @type (a dialog, the shortcuts window, …), or NULL. */
GtkWidget   *shown_toplevel     (GType type);
GtkWidget   *find_widget        (GtkWidget *root, gboolean (*match) (GtkWidget *w, gpointer data),
                                 gpointer data);
KubusPaneView *pane_view        (KubusWindow *window, KubusPaneKind kind);
const char  *label_text         (GtkWidget *w);
gboolean     is_drop_down       (GtkWidget *w, gpointer data);   /* remembers the last in *data */
gboolean     is_legend          (GtkWidget *w, gpointer data);

/* The shown rows of a pane as text (see above). */
char        *pane_text          (KubusWindow *window, KubusPaneKind kind);

/* Waits for a pane (its rows, its legend, …) to show a text: @text renders what is shown. */
typedef struct
{
  KubusWindow  *window;
  KubusPaneKind kind;
  const char   *expected;
  char         *got;
  char       *(*text) (KubusWindow *window, KubusPaneKind kind);
} ShownCheck;

gboolean     pane_part_shows    (gpointer data);
void         assert_pane_at     (KubusWindow *window, KubusPaneKind kind, const char *expected,
                                 const char *file, int line);
#define assert_pane(w, k, e) assert_pane_at ((w), (k), (e), __FILE__, __LINE__)

/* The @nth (0-based, in widget order) shown row cell named @name. */
GtkWidget   *row_cell           (KubusWindow *window, KubusPaneKind kind, const char *name, guint nth);
/* Clicks the expander triangle of the row: the action the GtkTreeExpander's click runs. */
void         toggle_row         (KubusWindow *window, KubusPaneKind kind, const char *name);
/* Selects only the row (what a click on it does). */
void         select_row         (KubusWindow *window, KubusPaneKind kind, const char *name, guint nth);
/* Picks @label in the pane's value mode drop-down (the last drop-down of its header). */
void         choose_mode        (KubusWindow *window, KubusPaneKind kind, const char *label);

/* The legend's labels (low end, high end, caption) joined by "|". */
char        *legend_text        (KubusWindow *window, KubusPaneKind kind);
void         assert_legend      (KubusWindow *window, KubusPaneKind kind, const char *expected);

G_END_DECLS
