/* SPDX-License-Identifier: GPL-3.0-or-later */
/* common/files.c: files in and out, the same way in every command.
 *
 * Out (cp_output, cp_write_file_atomic): what -o does with each kind of
 * target (README, "Output files"):
 *   a regular file (or none yet): written to a temporary file beside it,
 *     PATH.tmp.PID.N, fsync'd and renamed over it, so that a reader never
 *     sees half a result; an existing file keeps its mode and owner;
 *   a regular file with several hard links: the temporary file first,
 *     then copied over the target in place (a rename would cut the
 *     links), after reserving the space, so that a full disk refuses
 *     before the old content is touched;
 *   a symbolic link: followed (a dangling one's target is created), and
 *     its target written as above; the link stays;
 *   /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: written to that
 *     open descriptor as it is (a pipe, a file opened for appending);
 *   a character device or a FIFO: written in place (/dev/null, a pipe);
 *   anything else (a directory, a block device, a socket): refused.
 * A temporary file that a killed process left (its PID gone) is removed
 * when the next write to the same target starts.
 *
 * Before any of that, cp_files_distinct refuses outputs that are inputs
 * or each other, as cp refuses "are the same file"; cp_lock serialises
 * the appends to one file.
 *
 * In (cp_lines, cp_read_text): lines of any length, a NUL byte an error
 * at its line, and an input that is not a regular file (a pipe, a
 * device: it may never end) read up to a limit with a message. */
#include "cp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define CP_MAX_LINKS 40   /* symlinks followed at most, as the kernel does */

int cp_write_all(int fd, const void *data, size_t size)
{
	size_t off = 0;

	while (off < size) {
		ssize_t w = write(fd, (const char *)data + off, size - off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		off += (size_t)w;
	}
	return 0;
}

int cp_temp_fd(struct cp_error *err)
{
	const char *dir = getenv("TMPDIR"), *why = " (TMPDIR)";
	char *path;
	int fd;

	if (!dir || !*dir) {
		dir = "/tmp";
		why = "";
	}
	/* a file no name reaches: O_TMPFILE where the file system has it,
	 * else a name removed at once */
	if ((fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)) >= 0)
		return fd;
	if (!(path = cp_malloc(strlen(dir) + 32))) {
		cp_error_set(err, CP_ENOMEM, "out of memory");
		return -1;
	}
	sprintf(path, "%s/counterpoint.XXXXXX", dir);
	if ((fd = mkostemp(path, O_CLOEXEC)) >= 0)
		unlink(path);
	else
		cp_error_set(err, CP_EIO, "cannot make a temporary file in '%s'%s: %s",
			     dir, why, strerror(errno));
	cp_free(path);
	return fd;
}

/* The path that a chain of symlinks at path leads to, for a target that
 * does not exist yet (stat resolves the others); cp_malloc'd, or NULL
 * with *rc and err set. */
static char *resolve_links(const char *path, int *rc, struct cp_error *err)
{
	char *cur = cp_strdup(path);
	int hops;

	*rc = CP_ENOMEM;
	if (!cur) {
		cp_error_set(err, CP_ENOMEM, "out of memory");
		return NULL;
	}
	for (hops = 0; hops <= CP_MAX_LINKS; hops++) {
		struct stat st;
		char target[4096], *next;
		ssize_t n;

		if (lstat(cur, &st) < 0 || !S_ISLNK(st.st_mode))
			return cur;
		n = readlink(cur, target, sizeof target - 1);
		if (n < 0) {
			*rc = cp_error_at(err, CP_EIO, path, 0, 0,
				    "cannot follow the symbolic link: %s",
				    strerror(errno));
			cp_free(cur);
			return NULL;
		}
		target[n] = '\0';
		if (target[0] == '/' || !strchr(cur, '/')) {
			next = cp_strdup(target);
		} else {   /* relative to the link's directory */
			size_t dir = (size_t)(strrchr(cur, '/') - cur) + 1;

			next = cp_malloc(dir + (size_t)n + 1);
			if (next) {
				memcpy(next, cur, dir);
				memcpy(next + dir, target, (size_t)n + 1);
			}
		}
		cp_free(cur);
		if (!(cur = next)) {
			cp_error_set(err, CP_ENOMEM, "out of memory");
			return NULL;
		}
	}
	*rc = cp_error_at(err, CP_EIO, path, 0, 0,
			  "cannot follow the symbolic link: %s", strerror(ELOOP));
	cp_free(cur);
	return NULL;
}

/* /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: N, else -1. */
static int named_fd(const char *path)
{
	static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/" };
	size_t i;

	if (!strcmp(path, "/dev/stdout"))
		return 1;
	if (!strcmp(path, "/dev/stderr"))
		return 2;
	for (i = 0; i < sizeof dirs / sizeof *dirs; i++) {
		size_t n = strlen(dirs[i]);
		const char *d = path + n;
		long v = 0;

		if (strncmp(path, dirs[i], n) || !*d || strspn(d, "0123456789") != strlen(d) ||
		    strlen(d) > 9)
			continue;
		for (; *d; d++)
			v = v * 10 + (*d - '0');
		return (int)v;
	}
	return -1;
}

/* path's directory ("." when it has none), cp_malloc'd. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return cp_strdup(".");
	return cp_strndup(path, slash == path ? 1 : (size_t)(slash - path));
}

/* ==== temporary files ==== */

/* Remove what killed writers left beside path: PATH.tmp.PID.N, a regular
 * file of ours whose process is gone.  Best effort, never an error. */
static void remove_stale_temps(const char *path)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	size_t blen = strlen(base);
	char *dir = dir_of(path);
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *e;

	while (d && (e = readdir(d)) != NULL) {
		const char *p = e->d_name + blen;
		char *end, *full;
		struct stat st;
		long pid;

		if (strncmp(e->d_name, base, blen) || strncmp(p, ".tmp.", 5))
			continue;
		p += 5;
		if (*p < '1' || *p > '9')
			continue;
		pid = strtol(p, &end, 10);
		if (*end != '.' || end[1] < '0' || end[1] > '9' ||
		    strspn(end + 1, "0123456789") != strlen(end + 1) ||
		    pid == (long)getpid() || pid > 0x7fffffffL)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;           /* alive (or not ours to ask) */
		full = cp_malloc(strlen(dir) + strlen(e->d_name) + 2);
		if (!full)
			break;
		sprintf(full, "%s/%s", dir, e->d_name);
		if (lstat(full, &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_uid == geteuid())
			(void)unlink(full);
		cp_free(full);
	}
	if (d)
		closedir(d);
	cp_free(dir);
}

/* A temporary file beside path: path.tmp.PID.N, created exclusively with
 * mode (the umask applies).  Returns the fd, its name in *tmp. */
static int create_temp(const char *path, char **tmp, mode_t mode)
{
	static unsigned serial;
	size_t size = strlen(path) + 48;
	unsigned tries;

	if (!(*tmp = cp_malloc(size))) {
		errno = ENOMEM;
		return -1;
	}
	for (tries = 0; tries < 100; tries++) {
		int fd;

		snprintf(*tmp, size, "%s.tmp.%ld.%u", path, (long)getpid(),
			 __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED));
		fd = open(*tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	errno = EEXIST;
	return -1;
}

/* ==== outputs ==== */

enum { OUT_DIRECT = 1, OUT_REPLACE, OUT_LINKS };

static int out_fail(struct cp_error *err, const char *what, const char *path)
{
	return cp_error_set(err, CP_EIO, "cannot %s '%s': %s", what, path,
			    strerror(errno));
}

int cp_output_open(struct cp_output *o, const char *path, struct cp_error *err)
{
	struct stat st;
	int fd = -1, rc;

	memset(o, 0, sizeof *o);
	o->fd = -1;
	o->name = path;
	o->kind = OUT_DIRECT;
	if (!strcmp(path, "-") || (fd = named_fd(path)) >= 0) {
		/* a descriptor: written as it is open (a pipe, a file opened
		 * for appending), never reopened, truncated or replaced */
		fflush(strcmp(path, "-") && fd == 2 ? stderr : stdout);
		o->fd = strcmp(path, "-") ? fd : 1;
		o->borrowed = 1;
		o->committed = 1;
		return CP_OK;
	}
	if (stat(path, &st) < 0) {
		if (errno != ENOENT)
			return out_fail(err, "write", path);
		/* a new file, maybe at the end of a dangling symlink */
		if (!(o->path = resolve_links(path, &rc, err)))
			return rc;
		o->kind = OUT_REPLACE;
	} else if (S_ISREG(st.st_mode)) {
		/* replaced where it really is: a symlink stays a symlink */
		if (!(o->path = realpath(path, NULL)))
			return out_fail(err, "write", path);
		o->old_size = (long long)st.st_size;
		o->has_old = 1;
		o->kind = st.st_nlink > 1 ? OUT_LINKS : OUT_REPLACE;
	} else if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
		if ((o->fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
			return cp_error_set(err, CP_EIO, "cannot open '%s' for writing: %s",
					    path, strerror(errno));
		o->committed = 1;
		return CP_OK;
	} else if (S_ISDIR(st.st_mode)) {
		return cp_error_at(err, CP_EIO, path, 0, 0,
				   "cannot write to a directory");
	} else {
		return cp_error_at(err, CP_EIO, path, 0, 0, "cannot write to %s "
				   "(only to a regular file, a character device or a "
				   "FIFO)", S_ISBLK(st.st_mode) ? "a block device" :
				   S_ISSOCK(st.st_mode) ? "a socket" : "a special file");
	}
	remove_stale_temps(o->path);
	/* an existing file's copy starts private and gets its mode below */
	o->fd = create_temp(o->path, &o->tmp, o->has_old ? 0600 : 0666);
	if (o->fd < 0) {
		rc = cp_error_set(err, errno == ENOMEM ? CP_ENOMEM : CP_EIO,
				  "cannot create '%s': %s", o->name,
				  strerror(errno));
		cp_output_abort(o);
		return rc;
	}
	if (o->kind == OUT_REPLACE && o->has_old) {
		/* the owner first: chown clears set-id bits, chmod restores
		 * them; an unprivileged user cannot give a file away, and the
		 * copy then stays theirs */
		if ((fchown(o->fd, st.st_uid, st.st_gid) < 0 && errno != EPERM) ||
		    fchmod(o->fd, st.st_mode & 07777) < 0) {
			rc = out_fail(err, "write", o->name);
			cp_output_abort(o);
			return rc;
		}
	}
	return CP_OK;
}

int cp_output_write(struct cp_output *o, const void *data, size_t size,
		    struct cp_error *err)
{
	if (cp_write_all(o->fd, data, size) >= 0)
		return CP_OK;
	if (!strcmp(o->name, "-"))
		return cp_error_set(err, CP_EIO, "cannot write to standard output: %s",
				    strerror(errno));
	if (o->borrowed)
		return cp_error_set(err, CP_EIO, "cannot write to '%s': %s", o->name,
				    strerror(errno));
	return out_fail(err, "write", o->name);
}

/* Make a rename in path's directory durable (best effort). */
static void sync_dir(const char *path)
{
	char *dir = dir_of(path);
	int dfd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;

	if (dfd >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	cp_free(dir);
}

/* The temporary file's content copied over the hard-linked target in
 * place: the space reserved first, so that a full disk (or a file size
 * limit) refuses before the old content is touched. */
static int copy_in_place(struct cp_output *o, struct cp_error *err)
{
	char buf[65536];
	off_t size, at;
	int tfd, e, rc = CP_OK;

	if ((size = lseek(o->fd, 0, SEEK_END)) < 0)
		return out_fail(err, "write", o->name);
	if ((tfd = open(o->path, O_WRONLY | O_CLOEXEC)) < 0)
		return cp_error_set(err, CP_EIO, "cannot open '%s' for writing: %s",
				    o->path, strerror(errno));
	e = size > 0 ? posix_fallocate(tfd, 0, size) : 0;
	if (e && e != EOPNOTSUPP && e != EINVAL) {
		struct stat now;

		/* a partial reservation may have grown the file: back to its
		 * old length, its content as it was */
		if (fstat(tfd, &now) == 0 && (long long)now.st_size > o->old_size)
			(void)ftruncate(tfd, (off_t)o->old_size);
		close(tfd);
		return cp_error_set(err, CP_EIO, "cannot write '%s': %s (the file "
				    "is as it was)", o->path, strerror(e));
	}
	for (at = 0; at < size && !rc;) {
		ssize_t got = pread(o->fd, buf, sizeof buf, at);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			rc = out_fail(err, "write", o->name);
			break;
		}
		if (pwrite(tfd, buf, (size_t)got, at) != got)
			rc = out_fail(err, "write", o->name);
		at += got;
	}
	if (!rc && (ftruncate(tfd, size) < 0 || fsync(tfd) < 0))
		rc = out_fail(err, "write", o->name);
	if (rc) {
		close(tfd);
		return rc;
	}
	if (lseek(tfd, 0, SEEK_END) < 0) {
		rc = out_fail(err, "write", o->name);
		close(tfd);
		return rc;
	}
	close(o->fd);
	o->fd = tfd;
	(void)unlink(o->tmp);
	cp_free(o->tmp);
	o->tmp = NULL;
	return CP_OK;
}

int cp_output_commit(struct cp_output *o, struct cp_error *err)
{
	int rc;

	if (o->committed)
		return CP_OK;
	if (fsync(o->fd) < 0)
		return out_fail(err, "write", o->name);
	if (o->kind == OUT_LINKS) {
		if ((rc = copy_in_place(o, err)))
			return rc;
	} else {
		if (rename(o->tmp, o->path) < 0)
			return cp_error_set(err, CP_EIO, "cannot rename '%s' to '%s': %s",
					    o->tmp, o->path, strerror(errno));
		cp_free(o->tmp);
		o->tmp = NULL;
		sync_dir(o->path);
	}
	o->committed = 1;
	return CP_OK;
}

int cp_output_close(struct cp_output *o, struct cp_error *err)
{
	int rc = cp_output_commit(o, err);

	if (rc) {
		cp_output_abort(o);
		return rc;
	}
	if (!o->borrowed && o->fd >= 0 && close(o->fd) < 0) {
		o->fd = -1;
		rc = out_fail(err, "write", o->name);
	}
	o->fd = -1;
	cp_free(o->path);   /* realpath's malloc or cp_malloc: plain free */
	o->path = NULL;
	return rc;
}

void cp_output_abort(struct cp_output *o)
{
	if (!o->borrowed && o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmp) {
		(void)unlink(o->tmp);
		cp_free(o->tmp);
		o->tmp = NULL;
	}
	cp_free(o->path);
	o->path = NULL;
}

int cp_write_file_atomic(const char *path, const char *data, size_t size,
			 struct cp_error *err)
{
	struct cp_output o;
	int rc;

	if ((rc = cp_output_open(&o, path, err)))
		return rc;
	if ((rc = cp_output_write(&o, data, size, err))) {
		cp_output_abort(&o);
		return rc;
	}
	return cp_output_close(&o, err);
}

/* ==== outputs that are inputs ==== */

/* What a path names, for comparison: its file (st), or for an output
 * that does not exist yet its directory (st) and name. */
struct ident {
	struct stat st;
	const char *name;           /* NULL: st is the file itself */
	char *own;                  /* cp_malloc'd, behind name */
};

/* 1 when u is to be compared (a regular file, or a new output), 0 when
 * not (standard output, a named descriptor, a device, a FIFO, an input
 * that cannot be read: its own error comes later); < 0 out of memory. */
static int identify(const struct cp_file_use *u, struct ident *id)
{
	char *real, *dir;
	const char *base;
	int rc;

	memset(id, 0, sizeof *id);
	if (!u->path || !strcmp(u->path, "-") || (u->output && named_fd(u->path) >= 0))
		return 0;
	if (stat(u->path, &id->st) == 0)
		return S_ISREG(id->st.st_mode);
	if (!u->output || errno != ENOENT)
		return 0;
	if (!(real = resolve_links(u->path, &rc, NULL)))
		return rc == CP_ENOMEM ? -1 : 0;
	base = strrchr(real, '/');
	base = base ? base + 1 : real;
	if (!(dir = dir_of(real))) {
		cp_free(real);
		return -1;
	}
	rc = stat(dir, &id->st) == 0;
	cp_free(dir);
	id->own = real;
	id->name = base;
	return rc;
}

static int same(const struct ident *a, const struct ident *b)
{
	if (!a->name != !b->name || a->st.st_dev != b->st.st_dev ||
	    a->st.st_ino != b->st.st_ino)
		return 0;
	return !a->name || !strcmp(a->name, b->name);
}

int cp_files_distinct(const struct cp_file_use *u, size_t n,
		      struct cp_error *err)
{
	struct ident *id = cp_calloc(n, sizeof *id);
	int *use = cp_calloc(n, sizeof *use);
	size_t i, j;
	int rc = CP_OK;

	if (!id || !use) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++)
		if ((use[i] = identify(&u[i], &id[i])) < 0) {
			rc = cp_error_set(err, CP_ENOMEM, "out of memory");
			goto out;
		}
	/* every output against every input and every earlier output */
	for (i = 0; i < n && !rc; i++) {
		if (!use[i] || !u[i].output)
			continue;
		for (j = 0; j < n && !rc; j++) {
			if (j == i || !use[j] || (u[j].output && j > i) ||
			    !same(&id[i], &id[j]))
				continue;
			rc = cp_error_set(err, CP_EINPUT, "%s '%s' and %s '%s' are the "
					  "same file", u[j].what, u[j].path,
					  u[i].what, u[i].path);
		}
	}
out:
	for (i = 0; id && i < n; i++)
		cp_free(id[i].own);
	cp_free(id);
	cp_free(use);
	return rc;
}

/* ==== locks ==== */

int cp_lock_acquire(struct cp_lock *l, const char *path, unsigned flags,
		    struct cp_error *err)
{
	memset(l, 0, sizeof *l);
	l->fd = -1;
	for (;;) {
		struct stat held, now;
		int fd = open(path, O_RDONLY | O_CLOEXEC), created = 0, rc;

		if (fd < 0 && errno == ENOENT && (flags & CP_LOCK_CREATE)) {
			char *real = resolve_links(path, &rc, err);

			if (!real)
				return rc;
			fd = open(real, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
			cp_free(real);
			if (fd < 0 && errno == EEXIST)
				continue;           /* another made it: lock that */
			created = fd >= 0;
		}
		if (fd < 0)
			return cp_error_set(err, CP_EIO, "cannot read '%s': %s", path,
					    strerror(errno));
		while ((rc = flock(fd, LOCK_EX | ((flags & CP_LOCK_NOWAIT) ? LOCK_NB : 0))) < 0 &&
		       errno == EINTR)
			;
		if (rc < 0) {
			int e = errno;

			close(fd);
			if (e == EWOULDBLOCK)
				return 1;
			return cp_error_set(err, CP_EIO, "cannot lock '%s': %s", path,
					    strerror(e));
		}
		/* the file may have been replaced (renamed over) or removed
		 * while we waited: then lock the one there now */
		if (fstat(fd, &held) == 0 && stat(path, &now) == 0 &&
		    held.st_dev == now.st_dev && held.st_ino == now.st_ino) {
			if (!(l->path = cp_strdup(path))) {
				close(fd);
				return cp_error_set(err, CP_ENOMEM, "out of memory");
			}
			l->fd = fd;
			l->created = created;
			return CP_OK;
		}
		close(fd);
	}
}

void cp_lock_release(struct cp_lock *l)
{
	struct stat held, now;

	if (l->fd < 0)
		return;
	/* a file made only to be locked, still empty: as if never made */
	if (l->created && fstat(l->fd, &held) == 0 && held.st_size == 0 &&
	    stat(l->path, &now) == 0 && held.st_dev == now.st_dev &&
	    held.st_ino == now.st_ino)
		(void)unlink(l->path);
	close(l->fd);
	l->fd = -1;
	cp_free(l->path);
	l->path = NULL;
}

/* ==== reading ==== */

#define LINES_BLOCK 65536

int cp_lines_open(struct cp_lines *r, const char *path, struct cp_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		memset(r, 0, sizeof *r);
		r->fd = -1;
		return cp_error_set(err, CP_EIO, "cannot read '%s': %s", path,
				    strerror(errno));
	}
	cp_lines_fd(r, fd, path);
	r->own_fd = 1;
	return CP_OK;
}

void cp_lines_fd(struct cp_lines *r, int fd, const char *name)
{
	struct stat st;

	memset(r, 0, sizeof *r);
	r->fd = fd;
	r->name = name;
	r->regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

/* Append [p, p + n) to the line. */
static int line_add(struct cp_lines *r, const char *p, size_t n)
{
	if (r->len + n + 1 > r->line_cap) {
		size_t cap = r->line_cap ? r->line_cap : 256;
		char *nl;

		while (cap < r->len + n + 1)
			cap *= 2;
		if (!(nl = cp_realloc(r->line, cap)))
			return CP_ENOMEM;
		r->line = nl;
		r->line_cap = cap;
	}
	memcpy(r->line + r->len, p, n);
	r->len += n;
	r->line[r->len] = '\0';
	return CP_OK;
}

int cp_lines_next(struct cp_lines *r, struct cp_error *err)
{
	int any = 0;

	if (r->eof)
		return 0;
	if (!r->buf && !(r->buf = cp_malloc(LINES_BLOCK)))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	r->len = 0;
	if (r->line)
		r->line[0] = '\0';
	r->lineno++;
	for (;;) {
		const char *p = r->buf + r->start, *nl, *nul;
		size_t n = r->end - r->start, take;
		ssize_t got;

		if (n) {
			any = 1;
			nl = memchr(p, '\n', n);
			take = nl ? (size_t)(nl - p) : n;
			if ((nul = memchr(p, '\0', take)) != NULL)
				return cp_error_at(err, CP_EINPUT, r->name, (unsigned)r->lineno,
						   (unsigned)(r->len + (size_t)(nul - p) + 1),
						   "not a text file (NUL byte)");
			if (!r->regular && r->len + take > CP_LINE_MAX_STREAM)
				return cp_error_at(err, CP_ELIMIT, r->name, (unsigned)r->lineno, 0,
						   "line longer than %d MB (from a pipe or a "
						   "device: stopped reading)",
						   CP_LINE_MAX_STREAM >> 20);
			if (line_add(r, p, take))
				return cp_error_set(err, CP_ENOMEM, "out of memory");
			r->start += take + (nl != NULL);
			if (nl)
				return 1;
			continue;
		}
		r->start = r->end = 0;
		do
			got = read(r->fd, r->buf, LINES_BLOCK);
		while (got < 0 && errno == EINTR);
		if (got < 0)
			return cp_error_set(err, CP_EIO, "cannot read '%s': %s", r->name,
					    strerror(errno));
		if (got == 0) {
			r->eof = 1;
			if (!any)
				r->lineno--;
			return any;
		}
		r->end = (size_t)got;
	}
}

void cp_lines_close(struct cp_lines *r)
{
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	cp_free(r->buf);
	cp_free(r->line);
	r->buf = r->line = NULL;
}

uint64_t cp_stream_max(void)
{
	const char *env = getenv("COUNTERPOINT_STREAM_MAX");
	char *end;
	unsigned long long v;

	if (!env || !*env)
		return CP_STREAM_MAX;
	v = strtoull(env, &end, 10);
	return *end || !v ? CP_STREAM_MAX : (uint64_t)v;
}

const char *cp_stream_max_text(char buf[32])
{
	uint64_t n = cp_stream_max();

	if (n >= (1u << 30) && !(n & ((1u << 30) - 1)))
		snprintf(buf, 32, "%llu GB", (unsigned long long)(n >> 30));
	else if (n >= (1u << 20) && !(n & ((1u << 20) - 1)))
		snprintf(buf, 32, "%llu MB", (unsigned long long)(n >> 20));
	else
		snprintf(buf, 32, "%llu bytes", (unsigned long long)n);
	return buf;
}

int cp_read_text(const char *path, size_t max, unsigned flags, char **text,
		 size_t *len, struct cp_error *err)
{
	struct stat st;
	size_t n = 0, cap = 0;
	char *buf = NULL;
	int in = !strcmp(path, "-"), fd, regular, rc = CP_OK;

	*text = NULL;
	*len = 0;
	if (in)
		path = "standard input";
	if ((fd = in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return cp_error_set(err, CP_EIO, "cannot open '%s': %s", path,
				    strerror(errno));
	regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	for (;;) {
		ssize_t got;
		const char *nul;

		if (cap - n < LINES_BLOCK) {
			char *nb;

			cap = cap ? 2 * cap : LINES_BLOCK + 1;
			if (!(nb = cp_realloc(buf, cap))) {
				rc = cp_error_set(err, CP_ENOMEM, "out of memory reading '%s'",
						  path);
				goto out;
			}
			buf = nb;
		}
		do
			got = read(fd, buf + n, cap - n - 1);
		while (got < 0 && errno == EINTR);
		if (got < 0) {
			rc = cp_error_set(err, CP_EIO, "cannot read '%s': %s", path,
					  strerror(errno));
			goto out;
		}
		if (got == 0)
			break;
		nul = memchr(buf + n, '\0', (size_t)got);
		n += (size_t)got;
		if (nul && (flags & CP_TEXT_NO_NUL)) {
			const char *p;
			unsigned line = 1, col = 1;

			for (p = buf; p < nul; p++, col++)
				if (*p == '\n') {
					line++;
					col = 0;
				}
			rc = cp_error_at(err, CP_EINPUT, path, line, col,
					 "not a text file (NUL byte)");
			goto out;
		}
		/* a text has no NUL byte: what a device gives after one is not
		 * read, nor kept (the caller reports the byte) */
		if (nul && !regular) {
			n = (size_t)(nul - buf) + 1;
			break;
		}
		if (!regular && n > max) {
			rc = cp_error_set(err, CP_ELIMIT, "'%s' gives more than %zu MB "
					  "(a pipe or a device: stopped reading)", path,
					  max >> 20);
			goto out;
		}
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	buf = NULL;
out:
	cp_free(buf);
	if (!in)
		close(fd);
	return rc;
}
