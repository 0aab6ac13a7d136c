/* big_alloc.h: memory for the large per-state arrays that the QSS event
 * loop reaches at random (the x and q records, the queue's times, the
 * rows' shape ids, mLIQSS's estimates, the activity counts).
 *
 * An event at 1e6 states touches a few dozen cache lines spread over tens
 * of megabytes: with 4 KiB pages nearly every one needs its own TLB entry,
 * and under a virtual machine a TLB miss walks two page tables. Arrays of
 * at least BIG_ALLOC_HUGE bytes are therefore advised to the kernel for
 * transparent huge pages (madvise MADV_HUGEPAGE, which takes effect where
 * /sys/kernel/mm/transparent_hugepage/enabled is "madvise" or "always";
 * elsewhere, and where the advice fails, the memory is the same, in small
 * pages). docs/performance.md, "Huge pages", has the measurements. Both
 * are freed with free().
 */
#ifndef QMOL_BIG_ALLOC_H
#define QMOL_BIG_ALLOC_H

#include <stddef.h>

/* A huge page on x86-64 and arm64 (4 KiB granule). */
#define BIG_ALLOC_HUGE ((size_t)2 << 20)

/* count * size bytes (at least one), 64-byte aligned, BIG_ALLOC_HUGE
 * aligned and rounded up to it from that size on (up to 2 MiB more
 * resident); zeroed when `zeroed`, which makes every page resident. NULL
 * when out of memory or when count * size overflows. */
void *big_alloc(size_t count, size_t size, int zeroed);
/* As calloc (16-byte aligned, pages zeroed by the kernel when first
 * touched: an array few of whose entries are written stays small), with
 * the huge pages that lie wholly inside it advised. */
void *big_calloc(size_t count, size_t size);

#endif
