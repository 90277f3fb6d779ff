// SPDX-License-Identifier: MIT
/*
 * seccomp_filter.c - the BPF program of `advshim run --seccomp` and the
 * passing of its listener to the supervisor.
 *
 * The program traps (SECCOMP_RET_USER_NOTIF) exactly:
 *   madvise(addr, len, MADV_RANDOM)                 x86_64 native ABI
 *   fadvise64(fd, off, len, POSIX_FADV_RANDOM)      only when asked
 * and allows everything else: other architectures' and the x32 ABI's
 * calls (another arch value, or __X32_SYSCALL_BIT in the number), other
 * system calls and other advice.  The advice arguments are ints in the
 * kernel (madvise's `int behavior`, fadvise64's `int advice`): only
 * their low 32 bits are compared, as the kernel reads them.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tools/cli/seccomp.h"

#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER	(1UL << 3)
#endif
#ifndef SECCOMP_RET_USER_NOTIF
#define SECCOMP_RET_USER_NOTIF		0x7fc00000U
#endif

#if defined(__x86_64__)
#define SECF_ARCH	AUDIT_ARCH_X86_64
#else
#error "advshim run --seccomp: only x86_64 is described here"
#endif

/* The low 32 bits of argument @n (little endian). */
#define ARG_LO(n)	(offsetof(struct seccomp_data, args) + 8 * (n))

bool secf_policy_needs_fadvise(const struct policy *p)
{
	size_t i;

	for (i = 0; p && i < p->nr_rules; i++)
		if (p->rules[i].action[ADV_FAMILY_FADVISE][ADV_RANDOM].act !=
		    ADV_ACT_KEEP)
			return true;
	return false;
}

int secf_install(bool fadvise)
{
	/* Jump offsets are counted from the next instruction. */
	struct sock_filter prog[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				 offsetof(struct seccomp_data, arch)),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SECF_ARCH, 0, 8),
		/* 2 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				 offsetof(struct seccomp_data, nr)),
		/* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_madvise, 0, 2),
		/* 4 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(2)),
		/* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, MADV_RANDOM, 3, 4),
		/* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
				 fadvise ? __NR_fadvise64 : 0xffffffffu, 0, 3),
		/* 7 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(3)),
		/* 8 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, POSIX_FADV_RANDOM,
				 0, 1),
		/* 9 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		/* 10 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fprog = {
		.len = sizeof(prog) / sizeof(prog[0]),
		.filter = prog,
	};
	long fd;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		     SECCOMP_FILTER_FLAG_NEW_LISTENER, &fprog);
	if (fd < 0)
		return -errno;
	return (int)fd;		/* the kernel makes it O_CLOEXEC */
}

int secf_send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	char byte = 'L';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;

	memset(cbuf, 0, sizeof(cbuf));
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	while (sendmsg(sock, &msg, MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

int secf_recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	ssize_t n;
	int fd;

	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -EPIPE;
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_level != SOL_SOCKET ||
	    cm->cmsg_type != SCM_RIGHTS ||
	    cm->cmsg_len != CMSG_LEN(sizeof(int)))
		return -EPROTO;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}
