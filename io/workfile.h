/* workfile.h: the working file (NAME.partial) a run writes before it
 * publishes NAME.
 *
 * A working file is claimed exclusively (O_EXCL), never through a symbolic
 * link, and locked with flock(2) while the claiming process holds the
 * descriptor (a shared lock, which HDF5 readers share: h5py and qmol info
 * open the file while the run goes on), so that another run, whose probe is
 * exclusive, tells a live working file (refused) from one that a stopped or
 * killed run left. Rank 0 calls these; the others
 * follow its verdict. flock is advisory and local: on NFS, where Linux
 * emulates it with byte-range locks that MPI-IO's own locks release, a live
 * run may go undetected (the exclusive creation still holds).
 */
#ifndef QMOL_WORKFILE_H
#define QMOL_WORKFILE_H

#include <stddef.h>

typedef enum {
    WORKFILE_NEW,     /* create it; an existing one is refused (a run's samples) */
    WORKFILE_DISCARD, /* create it; an existing one no live run holds is removed */
    WORKFILE_RESUME   /* open the existing one (a restart) */
} workfile_mode;

/* Claims `partial`. Returns a descriptor that holds the lock (keep it open
 * while the file is written, close it after workfile_publish), or -1 with
 * the reason in err: another run holds it, it is a symbolic link, it exists
 * (WORKFILE_NEW), or the system's reason. */
int workfile_claim(const char *partial, workfile_mode mode, char *err, size_t errlen);

/* The verdict workfile_claim would give, without creating or removing
 * anything (the checks at the start of a run): 0, or -1 with err set. */
int workfile_check(const char *partial, workfile_mode mode, char *err, size_t errlen);

/* Renames partial to path. With replace = 0 an existing path (one that
 * appeared while the run went on) is not replaced. Returns 0, or -1 with the
 * reason in err (partial is left as it was). */
int workfile_publish(const char *partial, const char *path, int replace, char *err, size_t errlen);

#endif
