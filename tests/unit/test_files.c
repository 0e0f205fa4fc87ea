/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_files.c: common/files.c: outputs that are inputs, a
 * hard-linked target on a full disk, stale temporary files, locks for
 * appends, and the readers (lines of any length, NUL bytes, endless
 * pipes and devices). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cp.h"
#include "check.h"

static char dir[] = "/tmp/cp-files-XXXXXX";

static const char *at(const char *name)
{
	static char buf[64][256];
	static int k;

	k = (k + 1) % 64;
	snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
	return buf[k];
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* path's content (static), or "(unreadable)". */
static const char *content(const char *path)
{
	static char got[256 << 10];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return "(unreadable)";
	n = fread(got, 1, sizeof got - 1, f);
	got[n] = '\0';
	fclose(f);
	return got;
}

/* An output against the inputs and the other outputs, by device and inode:
 * the same file under another name, a hard link, a symlink, a new file
 * named twice; standard output, devices and different files pass. */
static void test_distinct(void)
{
	struct cp_error err;
	struct cp_file_use u[3] = {
		{ "MODEL", NULL, 0 }, { "DATA", NULL, 0 }, { "-o", NULL, 1 }
	};
	char rel[300];
	int rc;

	put(at("m.udd"), "model\n");
	put(at("d.csv"), "data\n");
	put(at("other.csv"), "other\n");
	CHECK(link(at("d.csv"), at("hard.csv")) == 0);
	CHECK(symlink("d.csv", at("sym.csv")) == 0);
	CHECK(symlink("new-target.csv", at("dangling.csv")) == 0);
	u[0].path = at("m.udd");
	u[1].path = at("d.csv");
	cp_error_clear(&err);

	u[2].path = at("d.csv");
	CHECK(cp_files_distinct(u, 3, &err) == CP_EINPUT);
	snprintf(rel, sizeof rel, "DATA '%s' and -o '%s' are the same file",
		 at("d.csv"), at("d.csv"));
	CHECK_STR(err.msg, rel);
	u[2].path = at("hard.csv");
	CHECK(cp_files_distinct(u, 3, &err) == CP_EINPUT);
	u[2].path = at("sym.csv");
	CHECK(cp_files_distinct(u, 3, &err) == CP_EINPUT);
	snprintf(rel, sizeof rel, "%s/../%s/m.udd", dir, strrchr(dir, '/') + 1);
	u[2].path = rel;
	CHECK(cp_files_distinct(u, 3, &err) == CP_EINPUT);
	u[2].path = at("other.csv");
	CHECK(cp_files_distinct(u, 3, &err) == CP_OK);
	u[2].path = at("new.csv");
	CHECK(cp_files_distinct(u, 3, &err) == CP_OK);
	u[2].path = "-";
	CHECK(cp_files_distinct(u, 3, &err) == CP_OK);
	u[2].path = "/dev/null";
	CHECK(cp_files_distinct(u, 3, &err) == CP_OK);

	/* two outputs: a new file named twice, by a dangling link too */
	u[0] = (struct cp_file_use){ "-o", at("new.csv"), 1 };
	u[1] = (struct cp_file_use){ "--dot", at("new.csv"), 1 };
	u[2] = (struct cp_file_use){ "--html", at("x.html"), 1 };
	CHECK(cp_files_distinct(u, 3, &err) == CP_EINPUT);
	snprintf(rel, sizeof rel, "-o '%s' and --dot '%s' are the same file",
		 at("new.csv"), at("new.csv"));
	CHECK_STR(err.msg, rel);
	snprintf(rel, sizeof rel, "%s/./new.csv", dir);
	u[1].path = rel;
	CHECK(cp_files_distinct(u, 3, &err) == CP_EINPUT);
	u[0].path = at("dangling.csv");
	u[1].path = at("new-target.csv");
	CHECK(cp_files_distinct(u, 3, &err) == CP_EINPUT);
	u[1].path = at("y.dot");
	CHECK(cp_files_distinct(u, 3, &err) == CP_OK);
	u[0].path = u[1].path = "/dev/null";
	CHECK(cp_files_distinct(u, 3, &err) == CP_OK);
	u[0].path = u[1].path = "/dev/stdout";
	CHECK(cp_files_distinct(u, 3, &err) == CP_OK);
	rc = cp_files_distinct(u, 0, &err);
	CHECK(rc == CP_OK);
}

/* A target with two hard links is rewritten in place; when the space
 * cannot be had (here a file size limit, as a full disk), both names
 * keep the old content and the temporary file is gone. */
static void test_links_full(void)
{
	struct cp_output o;
	struct cp_error err;
	struct rlimit old, lim;
	char *big = cp_malloc(100000);
	struct sigaction ign, prev;

	memset(big, 'n', 100000);
	put(at("l1.csv"), "old\n");
	CHECK(link(at("l1.csv"), at("l2.csv")) == 0);
	cp_error_clear(&err);
	CHECK(cp_output_open(&o, at("l1.csv"), &err) == CP_OK);
	CHECK(cp_output_write(&o, big, 100000, &err) == CP_OK);
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigaction(SIGXFSZ, &ign, &prev);
	CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
	lim = old;
	lim.rlim_cur = 8192;
	CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	CHECK(cp_output_commit(&o, &err) == CP_EIO);
	CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
	sigaction(SIGXFSZ, &prev, NULL);
	CHECK(strstr(err.msg, "the file is as it was") != NULL);
	cp_output_abort(&o);
	CHECK_STR(content(at("l1.csv")), "old\n");
	CHECK_STR(content(at("l2.csv")), "old\n");
	/* with the space: both names see the new content, and writes after
	 * the commit go to the target itself */
	CHECK(cp_output_open(&o, at("l1.csv"), &err) == CP_OK);
	CHECK(cp_output_write(&o, "new\n", 4, &err) == CP_OK);
	CHECK(cp_output_commit(&o, &err) == CP_OK);
	CHECK_STR(content(at("l2.csv")), "new\n");
	CHECK(cp_output_write(&o, "more\n", 5, &err) == CP_OK);
	CHECK(cp_output_close(&o, &err) == CP_OK);
	CHECK_STR(content(at("l2.csv")), "new\nmore\n");
	CHECK(access(at("l1.csv.tmp.0"), F_OK) != 0);
	cp_free(big);
}

/* Nothing is replaced before the commit; an abort leaves the old file. */
static void test_commit_abort(void)
{
	struct cp_output o;
	struct cp_error err;

	put(at("keep.csv"), "kept\n");
	cp_error_clear(&err);
	CHECK(cp_output_open(&o, at("keep.csv"), &err) == CP_OK);
	CHECK(cp_output_write(&o, "half", 4, &err) == CP_OK);
	CHECK_STR(content(at("keep.csv")), "kept\n");
	cp_output_abort(&o);
	CHECK_STR(content(at("keep.csv")), "kept\n");
	CHECK(cp_output_open(&o, at("keep.csv"), &err) == CP_OK);
	CHECK(cp_output_write(&o, "one\n", 4, &err) == CP_OK);
	CHECK(cp_output_commit(&o, &err) == CP_OK);
	CHECK_STR(content(at("keep.csv")), "one\n");
	CHECK(cp_output_write(&o, "two\n", 4, &err) == CP_OK);
	CHECK_STR(content(at("keep.csv")), "one\ntwo\n");
	CHECK(cp_output_close(&o, &err) == CP_OK);
}

/* The temporary files of writers that were killed (kill -9 leaves them)
 * go when the target is next written; a live process's, another
 * target's and other names stay. */
static void test_stale_temps(void)
{
	struct cp_error err;
	char name[128];
	pid_t dead = fork();

	if (dead == 0)
		_exit(0);
	CHECK(dead > 0 && waitpid(dead, NULL, 0) == dead);
	snprintf(name, sizeof name, "t.csv.tmp.%ld.3", (long)dead);
	put(at(name), "stale");
	put(at("t.csv.tmp.1.0"), "pid 1 lives");
	snprintf(name, sizeof name, "u.csv.tmp.%ld.0", (long)dead);
	put(at(name), "another target's");
	put(at("t.csv.tmp.notes"), "not a temporary file");
	cp_error_clear(&err);
	CHECK(cp_write_file_atomic(at("t.csv"), "t\n", 2, &err) == CP_OK);
	snprintf(name, sizeof name, "t.csv.tmp.%ld.3", (long)dead);
	CHECK(access(at(name), F_OK) != 0);
	CHECK(access(at("t.csv.tmp.1.0"), F_OK) == 0);
	snprintf(name, sizeof name, "u.csv.tmp.%ld.0", (long)dead);
	CHECK(access(at(name), F_OK) == 0);
	CHECK(access(at("t.csv.tmp.notes"), F_OK) == 0);
	CHECK_STR(content(at("t.csv")), "t\n");
}

/* A lock is exclusive; one made on a new file goes with the file when it
 * stays empty; a waiter whose file was renamed over locks the new one. */
static void test_lock(void)
{
	struct cp_lock a, b;
	struct cp_error err;
	int pipefd[2], status;
	pid_t child;

	cp_error_clear(&err);
	CHECK(cp_lock_acquire(&a, at("lk.csv"), 0, &err) == CP_EIO);
	CHECK(cp_lock_acquire(&a, at("lk.csv"), CP_LOCK_CREATE, &err) == CP_OK);
	CHECK(a.created && access(at("lk.csv"), F_OK) == 0);
	CHECK(cp_lock_acquire(&b, at("lk.csv"), CP_LOCK_NOWAIT, &err) == 1);
	cp_lock_release(&a);
	CHECK(access(at("lk.csv"), F_OK) != 0);

	put(at("lk.csv"), "v1\n");
	CHECK(cp_lock_acquire(&a, at("lk.csv"), 0, &err) == CP_OK && !a.created);
	CHECK(pipe(pipefd) == 0);
	child = fork();
	if (child == 0) {
		struct cp_lock c;
		char go;

		close(pipefd[1]);
		close(a.fd);     /* the parent's lock is shared across fork */
		if (read(pipefd[0], &go, 1) != 1)
			_exit(3);
		/* waits for the parent, then must hold the file there now */
		if (cp_lock_acquire(&c, at("lk.csv"), 0, NULL) != CP_OK)
			_exit(2);
		_exit(strcmp(content(at("lk.csv")), "v2\n") ? 1 : 0);
	}
	close(pipefd[0]);
	CHECK(write(pipefd[1], "g", 1) == 1);
	usleep(100000);
	put(at("lk.new"), "v2\n");
	CHECK(rename(at("lk.new"), at("lk.csv")) == 0);
	cp_lock_release(&a);
	close(pipefd[1]);
	CHECK(waitpid(child, &status, 0) == child);
	CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
}

/* Lines of any length, the last without a newline, numbered; a NUL byte
 * an error at its line and column; a directory an error. */
static void test_lines(void)
{
	struct cp_lines r;
	struct cp_error err;
	char *long_line = cp_malloc(300002);
	FILE *f;

	memset(long_line, 'x', 300000);
	long_line[300000] = '\0';
	f = fopen(at("lines.txt"), "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "first\r\n%s\n\nlast", long_line);
	fclose(f);
	cp_error_clear(&err);
	CHECK(cp_lines_open(&r, at("lines.txt"), &err) == CP_OK);
	CHECK(cp_lines_next(&r, &err) == 1 && r.lineno == 1);
	CHECK_STR(r.line, "first\r");
	CHECK(cp_lines_next(&r, &err) == 1 && r.lineno == 2 && r.len == 300000);
	CHECK(cp_lines_next(&r, &err) == 1 && r.lineno == 3 && r.len == 0);
	CHECK(cp_lines_next(&r, &err) == 1 && r.lineno == 4);
	CHECK_STR(r.line, "last");
	CHECK(cp_lines_next(&r, &err) == 0);
	CHECK(cp_lines_next(&r, &err) == 0);
	cp_lines_close(&r);

	f = fopen(at("nul.txt"), "w");
	CHECK(f != NULL);
	if (f) {
		fwrite("a\nbc\0d\n", 1, 7, f);
		fclose(f);
	}
	CHECK(cp_lines_open(&r, at("nul.txt"), &err) == CP_OK);
	CHECK(cp_lines_next(&r, &err) == 1);
	CHECK(cp_lines_next(&r, &err) == CP_EINPUT);
	CHECK(err.line == 2 && err.col == 3);
	CHECK_STR(err.msg, "not a text file (NUL byte)");
	cp_lines_close(&r);

	CHECK(cp_lines_open(&r, dir, &err) == CP_OK);
	CHECK(cp_lines_next(&r, &err) == CP_EIO);
	CHECK(strstr(err.msg, "Is a directory") != NULL);
	cp_lines_close(&r);

	/* /dev/zero: the first byte */
	CHECK(cp_lines_open(&r, "/dev/zero", &err) == CP_OK);
	CHECK(cp_lines_next(&r, &err) == CP_EINPUT && err.line == 1 && err.col == 1);
	cp_lines_close(&r);
	cp_free(long_line);
}

/* A child that writes c into a new pipe until it is closed; p[0] is the
 * read end. */
static pid_t endless_writer(int p[2], char c)
{
	pid_t child;

	CHECK(pipe(p) == 0);
	child = fork();
	if (child == 0) {
		static char x[65536];

		close(p[0]);
		memset(x, c, sizeof x);
		for (;;)
			if (write(p[1], x, sizeof x) < 0)
				_exit(0);
	}
	close(p[1]);
	return child;
}

/* A pipe that never sends a newline stops at CP_LINE_MAX_STREAM. */
static void test_lines_endless(void)
{
	struct cp_lines r;
	struct cp_error err;
	int p[2], status;
	pid_t child;

	child = endless_writer(p, 'y');
	cp_lines_fd(&r, p[0], "pipe");
	cp_error_clear(&err);
	CHECK(cp_lines_next(&r, &err) == CP_ELIMIT);
	CHECK(strstr(err.msg, "line longer than 16 MB") != NULL && err.line == 1);
	cp_lines_close(&r);
	close(p[0]);
	CHECK(waitpid(child, &status, 0) == child);
}

/* A whole text: a NUL byte refused at its place on request; from a
 * device, reading stops at the first NUL; more than max from a pipe is
 * an error. */
static void test_read_text(void)
{
	struct cp_error err;
	char *text;
	size_t len;
	int p[2], status;
	pid_t child;
	FILE *f = fopen(at("t.txt"), "w");

	CHECK(f != NULL);
	if (f) {
		fwrite("ab\ncd\0e\n", 1, 8, f);
		fclose(f);
	}
	cp_error_clear(&err);
	CHECK(cp_read_text(at("t.txt"), 1 << 20, 0, &text, &len, &err) == CP_OK);
	CHECK(len == 8 && text[8] == '\0');
	cp_free(text);
	CHECK(cp_read_text(at("t.txt"), 1 << 20, CP_TEXT_NO_NUL, &text, &len,
			   &err) == CP_EINPUT);
	CHECK(err.line == 2 && err.col == 3 && !text);
	CHECK(cp_read_text("/dev/zero", 1 << 20, 0, &text, &len, &err) == CP_OK);
	CHECK(len > 0 && len <= (1 << 20) && text[0] == '\0');
	cp_free(text);
	CHECK(cp_read_text("/dev/zero", 1 << 20, CP_TEXT_NO_NUL, &text, &len,
			   &err) == CP_EINPUT);

	child = endless_writer(p, 'z');
	{
		char name[64];

		snprintf(name, sizeof name, "/dev/fd/%d", p[0]);
		CHECK(cp_read_text(name, 1 << 20, 0, &text, &len, &err) == CP_ELIMIT);
		CHECK(strstr(err.msg, "gives more than 1 MB") != NULL);
	}
	close(p[0]);
	CHECK(waitpid(child, &status, 0) == child);
}

int main(void)
{
	check_prog = "files";
	signal(SIGPIPE, SIG_IGN);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_distinct);
	RUN(test_links_full);
	RUN(test_commit_abort);
	RUN(test_stale_temps);
	RUN(test_lock);
	RUN(test_lines);
	RUN(test_lines_endless);
	RUN(test_read_text);
	{
		char cmd[128];

		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("  could not remove %s\n", dir);
	}
	return check_summary();
}
