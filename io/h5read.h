/* h5read.h: attributes of a result file as text, for `qmol info` (internal
 * to io/). Call them with HDF5 error printing off (h5u_quiet_on). */
#ifndef QMOL_H5READ_H
#define QMOL_H5READ_H

#include <hdf5.h>
#include <stddef.h>

/* An attribute's value as text (arrays joined with ", "), malloc'd; NULL if
 * missing, "(unreadable)" if it cannot be read. */
char *h5r_attr_text(hid_t obj, const char *name);

/* Names of the attributes of an object, in creation order when tracked. */
typedef struct h5r_names {
    char **names;
    size_t count, cap;
    int failed;
} h5r_names;

/* Fills l (zeroed by the caller); returns 0, or -1 with l empty. */
int h5r_collect_attrs(hid_t obj, h5r_names *l);
void h5r_names_free(h5r_names *l);

#endif
