/* cube-path.h — call paths named by their region names, "main/solve/MPI_Recv": what a user
 * types on a command line (kubus --cnode) and reads in exports. */
#pragma once

#include "cube.h"

G_BEGIN_DECLS

/* The call path whose region names from a root down are @path's "/"-separated parts (a region
 * name may itself contain "/": every split is tried). The first such call path in depth-first
 * order, or NULL. Borrowed. */
CubeCnode *cube_report_find_cnode_path (const CubeReport *report,
                                        const char       *path);
/* The same with another separator: kubus-sim's summary writes "main > solve > MPI_Recv". */
CubeCnode *cube_report_find_cnode_path_sep (const CubeReport *report,
                                            const char       *path,
                                            const char       *separator);
/* "main/solve/MPI_Recv" for @cnode (newly allocated). */
char      *cube_cnode_path             (const CubeCnode  *cnode);

G_END_DECLS
