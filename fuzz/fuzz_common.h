/* fuzz_common.h: helpers shared by the qmol libFuzzer targets (fuzz/README.md).
 *
 * Inputs are split into words at '\n' and '\0'; each word is its own heap
 * block so that AddressSanitizer catches a read past any word's end. A final
 * separator ends the last word rather than starting an empty one ("a\n" is
 * one word, "a\n\n" two: "a" and "").
 *
 * A finding is an input on which the code under test neither crashed nor
 * leaked but broke a documented promise (a message that is empty or spans
 * lines, an accepted value outside its range, ...). It is reported on stderr
 * as "qmol-fuzz: FINDING [kind] ...", once per kind and process, and the
 * input is saved as $QMOL_FUZZ_FINDINGS/<target>-<kind> when that directory
 * is set, so that fuzzing goes on looking for crashes. QMOL_FUZZ_STRICT=1
 * makes a finding abort instead (a libFuzzer crash with its artifact).
 */
#ifndef QMOL_FUZZ_COMMON_H
#define QMOL_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

typedef struct fuzz_words {
    char **word;
    int count;
} fuzz_words;

/* Splits data into at most max_words words (the rest is dropped). Returns 0,
 * or -1 when out of memory (nothing to free then). */
int fuzz_split(const uint8_t *data, size_t size, int max_words, fuzz_words *out);
void fuzz_words_free(fuzz_words *w);

/* Reports a finding of the given kind (a short identifier, [a-z0-9-]) for
 * the input data. */
void fuzz_finding(const char *target, const char *kind, const uint8_t *data, size_t size,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* 1 if s (of capacity cap) is NUL-terminated within cap and non-empty. */
int fuzz_message_ok(const char *s, size_t cap);

#endif
