/* kubus-cli.h — kubus's command line: the options, their check before GApplication parses
 * them, and the view options (--metric, --cnode, --mode, --calltree, --expand-largest) that
 * apply to every window the command line opens, with --screenshot or without. */
#pragma once

#include <gtk/gtk.h>

#include "kubus-types.h"
#include "kubus-window.h"

G_BEGIN_DECLS

/* The application's main options (G_OPTION_REMAINING included), NULL-terminated. */
const GOptionEntry *kubus_cli_entries          (void);
/* Parses a copy of @argv as GApplication will, without its side effects: FALSE with @error
 * for an unknown option or a malformed value ("--cnode" without a value, …), which
 * GApplication would report without the "kubus:" prefix and with exit status 1. */
gboolean            kubus_cli_check_args       (char   **argv,
                                                GError **error);

typedef struct
{
  char          *metric;          /* unique name */
  char          *cnode;           /* file id or call path "main/solve/MPI_Recv" */
  gboolean       have_mode;
  KubusValueMode mode;
  gboolean       have_view;
  KubusCallView  view;
  gboolean       expand_largest;
} KubusViewOptions;

/* Reads and checks the view options of @options (G_OPTION_ERROR_BAD_VALUE for a bad name
 * or combination). Free with kubus_view_options_free. */
KubusViewOptions   *kubus_view_options_new     (GVariantDict     *options,
                                                GError          **error);
void                kubus_view_options_free    (KubusViewOptions *opts);
gboolean            kubus_view_options_empty   (const KubusViewOptions *opts);
/* Applies @opts to the report @window shows; FALSE with @error (naming the report) when the
 * report has no such metric or call path or no pane offers the mode. */
/* The same for a browser without a window (the topology screenshot); @name names the report
 * in messages. */
gboolean            kubus_view_options_apply_browser (const KubusViewOptions *opts,
                                                      KubusBrowser           *browser,
                                                      const char             *name,
                                                      GError                **error);
gboolean            kubus_view_options_apply   (const KubusViewOptions *opts,
                                                KubusWindow            *window,
                                                GError                **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KubusViewOptions, kubus_view_options_free)

G_END_DECLS
