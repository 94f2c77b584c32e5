/* kubus-statistics.h — the Statistics window: the selected metric at the selected call path
 * across all locations (minimum, quartiles, median, mean, maximum, standard deviation) with a
 * box plot. It follows the window's selection; while open, File › Export View… offers the
 * box plot ("statistics"). Numbers come from src/cube (cube_stats_compute). */
#pragma once

#include "kubus-window.h"

G_BEGIN_DECLS

/* Shows (or raises) the statistics window of @window; returns it (owned by GTK). */
GtkWidget *kubus_statistics_show (KubusWindow *window);
/* The figures as shown, one "Name: value" per line (tests). New string. */
char      *kubus_statistics_text (GtkWidget *statistics);

G_END_DECLS
