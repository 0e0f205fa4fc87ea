/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dsl/internal.h: what the DSL's own files share and nobody else sees: the
 * syntax tree the parser builds, the parse context, the arena, and the
 * lowered μDD graph.  Names carry udd_ so check-symbols accepts them. */
#ifndef UDD_INTERNAL_H
#define UDD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "dsl/udd.h"

/* ---- dsl/arena.c: the tree and the graph live until the model is freed ---- */
struct udd_arena_block;
struct udd_arena {
	struct udd_arena_block *head;
	int failed;
};
void *udd_arena_alloc(struct udd_arena *a, size_t size);
char *udd_arena_strndup(struct udd_arena *a, const char *s, size_t n);
void udd_arena_release(struct udd_arena *a);

/* A span of source bytes [start, end). */
struct udd_span {
	size_t start, end;
};

struct udd_ident {
	const char *text;
	struct udd_span span;
};

/* ---- syntax tree ---- */
enum udd_stmt_kind { UDD_ACTION, UDD_INCR, UDD_SWITCH, UDD_IF, UDD_DONE };

struct udd_incr_item {
	struct udd_ident counter;
	uint32_t mult;
	struct udd_span mult_span;   /* empty when the multiplicity was omitted */
	struct udd_incr_item *next;
	long index;                   /* resolved counter, -1 unresolved */
};

struct udd_value {
	struct udd_ident name;
	struct udd_value *next;
	long index;                   /* resolved value, -1 unresolved */
};

struct udd_stmt;
struct udd_case {
	struct udd_value *values;     /* NULL for default */
	struct udd_span span;         /* the 'case'/'default' keyword */
	struct udd_stmt *body;
	struct udd_case *next;
};

struct udd_stmt {
	enum udd_stmt_kind kind;
	struct udd_span span;
	struct udd_stmt *next;
	struct udd_ident name;         /* action name, switch property, if feature */
	long index;                    /* resolved property / feature, -1 unresolved */
	struct udd_incr_item *items;   /* UDD_INCR */
	struct udd_case *cases;        /* UDD_SWITCH */
	int negate;                    /* UDD_IF: `if (!f)` */
	struct udd_stmt *then_body, *else_body;   /* UDD_IF */
	int has_else;
	int is_elif;                   /* UDD_IF: the `if` of an `else if` */
};

/* lists under construction (the parser appends at the tail) */
struct udd_stmt_list {
	struct udd_stmt *head, *tail;
};
struct udd_value_list {
	struct udd_value *head, *tail;
};
struct udd_incr_list {
	struct udd_incr_item *head, *tail;
};
struct udd_case_list {
	struct udd_case *head, *tail;
};
/* an if / else-if chain: its first and its last `if` */
struct udd_if_chain {
	struct udd_stmt *head, *tail;
};

struct udd_counter_decl {
	struct udd_ident name;
	struct udd_value *events;      /* the event's names: the first, then
					* its aliases ("a" | "b" | ...) */
	const char *event;             /* the first's text and span */
	struct udd_span event_span;
	int used;
};

struct udd_group_decl {
	struct udd_ident name;
	struct udd_value *members;     /* member names; index = counter */
};

struct udd_property_decl {
	struct udd_ident name;
	struct udd_value *values;
	size_t n_values;
	const char **value_names;      /* filled by the checker */
	int used;
};

struct udd_feature_decl {
	struct udd_ident name;
	const char *doc;
	int used;
};

struct udd_uop_decl {
	struct udd_ident name;
	struct udd_stmt *body;
	struct udd_span close;         /* the closing brace */
};

/* A growable array of pointers, for declaration lists (dsl/arena.c). */
struct udd_vec {
	void **items;
	size_t n, cap;
};
int udd_vec_push(struct udd_vec *v, void *item);
void udd_vec_release(struct udd_vec *v);

/* ---- the model ---- */
struct udd_diag {
	size_t offset;     /* for ordering */
	int is_error;
	char *text;        /* formatted, with source line and caret */
};

struct udd_model {
	char *file;
	char *src;
	size_t len;
	size_t *line_starts;   /* offsets of each line's first byte */
	size_t n_lines;
	struct udd_arena arena;
	struct udd_vec counters, groups, properties, features, uops;
	struct udd_vec diags;
	int n_errors;
	char *empty;           /* "" for absent doc strings */
};

/* ---- dsl/diag.c: positions and diagnostics ---- */
/* Index the first byte of every source line (m->line_starts); line 1
 * starts after a UTF-8 byte-order mark (udd_bom_length: 3 or 0). */
int udd_lines_index(struct udd_model *m);
size_t udd_bom_length(const struct udd_model *m);
/* 1-based line and column (in characters) of a byte offset. */
void udd_position(const struct udd_model *m, size_t offset, unsigned *line,
		  unsigned *col);
/* Add a diagnostic at span (formatted with source line and caret).
 * Returns -1 when out of memory. */
int udd_diag_add(struct udd_model *m, int is_error, struct udd_span span,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The source line of span with a caret under it, for err->detail. */
void udd_excerpt(const struct udd_model *m, struct udd_span span, char *buf,
		 size_t size);
/* Put the diagnostics in source order (errors first at one offset). */
void udd_diag_sort(struct udd_model *m);
/* The first error as a one-line cp_error with code (source excerpt in
 * err->detail); returns code. */
int udd_diag_first_error(const struct udd_model *m, int code,
			 struct cp_error *err);
void udd_diag_release(struct udd_model *m);

/* ---- parse context (parser.y, lexer.l) ---- */
/* Blocks nest at most this deep: the checker, the lowering and the
 * enumeration recurse once per level, and this keeps them well inside a
 * thread's stack. */
#define UDD_MAX_NESTING 4096

struct udd_parse {
	struct udd_model *m;
	void *scanner;
	size_t offset;          /* lexer position in bytes */
	size_t *brace;          /* offsets of open '{' (innermost last) */
	size_t brace_depth, brace_cap;
	size_t comment_start;   /* offset of an open block comment */
	size_t tok_end, prev_end;   /* ends of the last token and the one before */
	size_t n_tokens;
	int failed;             /* a syntax error was reported */
	int nomem;
};
int udd_parse_run(struct udd_parse *ps);
/* Semantic checks over the tree; diagnostics go to the model. */
int udd_check(struct udd_model *m);

/* ---- lowered graph for one feature selection ---- */
enum udd_node_kind { UDD_N_ACTION, UDD_N_INCR, UDD_N_DECIDE, UDD_N_DONE,
		     UDD_N_END };

struct udd_node {
	enum udd_node_kind kind;
	const char *label;               /* action name */
	const struct udd_incr_item *items;   /* UDD_N_INCR */
	uint32_t prop;                   /* UDD_N_DECIDE */
	uint32_t next;                   /* ACTION, INCR */
	uint32_t *succ;                  /* DECIDE: one per value */
	size_t offset;                   /* source position */
};

struct udd_graph {
	struct udd_node *nodes;
	size_t n, cap;
	uint32_t *roots;                 /* one per uop */
	size_t n_uops;
	int failed;
	struct udd_arena arena;          /* successor arrays */
};
int udd_graph_build(const struct udd_model *m, udd_features sel,
		    struct udd_graph *g, struct cp_error *err);
void udd_graph_release(struct udd_graph *g);
/* Per node, the properties decided at or below it, as a bitset of
 * (n_properties + 63) / 64 words (cp_free'd by the caller; NULL when out
 * of memory): what the enumeration's memo keys and the walk read. */
uint64_t *udd_graph_live(const struct udd_model *m, const struct udd_graph *g);

/* ---- dsl/walk.c: distinct signatures of a lowered graph, μpath by
 * μpath, for graphs with few μpaths: 0 with *out (n rows of the model's
 * counters, in no particular order, cp_free'd by the caller); 1 when it
 * hands over to udd_enum_run (too many μpaths, or anything that is an
 * enumeration error, which udd_enum_run then reports); -1 out of memory. */
int udd_walk_rows(const struct udd_model *m, const struct udd_graph *g,
		  size_t max_rows, uint32_t **out, size_t *n);

/* The enumeration's limit on distinct signatures when none is given. */
#define UDD_DEFAULT_MAX_SIGNATURES 1000000

/* ---- dsl/enum.c: distinct signatures of a lowered graph ---- */
/* One decision of an example μpath (the decision node and the value it
 * took), shared between examples; in no particular order. */
struct udd_trace {
	uint32_t node, value;
	const struct udd_trace *next;
};
/* How many μpaths of one uop have a signature. */
struct udd_uop_paths {
	size_t entry;                    /* the signature, in enumeration order */
	uint32_t uop;
	uint64_t paths;                  /* saturating */
};
struct udd_enum;
/* Enumerate every uop of g; entries are in no particular order, each
 * with its first uop and an example (NULL with no_examples).  The traces
 * live in the enumerator until udd_enum_take_traces moves them out. */
int udd_enum_run(const struct udd_model *m, const struct udd_graph *g,
		 size_t max_signatures, int no_examples, struct udd_enum **out,
		 struct cp_error *err);
size_t udd_enum_size(const struct udd_enum *e);
const uint32_t *udd_enum_signature(const struct udd_enum *e, size_t j);
uint64_t udd_enum_multiplicity(const struct udd_enum *e, size_t j);
const struct udd_trace *udd_enum_example(const struct udd_enum *e, size_t j);
uint32_t udd_enum_uop(const struct udd_enum *e, size_t j);
/* (signature, uop, μpaths) triples in uop order. */
const struct udd_uop_paths *udd_enum_by_uop(const struct udd_enum *e,
					    size_t *n);
void udd_enum_take_traces(struct udd_enum *e, struct udd_arena *dst);
void udd_enum_free(struct udd_enum *e);

#endif
