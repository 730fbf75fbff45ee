/* replay_main.c: run a fuzz target over every file of a corpus directory, so
 * ctest replays the corpora with gcc on every change (SQLite's fuzzcheck).
 * A crash, sanitizer report or hang fails the test; returning is a pass.
 *
 * With --mutate SECONDS it then keeps going as a small mutation fuzzer, so CI
 * explores beyond the corpus without libFuzzer (gcc, any machine): each round
 * takes a corpus file and applies 1-4 of libFuzzer's simplest mutations (flip
 * a bit, set a byte to a value parsers care about, erase, duplicate or insert
 * a range, splice in part of another file), until the time is up. The
 * sequence is fixed by --seed, so a failure reproduces: the round that failed
 * is printed before it runs when PL_FUZZ_VERBOSE is set, and PL_FUZZ_DUMP=FILE
 * writes each mutant to FILE before it runs (after a crash: the input). */
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FILES 4096
#define MAX_INPUT (1u << 22) /* mutants stay under 4 MiB */

struct input {
  uint8_t *data;
  size_t n;
};

static uint8_t *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  size_t cap = 1 << 16, n = 0, got;
  uint8_t *buf = malloc(cap);
  while (buf != NULL && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      uint8_t *nb = realloc(buf, cap * 2);
      if (nb == NULL) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
  }
  fclose(f);
  *len = n;
  return buf;
}

/* As libFuzzer does: the input in a buffer of exactly its size, so the
 * sanitizer build catches a parser reading past the end (e.g. relying on a
 * NUL terminator, docs/robustness.md finding 1). */
static int run_exact(const uint8_t *data, size_t n) {
  uint8_t *exact = malloc(n > 0 ? n : 1);
  if (exact == NULL)
    return 1;
  memcpy(exact, data, n);
  LLVMFuzzerTestOneInput(exact, n);
  free(exact);
  return 0;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint64_t rnd(void) { /* xorshift64* (Vigna 2016) */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Du;
}

/* xorshift64* must start from a nonzero state (Vigna 2016: a zero state
 * stays zero). The seed goes through splitmix64's finalizer (Steele, Lea and
 * Flood 2014; Vigna's recommended seeding for the xorshift family), so every
 * seed gives a distinct nonzero state. Before session 26 the state was the
 * constant XOR seed * constant, which --seed 1 (ctest's) made 0: every
 * mutate_ test ran one mutant of the first corpus file over and over. */
static uint64_t seed_state(uint64_t seed) {
  uint64_t z = seed + 0x9E3779B97F4A7C15u;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  z ^= z >> 31;
  return z != 0 ? z : 0x9E3779B97F4A7C15u;
}

static size_t below(size_t n) { return n > 0 ? (size_t)(rnd() % n) : 0; }

/* Bytes that change how a JSON, CSV or nccl-tests parser branches. */
static const uint8_t special[] = {0,   0xff, '"', '{', '}', '[', ']', ',', ':', '\\', '\n',
                                  '\r', '-', '.', 'e', '0', '9', ' ', '#', 0x1f, 0x8b, 0x80};

/* One mutation of buf[0..*n) (capacity cap) in place. */
static void mutate_once(uint8_t *buf, size_t *n, size_t cap, const struct input *other) {
  size_t at = below(*n + 1), len = 1 + below(16);
  switch (rnd() % 6) {
  case 0:
    if (*n > 0)
      buf[below(*n)] ^= (uint8_t)(1u << (rnd() % 8));
    break;
  case 1:
    if (*n > 0)
      buf[below(*n)] = special[below(sizeof special)];
    break;
  case 2: /* erase */
    if (at + len > *n)
      len = *n - at;
    memmove(buf + at, buf + at + len, *n - at - len);
    *n -= len;
    break;
  case 3: /* duplicate a range at a random place */
    if (*n > 0 && *n + len <= cap) {
      size_t from = below(*n);
      if (from + len > *n)
        len = *n - from;
      memmove(buf + at + len, buf + at, *n - at);
      memmove(buf + at, buf + (from < at ? from : from + len), len);
      *n += len;
    }
    break;
  case 4: /* insert random bytes */
    if (*n + len <= cap) {
      memmove(buf + at + len, buf + at, *n - at);
      for (size_t i = 0; i < len; i++)
        buf[at + i] = (uint8_t)rnd();
      *n += len;
    }
    break;
  default: /* splice: overwrite a range with part of another input */
    if (other->n > 0) {
      size_t from = below(other->n);
      if (from + len > other->n)
        len = other->n - from;
      if (at + len > cap)
        len = cap - at;
      memcpy(buf + at, other->data + from, len);
      if (at + len > *n)
        *n = at + len;
    }
    break;
  }
}

static long mutate(const struct input *in, int n_in, double seconds) {
  uint8_t *buf = malloc(MAX_INPUT);
  if (buf == NULL || n_in == 0) {
    free(buf);
    return 0;
  }
  clock_t end = clock() + (clock_t)(seconds * CLOCKS_PER_SEC);
  long rounds = 0;
  bool verbose = getenv("PL_FUZZ_VERBOSE") != NULL;
  const char *dump = getenv("PL_FUZZ_DUMP");
  while (clock() < end) {
    const struct input *base = &in[below((size_t)n_in)];
    size_t n = base->n < MAX_INPUT / 2 ? base->n : MAX_INPUT / 2;
    memcpy(buf, base->data, n);
    int k = 1 + (int)below(4);
    for (int i = 0; i < k; i++)
      mutate_once(buf, &n, MAX_INPUT, &in[below((size_t)n_in)]);
    if (verbose)
      fprintf(stderr, "round %ld (base %td, %d mutations, %zu bytes)\n", rounds, base - in, k, n);
    if (dump != NULL) { /* the mutant about to run: after a crash, the input that crashed */
      FILE *f = fopen(dump, "wb");
      if (f != NULL) {
        fwrite(buf, 1, n, f);
        fclose(f);
      }
    }
    run_exact(buf, n);
    rounds++;
  }
  free(buf);
  return rounds;
}

int main(int argc, char **argv) {
  double seconds = 0;
  if (argc == 6 && strcmp(argv[2], "--mutate") == 0 && strcmp(argv[4], "--seed") == 0) {
    seconds = strtod(argv[3], NULL);
    rng_state = seed_state(strtoull(argv[5], NULL, 10));
  } else if (argc != 2) {
    fprintf(stderr, "usage: %s CORPUS_DIR [--mutate SECONDS --seed N]\n", argv[0]);
    return 2;
  }
  DIR *d = opendir(argv[1]);
  if (d == NULL) {
    fprintf(stderr, "cannot open corpus '%s'\n", argv[1]);
    return 1;
  }
  static struct input in[MAX_FILES];
  int files = 0, bad = 0;
  struct dirent *e;
  char path[4096];
  while ((e = readdir(d)) != NULL && files < MAX_FILES) {
    if (e->d_name[0] == '.')
      continue;
    snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
    in[files].data = read_all(path, &in[files].n);
    bad += in[files].data == NULL || run_exact(in[files].data, in[files].n);
    files++;
  }
  closedir(d);
  long rounds = seconds > 0 ? mutate(in, files, seconds) : 0;
  for (int i = 0; i < files; i++)
    free(in[i].data);
  if (seconds > 0)
    printf("%ld mutants run without a crash\n", rounds);
  printf("%d passed, %d failed\n", files - bad, bad);
  return bad ? 1 : 0;
}
