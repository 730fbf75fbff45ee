/* plateau.h: the whole public API of libplateau.
 * Ownership rule, for every header: what comes back through **out belongs to
 * the caller and is released with the matching _free/_close; a returned
 * const char * borrows from its object or from static storage. */
#ifndef PLATEAU_H
#define PLATEAU_H

#include "alloc.h"
#include "band.h"
#include "calib.h"
#include "calib_compute.h"
#include "coll.h"
#include "data.h"
#include "emit.h"
#include "flops.h"
#include "framework.h"
#include "gnuplot.h"
#include "hw.h"
#include "layout.h"
#include "memory.h"
#include "outfile.h"
#include "model.h"
#include "predict.h"
#include "report.h"
#include "search.h"
#include "sim.h"
#include "status.h"
#include "study.h"
#include "trace.h"
#include "units.h"
#include "validate.h"
#include "version.h"

#endif
