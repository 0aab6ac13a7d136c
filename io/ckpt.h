/* ckpt.h: checkpoint files (parallel HDF5), from which `qmol run --restart`
 * resumes a run.
 *
 * Layout "qmol-checkpoint-2": root attributes layout, qmol_version, t (the
 * window end it was taken at), next_sample (1-based: the first sample not
 * yet written), n, args (the run's `qmol run` arguments, one per line),
 * output (the result file being written); datasets of n values indexed by
 * global state id: x (the states at t), activity (each state's events so
 * far) and, in group integrator, the integrator's own per-state fields
 * (integrator/NAME) and scalars (attributes of the group), see
 * integrator.h's state_io. Written as PATH.partial, closed (flushed) and
 * renamed over PATH by rank 0, so a crash while writing leaves the previous
 * checkpoint intact. Rank r writes and reads the block [first, first +
 * count) of every dataset (its directory block).
 */
#ifndef QMOL_CKPT_H
#define QMOL_CKPT_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define CKPT_LAYOUT "qmol-checkpoint-2"
/* The group of the integrator's fields and scalars. */
#define CKPT_INTEGRATOR "integrator"

typedef struct ckpt_info {
    double t;
    int64_t next_sample, n;
    char *args;   /* malloc'd: the arguments, '\n'-separated */
    char *output; /* malloc'd */
} ckpt_info;

typedef struct ckpt_file ckpt_file;

/* Collective: creates PATH.partial with info's attributes and the
 * integrator group. Returns NULL with err (agreed) on failure. */
ckpt_file *ckpt_create(const char *path, MPI_Comm comm, const ckpt_info *info, int64_t first,
                       int64_t count, char *err, size_t errlen);
/* Collective: opens the checkpoint at path (n states) for reading. Returns
 * NULL with err (agreed) on failure. */
ckpt_file *ckpt_open(const char *path, MPI_Comm comm, int64_t n, int64_t first, int64_t count,
                     char *err, size_t errlen);
/* Collective: writes (a created file) or reads (an opened one) this rank's
 * block of dataset name ("x", "integrator/q0"). A read checks that no
 * value is NaN. Returns 0, or -1 (agreed; the reason is ckpt_error's). */
int ckpt_block(ckpt_file *f, const char *name, double *block);
/* Collective: writes or reads dataset name, len values that every rank
 * holds alike (rank 0 writes them; every rank reads them all). Returns 0 or
 * -1 as ckpt_block. */
int ckpt_vector(ckpt_file *f, const char *name, int64_t len, double *values);
/* Collective: writes or reads the scalar name of the integrator group (the
 * same value on every rank; infinite allowed, not NaN). Returns 0 or -1 as
 * ckpt_block. */
int ckpt_scalar(ckpt_file *f, const char *name, double *value);
/* Whether the integrator group holds the scalar name (a read-only look, the
 * same answer on every rank: they read one file). */
int ckpt_has_scalar(ckpt_file *f, const char *name);
/* Whether dataset name ("integrator/q0") is in the file (a read-only look,
 * the same answer on every rank). */
int ckpt_has_block(ckpt_file *f, const char *name);
/* The first failure's message, or "". */
const char *ckpt_error(const ckpt_file *f);
/* Collective: closes f. A created file is renamed over PATH when commit is
 * set and nothing failed, and removed otherwise. Returns 0, or -1 with err
 * (agreed) when the close or the rename failed. */
int ckpt_close(ckpt_file *f, int commit, char *err, size_t errlen);

/* Reads the root attributes (any rank, alone). Returns 0, or -1 with err
 * naming the file (missing, not HDF5 or truncated, not a qmol checkpoint). */
int ckpt_read_info(const char *path, ckpt_info *info, char *err, size_t errlen);
void ckpt_info_free(ckpt_info *info);

#endif
