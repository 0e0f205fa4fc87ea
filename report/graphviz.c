/* SPDX-License-Identifier: GPL-3.0-or-later */
/* report/graphviz.c: a digraph drawn by Graphviz's `dot -Tsvg`, run at
 * report time: the graph goes in through a temporary file (so a large
 * drawing on the pipe can never block a large graph being written), the
 * SVG comes back on a pipe, and only its <svg> element is kept, to be
 * inlined in the page. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report/report.h"

extern char **environ;


int report_dot_svg(const char *dot, size_t len, struct cp_buf *svg,
		   struct cp_error *err)
{
	char buf[8192];
	char *argv[4];
	int in = -1, pipefd[2] = { -1, -1 }, status, rc = CP_OK, spawned = 0;
	posix_spawn_file_actions_t fa;
	struct cp_buf out;
	pid_t pid;
	const char *start, *end;

	cp_buf_init(&out);
	if ((in = cp_temp_fd(err)) < 0)
		return CP_EIO;
	if (cp_write_all(in, dot, len) || lseek(in, 0, SEEK_SET) < 0) {
		rc = cp_error_set(err, CP_EIO, "cannot write the graph for Graphviz: %s",
				  strerror(errno));
		goto out;
	}
	if (pipe(pipefd)) {
		rc = cp_error_set(err, CP_EIO, "cannot run Graphviz: %s", strerror(errno));
		goto out;
	}
	argv[0] = (char *)"dot";
	argv[1] = (char *)"-Tsvg";
	argv[2] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	/* Graphviz's own warnings are not the user's business here; a
	 * failure is reported by its exit status */
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addclose(&fa, pipefd[0]);
	rc = posix_spawnp(&pid, "dot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	pipefd[1] = -1;
	if (rc) {
		rc = cp_error_set(err, CP_EIO, "cannot run Graphviz's 'dot' (%s); "
				  "install graphviz", strerror(rc));
		goto out;
	}
	spawned = 1;
	for (;;) {
		ssize_t r = read(pipefd[0], buf, sizeof buf);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		cp_buf_append(&out, buf, (size_t)r);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	spawned = 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		rc = cp_error_set(err, CP_EIO, WIFEXITED(status) && WEXITSTATUS(status) == 127
				  ? "cannot run Graphviz's 'dot'; install graphviz"
				  : "Graphviz's 'dot -Tsvg' failed (status %d)",
				  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		goto out;
	}
	if (out.failed) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	start = out.data ? strstr(out.data, "<svg") : NULL;
	end = start ? strstr(start, "</svg>") : NULL;
	if (!end) {
		rc = cp_error_set(err, CP_EIO, "Graphviz's 'dot -Tsvg' wrote no <svg> element");
		goto out;
	}
	cp_buf_append(svg, start, (size_t)(end - start) + strlen("</svg>"));
	cp_buf_puts(svg, "\n");
out:
	if (spawned) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	close(in);
	cp_buf_release(&out);
	return rc;
}
