/* collect-symbols.h: address -> function name (see collect-symbols.c). */
#pragma once

#include <stdint.h>

#define KUBUS_SYM_INTERNAL __attribute__ ((visibility ("hidden")))

void kubus_symbols_load (void) KUBUS_SYM_INTERNAL;
/* Name of the function at or around addr, or NULL; valid until exit. */
const char *kubus_symbols_lookup (uintptr_t addr) KUBUS_SYM_INTERNAL;
