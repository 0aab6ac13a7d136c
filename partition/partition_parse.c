/* partition_parse.c: the --partition option value (see partition.h). */
#include "partition.h"

#include <stdio.h>
#include <string.h>

int partition_parse(const char *value, partition_options *o, char *err, size_t errlen) {
    static const char file_prefix[] = "file:";
    const size_t prefix_len = sizeof file_prefix - 1;
    if (value && strcmp(value, "metis") == 0) {
        o->kind = PARTITION_METIS;
        o->file = NULL;
        return 0;
    }
    if (value && strcmp(value, "block") == 0) {
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
    snprintf(err, errlen, "--partition %s: unknown partition (allowed: metis, block, file:PATH)",
             value ? value : "(none)");
    return -1;
}
