// SPDX-License-Identifier: MIT
/*
 * freeram.c - caps the free memory sysinfo(2) reports, for stress-ng's
 * mmapfork stressor in check-peers.
 *
 * stress-ng 0.15's mmapfork forks 32 children per round and each maps and
 * fills freeram / 64 bytes: half the machine's free memory per round
 * (11 GiB here), a round that takes 60-85 s whatever --timeout says, and
 * that version has no size option (--mmapfork-bytes came later).  Preloaded
 * into that one stressor only, in every configuration alike (the plain
 * reference too), this makes sysinfo() report at most
 * PEERS_FREERAM_MIB (default 512) MiB free, so a round maps 8 MiB per child
 * and many rounds fit in a few seconds.  Every other field is the
 * kernel's.  Built uninstrumented, like leakfd.c.
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <unistd.h>

/*
 * sysinfo() - the kernel's sysinfo(2), with freeram clamped.
 * @info: filled as by the system call.
 * Return: 0, or -1 with errno set by the system call.
 */
int sysinfo(struct sysinfo *info)
{
	const char *env = getenv("PEERS_FREERAM_MIB");
	unsigned long long cap_b, unit;
	long ret;

	ret = syscall(SYS_sysinfo, info);
	if (ret)
		return (int)ret;
	cap_b = (env && *env ? strtoull(env, NULL, 10) : 512ULL) << 20;
	unit = info->mem_unit ? info->mem_unit : 1;
	if ((unsigned long long)info->freeram * unit > cap_b)
		info->freeram = (unsigned long)(cap_b / unit);
	return 0;
}
