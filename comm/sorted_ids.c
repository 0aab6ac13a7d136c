/* sorted_ids.c: see sorted_ids.h. */
#include "comm/sorted_ids.h"

int ids_compare(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int32_t ids_find(const int64_t *a, int32_t n, int64_t g) {
    int32_t lo = 0, hi = n - 1;
    while (lo <= hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (a[mid] < g)
            lo = mid + 1;
        else if (a[mid] > g)
            hi = mid - 1;
        else
            return mid;
    }
    return -1;
}
