/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stats/dataset_int.h: the loaded dataset's layout, shared by
 * stats/dataset.c (loading) and stats/observation.c (accessors, an
 * observation's rates and resolution).  Internal to stats/. */
#ifndef COUNTERPOINT_STATS_DATASET_INT_H
#define COUNTERPOINT_STATS_DATASET_INT_H

#include <stddef.h>
#include <stdint.h>

struct cp_error;

/* Names interned in order of first appearance, found through an
 * open-addressing hash table (slots hold index + 1, 0 = empty). */
struct names {
	char **name;
	size_t *len;
	size_t n, cap;
	uint32_t *slot;
	size_t nslots;
};

/* Consecutive lines of one observation and interval: sample start + j
 * was read from line + j. */
struct group {
	uint64_t interval;
	size_t start;
	uint32_t obs, n, line;
	uint32_t dup;            /* an event twice within the group */
};

/* Samples in chunks of fixed size, so that growing never copies them
 * (nor holds the old and the new array at once). */
#define SAMPLE_SHIFT 19   /* a chunk: 10 MiB, five 2 MB huge pages */
#define SAMPLE_CHUNK ((size_t)1 << SAMPLE_SHIFT)
struct chunk {
	uint32_t ev[SAMPLE_CHUNK];       /* per sample: event, */
	double value[SAMPLE_CHUNK];      /* value, */
	uint64_t running[SAMPLE_CHUNK];  /* running_ns */
};
#define S_EV(d, i) ((d)->ch[(i) >> SAMPLE_SHIFT]->ev[(i) & (SAMPLE_CHUNK - 1)])
#define S_VALUE(d, i) ((d)->ch[(i) >> SAMPLE_SHIFT]->value[(i) & (SAMPLE_CHUNK - 1)])
#define S_RUNNING(d, i) ((d)->ch[(i) >> SAMPLE_SHIFT]->running[(i) & (SAMPLE_CHUNK - 1)])

/* A row of a perf stat -r summary: the mean over runs runs and its
 * relative standard error (se_pct, percent), kept by line (sorted). */
struct summary_row {
	unsigned line;
	uint32_t runs;
	double se_pct;
};

/* One observation whose rows take LAZY_BYTES or more of a file: not
 * held, but read again from the file, a piece at a time, whenever its
 * rates are asked for (stats_lazy_pieces); a first reading checked it
 * and counted what the accessors say without its samples. */
struct lazy {
	int fd;                   /* the file (a duplicate), */
	int64_t size, mtime_ns;   /* its size and time when first read */
	char *head;               /* its header line */
	size_t head_len;
	uint64_t end;             /* the end of the rows read */
	struct lazy_piece {
		uint64_t from, to;    /* the lines that start in [from, to), */
		unsigned line;        /* the line before the first */
	} *piece;
	size_t n_piece;
	unsigned last_line;       /* the observation's last row */
	size_t *counted;          /* per event: the intervals counting it */
};

struct stats_dataset {
	char *path;
	struct lazy *lazy;        /* one long observation, or NULL */
	struct names obs, ev;
	struct chunk **ch;        /* the samples, SAMPLE_CHUNK a chunk */
	size_t n_s, n_ch, cap_ch;
	int huge;                 /* every chunk in huge pages, the first too */
	struct group *g;          /* sorted by (obs, interval, line) */
	size_t n_g, cap_g;
	size_t *obs_g;            /* n_obs + 1 offsets into g */
	size_t *obs_nint;         /* distinct intervals per observation */
	unsigned *obs_line;       /* per observation: the line of its first row */
	uint64_t *obs_off;        /* and that line's offset in the text loaded
				   * (a file's, or of the text in memory) */
	size_t cap_off;
	struct summary_row *sr;   /* rows with runs,se_pct, by line */
	size_t n_sr, cap_sr;
	uint32_t *obs_runs;       /* per observation: the runs of its summary,
				   * 0 for intervals (NULL: no summary at all) */
};

/* stats/dataset.c: the summary row read from line, or NULL. */
const struct summary_row *stats_summary_row(const struct stats_dataset *d,
					    unsigned line);

/* stats/dataset.c: the pieces of a lazy dataset d loaded in order, each
 * one observation whose events are d's (the same indices), passed to fn
 * with the row (interval) of d's observation its first interval is. */
int stats_lazy_pieces(const struct stats_dataset *d,
		      int (*fn)(void *arg, const struct stats_dataset *piece,
				size_t row),
		      void *arg, struct cp_error *err);

/* stats/dataset.c: a name's index in t, or (size_t)-1 */
size_t stats_names_find(const struct names *t, const char *s, size_t len,
			uint64_t h);

#endif
