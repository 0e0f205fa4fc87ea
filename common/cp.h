/* SPDX-License-Identifier: GPL-3.0-or-later */
/* common/cp.h: what every counterpoint module shares: the error record
 * (struct cp_error), stable error codes and the allocation wrappers.
 *
 * Ownership: a struct cp_error lives on the caller's stack; library
 * functions fill it and never print.  cp_malloc() and friends return NULL
 * on failure like malloc(), but can be made to fail on purpose (the Nth
 * call) so tests can walk every allocation failure path. */
#ifndef COUNTERPOINT_CP_H
#define COUNTERPOINT_CP_H

#include <stdarg.h>
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

/* Strings numbered in the order they first come (the strings stay the
 * caller's, alive while the index is used), found by hash. */
struct cp_strindex {
	const char **s;             /* s[i]: string number i */
	size_t n, cap;
	size_t *slot, nslots;
};
void cp_strindex_init(struct cp_strindex *x);
void cp_strindex_release(struct cp_strindex *x);
/* The number of s: an equal string's, or n when s is new (then added);
 * (size_t)-1 when out of memory. */
size_t cp_strindex_add(struct cp_strindex *x, const char *s);

/* A child's wait status in words, into buf: "exited with status 1",
 * "was killed by signal 13 (Broken pipe)". */
const char *cp_wait_status(int status, char *buf, size_t size);

/* Version string of the toolkit ("0.2.0"). */
const char *cp_version(void);

/* ---- files (common/files.c) ---- */

/* All of data written to fd (through EINTR and short writes): 0, or -1
 * with errno. */
int cp_write_all(int fd, const void *data, size_t size);
/* A temporary file that no name reaches (unlinked at once, gone with its
 * descriptor) in $TMPDIR (or /tmp), for what a command must keep but not
 * in memory: its descriptor, or -1 with err set. */
int cp_temp_fd(struct cp_error *err);

/* An output file, written the way -o writes (README, "Output files"): a
 * regular file (or a new one) goes to a temporary file beside it,
 * PATH.tmp.PID.N, until cp_output_commit renames it over the target
 * (keeping an existing file's mode and owner), or for a file with
 * several hard links copies it over the target in place after reserving
 * the space; symbolic links are followed; "-", /dev/stdout, /dev/stderr,
 * /dev/fd/N and /proc/self/fd/N are written to that descriptor as it is;
 * character devices and FIFOs in place; anything else is refused with
 * CP_EIO.  Temporary files beside the target whose process is gone are
 * removed at open.  After a commit, fd writes to the target itself (a
 * dataset that grows as a command runs).  Lifecycle: cp_output_open,
 * writes to fd (or cp_output_write), then cp_output_close (commits), or
 * cp_output_abort (an uncommitted target stays as it was). */
struct cp_output {
	int fd;                     /* where the data go */
	/* private */
	const char *name;           /* as given, for messages */
	char *path, *tmp;
	long long old_size;
	int kind, has_old, borrowed, committed;
};
int cp_output_open(struct cp_output *o, const char *path, struct cp_error *err);
int cp_output_write(struct cp_output *o, const void *data, size_t size,
		    struct cp_error *err);
int cp_output_commit(struct cp_output *o, struct cp_error *err);
int cp_output_close(struct cp_output *o, struct cp_error *err);
void cp_output_abort(struct cp_output *o);
/* The whole of data written to path that way, at once. */
int cp_write_file_atomic(const char *path, const char *data, size_t size,
			 struct cp_error *err);

/* One file a command reads (output 0) or writes (output 1), and what the
 * command calls it ("-o", "DATA"). */
struct cp_file_use {
	const char *what;
	const char *path;           /* NULL or "-": none */
	int output;
};
/* Refuse (CP_EINPUT: "-o 'a' and DATA 'a' are the same file") an output
 * that is, by device and inode, one of the inputs or another output, as
 * cp refuses "are the same file".  Outputs that do not exist yet are
 * compared by directory and name; standard output, named descriptors,
 * devices and FIFOs are not compared. */
int cp_files_distinct(const struct cp_file_use *u, size_t n,
		      struct cp_error *err);

/* An exclusive lock (flock) on the file at path, for a read-modify-write
 * such as an append: held until cp_lock_release, across the read, the
 * header check and the rename or the writes.  A file replaced while
 * waiting is locked again as it is now.  CP_LOCK_CREATE makes an absent
 * file (empty; release removes it if it is still empty); CP_LOCK_NOWAIT
 * returns 1 instead of waiting for another holder. */
struct cp_lock {
	int fd;
	int created;
	char *path;
};
#define CP_LOCK_CREATE 1u
#define CP_LOCK_NOWAIT 2u
int cp_lock_acquire(struct cp_lock *l, const char *path, unsigned flags,
		    struct cp_error *err);
void cp_lock_release(struct cp_lock *l);

/* Lines of a text file, of any length.  A NUL byte is an error at its
 * line and column; from an input that is not a regular file (a pipe, a
 * device, which may never end) a line of more than CP_LINE_MAX_STREAM
 * bytes is one too.  cp_lines_next returns 1 with the line in line/len
 * (without its newline; a \r before it stays) and its number in lineno,
 * 0 at the end, or an error code with err set. */
#define CP_LINE_MAX_STREAM (16 << 20)
/* The most text a reader holds at once from an input that is not a
 * regular file (a pipe, a device: it may never end): a dataset loaded
 * whole, or the one observation a part of `check` cannot cut.  4 GB: an
 * observation of `perf stat -I` over 10^6 intervals x 26 events is about
 * 1.5 GB.  cp_stream_max gives it, or COUNTERPOINT_STREAM_MAX bytes when
 * that is set (the tests lower it); cp_stream_max_text writes it for a
 * message ("4 GB", "1000 bytes") into buf. */
#define CP_STREAM_MAX ((uint64_t)4 << 30)
uint64_t cp_stream_max(void);
const char *cp_stream_max_text(char buf[32]);
struct cp_lines {
	const char *name;
	char *line;
	size_t len;
	unsigned long lineno;
	/* private */
	int fd, own_fd, regular, eof;
	char *buf;
	size_t start, end, line_cap;
};
int cp_lines_open(struct cp_lines *r, const char *path, struct cp_error *err);
/* Lines from an open descriptor, named name in messages (not closed). */
void cp_lines_fd(struct cp_lines *r, int fd, const char *name);
int cp_lines_next(struct cp_lines *r, struct cp_error *err);
void cp_lines_close(struct cp_lines *r);

/* The whole of a text file in *text (cp_malloc'd, NUL-terminated) and
 * *len ("-": standard input).  From an input that is not a regular
 * file, the text ends with its first NUL byte (a text has none; the
 * caller reports it) and more
 * than max bytes is CP_ELIMIT.  CP_TEXT_NO_NUL: a NUL byte is CP_EINPUT
 * at its line and column. */
#define CP_TEXT_NO_NUL 1u
int cp_read_text(const char *path, size_t max, unsigned flags, char **text,
		 size_t *len, struct cp_error *err);

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
/* s as a JSON string, or null when s is NULL. */
void cp_buf_json_string_or_null(struct cp_buf *b, const char *s);
/* The version of every `--json` document (docs/manual/json.md): raised when a
 * key is removed or changes meaning, never when one is added. */
#define CP_JSON_SCHEMA 2
/* The opening every `--json` document shares: "{", "schema", then the
 * model and the data it came from (null when it has none), with no
 * trailing comma. */
void cp_buf_json_begin(struct cp_buf *b, const char *model, const char *data);
void cp_buf_printf(struct cp_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Read the whole file at path ("-": standard input) into b, appended,
 * as cp_read_text reads it (at most 1 GB from a pipe or a device); CP_EIO
 * ("cannot read 'path': reason"), CP_ELIMIT or CP_ENOMEM. */
int cp_read_file(const char *path, struct cp_buf *b, struct cp_error *err);

/* s as one field of the long CSV dataset (observation, event names),
 * quoted where the loader would otherwise read something else: it loads
 * back as s exactly, for any s that cp_csv_name_check accepts. */
void cp_buf_csv_field(struct cp_buf *b, const char *s);
/* Whether s can be a name (of what: "observation", "event") in a
 * dataset: not empty, no newline; CP_EINPUT with the reason otherwise. */
int cp_csv_name_check(const char *what, const char *s, struct cp_error *err);
/* The dataset's header line. */
#define CP_DATASET_HEADER \
	"observation,interval,event,value,enabled_ns,running_ns\n"

/* ---- diagnostics: bad lines collected while reading ----
 * A reader notes every bad line it meets and reads on, then reports them
 * all in input and line order (common/diag.c).  Zero-initialise. */
struct cp_diag {
	size_t input, seq;   /* which input; the order noted, for ties */
	unsigned line;       /* 0: the input as a whole */
	char *msg;
};
struct cp_diags {
	struct cp_diag *d;
	size_t n, cap;
	size_t dropped;      /* notes beyond CP_DIAGS_MAX, counted only */
	int nomem;           /* a note was lost for want of memory */
};
/* The notes kept: an endless input of bad lines is read on (to its end,
 * or to the cap on what a pipe may hold) in bounded memory. */
#define CP_DIAGS_MAX 100000
void cp_diags_vadd(struct cp_diags *ds, size_t input, unsigned line,
		   const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));
/* Sort the notes by input, line and order; write each to messages (may
 * be NULL) as "NAME:LINE: msg" ("NAME: msg" for line 0), NAME being
 * names[input]; the first into err (CP_EINPUT at its place), the others
 * into err->detail while they fit, then "... and N more bad NOUN"; notes
 * beyond CP_DIAGS_MAX are counted in that N, and in one last line of
 * messages.  Returns CP_EINPUT. */
int cp_diags_report(struct cp_diags *ds, const char *const *names, const char *noun,
		    struct cp_buf *messages, struct cp_error *err);
/* Move from's notes to the end of to, their lines moved by off (a part
 * of the input read apart; those beyond CP_DIAGS_MAX counted); from is
 * left empty.  CP_ENOMEM leaves both. */
int cp_diags_move(struct cp_diags *to, struct cp_diags *from, unsigned off);
void cp_diags_release(struct cp_diags *ds);

#endif
