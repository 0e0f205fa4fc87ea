/* hw/sim/sim_int.h: what hw/sim/run.c needs of the workloads and the
 * machine beyond mmu.h: the next μops in a batch, and a correct-path μop
 * with its hint in one call.  Internal to hw/sim/. */
#ifndef COUNTERPOINT_HW_SIM_SIM_INT_H
#define COUNTERPOINT_HW_SIM_SIM_INT_H

#include <stddef.h>
#include <stdint.h>

#include "hw/sim/mmu.h"

/* The next n correct-path μops, as n calls of mmu_workload_next() would
 * give them, with a call's dispatch paid once. */
void mmu_workload_fill(struct mmu_workload *w, uint64_t *va,
		       uint8_t *is_store, size_t n);

/* mmu_hint(m, hint_va) then mmu_access(m, va, is_store), choosing the
 * machine's copy of the μop path once; returns mmu_cycles(m). */
uint64_t mmu_step(struct mmu_machine *m, uint64_t va, int is_store,
		  uint64_t hint_va);

#endif
