/* fuzz_config.c: libFuzzer target for `qmol run` argument and INI parsing,
 * config_parse() in src/driver/config.c (fuzz/README.md).
 *
 * An input is an argv part and an INI part, split at the first line that is
 * exactly "%%"; without such a line both parts are the whole input. Each
 * input is parsed twice:
 *  (b) the INI part, written to a per-process temporary file (config.c hands
 *      inih a FILE opened from a path and has no in-memory entry point),
 *      parsed as `-c FILE`;
 *  (a) the argv part, split at '\n' and '\0' into words, parsed as the
 *      arguments after "run". A config-file argument (-c X, --config X,
 *      --config=X) is pointed at the same temporary file, so that no other
 *      path is ever opened (/dev/zero or a FIFO would hang the fuzzer); with
 *      a "%%" line, the command line's options over the INI file's are
 *      exercised on a valid file, not only on the argv words read as INI.
 * config_free() follows every call, whatever it returned: LeakSanitizer then
 * finds anything config_parse() allocated and config_free() does not release.
 * Beyond crashes, undefined behaviour and leaks, the target checks the
 * documented contract (findings, see fuzz_common.h): the result is 0 or 2,
 * an error is one non-empty line, and an accepted configuration holds only
 * values its options allow.
 */
#include "driver/config.h"
#include "fuzz/fuzz_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TARGET "fuzz_config"
#define MAX_WORDS 4096

static char ini_path[4096];
static int ini_fd = -1;
static pid_t ini_owner;

static void remove_ini(void) {
    /* only the process that made it (libFuzzer may fork) */
    if (ini_fd >= 0 && getpid() == ini_owner) unlink(ini_path);
}

/* The temporary file goes to $TMPDIR, else /dev/shm, else /tmp: the first
 * where it can be made. On tmpfs (/dev/shm) the target runs about ten times
 * faster than on a disk file system, where truncating and rewriting the file
 * for every input dominates. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    const char *dirs[] = {getenv("TMPDIR"), "/dev/shm", "/tmp"};
    for (size_t k = 0; k < sizeof dirs / sizeof dirs[0] && ini_fd < 0; k++) {
        if (!dirs[k] || !*dirs[k]) continue;
        if (snprintf(ini_path, sizeof ini_path, "%s/qmol-fuzz-config-XXXXXX", dirs[k]) >=
            (int)sizeof ini_path)
            continue;
        ini_fd = mkstemp(ini_path);
    }
    if (ini_fd < 0) {
        perror("fuzz_config: cannot make a temporary file in $TMPDIR, /dev/shm or /tmp");
        exit(1);
    }
    ini_owner = getpid();
    atexit(remove_ini);
    return 0;
}

static int write_ini(const uint8_t *data, size_t size) {
    if (ftruncate(ini_fd, 0) != 0) return -1;
    size_t done = 0;
    while (done < size) {
        ssize_t w = pwrite(ini_fd, data + done, size - done, (off_t)done);
        if (w <= 0) return -1;
        done += (size_t)w;
    }
    return 0;
}

/* Checks config_parse's contract on one result. */
static void check(const char *mode, int rc, const run_config *c, const char *err, size_t errlen,
                  const uint8_t *data, size_t size) {
    if (rc != 0 && rc != 2) {
        fuzz_finding(TARGET, "bad-return", data, size, "%s: config_parse returned %d", mode, rc);
        return;
    }
    if (rc == 2) {
        if (!fuzz_message_ok(err, errlen))
            fuzz_finding(TARGET, "empty-message", data, size,
                         "%s: config_parse returned 2 with an empty or unterminated message", mode);
        else if (strchr(err, '\n'))
            fuzz_finding(TARGET, "multiline-message", data, size, "%s: message spans lines: %s",
                         mode, err);
        return;
    }
    /* each promise with its own finding kind, so one does not hide another */
    int sets_ok = c->nsets >= 0 && (c->nsets == 0 || (c->sets && c->set_origins));
    for (int k = 0; sets_ok && k < c->nsets; k++)
        sets_ok = c->sets[k] && strchr(c->sets[k], '=');
    const struct {
        int ok;
        const char *kind, *what;
    } promise[] = {
        {c->problem && c->problem[0], "accepted-problem", "no problem name"},
        {c->reltol > 0.0 && c->reltol < 1.0, "accepted-tol", "tol outside (0, 1)"},
        {c->abstol > 0.0 && isfinite(c->abstol), "accepted-abstol",
         "abstol not a finite number > 0"},
        {isnan(c->tf) || isfinite(c->tf), "accepted-tf", "tf not finite"},
        {c->samples >= 1 && c->samples <= 100000000, "accepted-samples",
         "samples outside [1, 1e8]"},
        {c->max_order >= 1 && c->max_order <= 5, "accepted-max-order", "max-order outside [1, 5]"},
        {c->compress >= 0 && c->compress <= 9, "accepted-compress", "compress outside [0, 9]"},
        {c->pieces >= 0 && c->pieces <= 4096, "accepted-pieces", "pieces outside [0, 4096]"},
        {c->assign_depth >= -1 && c->assign_depth <= 1000000, "accepted-assign-depth",
         "assign-depth outside [0, 1e6]"},
        {c->coarsen_above >= 0, "accepted-coarsen-above", "coarsen-above negative"},
        {c->window >= 0.0 && c->window_min >= 0.0 && c->window_max >= 0.0, "accepted-window",
         "a window negative or NaN"},
        {(c->progress >= 0.0 && isfinite(c->progress)) || c->progress == -1.0, "accepted-progress",
         "progress negative or not finite"},
        {integrator_has(c->method, INTEGRATOR_ASSIGNS) ==
             (c->bdf_rule != NULL || c->bdf_file != NULL || c->assign_auto != 0),
         "accepted-mixed", "--bdf/--bdf-file/--assign auto without --method mixed, or the reverse"},
        {sets_ok, "accepted-set", "an assignment without '=' or missing"},
        {(c->checkpoint_sim >= 0.0 && isfinite(c->checkpoint_sim) && c->checkpoint_wall >= 0.0 &&
          isfinite(c->checkpoint_wall) && !(c->checkpoint_sim > 0.0 && c->checkpoint_wall > 0.0)),
         "accepted-checkpoint-every", "checkpoint-every negative, not finite, or both kinds"},
        {c->keep_last_window == 0 || c->keep_last_window == 1, "accepted-keep-last-window",
         "keep-last-window neither on nor off"},
    };
    for (size_t k = 0; k < sizeof promise / sizeof promise[0]; k++)
        if (!promise[k].ok)
            fuzz_finding(TARGET, promise[k].kind, data, size,
                         "%s: config_parse accepted a configuration with %s (tol %.17g, abstol "
                         "%.17g)",
                         mode, promise[k].what, c->reltol, c->abstol);
}

static void parse_and_check(const char *mode, int argc, char **argv, const uint8_t *data,
                            size_t size) {
    run_config c;
    char err[1024];
    /* no NUL anywhere: an unterminated message shows */
    memset(err, 0x7f, sizeof err);
    /* garbage in c: config_parse must set every field itself */
    memset(&c, 0xa5, sizeof c);
    int rc = config_parse(&c, argc, argv, err, sizeof err);
    check(mode, rc, &c, err, sizeof err, data, size);
    config_free(&c);
}

/* Points every config-file argument at the temporary file, scanning as
 * config_parse's first pass does. Empty names are kept (refused before any
 * open). Returns 0, or -1 when out of memory. */
static int redirect_config_paths(fuzz_words *w) {
    for (int a = 0; a < w->count; a++) {
        char *arg = w->word[a], *fresh = NULL;
        int slot = a;
        if (!strncmp(arg, "--config=", 9)) {
            if (!arg[9]) continue;
            size_t len = 9 + strlen(ini_path) + 1;
            fresh = malloc(len);
            if (fresh) snprintf(fresh, len, "--config=%s", ini_path);
        } else if ((!strcmp(arg, "-c") || !strcmp(arg, "--config")) && a + 1 < w->count) {
            slot = ++a;
            if (!w->word[slot][0]) continue;
            fresh = strdup(ini_path);
        } else {
            continue;
        }
        if (!fresh) return -1;
        free(w->word[slot]);
        w->word[slot] = fresh;
    }
    return 0;
}

/* The offset of the first "%%" line in data, or size if none. */
static size_t find_split(const uint8_t *data, size_t size) {
    for (size_t k = 0; k + 2 <= size; k++)
        if ((k == 0 || data[k - 1] == '\n') && data[k] == '%' && data[k + 1] == '%' &&
            (k + 2 == size || data[k + 2] == '\n'))
            return k;
    return size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    size_t argv_size = find_split(data, size);
    const uint8_t *ini = data;
    size_t ini_size = size;
    if (argv_size < size) {
        size_t skip = argv_size + 2 < size ? argv_size + 3 : argv_size + 2; /* "%%\n" */
        ini = data + skip;
        ini_size = size - skip;
    }
    /* (b) the INI part as an INI file */
    if (write_ini(ini, ini_size) != 0) {
        perror("fuzz_config: writing the INI file");
        abort();
    }
    char flag[] = "-c";
    char *ini_argv[] = {flag, ini_path};
    parse_and_check("ini", 2, ini_argv, data, size);

    /* (a) the argv part as argv words, its config files being (b)'s */
    fuzz_words w;
    if (fuzz_split(data, argv_size, MAX_WORDS, &w) != 0) return 0;
    if (redirect_config_paths(&w) == 0) parse_and_check("argv", w.count, w.word, data, size);
    fuzz_words_free(&w);
    return 0;
}
