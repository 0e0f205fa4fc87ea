/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_common.c: error records, buffers, allocation failure
 * injection and atomic writes. */
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cp.h"
#include "check.h"

static void test_error_format(void)
{
	struct cp_error err;
	char line[2048];

	cp_error_clear(&err);
	CHECK(cp_error_at(&err, CP_EINPUT, "data.csv", 12, 0,
			  "running_ns (%d) exceeds enabled_ns (%d)", 12, 10) == CP_EINPUT);
	cp_error_format(&err, line, sizeof line);
	CHECK_STR(line, "data.csv:12: running_ns (12) exceeds enabled_ns (10)");
	cp_error_at(&err, CP_ESEMANTIC, "m.udd", 3, 9, "unknown counter 'x'");
	cp_error_format(&err, line, sizeof line);
	CHECK_STR(line, "m.udd:3:9: unknown counter 'x'");
	cp_error_set(&err, CP_ENOMEM, "out of memory");
	cp_error_format(&err, line, sizeof line);
	CHECK_STR(line, "out of memory");
	CHECK(cp_error_set(NULL, CP_EIO, "ignored") == CP_EIO);
	CHECK_STR(cp_code_str(CP_ELIMIT), "limit reached");
}

static void test_buf(void)
{
	struct cp_buf b;
	int i;

	cp_buf_init(&b);
	for (i = 0; i < 1000; i++)
		cp_buf_printf(&b, "%d,", i);
	CHECK(!b.failed);
	CHECK(b.len == 3890);
	CHECK(!strncmp(b.data, "0,1,2,", 6));
	cp_buf_release(&b);
	cp_buf_init(&b);
	cp_alloc_fail_at(1);
	cp_buf_puts(&b, "x");
	CHECK(b.failed);
	cp_buf_puts(&b, "y");
	CHECK(b.len == 0);
	cp_buf_release(&b);
	cp_alloc_fail_at(0);
}

static void test_alloc_fail(void)
{
	void *p;

	cp_alloc_fail_at(2);
	p = cp_malloc(8);
	CHECK(p != NULL);
	cp_free(p);
	CHECK(cp_malloc(8) == NULL);
	p = cp_malloc(8);
	CHECK(p != NULL);
	cp_free(p);
	CHECK(cp_reallocarray(NULL, SIZE_MAX / 2, 4) == NULL);
}

static void test_atomic_write(void)
{
	char dir[] = "/tmp/cp-test-XXXXXX";
	char path[128], got[64];
	struct cp_error err;
	FILE *f;
	size_t n;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/out.txt", dir);
	cp_error_clear(&err);
	CHECK(cp_write_file_atomic(path, "hello\n", 6, &err) == CP_OK);
	f = fopen(path, "r");
	CHECK(f != NULL);
	if (f) {
		n = fread(got, 1, sizeof got - 1, f);
		got[n] = '\0';
		fclose(f);
		CHECK_STR(got, "hello\n");
	}
	unlink(path);
	/* a missing directory fails cleanly and leaves nothing behind */
	snprintf(path, sizeof path, "%s/no/such/out.txt", dir);
	CHECK(cp_write_file_atomic(path, "x", 1, &err) == CP_EIO);
	CHECK(strstr(err.msg, "cannot create") != NULL);
	rmdir(dir);
}

/* cp_read_file: a file larger than one read chunk appended whole; a
 * missing file or a directory named in the message. */
static void test_read_file(void)
{
	char dir[] = "/tmp/cp-test-XXXXXX";
	char path[128];
	static char big[200000];
	struct cp_error err;
	struct cp_buf b;
	size_t i;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/in.txt", dir);
	for (i = 0; i < sizeof big; i++)
		big[i] = (char)('a' + i % 26);
	cp_error_clear(&err);
	CHECK(cp_write_file_atomic(path, big, sizeof big, &err) == CP_OK);
	cp_buf_init(&b);
	cp_buf_puts(&b, "x");
	CHECK(cp_read_file(path, &b, &err) == CP_OK);
	CHECK(b.len == sizeof big + 1 && !memcmp(b.data + 1, big, sizeof big));
	cp_buf_release(&b);
	unlink(path);
	cp_buf_init(&b);
	CHECK(cp_read_file(path, &b, &err) == CP_EIO);
	CHECK(strstr(err.msg, "cannot open '/tmp/cp-test-") != NULL &&
	      strstr(err.msg, "No such file or directory") != NULL);
	CHECK(cp_read_file(dir, &b, &err) == CP_EIO);
	CHECK(strstr(err.msg, "Is a directory") != NULL);
	cp_buf_release(&b);
	rmdir(dir);
}

/* Read a whole small file into got (NUL-terminated); -1 if unreadable. */
static int slurp(const char *path, char *got, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(got, 1, size - 1, f);
	got[n] = '\0';
	fclose(f);
	return 0;
}

/* An existing regular file keeps its mode, owner and hard links; a new
 * file gets the umask's mode. */
static void test_atomic_write_keeps_file(void)
{
	char dir[] = "/tmp/cp-test-XXXXXX";
	char path[128], link2[128], got[64];
	struct cp_error err;
	struct stat st, st2;
	mode_t old = umask(022);

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/out.txt", dir);
	snprintf(link2, sizeof link2, "%s/other-name.txt", dir);
	cp_error_clear(&err);
	CHECK(cp_write_file_atomic(path, "one\n", 4, &err) == CP_OK);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0644);
	CHECK(chmod(path, 0600) == 0);
	CHECK(cp_write_file_atomic(path, "two\n", 4, &err) == CP_OK);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600);
	CHECK(slurp(path, got, sizeof got) == 0);
	CHECK_STR(got, "two\n");
	/* a second hard link sees the new contents too */
	CHECK(link(path, link2) == 0);
	CHECK(cp_write_file_atomic(path, "three\n", 6, &err) == CP_OK);
	CHECK(slurp(link2, got, sizeof got) == 0);
	CHECK_STR(got, "three\n");
	CHECK(stat(path, &st) == 0 && stat(link2, &st2) == 0);
	CHECK(st.st_ino == st2.st_ino && st.st_nlink == 2);
	CHECK((st.st_mode & 07777) == 0600);
	unlink(link2);
	unlink(path);
	rmdir(dir);
	umask(old);
}

/* A symlink stays a symlink: its target is written (atomically, beside
 * the target), keeping the target's mode; a dangling link's target is
 * created. */
static void test_atomic_write_symlink(void)
{
	char dir[] = "/tmp/cp-test-XXXXXX";
	char sub[128], target[160], lnk[128], dangling[128], got[64];
	struct cp_error err;
	struct stat st;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(sub, sizeof sub, "%s/sub", dir);
	snprintf(target, sizeof target, "%s/sub/data.csv", dir);
	snprintf(lnk, sizeof lnk, "%s/link.csv", dir);
	snprintf(dangling, sizeof dangling, "%s/dangling.csv", dir);
	CHECK(mkdir(sub, 0755) == 0);
	CHECK(cp_write_file_atomic(target, "old\n", 4, &err) == CP_OK);
	CHECK(chmod(target, 0640) == 0);
	CHECK(symlink("sub/data.csv", lnk) == 0);
	cp_error_clear(&err);
	CHECK(cp_write_file_atomic(lnk, "new\n", 4, &err) == CP_OK);
	CHECK(lstat(lnk, &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(stat(target, &st) == 0 && (st.st_mode & 07777) == 0640);
	CHECK(slurp(target, got, sizeof got) == 0);
	CHECK_STR(got, "new\n");
	CHECK(symlink("sub/made.csv", dangling) == 0);
	CHECK(cp_write_file_atomic(dangling, "made\n", 5, &err) == CP_OK);
	CHECK(lstat(dangling, &st) == 0 && S_ISLNK(st.st_mode));
	snprintf(target, sizeof target, "%s/sub/made.csv", dir);
	CHECK(slurp(target, got, sizeof got) == 0);
	CHECK_STR(got, "made\n");
	unlink(target);
	unlink(dangling);
	unlink(lnk);
	snprintf(target, sizeof target, "%s/sub/data.csv", dir);
	unlink(target);
	rmdir(sub);
	rmdir(dir);
}

/* Character devices and FIFOs are written in place, never replaced. */
static void test_atomic_write_devices(void)
{
	char dir[] = "/tmp/cp-test-XXXXXX";
	char fifo[128], full[128], got[64];
	struct cp_error err;
	struct stat st;
	pid_t pid;
	int status = 0;

	/* device nodes of our own where we may make them (root), so that a
	 * broken writer replaces nothing of the system's */
	cp_error_clear(&err);
	CHECK(mkdtemp(dir) != NULL);
	snprintf(full, sizeof full, "%s/null", dir);
	if (mknod(full, S_IFCHR | 0666, makedev(1, 3)) == 0) {
		CHECK(cp_write_file_atomic(full, "x\n", 2, &err) == CP_OK);
		CHECK(lstat(full, &st) == 0 && S_ISCHR(st.st_mode));
		unlink(full);
	} else {
		CHECK(cp_write_file_atomic("/dev/null", "x\n", 2, &err) == CP_OK);
		CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
	}
	snprintf(fifo, sizeof fifo, "%s/pipe", dir);
	CHECK(mkfifo(fifo, 0600) == 0);
	pid = fork();
	if (pid == 0) {   /* the reader: copies what arrives into a file */
		char buf[64], out[160];
		FILE *in, *o;
		size_t n;

		alarm(20);   /* a writer that replaced the FIFO never comes */
		in = fopen(fifo, "r");
		n = in ? fread(buf, 1, sizeof buf, in) : 0;

		snprintf(out, sizeof out, "%s/read", dir);
		o = fopen(out, "w");
		if (!o || fwrite(buf, 1, n, o) != n)
			_exit(1);
		_exit(fclose(o) != 0);
	}
	CHECK(cp_write_file_atomic(fifo, "through\n", 8, &err) == CP_OK);
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && status == 0);
	CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
	snprintf(full, sizeof full, "%s/read", dir);
	CHECK(slurp(full, got, sizeof got) == 0);
	CHECK_STR(got, "through\n");
	unlink(full);
	unlink(fifo);
	/* a device that refuses the write: its error, and it stays a device */
	snprintf(full, sizeof full, "%s/full", dir);
	if (mknod(full, S_IFCHR | 0666, makedev(1, 7)) == 0) {
		CHECK(cp_write_file_atomic(full, "x", 1, &err) == CP_EIO);
		CHECKF(strstr(err.msg, "No space left on device") != NULL, "%s",
		       err.msg);
		CHECK(lstat(full, &st) == 0 && S_ISCHR(st.st_mode));
		unlink(full);
	} else {
		CHECK(cp_write_file_atomic("/dev/full", "x", 1, &err) == CP_EIO);
		CHECK(stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode));
	}
	rmdir(dir);
}

/* /dev/fd/N, /proc/self/fd/N (and /dev/stdout, /dev/stderr) are written
 * to the open descriptor itself: a pipe gets the data, a file opened for
 * appending is appended to, nothing is reopened, truncated or replaced. */
static void test_atomic_write_named_fds(void)
{
	char path[64], got[64], file[] = "/tmp/cp-test-fd-XXXXXX";
	struct cp_error err;
	int p[2], fd;
	ssize_t n;

	cp_error_clear(&err);
	CHECK(pipe(p) == 0);
	snprintf(path, sizeof path, "/dev/fd/%d", p[1]);
	CHECKF(cp_write_file_atomic(path, "pipe\n", 5, &err) == CP_OK, "%s", err.msg);
	snprintf(path, sizeof path, "/proc/self/fd/%d", p[1]);
	CHECKF(cp_write_file_atomic(path, "again\n", 6, &err) == CP_OK, "%s", err.msg);
	close(p[1]);
	n = read(p[0], got, sizeof got - 1);
	got[n > 0 ? n : 0] = '\0';
	CHECK_STR(got, "pipe\nagain\n");
	close(p[0]);
	fd = mkstemp(file);
	CHECK(fd >= 0 && write(fd, "old\n", 4) == 4);
	close(fd);
	fd = open(file, O_WRONLY | O_APPEND);
	snprintf(path, sizeof path, "/dev/fd/%d", fd);
	CHECKF(cp_write_file_atomic(path, "new\n", 4, &err) == CP_OK, "%s", err.msg);
	close(fd);
	CHECK(slurp(file, got, sizeof got) == 0);
	CHECK_STR(got, "old\nnew\n");
	unlink(file);
	CHECK(cp_write_file_atomic("/dev/fd/987", "x", 1, &err) == CP_EIO);
	CHECK_STR(err.msg, "cannot write to '/dev/fd/987': Bad file descriptor");
}

/* Directories, sockets and block devices are refused, untouched. */
static void test_atomic_write_refuses(void)
{
	char dir[] = "/tmp/cp-test-XXXXXX";
	char path[64];
	struct sockaddr_un sa;
	struct cp_error err;
	struct stat st;
	int s;

	CHECK(mkdtemp(dir) != NULL);
	cp_error_clear(&err);
	CHECK(cp_write_file_atomic(dir, "x", 1, &err) == CP_EIO);
	CHECK_STR(err.msg, "cannot write to a directory");
	CHECK_STR(err.file, dir);
	CHECK(stat(dir, &st) == 0 && S_ISDIR(st.st_mode));
	snprintf(path, sizeof path, "%s/sock", dir);
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK(s >= 0 && bind(s, (struct sockaddr *)&sa, sizeof sa) == 0);
	CHECK(cp_write_file_atomic(path, "x", 1, &err) == CP_EIO);
	CHECK_STR(err.msg, "cannot write to a socket (only to a regular file, "
		  "a character device or a FIFO)");
	CHECK(lstat(path, &st) == 0 && S_ISSOCK(st.st_mode));
	if (s >= 0)
		close(s);
	unlink(path);
	snprintf(path, sizeof path, "%s/blk", dir);
	if (mknod(path, S_IFBLK | 0600, makedev(7, 200)) == 0) {
		CHECK(cp_write_file_atomic(path, "x", 1, &err) == CP_EIO);
		CHECK_STR(err.msg, "cannot write to a block device (only to a "
			  "regular file, a character device or a FIFO)");
		CHECK(lstat(path, &st) == 0 && S_ISBLK(st.st_mode));
		unlink(path);
	}
	rmdir(dir);
}

static void test_gcd(void)
{
	CHECK(cp_gcd64(12, -18) == 6);
	CHECK(cp_gcd64(0, 0) == 0);
	CHECK(cp_gcd64(0, -7) == 7);
	CHECK(cp_gcd64(INT64_MAX, 1) == 1);
	/* |INT64_MIN| overflows int64: the gcd is taken in unsigned arithmetic */
	CHECK(cp_gcd64(INT64_MIN, 6) == 2);
	CHECK(cp_gcd64(-6, INT64_MIN) == 2);
}

static void test_closest(void)
{
	static const char *const cmds[] = { "paths", "dot", "cone", "check",
					    "flows", "explore", "help" };
	static const char *const ev[] = { "page-faults", "minor-faults",
					  "major-faults" };
	char long_word[200];

	/* substitution, deletion, insertion, transposition; case aside */
	CHECK(cp_edit_distance("check", "chack", 5) == 1);
	CHECK(cp_edit_distance("check", "chek", 5) == 1);
	CHECK(cp_edit_distance("cone", "cnoe", 5) == 1);
	CHECK(cp_edit_distance("CHECK", "check", 5) == 0);
	CHECK(cp_edit_distance("explore", "cone", 2) == 3);   /* gave up: limit + 1 */
	CHECK(cp_edit_distance("", "abc", 5) == 3);
	memset(long_word, 'a', sizeof long_word - 1);
	long_word[sizeof long_word - 1] = '\0';
	CHECK(cp_edit_distance(long_word, long_word, 5) == 6);   /* too long */
	CHECK_STR(cp_closest("chek", cmds, 7), "check");
	CHECK_STR(cp_closest("explor", cmds, 7), "explore");
	CHECK_STR(cp_closest("cnoe", cmds, 7), "cone");
	CHECK_STR(cp_closest("dott", cmds, 7), "dot");
	CHECK(cp_closest("nonsense", cmds, 7) == NULL);
	/* words of four letters or fewer: one edit only */
	CHECK(cp_closest("cxxk", cmds, 7) == NULL);
	/* two names equally close: none */
	CHECK(cp_closest("mijor-faults", ev, 3) == NULL);   /* minor and major: 1 each */
	CHECK_STR(cp_closest("maxor-faults", ev, 3), "major-faults");
	CHECK_STR(cp_closest("page-fault", ev, 3), "page-faults");
	CHECK(cp_closest("x", ev, 0) == NULL);
}

static void test_json_string(void)
{
	struct cp_buf b;

	cp_buf_init(&b);
	cp_buf_json_string(&b, "a\"b\\c\n\x01");
	CHECK_STR(b.data, "\"a\\\"b\\\\c\\n\\u0001\"");
	b.len = 0;
	/* valid UTF-8 passes; a lone byte 0xe9 (Latin-1) and an overlong
	 * encoding are escaped, so the output is valid UTF-8 */
	cp_buf_json_string(&b, "\xce\xbcop caf\xe9 \xc0\xaf");
	CHECK_STR(b.data, "\"\xce\xbcop caf\\u00e9 \\u00c0\\u00af\"");
	cp_buf_release(&b);
}

static void note(struct cp_diags *ds, size_t input, unsigned line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cp_diags_vadd(ds, input, line, fmt, ap);
	va_end(ap);
}

/* Located messages: reported in input and line order; beyond
 * CP_DIAGS_MAX only counted, also across a move. */
static void test_diags(void)
{
	static const char *const names[] = { "a.csv", "b.csv" };
	struct cp_diags ds, part;
	struct cp_error err;
	struct cp_buf b;
	size_t i;

	memset(&ds, 0, sizeof ds);
	memset(&part, 0, sizeof part);
	note(&ds, 1, 3, "third of b");
	note(&ds, 0, 9, "ninth of a");
	note(&ds, 0, 0, "all of a");
	cp_buf_init(&b);
	CHECK(cp_diags_report(&ds, names, "lines", &b, &err) == CP_EINPUT);
	CHECK_STR(err.msg, "all of a");
	CHECK_STR(b.data, "a.csv: all of a\na.csv:9: ninth of a\nb.csv:3: third of b\n");
	CHECK(strstr(err.detail, "a.csv:9: ninth of a\n") == err.detail);
	cp_buf_release(&b);
	cp_diags_release(&ds);

	for (i = 0; i < CP_DIAGS_MAX + 5; i++)
		note(&ds, 0, (unsigned)i + 2, "bad %zu", i);
	CHECK(ds.n == CP_DIAGS_MAX && ds.dropped == 5 && !ds.nomem);
	for (i = 0; i < 7; i++)
		note(&part, 0, (unsigned)i + 1, "part %zu", i);
	CHECK(cp_diags_move(&ds, &part, 1000000) == CP_OK);
	CHECK(ds.n == CP_DIAGS_MAX && ds.dropped == 12 && part.n == 0 && part.dropped == 0);
	cp_buf_init(&b);
	cp_diags_report(&ds, names, "rows", &b, &err);
	CHECK(strstr(b.data, "a.csv: 12 more bad rows not listed") != NULL);
	CHECK(strstr(err.detail, "more bad rows\n") != NULL);
	cp_buf_release(&b);
	cp_diags_release(&ds);
	cp_diags_release(&part);
}

int main(void)
{
	check_prog = "common";
	RUN(test_json_string);
	RUN(test_error_format);
	RUN(test_buf);
	RUN(test_alloc_fail);
	RUN(test_atomic_write);
	RUN(test_read_file);
	RUN(test_atomic_write_keeps_file);
	RUN(test_atomic_write_symlink);
	RUN(test_atomic_write_devices);
	RUN(test_atomic_write_named_fds);
	RUN(test_atomic_write_refuses);
	RUN(test_gcd);
	RUN(test_closest);
	RUN(test_diags);
	return check_summary();
}
