/* kubus-profile.c — see kubus-profile.h. */
#include <glib/gi18n.h>

#include "kubus-profile.h"

static void
flat_callee_free (gpointer data)
{
  KubusFlatCallee *callee = data;

  g_ptr_array_unref (callee->cnodes);
  g_free (callee);
}

static void
flat_region_free (gpointer data)
{
  KubusFlatRegion *region = data;

  g_ptr_array_unref (region->cnodes);
  g_ptr_array_unref (region->callees);
  g_free (region);
}

static void
module_free (gpointer data)
{
  KubusModule *module = data;

  g_free (module->name);
  g_ptr_array_unref (module->regions);
  g_free (module);
}

KubusProfile *
kubus_profile_new (CubeReport *report)
{
  KubusProfile *profile = g_new0 (KubusProfile, 1);
  g_autofree KubusFlatRegion **by_region = g_new0 (KubusFlatRegion *, report->regions->len + 1);
  g_autoptr (GHashTable) modules = g_hash_table_new (g_str_hash, g_str_equal);

  profile->regions = g_ptr_array_new_with_free_func (flat_region_free);
  profile->modules = g_ptr_array_new_with_free_func (module_free);

  /* Regions in order of first appearance in the call tree (pre-order). */
  for (guint i = 0; i < report->cnodes->len; i++)
    {
      CubeCnode *cnode = g_ptr_array_index (report->cnodes, i);
      KubusFlatRegion *fr;

      if (cnode->callee == NULL)
        continue;
      fr = by_region[cnode->callee->index];
      if (fr == NULL)
        {
          fr = g_new0 (KubusFlatRegion, 1);
          fr->region = cnode->callee;
          fr->cnodes = g_ptr_array_new ();
          fr->callees = g_ptr_array_new_with_free_func (flat_callee_free);
          by_region[cnode->callee->index] = fr;
          g_ptr_array_add (profile->regions, fr);
        }
      g_ptr_array_add (fr->cnodes, cnode);
    }

  for (guint r = 0; r < profile->regions->len; r++)
    {
      KubusFlatRegion *fr = g_ptr_array_index (profile->regions, r);
      g_autoptr (GHashTable) callees = g_hash_table_new (NULL, NULL);
      const char *mod_name;
      KubusModule *module;

      for (guint i = 0; i < fr->cnodes->len; i++)
        {
          CubeCnode *cnode = g_ptr_array_index (fr->cnodes, i);

          for (guint c = 0; cnode->children != NULL && c < cnode->children->len; c++)
            {
              CubeCnode *child = g_ptr_array_index (cnode->children, c);
              KubusFlatCallee *callee = g_hash_table_lookup (callees, child->callee);

              if (callee == NULL)
                {
                  callee = g_new0 (KubusFlatCallee, 1);
                  callee->region = child->callee;
                  callee->cnodes = g_ptr_array_new ();
                  g_hash_table_insert (callees, child->callee, callee);
                  g_ptr_array_add (fr->callees, callee);
                }
              g_ptr_array_add (callee->cnodes, child);
            }
        }

      mod_name = fr->region->mod != NULL && fr->region->mod[0] != '\0' ? fr->region->mod : NULL;
      module = g_hash_table_lookup (modules, mod_name != NULL ? mod_name : "");
      if (module == NULL)
        {
          module = g_new0 (KubusModule, 1);
          module->name = g_strdup (mod_name != NULL ? mod_name : _("(unknown module)"));
          module->regions = g_ptr_array_new ();
          g_hash_table_insert (modules, (gpointer) (mod_name != NULL ? mod_name : ""), module);
          g_ptr_array_add (profile->modules, module);
        }
      g_ptr_array_add (module->regions, fr);
    }

  return profile;
}

void
kubus_profile_free (KubusProfile *profile)
{
  if (profile == NULL)
    return;
  g_ptr_array_unref (profile->modules);
  g_ptr_array_unref (profile->regions);
  g_free (profile);
}

void
kubus_profile_update (KubusProfile *profile,
                      const double *cnode_incl,
                      const double *cnode_excl)
{
  for (guint r = 0; r < profile->regions->len; r++)
    {
      KubusFlatRegion *fr = g_ptr_array_index (profile->regions, r);

      fr->excl = 0;
      for (guint i = 0; i < fr->cnodes->len; i++)
        fr->excl += cnode_excl[((CubeCnode *) g_ptr_array_index (fr->cnodes, i))->index];
      fr->incl = fr->excl;
      for (guint c = 0; c < fr->callees->len; c++)
        {
          KubusFlatCallee *callee = g_ptr_array_index (fr->callees, c);

          callee->value = 0;
          for (guint i = 0; i < callee->cnodes->len; i++)
            callee->value += cnode_incl[((CubeCnode *) g_ptr_array_index (callee->cnodes, i))->index];
          fr->incl += callee->value;
        }
    }
  for (guint m = 0; m < profile->modules->len; m++)
    {
      KubusModule *module = g_ptr_array_index (profile->modules, m);

      module->incl = 0;
      for (guint r = 0; r < module->regions->len; r++)
        module->incl += ((KubusFlatRegion *) g_ptr_array_index (module->regions, r))->excl;
    }
}
