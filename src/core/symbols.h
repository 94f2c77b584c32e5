/* symbols.h — names for the functions the collector found on the stack, after the run.
 *
 * The collector identifies a function by its module and entry ("kubus-frame:BUILDID:PATH+0xOFF",
 * the canonical name of its region, src/collect/collect-unwind.c) and names nothing inside the
 * application.  These files turn such keys into names — DWARF (linkage name, else the name),
 * else .symtab / .dynsym (libdwfl reads both, and separate debug files it can find), demangled
 * (C++ with libiberty, gfortran module procedures by rule) — with the declaration's file and
 * line where debug information has them; and write them into the trace's region definitions
 * (symbols-trace.c) and into reports (symbols-report.c).  A function with no symbol keeps
 * "library+0xOFFSET". */
#pragma once

#include <cube.h>
#include <glib.h>

#define SYMBOLS_FRAME_PREFIX "kubus-frame:"

typedef struct
{
  char  *name;    /* demangled, or "library+0xOFFSET" */
  char  *mangled; /* the symbol as linked; "" when there is none */
  char  *file;    /* absolute where the compilation folder is known; NULL: unknown */
  gint64 line;    /* -1: unknown */
} SymbolsFrame;

typedef struct _SymbolsResolver SymbolsResolver;

/* The module path of a frame key (its @len bytes at @s) as the file system spells it: the
 * collector writes a byte that is not part of a UTF-8 character, and '%', as %XX. */
char *symbols_frame_path (const char *s, gsize len);

SymbolsResolver *symbols_resolver_new (void);
void             symbols_resolver_free (SymbolsResolver *r);
/* Names the function of @key (a frame region's canonical name).  FALSE when @key is not a frame
 * key.  @out is filled in either way of success (free with symbols_frame_clear). */
gboolean symbols_resolve_key (SymbolsResolver *r, const char *key, SymbolsFrame *out);
void     symbols_frame_clear (SymbolsFrame *f);
/* Modules whose build id differs from the one recorded (rebuilt since the run): their paths,
 * once each (owned by @r). */
GPtrArray *symbols_resolver_stale (SymbolsResolver *r);

/* C++ (Itanium ABI) and gfortran module procedures (__mod_MOD_proc → mod::proc); NULL when
 * @sym is neither. */
char *symbols_demangle (const char *sym);
/* A source file named by debugging information, against its compilation folder @dir (NULL:
 * none): canonical when either is absolute.  A relative @dir is kept as a prefix: Debian's
 * packages record "." there (reproducible builds map the build folder away), and
 * g_canonicalize_filename accepts only an absolute base. */
char *symbols_source_path (const char *file, const char *dir);

/* A frame region to add to a trace's definitions (kubus-run after an abort: the functions of
 * ranks that could not unify theirs). */
typedef struct
{
  guint32 id;
  char   *key;
} SymbolsNewRegion;

/* Rewrites the region definitions of the OTF2 trace @anchor (EXPDIR/traces.otf2): every frame
 * region gets its name, canonical (mangled) name, source file and line; @add (NULL, or a GArray
 * of SymbolsNewRegion) are defined as well.  The new global definitions are written with OTF2
 * into a scratch archive beside and renamed into place.
 * @named / @frames: frame regions given a symbol / all frame regions. */
gboolean symbols_name_trace (const char      *anchor,
                             SymbolsResolver *r,
                             const GArray    *add,
                             guint           *named,
                             guint           *frames,
                             GError         **error);
/* The region ids of @anchor's frame regions by key (key → id + 1) and the largest region id. */
gboolean symbols_trace_frames (const char *anchor, GHashTable *by_key, guint32 *max_region,
                               GError **error);

/* Names the frame regions of @report (a profile or an analysis report whose regions are still
 * keys): name, mangled name, mod and begin line.  Returns how many were frames. */
guint symbols_name_report (CubeReport *report, SymbolsResolver *r);

/* The same for a compressed trace (EXPDIR/traces.kct), rewritten in place (temporary file and
 * rename); its regions keep no line. */
gboolean symbols_name_kct (const char      *path,
                           SymbolsResolver *r,
                           guint           *named,
                           guint           *frames,
                           GError         **error);
