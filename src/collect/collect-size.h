/* collect-size.h: sizes such as "512K", "64M", "1.5G" (binary units), shared by kubus-run,
 * which checks --buffer, and the library, which reads KUBUS_BUFFER. Plain C, no locale: a
 * decimal point is always '.', whatever the program set with setlocale. */
#ifndef KUBUS_COLLECT_SIZE_H
#define KUBUS_COLLECT_SIZE_H

/* Bytes SPEC stands for (digits, an optional fraction, an optional K, M or G, case-insensitive),
 * or -1 when SPEC is not such a size or is zero. */
static inline double
kubus_size_bytes (const char *spec)
{
  double v = 0.0, scale = 1.0;
  const char *p = spec;
  int digits = 0;
  if (p == 0)
    return -1.0;
  for (; *p >= '0' && *p <= '9'; p++, digits++)
    v = v * 10.0 + (*p - '0');
  if (*p == '.')
    for (p++; *p >= '0' && *p <= '9'; p++, digits++)
      v += (*p - '0') * (scale /= 10.0);
  if (digits == 0)
    return -1.0;
  switch (*p)
    {
    case 'k': case 'K': v *= 1024.0; p++; break;
    case 'm': case 'M': v *= 1024.0 * 1024.0; p++; break;
    case 'g': case 'G': v *= 1024.0 * 1024.0 * 1024.0; p++; break;
    default: break;
    }
  return (*p == '\0' && v > 0.0) ? v : -1.0;
}

#endif
