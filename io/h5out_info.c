/* h5out_info.c: `qmol info FILE`, a readable summary of a result file. */
#define _POSIX_C_SOURCE 200809L

#include "io/h5out_internal.h"
#include "io/h5read.h"

#include <errno.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void row(const char *label, const char *value) {
    printf("%-12s %s\n", label, value ? value : "(missing)");
}

static void row_attr(hid_t obj, const char *label, const char *name) {
    char *v = h5r_attr_text(obj, name);
    row(label, v);
    free(v);
}

/* One row of two attributes a and b through format (two %s; "?" for a
 * missing one). */
static void row_attr_pair(hid_t obj, const char *label, const char *format, const char *a,
                          const char *b) {
    char *va = h5r_attr_text(obj, a), *vb = h5r_attr_text(obj, b);
    char *text = h5u_asprintf(format, va ? va : "?", vb ? vb : "?");
    row(label, text);
    free(va);
    free(vb);
    free(text);
}

/* "/states  K x n doubles, chunks 1 x c" */
static void row_states(hid_t file) {
    htri_t ex = H5Lexists(file, "states", H5P_DEFAULT);
    hid_t d = ex > 0 ? H5Dopen2(file, "states", H5P_DEFAULT) : H5I_INVALID_HID;
    hid_t s = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
    hid_t pl = d >= 0 ? H5Dget_create_plist(d) : H5I_INVALID_HID;
    hsize_t dims[2] = {0, 0}, chunk[2] = {0, 0};
    int ok = s >= 0 && pl >= 0 && H5Sget_simple_extent_ndims(s) == 2 &&
             H5Sget_simple_extent_dims(s, dims, NULL) == 2;
    int chunked = ok && H5Pget_layout(pl) == H5D_CHUNKED && H5Pget_chunk(pl, 2, chunk) == 2;
    if (pl >= 0 && H5Pclose(pl) < 0) ok = 0;
    if (s >= 0 && H5Sclose(s) < 0) ok = 0;
    if (d >= 0 && H5Dclose(d) < 0) ok = 0;
    if (H5Eclear2(H5E_DEFAULT) < 0) { /* nothing to clear */
    }
    if (!ok) {
        row("states", ex > 0 ? "(unreadable)" : "(missing)");
        return;
    }
    char *v = chunked ? h5u_asprintf("%llu x %llu doubles, chunks %llu x %llu",
                                     (unsigned long long)dims[0], (unsigned long long)dims[1],
                                     (unsigned long long)chunk[0], (unsigned long long)chunk[1])
                      : h5u_asprintf("%llu x %llu doubles", (unsigned long long)dims[0],
                                     (unsigned long long)dims[1]);
    row("states", v ? v : "(out of memory)");
    free(v);
}

/* --output-states and /fields: which states the file holds, and its views. */
static void print_selection(hid_t file) {
    char *rule = h5r_attr_text(file, "output_states");
    if (rule) {
        char *v = h5u_asprintf("\"%s\" (/state_ids)", rule);
        row("written", v ? v : rule);
        free(v);
        free(rule);
    } else {
        row("written", "all states");
    }
    hid_t g = H5Lexists(file, "fields", H5P_DEFAULT) > 0 ? H5Gopen2(file, "fields", H5P_DEFAULT)
                                                         : H5I_INVALID_HID;
    if (g < 0) {
        H5Eclear2(H5E_DEFAULT);
        row("fields", "(none)");
        return;
    }
    char *dims = h5r_attr_text(g, "dims"), *first = h5r_attr_text(g, "first");
    char *v = h5u_asprintf("box of [%s] cells from cell [%s] (/fields: a K x grid view of "
                           "/states per component, and the coordinates)",
                           dims ? dims : "?", first ? first : "?");
    row("fields", v);
    free(v), free(dims), free(first);
    H5Gclose(g);
}

/* Reads the 1-D dataset at path (P elements) as mtype into buf: 0, or -1 if
 * it is missing or does not fit. */
static int read_column(hid_t file, const char *path, int64_t P, hid_t mtype, void *buf) {
    hid_t d = H5Lexists(file, path, H5P_DEFAULT) > 0 ? H5Dopen2(file, path, H5P_DEFAULT)
                                                     : H5I_INVALID_HID;
    hid_t s = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
    int ok = s >= 0 && H5Sget_simple_extent_ndims(s) == 1 &&
             H5Sget_simple_extent_npoints(s) == (hssize_t)P &&
             H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0;
    if (s >= 0 && H5Sclose(s) < 0) ok = 0;
    if (d >= 0 && H5Dclose(d) < 0) ok = 0;
    if (H5Eclear2(H5E_DEFAULT) < 0) { /* nothing to clear */
    }
    return ok ? 0 : -1;
}

/* The number of ranks that wrote the file: entries of /stats/per_rank/events
 * (files without per-rank statistics: 1). */
static int64_t file_ranks(hid_t file) {
    const char *path = "stats/per_rank/events";
    int64_t P = 1;
    if (H5Lexists(file, "stats", H5P_DEFAULT) > 0 &&
        H5Lexists(file, "stats/per_rank", H5P_DEFAULT) > 0 &&
        H5Lexists(file, path, H5P_DEFAULT) > 0) {
        hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
        hid_t s = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
        hssize_t np = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
        if (np > 1) P = (int64_t)np;
        if (s >= 0 && H5Sclose(s) < 0) { /* read-only: nothing to lose */
        }
        if (d >= 0 && H5Dclose(d) < 0) { /* read-only: nothing to lose */
        }
    }
    if (H5Eclear2(H5E_DEFAULT) < 0) { /* nothing to clear */
    }
    return P;
}

/* "partition  metis, 4 ranks, edge cut 120, imbalance 1.03" */
static void print_partition(hid_t file) {
    if (H5Lexists(file, "partition", H5P_DEFAULT) <= 0) return;
    hid_t g = H5Gopen2(file, "partition", H5P_DEFAULT);
    if (g < 0) {
        row("partition", "(unreadable)");
        return;
    }
    char *kind = h5r_attr_text(g, "kind"), *ranks = h5r_attr_text(g, "ranks");
    char *cut = h5r_attr_text(g, "edge_cut"), *imb = h5r_attr_text(g, "imbalance");
    int one = ranks && !strcmp(ranks, "1");
    char *line =
        h5u_asprintf("%s, %s rank%s, edge cut %s, imbalance %s", kind ? kind : "?",
                     ranks ? ranks : "?", one ? "" : "s", cut ? cut : "?", imb ? imb : "?");
    row("partition", line ? line : "(out of memory)");
    free(kind);
    free(ranks);
    free(cut);
    free(imb);
    free(line);
    if (H5Gclose(g) < 0) { /* read-only: nothing to lose */
    }
}

/* One table cell: the value, or "-" where the file has no such column. */
static const char *cell_i(char *buf, size_t len, int have, long long v) {
    if (!have) return "-";
    snprintf(buf, len, "%lld", v);
    return buf;
}

static const char *cell_s(char *buf, size_t len, int have, double v) {
    if (!have) return "-";
    snprintf(buf, len, "%.3f s", v);
    return buf;
}

#define RANKS_FMT "%5s %11s %9s %9s %14s %15s %10s"

/* The length of the 1-D dataset at path, or -1. */
static hssize_t length_of(hid_t file, const char *path) {
    hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
    hid_t s = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
    hssize_t n =
        s >= 0 && H5Sget_simple_extent_ndims(s) == 1 ? H5Sget_simple_extent_npoints(s) : -1;
    if (s >= 0 && H5Sclose(s) < 0) n = -1;
    if (d >= 0 && H5Dclose(d) < 0) n = -1;
    return n;
}

/* "methods  from t = 0 cvode, from t = 0.0164 mliqss2, ..." (/methods: runs
 * whose method changed as they ran), one segment a row. */
static void print_methods_over_time(hid_t file) {
    if (H5Lexists(file, "methods", H5P_DEFAULT) <= 0 ||
        H5Lexists(file, "methods/t", H5P_DEFAULT) <= 0)
        return;
    hssize_t n = length_of(file, "methods/t");
    double *t = n > 0 ? malloc((size_t)n * sizeof *t) : NULL;
    int64_t *index = n > 0 ? malloc((size_t)n * sizeof *index) : NULL;
    int64_t *bdf = n > 0 ? malloc((size_t)n * sizeof *bdf) : NULL;
    /* (files before bdf_states have none: the methods alone) */
    int has_bdf = bdf && H5Lexists(file, "methods/bdf_states", H5P_DEFAULT) > 0 &&
                  read_column(file, "methods/bdf_states", n, H5T_NATIVE_INT64, bdf) == 0;
    hid_t g = H5Gopen2(file, "methods", H5P_DEFAULT);
    char *names = g >= 0 ? h5r_attr_text(g, "names") : NULL;
    char *dropped = g >= 0 ? h5r_attr_text(g, "start_dropped_to") : NULL;
    if (g >= 0 && H5Gclose(g) < 0) { /* read-only: nothing to lose */
    }
    if (!t || !index || !names || read_column(file, "methods/t", n, H5T_NATIVE_DOUBLE, t) ||
        read_column(file, "methods/method", n, H5T_NATIVE_INT64, index)) {
        row("methods", "(unreadable /methods)");
    } else {
        for (hssize_t k = 0; k < n; k++) {
            const char *name = names;
            for (int64_t skip = index[k]; skip > 0 && name; skip--) {
                name = strchr(name, ' ');
                if (name) name++;
            }
            int len = name ? (int)strcspn(name, " ") : 1;
            char split[96] = "";
            if (has_bdf && len == 5 && name && strncmp(name, "mixed", 5) == 0)
                snprintf(split, sizeof split, " (%lld states on BDF)", (long long)bdf[k]);
            char *line =
                h5u_asprintf("from t = %-12.6g %.*s%s", t[k], len, name ? name : "?", split);
            row(k == 0 ? "methods" : "", line ? line : "(out of memory)");
            free(line);
        }
        if (dropped) {
            char *line = h5u_asprintf("(the start, cvode's to t = %s, was dropped for a probe "
                                      "from t = %.6g)",
                                      dropped, n > 0 ? t[0] : 0.0);
            row("", line ? line : "(out of memory)");
            free(line);
        }
    }
    free(dropped);
    free(t);
    free(index);
    free(bdf);
    free(names);
    if (H5Eclear2(H5E_DEFAULT) < 0) { /* nothing to clear */
    }
}

/* "methods  240 QSS, 160 BDF" (mixed runs) and "events  41 zero crossings
 * (/events)" (problems with crossings). */
static void print_methods_events(hid_t file, int64_t P) {
    int64_t *qss = calloc((size_t)P, sizeof *qss), *bdf = calloc((size_t)P, sizeof *bdf);
    if (qss && bdf && read_column(file, "partition/qss_owned", P, H5T_NATIVE_INT64, qss) == 0 &&
        read_column(file, "partition/bdf_owned", P, H5T_NATIVE_INT64, bdf) == 0) {
        long long q = 0, b = 0, qlo = qss[0], qhi = qss[0], blo = bdf[0], bhi = bdf[0];
        for (int64_t r = 0; r < P; r++) {
            q += qss[r], b += bdf[r];
            qlo = qss[r] < qlo ? qss[r] : qlo, qhi = qss[r] > qhi ? qss[r] : qhi;
            blo = bdf[r] < blo ? bdf[r] : blo, bhi = bdf[r] > bhi ? bdf[r] : bhi;
        }
        char *line =
            P > 1 ? h5u_asprintf("%lld QSS, %lld BDF (/partition/method); per rank %lld..%lld "
                                 "QSS, %lld..%lld BDF (/partition/qss_owned, bdf_owned)",
                                 q, b, qlo, qhi, blo, bhi)
                  : h5u_asprintf("%lld QSS, %lld BDF (/partition/method)", q, b);
        /* (a run that chose as it went: the mixed method's split, used
         * while /methods says the mixed method ran) */
        row(H5Lexists(file, "methods", H5P_DEFAULT) > 0 ? "mixed split" : "methods",
            line ? line : "(out of memory)");
        free(line);
    }
    free(qss);
    free(bdf);
    if (H5Lexists(file, "events", H5P_DEFAULT) > 0 &&
        H5Lexists(file, "events/time", H5P_DEFAULT) > 0) {
        hssize_t n = length_of(file, "events/time");
        char *line = n >= 0 ? h5u_asprintf("%lld zero crossings (/events)", (long long)n) : NULL;
        row("events", line ? line : "(unreadable)");
        free(line);
    }
    if (H5Eclear2(H5E_DEFAULT) < 0) { /* nothing to clear */
    }
}

/* The per-rank table: partition sizes, events and wall times of each rank. */
static void print_ranks(hid_t file, int64_t P) {
    size_t np = (size_t)P;
    long long *own = malloc(np * sizeof *own), *gh = malloc(np * sizeof *gh);
    long long *bd = malloc(np * sizeof *bd), *ev = malloc(np * sizeof *ev);
    double *wi = malloc(np * sizeof *wi), *ww = malloc(np * sizeof *ww);
    if (!own || !gh || !bd || !ev || !wi || !ww) {
        row("per rank", "(out of memory)");
    } else {
        int part = H5Lexists(file, "partition", H5P_DEFAULT) > 0 &&
                   read_column(file, "partition/owned", P, H5T_NATIVE_LLONG, own) == 0 &&
                   read_column(file, "partition/ghosts", P, H5T_NATIVE_LLONG, gh) == 0 &&
                   read_column(file, "partition/boundary", P, H5T_NATIVE_LLONG, bd) == 0;
        int hev = read_column(file, "stats/per_rank/events", P, H5T_NATIVE_LLONG, ev) == 0;
        int hwi = read_column(file, "stats/per_rank/wall_integrate", P, H5T_NATIVE_DOUBLE, wi) == 0;
        int hww = read_column(file, "stats/per_rank/wall_wait", P, H5T_NATIVE_DOUBLE, ww) == 0;
        char line[256];
        snprintf(line, sizeof line, RANKS_FMT, "rank", "owned", "ghosts", "boundary", "events",
                 "wall_integrate", "wall_wait");
        row("per rank", line);
        for (int64_t r = 0; r < P; r++) {
            char c[6][32], rk[24];
            snprintf(rk, sizeof rk, "%lld", (long long)r);
            snprintf(line, sizeof line, RANKS_FMT, rk, cell_i(c[0], 32, part, part ? own[r] : 0),
                     cell_i(c[1], 32, part, part ? gh[r] : 0),
                     cell_i(c[2], 32, part, part ? bd[r] : 0),
                     cell_i(c[3], 32, hev, hev ? ev[r] : 0), cell_s(c[4], 32, hwi, hwi ? wi[r] : 0),
                     cell_s(c[5], 32, hww, hww ? ww[r] : 0));
            row("", line);
        }
    }
    free(own);
    free(gh);
    free(bd);
    free(ev);
    free(wi);
    free(ww);
}

/* The /stats attributes: totals over ranks. */
static void print_stats(hid_t file, int64_t P) {
    htri_t has_stats = H5Lexists(file, "stats", H5P_DEFAULT);
    hid_t g = has_stats > 0 ? H5Gopen2(file, "stats", H5P_DEFAULT) : H5I_INVALID_HID;
    const char *label = "stats";
    h5r_names l = {0};
    if (g >= 0 && h5r_collect_attrs(g, &l) == 0) {
        if (P > 1) {
            char *line =
                h5u_asprintf("totals of %lld ranks (wall times: the slowest rank)", (long long)P);
            row(label, line ? line : "totals of all ranks");
            free(line);
            label = "";
        }
        for (size_t i = 0; i < l.count; i++) {
            char *v = h5r_attr_text(g, l.names[i]);
            const char *unit = strncmp(l.names[i], "wall_", 5) == 0 ? " s" : "";
            char *line = h5u_asprintf("%-18s %s%s", l.names[i], v ? v : "?", unit);
            row(label, line);
            label = "";
            free(v);
            free(line);
        }
    }
    h5r_names_free(&l);
    if (*label) row(label, "(missing)");
    if (g >= 0 && H5Gclose(g) < 0) { /* read-only: nothing to lose */
    }
}

/* "samples K", and for a file whose run did not finish (samples_written < K)
 * how many rows are data. */
static void print_samples(hid_t file) {
    char *k = h5r_attr_text(file, "samples"), *w = h5r_attr_text(file, "samples_written");
    if (k && w && strcmp(k, w) != 0) {
        char *line = h5u_asprintf("%s, of which %s written (the run did not finish: the rows "
                                  "after them are not data)",
                                  k, w);
        row("samples", line ? line : k);
        free(line);
    } else {
        row("samples", k ? k : "(missing)");
    }
    free(k);
    free(w);
}

static void print_info(const char *path, hid_t file) {
    char *ver = h5r_attr_text(file, "qmol_version");
    char *lay = h5u_asprintf("%s, written by qmol %s", H5OUT_LAYOUT, ver ? ver : "?");
    free(ver);
    row("file", path);
    row("layout", lay ? lay : H5OUT_LAYOUT);
    free(lay);
    row_attr(file, "problem", "problem");
    row_attr(file, "method", "method");
    /* CVODE runs: the linear solver, preconditioner and error norm; mixed
     * and auto: the QSS method */
    static const char *const method_attrs[] = {"linsol", "precond", "cvode_norm", "qss_method"};
    for (size_t k = 0; k < sizeof method_attrs / sizeof *method_attrs; k++) {
        const char *name = method_attrs[k];
        char *v = h5r_attr_text(file, name);
        if (v) row(name, v);
        free(v);
    }
    row_attr_pair(file, "tolerances", "reltol %s, abstol %s", "reltol", "abstol");
    row_attr_pair(file, "time", "%s .. %s", "t0", "tf");
    row_attr(file, "n", "n");
    print_samples(file);
    row_states(file);

    h5r_names l = {0};
    const char *label = "parameters";
    if (h5r_collect_attrs(file, &l) == 0) {
        for (size_t i = 0; i < l.count; i++) {
            if (strncmp(l.names[i], "param.", 6) != 0) continue;
            char *v = h5r_attr_text(file, l.names[i]);
            char *line = h5u_asprintf("%s = %s", l.names[i] + 6, v ? v : "?");
            row(label, line);
            label = "";
            free(v);
            free(line);
        }
    }
    if (*label) row(label, "(none)");
    h5r_names_free(&l);

    char *nd = h5r_attr_text(file, "ndims");
    if (nd) {
        char *dims = h5r_attr_text(file, "dims"), *org = h5r_attr_text(file, "origin");
        char *sp = h5r_attr_text(file, "spacing"), *comp = h5r_attr_text(file, "components");
        char *g =
            h5u_asprintf("ndims %s, dims [%s], origin [%s], spacing [%s], components %s", nd,
                         dims ? dims : "?", org ? org : "?", sp ? sp : "?", comp ? comp : "1");
        row("grid", g);
        free(dims);
        free(org);
        free(sp);
        free(comp);
        free(g);
        free(nd);
    } else {
        row("grid", "(none)");
    }
    print_selection(file);

    int64_t P = file_ranks(file);
    print_partition(file);
    print_methods_events(file, file_ranks(file));
    print_methods_over_time(file);
    if (P > 1) print_ranks(file, P);
    print_stats(file, P);
    if (H5Eclear2(H5E_DEFAULT) < 0) { /* nothing to clear */
    }
}

/* ---- damage ------------------------------------------------------------ */

/* A read of the whole file's structure that fails on damage: every object and
 * attribute (their checksums, and the attributes' values), the 1-D datasets
 * whole and the first and last rows of the 2-D ones (/states can hold
 * gigabytes; their checksums cover each chunk read). */
typedef struct verify {
    char attr[256]; /* the attribute that failed, if one did */
    char where[512];
    char why[256]; /* HDF5's innermost reason, taken when it failed */
} verify;

static void take_reason(verify *v) {
    if (v->why[0]) return;
    char *why = h5u_reason();
    snprintf(v->why, sizeof v->why, "%s", why ? why : "");
    free(why);
}

static herr_t verify_attr(hid_t obj, const char *name, const H5A_info_t *info, void *data) {
    (void)info;
    verify *v = data;
    h5u_attr a;
    int ok = h5u_attr_open(obj, name, &a) == 0;
    hssize_t np = ok ? H5Sget_simple_extent_npoints(a.space) : -1;
    size_t size = ok ? H5Tget_size(a.type) : 0;
    ok = ok && np >= 0 && size > 0 && H5Tis_variable_str(a.type) >= 0;
    if (ok && H5Tis_variable_str(a.type) == 0) { /* (strings: h5u_strings_damaged) */
        void *buf = malloc((size_t)(np > 0 ? np : 1) * size);
        ok = buf && H5Aread(a.id, a.type, buf) >= 0;
        free(buf);
    }
    if (h5u_attr_close(&a) != 0) ok = 0;
    if (!ok) {
        take_reason(v);
        snprintf(v->attr, sizeof v->attr, "%s", name);
    }
    return ok ? 0 : -1;
}

/* Reads rows [r0, r1) of dataset d (rank 1 or 2, any number type); *sum
 * (when not NULL) gets their h5u_checksum_part. */
static int read_rows(hid_t d, hid_t space, int rank, const hsize_t *dims, hsize_t r0, hsize_t r1,
                     uint64_t *sum) {
    if (r1 <= r0) return 0;
    hsize_t start[2] = {r0, 0}, count[2] = {r1 - r0, rank == 2 ? dims[1] : 1};
    hsize_t elems = count[0] * (rank == 2 ? count[1] : 1);
    if (elems == 0) return 0;
    double *buf = malloc((size_t)elems * sizeof *buf);
    hid_t mem = H5Screate_simple(1, &elems, NULL);
    int ok = buf && mem >= 0 &&
             H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
             H5Dread(d, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, buf) >= 0;
    if (ok && sum) *sum = h5u_checksum_part(buf, 0, (int64_t)elems);
    free(buf);
    if (mem >= 0 && H5Sclose(mem) < 0) ok = 0;
    return ok ? 0 : -1;
}

/* /states: its first and last written rows against /states_checksum (a file
 * from before it: read only). */
static int verify_states(hid_t file, hid_t d, hid_t space, const hsize_t *dims) {
    hsize_t rows = dims[0];
    char *w = h5r_attr_text(file, "samples_written");
    if (w) rows = (hsize_t)strtoull(w, NULL, 10) < rows ? (hsize_t)strtoull(w, NULL, 10) : rows;
    free(w);
    hid_t sums = H5Lexists(file, "states_checksum", H5P_DEFAULT) > 0
                     ? H5Dopen2(file, "states_checksum", H5P_DEFAULT)
                     : H5I_INVALID_HID;
    uint64_t *stored = sums >= 0 ? calloc(dims[0] ? dims[0] : 1, sizeof *stored) : NULL;
    int ok = sums < 0 || (stored && H5Dread(sums, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                            stored) >= 0);
    hsize_t check[2] = {0, rows ? rows - 1 : 0};
    for (int i = 0; ok && rows > 0 && i < 2; i++) {
        uint64_t sum = 0;
        ok = read_rows(d, space, 2, dims, check[i], check[i] + 1, &sum) == 0 &&
             (!stored || stored[check[i]] == sum);
    }
    free(stored);
    if (sums >= 0) H5Dclose(sums);
    return ok ? 0 : -1;
}

static herr_t verify_object(hid_t root, const char *name, const H5O_info_t *info, void *data) {
    verify *v = data;
    hid_t obj = H5Oopen(root, name, H5P_DEFAULT);
    int ok = obj >= 0;
    if (!ok) take_reason(v);
    if (ok && H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_NATIVE, NULL, verify_attr, v) < 0) {
        take_reason(v);
        snprintf(v->where, sizeof v->where, "%s%.200s of /%.200s",
                 v->attr[0] ? "attribute " : "the attributes", v->attr,
                 strcmp(name, ".") ? name : "");
        H5Oclose(obj);
        return -1;
    }
    if (ok && info->type == H5O_TYPE_DATASET) {
        hid_t space = H5Dget_space(obj);
        hsize_t dims[H5S_MAX_RANK] = {0};
        int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
        ok = rank >= 0 && H5Sget_simple_extent_dims(space, dims, NULL) >= 0;
        hid_t t = ok ? H5Dget_type(obj) : H5I_INVALID_HID;
        H5T_class_t cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
        hid_t dcpl = ok ? H5Dget_create_plist(obj) : H5I_INVALID_HID;
        /* views (/fields) are read through what they map: not twice */
        int view = dcpl >= 0 && H5Pget_layout(dcpl) == H5D_VIRTUAL;
        if (dcpl >= 0) H5Pclose(dcpl);
        if (ok && !view && (rank == 1 || rank == 2) && (cls == H5T_FLOAT || cls == H5T_INTEGER)) {
            if (rank == 1)
                ok = read_rows(obj, space, 1, dims, 0, dims[0], NULL) == 0;
            else if (!strcmp(name, "states") && verify_states(root, obj, space, dims) != 0) {
                ok = 0;
                snprintf(v->why, sizeof v->why, "a row does not match /states_checksum");
            } else
                ok = read_rows(obj, space, 2, dims, 0, 1, NULL) == 0 &&
                     read_rows(obj, space, 2, dims, dims[0] - 1, dims[0], NULL) == 0;
        }
        if (t >= 0) H5Tclose(t);
        if (space >= 0) H5Sclose(space);
        if (!ok) {
            take_reason(v);
            snprintf(v->where, sizeof v->where, "dataset /%.400s", name);
        }
    } else if (!ok) {
        snprintf(v->where, sizeof v->where, "object /%s", name);
    }
    if (obj >= 0 && H5Oclose(obj) < 0) ok = 0;
    return ok ? 0 : -1;
}

/* 0, or -1 with what could not be read (and why) on stderr as one line. */
static int verify_file(const char *path, hid_t file) {
    verify v = {"", "", ""};
    if (H5Ovisit(file, H5_INDEX_NAME, H5_ITER_NATIVE, verify_object, &v) >= 0) {
        if (h5u_strings_damaged(file) == 0) return 0;
        fprintf(stderr,
                "qmol info: %s: damaged: its string attributes (problem, method, ...) do not "
                "match their checksum (" H5U_STRINGS_CHECKSUM ")\n",
                path);
        return -1;
    }
    take_reason(&v);
    const char *what = v.where[0] ? v.where : "an object's header";
    fprintf(stderr, "qmol info: %s: damaged: %s cannot be read (%s%s)\n", path, what,
            strstr(v.why, "/states_checksum") ? "" : "HDF5: ", v.why[0] ? v.why : "error");
    return -1;
}

int h5out_info(const char *path) {
    if (!path || !*path) {
        fprintf(stderr, "qmol info: no file given\n");
        return 2;
    }
    struct stat st;
    if (stat(path, &st) != 0) {
        int eno = errno;
        char *partial = h5u_asprintf("%s.partial", path);
        struct stat ps;
        if (partial && stat(partial, &ps) == 0)
            fprintf(stderr, "qmol info: %s: %s (an unfinished run left %s)\n", path, strerror(eno),
                    partial);
        else
            fprintf(stderr, "qmol info: %s: %s\n", path, strerror(eno));
        free(partial);
        return 2;
    }
    if (S_ISDIR(st.st_mode)) {
        fprintf(stderr, "qmol info: %s: is a directory\n", path);
        return 2;
    }
    h5u_quiet q;
    h5u_quiet_on(&q);
    int rc = 2;
    hid_t file = H5I_INVALID_HID;
    htri_t is = H5Fis_hdf5(path);
    if (is <= 0) {
        fprintf(stderr, "qmol info: %s: not an HDF5 file\n", path);
        goto done;
    }
    file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) {
        char *why = h5u_reason();
        fprintf(stderr, "qmol info: %s: cannot open HDF5 file: %s\n", path,
                why ? why : "HDF5 error");
        free(why);
        goto done;
    }
    if (verify_file(path, file)) goto done;
    char *layout = h5r_attr_text(file, "layout");
    if (!layout) {
        fprintf(stderr, "qmol info: %s: not a qmol result file (no 'layout' attribute)\n", path);
    } else if (strcmp(layout, H5OUT_LAYOUT) != 0) {
        fprintf(stderr, "qmol info: %s: unsupported layout '%s' (expected '%s')\n", path, layout,
                H5OUT_LAYOUT);
    } else {
        print_info(path, file);
        rc = 0;
    }
    free(layout);
done:
    if (file >= 0 && H5Fclose(file) < 0) { /* read-only: nothing to lose */
    }
    if (H5Eclear2(H5E_DEFAULT) < 0) { /* nothing to clear */
    }
    h5u_quiet_off(&q);
    if (rc == 0 && fflush(stdout) != 0) {
        fprintf(stderr, "qmol info: cannot write to standard output: %s\n", strerror(errno));
        return 2;
    }
    return rc;
}
