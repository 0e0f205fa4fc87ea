/* SPDX-License-Identifier: GPL-3.0-or-later */
/* common/diag.c: bad lines collected while reading, reported in input and
 * line order (the dataset loader, the perf and gem5 importers). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cp.h"

void cp_diags_vadd(struct cp_diags *ds, size_t input, unsigned line,
		   const char *fmt, va_list ap)
{
	char msg[700];

	if (ds->n >= CP_DIAGS_MAX) {
		ds->dropped++;
		return;
	}
	vsnprintf(msg, sizeof msg, fmt, ap);
	if (ds->n == ds->cap) {
		size_t cap = ds->cap ? 2 * ds->cap : 16;
		struct cp_diag *d = cp_reallocarray(ds->d, cap, sizeof *d);

		if (!d) {
			ds->nomem = 1;
			return;
		}
		ds->d = d;
		ds->cap = cap;
	}
	if (!(ds->d[ds->n].msg = cp_strdup(msg))) {
		ds->nomem = 1;
		return;
	}
	ds->d[ds->n].input = input;
	ds->d[ds->n].line = line;
	ds->d[ds->n].seq = ds->n;
	ds->n++;
}

static int diag_cmp(const void *a, const void *b)
{
	const struct cp_diag *x = a, *y = b;

	if (x->input != y->input)
		return x->input < y->input ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int cp_diags_report(struct cp_diags *ds, const char *const *names, const char *noun,
		    struct cp_buf *messages, struct cp_error *err)
{
	size_t i, used = 0, left = 0;

	qsort(ds->d, ds->n, sizeof *ds->d, diag_cmp);
	if (err)
		err->detail[0] = '\0';
	for (i = 0; i < ds->n; i++) {
		const struct cp_diag *d = &ds->d[i];
		const char *name = names[d->input];
		char line[900];
		int len = d->line ? snprintf(line, sizeof line, "%s:%u: %s\n", name,
					     d->line, d->msg)
				  : snprintf(line, sizeof line, "%s: %s\n", name, d->msg);

		if (messages)
			cp_buf_puts(messages, line);
		if (i == 0) {
			cp_error_at(err, CP_EINPUT, name, d->line, 0, "%s", d->msg);
			continue;
		}
		if (!err)
			continue;
		if (!left && len > 0 && used + (size_t)len + 40 < sizeof err->detail) {
			memcpy(err->detail + used, line, (size_t)len + 1);
			used += (size_t)len;
		} else {
			left++;
		}
	}
	if (messages && ds->dropped)
		cp_buf_printf(messages, "%s: %zu more bad %s not listed (the first %d are)\n",
			      names[ds->d[ds->n - 1].input], ds->dropped, noun, CP_DIAGS_MAX);
	left += ds->dropped;
	if (err && left)
		snprintf(err->detail + used, sizeof err->detail - used,
			 "... and %zu more bad %s\n", left, noun);
	return CP_EINPUT;
}

int cp_diags_move(struct cp_diags *to, struct cp_diags *from, unsigned off)
{
	size_t i, room = to->n < CP_DIAGS_MAX ? CP_DIAGS_MAX - to->n : 0;
	size_t take = from->n < room ? from->n : room;

	if (to->n + take > to->cap) {
		struct cp_diag *d = cp_reallocarray(to->d, to->n + take, sizeof *d);

		if (!d)
			return CP_ENOMEM;
		to->d = d;
		to->cap = to->n + take;
	}
	for (i = 0; i < from->n; i++) {
		if (i < take) {
			to->d[to->n] = from->d[i];
			to->d[to->n].line += off;
			to->d[to->n].seq = to->n;
			to->n++;
		} else {
			cp_free(from->d[i].msg);
		}
	}
	to->dropped += from->dropped + (from->n - take);
	to->nomem |= from->nomem;
	from->n = 0;                  /* the notes are to's now */
	from->dropped = 0;
	return CP_OK;
}

void cp_diags_release(struct cp_diags *ds)
{
	size_t i;

	for (i = 0; i < ds->n; i++)
		cp_free(ds->d[i].msg);
	cp_free(ds->d);
	memset(ds, 0, sizeof *ds);
}
