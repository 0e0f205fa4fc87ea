/* SPDX-License-Identifier: GPL-3.0-or-later */
/* common/cp.c: error records, allocation wrappers with failure injection
 * and text buffers shared by every module (files: common/files.c). */
#include "cp.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The release (docs/manual/versions.md): the one place it is written; the
 * Makefile reads it for the shared library's name and pkg-config. */
const char *cp_version(void)
{
	return "0.2.0";
}

double cp_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double cp_cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t cp_nanoseconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t cp_hash(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

size_t cp_edit_distance(const char *a, const char *b, size_t limit)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t rows[3][128], *prev2 = rows[0], *prev = rows[1], *cur = rows[2];

	if (la > 127 || lb > 127)
		return limit + 1;
	if ((la > lb ? la - lb : lb - la) > limit)
		return limit + 1;
	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		size_t best;
		size_t *t;

		cur[0] = i;
		best = i;
		for (j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]);
			int cb = tolower((unsigned char)b[j - 1]);
			size_t cost = ca != cb, v;

			v = prev[j] + 1;
			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			if (prev[j - 1] + cost < v)
				v = prev[j - 1] + cost;
			if (i > 1 && j > 1 &&
			    ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb &&
			    prev2[j - 2] + 1 < v)
				v = prev2[j - 2] + 1;
			cur[j] = v;
			if (v < best)
				best = v;
		}
		if (best > limit)
			return limit + 1;
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

const char *cp_closest(const char *word, const char *const *names, size_t n)
{
	size_t limit = strlen(word) <= 4 ? 1 : 2, best_d = limit + 1, i, d;
	const char *best = NULL;
	int tie = 0;

	for (i = 0; i < n; i++) {
		d = cp_edit_distance(word, names[i], limit);
		if (d < best_d) {
			best = names[i];
			best_d = d;
			tie = 0;
		} else if (d == best_d && d <= limit) {
			tie = 1;
		}
	}
	return best_d <= limit && !tie ? best : NULL;
}

int64_t cp_gcd64(int64_t a, int64_t b)
{
	/* in unsigned arithmetic, so that |INT64_MIN| is no overflow */
	uint64_t x = a < 0 ? -(uint64_t)a : (uint64_t)a;
	uint64_t y = b < 0 ? -(uint64_t)b : (uint64_t)b;

	while (y) {
		uint64_t t = x % y;

		x = y;
		y = t;
	}
	return (int64_t)x;
}

const char *cp_code_str(int code)
{
	switch (code) {
	case CP_OK: return "success";
	case CP_ENOMEM: return "out of memory";
	case CP_EIO: return "input/output error";
	case CP_ESYNTAX: return "syntax error";
	case CP_ESEMANTIC: return "semantic error";
	case CP_EINPUT: return "bad input";
	case CP_ELIMIT: return "limit reached";
	case CP_ENUMERIC: return "numerical failure";
	case CP_EINTERNAL: return "internal error";
	case CP_EUNSUPPORTED: return "not supported on this machine";
	case CP_EPERM: return "permission denied";
	}
	return "unknown error";
}

void cp_error_clear(struct cp_error *err)
{
	if (!err)
		return;
	memset(err, 0, sizeof *err);
}

static void error_vset(struct cp_error *err, int code, const char *file,
		       unsigned line, unsigned col, const char *fmt, va_list ap)
{
	err->code = code;
	err->file[0] = '\0';
	if (file)
		snprintf(err->file, sizeof err->file, "%s", file);
	err->line = line;
	err->col = col;
	err->detail[0] = '\0';
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
}

int cp_error_set(struct cp_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	va_start(ap, fmt);
	error_vset(err, code, NULL, 0, 0, fmt, ap);
	va_end(ap);
	return code;
}

int cp_error_at(struct cp_error *err, int code, const char *file,
		unsigned line, unsigned col, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	va_start(ap, fmt);
	error_vset(err, code, file, line, col, fmt, ap);
	va_end(ap);
	return code;
}

void cp_error_format(const struct cp_error *err, char *buf, size_t size)
{
	if (!err->file[0])
		snprintf(buf, size, "%s", err->msg);
	else if (!err->line)
		snprintf(buf, size, "%s: %s", err->file, err->msg);
	else if (!err->col)
		snprintf(buf, size, "%s:%u: %s", err->file, err->line, err->msg);
	else
		snprintf(buf, size, "%s:%u:%u: %s", err->file, err->line,
			 err->col, err->msg);
}

/* ---- allocation with failure injection ----
 * Off until a test asks (cp_alloc_fail_at or cp_alloc_count): then every
 * allocation is counted and fail_at counts down, the call that brings it
 * to zero failing.  Until then an allocation only reads `armed`: a count
 * every thread wrote would move its cache line between the cores at
 * every allocation (and race).  Atomic once armed, so threads that
 * allocate while a test counts do not race either. */
static atomic_int armed;
static atomic_ulong fail_at;
static atomic_ulong alloc_count;

static int alloc_should_fail(void)
{
	unsigned long f;

	if (!atomic_load_explicit(&armed, memory_order_relaxed))
		return 0;
	atomic_fetch_add_explicit(&alloc_count, 1, memory_order_relaxed);
	f = atomic_load_explicit(&fail_at, memory_order_relaxed);
	while (f && !atomic_compare_exchange_weak_explicit(&fail_at, &f, f - 1,
							   memory_order_relaxed,
							   memory_order_relaxed))
		;
	return f == 1;
}

void cp_alloc_fail_at(unsigned long n)
{
	atomic_store(&armed, 1);
	atomic_store(&fail_at, n);
}

unsigned long cp_alloc_count(void)
{
	atomic_store(&armed, 1);
	return atomic_load(&alloc_count);
}

void *cp_malloc(size_t size)
{
	if (alloc_should_fail())
		return NULL;
	return malloc(size ? size : 1);
}

void *cp_calloc(size_t n, size_t size)
{
	if (alloc_should_fail())
		return NULL;
	if (!n || !size)
		return calloc(1, 1);
	return calloc(n, size);
}

void *cp_realloc(void *p, size_t size)
{
	if (alloc_should_fail())
		return NULL;
	return realloc(p, size ? size : 1);
}

void *cp_reallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return cp_realloc(p, n * size);
}

char *cp_strndup(const char *s, size_t n)
{
	char *d = cp_malloc(n + 1);

	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *cp_strdup(const char *s)
{
	return cp_strndup(s, strlen(s));
}

void cp_free(void *p)
{
	free(p);
}

/* ---- text buffers ---- */
void cp_buf_init(struct cp_buf *b)
{
	memset(b, 0, sizeof *b);
}

void cp_buf_release(struct cp_buf *b)
{
	cp_free(b->data);
	memset(b, 0, sizeof *b);
}

void cp_buf_append(struct cp_buf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *d;

		while (cap < b->len + n + 1)
			cap *= 2;
		d = cp_realloc(b->data, cap);
		if (!d) {
			b->failed = 1;
			return;
		}
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void cp_buf_puts(struct cp_buf *b, const char *s)
{
	cp_buf_append(b, s, strlen(s));
}

void cp_buf_printf(struct cp_buf *b, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	int n;

	if (b->failed)
		return;
	va_start(ap, fmt);
	n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = 1;
		return;
	}
	if ((size_t)n < sizeof small) {
		cp_buf_append(b, small, (size_t)n);
		return;
	}
	{
		char *big = cp_malloc((size_t)n + 1);

		if (!big) {
			b->failed = 1;
			return;
		}
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		cp_buf_append(b, big, (size_t)n);
		cp_free(big);
	}
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 (RFC 3629: no
 * overlongs, no surrogates, nothing above U+10FFFF). */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f))
			return 0;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (s[3] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))
			return 0;
		return 4;
	}
	return 0;
}

void cp_buf_json_string(struct cp_buf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	cp_buf_puts(b, "\"");
	while (*s) {
		size_t n = utf8_len(s);

		if (*s == '"' || *s == '\\')
			cp_buf_printf(b, "\\%c", *s);
		else if (*s == '\n')
			cp_buf_puts(b, "\\n");
		else if (*s == '\t')
			cp_buf_puts(b, "\\t");
		else if (*s < 0x20 || *s == 0x7f)
			cp_buf_printf(b, "\\u%04x", *s);
		else if (n == 0)
			cp_buf_printf(b, "\\u%04x", *s);   /* not UTF-8 */
		else {
			cp_buf_append(b, (const char *)s, n);
			s += n;
			continue;
		}
		s++;
	}
	cp_buf_puts(b, "\"");
}

void cp_buf_json_string_or_null(struct cp_buf *b, const char *s)
{
	if (s)
		cp_buf_json_string(b, s);
	else
		cp_buf_puts(b, "null");
}

void cp_buf_json_begin(struct cp_buf *b, const char *model, const char *data)
{
	cp_buf_printf(b, "{\n\"schema\": %d,\n\"model\": ", CP_JSON_SCHEMA);
	cp_buf_json_string_or_null(b, model);
	cp_buf_puts(b, ",\n\"data\": ");
	cp_buf_json_string_or_null(b, data);
}

int cp_read_file(const char *path, struct cp_buf *b, struct cp_error *err)
{
	char *text;
	size_t len;
	int rc;

	/* from a pipe or a device at most 1 GB, nothing after a NUL byte */
	if ((rc = cp_read_text(path, (size_t)1 << 30, 0, &text, &len, err)))
		return rc;
	cp_buf_append(b, text, len);
	cp_free(text);
	if (b->failed)
		return cp_error_set(err, CP_ENOMEM, "out of memory reading '%s'",
				    path);
	return CP_OK;
}

/* ---- numbering strings ---- */
void cp_strindex_init(struct cp_strindex *x)
{
	memset(x, 0, sizeof *x);
}

void cp_strindex_release(struct cp_strindex *x)
{
	cp_free(x->s);
	cp_free(x->slot);
	memset(x, 0, sizeof *x);
}

static int strindex_rehash(struct cp_strindex *x, size_t nslots)
{
	size_t *slot = cp_calloc(nslots, sizeof *slot), i, j;

	if (!slot)
		return CP_ENOMEM;
	for (i = 0; i < x->n; i++) {
		j = cp_hash(CP_HASH_SEED, x->s[i], strlen(x->s[i])) & (nslots - 1);
		while (slot[j])
			j = (j + 1) & (nslots - 1);
		slot[j] = i + 1;
	}
	cp_free(x->slot);
	x->slot = slot;
	x->nslots = nslots;
	return CP_OK;
}

size_t cp_strindex_add(struct cp_strindex *x, const char *s)
{
	size_t j;

	if (2 * (x->n + 1) > x->nslots &&
	    strindex_rehash(x, x->nslots ? 2 * x->nslots : 64))
		return (size_t)-1;
	for (j = cp_hash(CP_HASH_SEED, s, strlen(s)) & (x->nslots - 1); x->slot[j];
	     j = (j + 1) & (x->nslots - 1))
		if (!strcmp(x->s[x->slot[j] - 1], s))
			return x->slot[j] - 1;
	if (x->n == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 64;
		const char **ns = cp_reallocarray(x->s, cap, sizeof *ns);

		if (!ns)
			return (size_t)-1;
		x->s = ns;
		x->cap = cap;
	}
	x->s[x->n] = s;
	x->slot[j] = ++x->n;
	return x->n - 1;
}

const char *cp_wait_status(int status, char *buf, size_t size)
{
	if (WIFEXITED(status))
		snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "was killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, size, "stopped (wait status %#x)", (unsigned)status);
	return buf;
}

/* ---- the long CSV dataset's fields ----
 * The loader (stats/csv.c) trims blanks (spaces, tabs) around an unquoted
 * field, ends it at a comma, reads a field that starts with a quote as
 * quoted ("" inside for one quote), and reads line by line; so a name is
 * quoted when it holds a comma, a quote or a carriage return or starts or
 * ends with a blank, and a name that is empty or holds a newline has no
 * field that loads as it. */
static int csv_blank(char c)
{
	return c == ' ' || c == '\t';
}

void cp_buf_csv_field(struct cp_buf *b, const char *s)
{
	size_t n = strlen(s);

	if (n && !strpbrk(s, ",\"\r\n") && !csv_blank(s[0]) && !csv_blank(s[n - 1])) {
		cp_buf_append(b, s, n);
		return;
	}
	cp_buf_puts(b, "\"");
	for (; *s; s++) {
		if (*s == '"')
			cp_buf_puts(b, "\"");
		cp_buf_append(b, s, 1);
	}
	cp_buf_puts(b, "\"");
}

int cp_csv_name_check(const char *what, const char *s, struct cp_error *err)
{
	if (!s[0])
		return cp_error_set(err, CP_EINPUT, "empty %s name (a dataset "
				    "cannot hold one)", what);
	if (strchr(s, '\n'))
		return cp_error_set(err, CP_EINPUT, "%s name '%.*s...' has a newline "
				    "(a dataset row is one line)", what,
				    (int)strcspn(s, "\n"), s);
	return CP_OK;
}

/* The library is linked with the reference LAPACK and BLAS (Makefile),
 * which run on the calling thread.  A program that links OpenBLAS itself
 * (or a Python process whose numpy loaded it first) gives LAPACKE
 * OpenBLAS instead, which keeps a thread per core busy-waiting beside
 * the ones --threads gives to workers; our matrices are small (26 x 26
 * on the Haswell family), so those threads cost more than they save.
 * The symbol is weak: without OpenBLAS this does nothing. */
extern void openblas_set_num_threads(int n) __attribute__((weak));

static void lapack_serial_once(void)
{
	if (openblas_set_num_threads)
		openblas_set_num_threads(1);
}

void cp_lapack_serial(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, lapack_serial_once);
}
