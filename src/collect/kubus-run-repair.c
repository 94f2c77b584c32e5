/* kubus-run-repair.c: stand-in files for ranks killed in an abort.
 *
 * The files are written with OTF2 itself into a scratch archive inside the
 * experiment and renamed into place, so they are valid by construction:
 * an empty event file, and a local definition file whose mapping tables
 * send the rank's user regions to KUBUS_UNKNOWN_REGION and its
 * communicators to MPI_COMM_WORLD (the same maps the collector writes for
 * such ranks when it has time to). */
#include "kubus-run-repair.h"
#include "kubus-run-handover.h"
#include "mpi-regions.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <otf2/otf2.h>
#include <sys/stat.h>

/* must match collect.h */
enum
{
  REPAIR_R_UNKNOWN = KUBUS_R_MPI_COUNT + 1,
  REPAIR_R_PROGRAM,
  REPAIR_R_USER_BASE,
  REPAIR_MAX_USER_REGIONS = 32768,
  REPAIR_MAX_COMMS = 4096
};

static OTF2_FlushType
pre_flush (void *u, OTF2_FileType t, OTF2_LocationRef l, void *c, bool final)
{
  (void)u;
  (void)t;
  (void)l;
  (void)c;
  (void) final;
  return OTF2_FLUSH;
}

static OTF2_TimeStamp
post_flush (void *u, OTF2_FileType t, OTF2_LocationRef l)
{
  (void)u;
  (void)t;
  (void)l;
  return 0;
}

/* every buffer is written when full, timestamps untouched: what kubus-run's writers need */
const OTF2_FlushCallbacks kubus_run_flush_callbacks = { pre_flush, post_flush };

static gboolean
needs_repair (const char *path)
{
  GStatBuf st;
  return g_stat (path, &st) != 0 || st.st_size == 0;
}

static void
remove_tree (const char *path)
{
  g_autoptr (GDir) d = g_dir_open (path, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        remove_tree (child);
      else
        g_remove (child);
    }
  g_rmdir (path);
}

/* The rank's ClockOffset records from the span the collector left when it saved its events
 * (collect-state.c: "first last time offset time offset"); none when it left none. */
static void
write_offsets (OTF2_DefWriter *dw, const char *expdir, int r)
{
  g_autofree char *name = g_strdup_printf (".kubus-span-%d", r);
  g_autofree char *path = g_build_filename (expdir, name, NULL);
  g_autofree char *text = NULL;
  KubusRunSpan     span;
  if (g_file_get_contents (path, &text, NULL, NULL) && kubus_run_parse_span (text, &span))
    {
      OTF2_DefWriter_WriteClockOffset (dw, span.time[0], span.offset[0], 0.0);
      OTF2_DefWriter_WriteClockOffset (dw, span.time[1], span.offset[1], 0.0);
    }
}

static void
write_maps (OTF2_DefWriter *dw)
{
  static uint64_t regions[REPAIR_R_USER_BASE + REPAIR_MAX_USER_REGIONS];
  static uint64_t comms[REPAIR_MAX_COMMS];
  for (uint64_t i = 0; i < G_N_ELEMENTS (regions); i++)
    regions[i] = i < REPAIR_R_USER_BASE ? i : REPAIR_R_UNKNOWN;
  OTF2_IdMap *m = OTF2_IdMap_CreateFromUint64Array (G_N_ELEMENTS (regions), regions, true);
  if (m)
    {
      OTF2_DefWriter_WriteMappingTable (dw, OTF2_MAPPING_REGION, m);
      OTF2_IdMap_Free (m);
    }
  m = OTF2_IdMap_CreateFromUint64Array (G_N_ELEMENTS (comms), comms, true);
  if (m)
    {
      OTF2_DefWriter_WriteMappingTable (dw, OTF2_MAPPING_COMM, m);
      OTF2_IdMap_Free (m);
    }
}

int
kubus_run_repair (const char *expdir, int ranks, GError **error)
{
  g_autofree char *marker = g_build_filename (expdir, ".kubus-abort-definitions", NULL);
  g_autofree char *traces = g_build_filename (expdir, "traces", NULL);
  if (!g_file_test (marker, G_FILE_TEST_EXISTS) || !g_file_test (traces, G_FILE_TEST_IS_DIR))
    return 0;

  g_autoptr (GArray) bad_evt = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr (GArray) bad_def = g_array_new (FALSE, FALSE, sizeof (int));
  for (int r = 0; r < ranks; r++)
    {
      g_autofree char *e = g_strdup_printf ("%s/%d.evt", traces, r);
      g_autofree char *d = g_strdup_printf ("%s/%d.def", traces, r);
      if (needs_repair (e))
        g_array_append_val (bad_evt, r);
      if (needs_repair (d))
        g_array_append_val (bad_def, r);
    }
  if (bad_evt->len == 0 && bad_def->len == 0)
    return 0;

  g_autofree char *tmpl = g_build_filename (expdir, ".kubus-repair-XXXXXX", NULL);
  if (g_mkdtemp (tmpl) == NULL)
    {
      int e = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e),
                   _ ("cannot create a scratch folder in %s: %s"), expdir, g_strerror (e));
      return -1;
    }
  OTF2_Archive *ar
      = OTF2_Archive_Open (tmpl, "traces", OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_MIN,
                           OTF2_CHUNK_SIZE_MIN, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (ar == NULL)
    {
      remove_tree (tmpl);
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                   _ ("cannot write stand-in trace files in %s"), tmpl);
      return -1;
    }
  OTF2_Archive_SetFlushCallbacks (ar, &kubus_run_flush_callbacks, NULL);
  OTF2_Archive_SetSerialCollectiveCallbacks (ar);
  OTF2_Archive_OpenEvtFiles (ar);
  for (guint i = 0; i < bad_evt->len; i++)
    {
      OTF2_EvtWriter *w
          = OTF2_Archive_GetEvtWriter (ar, (OTF2_LocationRef)g_array_index (bad_evt, int, i));
      if (w)
        OTF2_Archive_CloseEvtWriter (ar, w);
    }
  OTF2_Archive_CloseEvtFiles (ar);
  OTF2_Archive_OpenDefFiles (ar);
  for (guint i = 0; i < bad_def->len; i++)
    {
      OTF2_DefWriter *dw
          = OTF2_Archive_GetDefWriter (ar, (OTF2_LocationRef)g_array_index (bad_def, int, i));
      if (dw == NULL)
        continue;
      write_maps (dw);
      write_offsets (dw, expdir, g_array_index (bad_def, int, i));
      OTF2_Archive_CloseDefWriter (ar, dw);
    }
  OTF2_Archive_CloseDefFiles (ar);
  OTF2_GlobalDefWriter *gw = OTF2_Archive_GetGlobalDefWriter (ar);
  if (gw)
    OTF2_Archive_CloseGlobalDefWriter (ar, gw);
  OTF2_Archive_Close (ar);

  int replaced = 0;
  for (int pass = 0; pass < 2; pass++)
    {
      GArray *which = pass ? bad_def : bad_evt;
      for (guint i = 0; i < which->len; i++)
        {
          int              r = g_array_index (which, int, i);
          const char      *ext = pass ? "def" : "evt";
          g_autofree char *from = g_strdup_printf ("%s/traces/%d.%s", tmpl, r, ext);
          g_autofree char *to = g_strdup_printf ("%s/%d.%s", traces, r, ext);
          if (!g_file_test (from, G_FILE_TEST_EXISTS))
            {
              /* OTF2 wrote nothing for an empty writer: an empty file is
               * still better than none for readers that open every
               * location */
              continue;
            }
          if (g_rename (from, to) == 0)
            replaced++;
        }
    }
  remove_tree (tmpl);
  return replaced;
}
