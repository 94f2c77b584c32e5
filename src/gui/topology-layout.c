/* topology-layout.c — see topology-layout.h. */
#include <string.h>

#include "topology-layout.h"

#define EXTENT_CAP (G_MAXINT64 / 4)

static gint64
mul_sat (gint64 a,
         gint64 b)
{
  if (a == 0 || b == 0)
    return 0;
  if (a > EXTENT_CAP / b)
    return EXTENT_CAP;
  return a * b;
}

static void
topo_layout_update (TopoLayout *layout)
{
  for (int a = 0; a < 3; a++)
    layout->extent[a] = 1;
  /* Walk from the last dimension: the lower-numbered dimension is the outer one. */
  for (guint i = layout->ndims; i-- > 0;)
    {
      TopoAxis a = layout->axis[i];
      if (a == TOPO_AXIS_SLICE)
        {
          layout->stride[i] = 0;
          continue;
        }
      layout->stride[i] = layout->extent[a];
      layout->extent[a] = mul_sat (layout->extent[a], layout->sizes[i]);
    }
}

static TopoLayout *
layout_alloc (guint         ndims,
              const gint64 *sizes)
{
  TopoLayout *layout = g_new0 (TopoLayout, 1);

  layout->ndims = ndims;
  layout->sizes = g_new (gint64, MAX (ndims, 1));
  layout->axis = g_new (TopoAxis, MAX (ndims, 1));
  layout->slice = g_new0 (gint64, MAX (ndims, 1));
  layout->stride = g_new0 (gint64, MAX (ndims, 1));
  for (guint i = 0; i < ndims; i++)
    layout->sizes[i] = MAX (sizes[i], 1);
  return layout;
}

TopoLayout *
topo_layout_new (guint         ndims,
                 const gint64 *sizes,
                 const gint64 *first_coord)
{
  TopoLayout *layout = layout_alloc (ndims, sizes);
  gint64 cells = 1;

  for (guint i = 0; i < ndims; i++)
    {
      layout->axis[i] = TOPO_AXIS_SLICE;
      if (first_coord != NULL && first_coord[i] >= 0 && first_coord[i] < layout->sizes[i])
        layout->slice[i] = first_coord[i];
    }
  for (guint i = 0; i < ndims && i < 3; i++)
    {
      layout->axis[i] = (TopoAxis) i;
      cells = mul_sat (cells, layout->sizes[i]);
    }
  topo_layout_update (layout);
  for (guint i = 3; i < ndims; i++)
    {
      TopoAxis a = layout->extent[TOPO_AXIS_Y] < layout->extent[TOPO_AXIS_X] ? TOPO_AXIS_Y
                                                                             : TOPO_AXIS_X;
      gint64 more = mul_sat (cells, layout->sizes[i]);

      if (more > TOPO_DEFAULT_MAX_CELLS)
        continue;   /* stays a slice */
      layout->axis[i] = a;
      cells = more;
      topo_layout_update (layout);
    }
  topo_layout_update (layout);
  return layout;
}

TopoLayout *
topo_layout_copy (const TopoLayout *layout)
{
  TopoLayout *copy = layout_alloc (layout->ndims, layout->sizes);

  for (guint i = 0; i < layout->ndims; i++)
    {
      copy->axis[i] = layout->axis[i];
      copy->slice[i] = layout->slice[i];
    }
  topo_layout_update (copy);
  return copy;
}

void
topo_layout_free (TopoLayout *layout)
{
  if (layout == NULL)
    return;
  g_free (layout->sizes);
  g_free (layout->axis);
  g_free (layout->slice);
  g_free (layout->stride);
  g_free (layout);
}

void
topo_layout_set_role (TopoLayout *layout,
                      guint       dim,
                      TopoAxis    axis,
                      gint64      slice)
{
  g_return_if_fail (dim < layout->ndims);
  g_return_if_fail (axis <= TOPO_AXIS_SLICE);
  layout->axis[dim] = axis;
  if (axis == TOPO_AXIS_SLICE)
    layout->slice[dim] = CLAMP (slice, 0, layout->sizes[dim] - 1);
  topo_layout_update (layout);
}

gint64
topo_layout_n_cells (const TopoLayout *layout)
{
  return mul_sat (mul_sat (layout->extent[0], layout->extent[1]), layout->extent[2]);
}

gboolean
topo_layout_map (const TopoLayout *layout,
                 const gint64     *coord,
                 gint64            xyz[3])
{
  xyz[0] = xyz[1] = xyz[2] = 0;
  for (guint i = 0; i < layout->ndims; i++)
    {
      if (coord[i] < 0 || coord[i] >= layout->sizes[i])
        return FALSE;
      if (layout->axis[i] == TOPO_AXIS_SLICE)
        {
          if (coord[i] != layout->slice[i])
            return FALSE;
          continue;
        }
      xyz[layout->axis[i]] += coord[i] * layout->stride[i];
    }
  return TRUE;
}

void
topo_layout_unmap (const TopoLayout *layout,
                   const gint64      xyz[3],
                   gint64           *coord)
{
  for (guint i = 0; i < layout->ndims; i++)
    {
      if (layout->axis[i] == TOPO_AXIS_SLICE)
        coord[i] = layout->slice[i];
      else
        coord[i] = (xyz[layout->axis[i]] / layout->stride[i]) % layout->sizes[i];
    }
}

gint64
topo_layout_cell_index (const TopoLayout *layout,
                        const gint64      xyz[3])
{
  return xyz[0] + layout->extent[0] * (xyz[1] + layout->extent[1] * xyz[2]);
}

void
topo_layout_cell_xyz (const TopoLayout *layout,
                      gint64            cell,
                      gint64            xyz[3])
{
  xyz[0] = cell % layout->extent[0];
  cell /= layout->extent[0];
  xyz[1] = cell % layout->extent[1];
  xyz[2] = cell / layout->extent[1];
}

guint
topo_layout_axis_dims (const TopoLayout *layout,
                       TopoAxis          axis,
                       guint            *dims)
{
  guint n = 0;

  for (guint i = 0; i < layout->ndims; i++)
    if (layout->axis[i] == axis)
      dims[n++] = i;
  return n;
}

char *
topo_layout_to_string (const TopoLayout *layout)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < layout->ndims; i++)
    {
      if (i > 0)
        g_string_append_c (s, ' ');
      if (layout->axis[i] == TOPO_AXIS_SLICE)
        g_string_append_printf (s, "s%" G_GINT64_FORMAT, layout->slice[i]);
      else
        g_string_append_c (s, "xyz"[layout->axis[i]]);
    }
  return g_string_free (s, FALSE);
}

gboolean
topo_layout_from_string (TopoLayout *layout,
                         const char *text)
{
  g_auto (GStrv) words = NULL;
  g_autofree TopoAxis *axis = NULL;
  g_autofree gint64 *slice = NULL;

  if (text == NULL)
    return FALSE;
  words = g_strsplit (text, " ", -1);
  if (g_strv_length (words) != layout->ndims)
    return FALSE;
  axis = g_new (TopoAxis, MAX (layout->ndims, 1));
  slice = g_new (gint64, MAX (layout->ndims, 1));
  for (guint i = 0; i < layout->ndims; i++)
    {
      const char *w = words[i];
      slice[i] = layout->slice[i];
      if (strcmp (w, "x") == 0 || strcmp (w, "y") == 0 || strcmp (w, "z") == 0)
        axis[i] = (TopoAxis) (w[0] - 'x');
      else if (w[0] == 's')
        {
          guint64 v;
          if (!g_ascii_string_to_unsigned (w + 1, 10, 0, (guint64) layout->sizes[i] - 1, &v, NULL))
            return FALSE;
          axis[i] = TOPO_AXIS_SLICE;
          slice[i] = (gint64) v;
        }
      else
        return FALSE;
    }
  memcpy (layout->axis, axis, sizeof (TopoAxis) * layout->ndims);
  memcpy (layout->slice, slice, sizeof (gint64) * layout->ndims);
  topo_layout_update (layout);
  return TRUE;
}
