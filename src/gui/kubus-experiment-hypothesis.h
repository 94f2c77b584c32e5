/* kubus-experiment-hypothesis.h — the rules of kubus-sim's hypothesis files (docs/hypotheses.md)
 * as the simulate dialog writes them, and the region names it offers. No widgets. */
#pragma once

#include <glib.h>

#include "cube.h"

G_BEGIN_DECLS

typedef enum
{
  KUBUS_HYP_SCALE,              /* scale region NAME by FACTOR */
  KUBUS_HYP_BALANCE,            /* balance region NAME */
  KUBUS_HYP_BALANCE_GLOBALLY,   /* balance region NAME globally */
  KUBUS_HYP_REMOVE_SIZE,        /* remove messages with size OP N */
  KUBUS_HYP_REMOVE_TAG,         /* remove messages with tag OP N */
  KUBUS_HYP_REMOVE_IN_REGION,   /* remove messages in region NAME */
} KubusHypRule;

/* The comparisons of the remove rules, in the order the dialog offers them. */
extern const char *const kubus_hypothesis_ops[];   /* "<", "<=", "==", ">=", ">", NULL */

/* A region name as the rule parser reads it back: bare when it can be, else a quoted string
 * with \" and \\ escaped. NULL (and @error) for a name no rule can hold (empty, a line break). */
char      *kubus_hypothesis_quote_name   (const char  *name,
                                          GError     **error);

/* One rule line, without a newline. @region for the region rules, @factor for scale (≥ 0),
 * @op (one of kubus_hypothesis_ops) and @n for the size/tag rules. NULL and @error for values
 * the parser would refuse. */
char      *kubus_hypothesis_rule         (KubusHypRule  rule,
                                          const char   *region,
                                          double        factor,
                                          const char   *op,
                                          gint64        n,
                                          GError      **error);

/* The names of the regions that appear in @report's call tree, without repeats: the program's
 * own functions first (sorted), then with @with_mpi the MPI functions (sorted). The strings
 * belong to the report. */
GPtrArray *kubus_hypothesis_region_names (CubeReport   *report,
                                          gboolean      with_mpi);

/* TRUE for a region of the MPI library (module "MPI" or a name starting "MPI_"). */
gboolean   kubus_hypothesis_is_mpi_region (const CubeRegion *region);

/* An error of a hypothesis text: its line and column (from 1) and the message. */
typedef struct
{
  guint  line;
  guint  column;
  char  *message;   /* "NAME:LINE:COL: …", as kubus-sim says it */
} KubusHypError;

void       kubus_hyp_error_free (KubusHypError *error);

/* Every error of @text (named @name in the messages), by kubus-sim's own parser: the grammar,
 * and with @regions (@n names, @is_mpi for each) every region name checked against them, also
 * on lines with another error. In line order; empty when the text is fine. */
GPtrArray *kubus_hypothesis_check (const char        *name,
                                   const char        *text,
                                   const char *const *regions,
                                   const gboolean    *is_mpi,
                                   guint              n);

G_END_DECLS
