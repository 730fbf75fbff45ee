/* version.h: the library's version, for reports that record what wrote them
 * (the study's HTML and results.json) and for `plateau --version`. */
#ifndef PLATEAU_VERSION_H
#define PLATEAU_VERSION_H

#define PL_VERSION "0.1.0"

#endif
