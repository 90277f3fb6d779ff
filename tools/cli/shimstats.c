// SPDX-License-Identifier: MIT
/*
 * shimstats.c - another process's libadvshim.so stats page, read through
 * /proc/PID/mem (moved here from cmd_inspect.c so doctor reads it the
 * same way).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/readfile.h"
#include "tools/cli/shimstats.h"

/*
 * The region (an older library's is shorter: what lies past its end reads
 * as zero), and from version 2 a consistent copy of its adaptive part (its
 * writer makes `seq` odd while it writes: read again then).  Returns the
 * bytes read, or -1 with errno.
 */
static ssize_t read_page(int fd, uint64_t addr, struct advshim_stats *st)
{
	const off_t seq_off = (off_t)addr +
		(off_t)offsetof(struct advshim_stats, adapt.seq);
	uint32_t seq;
	ssize_t n = -1;
	int tries;

	for (tries = 0; tries < 20; tries++) {
		memset(st, 0, sizeof(*st));
		n = pread(fd, st, sizeof(*st), (off_t)addr);
		if (n < (ssize_t)ADVSHIM_STATS_V1_SIZE || st->version < 2)
			return n;
		if (!(st->adapt.seq & 1) &&
		    pread(fd, &seq, sizeof(seq), seq_off) == sizeof(seq) &&
		    seq == st->adapt.seq)
			return n;
		usleep(1000);
	}
	return n;
}

int shimstats_read(const char *root, int pid, uint64_t addr,
		   struct advshim_stats *st, bool *have_adapt,
		   const char **why)
{
	char rel[64], memp[4096];
	ssize_t n;
	int fd;

	snprintf(rel, sizeof(rel), "/proc/%d/mem", pid);
	if (path_join(memp, sizeof(memp), root, rel)) {
		*why = strerror(errno);
		return -1;
	}
	fd = open(memp, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*why = errno == EACCES || errno == EPERM ?
			"permission denied reading /proc/PID/mem (run as the process's user with ptrace access, or root)" :
			strerror(errno);
		return -1;
	}
	n = read_page(fd, addr, st);
	*why = n < 0 ? strerror(errno) : NULL;
	close(fd);
	/*
	 * Older pages (version 1: before the adaptive advice; 2: before the
	 * per-thread slots) read too, as far as their size says.
	 */
	if (n >= (ssize_t)ADVSHIM_STATS_V1_SIZE &&
	    st->magic == ADVSHIM_STATS_MAGIC && st->version >= 1 &&
	    st->version <= ADVSHIM_STATS_VERSION && n >= (ssize_t)st->size &&
	    st->size >= ADVSHIM_STATS_V1_SIZE) {
		if (st->size < sizeof(*st))	/* past an older page's end */
			memset((char *)st + st->size, 0, sizeof(*st) - st->size);
		st->policy_source[sizeof(st->policy_source) - 1] = '\0';
		st->lib_version[sizeof(st->lib_version) - 1] = '\0';
		st->adapt.cgroup[sizeof(st->adapt.cgroup) - 1] = '\0';
		*have_adapt = st->version >= 2 &&
			st->size >= offsetof(struct advshim_stats, slots);
		advshim_stats_fold(st);
		return 0;
	}
	if (!*why)
		*why = st->magic == ADVSHIM_STATS_MAGIC ?
			"stats page of a newer layout (use the advshim that came with the library)" :
			"stats page has an unknown layout";
	return -1;
}

const char *shimstats_state_name(int s)
{
	switch (s) {
	case ADVSHIM_STATE_STARTING: return "starting";
	case ADVSHIM_STATE_ACTIVE: return "active";
	case ADVSHIM_STATE_CONFIG_ERROR: return "config error, passing through";
	case ADVSHIM_STATE_NOT_SELECTED: return "process not selected, passing through";
	}
	return "unknown";
}

/* Each adaptive state: inspect's words, then its Prometheus label. */
static const char *const adapt_states[][2] = {
	[ADVSHIM_ADAPT_UNUSED] = { "not used yet", "unused" },
	[ADVSHIM_ADAPT_SAMPLING] = { "sampler running", "sampling" },
	[ADVSHIM_ADAPT_NO_SAMPLER] = { "no sampler (choice kept)", "no_sampler" },
	[ADVSHIM_ADAPT_DISABLED] = { "kill switch on (random given back)",
				     "disabled" },
};

const char *shimstats_adapt_state_name(int s, bool label)
{
	if (s < 0 || (size_t)s >= sizeof(adapt_states) / sizeof(adapt_states[0]))
		s = ADVSHIM_ADAPT_UNUSED;
	return adapt_states[s][label];
}
