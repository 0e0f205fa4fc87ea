/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench/obsgen.c: datasets of any number of observations, for timing
 * `check` at the scale of a campaign, written to standard output.
 *
 *   build/bench/obsgen TEMPLATE N [--intervals I] [--interleave W]
 *       [--long]
 *
 * TEMPLATE is a dataset grouped by observation (datasets/sim-sweep-all.csv:
 * 36 observations of 50 intervals x 28 events).  Each of its observations
 * is cut into pieces of I consecutive intervals (default 10: five pieces
 * each), and observation j of the output is piece j mod P (P pieces in
 * all), renamed "jJ-NAME" and its intervals numbered from 0: N
 * observations of I intervals each, every row the template's.  The
 * output is grouped by observation, as sim, record and import write; with
 * --interleave W, each W consecutive observations take turns interval
 * by interval (W processes recorded at once).  --long: one observation,
 * "long", of N intervals, the template's first observation's intervals
 * over and over (its counts cycling, its numbers going on).
 *
 * A bench's input, not a test's: nothing is checked beyond the
 * template's shape. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct row {
	const char *rest;        /* the row after its interval field */
	size_t len;              /* with its newline */
};

struct piece {
	const char *name;
	size_t nlen;
	size_t first, n;         /* rows[first .. first + n), interval order */
	size_t per;              /* rows an interval */
};

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *t = NULL;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    !(t = malloc((size_t)n + 1)) || fread(t, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "bench/obsgen: cannot read '%s'\n", path);
		free(t);
		if (f)
			fclose(f);
		return NULL;
	}
	fclose(f);
	t[n] = 0;
	*len = (size_t)n;
	return t;
}

int main(int argc, char **argv)
{
	size_t n = 0, per_piece = 10, width = 1, len, nrows = 0, cap = 0, np = 0, i, j;
	size_t npieces;
	int a, longobs = 0;
	char *text, *p, *end, *hdr_end;
	const char *first_iv = NULL;
	struct row *rows = NULL;
	struct piece *pc = NULL, *at;
	static char out[1 << 20];

	setvbuf(stdout, out, _IOFBF, sizeof out);
	for (a = 3; a < argc; a++) {
		if (!strcmp(argv[a], "--intervals") && a + 1 < argc)
			per_piece = strtoull(argv[++a], NULL, 10);
		else if (!strcmp(argv[a], "--interleave") && a + 1 < argc)
			width = strtoull(argv[++a], NULL, 10);
		else if (!strcmp(argv[a], "--long"))
			longobs = 1;
		else
			break;
	}
	if (argc < 3 || a < argc || !(n = strtoull(argv[2], NULL, 10)) || !per_piece ||
	    !width) {
		fputs("usage: build/bench/obsgen TEMPLATE N [--intervals I] "
		      "[--interleave W] [--long]\n", stderr);
		return 2;
	}
	if (!(text = slurp(argv[1], &len)))
		return 1;
	end = text + len;
	if (!(hdr_end = memchr(text, '\n', len)) ||
	    strncmp(text, "observation,interval,", 21)) {
		fprintf(stderr, "bench/obsgen: %s: the header must start "
			"'observation,interval,'\n", argv[1]);
		return 1;
	}
	fwrite(text, 1, (size_t)(hdr_end + 1 - text), stdout);
	/* the rows, then the template's observations (runs of one name, in
	 * interval order, the same rows an interval) cut into pieces */
	for (p = hdr_end + 1; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *c1, *c2;

		nl = nl ? nl + 1 : end;
		c1 = memchr(p, ',', (size_t)(nl - p));
		c2 = c1 ? memchr(c1 + 1, ',', (size_t)(nl - c1 - 1)) : NULL;
		if (!c2) {
			fputs("bench/obsgen: a row without an interval\n", stderr);
			return 1;
		}
		if (nrows == cap) {
			cap = cap ? 2 * cap : 4096;
			if (!(rows = realloc(rows, cap * sizeof *rows)) ||
			    !(pc = realloc(pc, cap * sizeof *pc)))
				return 1;
		}
		rows[nrows] = (struct row){ c2, (size_t)(nl - c2) };
		if (!np || pc[np - 1].nlen != (size_t)(c1 - p) ||
		    memcmp(pc[np - 1].name, p, pc[np - 1].nlen)) {
			pc[np++] = (struct piece){ p, (size_t)(c1 - p), nrows, 0, 0 };
			first_iv = c1 + 1;
		}
		if (!strncmp(c1 + 1, first_iv, (size_t)(c2 - c1)))
			pc[np - 1].per++;   /* a row of its first interval */
		pc[np - 1].n++;
		nrows++;
		p = nl;
	}
	/* observation o: piece o mod (pieces in all) */
	for (i = 0, j = 0; i < np; i++)
		j += pc[i].n / pc[i].per / per_piece;
	if (!j) {
		fprintf(stderr, "bench/obsgen: no observation of %s has %zu "
			"intervals\n", argv[1], per_piece);
		return 1;
	}
	npieces = j;
	if (longobs) {
		/* the first observation's intervals over and over */
		const struct piece *q = &pc[0];
		size_t nint = q->n / q->per;

		for (i = 0; i < n; i++)
			for (j = 0; j < q->per; j++) {
				const struct row *r = &rows[q->first + (i % nint) * q->per + j];

				printf("long,%zu", i);
				fwrite(r->rest, 1, r->len, stdout);
			}
		return fflush(stdout) ? 1 : 0;
	}
	/* piece x: its template observation and first row */
	if (!(at = malloc(npieces * sizeof *at)))
		return 1;
	for (i = 0, j = 0; i < np; i++) {
		size_t t, cnt = pc[i].n / pc[i].per / per_piece;

		for (t = 0; t < cnt; t++, j++)
			at[j] = (struct piece){ pc[i].name, pc[i].nlen,
				pc[i].first + t * per_piece * pc[i].per, per_piece * pc[i].per,
				pc[i].per };
	}
	for (i = 0; i < n; i += width) {
		size_t w = n - i < width ? n - i : width, iv, o;

		for (iv = 0; iv < per_piece; iv++)
			for (o = i; o < i + w; o++) {
				const struct piece *q = &at[o % npieces];

				for (j = 0; j < q->per; j++) {
					const struct row *r = &rows[q->first + iv * q->per + j];

					printf("j%zu-%.*s,%zu", o, (int)q->nlen, q->name, iv);
					fwrite(r->rest, 1, r->len, stdout);
				}
			}
	}
	return fflush(stdout) ? 1 : 0;
}
