/* common/cp.h: what every counterpoint module shares: the error record
 * (struct cp_error), stable error codes and the allocation wrappers.
 *
 * Ownership: a struct cp_error lives on the caller's stack; library
 * functions fill it and never print.  cp_malloc() and friends return NULL
 * on failure like malloc(), but can be made to fail on purpose (the Nth
 * call) so tests can walk every allocation failure path. */
#ifndef COUNTERPOINT_CP_H
#define COUNTERPOINT_CP_H

#include <stddef.h>
#include <stdint.h>

/* ---- error codes: explicit numbers, appended only, never renumbered ---- */
enum cp_code {
	CP_OK = 0,
	CP_ENOMEM = -1,     /* out of memory */
	CP_EIO = -2,        /* a file could not be read or written */
	CP_ESYNTAX = -3,    /* a source file does not parse */
	CP_ESEMANTIC = -4,  /* a model is well-formed but wrong */
	CP_EINPUT = -5,     /* bad data (dataset row, option value) */
	CP_ELIMIT = -6,     /* a configured limit was reached */
	CP_ENUMERIC = -7,   /* a numerical library failed */
	CP_EINTERNAL = -8,  /* a bug: an invariant did not hold */
	CP_EUNSUPPORTED = -9, /* the machine cannot do what was asked */
	CP_EPERM = -10,     /* the system refused permission */
};

/* One-line description of a code ("out of memory"). */
const char *cp_code_str(int code);

#define CP_ERROR_MAX 1024

/* What went wrong, and where.  file may be NULL; line/col are 1-based, 0
 * when unknown.  msg holds no trailing newline.  detail holds optional
 * extra lines (a source line and its caret) ready to print. */
struct cp_error {
	int code;
	char file[256];
	unsigned line, col;
	char msg[CP_ERROR_MAX];
	char detail[CP_ERROR_MAX];
};

/* Reset err (NULL is allowed). */
void cp_error_clear(struct cp_error *err);
/* Fill err with code and a printf-style message; returns code so that
 * callers can write `return cp_error_set(err, CP_EINPUT, "...")`.  err may be
 * NULL.  A second call overwrites the first. */
int cp_error_set(struct cp_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same with a place: file (may be NULL), line and column. */
int cp_error_at(struct cp_error *err, int code, const char *file,
		unsigned line, unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* Format err as one line: "file:line:col: msg" (parts omitted when
 * unknown) into buf. */
void cp_error_format(const struct cp_error *err, char *buf, size_t size);

/* ---- allocation ---- */
void *cp_malloc(size_t size);
void *cp_calloc(size_t n, size_t size);
void *cp_realloc(void *p, size_t size);
/* realloc for arrays: fails (NULL) on n*size overflow. */
void *cp_reallocarray(void *p, size_t n, size_t size);
char *cp_strdup(const char *s);
char *cp_strndup(const char *s, size_t n);
void cp_free(void *p);
/* Make the nth allocation from now fail (1 = the next one, in whichever
 * thread); 0 disables.  For tests only. */
void cp_alloc_fail_at(unsigned long n);
/* How many allocations have been made since the first call of either
 * function (tests use it to walk N; before it nothing is counted). */
unsigned long cp_alloc_count(void);

/* Greatest common divisor of |a| and |b| (0 when both are 0).  Callers
 * keep values above INT64_MIN, whose magnitude has no int64. */
int64_t cp_gcd64(int64_t a, int64_t b);
/* The monotonic clock, in seconds and in nanoseconds. */
double cp_seconds(void);
uint64_t cp_nanoseconds(void);
/* The CPU time of the whole process (every thread's), in seconds. */
double cp_cpu_seconds(void);

/* Make LAPACK/BLAS run on the calling thread (once per process; cheap
 * afterwards).  Every module that calls LAPACKE calls it first. */
void cp_lapack_serial(void);
/* FNV-1a over n bytes, continuing from h (start with CP_HASH_SEED). */
#define CP_HASH_SEED 14695981039346656037ULL
uint64_t cp_hash(uint64_t h, const void *p, size_t n);

/* Optimal string alignment distance of a and b (Levenshtein plus
 * adjacent transpositions), case-insensitive, for "did you mean"
 * suggestions; above limit it gives up and returns limit + 1 (so do
 * strings of 128 bytes or more). */
size_t cp_edit_distance(const char *a, const char *b, size_t limit);
/* The one of names[0..n) closest to word, an edit away (words of up to
 * four letters) or two, case aside; NULL when none is, or when two are
 * equally close. */
const char *cp_closest(const char *word, const char *const *names, size_t n);

/* Version string of the toolkit ("0.2.0"). */
const char *cp_version(void);

/* Write `size` bytes to path ("-": stdout).  A regular file (or a new
 * one) is written atomically: a temporary file beside it, fsync, rename,
 * keeping an existing file's mode and owner; a regular file with several
 * hard links is rewritten in place, so that every name sees the result.
 * Symbolic links are followed (the link stays).  /dev/stdout,
 * /dev/stderr, /dev/fd/N and /proc/self/fd/N are written to that open
 * descriptor as it is.  Character devices and FIFOs are written in place;
 * other targets (directories, block devices, sockets) are refused with
 * CP_EIO. */
int cp_write_file_atomic(const char *path, const char *data, size_t size,
			 struct cp_error *err);

/* ---- growable text buffer (output is built here, then written once) ----
 * Lifecycle: cp_buf_init() on a stack struct, cp_buf_release() at the end.
 * An allocation failure sets `failed` and later appends do nothing, so
 * callers check once at the end. */
struct cp_buf {
	char *data;   /* NUL-terminated when len > 0 */
	size_t len, cap;
	int failed;
};
void cp_buf_init(struct cp_buf *b);
void cp_buf_release(struct cp_buf *b);
void cp_buf_append(struct cp_buf *b, const char *s, size_t n);
void cp_buf_puts(struct cp_buf *b, const char *s);
/* s as a JSON string, quotes included, always valid UTF-8: control
 * characters escaped, and every byte that is not part of a valid UTF-8
 * sequence written as \u00XX (its Latin-1 reading), so a name that is
 * not UTF-8 stays readable and the document stays valid. */
void cp_buf_json_string(struct cp_buf *b, const char *s);
void cp_buf_printf(struct cp_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Read the whole file at path ("-": standard input) into b, appended;
 * CP_EIO ("cannot read 'path': reason") or CP_ENOMEM. */
int cp_read_file(const char *path, struct cp_buf *b, struct cp_error *err);

#endif
