/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hw/sim/machine_new.c: building a simulated machine from its
 * configuration (TLBs, paging-structure caches, caches, the page-table
 * root, MSHRs and queues), freeing it, and reading its counters. */
#include <stdlib.h>
#include <string.h>

#include "hw/sim/machine_int.h"

void mmu_machine_free(struct mmu_machine *m)
{
	unsigned i;

	if (!m)
		return;
	for (i = 0; i < MMU_N_PAGES; i++)
		sa_release(&m->dtlb[i]);
	sa_release(&m->stlb);
	sa_release(&m->pde);
	sa_release(&m->pdpte);
	sa_release(&m->pml4);
	sa_release(&m->l1);
	sa_release(&m->l2);
	sa_release(&m->l3);
	cp_free(m->dir.mem);
	cp_free(m->pt.mem);
	cp_free(m->mshr);
	cp_free(m->ring);
	cp_free(m->rq);
	cp_free(m->hold);
	cp_free(m->gb_pa);
	cp_free(m);
}

struct mmu_machine *mmu_machine_new(const struct mmu_config *cfg,
				    unsigned features, enum mmu_page page,
				    uint64_t seed, struct cp_error *err)
{
	struct mmu_machine *m;
	uint32_t root_frame;
	unsigned i;
	int rc;

	if (mmu_config_check(cfg, err))
		return NULL;
	if ((unsigned)page >= MMU_N_PAGE_MODES) {
		cp_error_set(err, CP_EINPUT, "unknown page size");
		return NULL;
	}
	m = cp_calloc(1, sizeof *m);
	if (!m)
		goto nomem;
	m->cfg = *cfg;
	m->features = features & MMU_F_ALL;
	m->mode = page;
	m->rng = seed ^ 0x5851f42d4c957f2dull;
	m->mix_salt = rng_next(&m->rng);
	m->mix_cut = cfg->mix_2m_share >= 1 ? UINT64_MAX :
		     (uint64_t)(cfg->mix_2m_share * 18446744073709551616.0);
	/* key widths: VPNs of 47-bit addresses (the STLB's 2M keys carry
	 * bit 35), lines of physical memory below 2^(PT_BITS - 6) */
	rc = sa_init(&m->dtlb[MMU_PAGE_4K], cfg->dtlb_4k_entries, cfg->dtlb_4k_ways, 35);
	rc |= sa_init(&m->dtlb[MMU_PAGE_2M], cfg->dtlb_2m_entries, cfg->dtlb_2m_ways, 26);
	rc |= sa_init(&m->dtlb[MMU_PAGE_1G], cfg->dtlb_1g_entries, cfg->dtlb_1g_ways, 17);
	rc |= sa_init(&m->stlb, cfg->stlb_entries, cfg->stlb_ways, 36);
	rc |= sa_init(&m->pde, cfg->pde_entries, cfg->pde_ways, 47 - 21);
	rc |= sa_init(&m->pdpte, cfg->pdpte_entries, cfg->pdpte_ways, 47 - 30);
	rc |= sa_init(&m->pml4, cfg->pml4_entries, cfg->pml4_ways, 47 - 39);
	rc |= sa_init(&m->l1, cfg->l1_bytes / 64, cfg->l1_ways, PT_BITS - 6);
	rc |= sa_init(&m->l2, cfg->l2_bytes / 64, cfg->l2_ways, PT_BITS - 6);
	rc |= sa_init(&m->l3, cfg->l3_bytes / 64, cfg->l3_ways, PT_BITS - 6);
	m->lat[0] = cfg->lat_l1;
	m->lat[1] = cfg->lat_l2;
	m->lat[2] = cfg->lat_l3;
	m->lat[3] = cfg->lat_mem;
	m->mshr = cp_calloc(cfg->walkers, sizeof *m->mshr);
	m->ring = cp_calloc(cfg->window, sizeof *m->ring);
	m->rq = cp_calloc(cfg->window, sizeof *m->rq);
	m->hold = cp_calloc(cfg->window, sizeof *m->hold);
	/* one entry per 1G of the 47-bit space above PT_BASE (1 MB, its
	 * pages touched where used) */
	m->gb_pa = cp_calloc(((1ull << 47) - PT_BASE) >> 30, sizeof *m->gb_pa);
	if (rc || !m->mshr || !m->ring || !m->rq || !m->hold || !m->gb_pa)
		goto nomem;
	m->dir.esize = 8;
	m->pt.esize = 1;
	node_new(m, &m->dir, &root_frame);   /* the root (PML4): directory 0, frame 0 */
	if (m->nomem)
		goto nomem;
	m->epoch = 1;
	m->clear_cycles = (uint64_t)((double)cfg->abit_clear_ns * cfg->ghz);
	m->next_clear = m->clear_cycles ? m->clear_cycles : NONE;
	m->next_end = NONE;
	for (i = 0; i < MMU_N_CLASSES; i++) {
		m->rows[i].count = m->count + (i == MMU_C_STORE ? MMU_STORE_OFFSET : 0);
		m->rows[i].truth = m->truth + i * MMU_N_PATHS;
	}
	for (i = 0; i < cfg->walkers; i++)
		m->mshr[i].key = m->mshr[i].end = NONE;
	m->rq_t = NONE;
	m->hold_due = NONE;
	m->pf_prev_line = NONE;
	m->watch_key = NONE;
	m->watch_pde = NONE;
	m->walk_gb = NONE;
	if (sa_is(&m->dtlb[MMU_PAGE_4K], DTLB4K_SHAPE) &&
	    sa_is(&m->dtlb[MMU_PAGE_2M], DTLB2M_SHAPE) &&
	    sa_is(&m->dtlb[MMU_PAGE_1G], DTLB1G_SHAPE) &&
	    sa_is(&m->stlb, STLB_SHAPE) && sa_is(&m->pde, PDE_SHAPE) &&
	    sa_is(&m->pdpte, PDPTE_SHAPE) && sa_is(&m->pml4, PML4_SHAPE) &&
	    sa_is(&m->l1, L1_SHAPE) && sa_is(&m->l2, L2_SHAPE) &&
	    sa_is(&m->l3, L3_SHAPE) && cfg->walkers == FAST_WALKERS)
		m->fast = FAST_SHAPES;
	return m;
nomem:
	mmu_machine_free(m);
	cp_error_set(err, CP_ENOMEM, "out of memory");
	return NULL;
}

uint64_t mmu_data_frame_new(struct mmu_machine *m, size_t region)
{
	if (m->n_gb == MMU_DATA_HI_GB) {
		m->phys_full = 1;
		return HI_BASE;
	}
	return m->gb_pa[region] = HI_BASE + ((uint64_t)m->n_gb++ << 30);
}

uint64_t mmu_data_pa(struct mmu_machine *m, uint64_t va)
{
	return data_pa(m, va & ((1ull << 47) - 1));
}

int mmu_machine_status(const struct mmu_machine *m)
{
	return m->nomem ? CP_ENOMEM : m->phys_full ? CP_ELIMIT : CP_OK;
}

const uint64_t *mmu_counts(const struct mmu_machine *m)
{
	return m->count;
}

const uint64_t *mmu_truth(const struct mmu_machine *m)
{
	return m->truth;
}

uint64_t mmu_cycles(const struct mmu_machine *m)
{
	return m->now;
}

uint64_t mmu_ns(const struct mmu_machine *m)
{
	return (uint64_t)((double)m->now / m->cfg.ghz);
}
