/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench/load.c: how fast the dataset loader reads the long CSV, and how
 * much memory it holds at its peak.
 *
 *   build/bench/load --make TEMPLATE N OUT
 *       writes OUT: every row of the dataset TEMPLATE, N times, the
 *       observations of copy c renamed "cC/NAME" (so OUT has N times the
 *       template's observations, each with the template's rows)
 *   build/bench/load --runs R [--threads T] FILE
 *       loads FILE R times (stats_dataset_load_threads on T threads, 1 by
 *       default, 0 for one per CPU) and prints the median
 *       speed in MB/s (1 MB = 10^6 bytes of the file), the peak resident
 *       memory (getrusage) against the file's numbers held as doubles and
 *       64-bit integers (interval, value, enabled_ns, running_ns: 32 bytes
 *       a row), and what strtoull/strtod alone take on the same numeric
 *       fields (the reason the loader scans numbers itself:
 *       docs/method/statistics.md)
 *
 * Every figure is printed with the command that made it.  Figures only:
 * nothing is asserted (the machine may be shared). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "common/cp.h"
#include "stats/region.h"

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double peak_mb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss * 1024.0 / 1e6;   /* ru_maxrss is in KiB */
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, dbl_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The whole of path into *text (NUL-terminated), or NULL. */
static char *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *text = NULL;
	size_t cap = 0, got;

	*len = 0;
	if (!fp) {
		fprintf(stderr, "bench/load: cannot read '%s': %s\n", path,
			strerror(errno));
		return NULL;
	}
	do {
		if (cap - *len < 65536) {
			char *nt = realloc(text, cap = cap ? 2 * cap : 1 << 20);

			if (!nt) {
				free(text);
				fclose(fp);
				fprintf(stderr, "bench/load: out of memory\n");
				return NULL;
			}
			text = nt;
		}
		got = fread(text + *len, 1, cap - *len - 1, fp);
		*len += got;
	} while (got > 0);
	fclose(fp);
	text[*len] = '\0';
	return text;
}

/* Index of the header column called name in the line [p, end), or -1. */
static long header_column(const char *p, const char *end, const char *name)
{
	size_t n = strlen(name);
	long c = 0;

	for (;;) {
		const char *q = memchr(p, ',', (size_t)(end - p));

		if (!q)
			q = end;
		if ((size_t)(q - p) == n && !memcmp(p, name, n))
			return c;
		if (q == end)
			return -1;
		p = q + 1;
		c++;
	}
}

static int make(const char *tmpl, const char *count, const char *out)
{
	struct stats_dataset *d = NULL;
	struct cp_error err;
	struct cp_buf b;
	char *text, *end, *body, *nl, *stop;
	size_t len, n, c;
	long col;
	int rc;

	n = (size_t)strtoull(count, &stop, 10);
	if (!*count || *stop || n == 0) {
		fprintf(stderr, "bench/load: N '%s' is not a positive integer\n", count);
		return 2;
	}
	cp_error_clear(&err);
	if (stats_dataset_load(tmpl, &d, &err)) {    /* a valid dataset */
		fprintf(stderr, "bench/load: %s:%u: %s\n", err.file, err.line, err.msg);
		return 1;
	}
	stats_dataset_free(d);
	if (!(text = slurp(tmpl, &len)))
		return 1;
	end = text + len;
	nl = memchr(text, '\n', len);
	if (!nl || memchr(text, '"', len)) {
		fprintf(stderr, "bench/load: %s: a template has a header line "
			"and no quoted fields\n", tmpl);
		free(text);
		return 1;
	}
	col = header_column(text, nl, "observation");
	body = nl + 1;
	cp_buf_init(&b);
	cp_buf_append(&b, text, (size_t)(body - text));
	for (c = 0; c < n && !b.failed; c++) {
		const char *p = body;

		while (p < end) {
			const char *e = memchr(p, '\n', (size_t)(end - p)), *f = p;
			long i;

			e = e ? e + 1 : end;
			/* copy up to the observation field, prefix it, go on */
			for (i = 0; i < col; i++)
				f = (const char *)memchr(f, ',', (size_t)(e - f)) + 1;
			cp_buf_append(&b, p, (size_t)(f - p));
			cp_buf_printf(&b, "c%zu/", c);
			cp_buf_append(&b, f, (size_t)(e - f));
			p = e;
		}
	}
	free(text);
	if (b.failed) {
		fprintf(stderr, "bench/load: out of memory\n");
		cp_buf_release(&b);
		return 1;
	}
	rc = cp_write_file_atomic(out, b.data, b.len, &err);
	if (rc)
		fprintf(stderr, "bench/load: %s\n", err.msg);
	else
		printf("build/bench/load --make %s %s %s: %zu bytes\n", tmpl,
		       count, out, b.len);
	cp_buf_release(&b);
	return rc ? 1 : 0;
}

/* Rows of the file and the CPU time of finding its lines and fields
 * (memchr, strchr) and, if convert, of strtoull/strtod on its numeric
 * fields (interval, enabled_ns, running_ns; value) too.  The file is read
 * in blocks, so this adds nothing to the peak memory measured before. */
static int scan_strto(const char *path, int convert, size_t *rows,
		      double *seconds)
{
	static char buf[1 << 20];
	FILE *fp = fopen(path, "rb");
	size_t have = 0, got, line = 0;
	long col[4] = { -1, -1, -1, -1 };
	static const char *const name[4] = { "interval", "value", "enabled_ns",
					     "running_ns" };
	volatile double sink = 0;
	double t = 0;
	int k;

	*rows = 0;
	if (!fp)
		return -1;
	while ((got = fread(buf + have, 1, sizeof buf - have - 1, fp)) > 0 ||
	       have) {
		char *p = buf, *end = buf + have + got, *nl;
		double t0 = cpu_seconds();

		if (!got && have)        /* a last line without its newline */
			*end++ = '\n';
		while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
			*nl = '\0';
			if (line++ == 0) {
				for (k = 0; k < 4; k++)
					col[k] = header_column(p, nl, name[k]);
			} else if (nl > p) {
				char *f = p, *stop;
				long c = 0;

				for (;;) {
					for (k = 0; convert && k < 4; k++)
						if (col[k] == c)
							sink += k == 1 ? strtod(f, &stop) :
								(double)strtoull(f, &stop, 10);
					if (!(f = strchr(f, ',')))
						break;
					f++;
					c++;
				}
				(*rows)++;
			}
			p = nl + 1;
		}
		t += cpu_seconds() - t0;
		have = (size_t)(end - p);
		memmove(buf, p, have);
		if (!got)
			break;
		if (have >= sizeof buf - 1) {
			fclose(fp);
			return -1;
		}
	}
	fclose(fp);
	(void)sink;
	*seconds = t;
	return 0;
}

static int runs(const char *count, const char *threads_arg, const char *path)
{
	struct stats_dataset *d = NULL;
	struct cp_error err;
	double *wall, *cpu, base, peak, mb, split_s, strto_s;
	size_t r, n, rows, nobs = 0, threads = 1;
	char *stop;
	FILE *fp;

	n = (size_t)strtoull(count, &stop, 10);
	if (!*count || *stop || n == 0 || n > 1000) {
		fprintf(stderr, "bench/load: R '%s' is not in 1..1000\n", count);
		return 2;
	}
	if (threads_arg) {
		threads = (size_t)strtoull(threads_arg, &stop, 10);
		if (!*threads_arg || *stop || threads > 256) {
			fprintf(stderr, "bench/load: T '%s' is not in 0..256\n",
				threads_arg);
			return 2;
		}
	}
	if (!(fp = fopen(path, "rb"))) {
		fprintf(stderr, "bench/load: cannot read '%s': %s\n", path,
			strerror(errno));
		return 1;
	}
	fseek(fp, 0, SEEK_END);
	mb = (double)ftell(fp) / 1e6;
	fclose(fp);
	wall = calloc(n, sizeof *wall);
	cpu = calloc(n, sizeof *cpu);
	if (!wall || !cpu)
		return 1;
	base = peak_mb();
	for (r = 0; r < n; r++) {
		double w0 = cp_seconds(), c0 = cpu_seconds();

		cp_error_clear(&err);
		if (stats_dataset_load_threads(path, threads, &d, NULL, &err)) {
			fprintf(stderr, "bench/load: %s:%u: %s\n", err.file,
				err.line, err.msg);
			return 1;
		}
		cpu[r] = cpu_seconds() - c0;
		wall[r] = cp_seconds() - w0;
		nobs = stats_dataset_n_observations(d);
		stats_dataset_free(d);
	}
	peak = peak_mb();
	if (scan_strto(path, 0, &rows, &split_s) ||
	    scan_strto(path, 1, &rows, &strto_s)) {
		fprintf(stderr, "bench/load: cannot scan '%s'\n", path);
		return 1;
	}
	printf("build/bench/load --runs %s%s%s %s: %.1f MB, %zu rows, %zu "
	       "observations\n", count, threads_arg ? " --threads " : "",
	       threads_arg ? threads_arg : "", path, mb, rows, nobs);
	printf("  load: median %.0f MB/s wall (%.3f s), %.0f MB/s CPU (%.3f s), %zu runs\n",
	       mb / median(wall, n), median(wall, n), mb / median(cpu, n),
	       median(cpu, n), n);
	printf("  peak RSS %.1f MB (%.1f MB before loading); numbers as 8-byte "
	       "values (32 B a row) %.1f MB: peak %.2fx, peak - before %.2fx\n",
	       peak, base, (double)rows * 32 / 1e6, peak / ((double)rows * 32 / 1e6),
	       (peak - base) / ((double)rows * 32 / 1e6));
	printf("  strtoull/strtod on the 4 numeric fields of every row, nothing "
	       "else: %.3f s CPU = %.0f MB/s\n    (memchr/strchr splitting "
	       "%.3f s, with the conversions %.3f s)\n", strto_s - split_s,
	       mb / (strto_s - split_s), split_s, strto_s);
	free(wall);
	free(cpu);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "--make"))
		return make(argv[2], argv[3], argv[4]);
	if (argc == 4 && !strcmp(argv[1], "--runs"))
		return runs(argv[2], NULL, argv[3]);
	if (argc == 6 && !strcmp(argv[1], "--runs") &&
	    !strcmp(argv[3], "--threads"))
		return runs(argv[2], argv[4], argv[5]);
	fprintf(stderr, "usage: build/bench/load --make TEMPLATE N OUT\n"
		"       build/bench/load --runs R [--threads T] FILE\n"
		"(see the comment at the top of bench/load.c)\n");
	return 2;
}
