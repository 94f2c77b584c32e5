/* kubus-node.c — see kubus-node.h. */
#include <glib/gi18n.h>

#include "kubus-metric-names.h"
#include "kubus-node.h"

const char *
kubus_node_name (KubusNodeKind kind,
                 gconstpointer node)
{
  switch (kind)
    {
    case KUBUS_NODE_METRIC:
      /* in the user's language where Kubus knows the metric (issue 24, item 12) */
      return kubus_metric_name (node);
    case KUBUS_NODE_CNODE:
      {
        const CubeCnode *c = node;
        return c->callee != NULL && c->callee->name != NULL ? c->callee->name : "?";
      }
    case KUBUS_NODE_SYSNODE:
      {
        const CubeSysNode *s = node;
        return s->name != NULL && s->name[0] ? s->name
               : s->class_name != NULL ? s->class_name : "?";
      }
    case KUBUS_NODE_FLAT_REGION:
    case KUBUS_NODE_MODULE_REGION:
      {
        const KubusFlatRegion *r = node;
        return r->region->name != NULL ? r->region->name : "?";
      }
    case KUBUS_NODE_FLAT_CALLEE:
      {
        const KubusFlatCallee *c = node;
        return c->region != NULL && c->region->name != NULL ? c->region->name : "?";
      }
    case KUBUS_NODE_MODULE:
      return ((const KubusModule *) node)->name;
    default:
      break;
    }
  return "?";
}

static GPtrArray *
copy_array (const GPtrArray *array)
{
  GPtrArray *copy;

  if (array == NULL || array->len == 0)
    return NULL;
  copy = g_ptr_array_sized_new (array->len);
  for (guint i = 0; i < array->len; i++)
    g_ptr_array_add (copy, g_ptr_array_index (array, i));
  return copy;
}

GPtrArray *
kubus_node_children (KubusNodeKind  kind,
                     gconstpointer  node,
                     KubusNodeKind *child_kind)
{
  *child_kind = kind;
  switch (kind)
    {
    case KUBUS_NODE_METRIC:
      {
        const CubeMetric *m = node;
        GPtrArray *children;

        if (m->children == NULL)
          return NULL;
        children = g_ptr_array_new ();
        for (guint i = 0; i < m->children->len; i++)
          {
            CubeMetric *child = g_ptr_array_index (m->children, i);
            if (!child->ghost)
              g_ptr_array_add (children, child);
          }
        if (children->len == 0)
          g_clear_pointer (&children, g_ptr_array_unref);
        return children;
      }
    case KUBUS_NODE_CNODE:
      return copy_array (((const CubeCnode *) node)->children);
    case KUBUS_NODE_SYSNODE:
      return copy_array (((const CubeSysNode *) node)->children);
    case KUBUS_NODE_FLAT_REGION:
      *child_kind = KUBUS_NODE_FLAT_CALLEE;
      return copy_array (((const KubusFlatRegion *) node)->callees);
    case KUBUS_NODE_MODULE:
      *child_kind = KUBUS_NODE_MODULE_REGION;
      return copy_array (((const KubusModule *) node)->regions);
    case KUBUS_NODE_FLAT_CALLEE:
    case KUBUS_NODE_MODULE_REGION:
    default:
      return NULL;
    }
}

guint
kubus_node_depth (KubusNodeKind kind,
                  gconstpointer node)
{
  switch (kind)
    {
    case KUBUS_NODE_METRIC:
      return ((const CubeMetric *) node)->depth;
    case KUBUS_NODE_CNODE:
      return ((const CubeCnode *) node)->depth;
    case KUBUS_NODE_SYSNODE:
      return ((const CubeSysNode *) node)->depth;
    case KUBUS_NODE_FLAT_CALLEE:
    case KUBUS_NODE_MODULE_REGION:
      return 1;
    case KUBUS_NODE_FLAT_REGION:
    case KUBUS_NODE_MODULE:
    default:
      return 0;
    }
}

static void
append_region (GString          *s,
               const CubeRegion *region)
{
  g_autofree char *name = g_markup_escape_text (region->name ? region->name : "?", -1);

  g_string_append_printf (s, "<b>%s</b>\n", name);
  if (region->mod != NULL && region->mod[0])
    {
      g_autofree char *mod = g_markup_escape_text (region->mod, -1);
      if (region->begin_line >= 0)
        g_string_append_printf (s, _("Defined in %s, lines %lld–%lld\n"),
                                mod, (long long) region->begin_line, (long long) region->end_line);
      else
        g_string_append_printf (s, _("Defined in %s\n"), mod);
    }
  if (region->descr != NULL && region->descr[0])
    {
      g_autofree char *d = g_markup_escape_text (region->descr, -1);
      g_string_append_printf (s, "%s\n", d);
    }
}

char *
kubus_node_info_markup (CubeReport   *report,
                        KubusNodeKind kind,
                        gconstpointer node)
{
  GString *s = g_string_new (NULL);

  switch (kind)
    {
    case KUBUS_NODE_METRIC:
      {
        const CubeMetric *m = node;
        g_autofree char *disp = g_markup_escape_text (kubus_node_name (kind, node), -1);
        g_autofree char *uniq = g_markup_escape_text (m->uniq_name ? m->uniq_name : "", -1);
        g_autofree char *uom = g_markup_escape_text (m->uom ? m->uom : "", -1);
        g_autofree char *url = cube_metric_expand_url (report, m, 0);

        g_string_append_printf (s, "<b>%s</b> (<tt>%s</tt>)\n", disp, uniq);
        g_string_append_printf (s, _("Unit: %s, data type: %s, kind: %s\n"), uom,
                                m->dtype_name ? m->dtype_name : cube_dtype_to_string (m->dtype),
                                cube_metric_kind_to_string (m->kind));
        if (m->descr != NULL && m->descr[0])
          {
            g_autofree char *d = g_markup_escape_text (kubus_metric_description (m), -1);
            g_string_append_printf (s, "%s\n", d);
          }
        if (m->cubepl != NULL)
          {
            g_autofree char *e = g_markup_escape_text (m->cubepl, -1);
            g_string_append_printf (s, _("Derived: <tt>%s</tt>\n"), e);
          }
        if (url != NULL && url[0])
          {
            g_autofree char *u = g_markup_escape_text (url, -1);
            /* The address in full too: it can be read and copied without a browser. */
            g_string_append_printf (s, "<a href=\"%s\">%s</a>\n<small>%s</small>\n", u, _("Documentation"), u);
          }
        break;
      }
    case KUBUS_NODE_CNODE:
      {
        const CubeCnode *c = node;
        g_autoptr (GPtrArray) path = g_ptr_array_new ();

        for (const CubeCnode *p = c; p != NULL; p = p->parent)
          g_ptr_array_insert (path, 0, (gpointer) p);
        if (c->callee != NULL)
          append_region (s, c->callee);
        g_string_append (s, _("Call path:\n"));
        for (guint i = 0; i < path->len; i++)
          {
            const CubeCnode *p = g_ptr_array_index (path, i);
            g_autofree char *name = g_markup_escape_text (kubus_node_name (KUBUS_NODE_CNODE, p), -1);
            const char *mod = p->mod != NULL && p->mod[0] ? p->mod
                              : p->callee != NULL ? p->callee->mod : NULL;
            g_autofree char *emod = g_markup_escape_text (mod ? mod : "", -1);

            g_string_append_printf (s, "%*s%s", (int) (2 * i), "", name);
            if (p->line >= 0)
              g_string_append_printf (s, "  <small>%s:%" G_GINT64_FORMAT "</small>", emod, p->line);
            g_string_append_c (s, '\n');
          }
        for (guint i = 0; c->params != NULL && i < c->params->len; i++)
          {
            const CubeAttr *a = g_ptr_array_index (c->params, i);
            g_autofree char *k = g_markup_escape_text (a->key ? a->key : "", -1);
            g_autofree char *v = g_markup_escape_text (a->value ? a->value : "", -1);
            g_string_append_printf (s, _("Parameter %s = %s\n"), k, v);
          }
        break;
      }
    case KUBUS_NODE_SYSNODE:
      {
        const CubeSysNode *n = node;
        g_autofree char *name = g_markup_escape_text (kubus_node_name (kind, node), -1);
        static const char *const kinds[] = { N_("Machine"), N_("Node"), N_("Process"),
                                             N_("Thread"), N_("System tree node") };

        g_string_append_printf (s, "<b>%s</b>\n%s", name,
                                n->kind <= CUBE_SYS_TREENODE ? _(kinds[n->kind]) : "");
        if (n->class_name != NULL && n->class_name[0])
          {
            g_autofree char *c = g_markup_escape_text (n->class_name, -1);
            g_string_append_printf (s, " (%s)", c);
          }
        g_string_append_c (s, '\n');
        if (n->kind == CUBE_SYS_THREAD)
          {
            /* A thread's own rank is its number inside the process; the MPI rank is what an
             * analyst looks for, so name the process too. */
            const CubeSysNode *p = n->parent;
            while (p != NULL && p->kind != CUBE_SYS_PROCESS)
              p = p->parent;
            if (p != NULL && p->rank >= 0)
              g_string_append_printf (s, _("MPI rank %lld\n"), (long long) p->rank);
            if (n->rank >= 0)
              g_string_append_printf (s, _("Thread %lld\n"), (long long) n->rank);
          }
        else if (n->kind == CUBE_SYS_PROCESS && n->rank >= 0)
          g_string_append_printf (s, _("MPI rank %lld\n"), (long long) n->rank);
        else if (n->rank >= 0)
          g_string_append_printf (s, _("Rank %lld\n"), (long long) n->rank);
        if (n->location >= 0)
          g_string_append_printf (s, _("Location %d\n"), n->location);
        if (n->descr != NULL && n->descr[0])
          {
            g_autofree char *d = g_markup_escape_text (n->descr, -1);
            g_string_append_printf (s, "%s\n", d);
          }
        break;
      }
    case KUBUS_NODE_FLAT_REGION:
    case KUBUS_NODE_MODULE_REGION:
      {
        const KubusFlatRegion *r = node;
        append_region (s, r->region);
        g_string_append_printf (s, ngettext ("Called from %u call path\n",
                                             "Called from %u call paths\n", r->cnodes->len),
                                r->cnodes->len);
        break;
      }
    case KUBUS_NODE_FLAT_CALLEE:
      {
        const KubusFlatCallee *c = node;
        if (c->region != NULL)
          append_region (s, c->region);
        g_string_append_printf (s, ngettext ("%u call path\n", "%u call paths\n", c->cnodes->len),
                                c->cnodes->len);
        break;
      }
    case KUBUS_NODE_MODULE:
      {
        const KubusModule *m = node;
        g_autofree char *name = g_markup_escape_text (m->name, -1);
        g_string_append_printf (s, _("<b>Module %s</b>\n"), name);
        g_string_append_printf (s, ngettext ("%u region\n", "%u regions\n", m->regions->len),
                                m->regions->len);
        break;
      }
    default:
      break;
    }
  if (s->len > 0 && s->str[s->len - 1] == '\n')
    g_string_truncate (s, s->len - 1);
  return g_string_free (s, FALSE);
}
