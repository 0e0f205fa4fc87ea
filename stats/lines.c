/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stats/lines.c: where an observation's rows were read from, so that a
 * part of a dataset can be passed on as the very lines of its file (the
 * MPI runs of `check` send each process only the observations it
 * checks). */
#include "stats/region.h"
#include "stats/dataset_int.h"

/* Its rows are runs of consecutive lines, one per group (sorted by
 * interval, then line): the text of the runs in this order, after the
 * header, loads as the same observation. */
size_t stats_dataset_n_line_runs(const struct stats_dataset *d, size_t obs)
{
	if (obs >= d->obs.n)
		return 0;
	return d->lazy ? 1 : d->obs_g[obs + 1] - d->obs_g[obs];
}

void stats_dataset_line_run(const struct stats_dataset *d, size_t obs, size_t j,
			    size_t *first_line, size_t *n_lines)
{
	const struct group *g;

	if (d->lazy) {       /* its lines, from the first row to the last */
		*first_line = d->obs_line[obs];
		*n_lines = d->lazy->last_line - d->obs_line[obs] + 1;
		return;
	}
	g = &d->g[d->obs_g[obs] + j];
	*first_line = g->line;
	*n_lines = g->n;
}
