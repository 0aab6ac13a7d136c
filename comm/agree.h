/* agree.h: every rank reaches the same verdict on an error.
 *
 * An input or set-up error can be found on one rank only (a bad row on rank
 * 3, a file only rank 0 reads). Before acting on it all ranks agree: the
 * result and the message are those of the lowest failing rank that has a
 * message (else of the lowest failing rank), copied to every rank, so rank 0
 * prints it and all exit with the same code. A rank that only learned of
 * another's failure (an agreed stop, no message of its own) does not hide
 * the message of the rank that failed.
 */
#ifndef QMOL_AGREE_H
#define QMOL_AGREE_H

#include <mpi.h>
#include <stddef.h>

/* Collective over comm. Returns 0 when rc is 0 on every rank; otherwise the
 * rc of the lowest rank whose rc is non-zero (any sign) and whose err is not
 * empty, or of the lowest rank whose rc is non-zero when none has a message;
 * err (errlen bytes on every rank) holds that rank's message. */
int comm_agree(MPI_Comm comm, int rc, char *err, size_t errlen);

#endif
