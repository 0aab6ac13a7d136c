/* cvode_ilu_plan.c: the parts of a threaded ILU(0) (cvode_ilu.h).
 *
 * Row i depends on row c < i when either names the other (i's L part names
 * c, or c's U part names i): the factorization and the forward sweep take c
 * before i, the backward sweep i before c. The rows are cut by a key into
 * consecutive ranges of about n / parts rows; the cut is used only when
 * every dependency stays within a part or goes from an earlier part to a
 * later one (forward). On a grid in natural order with the x index as key,
 * the parts are slabs of x: a row's west neighbour is in its part or the
 * one before, its south, north (and lower, upper) ones in its own, so each
 * part follows the one before it a grid line behind. (A cut by level, the
 * longest chain of dependencies, also qualifies, but on a grid its later
 * part has few rows in the first lines and many in the last, and waits:
 * 1.33x at best on two threads; measured, no gain at all.)
 *
 * Each part's rows are taken in increasing order (decreasing backward) in
 * chunks of ILU0_CHUNK; before a chunk its thread waits until every other
 * part has done the rows the chunk names, which need_forward and
 * need_backward count.
 */
#include "cvode/cvode_ilu.h"

#include <stdlib.h>
#include <string.h>

void ilu0_plan_free(ilu0_plan *p) {
    free(p->rows);
    free(p->first);
    free(p->first_chunk);
    free(p->need_forward);
    free(p->need_backward);
    free(p->progress);
    memset(p, 0, sizeof *p);
    p->parts = 1;
}

/* part[i] from the keys: consecutive ranges of about n / parts rows. */
static int cut_keys(const ilu0 *f, const int32_t *key, int parts, int32_t *part) {
    int32_t top = 0;
    for (int32_t i = 0; i < f->n; i++)
        if (key[i] > top) top = key[i];
    int32_t *of_key = calloc((size_t)top + 1, sizeof *of_key);
    if (!of_key) return -1;
    for (int32_t i = 0; i < f->n; i++)
        of_key[key[i]]++;
    int64_t seen = 0;
    int p = 0;
    for (int32_t k = 0; k <= top; k++) {
        int32_t rows = of_key[k];
        of_key[k] = p;
        seen += rows;
        if (p + 1 < parts && seen * parts >= (int64_t)(p + 1) * f->n) p++;
    }
    for (int32_t i = 0; i < f->n; i++)
        part[i] = of_key[key[i]];
    free(of_key);
    return 0;
}

/* Whether every row depends only on rows of its part or earlier ones
 * (forward: the columns before it) and of its part or later ones
 * (backward: the columns after it). */
static int ordered(const ilu0 *f, const int32_t *part) {
    for (int32_t i = 0; i < f->n; i++)
        for (sunindextype k = f->ptr[i]; k < f->ptr[i + 1]; k++) {
            int32_t c = (int32_t)f->col[k];
            if (c < i ? part[c] > part[i] : part[c] < part[i]) return 0;
        }
    return 1;
}

/* need_forward and need_backward of each chunk; pos[i]: row i's place in
 * its part. */
static void needs(ilu0 *f, const int32_t *part, const int32_t *pos) {
    ilu0_plan *P = &f->plan;
    const sunindextype *ptr = f->ptr, *col = f->col;
    for (int p = 0; p < P->parts; p++) {
        int32_t size = P->first[p + 1] - P->first[p];
        for (int32_t r = 0; r < size; r++) {
            int32_t i = P->rows[P->first[p] + r];
            size_t at = (size_t)(P->first_chunk[p] + r / ILU0_CHUNK) * (size_t)P->parts;
            for (sunindextype k = ptr[i]; k < ptr[i + 1]; k++) {
                int32_t c = (int32_t)col[k];
                int q = part[c];
                if (q == p) continue;
                if (c < i && pos[c] + 1 > P->need_forward[at + q])
                    P->need_forward[at + q] = pos[c] + 1;
                int32_t q_size = P->first[q + 1] - P->first[q];
                if (c > i && q_size - pos[c] > P->need_backward[at + q])
                    P->need_backward[at + q] = q_size - pos[c];
            }
        }
    }
}

int ilu0_plan_build(ilu0 *f, int parts, const int32_t *key) {
    ilu0_plan *P = &f->plan;
    ilu0_plan_free(P);
    if (parts < 2 || f->n < (int64_t)parts * ILU0_CHUNK) return 0;
    int32_t *fill = malloc((size_t)parts * sizeof *fill); /* next place in each part */
    int32_t *part = malloc((size_t)f->n * sizeof *part);
    int32_t *pos = malloc((size_t)f->n * sizeof *pos);
    P->rows = malloc((size_t)f->n * sizeof *P->rows);
    P->first = calloc((size_t)parts + 1, sizeof *P->first);
    P->first_chunk = calloc((size_t)parts + 1, sizeof *P->first_chunk);
    P->progress = calloc((size_t)parts, sizeof *P->progress);
    int rc = fill && part && pos && P->rows && P->first && P->first_chunk && P->progress ? 0 : -1;
    if (rc == 0) rc = cut_keys(f, key, parts, part);
    int cut = rc == 0 && ordered(f, part);
    if (cut) {
        P->parts = parts;
        for (int32_t i = 0; i < f->n; i++)
            P->first[part[i] + 1]++;
        for (int p = 0; p < parts; p++) {
            int32_t size = P->first[p + 1];
            P->first[p + 1] += P->first[p];
            P->first_chunk[p + 1] = P->first_chunk[p] + (size + ILU0_CHUNK - 1) / ILU0_CHUNK;
        }
        memcpy(fill, P->first, (size_t)parts * sizeof *fill);
        for (int32_t i = 0; i < f->n; i++) {
            pos[i] = fill[part[i]] - P->first[part[i]];
            P->rows[fill[part[i]]++] = i;
        }
        size_t cells = (size_t)P->first_chunk[parts] * (size_t)parts;
        P->need_forward = calloc(cells, sizeof *P->need_forward);
        P->need_backward = calloc(cells, sizeof *P->need_backward);
        rc = P->need_forward && P->need_backward ? 0 : -1;
        if (rc == 0) needs(f, part, pos);
    }
    free(fill);
    free(part);
    free(pos);
    if (rc || !cut) ilu0_plan_free(P);
    return rc;
}
