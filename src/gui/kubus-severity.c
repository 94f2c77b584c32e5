/* kubus-severity.c — see kubus-severity.h. */
#include <math.h>

#include "kubus-severity.h"

typedef struct
{
  double at, r, g, b;
} Stop;

static const Stop rainbow[] = {
  { 0.00, 0.00, 0.00, 1.00 },   /* blue */
  { 0.25, 0.00, 0.85, 1.00 },   /* cyan */
  { 0.50, 0.00, 0.80, 0.00 },   /* green */
  { 0.75, 1.00, 0.90, 0.00 },   /* yellow */
  { 1.00, 1.00, 0.00, 0.00 },   /* red */
};

static const Stop gray[] = {
  { 0.00, 0.90, 0.90, 0.90 },
  { 1.00, 0.15, 0.15, 0.15 },
};

/* Positive side of the diverging scale: pale yellow → orange → red. */
static const Stop warm[] = {
  { 0.00, 1.00, 0.95, 0.60 },
  { 0.50, 1.00, 0.55, 0.00 },
  { 1.00, 0.80, 0.00, 0.00 },
};

/* Negative side: pale cyan → blue → dark navy (never a warm colour). */
static const Stop cold[] = {
  { 0.00, 0.70, 0.95, 1.00 },
  { 0.50, 0.10, 0.45, 0.95 },
  { 1.00, 0.05, 0.10, 0.50 },
};

/* Original − simulated. Saved (positive): pale → teal → deep blue-green; added (negative):
 * pale → orange → brown. A blue/orange pair stays apart for red-green colour blindness, and
 * neither end reads as "alarm". */
static const Stop saved[] = {
  { 0.00, 0.75, 0.93, 0.90 },
  { 0.50, 0.10, 0.62, 0.62 },
  { 1.00, 0.00, 0.30, 0.45 },
};

static const Stop added[] = {
  { 0.00, 1.00, 0.88, 0.70 },
  { 0.50, 0.95, 0.55, 0.10 },
  { 1.00, 0.55, 0.27, 0.02 },
};

static void
interpolate (const Stop *stops,
             guint       n,
             double      t,
             GdkRGBA    *out)
{
  guint i;

  t = CLAMP (t, 0.0, 1.0);
  for (i = 1; i < n - 1 && t > stops[i].at; i++)
    ;
  {
    const Stop *a = &stops[i - 1], *b = &stops[i];
    double f = (t - a->at) / (b->at - a->at);

    out->red = a->r + f * (b->r - a->r);
    out->green = a->g + f * (b->g - a->g);
    out->blue = a->b + f * (b->b - a->b);
    out->alpha = 1.0;
  }
}

gboolean
kubus_severity_color_full (KubusColorScale scale,
                           KubusDiverging  diverging,
                           double          fraction,
                           gboolean        lighten,
                           GdkRGBA        *out)
{
  if (fraction == 0.0 || isnan (fraction))
    return FALSE;

  if (diverging == KUBUS_DIVERGING_SAVED_ADDED)
    {
      if (fraction > 0)
        interpolate (saved, G_N_ELEMENTS (saved), fraction, out);
      else
        interpolate (added, G_N_ELEMENTS (added), -fraction, out);
    }
  else if (diverging == KUBUS_DIVERGING_DIFFERENCE || fraction < 0)
    {
      if (fraction > 0)
        interpolate (warm, G_N_ELEMENTS (warm), fraction, out);
      else
        interpolate (cold, G_N_ELEMENTS (cold), -fraction, out);
    }
  else if (scale == KUBUS_SCALE_GRAY)
    interpolate (gray, G_N_ELEMENTS (gray), fraction, out);
  else
    interpolate (rainbow, G_N_ELEMENTS (rainbow), fraction, out);

  if (lighten)
    {
      out->red = out->red + 0.7 * (1.0 - out->red);
      out->green = out->green + 0.7 * (1.0 - out->green);
      out->blue = out->blue + 0.7 * (1.0 - out->blue);
    }
  return TRUE;
}

gboolean
kubus_severity_color (KubusColorScale scale,
                      gboolean        is_signed,
                      double          fraction,
                      gboolean        lighten,
                      GdkRGBA        *out)
{
  return kubus_severity_color_full (scale, is_signed ? KUBUS_DIVERGING_DIFFERENCE : KUBUS_DIVERGING_NONE,
                                    fraction, lighten, out);
}
