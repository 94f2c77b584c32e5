/* cpu-metric.h: how a reader recognises the collector's CPU samples and host properties
 * (collect-cputime.c writes them; trace-defs.c and kct-compress.c read them). Plain C. */
#ifndef KUBUS_CPU_METRIC_H
#define KUBUS_CPU_METRIC_H

#include <otf2/otf2.h>
#include <stdint.h>
#include <string.h>

/* the members of the CPU metric */
enum { CPU_MEMBER_NONE, CPU_MEMBER_TIME, CPU_MEMBER_WAIT, CPU_MEMBER_ID };

/* which member of the CPU metric a metric member definition is: KUBUS_CPU_TIME and
 * KUBUS_CPU_WAIT (accumulated UINT64 ns), KUBUS_CPU_ID (a UINT64 point) */
static inline int
cpu_metric_member (const char     *name,
                   OTF2_MetricMode mode,
                   OTF2_Type       type,
                   int64_t         exponent)
{
  if (type != OTF2_TYPE_UINT64)
    return CPU_MEMBER_NONE;
  if (strcmp (name, "KUBUS_CPU_ID") == 0)
    return exponent == 0 && mode == OTF2_METRIC_ABSOLUTE_POINT ? CPU_MEMBER_ID : CPU_MEMBER_NONE;
  if (exponent != -9 || mode != OTF2_METRIC_ACCUMULATED_START)
    return CPU_MEMBER_NONE;
  return strcmp (name, "KUBUS_CPU_TIME") == 0 ? CPU_MEMBER_TIME
         : strcmp (name, "KUBUS_CPU_WAIT") == 0 ? CPU_MEMBER_WAIT
                                                : CPU_MEMBER_NONE;
}

/* A metric class of @n members of the kinds @kinds (cpu_metric_member): 0 if it is not the CPU
 * metric ([KUBUS_CPU_TIME], [..., KUBUS_CPU_WAIT] or [..., KUBUS_CPU_ID]), else 1, + 2 if its
 * second member is KUBUS_CPU_WAIT, + 4 if its third is KUBUS_CPU_ID */
static inline int
cpu_metric_class (const int *kinds,
                  int        n)
{
  if (n < 1 || n > 3 || kinds[0] != CPU_MEMBER_TIME)
    return 0;
  return 1 | (n >= 2 && kinds[1] == CPU_MEMBER_WAIT ? 2 : 0) | (n == 3 && kinds[2] == CPU_MEMBER_ID ? 4 : 0);
}

/* which host property a system tree node property is: 1 KUBUS::CPUS (UINT32),
 * 2 KUBUS::OTHER_CPU_NS, 3 KUBUS::OTHER_WALL_NS (UINT64), 0 none */
static inline int
cpu_host_property (const char *name,
                   OTF2_Type   type)
{
  return type == OTF2_TYPE_UINT32 && strcmp (name, "KUBUS::CPUS") == 0              ? 1
         : type == OTF2_TYPE_UINT64 && strcmp (name, "KUBUS::OTHER_CPU_NS") == 0  ? 2
         : type == OTF2_TYPE_UINT64 && strcmp (name, "KUBUS::OTHER_WALL_NS") == 0 ? 3
                                                                                  : 0;
}

#endif
