/* h5read.c: attributes of a result file as text (see h5read.h). */
#include "io/h5read.h"

#include "io/h5util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growable string. On allocation failure it stops growing and sets failed. */
typedef struct sbuf {
    char *s;
    size_t len, cap;
    int failed;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) {
    if (b->failed) return;
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (len < 0) {
        b->failed = 1;
        va_end(aq);
        return;
    }
    size_t need = b->len + (size_t)len + 1;
    if (need > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < need)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->failed = 1;
            va_end(aq);
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, aq);
    va_end(aq);
    b->len += (size_t)len;
}

/* Takes the string out of b (NULL on failure or if empty and never written). */
static char *sb_take(sbuf *b) {
    if (b->failed) {
        free(b->s);
        b->s = NULL;
    }
    char *s = b->s;
    b->s = NULL;
    b->len = b->cap = 0;
    return s;
}

/* An attribute's value as text (arrays joined with ", "); NULL if missing. */
char *h5r_attr_text(hid_t obj, const char *name) {
    if (H5Aexists(obj, name) <= 0) return NULL;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : H5I_INVALID_HID;
    hid_t s = a >= 0 ? H5Aget_space(a) : H5I_INVALID_HID;
    hssize_t np = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
    H5T_class_t cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    sbuf b = {0};
    int bad = np < 0 || cls == H5T_NO_CLASS;
    if (bad) {
        /* fall through to cleanup */
    } else if (cls == H5T_STRING) {
        htri_t vlen = np == 1 ? H5Tis_variable_str(t) : -1;
        size_t size = H5Tget_size(t);
        hid_t m = H5Tcopy(t); /* same character set: no conversion needed */
        if (vlen < 0 || m < 0) {
            bad = 1;
        } else if (vlen) {
            char *v = NULL;
            if (H5Aread(a, m, &v) < 0) {
                bad = 1;
            } else {
                sb_printf(&b, "%s", v ? v : "");
                if (v && H5free_memory(v) < 0) bad = 1;
            }
        } else {
            char *v = size > 0 ? calloc(size + 1, 1) : NULL;
            if (!v || H5Tset_strpad(m, H5T_STR_NULLTERM) < 0 || H5Tset_size(m, size + 1) < 0 ||
                H5Aread(a, m, v) < 0)
                bad = 1;
            else
                sb_printf(&b, "%s", v);
            free(v);
        }
        if (m >= 0 && H5Tclose(m) < 0) bad = 1;
    } else if (cls == H5T_INTEGER || cls == H5T_FLOAT) {
        size_t cnt = np > 0 ? (size_t)np : 1;
        H5T_sign_t sign = cls == H5T_INTEGER ? H5Tget_sign(t) : H5T_SGN_2;
        double *dv = cls == H5T_FLOAT ? malloc(cnt * sizeof *dv) : NULL;
        long long *iv =
            cls == H5T_INTEGER && sign != H5T_SGN_NONE ? malloc(cnt * sizeof *iv) : NULL;
        unsigned long long *uv =
            cls == H5T_INTEGER && sign == H5T_SGN_NONE ? malloc(cnt * sizeof *uv) : NULL;
        if (sign == H5T_SGN_ERROR || (!dv && !iv && !uv) ||
            (dv && H5Aread(a, H5T_NATIVE_DOUBLE, dv) < 0) ||
            (iv && H5Aread(a, H5T_NATIVE_LLONG, iv) < 0) ||
            (uv && H5Aread(a, H5T_NATIVE_ULLONG, uv) < 0)) {
            bad = 1;
        } else {
            for (size_t i = 0; i < (size_t)np; i++) {
                const char *sep = i ? ", " : "";
                if (dv)
                    sb_printf(&b, "%s%.10g", sep, dv[i]);
                else if (iv)
                    sb_printf(&b, "%s%lld", sep, iv[i]);
                else
                    sb_printf(&b, "%s%llu", sep, uv[i]);
            }
        }
        free(dv);
        free(iv);
        free(uv);
    } else {
        sb_printf(&b, "(unsupported type)");
    }
    if (s >= 0 && H5Sclose(s) < 0) bad = 1;
    if (t >= 0 && H5Tclose(t) < 0) bad = 1;
    if (a >= 0 && H5Aclose(a) < 0) bad = 1;
    if (bad) {
        free(sb_take(&b));
        return h5u_asprintf("(unreadable)");
    }
    if (!b.s) sb_printf(&b, "%s", "");
    return sb_take(&b);
}

static herr_t collect_cb(hid_t obj, const char *name, const H5A_info_t *info, void *data) {
    (void)obj;
    (void)info;
    h5r_names *l = data;
    if (l->count == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **names = realloc(l->names, cap * sizeof *names);
        if (!names) {
            l->failed = 1;
            return -1;
        }
        l->names = names;
        l->cap = cap;
    }
    if (!(l->names[l->count] = h5u_asprintf("%s", name))) {
        l->failed = 1;
        return -1;
    }
    l->count++;
    return 0;
}

void h5r_names_free(h5r_names *l) {
    for (size_t i = 0; i < l->count; i++)
        free(l->names[i]);
    free(l->names);
    memset(l, 0, sizeof *l);
}

int h5r_collect_attrs(hid_t obj, h5r_names *l) {
    hsize_t idx = 0;
    if (H5Aiterate2(obj, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, collect_cb, l) >= 0) return 0;
    h5r_names_free(l);
    idx = 0;
    if (H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, collect_cb, l) >= 0) return 0;
    h5r_names_free(l);
    return -1;
}
