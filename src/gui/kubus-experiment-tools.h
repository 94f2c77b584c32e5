/* kubus-experiment-tools.h — the command lines the browser runs: where kubus-run,
 * kubus-analyze and kubus-sim are, the parameters of the Experiment actions, and the argv
 * arrays built from them and the preferences. No widgets, no shell: every name is one argv
 * element, so spaces and quotes in names are safe.
 *
 * Parameters of the application actions (also for `gapplication action org.kubus.Kubus …`):
 *   measure   a{sv}  executable s (required), arguments as, ranks i (0: preference),
 *                    mpirun-options as (after the preference's), folder s ('': a new folder
 *                    kubus_PROGRAM_RANKS in the experiments folder), working-folder s ('': the
 *                    executable's folder), analyze b (analyze when done without asking),
 *                    replace b (replace an existing experiment folder). {} opens the dialog.
 *   analyze   s      an experiment folder or an .otf2 anchor ('' opens a chooser)
 *   simulate  (sss)  experiment folder, hypothesis file, output folder ('' = EXP/sim-NAME);
 *                    ('', '', '') opens the dialog for the active window's analysis
 *   compare   (ss)   original and simulated: reports or folders holding analysis.cube
 *                    (('', '') opens the active window's study) */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* What the preferences say (GSettings org.kubus.Kubus), resolved. */
typedef struct
{
  char *mpirun_command;    /* "mpirun" */
  char *mpirun_options;    /* "--oversubscribe" (a command-line fragment) */
  int   default_ranks;
  char *experiments_folder;
} KubusToolPrefs;

void  kubus_tool_prefs_load  (KubusToolPrefs *prefs);   /* from GSettings, or the defaults */
void  kubus_tool_prefs_clear (KubusToolPrefs *prefs);

/* The path of Kubus tool @name ("kubus-run", "kubus-analyze", "kubus-sim"): $KUBUS_RUN_PROGRAM
 * (…_ANALYZE_…, …_SIM_…), else next to this program (installed) or where the build tree puts it,
 * else PATH. NULL and @error saying what to do when there is none. */
char *kubus_tool_find        (const char  *name,
                              GError     **error);

typedef struct
{
  char     *executable;
  char    **arguments;
  int       ranks;             /* 0: the preference */
  char    **mpirun_options;    /* extra, after the preference's */
  char     *folder;            /* '' or NULL: default */
  char     *working_folder;
  gboolean  analyze;
  gboolean  replace;
} KubusMeasureParams;

gboolean  kubus_measure_params_parse  (GVariant            *parameter,
                                       KubusMeasureParams  *params,
                                       GError             **error);
GVariant *kubus_measure_params_build  (const KubusMeasureParams *params);  /* floating */
void      kubus_measure_params_clear  (KubusMeasureParams *params);

/* The experiment folder a measurement without one gets: @dir/kubus_PROGRAM_RANKS, with -2, -3…
 * appended when that exists (newly allocated). */
char     *kubus_measure_default_folder (const char *dir,
                                        const char *executable,
                                        int         ranks);

/* kubus-run -o @tmp_folder --force -- MPIRUN PREF-OPTIONS EXTRA-OPTIONS -n RANKS EXE ARGS…
 * (@ranks already resolved). NULL and @error for a preference that is not a command line. */
char    **kubus_measure_argv           (const char               *tool,
                                        const KubusToolPrefs     *prefs,
                                        const KubusMeasureParams *params,
                                        int                       ranks,
                                        const char               *tmp_folder,
                                        GError                  **error);

/* The launcher line kubus-analyze and kubus-sim get with --mpirun (checked to parse). */
char     *kubus_tool_launcher_line     (const KubusToolPrefs *prefs,
                                        GError              **error);

/* What kubus-analyze writes for @input (an experiment folder, an .otf2 anchor or a compressed
 * trace .kct): FOLDER/analysis.cube, or the file's name with .cube next to it (newly allocated). */
char     *kubus_analyze_report_path    (const char *input);
char    **kubus_analyze_argv           (const char           *tool,
                                        const KubusToolPrefs *prefs,
                                        const char           *input,
                                        GError              **error);

/* EXP/sim-NAME for hypothesis file NAME.hyp (kubus-sim's own default; newly allocated). */
char     *kubus_simulate_default_output (const char *experiment,
                                         const char *hypothesis);
char    **kubus_simulate_argv          (const char           *tool,
                                        const KubusToolPrefs *prefs,
                                        const char           *experiment,
                                        const char           *hypothesis,
                                        const char           *output,
                                        GError              **error);

/* A report path for a compare argument: @path itself for a file, FOLDER/analysis.cube for a
 * folder (newly allocated). */
char     *kubus_compare_report_path    (const char *path);

/* Removes @path and everything under it without following symbolic links. */
gboolean  kubus_tool_remove_tree       (const char  *path,
                                        GError     **error);
/* Puts folder @from at @to atomically, replacing a folder at @to when @replace (the old one is
 * removed afterwards). */
gboolean  kubus_tool_move_folder       (const char  *from,
                                        const char  *to,
                                        gboolean     replace,
                                        GError     **error);

/* TRUE when @folder holds a trace kubus-analyze and kubus-sim take: traces.otf2, or only the
 * compressed traces.kct (analysed through a temporary expansion, simulated directly). */
gboolean  kubus_experiment_has_trace   (const char *folder);

G_END_DECLS
