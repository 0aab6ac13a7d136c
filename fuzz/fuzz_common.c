/* fuzz_common.c: word splitting and findings for the fuzz targets
 * (fuzz_common.h). */
#include "fuzz/fuzz_common.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int is_separator(uint8_t b) {
    return b == '\n' || b == '\0';
}

int fuzz_split(const uint8_t *data, size_t size, int max_words, fuzz_words *out) {
    out->word = NULL;
    out->count = 0;
    size_t words = 0;
    for (size_t k = 0; k < size; k++)
        if (is_separator(data[k]) || k + 1 == size) words++;
    if (words > (size_t)max_words) words = (size_t)max_words;
    if (words == 0) return 0;
    out->word = calloc(words, sizeof *out->word);
    if (!out->word) return -1;
    size_t start = 0;
    for (size_t k = 0; k < size && (size_t)out->count < words; k++) {
        int sep = is_separator(data[k]);
        if (!sep && k + 1 < size) continue;
        size_t end = sep ? k : size; /* the word is data[start, end) */
        char *w = malloc(end - start + 1);
        if (!w) {
            fuzz_words_free(out);
            return -1;
        }
        memcpy(w, data + start, end - start);
        w[end - start] = '\0';
        out->word[out->count++] = w;
        start = k + 1;
    }
    return 0;
}

void fuzz_words_free(fuzz_words *w) {
    for (int k = 0; k < w->count; k++)
        free(w->word[k]);
    free(w->word);
    w->word = NULL;
    w->count = 0;
}

int fuzz_message_ok(const char *s, size_t cap) {
    return cap > 0 && memchr(s, '\0', cap) != NULL && s[0] != '\0';
}

/* The kinds reported so far by this process. */
#define MAX_KINDS 64
static const char *seen[MAX_KINDS];
static int nseen;

static int first_time(const char *kind) {
    for (int k = 0; k < nseen; k++)
        if (!strcmp(seen[k], kind)) return 0;
    if (nseen < MAX_KINDS) seen[nseen++] = kind;
    return 1;
}

static void save_input(const char *target, const char *kind, const uint8_t *data, size_t size) {
    const char *dir = getenv("QMOL_FUZZ_FINDINGS");
    if (!dir || !*dir) return;
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s-%s", dir, target, kind) >= (int)sizeof path) return;
    /* the first input of a kind is kept (O_EXCL): later runs add none */
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) return;
    size_t done = 0;
    while (done < size) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0) break;
        done += (size_t)w;
    }
    close(fd);
    fprintf(stderr, "qmol-fuzz: input saved as %s\n", path);
}

void fuzz_finding(const char *target, const char *kind, const uint8_t *data, size_t size,
                  const char *fmt, ...) {
    const char *strict = getenv("QMOL_FUZZ_STRICT");
    int abort_now = strict && *strict && strcmp(strict, "0") != 0;
    if (!first_time(kind) && !abort_now) return;
    char detail[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    fprintf(stderr, "qmol-fuzz: FINDING [%s] %s: %s\n", kind, target, detail);
    save_input(target, kind, data, size);
    if (abort_now) abort();
}
