/* test-topology.c — the topology view's logic without a display: layouts (slicing and folding),
 * the projection and picking, colours in both resolutions, grids, values taken from the
 * browser, pixels of a rendered scene, remembered settings, and the headless command line. */
#include <cairo.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <math.h>

#include "kubus-browser.h"
#include "kubus-export.h"
#include "kubus-node.h"
#include "kubus-topology-settings.h"
#include "kubus-topology-values.h"
#include "remove-tree.h"
#include "topology-test-report.h"

/* ---- layouts ----------------------------------------------------------------------------- */

static void
assert_layout (const TopoLayout *layout,
               const char       *expected,
               gint64            nx,
               gint64            ny,
               gint64            nz)
{
  g_autofree char *text = topo_layout_to_string (layout);

  g_assert_cmpstr (text, ==, expected);
  g_assert_cmpint (layout->extent[0], ==, nx);
  g_assert_cmpint (layout->extent[1], ==, ny);
  g_assert_cmpint (layout->extent[2], ==, nz);
}

static void
test_layout_default (void)
{
  const gint64 s3[3] = { 4, 3, 2 }, c3[3] = { 1, 2, 1 };
  const gint64 s2[2] = { 5, 7 };
  const gint64 s1[1] = { 9 };
  /* The 7-D BG/Q hardware topology: A B C D E CoreID HWThrd. */
  const gint64 s7[7] = { 2, 2, 2, 2, 2, 16, 4 }, c7[7] = { 1, 0, 1, 1, 0, 5, 3 };
  g_autoptr (TopoLayout) l3 = topo_layout_new (3, s3, NULL);
  g_autoptr (TopoLayout) l2 = topo_layout_new (2, s2, NULL);
  g_autoptr (TopoLayout) l1 = topo_layout_new (1, s1, NULL);
  g_autoptr (TopoLayout) l7 = topo_layout_new (7, s7, NULL);
  gint64 xyz[3], back[7];

  assert_layout (l3, "x y z", 4, 3, 2);
  assert_layout (l2, "x y", 5, 7, 1);
  assert_layout (l1, "x", 9, 1, 1);
  g_assert_true (topo_layout_map (l3, c3, xyz));
  g_assert_cmpint (xyz[0], ==, 1); g_assert_cmpint (xyz[1], ==, 2); g_assert_cmpint (xyz[2], ==, 1);
  g_assert_cmpint (topo_layout_cell_index (l3, xyz), ==, 1 + 4 * (2 + 3 * 1));

  /* Further dimensions fold into the smaller of x and y (x on ties), outer first. */
  assert_layout (l7, "x y z x y x y", 64, 16, 2);
  g_assert_true (topo_layout_map (l7, c7, xyz));
  g_assert_cmpint (xyz[0], ==, 1 * 32 + 1 * 16 + 5);   /* A, D, CoreID */
  g_assert_cmpint (xyz[1], ==, 0 * 8 + 0 * 4 + 3);     /* B, E, HWThrd */
  g_assert_cmpint (xyz[2], ==, 1);                     /* C */
  topo_layout_unmap (l7, xyz, back);
  for (int d = 0; d < 7; d++)
    g_assert_cmpint (back[d], ==, c7[d]);
  {
    /* Out of range coordinates map nowhere. */
    const gint64 bad[3] = { 4, 0, 0 }, neg[3] = { 0, -1, 0 };
    g_assert_false (topo_layout_map (l3, bad, xyz));
    g_assert_false (topo_layout_map (l3, neg, xyz));
  }
}

static void
test_layout_slices (void)
{
  gint64 s14[14], first[14];
  g_autoptr (TopoLayout) l = NULL;
  gint64 xyz[3], coord[14];

  for (int d = 0; d < 14; d++)
    s14[d] = 3, first[d] = d % 3;
  l = topo_layout_new (14, s14, first);
  /* Folding stops before the grid passes TOPO_DEFAULT_MAX_CELLS; the rest are slices at the
   * first location's indices. */
  assert_layout (l, "x y z x y x y x y s0 s1 s2 s0 s1", 81, 81, 3);
  g_assert_cmpint (topo_layout_n_cells (l), <=, TOPO_DEFAULT_MAX_CELLS);
  memcpy (coord, first, sizeof coord);
  g_assert_true (topo_layout_map (l, coord, xyz));
  coord[10] = 2;   /* another slice */
  g_assert_false (topo_layout_map (l, coord, xyz));

  /* Folding z into x, then slicing y. */
  {
    const gint64 s3[3] = { 4, 3, 2 }, c[3] = { 1, 2, 1 };
    g_autoptr (TopoLayout) m = topo_layout_new (3, s3, NULL);

    topo_layout_set_role (m, 2, TOPO_AXIS_X, 0);
    assert_layout (m, "x y x", 8, 3, 1);
    g_assert_true (topo_layout_map (m, c, xyz));
    g_assert_cmpint (xyz[0], ==, 1 * 2 + 1);
    g_assert_cmpint (xyz[1], ==, 2);
    topo_layout_set_role (m, 1, TOPO_AXIS_SLICE, 7);   /* clamped to the size */
    assert_layout (m, "x s2 x", 8, 1, 1);
    g_assert_true (topo_layout_map (m, c, xyz));
    g_assert_cmpint (xyz[1], ==, 0);
  }
}

static void
test_layout_string (void)
{
  const gint64 s[4] = { 3, 3, 3, 3 };
  g_autoptr (TopoLayout) l = topo_layout_new (4, s, NULL);
  g_autofree char *text = NULL;

  g_assert_true (topo_layout_from_string (l, "z s2 x x"));
  text = topo_layout_to_string (l);
  g_assert_cmpstr (text, ==, "z s2 x x");
  g_assert_cmpint (l->extent[0], ==, 9);
  g_assert_cmpint (l->extent[1], ==, 1);
  g_assert_cmpint (l->extent[2], ==, 3);
  /* Anything that does not fit leaves the layout alone. */
  g_assert_false (topo_layout_from_string (l, "x y"));
  g_assert_false (topo_layout_from_string (l, "x y q z"));
  g_assert_false (topo_layout_from_string (l, "x y z s3"));
  g_assert_false (topo_layout_from_string (l, "x y z s-1"));
  g_assert_false (topo_layout_from_string (l, NULL));
  g_clear_pointer (&text, g_free);
  text = topo_layout_to_string (l);
  g_assert_cmpstr (text, ==, "z s2 x x");
}

/* ---- projection and picking -------------------------------------------------------------- */

static void
test_geometry_pick (void)
{
  const double yaws[] = { 0, -30, 45, 170, 300 };
  const double pitches[] = { 90, 30, 60, -40 };

  for (guint a = 0; a < G_N_ELEMENTS (yaws); a++)
    for (guint b = 0; b < G_N_ELEMENTS (pitches); b++)
      {
        TopoCamera cam = { yaws[a], pitches[b], 1.0, 3.5, 0, 0 };
        TopoProjection proj;

        if (pitches[b] == 90)
          cam.distance = 0;   /* from above the planes would coincide: one plane only */
        topo_projection_init (&proj, 5, 4, pitches[b] == 90 ? 1 : 3, &cam, 10, 20, 800, 600);
        /* Planes far apart: every cell centre picks its own cell. */
        for (guint p = 0; p < proj.n_planes; p++)
          for (gint64 u = 0; u < 5; u++)
            for (gint64 v = 0; v < 4; v++)
              {
                double x, y;
                gint64 pu, pv;
                guint pp;

                topo_projection_point (&proj, u + 0.5, v + 0.5, p, &x, &y);
                g_assert_true (x >= 10 && x <= 810 && y >= 20 && y <= 620);
                g_assert_true (topo_projection_pick (&proj, x, y, &pu, &pv, &pp));
                g_assert_cmpint (pu, ==, u);
                g_assert_cmpint (pv, ==, v);
                g_assert_cmpuint (pp, ==, p);
              }
        {
          gint64 pu, pv;
          guint pp;
          g_assert_false (topo_projection_pick (&proj, 0, 0, &pu, &pv, &pp));
        }
      }
}

static void
test_geometry_overlap (void)
{
  TopoCamera above = { 0, 90, 1.0, 0.5, 0, 0 }, below = { 20, -50, 1.0, 0.0, 0, 0 };
  TopoCamera edge = { 0, 0, 1.0, 0.5, 0, 0 };
  TopoProjection proj;
  double x, y;
  gint64 u, v;
  guint p;

  /* From straight above, plane 2 (the top) hides the others. */
  topo_projection_init (&proj, 4, 4, 3, &above, 0, 0, 400, 400);
  g_assert_true (proj.upper_nearer);
  g_assert_cmpuint (topo_projection_paint_order (&proj, 0), ==, 0);
  topo_projection_point (&proj, 1.5, 2.5, 0, &x, &y);
  g_assert_true (topo_projection_pick (&proj, x, y, &u, &v, &p));
  g_assert_cmpint (u, ==, 1); g_assert_cmpint (v, ==, 2); g_assert_cmpuint (p, ==, 2);
  /* From below, with no gap, plane 0 is in front. */
  topo_projection_init (&proj, 4, 4, 3, &below, 0, 0, 400, 400);
  g_assert_false (proj.upper_nearer);
  g_assert_cmpuint (topo_projection_paint_order (&proj, 0), ==, 2);
  topo_projection_point (&proj, 3.5, 0.5, 2, &x, &y);
  g_assert_true (topo_projection_pick (&proj, x, y, &u, &v, &p));
  g_assert_cmpint (u, ==, 3); g_assert_cmpint (v, ==, 0); g_assert_cmpuint (p, ==, 0);
  /* Edge-on a plane has no area: nothing to pick. */
  topo_projection_init (&proj, 4, 4, 3, &edge, 0, 0, 400, 400);
  topo_projection_point (&proj, 1.5, 1.5, 1, &x, &y);
  g_assert_false (topo_projection_pick (&proj, x, y, &u, &v, &p));
}

static void
test_geometry_fit_zoom (void)
{
  TopoCamera cam = { -30, 30, 1.0, 0.85, 0, 0 };
  TopoProjection proj;
  double lo_x = INFINITY, hi_x = -INFINITY, lo_y = INFINITY, hi_y = -INFINITY;

  /* Fit: the planes' bounding box touches the area on one side and is centred. */
  topo_projection_init (&proj, 8, 6, 4, &cam, 50, 40, 500, 300);
  for (int c = 0; c < 8; c++)
    {
      double x, y;
      topo_projection_point (&proj, (c & 1) ? 8 : 0, (c & 2) ? 6 : 0, (c & 4) ? 3 : 0, &x, &y);
      lo_x = MIN (lo_x, x), hi_x = MAX (hi_x, x), lo_y = MIN (lo_y, y), hi_y = MAX (hi_y, y);
    }
  g_assert_cmpfloat_with_epsilon ((lo_x + hi_x) / 2, 300, 1e-9);
  g_assert_cmpfloat_with_epsilon ((lo_y + hi_y) / 2, 190, 1e-9);
  g_assert_true (fabs (hi_x - lo_x - 500) < 1e-9 || fabs (hi_y - lo_y - 300) < 1e-9);
  g_assert_cmpfloat (hi_x - lo_x, <=, 500 + 1e-9);
  g_assert_cmpfloat (hi_y - lo_y, <=, 300 + 1e-9);

  /* The stacking orientations permute the grid axes. */
  {
    const gint64 e[3] = { 5, 6, 7 };
    gint64 nu, nv, np, xyz[3], u, v, p;

    topo_stacking_plane_size (TOPO_STACK_X, e, &nu, &nv, &np);
    g_assert_cmpint (nu, ==, 6); g_assert_cmpint (nv, ==, 7); g_assert_cmpint (np, ==, 5);
    topo_stacking_plane_size (TOPO_STACK_Y, e, &nu, &nv, &np);
    g_assert_cmpint (nu, ==, 5); g_assert_cmpint (nv, ==, 7); g_assert_cmpint (np, ==, 6);
    for (int s = 0; s < TOPO_N_STACKINGS; s++)
      {
        topo_stacking_to_xyz (s, 1, 2, 3, xyz);
        topo_stacking_from_xyz (s, xyz, &u, &v, &p);
        g_assert_cmpint (u, ==, 1); g_assert_cmpint (v, ==, 2); g_assert_cmpint (p, ==, 3);
      }
  }
}

/* ---- colours ----------------------------------------------------------------------------- */

static void
test_colour_fractions (void)
{
  TopoColourRange low, high, sig;
  TopoStats stats = { 6, 90, 100, 95, 0 };
  double f;
  gboolean lighten;

  topo_colour_range_low (&low, 100, FALSE, 0.01);
  topo_colour_range_high (&high, &stats, FALSE);
  g_assert_cmpint (topo_colour_classify (&low, TRUE, 90, &f, &lighten), ==, TOPO_CELL_VALUE);
  g_assert_cmpfloat (f, ==, 0.9);
  g_assert_false (lighten);
  g_assert_cmpint (topo_colour_classify (&high, TRUE, 90, &f, &lighten), ==, TOPO_CELL_VALUE);
  g_assert_cmpfloat (f, ==, 1e-9);   /* the bottom of the scale, still coloured */
  g_assert_cmpint (topo_colour_classify (&high, TRUE, 95, &f, &lighten), ==, TOPO_CELL_VALUE);
  g_assert_cmpfloat (f, ==, 0.5);
  g_assert_cmpint (topo_colour_classify (&high, TRUE, 100, &f, &lighten), ==, TOPO_CELL_VALUE);
  g_assert_cmpfloat (f, ==, 1.0);
  /* Zero and undefined values take the background, missing locations are empty. */
  g_assert_cmpint (topo_colour_classify (&high, TRUE, 0, &f, &lighten), ==, TOPO_CELL_ZERO);
  g_assert_cmpint (topo_colour_classify (&low, TRUE, NAN, &f, &lighten), ==, TOPO_CELL_ZERO);
  g_assert_cmpint (topo_colour_classify (&low, FALSE, 50, &f, &lighten), ==, TOPO_CELL_EMPTY);
  /* Low resolution lightens insignificant values like the tree does. */
  g_assert_cmpint (topo_colour_classify (&low, TRUE, 0.5, &f, &lighten), ==, TOPO_CELL_VALUE);
  g_assert_cmpfloat (f, ==, 0.005);
  g_assert_true (lighten);
  /* Diverging (differences): the sign stays, scaled by the largest magnitude. */
  topo_colour_range_low (&sig, 10, TRUE, 0.01);
  g_assert_cmpint (topo_colour_classify (&sig, TRUE, -5, &f, &lighten), ==, TOPO_CELL_VALUE);
  g_assert_cmpfloat (f, ==, -0.5);
  stats.min = -4, stats.max = 8;
  topo_colour_range_high (&sig, &stats, TRUE);
  g_assert_cmpint (topo_colour_classify (&sig, TRUE, -4, &f, &lighten), ==, TOPO_CELL_VALUE);
  g_assert_cmpfloat (f, ==, -0.5);
  /* A uniform grid in high resolution sits at the top. */
  stats.min = stats.max = 7;
  topo_colour_range_high (&high, &stats, FALSE);
  g_assert_cmpint (topo_colour_classify (&high, TRUE, 7, &f, &lighten), ==, TOPO_CELL_VALUE);
  g_assert_cmpfloat (f, ==, 1.0);
}

static void
test_colour_stats (void)
{
  const double v[8] = { 90, 92, NAN, 94, 96, 1000, 98, 100 };
  const gboolean loc[8] = { TRUE, TRUE, TRUE, TRUE, TRUE, FALSE, TRUE, TRUE };
  TopoStats s;

  topo_stats_compute (v, loc, 8, &s);
  g_assert_cmpuint (s.n, ==, 6);
  g_assert_cmpfloat (s.min, ==, 90);
  g_assert_cmpfloat (s.max, ==, 100);
  g_assert_cmpfloat_with_epsilon (s.mean, 95, 1e-12);
  g_assert_cmpfloat_with_epsilon (s.stddev, sqrt (70.0 / 6), 1e-12);
  topo_stats_compute (v, loc, 0, &s);
  g_assert_cmpuint (s.n, ==, 0);
  g_assert_cmpfloat (s.mean, ==, 0);
}

/* ---- grids and values -------------------------------------------------------------------- */

static const gint64 dims444[3] = { 4, 4, 4 };

static KubusBrowser *
grid_browser (const gint64 dims[3], double lo, double hi, TopologyTestFlags flags)
{
  g_autoptr (GError) error = NULL;
  KubusBrowser *b = kubus_browser_new (topology_test_report_new (dims, lo, hi, flags), NULL, &error);

  g_assert_no_error (error);
  kubus_browser_select_default (b);
  kubus_browser_flush (b);
  return b;
}

static const CubeSysNode *
thread_of_rank (CubeReport *report, gint64 rank)
{
  for (guint i = 0; i < report->sysnodes->len; i++)
    {
      const CubeSysNode *n = g_ptr_array_index (report->sysnodes, i);
      if (n->kind == CUBE_SYS_THREAD && n->parent->rank == rank)
        return n;
    }
  g_assert_not_reached ();
}

static void
test_grid_cells (void)
{
  g_autoptr (KubusBrowser) b = grid_browser (dims444, 90, 100, TOPOLOGY_TEST_HOLE);
  CubeReport *report = kubus_browser_get_report (b);
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoGrid) grid = kubus_topology_grid_new (b, 0, NULL, &error);
  g_autoptr (TopoGrid) slice = NULL;
  g_autoptr (TopoLayout) layout = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (grid->n_cells, ==, 64);
  g_assert_cmpuint (grid->n_placed, ==, 63);
  for (gint64 r = 0; r < 63; r++)
    {
      const CubeSysNode *t = thread_of_rank (report, r);
      g_assert_cmpint (grid->cell_node[r], ==, (gint) t->index);
      g_assert_cmpint (grid->node_cell[t->index], ==, r);
    }
  g_assert_false (grid->has_location[63]);
  g_assert_cmpint (topo_grid_plane_count (grid, 2, 3), ==, 15);
  g_assert_cmpint (topo_grid_plane_count (grid, 2, 0), ==, 16);

  /* z as a slice at 3: the 15 located cells of that plane; the others are elsewhere. */
  layout = kubus_topology_default_layout (g_ptr_array_index (report->topologies, 0));
  topo_layout_set_role (layout, 2, TOPO_AXIS_SLICE, 3);
  slice = kubus_topology_grid_new (b, 0, g_steal_pointer (&layout), &error);
  g_assert_no_error (error);
  g_assert_cmpint (slice->n_cells, ==, 16);
  g_assert_cmpuint (slice->n_placed, ==, 15);
  g_assert_cmpuint (slice->n_elsewhere, ==, 48);
  g_assert_cmpint (slice->cell_node[5], ==, (gint) thread_of_rank (report, 48 + 5)->index);

  /* Too many cells: a clear error, no grid. */
  {
    const gint64 big[3] = { 1 << 11, 1 << 10, 1 };
    g_autoptr (TopoLayout) huge = topo_layout_new (3, big, NULL);
    CubeCart *cart = g_ptr_array_index (report->topologies, 0);
    g_autoptr (TopoGrid) none = NULL;

    huge->ndims = cart->ndims;
    none = topo_grid_new (report, cart, g_steal_pointer (&huge), &error);
    g_assert_null (none);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull (strstr (error->message, "2097152"));
  }
}

static void
test_grid_shared_coordinate (void)
{
  const gint64 dims[3] = { 2, 2, 1 }, c[3] = { 1, 0, 0 };
  g_autoptr (CubeReport) r = topology_test_report_new (dims, 1, 4, TOPOLOGY_TEST_PLAIN);
  CubeCart *cart = g_ptr_array_index (r->topologies, 0);
  const CubeSysNode *t3 = NULL;
  g_autoptr (TopoGrid) grid = NULL;

  for (guint i = 0; i < r->sysnodes->len; i++)
    {
      CubeSysNode *n = g_ptr_array_index (r->sysnodes, i);
      if (n->kind == CUBE_SYS_THREAD && n->parent->rank == 3)
        t3 = n;
    }
  /* Rank 3 moves onto rank 1's position: the later one wins, rank 1 has no cell. */
  cube_cart_set_coord (cart, (CubeSysNode *) t3, c);
  grid = topo_grid_new (r, cart, topo_layout_new (3, dims, NULL), NULL);
  g_assert_cmpuint (grid->n_shared + grid->n_placed, ==, 4);
  g_assert_false (grid->has_location[3]);
  g_assert_cmpint (grid->cell_node[1], >=, 0);
}

static void
test_values_from_browser (void)
{
  g_autoptr (KubusBrowser) b = grid_browser (dims444, 90, 100, TOPOLOGY_TEST_PLAIN);
  CubeReport *report = kubus_browser_get_report (b);
  KubusPaneModel *system = kubus_browser_get_pane (b, KUBUS_PANE_SYSTEM);
  g_autoptr (TopoGrid) grid = kubus_topology_grid_new (b, 0, NULL, NULL);
  g_autoptr (TopoScene) scene = topo_scene_new ();
  TopoSettings settings;
  const TopoStats *stats;
  double rgb[3];

  topo_settings_init_default (&settings, 4);
  topo_scene_set_settings (scene, &settings);
  topo_scene_set_grid (scene, grid);
  kubus_topology_values_apply (b, 0, grid, scene);
  for (gint64 r = 0; r < 64; r++)
    g_assert_cmpfloat (grid->values[r], ==, topology_test_value (dims444, 90, 100, 0, r));
  stats = topo_scene_get_stats (scene);
  g_assert_cmpuint (stats->n, ==, 64);
  g_assert_cmpfloat (stats->min, ==, 90);
  g_assert_cmpfloat (stats->max, ==, 100);
  g_assert_cmpfloat_with_epsilon (stats->mean, 95, 1e-12);

  /* Low resolution: the tree's scale over all locations (max 100), every cell at the hot
   * end (rainbow 0.9 … 1: full red, no blue); the machine total (6080) does not count. */
  for (gint64 r = 0; r < 64; r++)
    {
      GdkRGBA want;
      g_assert_cmpint (topo_scene_cell_color (scene, r, rgb), ==, TOPO_CELL_VALUE);
      kubus_severity_color (KUBUS_SCALE_RAINBOW, FALSE, grid->values[r] / 100, FALSE, &want);
      g_assert_cmpfloat (fabs (rgb[0] - want.red), <=, 0.5 / 255 + 1e-9);
      g_assert_cmpfloat (fabs (rgb[1] - want.green), <=, 0.5 / 255 + 1e-9);
      g_assert_cmpfloat (fabs (rgb[2] - want.blue), <=, 0.5 / 255 + 1e-9);
      g_assert_cmpfloat (rgb[0], ==, 1.0);
      g_assert_cmpfloat (rgb[2], ==, 0.0);
    }
  /* High resolution: 90 is the cold end (blue), 100 the hot end (red), 95 the middle. */
  settings.high_resolution = TRUE;
  topo_scene_set_settings (scene, &settings);
  topo_scene_cell_color (scene, 0, rgb);
  g_assert_cmpfloat (rgb[0], ==, 0); g_assert_cmpfloat (rgb[1], ==, 0); g_assert_cmpfloat (rgb[2], ==, 1);
  topo_scene_cell_color (scene, 63, rgb);
  g_assert_cmpfloat (rgb[0], ==, 1); g_assert_cmpfloat (rgb[1], ==, 0); g_assert_cmpfloat (rgb[2], ==, 0);
  for (gint64 r = 0; r < 64; r++)
    {
      GdkRGBA want;
      kubus_severity_color (KUBUS_SCALE_RAINBOW, FALSE, MAX ((grid->values[r] - 90) / 10, 1e-9),
                            FALSE, &want);
      topo_scene_cell_color (scene, r, rgb);
      g_assert_cmpfloat (fabs (rgb[1] - want.green), <=, 0.5 / 255 + 1e-9);
    }

  /* Another value mode: the cells show what the tree shows (percent of the total 6080). */
  kubus_browser_set_mode (b, KUBUS_MODE_PERCENT);
  kubus_topology_values_apply (b, 0, grid, scene);
  g_assert_cmpfloat_with_epsilon (grid->values[0], 90.0 / 6080 * 100, 1e-12);
  g_assert_cmpfloat (grid->values[7], ==,
                     kubus_pane_model_node_value (system, KUBUS_NODE_SYSNODE, thread_of_rank (report, 7), FALSE));
}

static void
select_node (KubusBrowser *b, const CubeSysNode *node, gboolean add)
{
  KubusPaneModel *system = kubus_browser_get_pane (b, KUBUS_PANE_SYSTEM);
  guint pos = kubus_pane_model_reveal (system, KUBUS_NODE_SYSNODE, node);

  g_assert_cmpuint (pos, !=, G_MAXUINT);
  gtk_selection_model_select_item (kubus_pane_model_get_selection (system), pos, !add);
}

static void
test_values_selection (void)
{
  g_autoptr (KubusBrowser) b = grid_browser (dims444, 90, 100, TOPOLOGY_TEST_PLAIN);
  CubeReport *report = kubus_browser_get_report (b);
  g_autoptr (TopoGrid) grid = kubus_topology_grid_new (b, 0, NULL, NULL);
  g_autoptr (GArray) cells = g_array_new (FALSE, FALSE, sizeof (gint64));

  select_node (b, thread_of_rank (report, 5), FALSE);
  kubus_topology_selected_cells (b, grid, cells);
  g_assert_cmpuint (cells->len, ==, 1);
  g_assert_cmpint (g_array_index (cells, gint64, 0), ==, 5);
  /* Several locations; a process stands for its thread. */
  select_node (b, thread_of_rank (report, 17), TRUE);
  select_node (b, thread_of_rank (report, 40)->parent, TRUE);
  g_array_set_size (cells, 0);
  kubus_topology_selected_cells (b, grid, cells);
  g_assert_cmpuint (cells->len, ==, 3);
  g_assert_cmpint (g_array_index (cells, gint64, 0), ==, 5);
  g_assert_cmpint (g_array_index (cells, gint64, 1), ==, 17);
  g_assert_cmpint (g_array_index (cells, gint64, 2), ==, 40);
  /* The machine: every cell. */
  select_node (b, g_ptr_array_index (report->system_roots, 0), FALSE);
  g_array_set_size (cells, 0);
  kubus_topology_selected_cells (b, grid, cells);
  g_assert_cmpuint (cells->len, ==, 64);
}

/* ---- rendering --------------------------------------------------------------------------- */

static void
pixel (cairo_surface_t *s, double x, double y, guint8 rgb[3])
{
  const guint8 *data = cairo_image_surface_get_data (s);
  guint32 p = *(const guint32 *) (data + (int) y * cairo_image_surface_get_stride (s) + 4 * (int) x);

  rgb[0] = (p >> 16) & 0xff, rgb[1] = (p >> 8) & 0xff, rgb[2] = p & 0xff;
}

static void
test_render_pixels (void)
{
  const gint64 dims[3] = { 4, 4, 1 };
  g_autoptr (KubusBrowser) b = grid_browser (dims, 90, 100, TOPOLOGY_TEST_ZERO_RANK | TOPOLOGY_TEST_HOLE);
  g_autoptr (TopoGrid) grid = kubus_topology_grid_new (b, 0, NULL, NULL);
  g_autoptr (TopoScene) scene = topo_scene_new ();
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 600, 500);
  cairo_t *cr = cairo_create (surface);
  TopoSettings settings;
  guint8 zero[3], empty[3], value[3], mean[3];
  double x, y, rgb[3];
  gint64 cell;

  topo_settings_init_default (&settings, 1);
  settings.lines = TOPO_LINES_BLACK;
  topo_scene_set_settings (scene, &settings);
  topo_scene_set_grid (scene, grid);
  kubus_topology_values_apply (b, 0, grid, scene);
  topo_scene_render (scene, cr, 600, 500);
  cairo_surface_flush (surface);

  /* Rank 1 is 0: the background colour (white). */
  g_assert_true (topo_scene_cell_center (scene, 600, 500, 1, &x, &y));
  pixel (surface, x, y, zero);
  g_assert_cmpuint (zero[0], ==, 255); g_assert_cmpuint (zero[1], ==, 255); g_assert_cmpuint (zero[2], ==, 255);
  /* Rank 15 has no coordinate: its cell is hatched, not white. */
  g_assert_true (topo_scene_cell_center (scene, 600, 500, 15, &x, &y));
  pixel (surface, x, y, empty);
  g_assert_true (empty[0] < 240 && empty[0] == empty[1] && empty[1] == empty[2]);
  /* Others: the colour the scene says. */
  for (cell = 0; cell < 15; cell++)
    {
      g_assert_true (topo_scene_cell_center (scene, 600, 500, cell, &x, &y));
      pixel (surface, x, y, value);
      topo_scene_cell_color (scene, cell, rgb);
      for (int c = 0; c < 3; c++)
        g_assert_cmpint (ABS ((int) value[c] - (int) lround (rgb[c] * 255)), <=, 1);
      /* And picking that point gives the cell back. */
      {
        gint64 picked;
        g_assert_true (topo_scene_pick (scene, 600, 500, x, y, &picked));
        g_assert_cmpint (picked, ==, cell);
      }
    }
  /* A selected cell is outlined: black at its border, inside unchanged. */
  {
    gint64 sel = 6;
    TopoProjection proj;
    double bx, by;

    topo_scene_set_selection (scene, &sel, 1);
    topo_scene_render (scene, cr, 600, 500);
    cairo_surface_flush (surface);
    topo_scene_get_projection (scene, 600, 500, &proj);
    topo_projection_point (&proj, 2 + 0.5, 1, 0, &bx, &by);   /* top edge of cell (2, 1) */
    /* The black band of the outline lies 0.75 … 1.75 px inside: this pixel is half black at least. */
    pixel (surface, bx, by + 1.25, mean);
    g_assert_cmpuint (mean[0], <=, 140); g_assert_cmpuint (mean[1], <=, 140); g_assert_cmpuint (mean[2], <=, 140);
    topo_scene_cell_center (scene, 600, 500, 6, &x, &y);
    pixel (surface, x, y, value);
    topo_scene_cell_color (scene, 6, rgb);
    g_assert_cmpint (ABS ((int) value[1] - (int) lround (rgb[1] * 255)), <=, 1);
  }
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

static void
draw_scene (cairo_t *cr, int width, int height, gpointer data)
{
  topo_scene_render (data, cr, width, height);
}

static void
test_render_files (void)
{
  g_autoptr (KubusBrowser) b = grid_browser (dims444, 90, 100, TOPOLOGY_TEST_HOLE);
  g_autoptr (TopoGrid) grid = kubus_topology_grid_new (b, 0, NULL, NULL);
  g_autoptr (TopoScene) scene = topo_scene_new ();
  g_autofree char *dir = g_dir_make_tmp ("kubus-topology-XXXXXX", NULL);
  const char *names[] = { "t.png", "t.svg", "t.pdf" };
  const char *magic[] = { "\x89PNG", "<?xml", "%PDF" };
  g_autoptr (GError) error = NULL;
  g_autofree char *bad = g_build_filename (dir, "t.gif", NULL);
  g_autofree char *missing = g_build_filename (dir, "no-such-dir", "t.png", NULL);

  topo_scene_set_grid (scene, grid);
  kubus_topology_values_apply (b, 0, grid, scene);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (dir, names[i], NULL);
      g_autofree char *contents = NULL;
      gsize len;

      KubusExportFormat format;

      g_assert_true (kubus_export_format_from_path (path, &format));
      g_assert_true (kubus_export_to_file (path, format, 640, 480, draw_scene, scene, &error));
      g_assert_no_error (error);
      g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
      g_assert_cmpuint (len, >, 1000);
      g_assert_true (g_str_has_prefix (contents, magic[i]));
      if (i == 1)
        g_assert_nonnull (strstr (contents, "<path"));   /* cells stay vectors */
      g_unlink (path);
    }
  /* Bad names and folders: an error naming the file, nothing left behind. */
  g_assert_false (kubus_export_format_from_path (bad, &(KubusExportFormat) { 0 }));
  g_assert_false (kubus_export_to_file (missing, KUBUS_EXPORT_PNG, 640, 480, draw_scene, scene, &error));
  g_assert_nonnull (strstr (error->message, "no-such-dir"));
  g_clear_error (&error);
  {
    g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
    g_assert_null (g_dir_read_name (d));
  }
  g_rmdir (dir);
}

/* ---- remembered settings ----------------------------------------------------------------- */

static void
test_settings_roundtrip (void)
{
  TopoSettings s, t;
  g_autofree char *layout = NULL;
  g_autoptr (GError) error = NULL;

  topo_settings_init_default (&s, 4);
  s.camera.yaw = 12.5, s.camera.pitch = -20, s.camera.zoom = 2.5, s.camera.distance = 1.75;
  s.camera.pan_x = 10, s.camera.pan_y = -4;
  s.stacking = TOPO_STACK_X, s.lines = TOPO_LINES_WHITE, s.hide_empty = TRUE, s.high_resolution = TRUE;
  g_assert_true (kubus_topology_settings_save ("/data/a[1].cube", 2, &s, "x s1 y z", &error));
  g_assert_no_error (error);
  topo_settings_init_default (&t, 4);
  g_assert_false (kubus_topology_settings_load ("/data/a[1].cube", 1, &t, &layout));
  g_assert_false (kubus_topology_settings_load ("/data/b.cube", 2, &t, &layout));
  g_assert_true (kubus_topology_settings_load ("/data/a[1].cube", 2, &t, &layout));
  g_assert_cmpstr (layout, ==, "x s1 y z");
  g_assert_cmpfloat (t.camera.yaw, ==, 12.5);
  g_assert_cmpfloat (t.camera.pitch, ==, -20);
  g_assert_cmpfloat (t.camera.zoom, ==, 2.5);
  g_assert_cmpfloat (t.camera.distance, ==, 1.75);
  g_assert_cmpfloat (t.camera.pan_x, ==, 10);
  g_assert_cmpfloat (t.camera.pan_y, ==, -4);
  g_assert_cmpint (t.stacking, ==, TOPO_STACK_X);
  g_assert_cmpint (t.lines, ==, TOPO_LINES_WHITE);
  g_assert_true (t.hide_empty && t.high_resolution);

  /* Only the most recently used reports are kept. */
  for (guint i = 0; i < TOPO_SETTINGS_KEEP + 5; i++)
    {
      g_autofree char *path = g_strdup_printf ("/data/r%u.cube", i);
      g_assert_true (kubus_topology_settings_save (path, 0, &s, NULL, NULL));
    }
  g_clear_pointer (&layout, g_free);
  g_assert_false (kubus_topology_settings_load ("/data/a[1].cube", 2, &t, &layout));
  g_assert_false (kubus_topology_settings_load ("/data/r0.cube", 0, &t, &layout));
  g_assert_true (kubus_topology_settings_load ("/data/r204.cube", 0, &t, &layout));
  {
    g_autoptr (GKeyFile) file = g_key_file_new ();
    g_autofree char *path = kubus_topology_settings_path ();
    gsize n;
    g_auto (GStrv) groups = NULL;
    g_assert_true (g_key_file_load_from_file (file, path, 0, NULL));
    groups = g_key_file_get_groups (file, &n);
    g_assert_cmpuint (n, ==, TOPO_SETTINGS_KEEP);
  }
}

/* ---- headless command line --------------------------------------------------------------- */

static int
run_kubus (const char *const *args, char **err)
{
  const char *kubus = g_getenv ("KUBUS");
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_auto (GStrv) env = g_get_environ ();
  int status = -1;
  g_autoptr (GError) error = NULL;

  g_ptr_array_add (argv, (char *) kubus);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  /* Headless: no display at all. */
  env = g_environ_unsetenv (env, "DISPLAY");
  env = g_environ_unsetenv (env, "WAYLAND_DISPLAY");
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, env, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                               NULL, err, &status, &error));
  g_assert_no_error (error);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

static void
test_cli_headless (void)
{
  g_autofree char *dir = NULL, *report = NULL, *png = NULL, *svg = NULL, *pdf = NULL, *view = NULL;
  g_autofree char *shot = NULL, *err = NULL;
  g_autoptr (CubeReport) r = NULL;

  if (g_getenv ("KUBUS") == NULL)
    {
      g_test_skip ("KUBUS not set");
      return;
    }
  dir = g_dir_make_tmp ("kubus-topology-cli-XXXXXX", NULL);
  report = g_build_filename (dir, "grid.cube", NULL);
  r = topology_test_report_new (dims444, 90, 100, TOPOLOGY_TEST_PLAIN);
  g_assert_true (cube_report_write (r, report, NULL));
  png = g_build_filename (dir, "t.png", NULL);
  svg = g_build_filename (dir, "t.svg", NULL);
  pdf = g_build_filename (dir, "t.pdf", NULL);

  shot = g_strdup_printf ("--screenshot=%s", png);
  {
    const char *args[] = { "--view=topology:0", "--high-resolution", "--size=640x480", shot, report, NULL };
    g_assert_cmpint (run_kubus (args, &err), ==, 0);
    g_assert_true (g_file_test (png, G_FILE_TEST_IS_REGULAR));
  }
  {
    /* The PNG is 640×480 and its cells span the scale: blue and red both present. */
    cairo_surface_t *s = cairo_image_surface_create_from_png (png);
    gboolean blue = FALSE, red = FALSE;
    g_assert_cmpint (cairo_image_surface_get_width (s), ==, 640);
    g_assert_cmpint (cairo_image_surface_get_height (s), ==, 480);
    for (int y = 60; y < 400; y++)
      for (int x = 0; x < 640; x++)
        {
          guint8 p[3];
          pixel (s, x, y, p);
          blue = blue || (p[0] == 0 && p[1] == 0 && p[2] == 255);
          red = red || (p[0] == 255 && p[1] == 0 && p[2] == 0);
        }
    g_assert_true (blue && red);
    cairo_surface_destroy (s);
  }
  for (int i = 0; i < 2; i++)
    {
      const char *out = i == 0 ? svg : pdf;
      g_autofree char *arg = g_strdup_printf ("--screenshot=%s", out);
      const char *args[] = { "--view=topology:0", arg, report, NULL };
      g_clear_pointer (&err, g_free);
      g_assert_cmpint (run_kubus (args, &err), ==, 0);
      g_assert_true (g_file_test (out, G_FILE_TEST_IS_REGULAR));
    }
  /* Usage errors exit 2, failures 1, each with a message that says what is wrong. */
  {
    const char *args[] = { "--view=topology", shot, report, NULL };
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (run_kubus (args, &err), ==, 2);
    g_assert_nonnull (strstr (err, "topology:N"));
  }
  {
    const char *args[] = { "--view=topology:3", shot, report, NULL };
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (run_kubus (args, &err), ==, 1);
    g_assert_nonnull (strstr (err, "grid.cube has 1 topology"));
  }
  {
    g_autofree char *gif = g_strdup_printf ("--screenshot=%s/t.gif", dir);
    const char *args[] = { "--view=topology:0", gif, report, NULL };
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (run_kubus (args, &err), ==, 2);
    g_assert_nonnull (strstr (err, ".png, .svg or .pdf"));
  }
  {
    g_autofree char *missing = g_build_filename (dir, "missing.cube", NULL);
    const char *args[] = { "--view=topology:0", shot, missing, NULL };
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (run_kubus (args, &err), ==, 1);
    g_assert_nonnull (strstr (err, "missing.cube"));
  }
  g_unlink (png), g_unlink (svg), g_unlink (pdf), g_unlink (report);
  g_assert_cmpint (g_rmdir (dir), ==, 0);   /* no temporary files left */
}

/* ---- issue 24, item 8: labels in margins the planes never enter ------------------------------------- */

static gboolean
boxes_meet (const TopoRect *a,
            const TopoRect *b)
{
  return a->x + 0.5 < b->x + b->width && b->x + 0.5 < a->x + a->width
         && a->y + 0.5 < b->y + b->height && b->y + 0.5 < a->y + a->height;
}

/* No text box meets another or the planes' rectangle or leaves the canvas; outside the planes'
 * rectangle and the legend no pixel has a cell's colour. */
static void
check_margins (TopoScene  *scene,
               int         width,
               int         height,
               const char *what)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, width, height);
  cairo_t *cr = cairo_create (surface);
  const GArray *boxes;
  TopoViewLayout l;
  const guint8 *data;
  int stride;

  topo_scene_render (scene, cr, width, height);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  topo_scene_get_layout (scene, width, height, &l);
  boxes = topo_scene_get_label_boxes (scene);
  g_assert_nonnull (boxes);
  g_assert_cmpuint (boxes->len, >=, 3);
  for (guint i = 0; i < boxes->len; i++)
    {
      const TopoRect *a = &g_array_index (boxes, TopoRect, i);

      if (a->x < -0.5 || a->y < -0.5 || a->x + a->width > width + 0.5 || a->y + a->height > height + 0.5)
        g_error ("%s: a text at %.0f,%.0f (%.0f×%.0f) leaves the %d×%d canvas", what, a->x, a->y, a->width,
                 a->height, width, height);
      if (boxes_meet (a, &l.grid))
        g_error ("%s: a text at %.0f,%.0f (%.0f×%.0f) lies on the planes' rectangle", what, a->x, a->y, a->width,
                 a->height);
      for (guint j = i + 1; j < boxes->len; j++)
        if (boxes_meet (a, &g_array_index (boxes, TopoRect, j)))
          g_error ("%s: texts %u and %u overlap", what, i, j);
    }
  data = cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface);
  for (int y = 0; y < (int) l.legend.y; y++)
    for (int x = 0; x < width; x++)
      {
        guint32 v = *(const guint32 *) (data + y * stride + 4 * x);
        int r = (v >> 16) & 0xff, g = (v >> 8) & 0xff, b = v & 0xff;
        int sat = MAX (r, MAX (g, b)) - MIN (r, MIN (g, b));

        if (x >= l.grid.x - 1 && x <= l.grid.x + l.grid.width && y >= l.grid.y - 1 && y <= l.grid.y + l.grid.height)
          continue;
        if (sat > 90)
          g_error ("%s: a cell's colour (%d,%d,%d) at %d,%d outside the planes' rectangle", what, r, g, b, x, y);
      }
  cairo_surface_destroy (surface);
}

static void
test_render_margins (void)
{
  g_autoptr (KubusBrowser) b = grid_browser (dims444, 10, 100, TOPOLOGY_TEST_PLAIN);
  g_autoptr (TopoGrid) grid = kubus_topology_grid_new (b, 0, NULL, NULL);
  g_autoptr (TopoScene) scene = topo_scene_new ();
  const char *shared = g_getenv ("KUBUS_SHARED_DATA");

  topo_scene_set_grid (scene, grid);
  kubus_topology_values_apply (b, 0, grid, scene);
  check_margins (scene, 600, 400, "4×4×4");
  /* with the log panel open the view is low: labels still apart */
  check_margins (scene, 420, 240, "4×4×4, low view");
  /* zoomed in eight times: the planes stay inside their rectangle, off the title and legend */
  topo_scene_zoom_at (scene, 600, 400, 300, 200, 8);
  check_margins (scene, 600, 400, "4×4×4 zoomed in");
  /* the 14-D topology of the shared report: its slice line is wrapped, not cut */
  if (shared != NULL)
    {
      g_autofree char *path = g_build_filename (shared, "cube", "cubelib_test32_example_multitopo.cube", NULL);
      g_autoptr (GError) error = NULL;
      CubeReport *r = cube_report_load (path, CUBE_LOAD_EAGER, NULL, NULL, NULL, &error);
      g_autoptr (KubusBrowser) mb = NULL;
      g_autoptr (TopoGrid) g14 = NULL;
      g_autoptr (TopoScene) s14 = topo_scene_new ();

      if (r == NULL)
        {
          g_test_message ("no shared multi-topology report: %s", error->message);
          return;
        }
      mb = kubus_browser_new (r, NULL, &error);
      g_assert_no_error (error);
      kubus_browser_select_default (mb);
      kubus_browser_flush (mb);
      g14 = kubus_topology_grid_new (mb, 3, NULL, &error);
      g_assert_no_error (error);
      topo_scene_set_grid (s14, g14);
      kubus_topology_values_apply (mb, 3, g14, s14);
      check_margins (s14, 430, 560, "14-D in a narrow pane");
      {
        TopoViewLayout l;
        topo_scene_get_layout (s14, 430, 560, &l);
        /* title, subtitle and the slice line on more lines than fit one line each */
        g_assert_cmpfloat (l.title.height, >, 3 * 15);
      }
    }
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *state = g_dir_make_tmp ("kubus-topology-state-XXXXXX", NULL);
  int status;

  /* Remembered settings go to a private folder (read once by GLib, so set before anything). */
  g_setenv ("XDG_STATE_HOME", state, TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/topology/layout/default", test_layout_default);
  g_test_add_func ("/topology/layout/slices-and-folds", test_layout_slices);
  g_test_add_func ("/topology/layout/string", test_layout_string);
  g_test_add_func ("/topology/geometry/pick", test_geometry_pick);
  g_test_add_func ("/topology/geometry/overlap", test_geometry_overlap);
  g_test_add_func ("/topology/geometry/fit", test_geometry_fit_zoom);
  g_test_add_func ("/topology/colour/fractions", test_colour_fractions);
  g_test_add_func ("/topology/colour/stats", test_colour_stats);
  g_test_add_func ("/topology/grid/cells", test_grid_cells);
  g_test_add_func ("/topology/grid/shared-coordinate", test_grid_shared_coordinate);
  g_test_add_func ("/topology/values/browser", test_values_from_browser);
  g_test_add_func ("/topology/values/selection", test_values_selection);
  g_test_add_func ("/topology/render/pixels", test_render_pixels);
  g_test_add_func ("/topology/render/files", test_render_files);
  g_test_add_func ("/topology/render/margins", test_render_margins);
  g_test_add_func ("/topology/settings/roundtrip", test_settings_roundtrip);
  g_test_add_func ("/topology/cli/headless", test_cli_headless);
  status = g_test_run ();
  /* the private folder goes with the test (it was left in /tmp after every run) */
  kubus_remove_tree (state);
  return status;
}
