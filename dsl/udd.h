/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dsl/udd.h: the μDD compiler.  Parses a model file (flex + bison), checks
 * it, resolves features, and enumerates μpaths and their distinct counter
 * signatures.
 *
 * Ownership: udd_model_parse_* returns a model the caller frees with
 * udd_model_free(); udd_sigset_build returns a signature set the caller
 * frees with udd_sigset_free().  A sigset refers to its model's names:
 * free it before the model.
 * All *_free(NULL) are no-ops.  Strings returned by accessors belong to
 * the object and live as long as it does. */
#ifndef COUNTERPOINT_UDD_H
#define COUNTERPOINT_UDD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/cp.h"

struct udd_model;
struct udd_sigset;

/* ---- parsing and checking ---- */

/* Parse and check a model.  On a syntax or semantic error returns
 * CP_ESYNTAX or CP_ESEMANTIC with the first error in err, and *out is still
 * set (when memory allowed) so that every diagnostic can be listed; the
 * caller frees it either way.  Warnings never fail the parse. */
int udd_model_parse_file(const char *path, struct udd_model **out,
			 struct cp_error *err);
int udd_model_parse_string(const char *name, const char *src, size_t len,
			   struct udd_model **out, struct cp_error *err);
void udd_model_free(struct udd_model *m);

/* Diagnostics in source order, each fully formatted
 * ("file:line:col: error: message\n  line | source\n       | ^~~~\n"). */
size_t udd_model_n_diagnostics(const struct udd_model *m);
const char *udd_model_diagnostic(const struct udd_model *m, size_t i);

/* ---- declarations ---- */
const char *udd_model_file(const struct udd_model *m);
size_t udd_model_n_counters(const struct udd_model *m);
const char *udd_model_counter_name(const struct udd_model *m, size_t i);
/* A signature (one count per model counter) as people read it, appended
 * to b: "load.causes_walk, walk_ref.l1*2", or "(no counter)". */
void udd_signature_text(const struct udd_model *m, const uint32_t *sig,
			struct cp_buf *b);
const char *udd_model_counter_event(const struct udd_model *m, size_t i);
/* The names counter i's event goes by (`counter x "EVENT" | "alias";`):
 * j = 0 is udd_model_counter_event(), then the aliases in model order. */
size_t udd_model_counter_n_events(const struct udd_model *m, size_t i);
const char *udd_model_counter_event_at(const struct udd_model *m, size_t i,
				       size_t j);
/* The counters as a JSON array, appended to b: per counter its "name",
 * "event" and "aliases" (the event's other names).  names (k of them)
 * picks and orders the counters; NULL: every counter in model order. */
void udd_model_json_counters(const struct udd_model *m, const char *const *names,
			     size_t k, struct cp_buf *b);
/* Index of a counter by name, or -1. */
long udd_model_counter_find(const struct udd_model *m, const char *name);

size_t udd_model_n_features(const struct udd_model *m);
const char *udd_model_feature_name(const struct udd_model *m, size_t i);
/* The feature's doc string ("" when none). */
const char *udd_model_feature_doc(const struct udd_model *m, size_t i);
long udd_model_feature_find(const struct udd_model *m, const char *name);

size_t udd_model_n_uops(const struct udd_model *m);
const char *udd_model_uop_name(const struct udd_model *m, size_t i);

/* ---- feature selections ----
 * A selection is a bitset over the model's features (bit i = feature i).
 * udd_model_select parses a comma-separated list ("a,b"; NULL or "" = none)
 * and fails with CP_ESEMANTIC naming any feature the model does not declare.
 * Models have at most 64 features. */
typedef uint64_t udd_features;
/* How many features a selection holds. */
size_t udd_features_count(udd_features sel);
int udd_model_select(const struct udd_model *m, const char *list,
		     udd_features *out, struct cp_error *err);
/* "a,b" for a selection (caller frees with cp_free); "" for none. */
char *udd_model_selection_str(const struct udd_model *m, udd_features sel);
/* The selection as a JSON array of feature names, appended to b. */
void udd_model_json_features(const struct udd_model *m, udd_features sel,
			     struct cp_buf *b);
/* The features whose value lowering sel reads (the `if`s on its path
 * through the model): a selection that agrees with sel on every one of
 * them lowers to the same graph, so has the same μpaths and signatures. */
udd_features udd_model_consulted(const struct udd_model *m, udd_features sel);

/* ---- signatures ----
 * The distinct counter signatures of every μpath of every uop, with how
 * many μpaths share each.  Enumeration memoises on (node, values of the
 * decided properties still read below it) and leaves a decision pending
 * while its branches differ only by counts, so it does not visit every
 * μpath.  Fails with CP_ELIMIT when more than max_signatures distinct
 * signatures exist (0 = default, 1,000,000) or the work would need more
 * than 16 × max_signatures table entries; with CP_ESEMANTIC, located
 * (the source excerpt in err->detail), when a counter would count more
 * than 2^32 - 1 on one μpath. */
int udd_sigset_build(const struct udd_model *m, udd_features sel,
		     size_t max_signatures, struct udd_sigset **out,
		     struct cp_error *err);
void udd_sigset_free(struct udd_sigset *s);
/* The distinct signatures alone, as udd_sigset_build finds them (same
 * limits and errors) but without examples or multiplicities: *out is n
 * rows of the model's k counters, in no particular order, freed with
 * cp_free.  For callers that only need the rows (the solver's models). */
int udd_signatures_build(const struct udd_model *m, udd_features sel,
			 size_t max_signatures, uint32_t **out, size_t *n,
			 struct cp_error *err);

size_t udd_sigset_n_counters(const struct udd_sigset *s);   /* k */
size_t udd_sigset_size(const struct udd_sigset *s);         /* m */
const char *udd_sigset_counter_name(const struct udd_sigset *s, size_t i);
const char *udd_sigset_counter_event(const struct udd_sigset *s, size_t i);
/* The model the set was built from (its counters are the model's). */
const struct udd_model *udd_sigset_model(const struct udd_sigset *s);
/* Signature j: k counts, in counter declaration order.  Signatures are
 * sorted (uop, then lexicographic), so the order is deterministic. */
const uint32_t *udd_sigset_signature(const struct udd_sigset *s, size_t j);
/* All m signatures as one row-major m × k matrix (signature j at
 * matrix + j*k), the layout cone_build and the solver take. */
const uint32_t *udd_sigset_matrix(const struct udd_sigset *s);
/* How many μpaths have signature j.  Counts of μpaths saturate: the
 * value UINT64_MAX means "at least UINT64_MAX". */
uint64_t udd_sigset_multiplicity(const struct udd_sigset *s, size_t j);
/* Total μpaths over all signatures (saturating). */
uint64_t udd_sigset_total_paths(const struct udd_sigset *s);
/* Name of the uop of signature j's example path. */
const char *udd_sigset_uop(const struct udd_sigset *s, size_t j);
/* The uops with μpaths of signature j (one or more, in declaration
 * order), and how many μpaths each has (saturating). */
size_t udd_sigset_uop_count(const struct udd_sigset *s, size_t j);
const char *udd_sigset_uop_name(const struct udd_sigset *s, size_t j,
				size_t i);
uint64_t udd_sigset_uop_paths(const struct udd_sigset *s, size_t j, size_t i);
/* One example μpath with signature j, as text:
 * "dtlb=miss, +load.causes_walk, walk, stlb=miss, done".  The text lives
 * in the set until the next call (not safe across threads). */
const char *udd_sigset_example(const struct udd_sigset *s, size_t j);

/* The same μpath step by step, for callers that place text next to a
 * step: fn(ctx, step, line, counts) for each step in order, step its
 * text as udd_sigset_example words it ("stlb=miss", "+load.causes_walk",
 * "walk", "done"), line its source line, counts the model's counters
 * after it (k entries).  Stops and returns fn's value when non-zero;
 * CP_ENOMEM when out of memory; 0 at the path's end.  Not safe across
 * threads, as udd_sigset_example. */
typedef int (*udd_step_fn)(void *ctx, const char *step, unsigned line,
			   const uint32_t *counts);
int udd_sigset_example_steps(const struct udd_sigset *s, size_t j,
			     udd_step_fn fn, void *ctx);

/* ---- whole-path listing and drawing ---- */
/* Call fn once per μpath (uop name, path text, signature); stops early and
 * returns fn's value when it is non-zero, CP_ESEMANTIC (located) when a
 * count passes 2^32 - 1.  Exponential in the worst case:
 * for --all only. */
typedef int (*udd_path_fn)(void *ctx, const char *uop, const char *path,
			   const uint32_t *signature);
int udd_model_each_path(const struct udd_model *m, udd_features sel,
			udd_path_fn fn, void *ctx, struct cp_error *err);

/* The μDD for a selection as a Graphviz digraph. */
int udd_model_dot(const struct udd_model *m, udd_features sel, FILE *out,
		  struct cp_error *err);

#endif
