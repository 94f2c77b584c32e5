/* cube-format.c — see cube-format.h. */
#include "cube-format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double
cube_value_clamp_residue (double v,
                          double scale)
{
  if (isnan (v))
    return v;
  if (v == 0.0 || fabs (v) <= CUBE_RESIDUE_FRACTION * fabs (scale))
    return 0.0;
  return v;
}

/* "-0.000" (a value that rounds to zero): "0". Takes @text. */
static char *
zero_without_sign (char *text)
{
  for (const char *p = text; *p != '\0'; p++)
    if ((*p >= '1' && *p <= '9') || *p == 'e' || *p == 'E' || *p == 'n' || *p == 'i')
      return text;
  g_free (text);
  return g_strdup ("0");
}

/* Digits after the point so that steps of @resolution show (0 when none is asked for). */
static int
resolution_decimals (double resolution)
{
  if (!(resolution > 0) || !isfinite (resolution))
    return 0;
  return (int) ceil (-log10 (resolution) - 1e-9);
}

/* @a (> 0) in fixed notation with at least @decimals decimals and @sig significant digits. */
static int
fixed_decimals (double a,
                int    decimals,
                int    sig,
                double resolution)
{
  int magnitude = (int) floor (log10 (a));
  int d = MAX (decimals, sig - 1 - magnitude);

  d = MAX (d, resolution_decimals (resolution));
  /* a double carries 15 to 17 significant digits: never print more than 15 */
  d = MIN (d, 15 - 1 - magnitude);
  return CLAMP (d, 0, 20);
}

static char *
fixed (double   v,
       int      d,
       gboolean grouping)
{
  return zero_without_sign (grouping ? g_strdup_printf ("%'.*f", d, v) : g_strdup_printf ("%.*f", d, v));
}

/* Mantissa decimals of @a in exponent notation: @decimals, more if @resolution needs them. */
static char *
scientific (double v,
            int    decimals,
            double resolution)
{
  int d = decimals;

  if (resolution > 0 && isfinite (resolution))
    {
      int magnitude = (int) floor (log10 (fabs (v)));
      d = MAX (d, (int) ceil (magnitude - log10 (resolution) - 1e-9));
    }
  d = CLAMP (d, 0, 14);
  return g_strdup_printf ("%.*e", d, v);
}

char *
cube_format_number (double                  v,
                    const CubeNumberFormat *format)
{
  int decimals = (int) MIN (format->decimals, 12);
  int sig = decimals + 1;
  double a = fabs (v);

  if (isnan (v))
    return g_strdup ("–");
  if (v == 0.0)
    return g_strdup ("0");
  if (isinf (v))
    return g_strdup (v > 0 ? "∞" : "−∞");
  /* Counts are whole numbers; a fraction of a count (a mean) is written like any value, so
   * that 0.3 visits never reads "0". */
  if (format->integer && v == floor (v) && a < 1e15
      && (format->notation == CUBE_NOTATION_READABLE
          || (format->notation == CUBE_NOTATION_COMMON_EXPONENT && format->exponent == 0)))
    return fixed (v, 0, format->grouping);

  switch (format->notation)
    {
    case CUBE_NOTATION_COMMON_EXPONENT:
      {
        double scale = pow (10.0, format->exponent);
        double w = v / scale, aw = fabs (w);

        if (aw >= 1e15)
          return scientific (w, decimals, format->resolution / scale);
        return fixed (w, fixed_decimals (aw, decimals, sig, format->resolution / scale), format->grouping);
      }
    case CUBE_NOTATION_SCIENTIFIC:
      if (a >= 0.01 && a < 1e4)
        return fixed (v, v == floor (v) ? 0
                         : fixed_decimals (a, decimals, sig, format->resolution), FALSE);
      return scientific (v, decimals, format->resolution);
    case CUBE_NOTATION_READABLE:
    default:
      /* Every value in full where that stays short, the same way in every pane: 30,812.45 sec,
       * 0.800 sec, 0.00168 sec; only the very large and very small get an exponent. */
      if (a >= 1e-3 && a < 1e9)
        return fixed (v, fixed_decimals (a, decimals, sig, format->resolution), format->grouping);
      return scientific (v, decimals, format->resolution);
    }
}

char *
cube_format_significant (double v,
                         int    digits)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  char fmt[16];
  double a = fabs (v);

  digits = CLAMP (digits, 1, 17);
  if (isnan (v) || isinf (v) || v == 0.0)
    return cube_format_shortest (v);
  if (a >= 1e-4 && a < 1e15 && a >= pow (10.0, digits))
    g_snprintf (fmt, sizeof fmt, "%%.0f");
  else
    g_snprintf (fmt, sizeof fmt, "%%.%dg", digits);
  return g_strdup (g_ascii_formatd (buf, sizeof buf, fmt, v));
}

char *
cube_format_shortest (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  char fmt[16];
  int digits;

  if (isnan (v))
    return g_strdup ("nan");
  if (isinf (v))
    return g_strdup (v > 0 ? "inf" : "-inf");
  if (v == 0.0)
    return g_strdup ("0");
  for (digits = 1; digits < 17; digits++)
    {
      double back;

      g_snprintf (fmt, sizeof fmt, "%%.%de", digits - 1);
      g_ascii_formatd (buf, sizeof buf, fmt, v);
      back = g_ascii_strtod (buf, NULL);
      if (back == v || back == nextafter (v, INFINITY) || back == nextafter (v, -INFINITY))
        break;
    }
  /* Plain digits where that is as short as it gets ("10", "0.0295"), else the exponent. */
  g_snprintf (fmt, sizeof fmt, "%%.%de", digits - 1);
  g_ascii_formatd (buf, sizeof buf, fmt, v);
  {
    int exponent = atoi (strchr (buf, 'e') + 1);

    if (exponent >= -5 && exponent < 16)
      {
        g_snprintf (fmt, sizeof fmt, "%%.%df", MAX (0, digits - 1 - exponent));
        g_ascii_formatd (buf, sizeof buf, fmt, v);
      }
  }
  return g_strdup (buf);
}
