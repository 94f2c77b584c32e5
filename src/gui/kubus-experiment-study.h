/* kubus-experiment-study.h — which reports belong to one study: an experiment folder (its
 * trace and analysis.cube), and the simulations of hypotheses on it (folders kubus-sim wrote,
 * with analysis.cube and difference.cube). The recent studies live in GSettings
 * (org.kubus.Kubus recent-studies), newest first. No widgets. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  char *experiment;   /* folder with traces.otf2 */
  char *simulation;   /* folder kubus-sim wrote, or NULL */
  char *hypothesis;   /* the hypothesis file, or NULL */
} KubusStudy;

KubusStudy *kubus_study_new        (const char *experiment,
                                    const char *simulation,
                                    const char *hypothesis);
void        kubus_study_free       (KubusStudy *study);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (KubusStudy, kubus_study_free)

/* The study a report belongs to: EXP/analysis.cube → EXP; EXP/SIM/analysis.cube (or
 * difference.cube) of a simulation → EXP with SIM. NULL for a report outside any experiment. */
KubusStudy *kubus_study_for_report (const char *report_path);

/* TRUE when @folder holds what kubus-sim writes (analysis.cube and difference.cube). */
gboolean    kubus_study_is_simulation (const char *folder);

/* The simulation folders directly inside @experiment, newest first (free with g_strfreev). */
char      **kubus_study_simulations (const char *experiment);

/* Puts the study first in the recent studies (at most 8; a study already listed moves up).
 * Does nothing without the settings schema. */
void        kubus_study_remember   (const KubusStudy *study);
/* The recent studies whose experiment folder still exists (of KubusStudy*, owned). */
GPtrArray  *kubus_study_recent     (void);

G_END_DECLS
