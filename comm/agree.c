/* agree.c: one verdict on an error for all ranks (see agree.h). */
#include "comm/agree.h"

#include <stdio.h>
#include <string.h>

int comm_agree(MPI_Comm comm, int rc, char *err, size_t errlen) {
    int size, rank;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    /* the lowest failing rank with a message speaks for all, else the
     * lowest failing rank; its rc is the verdict (a maximum over ranks would
     * lose the usual -1 next to a 0) */
    int speakers[2] = {rc != 0 && err && err[0] ? rank : size, rc != 0 ? rank : size};
    MPI_Allreduce(MPI_IN_PLACE, speakers, 2, MPI_INT, MPI_MIN, comm);
    if (speakers[1] == size) return 0;
    int speaker = speakers[0] < size ? speakers[0] : speakers[1];
    int verdict = rc;
    MPI_Bcast(&verdict, 1, MPI_INT, speaker, comm);
    char msg[1024];
    memset(msg, 0, sizeof msg);
    if (rank == speaker && err) snprintf(msg, sizeof msg, "%s", err);
    MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, speaker, comm);
    if (err && errlen) snprintf(err, errlen, "%s", msg);
    return verdict;
}
