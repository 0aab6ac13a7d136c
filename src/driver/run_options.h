/* run_options.h: the table of `qmol run` options.
 *
 * One entry per option gives its name (also its [run] key in an INI file),
 * its usage text, and how its value is checked and stored in a run_config.
 * The usage (`qmol run --help`), the list of allowed names in messages and
 * the parsing all come from the table, so they cannot drift apart.
 * config.c reads the command line and INI files with it.
 */
#ifndef QMOL_RUN_OPTIONS_H
#define QMOL_RUN_OPTIONS_H

#include "driver/config.h"

#include <stddef.h>

typedef struct run_option run_option;

/* The option named `name` (without "--"), or NULL. */
const run_option *run_option_find(const char *name);
/* The option a command-line argument names, "--name" or "--name=value"
 * (*value: what follows '=', else NULL), or NULL when it names none. */
const run_option *run_option_of_arg(const char *arg, const char **value);
/* Its name, without "--". */
const char *run_option_name(const run_option *o);
/* Whether it is a flag on the command line (no value: --quiet); in an INI
 * file a flag takes true/false. */
int run_option_is_flag(const run_option *o);
/* Whether it may come with --restart (the other options come from the
 * checkpoint), and "--checkpoint-every, ..." of those. */
int run_option_on_restart(const run_option *o);
void run_options_restart_list(char *buf, size_t len);
/* Whether an INI file's [run] section may set it (not --set, --restart). */
int run_option_in_ini(const run_option *o);
/* Checks value and stores it in c. `where` names the input for a message
 * ("--tol" or "run.ini:3: [run] tol") and `sep` goes between it and the
 * value (" " or " = "), so the message quotes the input as written.
 * Returns 0, or 2 with a one-line message in err. */
int run_option_apply(run_config *c, const run_option *o, const char *value, const char *where,
                     const char *sep, char *err, size_t errlen);
/* Where option `name` was last given, as written ("--tf 5",
 * "run.ini:3: [run] tf = 5"), or NULL when it was not (its default). */
const char *run_option_given(const run_config *c, const char *name);
/* Refuses options the run's method does not use (--linsol with a QSS
 * method, --window with cvode, ...), wherever they were given: silently
 * ignored, they would let a user believe they took effect. Returns 0, or 2
 * with a one-line message in err. */
int run_options_check_used(const run_config *c, char *err, size_t errlen);
/* Sets every option that has a default in the table to it (through the
 * option's own check, so a default is a valid value by construction). */
void run_options_defaults(run_config *c);
/* "-c/--config, --problem, ..." (cli) or "problem, method, ..." (INI). */
void run_options_list(char *buf, size_t len, int cli);
/* Prints the usage of `qmol run`. */
void run_options_usage(void);

#endif
