/* test-cube-format.c — numbers for people (cube-format.h): residues, the display rule, tooltips'
 * significant digits and the shortest text of exports. Runs in the C locale (no grouping). */
#include <locale.h>
#include <math.h>
#include <string.h>

#include "cube-format.h"

static void
check (double v, const CubeNumberFormat *f, const char *want)
{
  g_autofree char *got = cube_format_number (v, f);

  if (g_strcmp0 (got, want) != 0)
    g_error ("cube_format_number (%.17g): got “%s”, want “%s”", v, got, want);
}

static void
test_residue (void)
{
  g_assert_cmpfloat (cube_value_clamp_residue (-1.78e-15, 30.0), ==, 0.0);
  g_assert_cmpfloat (cube_value_clamp_residue (8.88e-16, 30.0), ==, 0.0);
  g_assert_false (signbit (cube_value_clamp_residue (-0.0, 1.0)));
  g_assert_false (signbit (cube_value_clamp_residue (-1e-20, 1.0)));
  /* just above the threshold stays */
  g_assert_cmpfloat (cube_value_clamp_residue (3.1e-11, 30.0), ==, 3.1e-11);
  g_assert_cmpfloat (cube_value_clamp_residue (-0.5, 30.0), ==, -0.5);
  /* no scale: only zero is zero */
  g_assert_cmpfloat (cube_value_clamp_residue (1e-300, 0.0), ==, 1e-300);
  g_assert_true (isnan (cube_value_clamp_residue (NAN, 1.0)));
}

/* Issue 24, item 4: one rule in every mode. */
static void
test_readable (void)
{
  CubeNumberFormat f = { CUBE_NOTATION_READABLE, 2, FALSE, FALSE, 0, 0 };

  check (30807.789, &f, "30807.79");
  check (16, &f, "16.00");
  check (0.80, &f, "0.800");
  /* values below 1 keep three significant digits: 0.0168 and 0.0240 are not both "0.02" */
  check (0.0168, &f, "0.0168");
  check (0.0240, &f, "0.0240");
  check (0.00254, &f, "0.00254");
  check (1.31e-4, &f, "1.31e-04");
  check (2.5e9, &f, "2.50e+09");
  /* a value that is not zero never reads 0 (percent of an MPI_Barrier of 0.80 s in 30,000 s) */
  check (0.8 / 30807.79 * 100, &f, "0.00260");
  check (-0.03, &f, "-0.0300");
  check (0, &f, "0");
  check (-0.0, &f, "0");
  check (NAN, &f, "–");
  /* resolution: peers 3.37e-03 … 4.43e-03 coloured over one twentieth steps of their range */
  f.resolution = (4.43e-3 - 3.37e-3) / 20;
  check (3.37e-3, &f, "0.00337");
  f.resolution = (0.0240 - 0.0168) / 20;
  check (0.02013, &f, "0.0201");
  f.resolution = (13.45 - 10.80) / 20;
  check (12.0, &f, "12.00");
  f.resolution = 0.0005;
  check (12.0, &f, "12.0000");
  /* at most 15 significant digits, whatever the resolution */
  f.resolution = 1e-30;
  check (1.0 / 3, &f, "0.333333333333333");
  /* counts */
  f.resolution = 0;
  f.integer = TRUE;
  check (130325541, &f, "130325541");
  check (0.25, &f, "0.250");
}

static void
test_other_notations (void)
{
  CubeNumberFormat sci = { CUBE_NOTATION_SCIENTIFIC, 3, FALSE, FALSE, 0, 0 };
  CubeNumberFormat common = { CUBE_NOTATION_COMMON_EXPONENT, 2, FALSE, FALSE, 0, 8 };

  check (4, &sci, "4");
  check (48.75, &sci, "48.750");
  check (4.938e8, &sci, "4.938e+08");
  check (4.938e8, &common, "4.94");
  check (1e6, &common, "0.0100");
}

static void
test_significant (void)
{
  g_autofree char *a = cube_format_significant (1.4961914578934694, 6);
  g_autofree char *b = cube_format_significant (0.029495444000000003, 6);
  g_autofree char *c = cube_format_significant (130325541, 6);
  g_autofree char *d = cube_format_significant (1.2345678e-7, 6);

  g_assert_cmpstr (a, ==, "1.49619");
  g_assert_cmpstr (b, ==, "0.0294954");
  g_assert_cmpstr (c, ==, "130325541");
  g_assert_cmpstr (d, ==, "1.23457e-07");
}

static void
test_shortest (void)
{
  const double values[] = { 0.1, 1.0 / 3, 2.0 / 3, 1e-300, 5e-324, 1.7976931348623157e308, 123456789012345678.0,
                            0.029495444, 3.14159, -2.5, 16, 1e22, 4.35e-16 };

  /* float noise of a sum is not written */
  {
    g_autofree char *s = cube_format_shortest (0.01 + 0.019495444);
    g_autofree char *t = cube_format_shortest (0.1 + 0.2);
    g_assert_cmpstr (s, ==, "0.029495444");
    g_assert_cmpstr (t, ==, "0.3");
  }
  /* every value reads back as itself or its neighbour, and no shorter text would */
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autofree char *s = cube_format_shortest (values[i]);
      double back = g_ascii_strtod (s, NULL);

      g_assert_true (back == values[i] || back == nextafter (values[i], INFINITY)
                     || back == nextafter (values[i], -INFINITY));
      g_assert_null (strchr (s, ','));
    }
  {
    g_autofree char *third = cube_format_shortest (1.0 / 3);
    g_autofree char *zero = cube_format_shortest (-0.0);
    g_autofree char *nan = cube_format_shortest (NAN);
    g_assert_cmpuint (strlen (third), <=, 18);
    g_assert_cmpstr (zero, ==, "0");
    g_assert_cmpstr (nan, ==, "nan");
  }
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "C");
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cube/format/residue", test_residue);
  g_test_add_func ("/cube/format/readable", test_readable);
  g_test_add_func ("/cube/format/other-notations", test_other_notations);
  g_test_add_func ("/cube/format/significant", test_significant);
  g_test_add_func ("/cube/format/shortest", test_shortest);
  return g_test_run ();
}
