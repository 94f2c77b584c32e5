/* symbols-trace.c — frame regions of an OTF2 trace get their names, after the run.
 *
 * Only the global definitions change (events and local definitions refer to regions by id).
 * They are copied with OTF2 into a scratch archive (same chunk sizes, properties and creator,
 * so the new anchor file describes the old event files), each frame region written with new
 * strings for its name, canonical name and source file, and the scratch anchor and definition
 * file renamed over the old ones. */
#include "symbols.h"
#include "remove-tree.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <otf2/otf2.h>
#include <string.h>

OTF2_GlobalDefWriter *trace_defs_copy_writer (void *ud);
OTF2_CallbackCode     trace_defs_copy_wrote (void *ud, OTF2_ErrorCode rc);
void                  trace_defs_copy_register (OTF2_GlobalDefReaderCallbacks *cbs);

typedef struct
{
  OTF2_GlobalDefWriter *w; /* as TraceDefCopyHead (trace-write-defs.c) */
  OTF2_ErrorCode        rc;
  GHashTable           *strings; /* id → string (pass 1) */
  GHashTable           *frames;  /* region id → SymbolsFrame* */
  GHashTable           *keys;    /* region id → canonical string id */
  uint32_t              next_string;
  uint32_t              max_region;
  const GArray         *add;     /* SymbolsNewRegion */
  gboolean              added;
} Naming;

static void
frame_free (gpointer p)
{
  symbols_frame_clear (p);
  g_free (p);
}

/* ---- pass 1: which regions are frames ---------------------------------------------------- */

static OTF2_CallbackCode
scan_string (void *ud, OTF2_StringRef self, const char *s)
{
  Naming *n = ud;
  g_hash_table_insert (n->strings, GUINT_TO_POINTER (self), g_strdup (s));
  if (self >= n->next_string)
    n->next_string = self + 1;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
scan_region (void           *ud,
             OTF2_RegionRef  self,
             OTF2_StringRef  name G_GNUC_UNUSED,
             OTF2_StringRef  canonical,
             OTF2_StringRef  description G_GNUC_UNUSED,
             OTF2_RegionRole role G_GNUC_UNUSED,
             OTF2_Paradigm   paradigm G_GNUC_UNUSED,
             OTF2_RegionFlag flags G_GNUC_UNUSED,
             OTF2_StringRef  file G_GNUC_UNUSED,
             uint32_t        begin G_GNUC_UNUSED,
             uint32_t        end G_GNUC_UNUSED)
{
  Naming     *n = ud;
  const char *key = g_hash_table_lookup (n->strings, GUINT_TO_POINTER (canonical));
  if (self > n->max_region)
    n->max_region = self;
  if (key != NULL && g_str_has_prefix (key, SYMBOLS_FRAME_PREFIX))
    g_hash_table_insert (n->keys, GUINT_TO_POINTER (self), GUINT_TO_POINTER (canonical));
  return OTF2_CALLBACK_SUCCESS;
}

/* ---- pass 2: the copy ---------------------------------------------------------------------- */

static OTF2_CallbackCode
copy_clock (void *ud, uint64_t resolution, uint64_t offset, uint64_t length, uint64_t realtime)
{
  return trace_defs_copy_wrote (
      ud, OTF2_GlobalDefWriter_WriteClockProperties (trace_defs_copy_writer (ud), resolution,
                                                     offset, length, realtime));
}

static OTF2_CallbackCode
copy_location (void                 *ud,
               OTF2_LocationRef      self,
               OTF2_StringRef        name,
               OTF2_LocationType     type,
               uint64_t              n_events,
               OTF2_LocationGroupRef group)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteLocation (
                                        trace_defs_copy_writer (ud), self, name, type, n_events,
                                        group));
}

static uint32_t
new_string (Naming *n, const char *s)
{
  uint32_t id = n->next_string++;
  trace_defs_copy_wrote (n, OTF2_GlobalDefWriter_WriteString (n->w, id, s));
  return id;
}

static OTF2_CallbackCode
copy_region (void           *ud,
             OTF2_RegionRef  self,
             OTF2_StringRef  name,
             OTF2_StringRef  canonical,
             OTF2_StringRef  description,
             OTF2_RegionRole role,
             OTF2_Paradigm   paradigm,
             OTF2_RegionFlag flags,
             OTF2_StringRef  file,
             uint32_t        begin,
             uint32_t        end)
{
  Naming             *n = ud;
  const SymbolsFrame *f = g_hash_table_lookup (n->frames, GUINT_TO_POINTER (self));
  if (!n->added && n->add != NULL)
    {
      /* the regions to add, among the others */
      n->added = TRUE;
      for (guint i = 0; i < n->add->len; i++)
        {
          const SymbolsNewRegion *a = &g_array_index (n->add, SymbolsNewRegion, i);
          const SymbolsFrame     *af = g_hash_table_lookup (n->frames, GUINT_TO_POINTER (a->id));
          uint32_t                empty = new_string (n, "");
          uint32_t                file = af && af->file ? new_string (n, af->file) : empty;
          trace_defs_copy_wrote (
              n, OTF2_GlobalDefWriter_WriteRegion (
                     n->w, a->id, new_string (n, af ? af->name : a->key),
                     new_string (n, af && af->mangled[0] ? af->mangled : a->key), empty,
                     OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_SAMPLING, OTF2_REGION_FLAG_NONE, file,
                     af && af->line > 0 ? (uint32_t)af->line : 0, 0));
        }
    }
  if (f != NULL)
    {
      name = new_string (n, f->name);
      if (f->mangled != NULL && f->mangled[0] != '\0')
        canonical = new_string (n, f->mangled);
      if (f->file != NULL)
        {
          file = new_string (n, f->file);
          begin = f->line > 0 ? (uint32_t)f->line : 0;
          end = 0;
        }
    }
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteRegion (
                                        n->w, self, name, canonical, description, role, paradigm,
                                        flags, file, begin, end));
}

static OTF2_CallbackCode
ignore_unknown (void *ud G_GNUC_UNUSED)
{
  return OTF2_CALLBACK_SUCCESS;
}

static gboolean
read_defs (const char *anchor, OTF2_GlobalDefReaderCallbacks *cbs, Naming *n, GError **error)
{
  OTF2_Reader *reader = OTF2_Reader_Open (anchor);
  if (reader == NULL)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _ ("%s: not a readable OTF2 archive"),
                   anchor);
      return FALSE;
    }
  OTF2_Reader_SetSerialCollectiveCallbacks (reader);
  OTF2_GlobalDefReader *gr = OTF2_Reader_GetGlobalDefReader (reader);
  uint64_t              count = 0;
  OTF2_ErrorCode        rc = OTF2_ERROR_INVALID;
  if (gr != NULL)
    {
      OTF2_Reader_RegisterGlobalDefCallbacks (reader, gr, cbs, n);
      rc = OTF2_Reader_ReadAllGlobalDefinitions (reader, gr, &count);
      OTF2_Reader_CloseGlobalDefReader (reader, gr);
    }
  OTF2_Reader_Close (reader);
  if (rc != OTF2_SUCCESS || n->rc != OTF2_SUCCESS)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   _ ("%s: cannot read the global definitions: %s"), anchor,
                   OTF2_Error_GetDescription (n->rc != OTF2_SUCCESS ? n->rc : rc));
      return FALSE;
    }
  return TRUE;
}

static OTF2_FlushType
pre_flush (void *u G_GNUC_UNUSED, OTF2_FileType t G_GNUC_UNUSED, OTF2_LocationRef l G_GNUC_UNUSED,
           void *c G_GNUC_UNUSED, bool final G_GNUC_UNUSED)
{
  return OTF2_FLUSH;
}

static OTF2_TimeStamp
post_flush (void *u G_GNUC_UNUSED, OTF2_FileType t G_GNUC_UNUSED, OTF2_LocationRef l G_GNUC_UNUSED)
{
  return 0;
}

static const OTF2_FlushCallbacks flush_callbacks = { pre_flush, post_flush };

/* The scratch archive's anchor: the old one's chunk sizes, creator, description and
 * properties. */
static OTF2_Archive *
open_scratch (const char *anchor, const char *dir, const char *name, GError **error)
{
  OTF2_Reader *reader = OTF2_Reader_Open (anchor);
  if (reader == NULL)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _ ("%s: not a readable OTF2 archive"),
                   anchor);
      return NULL;
    }
  uint64_t evt = OTF2_CHUNK_SIZE_EVENTS_DEFAULT, def = OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT;
  OTF2_Reader_GetChunkSize (reader, &evt, &def);
  OTF2_FileSubstrate substrate = OTF2_SUBSTRATE_POSIX;
  OTF2_Reader_GetFileSubstrate (reader, &substrate);
  OTF2_Archive *a = OTF2_Archive_Open (dir, name, OTF2_FILEMODE_WRITE, evt, def, substrate,
                                       OTF2_COMPRESSION_NONE);
  if (a == NULL)
    {
      OTF2_Reader_Close (reader);
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, _ ("%s: cannot write an OTF2 archive"),
                   dir);
      return NULL;
    }
  OTF2_Archive_SetFlushCallbacks (a, &flush_callbacks, NULL);
  OTF2_Archive_SetSerialCollectiveCallbacks (a);
  char *s = NULL;
  if (OTF2_Reader_GetCreator (reader, &s) == OTF2_SUCCESS && s != NULL)
    OTF2_Archive_SetCreator (a, s);
  free (s);
  s = NULL;
  if (OTF2_Reader_GetDescription (reader, &s) == OTF2_SUCCESS && s != NULL)
    OTF2_Archive_SetDescription (a, s);
  free (s);
  s = NULL;
  if (OTF2_Reader_GetMachineName (reader, &s) == OTF2_SUCCESS && s != NULL)
    OTF2_Archive_SetMachineName (a, s);
  free (s);
  uint32_t n_props = 0;
  char   **props = NULL;
  if (OTF2_Reader_GetPropertyNames (reader, &n_props, &props) == OTF2_SUCCESS)
    {
      for (uint32_t i = 0; i < n_props; i++)
        {
          char *v = NULL;
          if (OTF2_Reader_GetProperty (reader, props[i], &v) == OTF2_SUCCESS && v != NULL)
            OTF2_Archive_SetProperty (a, props[i], v, true);
          free (v);
        }
      free (props);
    }
  OTF2_Reader_Close (reader);
  return a;
}

gboolean
symbols_trace_frames (const char *anchor, GHashTable *by_key, guint32 *max_region, GError **error)
{
  Naming n = { 0 };
  n.strings = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  n.keys = g_hash_table_new (g_direct_hash, g_direct_equal);
  OTF2_GlobalDefReaderCallbacks *cbs = OTF2_GlobalDefReaderCallbacks_New ();
  OTF2_GlobalDefReaderCallbacks_SetStringCallback (cbs, scan_string);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback (cbs, scan_region);
  gboolean ok = read_defs (anchor, cbs, &n, error);
  OTF2_GlobalDefReaderCallbacks_Delete (cbs);
  GHashTableIter it;
  gpointer       region, sid;
  g_hash_table_iter_init (&it, n.keys);
  while (ok && g_hash_table_iter_next (&it, &region, &sid))
    g_hash_table_insert (by_key, g_strdup (g_hash_table_lookup (n.strings, sid)),
                         GUINT_TO_POINTER (GPOINTER_TO_UINT (region) + 1));
  *max_region = n.max_region;
  g_hash_table_unref (n.strings);
  g_hash_table_unref (n.keys);
  return ok;
}

gboolean
symbols_name_trace (const char      *anchor,
                    SymbolsResolver *r,
                    const GArray    *add,
                    guint           *named,
                    guint           *frames,
                    GError         **error)
{
  *named = *frames = 0;
  Naming n = { 0 };
  n.add = add != NULL && add->len > 0 ? add : NULL;
  n.strings = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  n.keys = g_hash_table_new (g_direct_hash, g_direct_equal);
  n.frames = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, frame_free);
  gboolean ok = TRUE;
  OTF2_GlobalDefReaderCallbacks *cbs = OTF2_GlobalDefReaderCallbacks_New ();
  OTF2_GlobalDefReaderCallbacks_SetStringCallback (cbs, scan_string);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback (cbs, scan_region);
  ok = read_defs (anchor, cbs, &n, error);
  OTF2_GlobalDefReaderCallbacks_Delete (cbs);
  if (ok && n.add != NULL)
    {
      /* the added regions are named like the others */
      for (guint i = 0; i < n.add->len; i++)
        {
          const SymbolsNewRegion *a = &g_array_index (n.add, SymbolsNewRegion, i);
          SymbolsFrame           *f = g_new0 (SymbolsFrame, 1);
          symbols_resolve_key (r, a->key, f);
          if (f->name == NULL)
            {
              f->name = g_strdup (a->key);
              f->mangled = g_strdup ("");
            }
          (*frames)++;
          if (f->mangled[0] != '\0')
            (*named)++;
          g_hash_table_insert (n.frames, GUINT_TO_POINTER (a->id), f);
        }
    }
  if (ok && (g_hash_table_size (n.keys) > 0 || n.add != NULL))
    {
      GHashTableIter it;
      gpointer       region, sid;
      g_hash_table_iter_init (&it, n.keys);
      while (g_hash_table_iter_next (&it, &region, &sid))
        {
          SymbolsFrame *f = g_new0 (SymbolsFrame, 1);
          symbols_resolve_key (r, g_hash_table_lookup (n.strings, sid), f);
          (*frames)++;
          if (f->mangled != NULL && f->mangled[0] != '\0')
            (*named)++;
          g_hash_table_insert (n.frames, region, f);
        }
      g_autofree char *dir = g_path_get_dirname (anchor);
      g_autofree char *base = g_path_get_basename (anchor);
      g_autofree char *name = g_strndup (base, strlen (base) - (g_str_has_suffix (base, ".otf2") ? 5 : 0));
      g_autofree char *scratch = g_build_filename (dir, ".kubus-naming-XXXXXX", NULL);
      if (g_mkdtemp (scratch) == NULL)
        {
          int e = errno;
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "%s: %s", scratch,
                       g_strerror (e));
          ok = FALSE;
        }
      OTF2_Archive *a = ok ? open_scratch (anchor, scratch, name, error) : NULL;
      ok = a != NULL;
      if (ok)
        {
          n.w = OTF2_Archive_GetGlobalDefWriter (a);
          cbs = OTF2_GlobalDefReaderCallbacks_New ();
          trace_defs_copy_register (cbs);
          OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback (cbs, copy_clock);
          OTF2_GlobalDefReaderCallbacks_SetLocationCallback (cbs, copy_location);
          OTF2_GlobalDefReaderCallbacks_SetRegionCallback (cbs, copy_region);
          OTF2_GlobalDefReaderCallbacks_SetUnknownCallback (cbs, ignore_unknown);
          ok = n.w != NULL && read_defs (anchor, cbs, &n, error);
          OTF2_GlobalDefReaderCallbacks_Delete (cbs);
          if (n.w != NULL)
            OTF2_Archive_CloseGlobalDefWriter (a, n.w);
          OTF2_Archive_Close (a);
        }
      if (ok)
        {
          /* the definitions first: an anchor naming more definitions than its file holds
           * would be worse than the old names */
          g_autofree char *def_name = g_strconcat (name, ".def", NULL);
          g_autofree char *new_def = g_build_filename (scratch, def_name, NULL);
          g_autofree char *new_anchor = g_build_filename (scratch, base, NULL);
          g_autofree char *old_def = g_build_filename (dir, def_name, NULL);
          if (g_rename (new_def, old_def) != 0 || g_rename (new_anchor, anchor) != 0)
            {
              int e = errno;
              g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e),
                           _ ("cannot replace the definitions of %s: %s"), anchor, g_strerror (e));
              ok = FALSE;
            }
        }
      if (scratch != NULL && g_file_test (scratch, G_FILE_TEST_IS_DIR))
        kubus_remove_tree (scratch);
    }
  g_hash_table_unref (n.strings);
  g_hash_table_unref (n.keys);
  g_hash_table_unref (n.frames);
  return ok;
}
