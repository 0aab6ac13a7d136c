/* part_file.h: a partition read from a text file.
 *
 * The file has n lines, line i + 1 holding the owner rank of state i as a
 * decimal integer in [0, P) (blanks around it allowed; blank lines and
 * comments are not). Rank 0 reads it in chunks of 65536 lines and sends each
 * chunk to the rank whose directory block it covers, so rank 0 holds one
 * chunk, never all n owners.
 */
#ifndef QMOL_PART_FILE_H
#define QMOL_PART_FILE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* Collective: owner gets this rank's directory block of owners. Returns 0, or
 * -1 with a message naming the file (and the line: not an integer, owner
 * outside [0, P); or the line count when it is not n); verdict agreed. */
int part_file_owners(const char *path, int64_t n, MPI_Comm comm, int32_t *owner, char *err,
                     size_t errlen);

#endif
