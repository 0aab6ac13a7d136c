/* partition_parse.c: the --partition option value (see partition.h). */
#include "partition/partition.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "PXxPY[xPZ]", each a whole number >= 1. */
static int parse_boxes(const char *s, int boxes[3]) {
    int n = 0;
    boxes[0] = boxes[1] = boxes[2] = 0;
    for (;;) {
        char *end;
        if (*s < '1' || *s > '9') return -1;
        long v = strtol(s, &end, 10);
        if (v < 1 || v > 1000000 || n == 3) return -1;
        boxes[n++] = (int)v;
        if (*end == '\0') break;
        if (*end != 'x') return -1;
        s = end + 1;
    }
    return n >= 1 ? 0 : -1;
}

int partition_parse(const char *value, partition_options *o, char *err, size_t errlen) {
    static const char file_prefix[] = "file:";
    const size_t prefix_len = sizeof file_prefix - 1;
    if (value && strcmp(value, "metis") == 0) {
        o->kind = PARTITION_METIS;
        o->file = NULL;
        return 0;
    }
    o->boxes[0] = o->boxes[1] = o->boxes[2] = 0;
    if (value && strcmp(value, "block") == 0) {
        o->kind = PARTITION_BLOCK;
        o->file = NULL;
        return 0;
    }
    if (value && strncmp(value, "block:", 6) == 0) {
        if (parse_boxes(value + 6, o->boxes)) {
            snprintf(err, errlen,
                     "--partition %s: expected block:PXxPY or block:PXxPYxPZ (ranks per grid "
                     "dimension, whole numbers >= 1)",
                     value);
            return -1;
        }
        o->kind = PARTITION_BLOCK;
        o->file = NULL;
        return 0;
    }
    if (value && strncmp(value, file_prefix, prefix_len) == 0) {
        if (value[prefix_len] == '\0') {
            snprintf(err, errlen, "--partition %s: no path after 'file:' (file:PATH)", value);
            return -1;
        }
        o->kind = PARTITION_FILE;
        o->file = value + prefix_len;
        return 0;
    }
    snprintf(err, errlen,
             "--partition %s: unknown partition (allowed: metis, block, block:PXxPY[xPZ], "
             "file:PATH)",
             value ? value : "(none)");
    return -1;
}
