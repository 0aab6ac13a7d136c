/* run_files.c: the output's plan and names, and rank 0's look at the file
 * system before anything is computed (run_internal.h). */
#include "comm/agree.h"
#include "core/discontinuities.h"
#include "io/place.h"
#include "driver/run_internal.h"
#include "io/workfile.h"
#include "io/xdmf.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Characters of a directory's name limit that an output's base name leaves
 * for the suffixes qmol and Open MPI's MPI-IO add (".ckpt", ".partial",
 * "_cid-N-PID.sm"): with 255, names of 215 characters and less. */
#define OUTPUT_NAME_MARGIN 40

/* The files a run writes must all differ: the output, the checkpoint, their
 * working files (NAME.partial) and the XDMF file. A checkpoint named like
 * the output's working file replaced the results with a checkpoint, exit 0
 * (issue 17). Returns 0, or 1 with a message naming the two in why. */
static int file_collision(const char *output, const char *xmf, const char *ckpt, int ckpt_given,
                          char *why, size_t whylen) {
    char names[6][PATH_MAX + 16];
    const char *what[6];
    int n = 0;
    const char *files[3][2] = {
        {output, "the output"}, {xmf, "the XDMF file"}, {ckpt, "the checkpoint"}};
    for (int f = 0; f < 3; f++) { /* each file and its working file */
        if (!files[f][0]) continue;
        snprintf(names[n], sizeof names[n], "%s", files[f][0]);
        what[n++] = files[f][1];
        snprintf(names[n], sizeof names[n], "%s.partial", files[f][0]);
        what[n++] = f == 0   ? "the output's working file"
                    : f == 1 ? "the XDMF file's working file"
                             : "the checkpoint's working file";
    }
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            if (!place_same_file(names[a], names[b])) continue;
            int by_ckpt = ckpt && ckpt_given && b >= n - 2;
            snprintf(why, whylen,
                     "%s %s: %s %s is also %s (the output, the checkpoint, their .partial working "
                     "files and the XDMF file must all differ)",
                     by_ckpt ? "--checkpoint-file" : "--output", by_ckpt ? ckpt : output, what[b],
                     names[b], what[a]);
            return 1;
        }
    return 0;
}

/* Why the output cannot be written in its directory (NULL: it can): the
 * directory, or a base name too long for the names made from it
 * (FILE.ckpt.h5.partial, and the files Open MPI's MPI-IO makes beside it,
 * FILE.partial_cid-N-PID.sm: with a longer name its lockedfile component
 * overflows a buffer and aborts). *dir: the directory (to free). */
static const char *directory_problem(const char *path, char **dir, char *buf, size_t len) {
    const char *why = place_problem(path, dir);
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    long name_max = *dir && !why ? pathconf(*dir, _PC_NAME_MAX) : -1;
    if (!why && name_max > OUTPUT_NAME_MARGIN &&
        (long)strlen(base) > name_max - OUTPUT_NAME_MARGIN) {
        snprintf(buf, len,
                 "the file name has %zu characters, at most %ld here (the directory allows "
                 "%ld, and the run adds suffixes)",
                 strlen(base), name_max - OUTPUT_NAME_MARGIN, name_max);
        why = buf;
    }
    return why;
}

/* A new run's checks of the files it would replace and of the checkpoint's
 * place (found now, not at the first checkpoint, maybe hours later).
 * Returns 1 with r->err, or 0. */
static int new_run_problem(run_ctx *r, const char *ck_path) {
    const run_config *c = &r->c;
    const char *path = r->path;
    char *ck_dir = NULL;
    const char *ck_why = NULL;
    struct stat st;
    int bad = 1;
    if (c->overwrite && lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        /* the finished file is renamed into place, which replaces a link */
        snprintf(r->err, sizeof r->err,
                 "--output %s: is a symbolic link; --overwrite would replace the link and "
                 "leave its target as it was: name the target itself, or remove the link",
                 path);
    } else if (!c->overwrite && lstat(path, &st) == 0) { /* a dangling link too */
        snprintf(r->err, sizeof r->err, "--output %s: file exists (pass --overwrite to replace it)",
                 path);
    } else if (r->xmf && !c->overwrite && access(r->xmf, F_OK) == 0) {
        snprintf(r->err, sizeof r->err,
                 "--output %s: its XDMF file %s exists (pass --overwrite to replace it)", path,
                 r->xmf);
    } else if (ck_path && c->checkpoint_file &&
               (ck_why = place_problem(ck_path, &ck_dir)) != NULL) {
        snprintf(r->err, sizeof r->err, "--checkpoint-file %s: cannot write in directory %s: %s",
                 ck_path, ck_dir ? ck_dir : "", ck_why);
    } else if (file_collision(path, r->xmf, ck_path, c->checkpoint_file != NULL, r->err,
                              sizeof r->err)) {
    } else if (ck_path && stat(ck_path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(r->err, sizeof r->err, "--checkpoint-file %s: is a directory", ck_path);
    } else if (ck_path && !c->overwrite && access(ck_path, F_OK) == 0) {
        /* a stopped or failed run's checkpoint is not written over unasked */
        snprintf(r->err, sizeof r->err,
                 "--output %s: the checkpoint %s of a stopped or failed run exists: resume it "
                 "(qmol run --restart %s), or pass --overwrite to start anew",
                 path, ck_path, ck_path);
    } else {
        bad = 0;
    }
    free(ck_dir);
    return bad;
}

/* Rank 0's checks: the directory first (nothing is computed for a file that
 * cannot be written), then the output's working file (workfile.h: a stopped
 * run's goes on with a restart; a new run refuses a link, a live run's, and
 * without --overwrite a stopped run's samples), then a new run's files.
 * Returns 1 with r->err, or 0. */
static int file_problem(run_ctx *r) {
    const run_config *c = &r->c;
    const char *path = r->path;
    char *dir = NULL, too_long[160], why_partial[768];
    const char *why = directory_problem(path, &dir, too_long, sizeof too_long);
    size_t plen = strlen(path) + sizeof ".partial";
    char *partial = malloc(plen);
    if (partial) snprintf(partial, plen, "%s.partial", path);
    /* where checkpoints go (also a failed run's last window, a stop's) */
    char *ck_path = r->can_checkpoint ? checkpoint_path(c, path) : NULL;
    struct stat st;
    int bad = 1;
    if (why) {
        snprintf(r->err, sizeof r->err, "--output %s: cannot write in directory %s: %s", path,
                 dir ? dir : "", why);
    } else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(r->err, sizeof r->err,
                 "--output %s: is a directory (expected a file name such as %s.h5)", path,
                 r->def->name);
    } else if (!partial) {
        snprintf(r->err, sizeof r->err, "out of memory");
    } else if (c->restart && lstat(partial, &st) != 0) {
        snprintf(r->err, sizeof r->err,
                 "--restart %s: the stopped run's output %s is gone (it holds the samples "
                 "written before the checkpoint)",
                 c->restart, partial);
    } else if (workfile_check(partial,
                              c->restart     ? WORKFILE_RESUME
                              : c->overwrite ? WORKFILE_DISCARD
                                             : WORKFILE_NEW,
                              why_partial, sizeof why_partial)) {
        snprintf(r->err, sizeof r->err, "%s %s: %s", c->restart ? "--restart" : "--output",
                 c->restart ? c->restart : path, why_partial);
    } else {
        /* a restart's output goes on: the checks of a new run's files are not its */
        bad = !c->restart && new_run_problem(r, ck_path);
    }
    free(dir);
    free(partial);
    free(ck_path);
    return bad;
}

int run_plan_output(run_ctx *r) {
    if (output_plan_build(&r->plan, &r->c, &r->prob, r->err, sizeof r->err) != 0) {
        run_say(r, "qmol: error: %s\n", r->err);
        return 2;
    }
    r->c.tf = r->plan.tf;
    if (r->c.output) {
        r->path = strdup(r->c.output);
    } else {
        size_t len = strlen(r->def->name) + 4;
        r->path = malloc(len);
        if (r->path) snprintf(r->path, len, "%s.h5", r->def->name);
    }
    /* grid problems: FILE.xmf beside FILE.h5 for ParaView (io/xdmf.h) */
    r->xmf = r->path && r->prob.ndims > 0 ? xdmf_path(r->path) : NULL;
    if (!r->path || (r->prob.ndims > 0 && !r->xmf)) {
        run_say(r, "qmol: error: out of memory\n");
        return 2;
    }
    /* runs that write checkpoints (all but problems whose discrete variables
     * qmol cannot read and set) */
    r->can_checkpoint = !problem_has_discontinuities(&r->prob) || r->prob.n_discrete > 0;
    /* rank 0 looks at the file system; everyone follows its verdict */
    int bad = r->rank == 0 && file_problem(r);
    if (comm_agree(r->comm, bad, r->err, sizeof r->err)) {
        run_say(r, "qmol: error: %s\n", r->err);
        return 2;
    }
    return 0;
}
