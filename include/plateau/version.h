/* version.h: the library's version, for reports that record what wrote them
 * (the study's HTML and results.json) and for `plateau --version`. */
#ifndef PLATEAU_VERSION_H
#define PLATEAU_VERSION_H

#define PL_VERSION "0.1.0"

/* The version the library was built as: `git describe` of its source tree at
 * build time ("0.1.0-gabc1234-dirty"), or PL_VERSION outside a git checkout
 * (cmake/version.cmake). Every JSON document plateau writes records it. */
const char *pl_version(void);

#endif
