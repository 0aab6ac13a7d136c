/* agree.h: every rank reaches the same verdict on an error.
 *
 * An input or set-up error can be found on one rank only (a bad row on rank
 * 3, a file only rank 0 reads). Before acting on it all ranks agree: the
 * result is the largest rc, and the message of the lowest failing rank is
 * copied to every rank, so rank 0 prints it and all exit with the same code.
 */
#ifndef QMOL_AGREE_H
#define QMOL_AGREE_H

#include <mpi.h>
#include <stddef.h>

/* Collective over comm. Returns the maximum of rc over ranks; when it is
 * non-zero, err (errlen bytes on every rank) holds the message of the
 * lowest rank whose rc is that maximum (so a rank that only saw another
 * fail can pass a smaller rc and stay silent). */
int comm_agree(MPI_Comm comm, int rc, char *err, size_t errlen);

#endif
