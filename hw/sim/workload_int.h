/* hw/sim/workload_int.h: what hw/sim/run.c needs of the workloads beyond
 * mmu.h: the next μops in a batch.  Internal to hw/sim/. */
#ifndef COUNTERPOINT_HW_SIM_WORKLOAD_INT_H
#define COUNTERPOINT_HW_SIM_WORKLOAD_INT_H

#include <stddef.h>
#include <stdint.h>

#include "hw/sim/mmu.h"

/* The next n correct-path μops, as n calls of mmu_workload_next() would
 * give them, with a call's dispatch paid once. */
void mmu_workload_fill(struct mmu_workload *w, uint64_t *va,
		       uint8_t *is_store, size_t n);

#endif
