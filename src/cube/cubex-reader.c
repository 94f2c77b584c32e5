/* cubex-reader.c — Cube 4 .cubex archives: a tar walker over the file, anchor.xml through the
 * XML reader, and per-metric index/data members decoded lazily (or eagerly).
 *
 * Everything read from the file is untrusted: every size and offset is checked against the
 * file before use, and arithmetic on sizes goes through g_uint64_checked_*. The file is read
 * with pread into the buffers that need the bytes (a row is read straight into the doubles it
 * decodes to), never mapped: a mapping makes the kernel count page-cache folios around every
 * touched header and row as the process's memory (29 MB resident to open a 100 MB archive,
 * docs/decisions/2026-11-28-cube-lazy-and-algebra.md). A lazy report keeps the file open until
 * it is freed.
 *
 * Semantics (docs/decisions/cubex-semantics.md): INCLUSIVE / PREDERIVED_INCLUSIVE metrics are
 * stored inclusive along the call tree; along the metric tree Cube 4 stores inclusive values,
 * like CUBE 3, so stored_metric_exclusive stays FALSE. */
#include "cube-private.h"

#include <glib/gi18n.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define TAR_BLOCK 512
/* Tar extension records (PAX headers, GNU long names) larger than this are not believed. */
#define TAR_EXTENSION_MAX (1u << 20)
/* Bulk reads (eager load, whole-metric scans) fetch about this many bytes of rows at once. */
#define BULK_BYTES (1u << 20)

/* ---- the archive --------------------------------------------------------------------------- */

typedef struct
{
  guint64 offset; /* of the member's contents in the file */
  guint64 size;
} TarMember;

typedef struct
{
  gatomicrefcount ref;
  char           *path;
  int             fd;
  guint64         size;
  GHashTable     *members; /* char* name → TarMember* */
  gboolean        saw_end; /* the all-zero end-of-archive block was found */
} Cubex;

static Cubex *
cubex_ref (Cubex *cx)
{
  g_atomic_ref_count_inc (&cx->ref);
  return cx;
}

static void
cubex_unref (gpointer data)
{
  Cubex *cx = data;

  if (cx == NULL || !g_atomic_ref_count_dec (&cx->ref))
    return;
  g_clear_pointer (&cx->members, g_hash_table_unref);
  if (cx->fd >= 0)
    close (cx->fd);
  g_free (cx->path);
  g_free (cx);
}

/* Reads exactly @len bytes at @offset. The sizes were checked against the file when it was
 * opened, so a short read means the file changed (or the disk failed) since: an error naming
 * @what. */
static gboolean
cubex_pread (Cubex *cx, guint64 offset, void *buf, gsize len, const char *what, GError **error)
{
  guint8 *p = buf;

  while (len > 0)
    {
      ssize_t n = pread (cx->fd, p, MIN (len, (gsize) G_MAXINT32), (off_t) offset);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          if (n < 0)
            cube_set_error (error, CUBE_ERROR_IO, cx->path, _("cannot read %s: %s"), what,
                            g_strerror (errno));
          else
            cube_set_error (error, CUBE_ERROR_IO, cx->path,
                            _("cannot read %s: the file has become shorter since it was opened"),
                            what);
          return FALSE;
        }
      p += n;
      len -= (gsize) n;
      offset += (guint64) n;
    }
  return TRUE;
}

/* Parses a tar numeric field: octal ASCII (leading spaces/NULs, terminated by space or NUL) or
 * GNU base-256 (first byte 0x80, big-endian binary) for large values. */
static gboolean
tar_number (const guint8 *field, gsize len, guint64 *out)
{
  guint64 v = 0;
  gsize   i = 0;

  if (len > 0 && (field[0] & 0x80))
    {
      if (field[0] != 0x80)
        return FALSE; /* negative base-256 values make no sense for sizes */
      for (i = 1; i < len; i++)
        {
          if (v >> 56)
            return FALSE;
          v = (v << 8) | field[i];
        }
      *out = v;
      return TRUE;
    }

  while (i < len && (field[i] == ' ' || field[i] == '\0'))
    i++;
  if (i == len)
    {
      *out = 0;
      return TRUE;
    }
  for (; i < len && field[i] >= '0' && field[i] <= '7'; i++)
    {
      if (v >> 60)
        return FALSE;
      v = v * 8 + (guint64) (field[i] - '0');
    }
  if (i < len && field[i] != ' ' && field[i] != '\0')
    return FALSE;
  *out = v;
  return TRUE;
}

static gboolean
block_is_zero (const guint8 *block)
{
  for (guint i = 0; i < TAR_BLOCK; i++)
    if (block[i] != 0)
      return FALSE;
  return TRUE;
}

static char *
tar_string (const guint8 *field, gsize len)
{
  gsize n = 0;

  while (n < len && field[n] != '\0')
    n++;
  return g_strndup ((const char *) field, n);
}

/* Reads the PAX records "LEN key=value\n" that matter to us: size and path. */
static gboolean
pax_parse (const guint8 *p, gsize len, guint64 *size, gboolean *has_size, char **path)
{
  gsize pos = 0;

  while (pos < len)
    {
      guint64       reclen = 0;
      gsize         i = pos;
      const guint8 *rec;
      const guint8 *eq;

      if (p[pos] == '\0')
        break; /* padding */
      while (i < len && p[i] >= '0' && p[i] <= '9')
        {
          if (reclen > G_MAXUINT32)
            return FALSE;
          reclen = reclen * 10 + (guint64) (p[i] - '0');
          i++;
        }
      if (i == pos || i >= len || p[i] != ' ' || reclen > len - pos || reclen < (i - pos) + 3)
        return FALSE;
      rec = p + i + 1;
      /* key=value\n occupies [i + 1, pos + reclen) */
      if (p[pos + reclen - 1] != '\n')
        return FALSE;
      eq = memchr (rec, '=', (gsize) (p + pos + reclen - 1 - rec));
      if (eq == NULL)
        return FALSE;
      {
        gsize       klen = (gsize) (eq - rec);
        const char *val = (const char *) eq + 1;
        gsize       vlen = (gsize) (p + pos + reclen - 1 - (eq + 1));

        if (klen == 4 && memcmp (rec, "size", 4) == 0)
          {
            guint64 v = 0;

            if (vlen == 0 || vlen > 20)
              return FALSE;
            for (gsize k = 0; k < vlen; k++)
              {
                if (val[k] < '0' || val[k] > '9')
                  return FALSE;
                if (v > (G_MAXUINT64 - 9) / 10)
                  return FALSE;
                v = v * 10 + (guint64) (val[k] - '0');
              }
            *size = v;
            *has_size = TRUE;
          }
        else if (klen == 4 && memcmp (rec, "path", 4) == 0)
          {
            g_free (*path);
            *path = g_strndup (val, vlen);
          }
      }
      pos += reclen;
    }
  return TRUE;
}

static const char *
strip_dot_slash (const char *name)
{
  while (name[0] == '.' && name[1] == '/')
    name += 2;
  return name;
}

/* Reads the contents of a tar extension record (PAX header, GNU long name) at @offset. */
static guint8 *
tar_extension (Cubex *cx, guint64 offset, guint64 size, guint64 header_pos, GError **error)
{
  g_autofree guint8 *buf = NULL;
  g_autofree char   *what = NULL;

  if (size > TAR_EXTENSION_MAX)
    {
      cube_set_error (error, CUBE_ERROR_FORMAT, cx->path,
                      _("not a valid tar archive: the extended header at byte %llu claims %llu "
                        "bytes"),
                      (unsigned long long) header_pos, (unsigned long long) size);
      return NULL;
    }
  buf = g_malloc ((gsize) size + 1);
  what = g_strdup_printf (_("the tar header at byte %llu"), (unsigned long long) header_pos);
  if (!cubex_pread (cx, offset, buf, (gsize) size, what, error))
    return NULL;
  buf[size] = '\0';
  return g_steal_pointer (&buf);
}

/* Walks the tar headers and records where each regular member's contents are. Bad header
 * checksums are tolerated on purpose: a widely used writer produces them. */
static gboolean
tar_index (Cubex *cx, GError **error)
{
  guint64   pos = 0;
  guint64   pax_size = 0;
  gboolean  pax_has_size = FALSE;
  g_autofree char *pax_path = NULL;
  g_autofree char *long_name = NULL;
  guint     n_headers = 0;
  guint8    h[TAR_BLOCK];

  cx->members = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  while (pos + TAR_BLOCK <= cx->size)
    {
      guint64 size = 0;
      guint64 padded;
      char    type;
      guint64 data_off = pos + TAR_BLOCK;

      if (!cubex_pread (cx, pos, h, TAR_BLOCK, _("a tar header"), error))
        return FALSE;
      if (block_is_zero (h))
        {
          cx->saw_end = TRUE; /* end-of-archive marker */
          break;
        }
      n_headers++;

      if (!tar_number (h + 124, 12, &size))
        {
          cube_set_error (error, CUBE_ERROR_FORMAT, cx->path,
                          _("not a valid tar archive: unreadable size field in the header at "
                            "byte %llu"),
                          (unsigned long long) pos);
          return FALSE;
        }
      type = (char) h[156];
      if (pax_has_size && type != 'x' && type != 'g' && type != 'L' && type != 'K')
        size = pax_size;

      if (size > cx->size - data_off)
        {
          g_autofree char *name = tar_string (h, 100);

          cube_set_error (error, CUBE_ERROR_FORMAT, cx->path,
                          _("truncated archive: member “%s” needs %llu"
                            " bytes but only %llu remain"),
                          name, (unsigned long long) size,
                          (unsigned long long) (cx->size - data_off));
          return FALSE;
        }
      padded = (size + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;

      switch (type)
        {
        case 'x': /* PAX extended header for the next member */
          {
            g_autofree guint8 *rec = NULL;

            pax_has_size = FALSE;
            g_clear_pointer (&pax_path, g_free);
            rec = tar_extension (cx, data_off, size, pos, error);
            if (rec == NULL)
              return FALSE;
            if (!pax_parse (rec, (gsize) size, &pax_size, &pax_has_size, &pax_path))
              {
                cube_set_error (error, CUBE_ERROR_FORMAT, cx->path,
                                _("malformed PAX extended header at byte %llu"),
                                (unsigned long long) pos);
                return FALSE;
              }
          }
          break;

        case 'L': /* GNU long name for the next member */
          {
            g_autofree guint8 *rec = tar_extension (cx, data_off, size, pos, error);

            if (rec == NULL)
              return FALSE;
            g_free (long_name);
            long_name = tar_string (rec, (gsize) size);
          }
          break;

        case '\0':
        case '0':
        case '7':
          {
            g_autofree char *name = NULL;
            TarMember       *m;

            if (pax_path != NULL)
              name = g_steal_pointer (&pax_path);
            else if (long_name != NULL)
              name = g_steal_pointer (&long_name);
            else
              {
                g_autofree char *base = tar_string (h, 100);
                g_autofree char *prefix = NULL;

                if (memcmp (h + 257, "ustar", 5) == 0)
                  prefix = tar_string (h + 345, 155);
                if (prefix != NULL && prefix[0] != '\0')
                  name = g_strconcat (prefix, "/", base, NULL);
                else
                  name = g_steal_pointer (&base);
              }
            m = g_new (TarMember, 1);
            m->offset = data_off;
            m->size = size;
            /* Later members of the same name replace earlier ones, as tar extracts them. */
            g_hash_table_replace (cx->members, g_strdup (strip_dot_slash (name)), m);
          }
          /* fall through */
        default: /* directories, links, global headers, …: not ours */
          pax_has_size = FALSE;
          g_clear_pointer (&pax_path, g_free);
          if (type != 'L')
            g_clear_pointer (&long_name, g_free);
          break;
        }

      if (padded > cx->size - data_off)
        padded = cx->size - data_off; /* the last member's padding may be cut off */
      pos = data_off + padded;
    }

  if (n_headers == 0)
    {
      cube_set_error (error, CUBE_ERROR_FORMAT, cx->path, _("empty tar archive"));
      return FALSE;
    }
  return TRUE;
}

static const TarMember *
cubex_member (Cubex *cx, const char *name)
{
  return g_hash_table_lookup (cx->members, name);
}

/* ---- per-metric storage -------------------------------------------------------------------- */

typedef struct
{
  Cubex        *cx;
  char         *data_name;    /* "<id>.data", for messages */
  CubeDtype     dtype;
  guint         elem;         /* bytes per value */
  gboolean      big_endian;
  guint         n_locations;
  gsize         row_bytes;
  guint         n_cnodes;
  guint32      *row_of_cnode; /* cnode index → data row, G_MAXUINT32 = absent */
  guint32      *cnode_of_row; /* data row → cnode index */
  guint64       n_rows;       /* rows in the data member (N from the index) */
  guint64       payload;      /* file offset: uncompressed: first value; compressed: first zlib
                                 stream */
  guint64       payload_len;
  gboolean      compressed;
  guint8       *ztable;       /* compressed: n_rows × 3 uint64, as stored */
  /* compressed: the last chunk inflated (a chunk may hold several rows) */
  guint64       zchunk;       /* G_MAXUINT64: none */
  guint8       *zbuf;
} CubexMetric;

static void
cubex_metric_free (gpointer data)
{
  CubexMetric *cm = data;

  cubex_unref (cm->cx);
  g_free (cm->data_name);
  g_free (cm->row_of_cnode);
  g_free (cm->cnode_of_row);
  g_free (cm->ztable);
  g_free (cm->zbuf);
  g_free (cm);
}

static guint
dtype_size (CubeDtype dtype)
{
  switch (dtype)
    {
    case CUBE_DTYPE_DOUBLE:
    case CUBE_DTYPE_MINDOUBLE:
    case CUBE_DTYPE_MAXDOUBLE:
    case CUBE_DTYPE_INT64:
    case CUBE_DTYPE_UINT64:
      return 8;
    case CUBE_DTYPE_INT32:
    case CUBE_DTYPE_UINT32:
      return 4;
    case CUBE_DTYPE_INT16:
    case CUBE_DTYPE_UINT16:
      return 2;
    case CUBE_DTYPE_INT8:
    case CUBE_DTYPE_UINT8:
      return 1;
    case CUBE_DTYPE_UNSUPPORTED:
    default:
      return 0;
    }
}

static guint32
read_u32 (const guint8 *p, gboolean be)
{
  guint32 v;

  memcpy (&v, p, 4);
  return be ? GUINT32_FROM_BE (v) : GUINT32_FROM_LE (v);
}

static guint64
read_u64 (const guint8 *p, gboolean be)
{
  guint64 v;

  memcpy (&v, p, 8);
  return be ? GUINT64_FROM_BE (v) : GUINT64_FROM_LE (v);
}


/* Decodes @n values of @dtype whose raw bytes fill the start of @buf into doubles, in place:
 * from the last value to the first, so no value is overwritten before it is read (a double is
 * at least as wide as any stored value). Returns the index of the first value that is not a
 * finite number (NaN or infinite, which no CUBE writer means and no CUBE reader can
 * aggregate), or @n. */
static guint
decode_in_place (double *buf, guint n, CubeDtype dtype, gboolean be)
{
  const guint8 *raw = (const guint8 *) buf;
  guint         bad = n;

  for (guint i = n; i-- > 0;)
    {
      double v;

      switch (dtype)
        {
        case CUBE_DTYPE_DOUBLE:
        case CUBE_DTYPE_MINDOUBLE:
        case CUBE_DTYPE_MAXDOUBLE:
          {
            guint64 bits = read_u64 (raw + (gsize) i * 8, be);

            memcpy (&v, &bits, 8);
            if (!isfinite (v))
              bad = i;
          }
          break;
        case CUBE_DTYPE_INT64:
          v = (double) (gint64) read_u64 (raw + (gsize) i * 8, be);
          break;
        case CUBE_DTYPE_UINT64:
          v = (double) read_u64 (raw + (gsize) i * 8, be);
          break;
        case CUBE_DTYPE_INT32:
          v = (double) (gint32) read_u32 (raw + (gsize) i * 4, be);
          break;
        case CUBE_DTYPE_UINT32:
          v = (double) read_u32 (raw + (gsize) i * 4, be);
          break;
        case CUBE_DTYPE_INT16:
        case CUBE_DTYPE_UINT16:
          {
            guint16 u;

            memcpy (&u, raw + (gsize) i * 2, 2);
            u = be ? GUINT16_FROM_BE (u) : GUINT16_FROM_LE (u);
            v = dtype == CUBE_DTYPE_INT16 ? (double) (gint16) u : (double) u;
          }
          break;
        case CUBE_DTYPE_INT8:
          v = (double) (gint8) raw[i];
          break;
        case CUBE_DTYPE_UINT8:
          v = (double) raw[i];
          break;
        case CUBE_DTYPE_UNSUPPORTED:
        default:
          v = 0.0;
          break;
        }
      buf[i] = v;
    }
  return bad;
}

static gboolean
decoded_row_ok (const CubexMetric *cm, guint64 k, guint bad, const double *out, GError **error)
{
  g_autofree char *row = NULL;

  if (bad >= cm->n_locations)
    return TRUE;
  /* the number is formatted apart: xgettext cannot see through G_GUINT64_FORMAT */
  row = g_strdup_printf ("%" G_GUINT64_FORMAT, k);
  cube_set_error (error, CUBE_ERROR_FORMAT, cm->cx->path,
                  _("member %s: row %s, location %u: “%g” is not a finite number"),
                  cm->data_name, row, bad, out[bad]);
  return FALSE;
}

/* Inflates exactly @want bytes of one zlib stream. */
static gboolean
inflate_exact (const guint8 *src, gsize src_len, guint8 *dst, gsize want)
{
  z_stream zs;
  int      rc;

  memset (&zs, 0, sizeof zs);
  if (inflateInit (&zs) != Z_OK)
    return FALSE;
  zs.next_in = (Bytef *) src;
  zs.next_out = dst;
  rc = Z_OK;
  /* avail_* are uInt: feed in pieces so huge members cannot wrap them */
  while (rc == Z_OK)
    {
      gsize in_left = src_len - (gsize) ((const guint8 *) zs.next_in - src);
      gsize out_left = want - (gsize) (zs.next_out - dst);

      if (out_left == 0)
        break;
      zs.avail_in = (uInt) MIN (in_left, (gsize) G_MAXUINT32);
      zs.avail_out = (uInt) MIN (out_left, (gsize) G_MAXUINT32);
      rc = inflate (&zs, Z_NO_FLUSH);
      if (rc == Z_BUF_ERROR && zs.avail_in == 0)
        break; /* input exhausted before the stream ended */
    }
  {
    gboolean ok = (gsize) (zs.next_out - dst) == want && (rc == Z_OK || rc == Z_STREAM_END);

    inflateEnd (&zs);
    return ok;
  }
}

/* Uncompressed byte range of compressed chunk @j: [start, end). Validated at open time. */
static void
zchunk_range (const CubexMetric *cm, guint64 j, guint64 *start, guint64 *end)
{
  *start = read_u64 (cm->ztable + j * 24, cm->big_endian);
  if (j + 1 < cm->n_rows)
    *end = read_u64 (cm->ztable + (j + 1) * 24, cm->big_endian);
  else
    *end = cm->n_rows * cm->row_bytes;
}


/* Inflates compressed chunk @j into cm->zbuf (kept: the next row is usually in the same chunk
 * when chunks hold several rows). */
static gboolean
zchunk_load (CubexMetric *cm, guint64 j, guint64 k, GError **error)
{
  guint64            s, e;
  guint64            cstart = read_u64 (cm->ztable + j * 24 + 8, cm->big_endian);
  guint64            csize = read_u64 (cm->ztable + j * 24 + 16, cm->big_endian);
  g_autofree guint8 *packed = NULL;

  if (cm->zchunk == j)
    return TRUE;
  zchunk_range (cm, j, &s, &e);
  g_clear_pointer (&cm->zbuf, g_free);
  cm->zchunk = G_MAXUINT64;
  packed = g_malloc (MAX (csize, 1));
  if (!cubex_pread (cm->cx, cm->payload + cstart, packed, (gsize) csize, cm->data_name, error))
    return FALSE;
  cm->zbuf = g_malloc (MAX (e - s, 1));
  if (!inflate_exact (packed, (gsize) csize, cm->zbuf, (gsize) (e - s)))
    {
      cube_set_error (error, CUBE_ERROR_FORMAT, cm->cx->path,
                      _("member %s: compressed row %llu"
                        " is corrupt (zlib stream %llu)"),
                      cm->data_name, (unsigned long long) k, (unsigned long long) j);
      g_clear_pointer (&cm->zbuf, g_free);
      return FALSE;
    }
  cm->zchunk = j;
  return TRUE;
}

/* Reads data rows [@k, @k + @nk) (< n_rows) into @out (nk × n_locations doubles). */
static gboolean
cubex_metric_read_rows (CubexMetric *cm, guint64 k, guint64 nk, double *out, GError **error)
{
  guint8 *raw = (guint8 *) out;

  if (!cm->compressed)
    {
      if (!cubex_pread (cm->cx, cm->payload + k * cm->row_bytes, out, (gsize) (nk * cm->row_bytes),
                        cm->data_name, error))
        return FALSE;
    }
  else
    {
      /* The chunks covering [k·row_bytes, (k+nk)·row_bytes): usually chunk k alone per row. */
      guint64 want_lo = k * cm->row_bytes;
      guint64 want_hi = want_lo + nk * cm->row_bytes;
      guint64 lo = 0, hi = cm->n_rows;

      /* binary search: last chunk whose start <= want_lo */
      while (hi - lo > 1)
        {
          guint64 mid = lo + (hi - lo) / 2;
          guint64 s, e;

          zchunk_range (cm, mid, &s, &e);
          if (s <= want_lo)
            lo = mid;
          else
            hi = mid;
        }
      for (guint64 j = lo; j < cm->n_rows && want_lo < want_hi; j++)
        {
          guint64 s, e;

          zchunk_range (cm, j, &s, &e);
          if (e <= want_lo)
            continue;
          if (!zchunk_load (cm, j, want_lo / MAX (cm->row_bytes, 1), error))
            return FALSE;
          {
            guint64 from = MAX (s, want_lo);
            guint64 to = MIN (e, want_hi);

            memcpy (raw + (from - k * cm->row_bytes), cm->zbuf + (from - s), (gsize) (to - from));
            want_lo = to;
          }
        }
    }
  /* rows are decoded back to front, each in place, so no row overwrites one not yet read */
  for (guint64 r = nk; r-- > 0;)
    {
      double *row = out + r * cm->n_locations;

      if ((guint8 *) row != raw + r * cm->row_bytes)
        memmove (row, raw + r * cm->row_bytes, cm->row_bytes);
      if (!decoded_row_ok (cm, k + r, decode_in_place (row, cm->n_locations, cm->dtype,
                                                       cm->big_endian),
                           row, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
row_is_zero (const double *row, guint n)
{
  for (guint i = 0; i < n; i++)
    if (row[i] != 0.0)
      return FALSE;
  return TRUE;
}

static gboolean
cubex_row_loader (CubeReport *report,
                  CubeMetric *metric,
                  guint       cnode_index,
                  double     *out,
                  GError    **error)
{
  CubexMetric *cm = metric->data->loader_data;

  if (cnode_index >= cm->n_cnodes || cm->row_of_cnode[cnode_index] == G_MAXUINT32)
    {
      memset (out, 0, sizeof (double) * cm->n_locations);
      return TRUE;
    }
  report->priv->rows_decoded++;
  return cubex_metric_read_rows (cm, cm->row_of_cnode[cnode_index], 1, out, error);
}

/* Visits every stored row that is not all zeros, in file order, reading about BULK_BYTES of
 * consecutive rows at a time into one buffer that is reused. */
static gboolean
cubex_row_scanner (CubeReport     *report,
                   CubeMetric     *metric,
                   CubeRowVisitor  visit,
                   gpointer        user_data,
                   GError        **error)
{
  CubexMetric       *cm = metric->data->loader_data;
  gsize              row_doubles = MAX (cm->n_locations, 1);
  guint64            per = MAX (BULK_BYTES / (row_doubles * sizeof (double)), 1);
  g_autofree double *buf = g_new (double, (gsize) MIN (per, MAX (cm->n_rows, 1)) * row_doubles);

  for (guint64 k = 0; k < cm->n_rows; k += per)
    {
      guint64 nk = MIN (per, cm->n_rows - k);

      report->priv->rows_decoded += nk;
      if (!cubex_metric_read_rows (cm, k, nk, buf, error))
        return FALSE;
      for (guint64 r = 0; r < nk; r++)
        {
          const double *row = buf + r * cm->n_locations;

          if (!row_is_zero (row, cm->n_locations)
              && !visit (cm->cnode_of_row[k + r], row, user_data, error))
            return FALSE;
        }
    }
  return TRUE;
}

/* ---- call-tree traversals ------------------------------------------------------------------ */

/* Fills @order (report->cnodes->len entries): position → cnode index, for inclusive metrics:
 * for each root, the root, then wide(root) where wide(n) emits every child of n and then calls
 * wide on each child in turn. Iterative: call trees from files can be deep. */
static void
order_inclusive (const CubeReport *report, guint *order)
{
  guint      n = 0;
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (CubeCnode *));

  for (guint r = 0; r < report->cnode_roots->len; r++)
    {
      CubeCnode *root = g_ptr_array_index (report->cnode_roots, r);

      order[n++] = root->index;
      g_array_append_val (stack, root);
      while (stack->len > 0)
        {
          CubeCnode *c = g_array_index (stack, CubeCnode *, stack->len - 1);
          guint      nk = c->children ? c->children->len : 0;

          g_array_set_size (stack, stack->len - 1);
          for (guint i = 0; i < nk; i++)
            order[n++] = ((CubeCnode *) g_ptr_array_index (c->children, i))->index;
          /* wide() on each child in turn: push in reverse so the first child is next */
          for (guint i = nk; i > 0; i--)
            {
              CubeCnode *k = g_ptr_array_index (c->children, i - 1);

              g_array_append_val (stack, k);
            }
        }
    }
  g_assert (n == report->cnodes->len);
}

/* ---- opening metrics ----------------------------------------------------------------------- */

static gboolean
metric_stores_data (const CubeMetric *m)
{
  /* derived kinds and unsupported dtypes: cube_metric_has_data() says FALSE */
  return cube_metric_has_data (m) && m->cubepl == NULL;
}

/* Validates <id>.index and <id>.data of @m and fills @cm. Everything a lazy read later needs is
 * checked here, so lazy reads of uncompressed rows cannot fail on structure. */
static gboolean
cubex_metric_open (Cubex            *cx,
                   CubeReport       *report,
                   CubeMetric       *m,
                   const guint      *order_excl,
                   const guint      *order_incl,
                   const TarMember  *index_member,
                   const TarMember  *data_member,
                   CubexMetric     **out,
                   GError          **error)
{
  g_autofree char *index_name = g_strdup_printf ("%" G_GINT64_FORMAT ".index", m->file_id);
  guint64          ilen = index_member->size;
  guint64          dlen = data_member->size;
  guint            n_cnodes = report->cnodes->len;
  CubexMetric     *cm;
  guint8           ih[22] = { 0 };
  guint8           dh[19];
  guint32          marker;
  guint8           format;
  const guint     *order;
  guint64          need;

  if (ilen < 18
      || !cubex_pread (cx, index_member->offset, ih, (gsize) MIN (ilen, (guint64) sizeof ih),
                       index_name, error)
      || memcmp (ih, "CUBEX.INDEX", 11) != 0)
    {
      if (error == NULL || *error == NULL)
        cube_set_error (error, CUBE_ERROR_FORMAT, cx->path,
                        _("member %s: not a Cube 4 index (no “CUBEX.INDEX” header)"), index_name);
      return FALSE;
    }
  marker = read_u32 (ih + 11, FALSE);
  if (marker != 1 && marker != 0x01000000)
    {
      cube_set_error (error, CUBE_ERROR_FORMAT, cx->path,
                      _("member %s: unknown byte-order marker 0x%08x"), index_name, marker);
      return FALSE;
    }

  cm = g_new0 (CubexMetric, 1);
  cm->cx = cubex_ref (cx);
  cm->data_name = g_strdup_printf ("%" G_GINT64_FORMAT ".data", m->file_id);
  cm->dtype = m->dtype;
  cm->elem = dtype_size (m->dtype);
  cm->big_endian = marker != 1;
  cm->n_locations = report->locations->len;
  cm->n_cnodes = n_cnodes;
  cm->zchunk = G_MAXUINT64;
  cm->row_of_cnode = g_new (guint32, MAX (n_cnodes, 1));
  memset (cm->row_of_cnode, 0xff, sizeof (guint32) * MAX (n_cnodes, 1));

  if (!g_uint64_checked_mul (&need, cm->elem, cm->n_locations) || need > G_MAXSIZE / 16)
    goto too_big;
  cm->row_bytes = (gsize) need;

  switch (m->kind)
    {
    case CUBE_METRIC_INCLUSIVE:
    case CUBE_METRIC_PREDERIVED_INCLUSIVE:
      order = order_incl;
      break;
    default: /* EXCLUSIVE, PREDERIVED_EXCLUSIVE: pre-order; SIMPLE: definition order, the same */
      order = order_excl;
      break;
    }

  /* version at 15 (uint16) is not needed: every known version has the same layout */
  format = ih[17];
  if (format == 1)
    {
      guint32 n;
      guint8  ids[4096];

      if (ilen < 22)
        {
          cube_set_error (error, CUBE_ERROR_FORMAT, cx->path,
                          _("member %s: truncated (no row count)"), index_name);
          goto fail;
        }
      n = read_u32 (ih + 18, cm->big_endian);
      if ((guint64) n * 4 > ilen - 22)
        {
          cube_set_error (error, CUBE_ERROR_FORMAT, cx->path,
                          _("member %s: lists %u rows but holds only %llu"),
                          index_name, n, (unsigned long long) ((ilen - 22) / 4));
          goto fail;
        }
      /* Read in pieces: the count is untrusted, and a row id repeats or runs past the call
       * tree long before a bad count would have filled memory. */
      for (guint32 k = 0; k < n; k++)
        {
          guint32 pos;

          if (k % (sizeof ids / 4) == 0
              && !cubex_pread (cx, index_member->offset + 22 + (guint64) k * 4, ids,
                               MIN ((gsize) (n - k) * 4, sizeof ids), index_name, error))
            goto fail;
          pos = read_u32 (ids + (k % (sizeof ids / 4)) * 4, cm->big_endian);
          if (pos >= n_cnodes)
            {
              cube_set_error (error, CUBE_ERROR_FORMAT, cx->path,
                              _("member %s: row id %u is beyond the %u call paths of the "
                                "anchor"),
                              index_name, pos, n_cnodes);
              goto fail;
            }
          if (cm->row_of_cnode[order[pos]] != G_MAXUINT32)
            {
              cube_set_error (error, CUBE_ERROR_FORMAT, cx->path,
                              _("member %s: row id %u is listed twice"), index_name, pos);
              goto fail;
            }
          cm->row_of_cnode[order[pos]] = k;
        }
      cm->n_rows = n;
    }
  else if (format == 3)
    {
      for (guint pos = 0; pos < n_cnodes; pos++)
        cm->row_of_cnode[order[pos]] = pos;
      cm->n_rows = n_cnodes;
    }
  else
    {
      cube_set_error (error, CUBE_ERROR_UNSUPPORTED, cx->path,
                      _("member %s: unknown index format %u (1 sparse and 3 dense are known)"),
                      index_name, format);
      goto fail;
    }
  cm->cnode_of_row = g_new (guint32, MAX (cm->n_rows, 1));
  for (guint c = 0; c < n_cnodes; c++)
    if (cm->row_of_cnode[c] != G_MAXUINT32)
      cm->cnode_of_row[cm->row_of_cnode[c]] = c;

  if (!g_uint64_checked_mul (&need, cm->n_rows, cm->row_bytes))
    goto too_big;

  memset (dh, 0, sizeof dh);
  if (!cubex_pread (cx, data_member->offset, dh, (gsize) MIN (dlen, (guint64) sizeof dh),
                    cm->data_name, error))
    goto fail;
  if (dlen >= 11 && memcmp (dh, "ZCUBEX.DATA", 11) == 0)
    {
      guint64 nz;
      guint64 table_bytes;

      cm->compressed = TRUE;
      if (dlen < 19)
        {
          cube_set_error (error, CUBE_ERROR_FORMAT, cx->path,
                          _("member %s: truncated compressed header"), cm->data_name);
          goto fail;
        }
      nz = read_u64 (dh + 11, cm->big_endian);
      if (nz != cm->n_rows)
        {
          cube_set_error (error, CUBE_ERROR_FORMAT, cx->path,
                          _("member %s: holds %llu compressed rows but the "
                            "index lists %llu"),
                          cm->data_name, (unsigned long long) nz, (unsigned long long) cm->n_rows);
          goto fail;
        }
      if (!g_uint64_checked_mul (&table_bytes, nz, 24) || table_bytes > dlen - 19)
        {
          cube_set_error (error, CUBE_ERROR_FORMAT, cx->path,
                          _("member %s: truncated row table (%llu rows)"),
                          cm->data_name, (unsigned long long) nz);
          goto fail;
        }
      /* nz = N ≤ the number of call paths (index checked above): the table fits in memory */
      cm->ztable = g_malloc (MAX (table_bytes, 1));
      if (!cubex_pread (cx, data_member->offset + 19, cm->ztable, (gsize) table_bytes,
                        cm->data_name, error))
        goto fail;
      cm->payload = data_member->offset + 19 + table_bytes;
      cm->payload_len = dlen - 19 - table_bytes;
      /* Chunks must tile the uncompressed rows in order and lie inside the member. */
      for (guint64 j = 0; j < nz; j++)
        {
          guint64 s, e;
          guint64 cstart = read_u64 (cm->ztable + j * 24 + 8, cm->big_endian);
          guint64 csize = read_u64 (cm->ztable + j * 24 + 16, cm->big_endian);

          zchunk_range (cm, j, &s, &e);
          if ((j == 0 && s != 0) || s > e || e > need || cstart > cm->payload_len
              || csize > cm->payload_len - cstart)
            {
              cube_set_error (error, CUBE_ERROR_FORMAT, cx->path,
                              _("member %s: row table entry %llu"
                                " points outside the data"),
                              cm->data_name, (unsigned long long) j);
              goto fail;
            }
        }
    }
  else if (dlen >= 10 && memcmp (dh, "CUBEX.DATA", 10) == 0)
    {
      if (need > dlen - 10)
        {
          cube_set_error (error, CUBE_ERROR_FORMAT, cx->path,
                          _("member %s: the index lists %llu rows of %u "
                            "locations × %u bytes (%llu bytes) but the data "
                            "holds only %llu bytes"),
                          cm->data_name, (unsigned long long) cm->n_rows, cm->n_locations, cm->elem,
                          (unsigned long long) need, (unsigned long long) (dlen - 10));
          goto fail;
        }
      cm->payload = data_member->offset + 10;
      cm->payload_len = dlen - 10;
    }
  else
    {
      cube_set_error (error, CUBE_ERROR_FORMAT, cx->path,
                      _("member %s: not a Cube 4 data member (no “CUBEX.DATA” header)"),
                      cm->data_name);
      goto fail;
    }

  *out = cm;
  return TRUE;

too_big:
  cube_set_error (error, CUBE_ERROR_FORMAT, cx->path, _("member %s: sizes overflow"),
                  cm->data_name);
fail:
  cubex_metric_free (cm);
  return FALSE;
}

/* Decodes every row of @cm into the report now (CUBE_LOAD_EAGER), in bulk reads. */
static gboolean
cubex_metric_load_all (CubeReport *report, CubeMetric *m, CubexMetric *cm, GError **error)
{
  guint64            per = MAX (BULK_BYTES / (MAX (cm->n_locations, 1) * sizeof (double)), 1);
  g_autofree double *buf = g_new (double, (gsize) MIN (per, MAX (cm->n_rows, 1))
                                              * MAX (cm->n_locations, 1));

  for (guint64 k = 0; k < cm->n_rows; k += per)
    {
      guint64 nk = MIN (per, cm->n_rows - k);

      if (!cubex_metric_read_rows (cm, k, nk, buf, error))
        return FALSE;
      for (guint64 r = 0; r < nk; r++)
        {
          const double *row = buf + r * cm->n_locations;

          if (!row_is_zero (row, cm->n_locations))
            memcpy (cube_metric_alloc_row (report, m, cm->cnode_of_row[k + r]), row,
                    sizeof (double) * cm->n_locations);
        }
    }
  return TRUE;
}

/* ---- entry point --------------------------------------------------------------------------- */

CubeReport *
cube_cubex_load (const char       *path,
                 CubeLoadFlags     flags,
                 GCancellable     *cancellable,
                 CubeProgressFunc  progress,
                 gpointer          progress_data,
                 GError          **error)
{
  g_autoptr (CubeReport) report = NULL;
  g_autofree char *anchor_label = NULL;
  g_autofree guint *order_excl = NULL;
  g_autofree guint *order_incl = NULL;
  g_autofree gboolean *is_void = NULL;
  const TarMember *anchor;
  Cubex           *cx;
  struct stat      st;
  int              fd;

  g_return_val_if_fail (path != NULL, NULL);

  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || fstat (fd, &st) != 0)
    {
      int saved = errno;

      if (fd >= 0)
        close (fd);
      cube_set_error (error, CUBE_ERROR_IO, path, _("cannot open: %s"), g_strerror (saved));
      return NULL;
    }
  if (!S_ISREG (st.st_mode))
    {
      close (fd);
      cube_set_error (error, CUBE_ERROR_IO, path, _("cannot open: not a regular file"));
      return NULL;
    }

  cx = g_new0 (Cubex, 1);
  g_atomic_ref_count_init (&cx->ref);
  cx->path = g_strdup (path);
  cx->fd = fd;
  cx->size = (guint64) st.st_size;

  if (!tar_index (cx, error))
    goto fail;

  anchor = cubex_member (cx, "anchor.xml");
  if (anchor == NULL && !cx->saw_end)
    {
      /* Cube writers put the anchor last: an archive cut between members lands here */
      g_autofree char *size = g_strdup_printf ("%" G_GUINT64_FORMAT, cx->size);

      cube_set_error (error, CUBE_ERROR_FORMAT, path,
                      _("truncated archive: it ends after %s bytes without the end-of-archive "
                        "marker, and member anchor.xml is missing"),
                      size);
      goto fail;
    }
  if (anchor == NULL)
    {
      cube_set_error (error, CUBE_ERROR_FORMAT, path,
                      _("not a Cube 4 archive: member anchor.xml is missing"));
      goto fail;
    }
  anchor_label = g_strdup_printf ("%s:anchor.xml", path);
  {
    /* anchor->size ≤ the file's size (tar_index checked it), which may still be more than
     * this machine can hold */
    g_autofree char *xml = anchor->size < G_MAXSIZE ? g_try_malloc (MAX (anchor->size, 1)) : NULL;

    if (xml == NULL)
      {
        g_autofree char *size = g_strdup_printf ("%" G_GUINT64_FORMAT, anchor->size);

        cube_set_error (error, CUBE_ERROR_IO, path,
                        _("member anchor.xml is too large to read (%s bytes)"), size);
        goto fail;
      }
    if (!cubex_pread (cx, anchor->offset, xml, (gsize) anchor->size, "anchor.xml", error))
      goto fail;
    /* The XML reader inflates a gzip-compressed anchor itself (gzip magic). */
    report = cube_xml_parse_memory (xml, (gsize) anchor->size, anchor_label, CUBE_XML_ANCHOR,
                                    error);
  }
  if (report == NULL)
    goto fail;
  g_free (report->path);
  report->path = g_strdup (path);
  report->format = CUBE_FORMAT_CUBEX;

  if (progress != NULL)
    progress (0.1, progress_data);

  {
    guint n = report->cnodes->len;

    order_excl = g_new (guint, MAX (n, 1));
    order_incl = g_new (guint, MAX (n, 1));
    for (guint i = 0; i < n; i++)
      order_excl[i] = i; /* report->cnodes is in depth-first pre-order = document order */
    order_inclusive (report, order_incl);
  }
  is_void = cube_report_void_metrics (report);

  for (guint i = 0; i < report->metrics->len; i++)
    {
      CubeMetric      *m = g_ptr_array_index (report->metrics, i);
      g_autofree char *iname = g_strdup_printf ("%" G_GINT64_FORMAT ".index", m->file_id);
      g_autofree char *dname = g_strdup_printf ("%" G_GINT64_FORMAT ".data", m->file_id);
      const TarMember *im = cubex_member (cx, iname);
      const TarMember *dm = cubex_member (cx, dname);
      CubexMetric     *cm = NULL;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        goto fail;

      m->data->stored_call_inclusive = m->kind == CUBE_METRIC_INCLUSIVE
                                       || m->kind == CUBE_METRIC_PREDERIVED_INCLUSIVE;
      /* Cube 4 stores metric-inclusive values, like CUBE 3 (cubex-semantics.md). */
      m->data->stored_metric_exclusive = FALSE;

      if (!metric_stores_data (m))
        continue; /* derived or unsupported dtype: no values, never misread */
      if (is_void[i])
        continue; /* <val>VOID</val> here or above: cubelib ignores the values */
      if (im == NULL && dm == NULL)
        continue; /* no data members at all: all zeros */
      if (im == NULL || dm == NULL)
        {
          cube_set_error (error, CUBE_ERROR_FORMAT, path,
                          _("member %s is missing (%s is present)"), im == NULL ? iname : dname,
                          im == NULL ? dname : iname);
          goto fail;
        }
      if (!cubex_metric_open (cx, report, m, order_excl, order_incl, im, dm, &cm, error))
        goto fail;

      if (flags & CUBE_LOAD_EAGER)
        {
          gboolean ok = cubex_metric_load_all (report, m, cm, error);

          cubex_metric_free (cm);
          if (!ok)
            goto fail;
        }
      else
        {
          cube_metric_set_loader (report, m, cubex_row_loader, cm, cubex_metric_free);
          cube_metric_set_scanner (m, cubex_row_scanner);
        }

      if (progress != NULL)
        progress (0.1 + 0.9 * (i + 1) / report->metrics->len, progress_data);
    }

  if (!(flags & CUBE_LOAD_EAGER))
    {
      /* Loaders hold their own references; the report's reference keeps the file open for the
       * report's lifetime even when no metric has data. */
      report->priv->source = cubex_ref (cx);
      report->priv->source_free = cubex_unref;
    }
  cubex_unref (cx);
  if (progress != NULL)
    progress (1.0, progress_data);
  return g_steal_pointer (&report);

fail:
  cubex_unref (cx);
  return NULL;
}
