/* kubus-text-gstring.h — kubus-text.h for GLib code: the same escaping, appended to a GString. */
#pragma once

#include "kubus-text.h"

#include <glib.h>

static inline void
kubus_text_to_gstring (void *ctx, const char *p, size_t n)
{
  g_string_append_len ((GString *)ctx, p, (gssize)n);
}

/* @v as a JSON string (quotes included) at the end of @s. */
static inline void
kubus_text_append_json (GString *s, const char *v)
{
  kubus_text_json (v, kubus_text_to_gstring, s);
}

/* @v as one CSV field at the end of @s. */
static inline void
kubus_text_append_csv (GString *s, const char *v)
{
  kubus_text_csv (v, kubus_text_to_gstring, s);
}

/* @v as XML character data or attribute value (KUBUS_TEXT_XML_*) at the end of @s. */
static inline void
kubus_text_append_xml (GString *s, const char *v, int how)
{
  kubus_text_xml (v, how, kubus_text_to_gstring, s);
}
