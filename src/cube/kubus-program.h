/* kubus-program.h — what every Kubus program does the same way: the locale and its message
 * catalogue (found from the program's own location, so the build tree and any installed or
 * moved prefix speak the user's language), the program name in messages, and the answers to
 * --version and --help.
 *
 * Not part of libkubus-cube: a small static library (program_dep in src/cube/meson.build)
 * that kubus, kubus-run, kubus-analyze, kubus-cube, kubus-sim and kubus-trace link.
 *
 *   int main (int argc, char **argv)
 *   {
 *     kubus_program_init ("kubus-sim");          // first: locale, catalogue, name
 *     …GOptionContext with kubus_program_option_entries (&version) added…
 *     if (version)
 *       return kubus_program_print_version ();   // "kubus-sim (Kubus) 0.1.0"
 *
 * --help is GOption's (stdout, exit 0). A program with its own parser answers "-h"/"--help" with
 * its usage text on stdout, then kubus_program_print_common_options (stdout), and exit 0.
 */
#pragma once

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

/* Sets the locale from the environment and binds the "kubus" text domain to
 * kubus_program_localedir(). @name is the program's name in messages ("kubus-analyze"). */
void        kubus_program_init                 (const char *name);

/* The name given to kubus_program_init() ("kubus" before). */
const char *kubus_program_name                 (void);

/* Where the message catalogues are (owned by the library): next to a program in the build
 * tree, the build's po folder; for an installed program, the locale folder of the prefix it is
 * installed in, wherever that prefix has been moved; else the configured LOCALEDIR. */
const char *kubus_program_localedir            (void);

/* A folder of the installation relative to the program: @installed under the prefix's datadir
 * ("glib-2.0/schemas"), or @in_build under the build root when the program runs from a build
 * tree ("data"). Returns a newly allocated path to an existing folder, or NULL. */
char       *kubus_program_find_data            (const char *installed,
                                                const char *in_build);

/* Prints "NAME (Kubus) VERSION\n" to standard output; returns 0 (the exit status). */
int         kubus_program_print_version        (void);

/* The --version entry for a GOption program (NULL-terminated pair; *version set when given). */
const GOptionEntry *kubus_program_option_entries (gboolean *version);

/* For programs with their own parser: the lines about -h/--help and --version that every
 * program's help ends with. */
void        kubus_program_print_common_options (FILE *out);

G_END_DECLS
