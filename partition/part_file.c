/* part_file.c: owners from a text file, streamed from rank 0 (see
 * part_file.h). */
#include "partition/part_file.h"

#include "comm/agree.h"
#include "comm/directory.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK ((int64_t)1 << 16)
#define TAG_OWNERS 7301

typedef struct reader {
    FILE *f;
    const char *path;
    int P;
    int64_t line; /* lines read so far */
    char *buf;
    size_t cap;
} reader;

/* The owner on the next line: 0, 1 at the end of the file, -1 with err set
 * for a bad line or a read error. */
static int next_owner(reader *r, int32_t *owner, char *err, size_t errlen) {
    ssize_t len = getline(&r->buf, &r->cap, r->f);
    if (len < 0) {
        if (!ferror(r->f)) return 1;
        snprintf(err, errlen, "error reading %s: %s", r->path, strerror(errno));
        return -1;
    }
    r->line++;
    char *text = r->buf;
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
        text[--len] = '\0';
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    const char *rest = end;
    while (isspace((unsigned char)*rest))
        rest++;
    if (end == text || *rest != '\0' || errno == ERANGE) {
        snprintf(err, errlen, "%s line %lld: '%.40s' is not an integer (one owner rank per line)",
                 r->path, (long long)r->line, text);
        return -1;
    }
    if (v < 0 || v >= r->P) {
        snprintf(err, errlen, "%s line %lld: owner %lld is outside [0, %d) for %d ranks", r->path,
                 (long long)r->line, v, r->P, r->P);
        return -1;
    }
    *owner = (int32_t)v;
    return 0;
}

/* Rank 0, after n good lines: the file must end here. */
static int check_end(reader *r, int64_t n, char *err, size_t errlen) {
    int64_t extra = 0;
    while (getline(&r->buf, &r->cap, r->f) >= 0)
        extra++;
    if (ferror(r->f)) {
        snprintf(err, errlen, "error reading %s: %s", r->path, strerror(errno));
        return -1;
    }
    if (extra == 0) return 0;
    snprintf(err, errlen, "%s has %lld lines, expected n = %lld, one owner per state", r->path,
             (long long)(n + extra), (long long)n);
    return -1;
}

/* Rank 0: fills c owners from the file; after the first error (rc != 0) the
 * rest are zeros, so every chunk is still sent and nobody waits forever. */
static void fill_chunk(reader *r, int64_t n, int32_t *dest, int64_t c, int *rc, char *err,
                       size_t errlen) {
    for (int64_t k = 0; k < c; k++) {
        dest[k] = 0;
        if (*rc) continue;
        int s = next_owner(r, &dest[k], err, errlen);
        if (s == 1)
            snprintf(err, errlen, "%s has %lld lines, expected n = %lld, one owner per state",
                     r->path, (long long)r->line, (long long)n);
        if (s) *rc = -1;
    }
}

int part_file_owners(const char *path, int64_t n, MPI_Comm comm, int32_t *owner, char *err,
                     size_t errlen) {
    int P, rank, rc = 0;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
    reader r = {.path = path, .P = P};
    int32_t *chunk = NULL;
    if (rank == 0) {
        r.f = fopen(path, "r");
        chunk = malloc((size_t)CHUNK * sizeof *chunk);
        if (!r.f)
            snprintf(err, errlen, "cannot open partition file %s: %s", path, strerror(errno));
        else if (!chunk)
            snprintf(err, errlen, "out of memory reading %s", path);
        rc = r.f && chunk ? 0 : -1;
    }
    if (comm_agree(comm, rc, err, errlen)) {
        if (r.f) fclose(r.f);
        free(chunk);
        return -1;
    }
    for (int dst = 0; dst < P; dst++) {
        int64_t first = dir_first(n, P, dst), len = dir_first(n, P, dst + 1) - first;
        for (int64_t off = 0; off < len; off += CHUNK) {
            int64_t c = len - off < CHUNK ? len - off : CHUNK;
            if (rank == 0) {
                fill_chunk(&r, n, dst == 0 ? owner + off : chunk, c, &rc, err, errlen);
                if (dst != 0) MPI_Send(chunk, (int)c, MPI_INT32_T, dst, TAG_OWNERS, comm);
            } else if (rank == dst) {
                MPI_Recv(owner + off, (int)c, MPI_INT32_T, 0, TAG_OWNERS, comm, MPI_STATUS_IGNORE);
            }
        }
    }
    if (rank == 0) {
        if (rc == 0) rc = check_end(&r, n, err, errlen);
        fclose(r.f);
        free(r.buf);
        free(chunk);
    }
    return comm_agree(comm, rc, err, errlen) ? -1 : 0;
}
