/* hw/sim/workload.c: the address streams the machine runs: linear
 * (footprint, stride, direction, store share), random (footprint, store
 * share) and recorded valgrind lackey traces (replayed in a loop). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw/sim/mmu.h"

#define BASE_VA (1ull << 40)     /* 1G-aligned, so every page size fits */
#define STORE_BIT (1ull << 63)

enum kind { K_LINEAR, K_RANDOM, K_TRACE };

struct mmu_workload {
	enum kind kind;
	uint64_t footprint, stride, pos, rng;
	int down;
	uint64_t store_cut;          /* a μop is a store if rng < store_cut */
	uint64_t *trace;             /* va | STORE_BIT */
	size_t n_trace, cap_trace;
	char label[96];
};

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void mmu_workload_free(struct mmu_workload *w)
{
	if (!w)
		return;
	cp_free(w->trace);
	cp_free(w);
}

/* "64", "4K", "1G" (binary units). */
static int parse_bytes(const char *s, size_t n, uint64_t *out)
{
	char buf[32], *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!n || n >= sizeof buf)
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf)
		return -1;
	switch (*end) {
	case 0: break;
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default: return -1;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v > (1ull << 46) >> shift)
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

static int push(struct mmu_workload *w, uint64_t rec)
{
	if (w->n_trace == w->cap_trace) {
		size_t cap = w->cap_trace ? 2 * w->cap_trace : 4096;
		uint64_t *t = cp_reallocarray(w->trace, cap, sizeof *t);

		if (!t)
			return CP_ENOMEM;
		w->trace = t;
		w->cap_trace = cap;
	}
	w->trace[w->n_trace++] = rec;
	return CP_OK;
}

/* Lackey lines: " L addr,size", " S addr,size", " M addr,size" (a load
 * then a store), "I  addr,size" (instruction fetch: skipped), "==pid=="
 * comments.  Files ending in .xz are read through `xz -dc`. */
static int load_trace(struct mmu_workload *w, const char *path,
		      struct cp_error *err)
{
	size_t len = strlen(path);
	int xz = len > 3 && !strcmp(path + len - 3, ".xz");
	FILE *f;
	char line[256];
	unsigned long lineno = 0;
	int rc = CP_OK;

	if (xz) {
		char *cmd;
		const char *p;
		struct cp_buf b;

		/* Quote the path for the shell: ' becomes '\''. */
		cp_buf_init(&b);
		cp_buf_puts(&b, "exec xz -dc -- '");
		for (p = path; *p; p++) {
			if (*p == '\'')
				cp_buf_puts(&b, "'\\''");
			else
				cp_buf_append(&b, p, 1);
		}
		cp_buf_puts(&b, "'");
		if (b.failed) {
			cp_buf_release(&b);
			return cp_error_set(err, CP_ENOMEM, "out of memory");
		}
		cmd = b.data;
		f = access(path, R_OK) ? NULL : popen(cmd, "r");
		cp_buf_release(&b);
	} else {
		f = fopen(path, "r");
	}
	if (!f)
		return cp_error_set(err, CP_EIO, "cannot read trace '%s': %s",
				    path, strerror(errno));
	while (fgets(line, sizeof line, f)) {
		char *p = line, *end;
		char op;
		unsigned long long a;

		lineno++;
		if (line[0] == '=' || line[0] == 'I' || line[0] == '\n')
			continue;
		while (*p == ' ')
			p++;
		op = *p++;
		if (op != 'L' && op != 'S' && op != 'M') {
			rc = cp_error_at(err, CP_EINPUT, path, (unsigned)lineno, 0,
					 "not a lackey record: expected L, S, M or I");
			break;
		}
		while (*p == ' ')
			p++;
		errno = 0;
		a = strtoull(p, &end, 16);
		if (errno || end == p || *end != ',') {
			rc = cp_error_at(err, CP_EINPUT, path, (unsigned)lineno, 0,
					 "bad address in lackey record");
			break;
		}
		a &= (1ull << 47) - 1;
		if (op != 'S' && (rc = push(w, a)))
			break;
		if (op != 'L' && (rc = push(w, a | STORE_BIT)))
			break;
	}
	if (rc == CP_ENOMEM)
		cp_error_set(err, rc, "out of memory");
	if (xz) {
		int st = pclose(f);

		if (!rc && st != 0)
			rc = cp_error_set(err, CP_EIO,
					  "cannot decompress '%s' (xz exit status %d)",
					  path, st);
	} else {
		fclose(f);
	}
	if (!rc && !w->n_trace)
		rc = cp_error_set(err, CP_EINPUT, "trace '%s' has no memory records",
				  path);
	return rc;
}

/* 268435456 -> "256m" (largest binary unit that divides it). */
static const char *size_text(uint64_t v, char *buf, size_t size)
{
	static const char units[] = "kmgt";
	int u = -1;

	while (u < 3 && v >= 1024 && !(v % 1024)) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, size, "%llu", (unsigned long long)v);
	else
		snprintf(buf, size, "%llu%c", (unsigned long long)v, units[u]);
	return buf;
}

struct mmu_workload *mmu_workload_new(const char *spec, uint64_t seed,
				      struct cp_error *err)
{
	struct mmu_workload *w = cp_calloc(1, sizeof *w);
	const char *p, *colon = strchr(spec, ':');
	size_t klen = colon ? (size_t)(colon - spec) : strlen(spec);
	char path[4096] = "";
	double stores = -1;
	char fp[32];

	if (!w) {
		cp_error_set(err, CP_ENOMEM, "out of memory");
		return NULL;
	}
	w->rng = seed ^ 0xd1b54a32d192ed03ull;
	w->footprint = 1ull << 30;
	w->stride = 64;
	if (klen == 6 && !strncmp(spec, "linear", 6))
		w->kind = K_LINEAR;
	else if (klen == 6 && !strncmp(spec, "random", 6))
		w->kind = K_RANDOM;
	else if (klen == 5 && !strncmp(spec, "trace", 5))
		w->kind = K_TRACE;
	else {
		cp_error_set(err, CP_EINPUT,
			     "unknown workload '%.*s' (known: linear, random, trace)",
			     (int)klen, spec);
		goto fail;
	}
	for (p = colon ? colon + 1 : spec + klen; *p;) {
		size_t n = strcspn(p, ","), kl;
		const char *eq = memchr(p, '=', n), *v;

		kl = eq ? (size_t)(eq - p) : n;
		v = eq ? eq + 1 : p + n;
		if (!eq && w->kind == K_TRACE && !path[0] && n < sizeof path) {
			memcpy(path, p, n);     /* trace:FILE */
			path[n] = 0;
		} else if (!eq) {
			cp_error_set(err, CP_EINPUT, "workload option '%.*s' wants a value",
				     (int)n, p);
			goto fail;
		} else if (kl == 9 && !strncmp(p, "footprint", 9) &&
			   w->kind != K_TRACE) {
			if (parse_bytes(v, n - kl - 1, &w->footprint) ||
			    w->footprint < 64) {
				cp_error_set(err, CP_EINPUT, "bad footprint '%.*s'",
					     (int)(n - kl - 1), v);
				goto fail;
			}
		} else if (kl == 6 && !strncmp(p, "stride", 6) && w->kind == K_LINEAR) {
			if (parse_bytes(v, n - kl - 1, &w->stride) || !w->stride) {
				cp_error_set(err, CP_EINPUT, "bad stride '%.*s'",
					     (int)(n - kl - 1), v);
				goto fail;
			}
		} else if (kl == 3 && !strncmp(p, "dir", 3) && w->kind == K_LINEAR) {
			if (n - kl - 1 == 2 && !strncmp(v, "up", 2))
				w->down = 0;
			else if (n - kl - 1 == 4 && !strncmp(v, "down", 4))
				w->down = 1;
			else {
				cp_error_set(err, CP_EINPUT, "dir wants up or down, not '%.*s'",
					     (int)(n - kl - 1), v);
				goto fail;
			}
		} else if (kl == 6 && !strncmp(p, "stores", 6) && w->kind != K_TRACE) {
			char buf[32], *end;

			if (n - kl - 1 >= sizeof buf)
				goto bad_stores;
			memcpy(buf, v, n - kl - 1);
			buf[n - kl - 1] = 0;
			stores = strtod(buf, &end);
			if (end == buf || *end || !(stores >= 0 && stores <= 1))
				goto bad_stores;
		} else if (kl == 4 && !strncmp(p, "file", 4) && w->kind == K_TRACE &&
			   n - kl - 1 < sizeof path) {
			memcpy(path, v, n - kl - 1);
			path[n - kl - 1] = 0;
		} else {
			cp_error_set(err, CP_EINPUT, "unknown option '%.*s' for workload %.*s",
				     (int)kl, p, (int)klen, spec);
			goto fail;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	if (stores < 0)
		stores = 0;
	w->store_cut = stores >= 1 ? UINT64_MAX :
		       (uint64_t)(stores * 18446744073709551616.0);
	switch (w->kind) {
	case K_LINEAR:
		if (w->stride > w->footprint) {
			cp_error_set(err, CP_EINPUT, "stride exceeds footprint");
			goto fail;
		}
		w->pos = w->down ? (w->footprint / w->stride - 1) * w->stride : 0;
		snprintf(w->label, sizeof w->label, "linear-%s-s%llu-fp%s",
			 w->down ? "down" : "up", (unsigned long long)w->stride,
			 size_text(w->footprint, fp, sizeof fp));
		break;
	case K_RANDOM:
		snprintf(w->label, sizeof w->label, "random-fp%s",
			 size_text(w->footprint, fp, sizeof fp));
		break;
	case K_TRACE: {
		const char *base = strrchr(path, '/');
		size_t bl;

		if (!path[0]) {
			cp_error_set(err, CP_EINPUT, "trace workload wants a file (trace:FILE)");
			goto fail;
		}
		if (load_trace(w, path, err))
			goto fail;
		base = base ? base + 1 : path;
		bl = strcspn(base, ".");
		snprintf(w->label, sizeof w->label, "trace-%.*s",
			 (int)(bl < 40 ? bl : 40), base);
		break;
	}
	}
	return w;
bad_stores:
	cp_error_set(err, CP_EINPUT, "stores wants a share in [0, 1]");
fail:
	mmu_workload_free(w);
	return NULL;
}

void mmu_workload_next(struct mmu_workload *w, uint64_t *va, int *is_store)
{
	switch (w->kind) {
	case K_LINEAR:
		*va = BASE_VA + w->pos;
		if (w->down)
			w->pos = w->pos >= w->stride ? w->pos - w->stride :
				 (w->footprint / w->stride - 1) * w->stride;
		else
			w->pos = w->pos + 2 * w->stride <= w->footprint ?
				 w->pos + w->stride : 0;
		break;
	case K_RANDOM:
		*va = BASE_VA + (rng_next(&w->rng) % (w->footprint >> 6)) * 64;
		break;
	case K_TRACE: {
		uint64_t r = w->trace[w->pos];

		if (++w->pos == w->n_trace)
			w->pos = 0;
		*va = r & ~STORE_BIT;
		*is_store = (r & STORE_BIT) != 0;
		return;
	}
	}
	*is_store = w->store_cut && rng_next(&w->rng) < w->store_cut;
}

const char *mmu_workload_label(const struct mmu_workload *w)
{
	return w->label;
}
