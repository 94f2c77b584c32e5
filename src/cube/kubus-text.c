/* kubus-text.c — names as valid UTF-8, XML, JSON and CSV text (kubus-text.h).  Plain C11: also
 * compiled into the collector. */
#include "kubus-text.h"

#include <stdlib.h>
#include <string.h>

static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */

void
kubus_text_to_file (void *ctx, const char *p, size_t n)
{
  fwrite (p, 1, n, (FILE *)ctx);
}

size_t
kubus_utf8_char (const char *str, size_t len, uint32_t *cp)
{
  const unsigned char *s = (const unsigned char *)str;
  uint32_t             c, min;
  size_t               n;

  if (len == 0)
    return 0;
  if (s[0] < 0x80)
    {
      if (cp != NULL)
        *cp = s[0];
      return 1;
    }
  if (s[0] >= 0xC2 && s[0] <= 0xDF)
    n = 2, c = s[0] & 0x1F, min = 0x80;
  else if (s[0] >= 0xE0 && s[0] <= 0xEF)
    n = 3, c = s[0] & 0x0F, min = 0x800;
  else if (s[0] >= 0xF0 && s[0] <= 0xF4)
    n = 4, c = s[0] & 0x07, min = 0x10000;
  else
    return 0; /* continuation byte, C0/C1 (always overlong), F5..FF */
  if (len < n)
    return 0;
  for (size_t i = 1; i < n; i++)
    {
      if ((s[i] & 0xC0) != 0x80)
        return 0;
      c = (c << 6) | (s[i] & 0x3F);
    }
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
    return 0;
  if (cp != NULL)
    *cp = c;
  return n;
}

int
kubus_utf8_valid (const char *s, size_t len)
{
  size_t i = 0;
  while (i < len)
    {
      size_t n = kubus_utf8_char (s + i, len - i, NULL);
      if (n == 0)
        return 0;
      i += n;
    }
  return 1;
}

char *
kubus_text_utf8 (const char *s)
{
  size_t len = strlen (s);
  char  *out = malloc (3 * len + 1); /* every byte at worst becomes three */
  size_t o = 0;

  if (out == NULL)
    return NULL;
  for (size_t i = 0; i < len;)
    {
      size_t n = kubus_utf8_char (s + i, len - i, NULL);
      if (n == 0)
        {
          memcpy (out + o, replacement, 3);
          o += 3;
          i++;
        }
      else
        {
          memcpy (out + o, s + i, n);
          o += n;
          i += n;
        }
    }
  out[o] = '\0';
  return out;
}

size_t
kubus_text_cut (const char *s, size_t max)
{
  size_t len = strnlen (s, max);
  size_t i = 0;

  /* walk whole characters; a byte that begins no character is a character of its own (it
   * becomes U+FFFD when written), so cutting after it splits nothing */
  while (i < len)
    {
      size_t n = kubus_utf8_char (s + i, strnlen (s + i, 4), NULL);
      if (n == 0)
        n = 1;
      if (i + n > len)
        break;
      i += n;
    }
  return i;
}

char *
kubus_text_short_function (const char *s)
{
  size_t len = strlen (s), close = len, open;
  int depth = 0;
  char *out;

  /* the last ')' followed only by qualifiers (" const", " &&", " noexcept") */
  while (close > 0 && s[close - 1] != ')')
    {
      char c = s[close - 1];
      if (!((c >= 'a' && c <= 'z') || c == ' ' || c == '&'))
        return strdup (s);
      close--;
    }
  if (close == 0)
    return strdup (s);
  close--; /* at the ')' */
  for (open = close + 1; open-- > 0;)
    {
      if (s[open] == ')')
        depth++;
      else if (s[open] == '(' && --depth == 0)
        break;
    }
  if (depth != 0 || open + 1 == close)
    return strdup (s);
  out = malloc (len - (close - open - 1) + sizeof "\xE2\x80\xA6");
  if (!out)
    return NULL;
  memcpy (out, s, open + 1);
  memcpy (out + open + 1, "\xE2\x80\xA6", 3); /* … */
  memcpy (out + open + 4, s + close, len - close + 1);
  return out;
}

/* The common walk: runs of bytes that pass unchanged go out in one piece; @special returns the
 * text to write instead of character @c (NULL: keep it), in @buf when it builds one. */
typedef const char *(*Special) (uint32_t c, int how, char buf[16]);

static void
walk (const char *s, int how, Special special, KubusTextSink put, void *ctx)
{
  size_t len = strlen (s), run = 0, i = 0;
  char   buf[16];

  while (i < len)
    {
      uint32_t    c;
      size_t      n = kubus_utf8_char (s + i, len - i, &c);
      const char *instead = n == 0 ? replacement : special (c, how, buf);

      if (instead == NULL)
        {
          i += n;
          continue;
        }
      if (i > run)
        put (ctx, s + run, i - run);
      put (ctx, instead, strlen (instead));
      i += n == 0 ? 1 : n;
      run = i;
    }
  if (i > run)
    put (ctx, s + run, i - run);
}

static const char *
xml_special (uint32_t c, int how, char buf[16])
{
  (void)buf;
  switch (c)
    {
    case '&':
      return "&amp;";
    case '<':
      return "&lt;";
    case '>':
      return "&gt;";
    case '"':
      return "&quot;";
    case '\'':
      return "&apos;";
    case '\t':
      return how == KUBUS_TEXT_XML_ATTR ? "&#9;" : NULL;
    case '\n':
      return how == KUBUS_TEXT_XML_ATTR ? "&#10;" : NULL;
    case '\r':
      return "&#13;"; /* a parser turns a bare CR into LF */
    default:
      return c < 0x20 || c == 0xFFFE || c == 0xFFFF ? replacement : NULL;
    }
}

void
kubus_text_xml (const char *s, int how, KubusTextSink put, void *ctx)
{
  if (s != NULL)
    walk (s, how, xml_special, put, ctx);
}

static const char *
json_special (uint32_t c, int how, char buf[16])
{
  (void)how;
  switch (c)
    {
    case '"':
      return "\\\"";
    case '\\':
      return "\\\\";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    default:
      if (c >= 0x20)
        return NULL;
      snprintf (buf, 16, "\\u%04x", (unsigned)c);
      return buf;
    }
}

void
kubus_text_json (const char *s, KubusTextSink put, void *ctx)
{
  put (ctx, "\"", 1);
  if (s != NULL)
    walk (s, 0, json_special, put, ctx);
  put (ctx, "\"", 1);
}

static const char *
csv_special (uint32_t c, int how, char buf[16])
{
  (void)how;
  (void)buf;
  return c == '"' ? "\"\"" : NULL;
}

void
kubus_text_csv (const char *s, KubusTextSink put, void *ctx)
{
  if (s == NULL)
    return;
  if (strpbrk (s, ",\"\r\n") == NULL)
    {
      walk (s, 0, csv_special, put, ctx);
      return;
    }
  put (ctx, "\"", 1);
  walk (s, 0, csv_special, put, ctx);
  put (ctx, "\"", 1);
}
