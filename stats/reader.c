/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stats/reader.c: a dataset read in parts of whole observations, so that
 * a check holds a part at a time, never the file (stats/region.h,
 * "datasets in parts").
 *
 * A regular file is read at offsets (its header line copied): the part's
 * ends are found by reading its first and last lines, and the part is
 * loaded from the file in blocks, as a file loaded whole is, so its text
 * is neither copied nor held, and a file cut short as it is read gives
 * an error, not a signal.
 * Other input is read in blocks into one buffer: the header line, then
 * the rows not yet taken; a part that must grow past its size (one
 * observation longer than a part) goes on in an unlinked temporary file
 * instead (the spool), read as a regular file is, and what follows the
 * part is read back into the buffer once it is taken.
 * A part is the complete lines loaded by
 * stats/dataset.c (on threads, as a file is) with their lines numbered as
 * in the file and the events of the part before as a seed; its whole
 * observations are those before a cut: a line after which no observation
 * before it has rows (every line of a file grouped by observation that
 * starts an observation; in a file of observations taking turns, the end
 * of each turn's group).  The observation of the part's last row may go
 * on in the next block, so a cut is never after its first row.  Taken
 * observations are remembered (by a 64-bit hash of the name): one that
 * comes back in a later part means the file is not grouped, and the
 * reader says so (stats_reader_grouped) instead of splitting it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "stats/stats_int.h"
#include "stats/dataset_int.h"

/* The body a part reads at least: 64 MB of text, about 2,800 observations
 * of 10 intervals x 28 events (a part's samples take a quarter of it). */
#define PART_BYTES ((size_t)64 << 20)
#define SCAN_BLOCK ((size_t)1 << 20)
/* The bytes of a line's start that no_cut compares at most. */
#define NO_CUT_FIELD 4096
/* Read by observation, a part holds at most its bytes / IX_ROW_BYTES rows
 * (a row's sample and group take 52 bytes when each row is a group). */
#define IX_ROW_BYTES 32

/* Names by their 64-bit hash (name_hash, never 0: 0 is an empty slot):
 * the observations taken (the grouped reading), or, with values, each
 * observation's index (the reading by observation). */
struct hashes {
	uint64_t *h;
	uint32_t *v;          /* with_values: each one's value */
	size_t n, n_slots;
	int with_values;
};

/* A file not grouped by observation, read by observation
 * (stats_reader_index): its observations in order of first appearance,
 * each one's rows, which blocks of lines hold rows of which, and the
 * observations the load in hand keeps. */
struct ix_block {      /* about SCAN_BLOCK bytes of whole lines */
	uint64_t off;         /* of its first line */
	unsigned line;
	uint32_t min, max;    /* the observations of its rows (min > max: none) */
};
struct index {
	struct ix_block *blk; /* the body cut in blocks, in order */
	size_t n_blk, cap_blk;
	struct stats_run *run;     /* a load's runs of blocks */
	struct hashes names;  /* each observation's index */
	uint32_t *rows_of;    /* per observation: its rows */
	size_t n, cap;
	unsigned char *sel;   /* a bit an observation: kept by the load */
	size_t start;         /* the first observation not taken */
	size_t *kept, n_kept, cap_kept;
	size_t rows;          /* the rows a load holds at most, past its
			       * first min_obs observations */
	size_t min_obs;
	char last[64];        /* the scan's last row's observation (its name */
	size_t last_len, last_o;   /* when short), and its index */
};

struct kept {
	uint64_t off, len;    /* in the input (a file) or the spool */
	uint64_t in_off;      /* in the input */
	unsigned line;        /* the line of its first byte */
	char *name;
};

struct stats_reader {
	char *name;
	int fd, own;
	int regular;          /* fd can be read at an offset: a regular file,
			       * or the spool of a pipe's part */
	int pipe_in;          /* the input is not a regular file */
	int in_fd, in_eof;    /* while spooled: the input, and its end seen */
	uint64_t in_base;     /* while spooled: the input's offset of spool
			       * byte 0 */
	size_t threads;
	char *buf;            /* [0, hdr) the header line; [hdr, len) rows not
			       * taken; a regular file's: NULL, its bytes at
			       * offsets (the header line in head) */
	size_t cap, hdr, len;
	char *head;           /* a regular file's header line */
	uint64_t size;        /* the file's, at the start */
	off_t base;           /* the file's offset of the header line */
	char *blk;            /* a regular file's bytes read: SCAN_BLOCK */
	uint64_t body_off;    /* the input's offset of body byte 0 (buf[hdr]) */
	unsigned first_line;  /* the line of buf[hdr] */
	size_t want, parsed;  /* body bytes to read; loaded into d */
	size_t max;           /* the body held at most: cp_stream_max */
	size_t part;          /* the body bytes a part reads at least */
	int eof, done, ungrouped;
	int whole;            /* the part holds the rest of the input */
	struct stats_dataset *d;
	size_t *cut;          /* cut[m]: the largest m' <= m that is a cut */
	struct hashes seen;   /* the observations taken */
	int spool;            /* kept text of an input read once (-1: none) */
	uint64_t spool_len;
	struct kept *kept;
	size_t n_kept, cap_kept, next_kept;
	struct index *ix;     /* read by observation, or NULL */
};

int stats_reader_open(const char *path, size_t threads, size_t part_bytes,
		      struct stats_reader **out, struct cp_error *err)
{
	struct stats_reader *r;
	struct stat st;
	int stdin_ = !strcmp(path, "-");

	*out = NULL;
	if (!(r = cp_calloc(1, sizeof *r)) ||
	    !(r->name = cp_strdup(stdin_ ? STATS_STDIN_NAME : path))) {
		cp_free(r);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	r->spool = -1;
	r->threads = threads;
	r->part = part_bytes ? part_bytes : PART_BYTES;
	r->want = r->part;
	r->max = cp_stream_max() < SIZE_MAX ? (size_t)cp_stream_max() : SIZE_MAX - 1;
	r->first_line = 2;
	if (stdin_) {
		r->fd = 0;
	} else if ((r->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		cp_error_set(err, CP_EIO, "cannot read '%s': %s", path, strerror(errno));
		stats_reader_close(r);
		return CP_EIO;
	} else {
		r->own = 1;
	}
	/* standard input redirected from a file is that file, from where
	 * its reading stands */
	if (!fstat(r->fd, &st) && S_ISREG(st.st_mode) &&
	    (r->base = stdin_ ? lseek(0, 0, SEEK_CUR) : 0) >= 0) {
		r->regular = 1;
		r->size = (uint64_t)st.st_size;
	}
	r->pipe_in = !r->regular;
	*out = r;
	return CP_OK;
}

void stats_reader_close(struct stats_reader *r)
{
	size_t i;

	if (!r)
		return;
	if (r->pipe_in && r->regular) {     /* spooled */
		close(r->fd);
		r->fd = r->in_fd;
	}
	if (r->own)
		close(r->fd);
	if (r->spool >= 0)
		close(r->spool);
	stats_dataset_free(r->d);
	for (i = 0; i < r->n_kept; i++)
		cp_free(r->kept[i].name);
	cp_free(r->kept);
	if (r->ix) {
		cp_free(r->ix->names.h);
		cp_free(r->ix->names.v);
		cp_free(r->ix->rows_of);
		cp_free(r->ix->sel);
		cp_free(r->ix->kept);
		cp_free(r->ix->blk);
		cp_free(r->ix->run);
		cp_free(r->ix);
	}
	cp_free(r->cut);
	cp_free(r->seen.h);
	cp_free(r->seen.v);
	cp_free(r->blk);
	cp_free(r->head);
	cp_free(r->buf);
	cp_free(r->name);
	cp_free(r);
}

const char *stats_reader_name(const struct stats_reader *r) { return r->name; }
int stats_reader_grouped(const struct stats_reader *r) { return !r->ungrouped; }
int stats_reader_rereadable(const struct stats_reader *r) { return !r->pipe_in && r->own; }
int stats_reader_seekable(const struct stats_reader *r) { return !r->pipe_in; }
int stats_reader_done(const struct stats_reader *r) { return r->done; }
int stats_reader_last(const struct stats_reader *r) { return r->whole; }

double stats_reader_fraction(const struct stats_reader *r)
{
	uint64_t at = r->body_off - (uint64_t)r->base;
	uint64_t all = r->size - (uint64_t)r->base;

	if (r->ix)
		return r->ix->n ? (double)r->ix->start / (double)r->ix->n : 1;
	if (r->pipe_in || r->size <= (uint64_t)r->base)
		return -1;
	return at >= all ? 1 : (double)at / (double)all;
}

/* The header line: buf's first hdr bytes, or a regular file's copy. */
static const char *head(const struct stats_reader *r)
{
	return r->regular ? r->head : r->buf;
}

/* A regular file's header line, read into r->head. */
static int read_head(struct stats_reader *r, struct cp_error *err)
{
	size_t cap = 0;

	for (;;) {
		const char *nl;
		ssize_t got;

		if (r->hdr == cap) {
			char *h = cp_realloc(r->head, cap = cap ? 2 * cap : 4096);

			if (!h)
				return cp_error_set(err, CP_ENOMEM, "out of memory reading '%s'",
						    r->name);
			r->head = h;
		}
		got = pread(r->fd, r->head + r->hdr, cap - r->hdr, r->base + (off_t)r->hdr);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return cp_error_set(err, CP_EIO, "cannot read '%s': %s", r->name,
					    strerror(errno));
		nl = memchr(r->head + r->hdr, '\n', (size_t)got);
		r->hdr = nl ? (size_t)(nl - r->head) + 1 : r->hdr + (size_t)got;
		if (nl || !got)
			break;
	}
	r->body_off = (uint64_t)r->base + r->hdr;
	if (memchr(r->head, '\0', r->hdr))
		return cp_error_at(err, CP_EINPUT, r->name, 1, 0,
				   "not a text file (NUL byte)");
	return CP_OK;
}

/* read(2) of at most n bytes, again when interrupted; < 0 with err set. */
static ssize_t read_in(struct stats_reader *r, int fd, char *p, size_t n,
		       struct cp_error *err)
{
	ssize_t got;

	while ((got = read(fd, p, n)) < 0 && errno == EINTR)
		;
	if (got < 0)
		cp_error_set(err, CP_EIO, "cannot read '%s': %s", r->name, strerror(errno));
	return got;
}

/* While spooled: the input appended to the spool until it holds the
 * part's want bytes (at most one byte past r->max) or the input ends. */
static int pull(struct stats_reader *r, struct cp_error *err)
{
	uint64_t want = r->want > r->max ? (uint64_t)r->max + 1 : r->want;

	while (!r->in_eof && r->size - r->body_off < want) {
		uint64_t room = want - (r->size - r->body_off);
		ssize_t got = read_in(r, r->in_fd, r->blk,
				      room < SCAN_BLOCK ? (size_t)room : SCAN_BLOCK, err);

		if (got < 0)
			return CP_EIO;
		if (got == 0)
			r->in_eof = 1;
		else if (cp_write_all(r->fd, r->blk, (size_t)got))
			return cp_error_set(err, CP_EIO, "cannot write a temporary file: %s",
					    strerror(errno));
		r->size += (uint64_t)got;
	}
	return CP_OK;
}

/* A regular file's body: want bytes from body_off, or the rest of the
 * file as it was at the start (none of it read here); while spooled, the
 * input read on into the spool first. */
static int fill_file(struct stats_reader *r, struct cp_error *err)
{
	uint64_t left, n;
	int rc;

	if (!r->head && (rc = read_head(r, err)))
		return rc;
	if (!r->blk && !(r->blk = cp_malloc(SCAN_BLOCK)))
		return cp_error_set(err, CP_ENOMEM, "out of memory reading '%s'", r->name);
	if (r->pipe_in && (rc = pull(r, err)))
		return rc;
	left = r->body_off < r->size ? r->size - r->body_off : 0;
	n = left < r->want ? left : r->want;
	r->len = r->hdr + (size_t)n;
	r->eof = left <= r->want && (!r->pipe_in || r->in_eof);
	return CP_OK;
}

/* Body bytes [at, at + n) of a regular file into r->blk (n <= SCAN_BLOCK). */
static int read_body(struct stats_reader *r, size_t at, size_t n, struct cp_error *err)
{
	size_t have = 0;

	while (have < n) {
		ssize_t got = pread(r->fd, r->blk + have, n - have,
				    (off_t)(r->body_off + at + have));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return cp_error_set(err, CP_EIO, "cannot read '%s': %s", r->name,
					    got < 0 ? strerror(errno) : STATS_SHORTER);
		have += (size_t)got;
	}
	return CP_OK;
}

/* The body offset just past the last newline in body bytes [lo, hi), or
 * lo when there is none. */
static int line_start_before(struct stats_reader *r, size_t lo, size_t hi, size_t *at,
			     struct cp_error *err)
{
	int rc;

	if (!r->regular) {
		const char *p = r->buf + r->hdr;

		while (hi > lo && p[hi - 1] != '\n')
			hi--;
		*at = hi;
		return CP_OK;
	}
	while (hi > lo) {
		size_t n = hi - lo < SCAN_BLOCK ? hi - lo : SCAN_BLOCK, i;

		if ((rc = read_body(r, hi - n, n, err)))
			return rc;
		for (i = n; i > 0 && r->blk[i - 1] != '\n'; i--)
			;
		if (i) {
			*at = hi - n + i;
			return CP_OK;
		}
		hi -= n;
	}
	*at = lo;
	return CP_OK;
}

/* Read until the body holds r->want bytes or the input ends; from a pipe
 * or a device at most one byte past r->max, which says it is reached. */
static int fill(struct stats_reader *r, struct cp_error *err)
{
	size_t want = !r->regular && r->want > r->max ? r->max + 1 : r->want;

	if (r->regular)
		return fill_file(r, err);

	while (!r->eof && r->len - r->hdr < want) {
		size_t room;
		ssize_t got;

		if (r->len == r->cap) {
			size_t cap = r->hdr + r->want + ((size_t)1 << 20);
			char *b;

			if (cap <= r->cap)
				cap = 2 * r->cap;
			if (!(b = cp_realloc(r->buf, cap)))
				return cp_error_set(err, CP_ENOMEM, "out of memory reading '%s'",
						    r->name);
			r->buf = b;
			r->cap = cap;
		}
		room = r->cap - r->len;
		if (want < r->want && room > want - (r->len - r->hdr))
			room = want - (r->len - r->hdr);
		if ((got = read_in(r, r->fd, r->buf + r->len, room, err)) < 0)
			return CP_EIO;
		if (got == 0)
			r->eof = 1;
		r->len += (size_t)got;
		if (!r->hdr) {       /* the header: the first line */
			const char *nl = memchr(r->buf, '\n', r->len);

			if (nl)
				r->hdr = (size_t)(nl - r->buf) + 1;
			else if (r->eof)
				r->hdr = r->len;
			r->body_off = r->hdr;
			/* a device such as /dev/zero never sends the newline */
			if (memchr(r->buf, '\0', r->hdr ? r->hdr : r->len))
				return cp_error_at(err, CP_EINPUT, r->name, 1, 0,
						   "not a text file (NUL byte)");
			if (!r->hdr && !r->regular && r->len > CP_LINE_MAX_STREAM)
				return cp_error_at(err, CP_EINPUT, r->name, 1, 0,
						   "line longer than %d MB (from a pipe or "
						   "a device: stopped reading)",
						   CP_LINE_MAX_STREAM >> 20);
		}
	}
	return CP_OK;
}

/* The line after the body's first n bytes: their line ends counted, and
 * with PARTIAL a last line without its newline (the input's end) too. */
static int count_lines(struct stats_reader *r, size_t n, int partial, unsigned *line,
		       struct cp_error *err)
{
	size_t at = 0;
	char last = '\n';
	int rc;

	*line = r->first_line;
	while (at < n) {
		size_t m = n - at < SCAN_BLOCK ? n - at : SCAN_BLOCK;
		const char *p, *end;

		if (r->regular) {
			if ((rc = read_body(r, at, m, err)))
				return rc;
			p = r->blk;
		} else {
			p = r->buf + r->hdr + at;
		}
		end = p + m;
		last = end[-1];
		while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
			p++;
			(*line)++;
		}
		at += m;
	}
	if (partial && last != '\n')
		(*line)++;
	return CP_OK;
}

/* A pipe's part that must grow: its body so far into a new spool, read
 * from there on as a regular file is.  A spool that cannot be made or
 * written leaves the part growing in memory, as it would without one. */
static void to_spool(struct stats_reader *r)
{
	int fd = cp_temp_fd(NULL);

	if (fd < 0)
		return;
	if (cp_write_all(fd, r->buf + r->hdr, r->len - r->hdr) ||
	    (!r->head && !(r->head = cp_malloc(r->hdr)))) {
		close(fd);
		return;
	}
	memcpy(r->head, r->buf, r->hdr);
	r->in_fd = r->fd;
	r->in_eof = r->eof;
	r->fd = fd;
	r->in_base = r->body_off;
	r->body_off = 0;
	r->size = r->len - r->hdr;
	r->regular = 1;
	cp_free(r->buf);
	r->buf = NULL;
	r->cap = 0;
}

/* After a spooled part is taken: what follows it back into the buffer,
 * the spool closed, the input read on. */
static int from_spool(struct stats_reader *r, struct cp_error *err)
{
	size_t rest = (size_t)(r->size - r->body_off), at, n;
	size_t cap = r->hdr + rest + ((size_t)1 << 20);
	char *b = cp_malloc(cap);
	int rc;

	if (!b)
		return cp_error_set(err, CP_ENOMEM, "out of memory reading '%s'", r->name);
	memcpy(b, r->head, r->hdr);
	for (at = 0; at < rest; at += n) {
		n = rest - at < SCAN_BLOCK ? rest - at : SCAN_BLOCK;
		if ((rc = read_body(r, at, n, err))) {
			cp_free(b);
			return rc;
		}
		memcpy(b + r->hdr + at, r->blk, n);
	}
	close(r->fd);
	r->fd = r->in_fd;
	r->eof = r->in_eof;
	r->body_off += r->in_base;
	r->in_base = 0;
	r->regular = 0;
	r->buf = b;
	r->cap = cap;
	r->len = r->hdr + rest;
	return CP_OK;
}

/* A larger part, when the one read holds no cut: from a pipe or a
 * device, in the spool, and not past r->max (the text of one
 * observation). */
static int grow(struct stats_reader *r, struct cp_error *err)
{
	int rc;

	if (r->pipe_in && r->len - r->hdr > r->max) {
		unsigned line;
		char size[32];

		if ((rc = count_lines(r, r->max, 0, &line, err)))
			return rc;
		return cp_error_at(err, CP_EINPUT, r->name, line, 0, "observation "
				   "longer than %s from a pipe or a device: stopped "
				   "reading (write it to a file)", cp_stream_max_text(size));
	}
	if (!r->regular && r->hdr)
		to_spool(r);
	r->want *= 2;
	return CP_OK;
}

/* The value of the name hashing to h (0 without values), or SIZE_MAX
 * when it is not there. */
static size_t hashes_find(const struct hashes *t, uint64_t h)
{
	size_t i;

	if (!t->n_slots)
		return SIZE_MAX;
	for (i = h & (t->n_slots - 1); t->h[i]; i = (i + 1) & (t->n_slots - 1))
		if (t->h[i] == h)
			return t->v ? t->v[i] : 0;
	return SIZE_MAX;
}

/* A name hashing to h (not there yet), with value v when the table keeps
 * values; CP_ENOMEM. */
static int hashes_add(struct hashes *t, uint64_t h, uint32_t v)
{
	size_t i;

	if (2 * (t->n + 1) > t->n_slots) {
		size_t n = t->n_slots ? 2 * t->n_slots : 1024, j;
		uint64_t *hs = cp_calloc(n, sizeof *hs);
		uint32_t *vs = t->with_values ? cp_calloc(n, sizeof *vs) : NULL;

		if (!hs || (t->with_values && !vs)) {
			cp_free(hs);
			cp_free(vs);
			return CP_ENOMEM;
		}
		for (j = 0; j < t->n_slots; j++)
			if (t->h[j]) {
				for (i = t->h[j] & (n - 1); hs[i]; i = (i + 1) & (n - 1))
					;
				hs[i] = t->h[j];
				if (vs)
					vs[i] = t->v[j];
			}
		cp_free(t->h);
		cp_free(t->v);
		t->h = hs;
		t->v = vs;
		t->n_slots = n;
	}
	for (i = h & (t->n_slots - 1); t->h[i]; i = (i + 1) & (t->n_slots - 1))
		;
	t->h[i] = h;
	if (t->v)
		t->v[i] = v;
	t->n++;
	return CP_OK;
}

static uint64_t name_hash(const char *s, size_t len)
{
	uint64_t h = cp_hash(CP_HASH_SEED, s, len);

	return h ? h : 1;
}

/* The cuts of r->d: cut[m] for m = 0..n.  With the whole input read every
 * m is one; else m is one when every row of the observations before m
 * precedes the first row of m, and m is not after the last row's. */
static int find_cuts(struct stats_reader *r, int whole)
{
	const struct stats_dataset *d = r->d;
	size_t n = d->obs.n, i, m, o_last = 0;
	unsigned *last = cp_calloc(n + 1, sizeof *last), max = 0, lmax = 0;

	cp_free(r->cut);
	if (!last || !(r->cut = cp_calloc(n + 1, sizeof *r->cut))) {
		cp_free(last);
		return CP_ENOMEM;
	}
	for (i = 0; i < d->n_g; i++) {
		unsigned l = d->g[i].line + d->g[i].n - 1;

		if (l > last[d->g[i].obs])
			last[d->g[i].obs] = l;
		if (l >= lmax) {
			lmax = l;
			o_last = d->g[i].obs;
		}
	}
	r->cut[0] = 0;
	for (m = 1; m <= n; m++) {
		if (last[m - 1] > max)
			max = last[m - 1];
		r->cut[m] = whole || (m <= o_last && max < d->obs_line[m]) ? m :
			r->cut[m - 1];
	}
	cp_free(last);
	return CP_OK;
}

/* ---- a file not grouped by observation, read by observation ---- */

/* A new observation, hashing to h: its index, or SIZE_MAX out of
 * memory. */
static size_t ix_add(struct index *ix, uint64_t h)
{
	if (ix->n == ix->cap) {
		size_t cap = ix->cap ? 2 * ix->cap : 1024;
		uint32_t *o = cp_reallocarray(ix->rows_of, cap, sizeof *o);

		if (!o)
			return SIZE_MAX;
		ix->rows_of = o;
		ix->cap = cap;
	}
	if (hashes_add(&ix->names, h, (uint32_t)ix->n))
		return SIZE_MAX;
	ix->rows_of[ix->n] = 0;
	return ix->n++;
}

/* The row [p, eol) (truncated: only its first bytes): counted to its
 * observation and the last block.  CP_EINPUT when its observation is not
 * plain (the loader alone knows it then). */
static int ix_row(struct index *ix, const char *p, const char *eol, int truncated)
{
	struct ix_block *b;
	size_t len, o;
	uint64_t h;
	int k;

	if (!truncated && eol > p && eol[-1] == '\r')
		eol--;
	k = stats_row_observation(p, eol, &len);
	if (k == 0 && !truncated)
		return CP_OK;
	if (k != 1 || (truncated && len == (size_t)(eol - p)) || ix->n >= UINT32_MAX)
		return CP_EINPUT;
	if (len == ix->last_len && !memcmp(p, ix->last, len)) {
		o = ix->last_o;            /* as the row before (most rows) */
	} else {
		h = name_hash(p, len);
		if ((o = hashes_find(&ix->names, h)) == SIZE_MAX &&
		    (o = ix_add(ix, h)) == SIZE_MAX)
			return CP_ENOMEM;
		if (len <= sizeof ix->last) {
			memcpy(ix->last, p, len);
			ix->last_len = len;
			ix->last_o = o;
		}
	}
	ix->rows_of[o]++;
	b = &ix->blk[ix->n_blk - 1];
	if (o < b->min)
		b->min = (uint32_t)o;
	if (o > b->max)
		b->max = (uint32_t)o;
	return CP_OK;
}

/* A new block from line at offset off; CP_ENOMEM. */
static int ix_block(struct index *ix, uint64_t off, unsigned line)
{
	if (ix->n_blk == ix->cap_blk) {
		size_t cap = ix->cap_blk ? 2 * ix->cap_blk : 256;
		struct ix_block *b = cp_reallocarray(ix->blk, cap, sizeof *b);

		if (!b)
			return CP_ENOMEM;
		ix->blk = b;
		ix->cap_blk = cap;
	}
	ix->blk[ix->n_blk++] = (struct ix_block){ off, line, UINT32_MAX, 0 };
	return CP_OK;
}

/* Read the body once: where each observation's rows are. */
static int ix_scan(struct stats_reader *r, struct index *ix, struct cp_error *err)
{
	char carry[NO_CUT_FIELD];
	size_t nc = 0;
	uint64_t at = r->body_off, start = at;   /* the line's offset */
	uint64_t bound = at + SCAN_BLOCK;         /* the next block's least */
	unsigned line = 2;
	int long_line = 0, rc;

	if (ix_block(ix, at, line))
		return cp_error_set(err, CP_ENOMEM, "out of memory reading '%s'", r->name);
	while (at < r->size) {
		size_t n = r->size - at < SCAN_BLOCK ? (size_t)(r->size - at) : SCAN_BLOCK;
		const char *p = r->blk, *e = r->blk + n;

		if ((rc = read_body(r, (size_t)(at - r->body_off), n, err)))
			return rc;
		while (p < e) {
			const char *nl = memchr(p, '\n', (size_t)(e - p));
			const char *q = nl ? nl : e;
			size_t take = (size_t)(q - p);

			if (nc || !nl) {        /* a line across blocks */
				if (take > sizeof carry - nc) {
					take = sizeof carry - nc;
					long_line = 1;
				}
				memcpy(carry + nc, p, take);
				nc += take;
			}
			if (!nl)
				break;
			if (line == UINT32_MAX - 1)
				return CP_EINPUT;
			if (start >= bound) {
				if (ix_block(ix, start, line))
					return cp_error_set(err, CP_ENOMEM, "out of memory "
							    "reading '%s'", r->name);
				bound = start + SCAN_BLOCK;
			}
			rc = nc ? ix_row(ix, carry, carry + nc, long_line) :
				ix_row(ix, p, nl, 0);
			if (rc)
				return rc == CP_ENOMEM ? cp_error_set(err, CP_ENOMEM,
					"out of memory reading '%s'", r->name) : rc;
			line++;
			nc = 0;
			long_line = 0;
			p = nl + 1;
			start = at + (uint64_t)(p - r->blk);
		}
		at += n;
	}
	if (nc && (rc = ix_row(ix, carry, carry + nc, long_line)))
		return rc == CP_ENOMEM ? cp_error_set(err, CP_ENOMEM,
			"out of memory reading '%s'", r->name) : rc;
	return CP_OK;
}

/* The end of the run of observations that a load holds from a on: at
 * least ix->min_obs of them, then as many as fit in ix->rows rows, at
 * most max, among the n observations at[] (at NULL: every observation). */
static size_t ix_span(const struct index *ix, const size_t *at, size_t a, size_t n,
		      size_t max)
{
	size_t b, rows = 0;

	for (b = a; b < n && b - a < max; b++) {
		size_t o = at ? at[b] : b;

		if (b - a >= ix->min_obs && rows + ix->rows_of[o] > ix->rows)
			break;
		rows += ix->rows_of[o];
	}
	return b;
}

/* Whether block k may hold a row of the observations at[a, b) (at NULL:
 * a to b), ascending. */
static int ix_block_has(const struct ix_block *k, const size_t *at, size_t a, size_t b)
{
	size_t lo = a, hi = b;

	if (k->min > k->max)
		return 0;
	if (!at)
		return k->min < b && k->max >= a;
	while (lo < hi) {             /* the first of them at or above min */
		size_t mid = lo + (hi - lo) / 2;

		if (at[mid] < k->min)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < b && at[lo] <= k->max;
}

/* The runs of blocks that may hold rows of at[a, b) into ix->run: their
 * number, and the bytes they cover added to *bytes. */
static size_t ix_runs(const struct index *ix, const size_t *at, size_t a, size_t b,
		      uint64_t size, uint64_t *bytes)
{
	size_t n = 0, k;

	for (k = 0; k < ix->n_blk; k++) {
		uint64_t end = k + 1 < ix->n_blk ? ix->blk[k + 1].off : size;

		if (!ix_block_has(&ix->blk[k], at, a, b))
			continue;
		*bytes += end - ix->blk[k].off;
		if (n && ix->run[n - 1].to == ix->blk[k].off &&
		    end - ix->run[n - 1].from <= 16 * SCAN_BLOCK)
			ix->run[n - 1].to = end;     /* runs of 16 MB or less, for
						      * threads to share */
		else
			ix->run[n++] = (struct stats_run){ ix->blk[k].off, end,
							   ix->blk[k].line };
	}
	return n;
}

int stats_reader_index(struct stats_reader *r, size_t min_obs, size_t *loads,
		       double *reads, struct cp_error *err)
{
	struct index *ix;
	uint64_t bytes = 0;
	size_t a;
	int rc;

	*loads = 0;
	*reads = 0;
	if (!r->regular || r->pipe_in || r->ix || r->d)
		return cp_error_set(err, CP_EINTERNAL, "only a regular file, before its "
				    "first part, is read by observation");
	if (!r->head && (rc = read_head(r, err)))
		return rc;
	if (!r->blk && !(r->blk = cp_malloc(SCAN_BLOCK)))
		return cp_error_set(err, CP_ENOMEM, "out of memory reading '%s'", r->name);
	if (!(ix = r->ix = cp_calloc(1, sizeof *ix)))
		return cp_error_set(err, CP_ENOMEM, "out of memory reading '%s'", r->name);
	ix->names.with_values = 1;
	ix->rows = r->part / IX_ROW_BYTES;
	ix->min_obs = min_obs ? min_obs : 1;
	/* the first column must be the observation, its names plain */
	if (r->hdr < 13 || memcmp(r->head, "observation,", 12) ||
	    (rc = ix_scan(r, ix, err)) == CP_EINPUT)
		return cp_error_at(err, CP_EINPUT, r->name, 1, 0, "not grouped by "
				   "observation, and not plain enough to be read by "
				   "observation (quoted names, or the observation not "
				   "the first column)");
	if (rc)
		return rc;
	if (!(ix->sel = cp_calloc(ix->n / 8 + 1, 1)) ||
	    !(ix->run = cp_calloc(ix->n_blk, sizeof *ix->run)))
		return cp_error_set(err, CP_ENOMEM, "out of memory reading '%s'", r->name);
	for (a = 0; a < ix->n; (*loads)++) {
		size_t b = ix_span(ix, NULL, a, ix->n, SIZE_MAX);

		ix_runs(ix, NULL, a, b, r->size, &bytes);
		a = b;
	}
	*reads = r->size > r->body_off ? (double)bytes / (double)(r->size - r->body_off) : 1;
	return CP_OK;
}

/* struct stats_only's test for a load by observation. */
static int ix_keeps(const void *arg, const char *name, size_t len)
{
	const struct index *ix = arg;
	size_t o = hashes_find(&ix->names, name_hash(name, len));

	return o == SIZE_MAX ? -1 : (ix->sel[o / 8] >> (o % 8)) & 1;
}

/* Load the observations at[a, b) (at NULL: a to b), ascending: the runs
 * of blocks that may hold their rows, the others' rows read past. */
static int ix_load(struct stats_reader *r, const size_t *at, size_t a, size_t b,
		   struct cp_error *err)
{
	struct index *ix = r->ix;
	uint64_t bytes = 0;
	struct stats_only only = { ix_keeps, ix, ix->run,
				   ix_runs(ix, at, a, b, r->size, &bytes) };
	struct stats_dataset *d = NULL;
	size_t i;
	int rc;

	if (!only.n_run)
		return cp_error_set(err, CP_EIO, "cannot read '%s' again: it changed "
				    "while it was read", r->name);
	for (i = a; i < b; i++) {
		size_t o = at ? at[i] : i;

		ix->sel[o / 8] |= (unsigned char)(1u << (o % 8));
	}
	rc = stats_dataset_read_part(r->name, r->head, r->hdr, r->fd, NULL,
				     ix->run[0].from, ix->run[only.n_run - 1].to,
				     r->threads, ix->run[0].line - 2, r->d, &only, &d,
				     NULL, err);
	for (i = a; i < b; i++) {
		size_t o = at ? at[i] : i;

		ix->sel[o / 8] &= (unsigned char)~(1u << (o % 8));
	}
	if (rc)
		return rc;
	stats_dataset_free(r->d);
	r->d = d;
	if (d->obs.n != b - a)
		return cp_error_set(err, CP_EIO, "cannot read '%s' again: it changed "
				    "while it was read", r->name);
	return find_cuts(r, 1) ? cp_error_set(err, CP_ENOMEM, "out of memory reading "
					      "'%s'", r->name) : CP_OK;
}

static int ix_next(struct stats_reader *r, const struct stats_dataset **out,
		   size_t *n_whole, struct cp_error *err)
{
	struct index *ix = r->ix;
	size_t b = ix_span(ix, NULL, ix->start, ix->n, SIZE_MAX);
	int rc;

	if (ix->start >= ix->n) {
		r->done = 1;
		return CP_OK;
	}
	if ((rc = ix_load(r, NULL, ix->start, b, err)))
		return rc;
	r->whole = b == ix->n;
	*n_whole = b - ix->start;
	*out = r->d;
	return CP_OK;
}

/* Body bytes [at, end), at most NO_CUT_FIELD of them: *p (in the body
 * held, or read into tmp) and their number *n. */
static int body_bytes(struct stats_reader *r, size_t at, size_t end, char *tmp,
		      const char **p, size_t *n, struct cp_error *err)
{
	int rc;

	*n = end - at < NO_CUT_FIELD ? end - at : NO_CUT_FIELD;
	if (!r->regular) {
		*p = r->buf + r->hdr + at;
		return CP_OK;
	}
	if ((rc = read_body(r, at, *n, err)))
		return rc;
	memcpy(tmp, r->blk, *n);
	*p = tmp;
	return CP_OK;
}

/* Whether the body's complete lines [hdr, end) begin and end with rows of
 * the same observation (the same bytes before the first comma, unquoted,
 * the header's first column "observation"): then no observation before
 * the last row's ends in them, so they hold no cut and loading them
 * would find none.  0 when unsure (loading decides). */
static int no_cut(struct stats_reader *r, size_t end, int *yes, struct cp_error *err)
{
	char fa[NO_CUT_FIELD], fb[NO_CUT_FIELD];
	const char *a, *b, *c1, *c2;
	size_t last, na, nb;
	int rc;

	*yes = 0;
	if (r->hdr < 13 || memcmp(head(r), "observation,", 12) || end <= r->hdr)
		return CP_OK;
	if ((rc = line_start_before(r, 0, end - r->hdr - 1, &last, err)) ||
	    (rc = body_bytes(r, 0, end - r->hdr, fa, &a, &na, err)) ||
	    (rc = body_bytes(r, last, end - r->hdr, fb, &b, &nb, err)))
		return rc;
	c1 = memchr(a, ',', na);
	c2 = memchr(b, ',', nb);
	*yes = *a != '"' && c1 && c2 && c1 - a == c2 - b &&
	       !memcmp(a, b, (size_t)(c1 - a));
	return CP_OK;
}

int stats_reader_next(struct stats_reader *r, const struct stats_dataset **out,
		      size_t *n_whole, struct cp_error *err)
{
	*out = NULL;
	*n_whole = 0;
	if (r->done)
		return CP_OK;
	if (r->ix)
		return ix_next(r, out, n_whole, err);
	for (;;) {
		struct stats_dataset *d = NULL;
		size_t end, i;
		int rc, whole;

		if ((rc = fill(r, err)))
			return rc;
		end = r->len;
		if (!r->eof) {       /* complete lines only */
			size_t nl;
			int same;

			if ((rc = line_start_before(r, 0, r->len - r->hdr, &nl, err)))
				return rc;
			if (nl == 0) {
				/* no line ends: from a pipe or a device that has
				 * a limit */
				if (r->pipe_in && r->len - r->hdr > CP_LINE_MAX_STREAM)
					return cp_error_at(err, CP_EINPUT, r->name,
							   r->first_line, 0, "line longer "
							   "than %d MB (from a pipe or a "
							   "device: stopped reading)",
							   CP_LINE_MAX_STREAM >> 20);
				if ((rc = grow(r, err)))
					return rc;
				continue;
			}
			end = r->hdr + nl;
			if ((rc = no_cut(r, end, &same, err)))
				return rc;
			if (same) {
				/* one observation is larger than a part */
				if ((rc = grow(r, err)))
					return rc;
				continue;
			}
		}
		whole = r->whole = r->eof && end == r->len;
		/* a regular file's part is read from the file in blocks, as a
		 * file loaded whole: its text is not held */
		if ((rc = stats_dataset_read_part(r->name, head(r), r->hdr,
						  r->regular ? r->fd : -1,
						  r->regular ? NULL : r->buf + r->hdr,
						  r->regular ? r->body_off : 0,
						  (r->regular ? r->body_off : 0) + end - r->hdr,
						  r->threads, r->first_line - 2, r->d, NULL,
						  &d, NULL, err)))
			return rc;
		stats_dataset_free(r->d);
		r->d = d;
		r->parsed = end;
		if (find_cuts(r, whole))
			return cp_error_set(err, CP_ENOMEM, "out of memory reading '%s'",
					    r->name);
		for (i = 0; i < d->obs.n; i++)
			if (hashes_find(&r->seen, name_hash(d->obs.name[i], d->obs.len[i])) !=
			    SIZE_MAX) {
				r->ungrouped = 1;
				return cp_error_at(err, CP_EINPUT, r->name, d->obs_line[i], 0,
						   "observation '%s' has rows after other "
						   "observations' rows that follow its own: "
						   "this input can be checked only as a whole "
						   "(a file), not as it comes", d->obs.name[i]);
			}
		*n_whole = r->cut[d->obs.n];
		if (*n_whole || whole) {
			*out = d;
			return CP_OK;
		}
		if (!r->pipe_in && d->obs.n > 1 && r->want >= 2 * r->part) {
			/* observations taking turns in groups larger than two
			 * parts: by observation, not held together */
			r->ungrouped = 1;
			return cp_error_at(err, CP_EINPUT, r->name, r->first_line, 0,
					   "the %zu observations from here on take turns "
					   "in groups longer than %zu bytes: this input "
					   "can be read only by observation", d->obs.n,
					   r->want);
		}
		if ((rc = grow(r, err)))   /* one observation is larger than a part */
			return rc;
	}
}

size_t stats_reader_cut(const struct stats_reader *r, size_t m)
{
	if (!r->d)
		return 0;
	return r->cut[m < r->d->obs.n ? m : r->d->obs.n];
}

/* Byte offsets (in buf, from hdr) of the n lines at[] (ascending, from
 * first_line on) into off[]. */
static int line_offsets(struct stats_reader *r, const unsigned *at,
			size_t n, size_t *off, struct cp_error *err)
{
	const char *p, *end;
	unsigned line = r->first_line;
	size_t i;

	if (r->regular) {
		/* a regular file's lines are read in blocks */
		size_t pos = 0, stop = r->len - r->hdr;
		int rc;

		for (i = 0; i < n && at[i] <= line; i++)
			off[i] = 0;
		while (i < n && pos < stop) {
			size_t got = stop - pos < SCAN_BLOCK ? stop - pos : SCAN_BLOCK;
			const char *q = r->blk, *e = r->blk + got;

			if ((rc = read_body(r, pos, got, err)))
				return rc;
			while (i < n && q < e) {
				const char *nl = memchr(q, '\n', (size_t)(e - q));

				if (!nl)
					break;
				q = nl + 1;
				line++;
				while (i < n && at[i] <= line)
					off[i++] = pos + (size_t)(q - r->blk);
			}
			pos += got;
		}
		for (; i < n; i++)
			off[i] = r->len - r->hdr;
		return CP_OK;
	}
	p = r->buf + r->hdr;
	end = r->buf + r->len;
	for (i = 0; i < n; i++) {
		while (line < at[i] && p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));

			p = nl ? nl + 1 : end;
			line++;
		}
		off[i] = (size_t)(p - (r->buf + r->hdr));
	}
	return CP_OK;
}

static int uint_cmp(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* Observation i's first line and the line after its last row. */
static void obs_lines(const struct stats_dataset *d, size_t i, unsigned *lo,
		      unsigned *hi)
{
	size_t j, first, n;

	*lo = d->obs_line[i];
	*hi = *lo;
	for (j = 0; j < stats_dataset_n_line_runs(d, i); j++) {
		stats_dataset_line_run(d, i, j, &first, &n);
		if (first + n > *hi)
			*hi = (unsigned)(first + n);
	}
}

/* Body bytes [a, b) of an input read once appended to the kept text. */
static int keep_text(struct stats_reader *r, size_t a, size_t b, struct cp_error *err)
{
	size_t n;
	int rc;

	for (; a < b; a += n) {
		const char *p = r->buf + r->hdr + a;

		n = b - a;
		if (r->regular) {      /* spooled */
			n = n < SCAN_BLOCK ? n : SCAN_BLOCK;
			if ((rc = read_body(r, a, n, err)))
				return rc;
			p = r->blk;
		}
		if (cp_write_all(r->spool, p, n))
			return cp_error_set(err, CP_EIO, "cannot write a temporary file: %s",
					    strerror(errno));
	}
	return CP_OK;
}

/* stats_reader_keep and _kept by observation: the observations kept by
 * their index, loaded again as the parts were. */
static int ix_keep(struct index *ix, const size_t *obs, size_t n, struct cp_error *err)
{
	size_t i;

	if (ix->n_kept + n > ix->cap_kept) {
		size_t cap = ix->cap_kept ? 2 * ix->cap_kept : 256, *k;

		while (cap < ix->n_kept + n)
			cap *= 2;
		if (!(k = cp_reallocarray(ix->kept, cap, sizeof *k)))
			return cp_error_set(err, CP_ENOMEM, "out of memory");
		ix->kept = k;
		ix->cap_kept = cap;
	}
	for (i = 0; i < n; i++)
		ix->kept[ix->n_kept++] = ix->start + obs[i];
	return CP_OK;
}

static int ix_kept(struct stats_reader *r, const struct stats_dataset **out,
		   size_t *idx, size_t max, size_t *n, struct cp_error *err)
{
	struct index *ix = r->ix;
	size_t a = r->next_kept, b, i;
	int rc;

	if (a >= ix->n_kept)
		return CP_OK;
	b = ix_span(ix, ix->kept, a, ix->n_kept, max);
	if ((rc = ix_load(r, ix->kept, a, b, err)))
		return rc;
	for (i = a; i < b; i++)
		idx[i - a] = i - a;
	r->next_kept = b;
	*n = b - a;
	*out = r->d;
	return CP_OK;
}

int stats_reader_keep(struct stats_reader *r, const size_t *obs, size_t n,
		      struct cp_error *err)
{
	unsigned *at, *lo;
	size_t *off, i, j;
	int rc = CP_OK;

	if (r->ix)
		return ix_keep(r->ix, obs, n, err);
	at = cp_calloc(2 * n + 1, sizeof *at);
	lo = cp_calloc(2 * n + 1, sizeof *lo);
	off = cp_calloc(2 * n + 1, sizeof *off);
	if (!at || !lo || !off)
		goto nomem;
	for (i = 0; i < n; i++) {
		obs_lines(r->d, obs[i], &lo[2 * i], &lo[2 * i + 1]);
		at[2 * i] = lo[2 * i];
		at[2 * i + 1] = lo[2 * i + 1];
	}
	qsort(at, 2 * n, sizeof *at, uint_cmp);
	if ((rc = line_offsets(r, at, 2 * n, off, err)))
		goto out;
	if (r->n_kept + n > r->cap_kept) {
		size_t cap = r->cap_kept ? 2 * r->cap_kept : 256;
		struct kept *k;

		while (cap < r->n_kept + n)
			cap *= 2;
		if (!(k = cp_reallocarray(r->kept, cap, sizeof *k)))
			goto nomem;
		r->kept = k;
		r->cap_kept = cap;
	}
	if (r->pipe_in && r->spool < 0 && (r->spool = cp_temp_fd(err)) < 0) {
		rc = CP_EIO;
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct kept *k = &r->kept[r->n_kept];
		size_t a, b;

		/* the two lines' offsets, found by search in the sorted list */
		for (j = 0; at[j] != lo[2 * i]; j++)
			;
		a = off[j];
		for (; at[j] != lo[2 * i + 1]; j++)
			;
		b = off[j];
		k->line = lo[2 * i];
		k->len = b - a;
		k->in_off = r->in_base + r->body_off + a;
		if (!(k->name = cp_strdup(r->d->obs.name[obs[i]])))
			goto nomem;
		if (!r->pipe_in) {
			k->off = r->body_off + a;
		} else {
			k->off = r->spool_len;
			if ((rc = keep_text(r, a, b, err))) {
				cp_free(k->name);
				goto out;
			}
			r->spool_len += b - a;
		}
		r->n_kept++;
	}
	goto out;
nomem:
	rc = cp_error_set(err, CP_ENOMEM, "out of memory");
out:
	cp_free(at);
	cp_free(lo);
	cp_free(off);
	return rc;
}

int stats_reader_take(struct stats_reader *r, size_t m, struct cp_error *err)
{
	const struct stats_dataset *d = r->d;
	size_t i, off;
	unsigned line;
	int rc;

	if (r->ix) {          /* nothing whole yet: a larger load */
		if (!m)
			r->ix->min_obs *= 2;
		r->done = (r->ix->start += m) >= r->ix->n;
		return CP_OK;
	}
	if (!m && !r->whole)          /* nothing whole yet: a larger part */
		return grow(r, err);
	for (i = 0; i < m; i++)
		if (hashes_add(&r->seen, name_hash(d->obs.name[i], d->obs.len[i]), 0))
			return cp_error_set(err, CP_ENOMEM, "out of memory");
	if (m >= d->obs.n && r->whole) {
		r->done = 1;
		return CP_OK;
	}
	if (m < d->obs.n) {           /* where the loader met it */
		line = d->obs_line[m];
		off = (size_t)(d->obs_off[m] - (r->regular ? r->body_off : 0));
	} else {                      /* to the end of what was loaded */
		off = r->parsed - r->hdr;
		if ((rc = count_lines(r, off, 1, &line, err)))
			return rc;
	}
	if (!r->regular)    /* a regular file's next part is read anew */
		memmove(r->buf + r->hdr, r->buf + r->hdr + off, r->len - r->hdr - off);
	r->len -= off;
	r->body_off += off;
	r->first_line = line;
	r->want = r->part;
	if (r->pipe_in && r->regular)
		return from_spool(r, err);
	return CP_OK;
}

int stats_reader_kept(struct stats_reader *r, const struct stats_dataset **out,
		      size_t *idx, size_t max, size_t *n, struct cp_error *err)
{
	size_t a = r->next_kept, b = a, len, i;
	int fd = r->pipe_in ? r->spool : r->fd;
	int rc;

	*out = NULL;
	*n = 0;
	if (r->ix)
		return ix_kept(r, out, idx, max, n, err);
	if (a >= r->n_kept)
		return CP_OK;
	/* spans adjacent in the input (their lines numbered on), up to a
	 * part's bytes, read again in blocks (from the file or the spool) */
	len = r->kept[a].len;
	for (b = a + 1; b < r->n_kept && b - a < max &&
	     r->kept[b].in_off == r->kept[b - 1].in_off + r->kept[b - 1].len &&
	     len + r->kept[b].len <= r->part; b++)
		len += r->kept[b].len;
	stats_dataset_free(r->d);
	r->d = NULL;
	if ((rc = stats_dataset_read_part(r->name, head(r), r->hdr, fd, NULL,
					  r->kept[a].off, r->kept[a].off + len,
					  r->threads, r->kept[a].line - 2, NULL, NULL,
					  &r->d, NULL, err)))
		return rc;
	for (i = a; i < b; i++)
		if ((idx[i - a] = stats_dataset_find_observation(r->d, r->kept[i].name)) ==
		    (size_t)-1)
			return cp_error_set(err, CP_EIO, "cannot read '%s' again: "
					    STATS_SHORTER, r->name);
	r->next_kept = b;
	*n = b - a;
	*out = r->d;
	return CP_OK;
}
