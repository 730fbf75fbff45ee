/* schedule.c: the table that maps a layout's schedule to its implementation
 * (one file per schedule: gpipe.c, 1f1b.c, interleaved.c). */
#include "sim/sim_int.h"

const struct sim_schedule *sim_schedule_for(enum pl_schedule s) {
  switch (s) {
  case PL_SCHEDULE_GPIPE: return &sim_schedule_gpipe;
  case PL_SCHEDULE_INTERLEAVED: return &sim_schedule_interleaved;
  case PL_SCHEDULE_1F1B: break;
  }
  return &sim_schedule_1f1b;
}
