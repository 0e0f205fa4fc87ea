/* dsl/model.c: a model's life: reading the source, running the parser and
 * the checker, formatting diagnostics with the source line and a caret,
 * and the declaration accessors of dsl/udd.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsl/internal.h"

typedef void *yyscan_t;
int udd_yylex_init_extra(struct udd_parse *extra, yyscan_t *scanner);
int udd_yylex_destroy(yyscan_t scanner);
struct yy_buffer_state *udd_yy_scan_bytes(const char *bytes, int len,
					  yyscan_t scanner);

/* ==== arena ==== */
struct udd_arena_block {
	struct udd_arena_block *next;
	size_t used, size;
	max_align_t data[];
};

void *udd_arena_alloc(struct udd_arena *a, size_t size)
{
	struct udd_arena_block *b = a->head;
	size_t need = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t)
		      * sizeof(max_align_t);
	void *p;

	if (a->failed)
		return NULL;
	if (!b || b->size - b->used < need) {
		size_t bsize = need > 16384 ? need : 16384;

		b = cp_malloc(sizeof *b + bsize);
		if (!b) {
			a->failed = 1;
			return NULL;
		}
		b->next = a->head;
		b->used = 0;
		b->size = bsize;
		a->head = b;
	}
	p = (char *)b->data + b->used;
	b->used += need;
	memset(p, 0, size);
	return p;
}

char *udd_arena_strndup(struct udd_arena *a, const char *s, size_t n)
{
	char *d = udd_arena_alloc(a, n + 1);

	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

void udd_arena_release(struct udd_arena *a)
{
	struct udd_arena_block *b = a->head, *next;

	for (; b; b = next) {
		next = b->next;
		cp_free(b);
	}
	a->head = NULL;
	a->failed = 0;
}

int udd_vec_push(struct udd_vec *v, void *item)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 8;
		void **items = cp_reallocarray(v->items, cap, sizeof *items);

		if (!items)
			return -1;
		v->items = items;
		v->cap = cap;
	}
	v->items[v->n++] = item;
	return 0;
}

void udd_vec_release(struct udd_vec *v)
{
	cp_free(v->items);
	memset(v, 0, sizeof *v);
}

/* ==== positions and diagnostics ==== */

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

/* "file:line:col: error: msg\n LINE | source\n      | ^~~~\n" */
int udd_diag_add(struct udd_model *m, int is_error, struct udd_span span,
		 const char *fmt, ...)
{
	struct udd_diag *d;
	struct cp_buf b;
	char msg[768], gutter[16];
	unsigned line, col;
	size_t ls, le, i;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	udd_position(m, span.start, &line, &col);
	ls = m->line_starts[line - 1];
	for (le = ls; le < m->len && m->src[le] != '\n'; le++)
		;
	if (le > ls && m->src[le - 1] == '\r')
		le--;
	cp_buf_init(&b);
	cp_buf_printf(&b, "%s:%u:%u: %s: %s\n", m->file, line, col,
		      is_error ? "error" : "warning", msg);
	snprintf(gutter, sizeof gutter, "%5u", line);
	cp_buf_printf(&b, "%s | ", gutter);
	cp_buf_append(&b, m->src + ls, le - ls);
	cp_buf_puts(&b, "\n      | ");
	/* the caret line keeps tabs so it lines up under the source */
	for (i = ls; i < span.start && i < le; i++) {
		unsigned char ch = (unsigned char)m->src[i];

		if (ch == '\t')
			cp_buf_puts(&b, "\t");
		else if ((ch & 0xc0) != 0x80)
			cp_buf_puts(&b, " ");
	}
	cp_buf_puts(&b, "^");
	for (i = span.start + 1; i < span.end && i < le; i++)
		if (((unsigned char)m->src[i] & 0xc0) != 0x80)
			cp_buf_puts(&b, "~");
	cp_buf_puts(&b, "\n");
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

/* ==== parsing ==== */

static int index_lines(struct udd_model *m)
{
	size_t i, n = 1;

	for (i = 0; i < m->len; i++)
		if (m->src[i] == '\n')
			n++;
	m->line_starts = cp_calloc(n, sizeof *m->line_starts);
	if (!m->line_starts)
		return -1;
	m->n_lines = 0;
	m->line_starts[m->n_lines++] = 0;
	for (i = 0; i < m->len; i++)
		if (m->src[i] == '\n')
			m->line_starts[m->n_lines++] = i + 1;
	return 0;
}

/* The first error as a cp_error (one line; its source excerpt in detail). */
static int first_error(const struct udd_model *m, int code,
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

int udd_model_parse_string(const char *name, const char *src, size_t len,
			   struct udd_model **out, struct cp_error *err)
{
	struct udd_model *m;
	struct udd_parse ps;
	int rc = CP_OK;

	*out = NULL;
	if (len > (size_t)1 << 30)
		return cp_error_set(err, CP_ELIMIT, "%s: model file is too large",
				    name);
	m = cp_calloc(1, sizeof *m);
	if (!m)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	m->file = cp_strdup(name);
	m->src = cp_malloc(len + 1);
	m->empty = cp_strdup("");
	if (!m->file || !m->src || !m->empty) {
		udd_model_free(m);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	memcpy(m->src, src, len);
	m->src[len] = '\0';
	m->len = len;
	if (index_lines(m)) {
		udd_model_free(m);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	memset(&ps, 0, sizeof ps);
	ps.m = m;
	if (udd_yylex_init_extra(&ps, &ps.scanner)) {
		udd_model_free(m);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	if (!udd_yy_scan_bytes(m->src, (int)len, ps.scanner)) {
		udd_yylex_destroy(ps.scanner);
		udd_model_free(m);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	rc = udd_parse_run(&ps);
	udd_yylex_destroy(ps.scanner);
	if (rc == 2 && !ps.nomem && !m->arena.failed) {
		udd_model_free(m);
		return cp_error_set(err, CP_ELIMIT,
				    "%s: the model is nested too deeply", name);
	}
	if (ps.nomem || m->arena.failed || rc == 2) {
		udd_model_free(m);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	*out = m;
	if (rc || ps.failed) {
		if (!m->n_errors) {
			struct udd_span sp = { m->len, m->len };

			if (udd_diag_add(m, 1, sp, "syntax error") < 0)
				return cp_error_set(err, CP_ENOMEM, "out of memory");
		}
		return first_error(m, CP_ESYNTAX, err);
	}
	if (udd_check(m) < 0) {
		*out = NULL;
		udd_model_free(m);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	if (m->diags.n)
		qsort(m->diags.items, m->diags.n, sizeof *m->diags.items, diag_cmp);
	if (m->n_errors)
		return first_error(m, CP_ESEMANTIC, err);
	return CP_OK;
}

int udd_model_parse_file(const char *path, struct udd_model **out,
			 struct cp_error *err)
{
	FILE *f;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc;

	*out = NULL;
	f = fopen(path, "rb");
	if (!f)
		return cp_error_set(err, CP_EIO, "cannot open '%s': %s", path,
				    strerror(errno));
	for (;;) {
		size_t n;

		if (cap - len < 65536) {
			char *nb;

			cap = cap ? 2 * cap : 65536;
			nb = cp_realloc(buf, cap);
			if (!nb) {
				cp_free(buf);
				fclose(f);
				return cp_error_set(err, CP_ENOMEM, "out of memory");
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
		if (len > (size_t)1 << 30)
			break;
	}
	if (ferror(f)) {
		cp_free(buf);
		fclose(f);
		return cp_error_set(err, CP_EIO, "cannot read '%s': %s", path,
				    strerror(errno));
	}
	fclose(f);
	rc = udd_model_parse_string(path, buf, len, out, err);
	cp_free(buf);
	return rc;
}

void udd_model_free(struct udd_model *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->diags.n; i++) {
		struct udd_diag *d = m->diags.items[i];

		cp_free(d->text);
		cp_free(d);
	}
	udd_vec_release(&m->diags);
	udd_vec_release(&m->counters);
	udd_vec_release(&m->groups);
	udd_vec_release(&m->properties);
	udd_vec_release(&m->features);
	udd_vec_release(&m->uops);
	udd_arena_release(&m->arena);
	cp_free(m->line_starts);
	cp_free(m->src);
	cp_free(m->file);
	cp_free(m->empty);
	cp_free(m);
}

/* ==== accessors ==== */
size_t udd_model_n_diagnostics(const struct udd_model *m)
{
	return m->diags.n;
}

const char *udd_model_diagnostic(const struct udd_model *m, size_t i)
{
	return ((const struct udd_diag *)m->diags.items[i])->text;
}

int udd_model_diagnostic_is_error(const struct udd_model *m, size_t i)
{
	return ((const struct udd_diag *)m->diags.items[i])->is_error;
}

const char *udd_model_file(const struct udd_model *m)
{
	return m->file;
}

#define DECL(vec, type, i) ((const struct type *)(vec).items[i])

size_t udd_model_n_counters(const struct udd_model *m)
{
	return m->counters.n;
}

const char *udd_model_counter_name(const struct udd_model *m, size_t i)
{
	return DECL(m->counters, udd_counter_decl, i)->name.text;
}

const char *udd_model_counter_event(const struct udd_model *m, size_t i)
{
	return DECL(m->counters, udd_counter_decl, i)->event;
}

long udd_model_counter_find(const struct udd_model *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->counters.n; i++)
		if (!strcmp(udd_model_counter_name(m, i), name))
			return (long)i;
	return -1;
}

long udd_model_counter_find_event(const struct udd_model *m,
				  const char *event)
{
	size_t i;

	for (i = 0; i < m->counters.n; i++)
		if (!strcmp(udd_model_counter_event(m, i), event))
			return (long)i;
	return -1;
}

size_t udd_model_n_features(const struct udd_model *m)
{
	return m->features.n;
}

const char *udd_model_feature_name(const struct udd_model *m, size_t i)
{
	return DECL(m->features, udd_feature_decl, i)->name.text;
}

const char *udd_model_feature_doc(const struct udd_model *m, size_t i)
{
	const char *doc = DECL(m->features, udd_feature_decl, i)->doc;

	return doc ? doc : m->empty;
}

long udd_model_feature_find(const struct udd_model *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->features.n; i++)
		if (!strcmp(udd_model_feature_name(m, i), name))
			return (long)i;
	return -1;
}

size_t udd_model_n_uops(const struct udd_model *m)
{
	return m->uops.n;
}

const char *udd_model_uop_name(const struct udd_model *m, size_t i)
{
	return DECL(m->uops, udd_uop_decl, i)->name.text;
}

size_t udd_model_n_groups(const struct udd_model *m)
{
	return m->groups.n;
}

const char *udd_model_group_name(const struct udd_model *m, size_t g)
{
	return DECL(m->groups, udd_group_decl, g)->name.text;
}

size_t udd_model_group_size(const struct udd_model *m, size_t g)
{
	const struct udd_value *v = DECL(m->groups, udd_group_decl, g)->members;
	size_t n = 0;

	for (; v; v = v->next)
		n++;
	return n;
}

size_t udd_model_group_member(const struct udd_model *m, size_t g, size_t i)
{
	const struct udd_value *v = DECL(m->groups, udd_group_decl, g)->members;

	while (i--)
		v = v->next;
	return (size_t)v->index;
}

/* ==== feature selections ==== */
int udd_model_select(const struct udd_model *m, const char *list,
		     udd_features *out, struct cp_error *err)
{
	udd_features sel = 0;
	const char *p = list;

	*out = 0;
	if (m->features.n > 64)
		return cp_error_set(err, CP_ELIMIT,
				    "%s: a model may declare at most 64 features",
				    m->file);
	while (p && *p) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char name[256];
		long f;

		if (n == 0 || n >= sizeof name) {
			p = e ? e + 1 : NULL;
			if (n == 0)
				continue;
			return cp_error_set(err, CP_ESEMANTIC,
					    "%s: error: feature name too long in --with",
					    m->file);
		}
		memcpy(name, p, n);
		name[n] = '\0';
		f = udd_model_feature_find(m, name);
		if (f < 0) {
			struct cp_buf b;
			size_t i;

			cp_buf_init(&b);
			for (i = 0; i < m->features.n; i++)
				cp_buf_printf(&b, "%s%s", i ? ", " : "",
					      udd_model_feature_name(m, i));
			cp_error_set(err, CP_ESEMANTIC,
				     "%s: error: --with names feature '%s', which the model does not declare (%s%s)",
				     m->file, name,
				     m->features.n ? "it declares: " : "it declares no features",
				     b.data ? b.data : "");
			cp_buf_release(&b);
			return CP_ESEMANTIC;
		}
		sel |= (udd_features)1 << f;
		p = e ? e + 1 : NULL;
	}
	*out = sel;
	return CP_OK;
}

char *udd_model_selection_str(const struct udd_model *m, udd_features sel)
{
	struct cp_buf b;
	size_t i;
	int first = 1;

	cp_buf_init(&b);
	cp_buf_puts(&b, "");
	for (i = 0; i < m->features.n; i++)
		if (sel >> i & 1) {
			cp_buf_printf(&b, "%s%s", first ? "" : ",",
				      udd_model_feature_name(m, i));
			first = 0;
		}
	if (b.failed) {
		cp_buf_release(&b);
		return NULL;
	}
	if (!b.data)
		return cp_strdup("");
	return b.data;
}
