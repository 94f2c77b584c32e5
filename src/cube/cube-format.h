/* cube-format.h — how values are written for people: one rule for the browser's trees, legends,
 * tooltips and exports, and for the command-line tools, so that they agree by construction.
 * See docs/decisions/2026-11-28-browser-second-look.md. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A value whose magnitude is at most this fraction of its scale (the metric's total) is a
 * rounding residue of the arithmetic that made it, not a measured value: it reads 0. */
#define CUBE_RESIDUE_FRACTION 1e-12

/* @v, or exactly 0 when |@v| ≤ CUBE_RESIDUE_FRACTION × |@scale| (also −0 → +0). NaN stays. */
double   cube_value_clamp_residue (double v,
                                   double scale);

typedef enum
{
  CUBE_NOTATION_READABLE,        /* every value in full; an exponent only below 0.001 or from 10⁹ */
  CUBE_NOTATION_COMMON_EXPONENT, /* divided by 10^exponent (shown once, e.g. in a legend) */
  CUBE_NOTATION_SCIENTIFIC,      /* an exponent for values below 0.01 or from 10⁴ */
} CubeNotation;

typedef struct
{
  CubeNotation notation;
  guint        decimals;    /* digits after the point (the user's precision, 0…12) */
  gboolean     integer;     /* counts: whole numbers, no decimals */
  gboolean     grouping;    /* the locale's thousands separator ("%'") */
  double       resolution;  /* the smallest difference between two values that must show
                               (e.g. one twentieth of a colour scale's width); 0: none */
  int          exponent;    /* CUBE_NOTATION_COMMON_EXPONENT: the common power of ten */
} CubeNumberFormat;

/* @v for a person. The rule: at least @decimals digits after the point and at least
 * @decimals + 1 significant digits (so 0.0168 never reads "0.02" and a value that is not zero
 * never reads "0"), and as many more decimals as @resolution needs (values that get different
 * colours read differently), at most 15 significant digits. Counts (@integer) are whole
 * numbers. NaN is "–"; zero (of either sign) is "0". New string. */
char    *cube_format_number       (double                  v,
                                   const CubeNumberFormat *format);

/* @v with @digits significant digits, "." as the decimal point, no exponent for
 * 10⁻⁴ ≤ |v| < 10¹⁵ ("1.49619", "0.000123457", "1.23457e-05"): tooltips. New string. */
char    *cube_format_significant  (double v,
                                   int    digits);

/* The shortest decimal ("." as the point, C notation) that reads back as @v or as a double
 * next to it: 0.1 + 0.2 is written "0.3", 0.029495444000000003 (the sum 0.01 + 0.019495444)
 * "0.029495444". The last bit of a sum or ratio is rounding noise; everything above it is
 * kept. "0" for ±0, "nan", "inf", "-inf". For CSV exports and the clipboard. New string. */
char    *cube_format_shortest     (double v);

G_END_DECLS
