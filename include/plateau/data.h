/* data.h: the presets embedded from data/ at build time.
 * Ownership: returned strings borrow from static storage and live forever. */
#ifndef PLATEAU_DATA_H
#define PLATEAU_DATA_H

#include <stddef.h>

/* kind is "models", "gpus" or "clusters". Returns the preset's JSON text and
 * its length, or NULL when there is no such preset. */
const char *pl_data_find(const char *kind, const char *name, size_t *len);
/* The i-th preset name of a kind in sorted order, NULL past the end. */
const char *pl_data_name(const char *kind, size_t i);

#endif
