/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hw/sim/workload.c: the address streams the machine runs: linear
 * (footprint, stride, direction, store share), random (footprint, store
 * share), recorded valgrind lackey traces (replayed in a loop) and phased
 * programs that move between several of those. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hw/sim/mmu.h"
#include "hw/sim/sim_int.h"

#define BASE_VA (1ull << 40)     /* 1G-aligned, so every page size fits */
#define STORE_BIT (1ull << 63)
#define MAX_PHASES 8

extern char **environ;

enum kind { K_LINEAR, K_RANDOM, K_TRACE, K_PHASES };

struct mmu_workload {
	enum kind kind;
	uint64_t base;               /* where the footprint starts */
	uint64_t footprint, stride, pos, rng;
	uint64_t run, run_left;      /* random: lines read in a row per pick */
	int down;
	uint64_t store_cut;          /* a μop is a store if rng < store_cut */
	uint64_t *trace;             /* va | STORE_BIT */
	size_t n_trace, cap_trace;
	char *file;                  /* the trace's */
	/* phases: the workloads, the one running and its μops left */
	struct mmu_workload *phase[MAX_PHASES];
	size_t n_phases, cur;
	uint64_t mean, left;
	char label[128];
};

void mmu_workload_free(struct mmu_workload *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->n_phases; i++)
		mmu_workload_free(w->phase[i]);
	cp_free(w->trace);
	cp_free(w->file);
	cp_free(w);
}

/* The length of the next phase: uniform in 1 .. 2·mean − 1 μops. */
static uint64_t phase_length(struct mmu_workload *w)
{
	return 1 + rng_next(&w->rng) % (2 * w->mean - 1);
}

/* The state of a new workload made with seed: the one place that sets
 * it.  A phase's workload gets its own seed from its place. */
void mmu_workload_restart(struct mmu_workload *w, uint64_t seed)
{
	size_t i;

	w->run_left = 0;
	if (w->kind == K_PHASES) {
		w->rng = seed ^ 0x2d358dccaa6c78a5ull;
		for (i = 0; i < w->n_phases; i++)
			mmu_workload_restart(w->phase[i], seed + 0x9e3779b97f4a7c15ull *
					     (i + 1));
		w->cur = 0;
		w->left = phase_length(w);
		return;
	}
	w->rng = seed ^ 0xd1b54a32d192ed03ull;
	w->pos = w->kind == K_LINEAR && w->down ?
		 (w->footprint / w->stride - 1) * w->stride : 0;
}

size_t mmu_workload_files(const struct mmu_workload *w, const char **files,
			  size_t max)
{
	size_t i, n = 0;

	if (w->file) {
		if (max)
			files[0] = w->file;
		return 1;
	}
	for (i = 0; i < w->n_phases; i++)
		n += mmu_workload_files(w->phase[i], n < max ? files + n : NULL,
					n < max ? max - n : 0);
	return n;
}

/* A number with an optional unit letter, s[0..n): binary units for sizes
 * ("64", "4K", "1G", a trailing B allowed), decimal ones for counts of
 * μops ("1000", "50k", "2M").  At most limit. */
static int parse_scaled(const char *s, size_t n, int bytes, uint64_t limit,
			uint64_t *out)
{
	static const char units[] = "kmgt";
	char buf[32], *end;
	const char *u;
	unsigned long long v, scale = 1;

	if (!n || n >= sizeof buf)
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf)
		return -1;
	if (*end && (u = strchr(units, *end | 0x20)) != NULL) {
		unsigned k;

		for (k = 0; k <= (unsigned)(u - units); k++)
			scale *= bytes ? 1024 : 1000;
		end++;
	}
	if (bytes && (*end == 'B' || *end == 'b'))
		end++;
	if (*end || v > limit / scale)
		return -1;
	*out = (uint64_t)v * scale;
	return 0;
}

static int parse_bytes(const char *s, size_t n, uint64_t *out)
{
	return parse_scaled(s, n, 1, 1ull << 46, out);
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

/* One lackey record in line (NUL-terminated): " L addr,size",
 * " S addr,size", " M addr,size" (a load then a store), the address 1 to
 * 16 hex digits, the size 1 to 8 decimal ones, not 0.  Returns the
 * operation ('I' for an instruction fetch, 0 for a line that holds no
 * record: valgrind's "==PID==" and "--PID--" lines, blank lines), or -1
 * with *why set. */
static int lackey_record(const char *p, uint64_t *addr, const char **why)
{
	const char *q;
	uint64_t a = 0;
	char op;

	if ((p[0] == '=' && p[1] == '=') || (p[0] == '-' && p[1] == '-'))
		return 0;
	while (*p == ' ')
		p++;
	if (!*p || !strcmp(p, "\r"))
		return 0;
	op = *p++;
	if (op != 'L' && op != 'S' && op != 'M' && op != 'I') {
		*why = "not a lackey record: expected L, S, M or I";
		return -1;
	}
	while (*p == ' ')
		p++;
	for (q = p; (*q >= '0' && *q <= '9') || ((*q | 0x20) >= 'a' && (*q | 0x20) <= 'f'); q++)
		a = a << 4 | (uint64_t)(*q <= '9' ? *q - '0' : (*q | 0x20) - 'a' + 10);
	if (q == p || q - p > 16 || *q != ',') {
		*why = "bad address in lackey record (1 to 16 hexadecimal digits, "
		       "then a comma)";
		return -1;
	}
	for (p = ++q; *q >= '0' && *q <= '9'; q++)
		;
	if (q == p || q - p > 8 || strspn(p, "0") == (size_t)(q - p) ||
	    q[strspn(q, " \t\r")]) {
		*why = "bad size in lackey record (a positive decimal number of bytes)";
		return -1;
	}
	*addr = a;
	return op;
}

/* `xz -dc` reading fd, its output on a pipe: the pipe's read end, or -1
 * with err set. */
static int spawn_xz(int fd, const char *path, pid_t *pid, struct cp_error *err)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = { (char *)"xz", (char *)"-dc", NULL };
	int p[2], e;

	if (pipe2(p, O_CLOEXEC)) {
		cp_error_set(err, CP_EIO, "cannot decompress '%s': %s", path,
			     strerror(errno));
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	e = posix_spawnp(pid, "xz", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (e) {
		close(p[0]);
		cp_error_set(err, CP_EIO, "cannot run xz to decompress '%s': %s "
			     "(install xz-utils)", path, strerror(e));
		return -1;
	}
	return p[0];
}

/* Lackey lines, each record pushed; a file ending in .xz is read through
 * `xz -dc`.  The file is opened once (a FIFO or a pipe works) and read
 * once. */
static int load_trace(struct mmu_workload *w, const char *path,
		      struct cp_error *err)
{
	size_t len = strlen(path);
	int xz = len > 3 && !strcmp(path + len - 3, ".xz"), fd, in, rc = CP_OK, got;
	struct cp_lines r;
	pid_t pid = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return cp_error_set(err, CP_EIO, "cannot read trace '%s': %s", path,
				    strerror(errno));
	in = xz ? spawn_xz(fd, path, &pid, err) : fd;
	if (in < 0) {
		close(fd);
		return CP_EIO;
	}
	cp_lines_fd(&r, in, path);
	while ((got = cp_lines_next(&r, err)) == 1) {
		const char *why = NULL;
		uint64_t a;
		int op = lackey_record(r.line, &a, &why);

		if (op < 0) {
			rc = cp_error_at(err, CP_EINPUT, path, (unsigned)r.lineno, 0,
					 "%s", why);
			break;
		}
		if (op == 0 || op == 'I')
			continue;
		if (w->n_trace + 2 > MMU_TRACE_MAX) {
			rc = cp_error_at(err, CP_ELIMIT, path, (unsigned)r.lineno, 0,
					 "more than %u memory records (%u MB held; "
					 "cut the trace)", MMU_TRACE_MAX,
					 (unsigned)(MMU_TRACE_MAX * sizeof *w->trace >> 20));
			break;
		}
		a &= (1ull << 47) - 1;
		if (op != 'S' && (rc = push(w, a)))
			break;
		if (op != 'L' && (rc = push(w, a | STORE_BIT)))
			break;
	}
	if (got < 0 && !rc)
		rc = got;
	if (rc == CP_ENOMEM)
		cp_error_set(err, rc, "out of memory");
	cp_lines_close(&r);
	if (xz) {
		int st = 0;

		close(in);           /* xz, if still writing, ends on SIGPIPE */
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		if (!rc && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
			char how[96];

			rc = cp_error_set(err, CP_EIO, "cannot decompress '%s' (xz %s)",
					  path, cp_wait_status(st, how, sizeof how));
		}
	}
	close(fd);
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

static struct mmu_workload *workload_new(const char *spec, uint64_t seed,
					 uint64_t base, struct cp_error *err);

/* phases:[mean=N;]SPEC;SPEC[;SPEC...]: a program that moves between
 * workloads (linear, random, trace) in phases of random length, each
 * followed by a different one chosen at random, starting with the first.
 * Every workload but a trace gets its own part of the address space (a
 * program's arrays and tables do not overlap); each keeps its position
 * from one of its phases to the next, as a loop resumed would. */
static struct mmu_workload *phases_new(const char *list, uint64_t seed,
				       struct cp_error *err)
{
	struct mmu_workload *w = cp_calloc(1, sizeof *w);
	uint64_t base = BASE_VA;
	const char *p;
	size_t len = 0, i;

	if (!w) {
		cp_error_set(err, CP_ENOMEM, "out of memory");
		return NULL;
	}
	w->kind = K_PHASES;
	w->mean = 100000;
	for (p = list; *p;) {
		size_t n = strcspn(p, ";");
		const char *eq = memchr(p, '=', n), *colon = memchr(p, ':', n);
		char *one;

		if (!n) {
			p++;
			continue;
		}
		if (eq && !colon) {
			/* an option of the phased workload itself */
			if ((size_t)(eq - p) != 4 || strncmp(p, "mean", 4) ||
			    parse_scaled(eq + 1, n - 5, 0, 1ull << 40, &w->mean) || !w->mean) {
				cp_error_set(err, CP_EINPUT, "bad phases option '%.*s' "
					     "(known: mean=MICRO_OPS, positive)", (int)n, p);
				goto fail;
			}
		} else if (w->n_phases == MAX_PHASES) {
			cp_error_set(err, CP_EINPUT, "phases: at most %d workloads",
				     MAX_PHASES);
			goto fail;
		} else {
			struct mmu_workload *sub;

			one = cp_strndup(p, n);
			if (!one) {
				cp_error_set(err, CP_ENOMEM, "out of memory");
				goto fail;
			}
			sub = workload_new(one, seed + 0x9e3779b97f4a7c15ull *
					   (w->n_phases + 1), base, err);
			cp_free(one);
			if (!sub) {
				if (err) {
					char msg[CP_ERROR_MAX - 32];

					snprintf(msg, sizeof msg, "%.*s", (int)sizeof msg - 1,
						 err->msg);
					snprintf(err->msg, sizeof err->msg, "phase %zu: %s",
						 w->n_phases + 1, msg);
				}
				goto fail;
			}
			w->phase[w->n_phases++] = sub;
			if (sub->kind != K_TRACE) {
				base += (sub->footprint + (1ull << 30) - 1) &
					~((1ull << 30) - 1);
				if (base > 1ull << 47) {
					cp_error_set(err, CP_EINPUT, "phases: the footprints "
						     "do not fit in the 47-bit address space");
					goto fail;
				}
			}
		}
		p += n;
		if (*p == ';')
			p++;
	}
	if (w->n_phases < 2) {
		cp_error_set(err, CP_EINPUT, "phases wants at least two workloads "
			     "separated by ';'");
		goto fail;
	}
	len = (size_t)snprintf(w->label, sizeof w->label, "phases");
	for (i = 0; i < w->n_phases && len < sizeof w->label; i++)
		len += (size_t)snprintf(w->label + len, sizeof w->label - len, "%s%s",
					i ? "+" : "-", w->phase[i]->label);
	mmu_workload_restart(w, seed);
	return w;
fail:
	mmu_workload_free(w);
	return NULL;
}

struct mmu_workload *mmu_workload_new(const char *spec, uint64_t seed,
				      struct cp_error *err)
{
	if (!strncmp(spec, "phases:", 7))
		return phases_new(spec + 7, seed, err);
	if (!strcmp(spec, "phases"))
		return phases_new("", seed, err);
	return workload_new(spec, seed, BASE_VA, err);
}

/* One linear, random or trace workload whose footprint starts at base. */
static struct mmu_workload *workload_new(const char *spec, uint64_t seed,
					 uint64_t base, struct cp_error *err)
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
	w->base = base;
	w->footprint = 1ull << 30;
	w->stride = 64;
	w->run = 1;
	if (klen == 6 && !strncmp(spec, "linear", 6))
		w->kind = K_LINEAR;
	else if (klen == 6 && !strncmp(spec, "random", 6))
		w->kind = K_RANDOM;
	else if (klen == 5 && !strncmp(spec, "trace", 5))
		w->kind = K_TRACE;
	else if (klen == 6 && !strncmp(spec, "phases", 6)) {
		cp_error_set(err, CP_EINPUT, "phases cannot be nested");
		goto fail;
	} else {
		cp_error_set(err, CP_EINPUT,
			     "unknown workload '%.*s' (known: linear, random, "
			     "trace, phases)", (int)klen, spec);
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
		} else if (kl == 3 && !strncmp(p, "run", 3) && w->kind == K_RANDOM) {
			if (parse_scaled(v, n - kl - 1, 0, 1ull << 20, &w->run) || !w->run) {
				cp_error_set(err, CP_EINPUT, "bad run '%.*s' (lines, at least 1)",
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
		snprintf(w->label, sizeof w->label, "linear-%s-s%llu-fp%s",
			 w->down ? "down" : "up", (unsigned long long)w->stride,
			 size_text(w->footprint, fp, sizeof fp));
		break;
	case K_RANDOM:
		if (w->run > 1)
			snprintf(w->label, sizeof w->label, "random-r%llu-fp%s",
				 (unsigned long long)w->run,
				 size_text(w->footprint, fp, sizeof fp));
		else
			snprintf(w->label, sizeof w->label, "random-fp%s",
				 size_text(w->footprint, fp, sizeof fp));
		break;
	case K_TRACE: {
		const char *name = strrchr(path, '/');
		size_t bl;

		if (!path[0]) {
			cp_error_set(err, CP_EINPUT, "trace workload wants a file (trace:FILE)");
			goto fail;
		}
		if (load_trace(w, path, err))
			goto fail;
		if (!(w->file = cp_strdup(path))) {
			cp_error_set(err, CP_ENOMEM, "out of memory");
			goto fail;
		}
		name = name ? name + 1 : path;
		bl = strcspn(name, ".");
		snprintf(w->label, sizeof w->label, "trace-%.*s",
			 (int)(bl < 40 ? bl : 40), name);
		break;
	}
	case K_PHASES:
		break;          /* made by phases_new() */
	}
	mmu_workload_restart(w, seed);
	return w;
bad_stores:
	cp_error_set(err, CP_EINPUT, "stores wants a share in [0, 1]");
fail:
	mmu_workload_free(w);
	return NULL;
}

/* A random number below lines: r % lines, a mask when lines is a power
 * of two (the same number, without a division). */
static inline uint64_t below(uint64_t r, uint64_t lines)
{
	return lines & (lines - 1) ? r % lines : r & (lines - 1);
}

static inline void workload_next(struct mmu_workload *w, uint64_t *va,
				 int *is_store)
{
	switch (w->kind) {
	case K_LINEAR:
		*va = w->base + w->pos;
		if (w->down)
			w->pos = w->pos >= w->stride ? w->pos - w->stride :
				 (w->footprint / w->stride - 1) * w->stride;
		else
			w->pos = w->pos + 2 * w->stride <= w->footprint ?
				 w->pos + w->stride : 0;
		break;
	case K_RANDOM:
		/* a random line, then the run - 1 lines after it */
		if (!w->run_left) {
			w->pos = below(rng_next(&w->rng), w->footprint >> 6);
			w->run_left = w->run;
		} else if (++w->pos == w->footprint >> 6) {
			w->pos = 0;
		}
		w->run_left--;
		*va = w->base + w->pos * 64;
		break;
	case K_PHASES:
		if (!w->left) {
			/* the next phase: any other workload */
			size_t k = (size_t)(rng_next(&w->rng) % (w->n_phases - 1));

			w->cur = k < w->cur ? k : k + 1;
			w->left = phase_length(w);
		}
		w->left--;
		workload_next(w->phase[w->cur], va, is_store);
		return;
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

void mmu_workload_next(struct mmu_workload *w, uint64_t *va, int *is_store)
{
	workload_next(w, va, is_store);
}

void mmu_workload_fill(struct mmu_workload *w, uint64_t *va,
		       uint8_t *is_store, size_t n)
{
	size_t i;
	int st;

	if (w->kind == K_RANDOM && w->run == 1) {
		/* the simulator's random benchmarks: one line per pick (the
		 * state in locals: the stores to va[] could alias it) */
		uint64_t lines = w->footprint >> 6, cut = w->store_cut;
		uint64_t rng = w->rng, pos = w->pos;

		for (i = 0; i < n; i++) {
			pos = below(rng_next(&rng), lines);
			va[i] = w->base + pos * 64;
			is_store[i] = cut && rng_next(&rng) < cut;
		}
		w->rng = rng;
		w->pos = pos;
		return;
	}
	for (i = 0; i < n; i++) {
		workload_next(w, &va[i], &st);
		is_store[i] = (uint8_t)st;
	}
}

const char *mmu_workload_label(const struct mmu_workload *w)
{
	return w->label;
}
