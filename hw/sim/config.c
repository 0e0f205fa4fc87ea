/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hw/sim/config.c: the machine's parameters, each declared once with its
 * default (public Haswell figures) and meaning; read from "key = value"
 * files and checked before a machine is built. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/sim/mmu.h"

enum ptype { T_UNS, T_INT, T_DBL };

struct param {
	const char *key;
	size_t off;
	enum ptype type;
	const char *doc;
};

#define U(k, d) { #k, offsetof(struct mmu_config, k), T_UNS, d }
static const struct param params[] = {
	U(dtlb_4k_entries, "L1 DTLB entries for 4K pages (Haswell: 64, 4-way)"),
	U(dtlb_4k_ways, "its ways"),
	U(dtlb_2m_entries, "L1 DTLB entries for 2M pages (Haswell: 32, 4-way)"),
	U(dtlb_2m_ways, "its ways"),
	U(dtlb_1g_entries, "L1 DTLB entries for 1G pages (Haswell: 4, fully associative)"),
	U(dtlb_1g_ways, "its ways"),
	U(stlb_entries, "STLB entries, shared by 4K and 2M (Haswell: 1024, 8-way)"),
	U(stlb_ways, "its ways"),
	U(pde_entries, "PDE cache entries (32)"),
	U(pde_ways, "its ways"),
	U(pdpte_entries, "PDPTE cache entries (4)"),
	U(pdpte_ways, "its ways"),
	U(pml4_entries, "PML4E cache entries, used with feature pml4_cache (2)"),
	U(pml4_ways, "its ways"),
	U(l1_bytes, "L1 data cache bytes (32K, 8-way)"),
	U(l1_ways, "its ways"),
	U(l2_bytes, "L2 cache bytes (256K, 8-way)"),
	U(l2_ways, "its ways"),
	U(l3_bytes, "L3 cache bytes (8M, 16-way)"),
	U(l3_ways, "its ways"),
	U(lat_l1, "L1 hit latency, cycles"),
	U(lat_l2, "L2 hit latency, cycles"),
	U(lat_l3, "L3 hit latency, cycles"),
	U(lat_mem, "memory latency, cycles"),
	U(walkers, "walk MSHRs: page walks in flight at once (Haswell: 2)"),
	U(window, "in-flight memory μops (Haswell load buffer: 72)"),
	U(uop_cycles, "nominal issue cost of one memory μop, cycles"),
	U(walk_setup, "cycles from walk start to its first reference"),
	{ "ghz", offsetof(struct mmu_config, ghz), T_DBL, "clock, cycles per ns" },
	{ "spec_share", offsetof(struct mmu_config, spec_share), T_DBL,
	  "wrong-path μops injected per correct-path μop" },
	U(squash_cycles, "mean cycles from a wrong-path μop's issue to its squash"),
	{ "abort_after_refs", offsetof(struct mmu_config, abort_after_refs), T_INT,
	  "-1: an aborted walk stops at the squash time; n >= 0: after n references" },
	U(bypass_cycles, "bypass: cycles a fetched paging-structure line stays in the walker's fill buffer"),
	U(abit_clear_ns, "the OS clears the accessed bit of every page this often, simulated ns (0: never)"),
	{ "mix_2m_share", offsetof(struct mmu_config, mix_2m_share), T_DBL,
	  "--pages mix: share of the 2M regions mapped by one 2M page (the rest by 4K pages)" },
	U(pf_up_from, "prefetch trigger, ascending: line (of 64 in a 4K page) ..."),
	U(pf_up_to, "... followed by this line; prefetches the next 4K page"),
	U(pf_down_from, "prefetch trigger, descending: line ..."),
	U(pf_down_to, "... followed by this line; prefetches the previous 4K page"),
};
#undef U
#define N_PARAMS (sizeof params / sizeof params[0])
_Static_assert(N_PARAMS <= MMU_CONFIG_MAX_PARAMS, "MMU_CONFIG_MAX_PARAMS");

/* The index of key in params, N_PARAMS when there is none. */
static size_t param_index(const char *key)
{
	size_t i;

	for (i = 0; i < N_PARAMS; i++)
		if (!strcmp(params[i].key, key))
			break;
	return i;
}

void mmu_config_default(struct mmu_config *c)
{
	memset(c, 0, sizeof *c);
	c->dtlb_4k_entries = 64; c->dtlb_4k_ways = 4;
	c->dtlb_2m_entries = 32; c->dtlb_2m_ways = 4;
	c->dtlb_1g_entries = 4; c->dtlb_1g_ways = 4;
	c->stlb_entries = 1024; c->stlb_ways = 8;
	c->pde_entries = 32; c->pde_ways = 4;
	c->pdpte_entries = 4; c->pdpte_ways = 4;
	c->pml4_entries = 2; c->pml4_ways = 2;
	c->l1_bytes = 32 << 10; c->l1_ways = 8;
	c->l2_bytes = 256 << 10; c->l2_ways = 8;
	c->l3_bytes = 8 << 20; c->l3_ways = 16;
	c->lat_l1 = 4; c->lat_l2 = 12; c->lat_l3 = 36; c->lat_mem = 200;
	c->walkers = 2;
	c->window = 72;
	c->uop_cycles = 1;
	c->walk_setup = 2;
	c->ghz = 3.0;
	c->spec_share = 0.05;
	c->squash_cycles = 30;
	c->abort_after_refs = -1;
	c->bypass_cycles = 100;
	c->abit_clear_ns = 2000000;
	c->mix_2m_share = 0.5;
	c->pf_up_from = 51; c->pf_up_to = 52;
	c->pf_down_from = 8; c->pf_down_to = 7;
}

int mmu_config_set(struct mmu_config *c, const char *key, const char *value,
		   struct cp_error *err)
{
	size_t i = param_index(key);
	char *end;

	if (i == N_PARAMS)
		return cp_error_set(err, CP_EINPUT, "unknown parameter '%s'", key);
	errno = 0;
	if (params[i].type == T_DBL) {
		double v = strtod(value, &end);

		if (errno || end == value || *end || !isfinite(v) || v < 0)
			goto bad;
		*(double *)(void *)((char *)c + params[i].off) = v;
	} else {
		long v = strtol(value, &end, 10);

		if (errno || end == value || *end || v > 0x7fffffffL ||
		    v < (params[i].type == T_INT ? -1 : 0))
			goto bad;
		if (params[i].type == T_INT)
			*(int *)(void *)((char *)c + params[i].off) = (int)v;
		else
			*(unsigned *)(void *)((char *)c + params[i].off) = (unsigned)v;
	}
	c->line[i] = 0;
	return CP_OK;
bad:
	return cp_error_set(err, CP_EINPUT, "bad value '%s' for parameter '%s'",
			    value, key);
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = 0;
	return s;
}

int mmu_config_load(struct mmu_config *c, const char *path,
		    struct cp_error *err)
{
	struct cp_lines r;
	int rc, got;

	if ((rc = cp_lines_open(&r, path, err)))
		return rc;
	while ((got = cp_lines_next(&r, err)) == 1) {
		char *hash, *eq, *key;

		hash = strchr(r.line, '#');
		if (hash)
			*hash = 0;
		key = trim(r.line);
		if (!*key)
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			rc = cp_error_at(err, CP_EINPUT, path, (unsigned)r.lineno, 0,
					 "expected 'key = value'");
			break;
		}
		*eq = 0;
		key = trim(key);
		rc = mmu_config_set(c, key, trim(eq + 1), err);
		if (rc) {
			char msg[CP_ERROR_MAX];

			snprintf(msg, sizeof msg, "%s", err->msg);
			cp_error_at(err, rc, path, (unsigned)r.lineno, 0, "%s", msg);
			break;
		}
		c->file = path;
		c->line[param_index(key)] = (unsigned)r.lineno;
	}
	if (got < 0 && !rc)
		rc = got;
	cp_lines_close(&r);
	return rc;
}

static int pow2(unsigned v)
{
	return v && !(v & (v - 1));
}

/* An error about parameters k1 and k2 (k2 may be NULL), at the line that
 * last set one of them when a file did (the later line). */
static int blame(const struct mmu_config *c, struct cp_error *err,
		 const char *k1, const char *k2, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int blame(const struct mmu_config *c, struct cp_error *err,
		 const char *k1, const char *k2, const char *fmt, ...)
{
	char msg[CP_ERROR_MAX];
	size_t i = param_index(k1), j = k2 ? param_index(k2) : N_PARAMS;
	unsigned line = i < N_PARAMS ? c->line[i] : 0;
	va_list ap;

	if (j < N_PARAMS && c->line[j] > line)
		line = c->line[j];
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (line && c->file)
		return cp_error_at(err, CP_EINPUT, c->file, line, 0, "%s", msg);
	return cp_error_set(err, CP_EINPUT, "%s", msg);
}

/* A set-associative structure what (parameters what_SIZE and what_ways):
 * ways divide entries, sets a power of 2. */
static int check_sa(const struct mmu_config *c, const char *what,
		    const char *size, unsigned entries, unsigned ways,
		    struct cp_error *err)
{
	char ks[64], kw[64];

	snprintf(ks, sizeof ks, "%s_%s", what, size);
	snprintf(kw, sizeof kw, "%s_ways", what);
	if (!ways || !entries || entries % ways || !pow2(entries / ways))
		return blame(c, err, ks, kw, "%s: %u entries in %u ways do not make "
			     "a power of two of sets", what, entries, ways);
	if (ways > 16)
		return blame(c, err, kw, NULL, "%s: at most 16 ways", what);
	return CP_OK;
}

int mmu_config_check(const struct mmu_config *c, struct cp_error *err)
{
	int rc;

	if ((rc = check_sa(c, "dtlb_4k", "entries", c->dtlb_4k_entries, c->dtlb_4k_ways, err)) ||
	    (rc = check_sa(c, "dtlb_2m", "entries", c->dtlb_2m_entries, c->dtlb_2m_ways, err)) ||
	    (rc = check_sa(c, "dtlb_1g", "entries", c->dtlb_1g_entries, c->dtlb_1g_ways, err)) ||
	    (rc = check_sa(c, "stlb", "entries", c->stlb_entries, c->stlb_ways, err)) ||
	    (rc = check_sa(c, "pde", "entries", c->pde_entries, c->pde_ways, err)) ||
	    (rc = check_sa(c, "pdpte", "entries", c->pdpte_entries, c->pdpte_ways, err)) ||
	    (rc = check_sa(c, "pml4", "entries", c->pml4_entries, c->pml4_ways, err)) ||
	    (rc = check_sa(c, "l1", "bytes", c->l1_bytes / 64, c->l1_ways, err)) ||
	    (rc = check_sa(c, "l2", "bytes", c->l2_bytes / 64, c->l2_ways, err)) ||
	    (rc = check_sa(c, "l3", "bytes", c->l3_bytes / 64, c->l3_ways, err)))
		return rc;
	if (!c->walkers || c->walkers > 64)
		return blame(c, err, "walkers", NULL, "walkers must be in 1..64");
	if (!c->window || c->window > 4096)
		return blame(c, err, "window", NULL, "window must be in 1..4096");
	if (!c->uop_cycles)
		return blame(c, err, "uop_cycles", NULL, "uop_cycles must be at least 1");
	if (!(c->ghz > 0))
		return blame(c, err, "ghz", NULL, "ghz must be positive");
	if (c->spec_share > 1)
		return blame(c, err, "spec_share", NULL, "spec_share must be in [0, 1]");
	if (c->mix_2m_share > 1)
		return blame(c, err, "mix_2m_share", NULL, "mix_2m_share must be in [0, 1]");
	if (c->pf_up_from > 63 || c->pf_up_to > 63)
		return blame(c, err, "pf_up_from", "pf_up_to",
			     "prefetch trigger lines must be in 0..63");
	if (c->pf_down_from > 63 || c->pf_down_to > 63)
		return blame(c, err, "pf_down_from", "pf_down_to",
			     "prefetch trigger lines must be in 0..63");
	return CP_OK;
}

void mmu_config_format(const struct mmu_config *c, struct cp_buf *out)
{
	size_t i;

	for (i = 0; i < N_PARAMS; i++) {
		const char *p = (const char *)c + params[i].off;

		switch (params[i].type) {
		case T_DBL: {
			/* the shortest text that reads back as the same double */
			double v = *(const double *)(const void *)p;
			char num[40];
			int prec = 6;

			do
				snprintf(num, sizeof num, "%.*g", prec, v);
			while (strtod(num, NULL) != v && ++prec <= 17);
			cp_buf_printf(out, "%-18s = %-8s # %s\n", params[i].key, num,
				      params[i].doc);
			break;
		}
		case T_INT:
			cp_buf_printf(out, "%-18s = %-8d # %s\n", params[i].key,
				      *(const int *)(const void *)p, params[i].doc);
			break;
		default:
			cp_buf_printf(out, "%-18s = %-8u # %s\n", params[i].key,
				      *(const unsigned *)(const void *)p, params[i].doc);
		}
	}
}
