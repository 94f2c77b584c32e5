/* kubus/region.h: mark regions of your own code in a Kubus trace.
 *
 * kubus_region_begin ("solve") … kubus_region_end ("solve") records an
 * Enter/Leave pair of a region named "solve" on the calling rank.  Regions
 * must nest properly.  A region opened before MPI_Init keeps its enter time,
 * one still open at MPI_Finalize is closed there.  Only the thread that called
 * MPI_Init records; other calls while Kubus is not recording do nothing. */
#pragma once

#ifdef __cplusplus
extern "C"
{
#endif

  __attribute__ ((visibility ("default"))) void kubus_region_begin (const char *name);

  __attribute__ ((visibility ("default"))) void kubus_region_end (const char *name);

#ifdef __cplusplus
}
#endif
