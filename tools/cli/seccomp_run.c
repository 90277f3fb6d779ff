// SPDX-License-Identifier: MIT
/*
 * seccomp_run.c - `advshim run --seccomp`: start the supervisor, install
 * the filter in this process and exec the program (seccomp.h says why in
 * this order).
 *
 * The program keeps this process's pid: its parent (a shell, systemd, a
 * container runtime) waits for it and sees its own exit status and its
 * own death by signal, as with plain exec.  The supervisor is a
 * grandchild that was reaped out of the family (double fork): the
 * program never sees an unexpected child in wait(), and the supervisor
 * is reparented to the nearest subreaper.  It leaves the session
 * (setsid), so a terminal's ^C or hangup reaches the program and not it;
 * it ignores SIGTERM too (a service manager's stop signals the whole
 * cgroup: the program must not lose its supervisor while it shuts down)
 * and ends by itself when the filter's last process has exited.
 * Its name (comm) is SECCOMP_SUPERVISOR_COMM and the program's
 * environment gets SECCOMP_ENV=its pid: `advshim doctor` tells a
 * supervised process by the two (and the filter in its status).
 */
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/cli/seccomp.h"

#ifndef SYS_close_range
#define SYS_close_range		436
#endif

/*
 * Does this kernel answer SECCOMP_USER_NOTIF_FLAG_CONTINUE (5.5+)?  5.0
 * to 5.4 install the listener but refuse the answer with EINVAL: the
 * supervisor could then only fail every trapped call, so those run plain.
 */
static bool kernel_has_continue(char *release, size_t size)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u))
		return true;	/* let the install say */
	snprintf(release, size, "%s", u.release);
	if (sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return true;
	return major > 5 || (major == 5 && minor >= 5);
}

static int exec_plain(char **argv)
{
	execvp(argv[0], argv);
	fprintf(stderr, "advshim run: %s: %s\n", argv[0], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}

/* A stream on socket @fd that never waits: what does not fit is lost. */
static ssize_t sock_write(void *cookie, const char *buf, size_t size)
{
	int fd = (int)(intptr_t)cookie;

	if (send(fd, buf, size, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 &&
	    errno == EINTR)
		send(fd, buf, size, MSG_DONTWAIT | MSG_NOSIGNAL);
	return (ssize_t)size;
}

/*
 * stderr as an open file of the supervisor's own, non-blocking, where
 * /proc/self/fd/2 can be opened again (a pipe, a terminal, a file); a
 * socket (journald's stream, a service's usual stderr) cannot be: true
 * then, and the log goes through send(MSG_DONTWAIT) instead.  Either way
 * a log reader that stops reading costs log lines, never the trapped
 * calls the supervisor has yet to answer.  The program's own stderr keeps
 * its flags (O_NONBLOCK on the shared one would be its too).
 */
static bool own_stderr(void)
{
	int fd = open("/proc/self/fd/2", O_WRONLY | O_APPEND | O_NONBLOCK |
		      O_NOCTTY | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return !fstat(2, &st) && S_ISSOCK(st.st_mode);
	if (fd != 2) {
		dup2(fd, 2);
		close(fd);
	}
	return false;
}

/*
 * The supervisor's log stream: the policy's file (*@to_file true), else
 * stderr (through send when it is a socket, @sock).
 */
static FILE *open_log(const struct policy *p, bool sock, bool *to_file)
{
	cookie_io_functions_t io = { .write = sock_write };
	FILE *f;

	*to_file = false;
	if (p->log.target && p->log.target[0] == '/') {
		f = fopen(p->log.target, "ae");
		*to_file = f != NULL;
		if (f)
			return f;
	}
	if (sock) {
		f = fopencookie((void *)(intptr_t)2, "w", io);
		if (f) {
			setvbuf(f, NULL, _IOLBF, 0);
			return f;
		}
	}
	return stderr;
}

/*
 * The supervisor (a grandchild): take the listener from @sock, ack with
 * its pid, serve until the program and its descendants are gone.
 */
static void __attribute__((noreturn)) supervise(int sock, struct policy *p,
						enum policy_log_level level)
{
	static const int quiet[] = { SIGINT, SIGQUIT, SIGHUP, SIGTERM,
				     SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE };
	pid_t self = getpid();
	int fd, dn, ret;
	bool sock_log, to_file;
	size_t i;
	FILE *log;

	setsid();
	prctl(PR_SET_NAME, SECCOMP_SUPERVISOR_COMM, 0, 0, 0);
	sock_log = own_stderr();
	for (i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
		signal(quiet[i], SIG_IGN);
	if (chdir("/")) {
		/* only so as not to pin the program's directory: no matter */
	}
	/* stdin and stdout are the program's: keep only stderr (the log). */
	dn = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (dn >= 0) {
		dup2(dn, 0);
		dup2(dn, 1);
		if (dn > 2)
			close(dn);
	}
	fd = secf_recv_fd(sock);
	if (fd < 0)
		_exit(0);	/* no filter after all: the program runs plain */
	if (write(sock, &self, sizeof(self)) != (ssize_t)sizeof(self))
		_exit(1);
	close(sock);
	if (fd != 3) {
		if (dup2(fd, 3) < 0)
			_exit(1);
		close(fd);
		fd = 3;
	}
	syscall(SYS_close_range, 4, ~0U, 0);
	log = open_log(p, sock_log, &to_file);
	ret = secs_serve(fd, p, level, log, to_file);
	if (ret)
		fprintf(stderr, "advshim-seccomp: supervisor stops: %s; the "
			"program's madvise(MADV_RANDOM) now fail with ENOSYS\n",
			strerror(-ret));
	_exit(ret ? 1 : 0);
}

/*
 * Move @fd above the standard descriptors (close-on-exec): run with one
 * of 0-2 closed, the socketpair would get it, and the supervisor's
 * /dev/null on 0 and 1 would then replace its end.  The program's own
 * 0-2 are left as they were.  The new descriptor, or @fd when it is
 * above 2 already or cannot be moved.
 */
static int above_std(int fd)
{
	int nfd;

	if (fd > 2)
		return fd;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (nfd < 0)
		return fd;
	close(fd);
	return nfd;
}

/* Fork the supervisor out of the family; 0, or -1 after a message. */
static int start_supervisor(int sv[2], struct policy *p,
			    enum policy_log_level level)
{
	pid_t s1, s2;
	int st;

	s1 = fork();
	if (s1 < 0)
		return -1;
	if (s1 == 0) {
		close(sv[0]);
		s2 = fork();
		if (s2 == 0)
			supervise(sv[1], p, level);
		_exit(s2 < 0 ? 1 : 0);
	}
	close(sv[1]);
	while (waitpid(s1, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

int seccomp_run_exec(char **argv, struct policy *p,
		     enum policy_log_level level, bool verbose)
{
	bool fadv = secf_policy_needs_fadvise(p);
	char pid[24], rel[65] = "";
	pid_t sup = 0;
	int sv[2], fd;
	ssize_t n;

	if (!kernel_has_continue(rel, sizeof(rel))) {
		fprintf(stderr, "advshim run: --seccomp: kernel %s cannot let a "
			"trapped call continue (Linux 5.5+); running %s plain\n",
			rel, argv[0]);
		return exec_plain(argv);
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		fprintf(stderr, "advshim run: --seccomp: %s; running %s plain\n",
			strerror(errno), argv[0]);
		return exec_plain(argv);
	}
	sv[0] = above_std(sv[0]);
	sv[1] = above_std(sv[1]);
	if (start_supervisor(sv, p, level)) {
		fprintf(stderr, "advshim run: --seccomp: no supervisor (%s); "
			"running %s plain\n", strerror(errno), argv[0]);
		close(sv[0]);
		return exec_plain(argv);
	}
	fd = secf_install(fadv);
	if (fd < 0) {
		fprintf(stderr, "advshim run: --seccomp: filter not installed "
			"(%s); running %s plain\n", strerror(-fd), argv[0]);
		close(sv[0]);	/* the supervisor reads end of file, exits */
		return exec_plain(argv);
	}
	if (secf_send_fd(sv[0], fd) ||
	    (n = read(sv[0], &sup, sizeof(sup))) != (ssize_t)sizeof(sup)) {
		/* Installed, no one listening: trapped calls get ENOSYS. */
		fprintf(stderr, "advshim run: --seccomp: the supervisor did "
			"not start; %s's madvise(MADV_RANDOM) will fail with "
			"ENOSYS\n", argv[0]);
	} else {
		snprintf(pid, sizeof(pid), "%d", (int)sup);
		setenv(SECCOMP_ENV, pid, 1);
		if (verbose)
			fprintf(stderr, "advshim run: --seccomp: no_new_privs "
				"set; madvise(MADV_RANDOM)%s go to supervisor "
				"pid %d (policy %s)\n",
				fadv ? " and fadvise64(RANDOM)" : "", (int)sup,
				p->source ? p->source : "?");
	}
	close(fd);
	close(sv[0]);
	policy_free(p);
	return exec_plain(argv);
}
