/* xdmf.c: the XDMF 3 sidecar of a grid problem's result (see xdmf.h). */
#include "io/xdmf.h"

#include "io/workfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *xdmf_path(const char *h5path) {
    return h5out_sibling_path(h5path, ".xmf");
}

/* The XML-escaped base name of path. */
static void base_name(const char *path, char *out, size_t len) {
    const char *slash = strrchr(path, '/'), *s = slash ? slash + 1 : path;
    size_t k = 0;
    for (; *s && k + 7 < len; s++) {
        const char *rep = *s == '&'   ? "&amp;"
                          : *s == '<' ? "&lt;"
                          : *s == '>' ? "&gt;"
                          : *s == '"' ? "&quot;"
                                      : NULL;
        if (rep) {
            strcpy(out + k, rep);
            k += strlen(rep);
        } else {
            out[k++] = *s;
        }
    }
    out[k] = '\0';
}

/* One sample's grid: the mesh (the box's dims z y x, padded with 1) and each
 * kept component as the dataset /xdmf/NAME/k of the HDF5 file, of the
 * mesh's shape. */
static void write_sample(FILE *f, const qmol_problem *p, const h5out_grid *g, const char *file,
                         int64_t k, double t) {
    int64_t d[3] = {1, 1, 1};
    double o[3] = {0, 0, 0}, h[3] = {1, 1, 1};
    for (int a = 0; a < g->ndims; a++) { /* XDMF's order: slowest first (z y x) */
        d[2 - a] = g->dims[a];
        o[2 - a] = g->origin[a];
        h[2 - a] = g->spacing[a];
    }
    fprintf(f, "      <Grid Name=\"sample %lld\" GridType=\"Uniform\">\n", (long long)k + 1);
    fprintf(f, "        <Time Value=\"%.17g\"/>\n", t);
    fprintf(f, "        <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"%lld %lld %lld\"/>\n",
            (long long)d[0], (long long)d[1], (long long)d[2]);
    fprintf(f, "        <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n");
    fprintf(f, "          <DataItem Dimensions=\"3\" Format=\"XML\">%.17g %.17g %.17g</DataItem>\n",
            o[0], o[1], o[2]);
    fprintf(f, "          <DataItem Dimensions=\"3\" Format=\"XML\">%.17g %.17g %.17g</DataItem>\n",
            h[0], h[1], h[2]);
    fprintf(f, "        </Geometry>\n");
    for (int r = 0; r < g->ncomponents; r++) {
        char buf[32];
        const char *name = h5out_component_name(p, g->component[r], buf, sizeof buf);
        fprintf(f, "        <Attribute Name=\"%s\" AttributeType=\"Scalar\" Center=\"Node\">\n",
                name);
        fprintf(f,
                "          <DataItem Dimensions=\"%lld %lld %lld\" NumberType=\"Float\" "
                "Precision=\"8\" Format=\"HDF\">%s:/" H5OUT_SAMPLE_VIEWS "/%s/%lld</DataItem>\n",
                (long long)d[0], (long long)d[1], (long long)d[2], file, name, (long long)k + 1);
        fprintf(f, "        </Attribute>\n");
    }
    fprintf(f, "      </Grid>\n");
}

int xdmf_write(const char *h5path, const qmol_problem *p, const h5out_grid *g, const double *times,
               int64_t samples, char *err, size_t errlen) {
    char *path = xdmf_path(h5path);
    size_t len = path ? strlen(path) + 9 : 0;
    char *partial = path ? malloc(len) : NULL;
    if (!partial) {
        free(path);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    snprintf(partial, len, "%s.partial", path);
    char file[4096];
    base_name(h5path, file, sizeof file);
    /* claimed: a stale one removed, a link never followed */
    int fd = workfile_claim(partial, WORKFILE_DISCARD, err, errlen);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (fd >= 0 && !f) close(fd);
    int rc = f ? 0 : -1;
    if (f) {
        fprintf(f, "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"3.0\">\n  <Domain>\n");
        fprintf(f, "    <Grid Name=\"%s\" GridType=\"Collection\" CollectionType=\"Temporal\">\n",
                file);
        for (int64_t k = 0; k < samples; k++)
            write_sample(f, p, g, file, k, times[k]);
        fprintf(f, "    </Grid>\n  </Domain>\n</Xdmf>\n");
        rc = ferror(f) ? -1 : 0;
        if (fclose(f) != 0) rc = -1;
    }
    if (fd < 0) { /* err says why */
    } else if (rc) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
        remove(partial);
    } else if (workfile_publish(partial, path, 1, err, errlen)) {
        rc = -1;
        remove(partial);
    }
    free(path), free(partial);
    return rc;
}
