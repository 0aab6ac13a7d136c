/* workfile.c: claiming and publishing a run's working file (workfile.h). */
/* flock, O_NOFOLLOW and renameat2 (RENAME_NOREPLACE) are GNU/BSD extensions */
#define _GNU_SOURCE
#include "io/workfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether a live process holds `partial` (its lock is taken: by a run, or by
 * a reader that has it open at this moment). 0: no one; 1: someone; -1: it
 * could not be opened (errno set). */
static int held_by_live_run(const char *partial) {
    int fd = open(partial, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return -1;
    int held = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd);
    return held;
}

static int live_run_message(const char *partial, char *err, size_t errlen) {
    snprintf(err, errlen,
             "%s is being written by another qmol run now (it holds the file's lock): give this "
             "run another output or checkpoint name, or wait until that run ends",
             partial);
    return -1;
}

/* Takes the lock of a working file: exclusive first (no other process holds
 * it), then shared for the run's life, so that HDF5 readers (h5py, qmol
 * info), which take a shared flock to open a file, still open it while the
 * run goes on; a second run's exclusive probe fails. 0, or -1 when another
 * process holds it. */
static int hold(int fd) {
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) return -1;
    return flock(fd, LOCK_SH | LOCK_NB) == 0 ? 0 : -1;
}

static int resume(const char *partial, char *err, size_t errlen) {
    int fd = open(partial, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        int eno = errno;
        snprintf(err, errlen, "cannot open %s: %s", partial,
                 eno == ELOOP ? "it is a symbolic link (qmol does not write through links)"
                              : strerror(eno));
        return -1;
    }
    if (hold(fd) != 0) {
        close(fd);
        return live_run_message(partial, err, errlen);
    }
    return fd;
}

/* The verdict on an existing `partial` for a new claim: 0 when it may be
 * removed (WORKFILE_DISCARD, no live run holds it), else -1 with err set. */
static int judge_existing(const char *partial, const struct stat *st, workfile_mode mode, char *err,
                          size_t errlen) {
    int link = S_ISLNK(st->st_mode);
    if (!link && held_by_live_run(partial) == 1) return live_run_message(partial, err, errlen);
    if (mode == WORKFILE_DISCARD) return 0;
    snprintf(err, errlen,
             link ? "%s is a symbolic link (qmol does not write through links): remove it, or "
                    "pass --overwrite to remove it (its target is kept)"
                  : "%s exists, left by a run that stopped or was killed (its samples so far): "
                    "resume that run with --restart and its checkpoint if it left one, or pass "
                    "--overwrite to discard them",
             partial);
    return -1;
}

int workfile_check(const char *partial, workfile_mode mode, char *err, size_t errlen) {
    if (mode == WORKFILE_RESUME) {
        int held = held_by_live_run(partial);
        if (held == 1) return live_run_message(partial, err, errlen);
        if (held < 0 && errno == ELOOP) {
            snprintf(err, errlen, "%s is a symbolic link (qmol does not write through links)",
                     partial);
            return -1;
        }
        return 0; /* a missing one is the caller's to report */
    }
    struct stat st;
    return lstat(partial, &st) != 0 ? 0 : judge_existing(partial, &st, mode, err, errlen);
}

int workfile_claim(const char *partial, workfile_mode mode, char *err, size_t errlen) {
    if (mode == WORKFILE_RESUME) return resume(partial, err, errlen);
    for (int attempt = 0; attempt < 3; attempt++) {
        int fd = open(partial, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0) {
            if (hold(fd) == 0) return fd;
            close(fd); /* taken between the creation and the lock */
            return live_run_message(partial, err, errlen);
        }
        if (errno != EEXIST) {
            snprintf(err, errlen, "cannot create %s: %s", partial, strerror(errno));
            return -1;
        }
        struct stat st;
        if (lstat(partial, &st) != 0) continue; /* removed meanwhile: try again */
        if (judge_existing(partial, &st, mode, err, errlen)) return -1;
        /* removing a link removes the link, never its target */
        if (unlink(partial) != 0 && errno != ENOENT) {
            snprintf(err, errlen, "cannot remove the old %s: %s", partial, strerror(errno));
            return -1;
        }
    }
    snprintf(err, errlen, "cannot create %s: another process keeps creating it", partial);
    return -1;
}

int workfile_publish(const char *partial, const char *path, int replace, char *err, size_t errlen) {
    int rc = replace ? rename(partial, path)
                     : renameat2(AT_FDCWD, partial, AT_FDCWD, path, RENAME_NOREPLACE);
    if (rc != 0 && !replace && (errno == EINVAL || errno == ENOSYS)) {
        /* a file system without RENAME_NOREPLACE: a hard link does not
         * replace either; without hard links, a check and a rename */
        if (link(partial, path) == 0)
            rc = unlink(partial);
        else if (errno != EEXIST && access(path, F_OK) != 0)
            rc = rename(partial, path);
        else
            errno = EEXIST;
    }
    if (rc == 0) return 0;
    int eno = errno ? errno : EIO;
    if (eno == EEXIST)
        snprintf(err, errlen,
                 "%s appeared while the run went on (another program wrote it): not replaced "
                 "without --overwrite; the results are in %s",
                 path, partial);
    else
        snprintf(err, errlen, "cannot rename %s to %s: %s (the results are in %s)", partial, path,
                 strerror(eno), partial);
    return -1;
}
