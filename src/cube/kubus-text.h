/* kubus-text.h — names as valid text in every file Kubus writes, whatever bytes they hold.
 *
 * Region names, file paths, host names and program arguments come from the program and the
 * file system, not from us: any bytes but NUL.  Every writer (CUBE 3 XML, the .cubex anchor,
 * OTF2 strings, JSON, CSV) passes them through this one place:
 *   - a byte that does not begin a well-formed UTF-8 sequence (stray continuation byte,
 *     overlong form, surrogate, beyond U+10FFFF, a sequence cut short) becomes U+FFFD, one
 *     U+FFFD per byte, so the rest of the name survives;
 *   - XML: characters XML 1.0 forbids even as references (C0 controls other than tab, line
 *     feed and carriage return; U+FFFE, U+FFFF) become U+FFFD as well; & < > " ' are escaped,
 *     and in attribute values tab, line feed and carriage return are written as character
 *     references so that the parser's normalisation does not turn them into spaces;
 *   - JSON: controls are written as \uXXXX (JSON can hold every character);
 *   - CSV: a field holding a comma, a quote or a line break is quoted (quotes doubled).
 *
 * Plain C11 without GLib: the collector (which lives inside someone else's program) compiles
 * this file too, so the profile it writes and the reports the GLib tools write replace the
 * same bytes the same way. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Receives @n bytes at @p of the output. */
typedef void (*KubusTextSink) (void *ctx, const char *p, size_t n);

/* A sink that writes to the FILE * @ctx. */
void kubus_text_to_file (void *ctx, const char *p, size_t n);

/* The length (1 to 4) of the well-formed UTF-8 sequence at @s (@len bytes readable) and its
 * code point in @cp (may be NULL); 0 when @s does not begin with one. */
size_t kubus_utf8_char (const char *s, size_t len, uint32_t *cp);

/* Whether the @len bytes at @s are well-formed UTF-8. */
int kubus_utf8_valid (const char *s, size_t len);

/* A copy of @s as well-formed UTF-8 (malloc; NULL only when out of memory): bytes that do not
 * begin a well-formed sequence become U+FFFD, every other character (controls too) is kept. */
char *kubus_text_utf8 (const char *s);

/* The length of the longest prefix of @s (its first @max bytes at most) that does not end
 * inside a UTF-8 sequence: where a name must be shortened, it loses whole characters. */
size_t kubus_text_cut (const char *s, size_t max);

/* A copy of the function name @s (malloc; NULL only when out of memory) with the contents of
 * its parameter list left out, "ns::f(…) const" for "ns::f(int, std::vector<int> const&) const":
 * for lines people read, where C++ names run to hundreds of characters. The parameter list is
 * the parenthesized group that the last ')' closes, where only letters, '&' and spaces follow;
 * a name without one, or with an empty one, is copied as it is. */
char *kubus_text_short_function (const char *s);

enum
{
  KUBUS_TEXT_XML_TEXT = 0, /* character data */
  KUBUS_TEXT_XML_ATTR = 1, /* an attribute value (in double or single quotes) */
};

/* @s as XML 1.0 character data or attribute value (@how), see above. */
void kubus_text_xml (const char *s, int how, KubusTextSink put, void *ctx);

/* @s as a JSON string, the quotes included. */
void kubus_text_json (const char *s, KubusTextSink put, void *ctx);

/* @s as one CSV field (RFC 4180), quoted only when it has to be. */
void kubus_text_csv (const char *s, KubusTextSink put, void *ctx);

#ifdef __cplusplus
}
#endif
