/* kubus-profile.h — flat region profile and module profile of the call tree.
 *
 * Not analysis: only sums of the per-call-path values that src/cube computes
 * (cube_values_cnodes), regrouped by region and by module, so the numbers agree with the tree. */
#pragma once

#include "cube.h"

G_BEGIN_DECLS

typedef struct
{
  CubeRegion *region;
  GPtrArray  *cnodes;   /* CubeCnode* whose callee is region */
  GPtrArray  *callees;  /* KubusFlatCallee*, owned */
  double      incl;     /* excl + callees */
  double      excl;     /* sum of the exclusive values of cnodes */
} KubusFlatRegion;

typedef struct
{
  CubeRegion *region;   /* the callee */
  GPtrArray  *cnodes;   /* children of the caller's cnodes calling region */
  double      value;    /* sum of their inclusive values */
} KubusFlatCallee;

typedef struct
{
  char      *name;
  GPtrArray *regions;   /* KubusFlatRegion*, not owned */
  double     incl;      /* sum of the regions' exclusive values */
} KubusModule;

typedef struct
{
  GPtrArray *regions;   /* KubusFlatRegion*, owned; regions that appear in the call tree */
  GPtrArray *modules;   /* KubusModule*, owned */
} KubusProfile;

KubusProfile *kubus_profile_new    (CubeReport   *report);
void          kubus_profile_free   (KubusProfile *profile);
/* Recomputes every value from per-call-path inclusive/exclusive values (cnodes->len each). */
void          kubus_profile_update (KubusProfile *profile,
                                    const double *cnode_incl,
                                    const double *cnode_excl);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KubusProfile, kubus_profile_free)

G_END_DECLS
