/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dsl/diag.c: source positions and diagnostics: the line index of a
 * model's source, byte offsets to line and column, and each diagnostic
 * formatted as compilers do (file:line:col, the source line, a caret under
 * the span).  The lexer, the parser and the checker report through here. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsl/internal.h"

/* Binary search for the line holding offset; columns count characters
 * (UTF-8 continuation bytes do not advance the column). */
void udd_position(const struct udd_model *m, size_t offset, unsigned *line,
		  unsigned *col)
{
	size_t lo = 0, hi = m->n_lines, i;
	unsigned c = 1;

	if (offset > m->len)
		offset = m->len;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (m->line_starts[mid] <= offset)
			lo = mid;
		else
			hi = mid;
	}
	for (i = m->line_starts[lo]; i < offset; i++)
		if (((unsigned char)m->src[i] & 0xc0) != 0x80)
			c++;
	*line = (unsigned)lo + 1;
	*col = c;
}

/* The source line of span and a caret line under it:
 * " LINE | source\n      | ^~~~\n". */
static void put_excerpt(const struct udd_model *m, struct udd_span span,
			struct cp_buf *b)
{
	char gutter[16];
	unsigned line, col;
	size_t ls, le, i;

	udd_position(m, span.start, &line, &col);
	ls = m->line_starts[line - 1];
	for (le = ls; le < m->len && m->src[le] != '\n'; le++)
		;
	if (le > ls && m->src[le - 1] == '\r')
		le--;
	snprintf(gutter, sizeof gutter, "%5u", line);
	cp_buf_printf(b, "%s | ", gutter);
	/* control bytes (a NUL above all) would cut or garble the excerpt:
	 * each shows as one '?', so the caret still lines up */
	for (i = ls; i < le; i++) {
		unsigned char ch = (unsigned char)m->src[i];

		if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
			cp_buf_puts(b, "?");
		else
			cp_buf_append(b, m->src + i, 1);
	}
	cp_buf_puts(b, "\n      | ");
	/* the caret line keeps tabs so it lines up under the source */
	for (i = ls; i < span.start && i < le; i++) {
		unsigned char ch = (unsigned char)m->src[i];

		if (ch == '\t')
			cp_buf_puts(b, "\t");
		else if ((ch & 0xc0) != 0x80)
			cp_buf_puts(b, " ");
	}
	cp_buf_puts(b, "^");
	for (i = span.start + 1; i < span.end && i < le; i++)
		if (((unsigned char)m->src[i] & 0xc0) != 0x80)
			cp_buf_puts(b, "~");
	cp_buf_puts(b, "\n");
}

void udd_excerpt(const struct udd_model *m, struct udd_span span, char *buf,
		 size_t size)
{
	struct cp_buf b;

	cp_buf_init(&b);
	put_excerpt(m, span, &b);
	snprintf(buf, size, "%s", b.failed || !b.data ? "" : b.data);
	cp_buf_release(&b);
}

/* "file:line:col: error: msg\n" and the excerpt */
int udd_diag_add(struct udd_model *m, int is_error, struct udd_span span,
		 const char *fmt, ...)
{
	struct udd_diag *d;
	struct cp_buf b;
	char msg[768];
	unsigned line, col;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	udd_position(m, span.start, &line, &col);
	cp_buf_init(&b);
	cp_buf_printf(&b, "%s:%u:%u: %s: %s\n", m->file, line, col,
		      is_error ? "error" : "warning", msg);
	put_excerpt(m, span, &b);
	d = cp_malloc(sizeof *d);
	if (b.failed || !d || udd_vec_push(&m->diags, d)) {
		cp_free(d);
		cp_buf_release(&b);
		return -1;
	}
	d->offset = span.start;
	d->is_error = is_error;
	d->text = b.data;
	if (is_error)
		m->n_errors++;
	return 0;
}

static int diag_cmp(const void *a, const void *b)
{
	const struct udd_diag *x = *(struct udd_diag *const *)a;
	const struct udd_diag *y = *(struct udd_diag *const *)b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->is_error == y->is_error ? 0 : x->is_error ? -1 : 1;
}

/* Source order; at one offset errors before warnings. */
void udd_diag_sort(struct udd_model *m)
{
	if (m->diags.n)
		qsort(m->diags.items, m->diags.n, sizeof *m->diags.items, diag_cmp);
}

void udd_diag_release(struct udd_model *m)
{
	size_t i;

	for (i = 0; i < m->diags.n; i++) {
		struct udd_diag *d = m->diags.items[i];

		cp_free(d->text);
		cp_free(d);
	}
	udd_vec_release(&m->diags);
}


size_t udd_bom_length(const struct udd_model *m)
{
	return m->len >= 3 && !memcmp(m->src, "\xef\xbb\xbf", 3) ? 3 : 0;
}

int udd_lines_index(struct udd_model *m)
{
	size_t i, n = 1;

	for (i = 0; i < m->len; i++)
		if (m->src[i] == '\n')
			n++;
	m->line_starts = cp_calloc(n, sizeof *m->line_starts);
	if (!m->line_starts)
		return -1;
	m->n_lines = 0;
	m->line_starts[m->n_lines++] = udd_bom_length(m);
	for (i = 0; i < m->len; i++)
		if (m->src[i] == '\n')
			m->line_starts[m->n_lines++] = i + 1;
	return 0;
}

/* The first error as a cp_error (one line; its source excerpt in detail). */
int udd_diag_first_error(const struct udd_model *m, int code,
			 struct cp_error *err)
{
	size_t i;

	for (i = 0; i < m->diags.n; i++) {
		const struct udd_diag *d = m->diags.items[i];
		unsigned line, col;
		const char *nl, *msg;

		if (!d->is_error)
			continue;
		udd_position(m, d->offset, &line, &col);
		nl = strchr(d->text, '\n');
		msg = strstr(d->text, ": error: ");
		msg = msg ? msg + 9 : d->text;
		cp_error_at(err, code, m->file, line, col, "%.*s",
			    (int)(nl ? nl - msg : (long)strlen(msg)), msg);
		if (err && nl)
			snprintf(err->detail, sizeof err->detail, "%s", nl + 1);
		return code;
	}
	return cp_error_set(err, code, "%s: model has errors", m->file);
}
