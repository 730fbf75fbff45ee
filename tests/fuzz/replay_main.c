/* replay_main.c: run a fuzz target over every file of a corpus directory, so
 * ctest replays the corpora with gcc on every change (SQLite's fuzzcheck).
 * A crash, sanitizer report or hang fails the test; returning is a pass. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return 1;
  size_t cap = 1 << 16, n = 0;
  uint8_t *buf = malloc(cap);
  size_t got;
  while (buf != NULL && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      uint8_t *nb = realloc(buf, cap * 2);
      if (nb == NULL)
        break;
      buf = nb;
      cap *= 2;
    }
  }
  fclose(f);
  if (buf == NULL)
    return 1;
  /* As libFuzzer does: the input in a buffer of exactly its size, so the
   * sanitizer build catches a parser reading past the end (e.g. relying on
   * a NUL terminator, docs/robustness.md finding 1). */
  uint8_t *exact = malloc(n > 0 ? n : 1);
  if (exact == NULL) {
    free(buf);
    return 1;
  }
  memcpy(exact, buf, n);
  free(buf);
  LLVMFuzzerTestOneInput(exact, n);
  free(exact);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  DIR *d = opendir(argv[1]);
  if (d == NULL) {
    fprintf(stderr, "cannot open corpus '%s'\n", argv[1]);
    return 1;
  }
  int files = 0, bad = 0;
  struct dirent *e;
  char path[4096];
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
    bad += replay(path);
    files++;
  }
  closedir(d);
  printf("%d passed, %d failed\n", files - bad, bad);
  return bad ? 1 : 0;
}
