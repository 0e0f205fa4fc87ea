/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dsl/parser.y: the μDD grammar.  Actions only build the syntax tree (in
 * the model's arena); checks are a separate pass (dsl/check.c). */
%require "3.8"
%define api.pure full
%define api.prefix {udd_yy}
%define parse.error custom
%define parse.lac full
%define api.value.type union
%locations
%expect 0
%param {void *scanner}
%parse-param {struct udd_parse *ps}

%code requires {
#include "dsl/internal.h"
#define UDD_YYLTYPE struct udd_span
#define UDD_YYLTYPE_IS_DECLARED 1
}

%code {
#include <stdio.h>
#include <string.h>

int udd_yylex(UDD_YYSTYPE *lval, UDD_YYLTYPE *lloc, void *scanner);
static void udd_yyerror(UDD_YYLTYPE *loc, void *scanner,
			struct udd_parse *ps, const char *msg);

/* Spans join: a rule covers its first to its last symbol. */
#define YYLLOC_DEFAULT(Cur, Rhs, N) do { \
	if (N) { (Cur).start = YYRHSLOC(Rhs, 1).start; \
		 (Cur).end = YYRHSLOC(Rhs, N).end; } \
	else { (Cur).start = (Cur).end = YYRHSLOC(Rhs, 0).end; } \
} while (0)

/* Lists are left-recursive, so the stack grows only with nesting, which
 * the lexer bounds (UDD_MAX_NESTING, at most 10 entries a level); this
 * bound is a last guard, never reached by a model the lexer accepts. */
#define YYMAXDEPTH (12 * UDD_MAX_NESTING + 1000)

#define NEW(type) ((type *)udd_arena_alloc(&ps->m->arena, sizeof(type)))
#define CHECK_ALLOC(p) do { if (!(p)) { ps->nomem = 1; YYABORT; } } while (0)

static struct udd_ident ident(const char *text, struct udd_span sp)
{
	struct udd_ident id;

	id.text = text;
	id.span = sp;
	return id;
}

static struct udd_stmt *new_stmt(struct udd_parse *ps, enum udd_stmt_kind k,
				 struct udd_span sp)
{
	struct udd_stmt *s = NEW(struct udd_stmt);

	if (s) {
		s->kind = k;
		s->span = sp;
		s->index = -1;
	}
	return s;
}
}

%token COUNTER "'counter'" GROUP "'group'" PROPERTY "'property'"
%token FEATURE "'feature'" UOP "'uop'" INCR "'incr'" SWITCH "'switch'"
%token CASE "'case'" DEFAULT "'default'" IF "'if'" ELSE "'else'"
%token DONE "'done'"
%token <const char *> NAME "name" STRING "string"
%token <uint32_t> NUMBER "number"

%type <struct udd_value_list> values names events
%type <struct udd_value *> value
%type <struct udd_stmt_list> stmts
%type <struct udd_stmt *> stmt if_stmt if_head
%type <struct udd_if_chain> if_chain
%type <struct udd_incr_list> incr_items
%type <struct udd_incr_item *> incr_item
%type <struct udd_case_list> cases
%type <struct udd_case *> case_clause
%type <const char *> opt_doc

%%

model:
	decls
	;

decls:
	%empty
	| decls decl
	;

decl:
	COUNTER NAME events ';' {
		struct udd_counter_decl *c = NEW(struct udd_counter_decl);
		CHECK_ALLOC(c);
		c->name = ident($2, @2);
		c->events = $3.head;
		c->event = $3.head->name.text;
		c->event_span = $3.head->name.span;
		CHECK_ALLOC(!udd_vec_push(&ps->m->counters, c));
	}
	| GROUP NAME '=' names ';' {
		struct udd_group_decl *g = NEW(struct udd_group_decl);
		CHECK_ALLOC(g);
		g->name = ident($2, @2);
		g->members = $4.head;
		CHECK_ALLOC(!udd_vec_push(&ps->m->groups, g));
	}
	| PROPERTY NAME '{' values '}' opt_semi {
		struct udd_property_decl *p = NEW(struct udd_property_decl);
		CHECK_ALLOC(p);
		p->name = ident($2, @2);
		p->values = $4.head;
		CHECK_ALLOC(!udd_vec_push(&ps->m->properties, p));
	}
	| FEATURE NAME opt_doc ';' {
		struct udd_feature_decl *f = NEW(struct udd_feature_decl);
		CHECK_ALLOC(f);
		f->name = ident($2, @2);
		f->doc = $3;
		CHECK_ALLOC(!udd_vec_push(&ps->m->features, f));
	}
	| UOP NAME '{' stmts '}' opt_semi {
		struct udd_uop_decl *u = NEW(struct udd_uop_decl);
		CHECK_ALLOC(u);
		u->name = ident($2, @2);
		u->body = $4.head;
		u->close = @5;
		CHECK_ALLOC(!udd_vec_push(&ps->m->uops, u));
	}
	;

opt_semi:
	%empty
	| ';'
	;

opt_doc:
	%empty { $$ = NULL; }
	| STRING { $$ = $1; }
	;

/* Every list is left-recursive and keeps its tail, so a list of any
 * length leaves the parser stack flat and stays in source order. */

/* `"EVENT" | "alias" | ...`: the names a counter's event goes by */
events:
	STRING {
		struct udd_value *v = NEW(struct udd_value);
		CHECK_ALLOC(v);
		v->name = ident($1, @1);
		v->index = -1;
		$$.head = $$.tail = v;
	}
	| events '|' STRING {
		struct udd_value *v = NEW(struct udd_value);
		CHECK_ALLOC(v);
		v->name = ident($3, @3);
		v->index = -1;
		$$ = $1;
		$$.tail->next = v;
		$$.tail = v;
	}
	;

/* `a + b + c` */
names:
	NAME {
		struct udd_value *v = NEW(struct udd_value);
		CHECK_ALLOC(v);
		v->name = ident($1, @1);
		v->index = -1;
		$$.head = $$.tail = v;
	}
	| names '+' NAME {
		struct udd_value *v = NEW(struct udd_value);
		CHECK_ALLOC(v);
		v->name = ident($3, @3);
		v->index = -1;
		$$ = $1;
		$$.tail->next = v;
		$$.tail = v;
	}
	;

values:
	value { $$.head = $$.tail = $1; }
	| values ',' value { $$ = $1; $$.tail->next = $3; $$.tail = $3; }
	;

value:
	NAME {
		$$ = NEW(struct udd_value);
		CHECK_ALLOC($$);
		$$->name = ident($1, @1);
		$$->index = -1;
	}
	| NUMBER {
		char buf[16];
		snprintf(buf, sizeof buf, "%u", (unsigned)$1);
		$$ = NEW(struct udd_value);
		CHECK_ALLOC($$);
		$$->name = ident(udd_arena_strndup(&ps->m->arena, buf, strlen(buf)), @1);
		CHECK_ALLOC($$->name.text);
		$$->index = -1;
	}
	;

stmts:
	%empty { $$.head = $$.tail = NULL; }
	| stmts stmt {
		$$ = $1;
		if ($$.tail)
			$$.tail->next = $2;
		else
			$$.head = $2;
		$$.tail = $2;
	}
	;

stmt:
	NAME ';' {
		$$ = new_stmt(ps, UDD_ACTION, @1);
		CHECK_ALLOC($$);
		$$->name = ident($1, @1);
	}
	| INCR incr_items ';' {
		$$ = new_stmt(ps, UDD_INCR, @1);
		CHECK_ALLOC($$);
		$$->items = $2.head;
	}
	| SWITCH '(' NAME ')' '{' cases '}' {
		$$ = new_stmt(ps, UDD_SWITCH, @1);
		CHECK_ALLOC($$);
		$$->name = ident($3, @3);
		$$->cases = $6.head;
	}
	| if_stmt { $$ = $1; }
	| DONE ';' {
		$$ = new_stmt(ps, UDD_DONE, @1);
		CHECK_ALLOC($$);
	}
	;

/* `if (f) {...} else if (g) {...} else {...}`: the else-ifs are read as
 * a flat chain (each link the else branch of the one before), so a chain
 * of any length leaves the parser stack flat. */
if_stmt:
	if_chain { $$ = $1.head; }
	| if_chain ELSE '{' stmts '}' {
		$$ = $1.head;
		$1.tail->else_body = $4.head;
		$1.tail->has_else = 1;
	}
	;

if_chain:
	if_head { $$.head = $$.tail = $1; }
	| if_chain ELSE if_head {
		$$ = $1;
		$3->is_elif = 1;
		$$.tail->else_body = $3;
		$$.tail->has_else = 1;
		$$.tail = $3;
	}
	;

if_head:
	IF '(' NAME ')' '{' stmts '}' {
		$$ = new_stmt(ps, UDD_IF, @1);
		CHECK_ALLOC($$);
		$$->name = ident($3, @3);
		$$->then_body = $6.head;
	}
	| IF '(' '!' NAME ')' '{' stmts '}' {
		$$ = new_stmt(ps, UDD_IF, @1);
		CHECK_ALLOC($$);
		$$->name = ident($4, @4);
		$$->negate = 1;
		$$->then_body = $7.head;
	}
	;

incr_items:
	incr_item { $$.head = $$.tail = $1; }
	| incr_items ',' incr_item { $$ = $1; $$.tail->next = $3; $$.tail = $3; }
	;

incr_item:
	NAME {
		$$ = NEW(struct udd_incr_item);
		CHECK_ALLOC($$);
		$$->counter = ident($1, @1);
		$$->mult = 1;
		$$->mult_span = @1;
		$$->mult_span.start = $$->mult_span.end;
		$$->index = -1;
	}
	| NAME NUMBER {
		$$ = NEW(struct udd_incr_item);
		CHECK_ALLOC($$);
		$$->counter = ident($1, @1);
		$$->mult = $2;
		$$->mult_span = @2;
		$$->index = -1;
	}
	;

cases:
	case_clause { $$.head = $$.tail = $1; }
	| cases case_clause { $$ = $1; $$.tail->next = $2; $$.tail = $2; }
	;

case_clause:
	CASE values ':' stmts {
		$$ = NEW(struct udd_case);
		CHECK_ALLOC($$);
		$$->values = $2.head;
		$$->span = @1;
		$$->body = $4.head;
	}
	| DEFAULT ':' stmts {
		$$ = NEW(struct udd_case);
		CHECK_ALLOC($$);
		$$->span = @1;
		$$->body = $3.head;
	}
	;

%%

static void udd_yyerror(UDD_YYLTYPE *loc, void *scanner,
			struct udd_parse *ps, const char *msg)
{
	(void)scanner;
	/* bison's only own message: its stack is full */
	if (!strcmp(msg, "memory exhausted"))
		msg = "the model is nested too deeply";
	if (!ps->failed && udd_diag_add(ps->m, 1, *loc, "%s", msg) < 0)
		ps->nomem = 1;
	ps->failed = 1;
}

/* "unexpected '}', expected ';' or 'incr'", with a hint when the file
 * ends inside a block. */
static int yyreport_syntax_error(const yypcontext_t *ctx, void *scanner,
				 struct udd_parse *ps)
{
	enum { MAX_EXPECTED = 6 };
	yysymbol_kind_t expected[MAX_EXPECTED];
	yysymbol_kind_t got = yypcontext_token(ctx);
	const UDD_YYLTYPE *loc = yypcontext_location(ctx);
	char msg[512];
	size_t len = 0;
	int n, i;

	(void)scanner;
	if (ps->failed)
		return 0;
	len += (size_t)snprintf(msg + len, sizeof msg - len, "unexpected %s",
		got == YYSYMBOL_YYEOF ? "end of file" : yysymbol_name(got));
	n = yypcontext_expected_tokens(ctx, expected, MAX_EXPECTED);
	if (n > 0 && n < MAX_EXPECTED) {
		for (i = 0; i < n && len < sizeof msg; i++)
			len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s",
				i == 0 ? ", expected " : i == n - 1 ? " or " : ", ",
				expected[i] == YYSYMBOL_YYEOF ? "end of file"
							      : yysymbol_name(expected[i]));
	}
	if (got == YYSYMBOL_YYEOF && ps->brace_depth > 0 && len < sizeof msg) {
		size_t open = ps->brace[ps->brace_depth - 1];
		unsigned line, col;

		udd_position(ps->m, open, &line, &col);
		snprintf(msg + len, sizeof msg - len,
			 " ('}' missing to close '{' at line %u)", line);
	}
	/* point just after the last good token, as compilers do: that is
	 * where the missing ';' or '}' belongs */
	{
		struct udd_span at = *loc;

		if (got == YYSYMBOL_YYEOF && ps->n_tokens >= 1)
			at.start = at.end = ps->tok_end;
		else if (got != YYSYMBOL_YYEOF && ps->n_tokens >= 2)
			at.start = at.end = ps->prev_end;
		if (udd_diag_add(ps->m, 1, at, "%s", msg) < 0)
			ps->nomem = 1;
	}
	ps->failed = 1;
	return 0;
}

int udd_parse_run(struct udd_parse *ps)
{
	return udd_yyparse(ps->scanner, ps);
}
