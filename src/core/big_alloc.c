/* big_alloc.c: large arrays on transparent huge pages (see big_alloc.h). */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "core/big_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Advises the huge pages wholly inside [p, p + bytes); advice only. */
static void advise_huge(void *p, size_t bytes) {
#ifdef MADV_HUGEPAGE
    uintptr_t lo = ((uintptr_t)p + BIG_ALLOC_HUGE - 1) & ~(uintptr_t)(BIG_ALLOC_HUGE - 1);
    uintptr_t hi = ((uintptr_t)p + bytes) & ~(uintptr_t)(BIG_ALLOC_HUGE - 1);
    if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p, (void)bytes;
#endif
}

void *big_alloc(size_t count, size_t size, int zeroed) {
    if (size && count > SIZE_MAX / size) return NULL;
    size_t bytes = count * size;
    if (bytes == 0) bytes = 1;
    size_t align = bytes >= BIG_ALLOC_HUGE ? BIG_ALLOC_HUGE : 64;
    if (bytes > SIZE_MAX - align) return NULL;
    bytes = (bytes + align - 1) / align * align; /* (aligned_alloc: a multiple) */
    void *p = aligned_alloc(align, bytes);
    if (!p) return NULL;
    if (align == BIG_ALLOC_HUGE) advise_huge(p, bytes);
    if (zeroed) memset(p, 0, bytes);
    return p;
}

void *big_calloc(size_t count, size_t size) {
    if (size && count > SIZE_MAX / size) return NULL;
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (p && size && count >= BIG_ALLOC_HUGE / size) advise_huge(p, count * size);
    return p;
}
