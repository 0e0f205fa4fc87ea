/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dsl/model.c: a model's life: reading the source, running the parser and
 * the checker (diagnostics are dsl/diag.c's), the declaration accessors of
 * dsl/udd.h and feature selections. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsl/internal.h"

typedef void *yyscan_t;
int udd_yylex_init_extra(struct udd_parse *extra, yyscan_t *scanner);
int udd_yylex_destroy(yyscan_t scanner);
struct yy_buffer_state *udd_yy_scan_bytes(const char *bytes, int len,
					  yyscan_t scanner);

/* ==== parsing ==== */

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
	if (udd_lines_index(m)) {
		udd_model_free(m);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	memset(&ps, 0, sizeof ps);
	ps.m = m;
	if (udd_yylex_init_extra(&ps, &ps.scanner)) {
		udd_model_free(m);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	/* a UTF-8 byte-order mark is no token: lex after it (positions stay
	 * offsets into the whole source; line 1 starts after it) */
	ps.offset = udd_bom_length(m);
	if (!udd_yy_scan_bytes(m->src + ps.offset, (int)(len - ps.offset),
			       ps.scanner)) {
		udd_yylex_destroy(ps.scanner);
		udd_model_free(m);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	rc = udd_parse_run(&ps);
	udd_yylex_destroy(ps.scanner);
	cp_free(ps.brace);
	/* rc 2 without nomem is a full parser stack, reported by yyerror
	 * as a located error like any other syntax error */
	if (ps.nomem || m->arena.failed || (rc == 2 && !ps.failed)) {
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
		return udd_diag_first_error(m, CP_ESYNTAX, err);
	}
	if (udd_check(m) < 0) {
		*out = NULL;
		udd_model_free(m);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	udd_diag_sort(m);
	if (m->n_errors)
		return udd_diag_first_error(m, CP_ESEMANTIC, err);
	return CP_OK;
}

int udd_model_parse_file(const char *path, struct udd_model **out,
			 struct cp_error *err)
{
	char *buf;
	size_t len;
	int rc;

	*out = NULL;
	/* from a pipe or a device at most 1 GB, and nothing after a NUL
	 * byte (the lexer reports it): /dev/zero is no endless model */
	if ((rc = cp_read_text(path, (size_t)1 << 30, 0, &buf, &len, err)))
		return rc;
	rc = udd_model_parse_string(path, buf, len, out, err);
	cp_free(buf);
	return rc;
}

void udd_model_free(struct udd_model *m)
{
	if (!m)
		return;
	udd_diag_release(m);
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

void udd_signature_text(const struct udd_model *m, const uint32_t *sig,
			struct cp_buf *b)
{
	size_t i, n = 0;

	for (i = 0; i < udd_model_n_counters(m); i++) {
		if (!sig[i])
			continue;
		cp_buf_printf(b, "%s%s", n++ ? ", " : "", udd_model_counter_name(m, i));
		if (sig[i] != 1)
			cp_buf_printf(b, "*%u", (unsigned)sig[i]);
	}
	if (!n)
		cp_buf_puts(b, "(no counter)");
}

const char *udd_model_counter_event(const struct udd_model *m, size_t i)
{
	return DECL(m->counters, udd_counter_decl, i)->event;
}

size_t udd_model_counter_n_events(const struct udd_model *m, size_t i)
{
	const struct udd_value *v = DECL(m->counters, udd_counter_decl, i)->events;
	size_t n = 0;

	for (; v; v = v->next)
		n++;
	return n;
}

const char *udd_model_counter_event_at(const struct udd_model *m, size_t i,
				       size_t j)
{
	const struct udd_value *v = DECL(m->counters, udd_counter_decl, i)->events;

	while (v && j--)
		v = v->next;
	return v ? v->name.text : NULL;
}

void udd_model_json_counters(const struct udd_model *m, const char *const *names,
			     size_t k, struct cp_buf *b)
{
	size_t i, j, n = names ? k : m->counters.n;

	cp_buf_puts(b, "[");
	for (i = 0; i < n; i++) {
		long c = names ? udd_model_counter_find(m, names[i]) : (long)i;

		cp_buf_puts(b, i ? ",\n  {\"name\": " : "\n  {\"name\": ");
		cp_buf_json_string(b, names ? names[i] : udd_model_counter_name(m, i));
		cp_buf_puts(b, ", \"event\": ");
		cp_buf_json_string_or_null(b, c < 0 ? NULL : udd_model_counter_event(m, (size_t)c));
		cp_buf_puts(b, ", \"aliases\": [");
		for (j = 1; c >= 0 && j < udd_model_counter_n_events(m, (size_t)c); j++) {
			cp_buf_puts(b, j > 1 ? ", " : "");
			cp_buf_json_string(b, udd_model_counter_event_at(m, (size_t)c, j));
		}
		cp_buf_puts(b, "]}");
	}
	cp_buf_puts(b, "]");
}

long udd_model_counter_find(const struct udd_model *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->counters.n; i++)
		if (!strcmp(udd_model_counter_name(m, i), name))
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

size_t udd_features_count(udd_features sel)
{
	return (size_t)__builtin_popcountll(sel);
}

void udd_model_json_features(const struct udd_model *m, udd_features sel,
			     struct cp_buf *b)
{
	size_t i;
	int first = 1;

	cp_buf_puts(b, "[");
	for (i = 0; i < m->features.n; i++)
		if (sel >> i & 1) {
			cp_buf_puts(b, first ? "" : ", ");
			cp_buf_json_string(b, udd_model_feature_name(m, i));
			first = 0;
		}
	cp_buf_puts(b, "]");
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
