/* data.h: the presets embedded from data/ at build time.
 * Ownership: returned strings borrow from static storage and live forever. */
#ifndef PLATEAU_DATA_H
#define PLATEAU_DATA_H

#include <stdbool.h>
#include <stddef.h>

/* kind is "models", "gpus", "clusters", "frameworks" or "accuracy" (JSON),
 * or "validation" (the CSVs `plateau study` draws without --validation,
 * named by their stem). Returns the text and its length, or NULL when there
 * is no such entry. */
const char *pl_data_find(const char *kind, const char *name, size_t *len);
/* The i-th preset name of a kind in sorted order, NULL past the end. */
const char *pl_data_name(const char *kind, size_t i);
/* A "did you mean" hint for an unknown name: writes "did you mean
 * 'llama3-8b'?" (or "'a100-40g' or 'a100-80g'") into buf, naming the presets
 * of kind nearest to name by edit distance (Levenshtein, case-insensitive)
 * within max(2, strlen(name) / 3) edits, ties together (at most 3); failing
 * that, the presets name is a prefix of ("a100" -> "a100-40g", "a100-80g").
 * Returns false, buf "", when nothing is near. */
bool pl_data_hint(const char *kind, const char *name, char *buf, size_t n);
/* The Levenshtein distance of two names, case-insensitive, each cut at 63
 * characters (what pl_data_hint measures). */
size_t pl_data_edit_distance(const char *a, const char *b);

#endif
