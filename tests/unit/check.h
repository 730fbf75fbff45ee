/* check.h: typed test assertions that print both values and file:line.
 * Each test is a plain main() calling the CHECK macros and ending with
 * `return check_finish();`. A failed check does not stop the test, so one run
 * shows every failure. */
#ifndef PL_TEST_CHECK_H
#define PL_TEST_CHECK_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <plateau/status.h>

static int check_failures;
static int check_count;

static inline int check_finish(void) {
  if (check_failures) {
    fprintf(stderr, "%d of %d checks failed\n", check_failures, check_count);
    return 1;
  }
  printf("%d checks passed\n", check_count);
  return 0;
}

/* A function, not a macro test, so passing &d does not warn (-Waddress). */
static inline const char *check_diag_msg(const struct pl_diag *d) { return d ? d->msg : ""; }

static inline void check_fail_at(const char *file, int line) {
  check_failures++;
  fprintf(stderr, "%s:%d: check failed: ", file, line);
}

#define CHECK(cond)                                                   \
  do {                                                                \
    check_count++;                                                    \
    if (!(cond)) {                                                    \
      check_fail_at(__FILE__, __LINE__);                              \
      fprintf(stderr, "%s\n", #cond);                                 \
    }                                                                 \
  } while (0)

#define CHECK_EQ_INT(actual, expected)                                           \
  do {                                                                           \
    long long a_ = (long long)(actual), e_ = (long long)(expected);              \
    check_count++;                                                               \
    if (a_ != e_) {                                                              \
      check_fail_at(__FILE__, __LINE__);                                         \
      fprintf(stderr, "%s == %lld, expected %lld\n", #actual, a_, e_);           \
    }                                                                            \
  } while (0)

/* |actual - expected| <= rel * |expected| (rel = 0 means exact). */
#define CHECK_NEAR_REL(actual, expected, rel)                                            \
  do {                                                                                   \
    double a_ = (double)(actual), e_ = (double)(expected);                               \
    check_count++;                                                                       \
    if (!(fabs(a_ - e_) <= (rel) * fabs(e_)) || isnan(a_)) {                             \
      check_fail_at(__FILE__, __LINE__);                                                 \
      fprintf(stderr, "%s == %.17g, expected %.17g (rel tol %g, off by %.3g%%)\n",       \
              #actual, a_, e_, (double)(rel), e_ != 0 ? 100.0 * (a_ - e_) / e_ : a_);    \
    }                                                                                    \
  } while (0)

#define CHECK_STR(actual, expected)                                                  \
  do {                                                                               \
    const char *a_ = (actual), *e_ = (expected);                                     \
    check_count++;                                                                   \
    if (a_ == NULL || strcmp(a_, e_) != 0) {                                         \
      check_fail_at(__FILE__, __LINE__);                                             \
      fprintf(stderr, "%s == \"%s\", expected \"%s\"\n", #actual, a_ ? a_ : "(null)", e_); \
    }                                                                                \
  } while (0)

/* status must equal expected; on mismatch prints the diag message. */
#define CHECK_STATUS(status, expected, diagp)                                        \
  do {                                                                               \
    int s_ = (int)(status), e_ = (int)(expected);                                    \
    check_count++;                                                                   \
    if (s_ != e_) {                                                                  \
      check_fail_at(__FILE__, __LINE__);                                             \
      fprintf(stderr, "%s returned %d, expected %d (%s)\n", #status, s_, e_,         \
              check_diag_msg(diagp));                                                \
    }                                                                                \
  } while (0)

/* The diag message must contain the substring. */
#define CHECK_CONTAINS(haystack, needle)                                             \
  do {                                                                               \
    const char *h_ = (haystack), *n_ = (needle);                                     \
    check_count++;                                                                   \
    if (h_ == NULL || strstr(h_, n_) == NULL) {                                      \
      check_fail_at(__FILE__, __LINE__);                                             \
      fprintf(stderr, "\"%s\" does not contain \"%s\"\n", h_ ? h_ : "(null)", n_);    \
    }                                                                                \
  } while (0)

#endif
