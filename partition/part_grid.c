/* part_grid.c: grid geometry for partitions (see part_grid.h). */
#include "partition/part_grid.h"

int part_grid_of(const qmol_problem *p, part_grid *g) {
    if (p->ndims < 1 || p->ndims > 3) return 0;
    g->ndims = p->ndims;
    g->components = p->components > 0 ? p->components : 1;
    __int128 cells = 1;
    for (int d = 0; d < 3; d++) {
        g->dims[d] = d < p->ndims ? p->dims[d] : 1;
        if (g->dims[d] < 1) return 0;
        cells *= g->dims[d];
    }
    return cells * g->components == p->n;
}

/* The slab of coordinate x when a dimension of size D is cut into m slabs:
 * the largest k with floor(k D / m) <= x, i.e. ceil((x + 1) m / D) - 1. */
static int64_t slab_of(int64_t D, int64_t m, int64_t x) {
    return (int64_t)(((__int128)(x + 1) * m - 1) / D);
}

int64_t part_grid_box(const part_grid *g, const int64_t parts[3], int64_t id) {
    int64_t cell = id / g->components;
    int64_t box = 0, stride = 1;
    for (int d = 0; d < 3; d++) {
        int64_t x = cell % g->dims[d];
        cell /= g->dims[d];
        box += slab_of(g->dims[d], parts[d], x) * stride;
        stride *= parts[d];
    }
    return box;
}

/* Cut surface of a split: each of the parts[d] - 1 cuts across dimension d
 * crosses the product of the other dimensions. */
static double surface(const part_grid *g, const int64_t parts[3]) {
    double s = 0.0;
    for (int d = 0; d < 3; d++) {
        double cross = 1.0;
        for (int e = 0; e < 3; e++)
            if (e != d) cross *= (double)g->dims[e];
        s += (double)(parts[d] - 1) * cross;
    }
    return s;
}

int part_grid_split(const part_grid *g, int P, int64_t parts[3]) {
    double best = -1.0;
    for (int64_t px = P; px >= 1; px--) {
        if (P % px || px > g->dims[0]) continue;
        for (int64_t py = P / px; py >= 1; py--) {
            if ((P / px) % py || py > g->dims[1]) continue;
            int64_t pz = P / px / py, trial[3] = {px, py, pz};
            if (pz > g->dims[2]) continue;
            double s = surface(g, trial);
            if (best < 0.0 || s < best) {
                best = s;
                parts[0] = px, parts[1] = py, parts[2] = pz;
            }
        }
    }
    return best < 0.0 ? -1 : 0;
}
