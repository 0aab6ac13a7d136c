/* ckpt.h: checkpoint files (parallel HDF5), from which `qmol run --restart`
 * resumes a run.
 *
 * Layout "qmol-checkpoint-1": root attributes layout, qmol_version, t (the
 * window end it was taken at), next_sample (1-based: the first sample not
 * yet written), n, args (the run's `qmol run` arguments, one per line),
 * output (the result file being written); datasets x (n, the states at t)
 * and activity (n, each state's events so far). Written as PATH.partial,
 * closed (flushed) and renamed over PATH by rank 0, so a crash while writing
 * leaves the previous checkpoint intact. Rank r writes and reads the block
 * [dir_first(n, P, r), dir_first(n, P, r + 1)) of x and activity.
 */
#ifndef QMOL_CKPT_H
#define QMOL_CKPT_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define CKPT_LAYOUT "qmol-checkpoint-1"

typedef struct ckpt_info {
    double t;
    int64_t next_sample, n;
    char *args;   /* malloc'd: the arguments, '\n'-separated */
    char *output; /* malloc'd */
} ckpt_info;

/* Collective: writes the checkpoint (see above). Returns 0, or -1 with err
 * (agreed); the previous file at path is then untouched. */
int ckpt_write(const char *path, MPI_Comm comm, const ckpt_info *info, int64_t first, int64_t count,
               const double *x_block, const double *activity_block, char *err, size_t errlen);
/* Reads the attributes (any rank, alone). Returns 0, or -1 with err naming
 * the file (missing, not HDF5 or truncated, not a qmol checkpoint). */
int ckpt_read_info(const char *path, ckpt_info *info, char *err, size_t errlen);
void ckpt_info_free(ckpt_info *info);
/* Collective: this rank's block of x and activity. Returns 0, or -1 with
 * err (agreed). */
int ckpt_read_block(const char *path, MPI_Comm comm, int64_t n, int64_t first, int64_t count,
                    double *x_block, double *activity_block, char *err, size_t errlen);

#endif
