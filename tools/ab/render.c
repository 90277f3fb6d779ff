// SPDX-License-Identifier: MIT
/*
 * render.c - the summary table, summary.tsv, the plot, and `report DIR`.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/readfile.h"
#include "tools/ab/run.h"

static bool have_gnuplot(void)
{
	const char *path = getenv("PATH");
	char buf[4200];

	if (!path)
		path = "/usr/bin:/bin";
	for (const char *p = path; *p;) {
		size_t len = strcspn(p, ":");

		snprintf(buf, sizeof(buf), "%.*s/gnuplot", (int)len, p);
		if (len && !access(buf, X_OK))
			return true;
		p += len;
		if (*p == ':')
			p++;
	}
	return false;
}

/* gnuplot string literal: the labels are ours, but quote anyway. */
static void gp_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void plot_events(FILE *f, const struct arm_result *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (isnan(r[i].event_start))
			continue;
		fprintf(f, "set arrow from %.2f, graph 0 to %.2f, graph 1 nohead dt 2 lc rgb \"gray40\"\n",
			r[i].event_start, r[i].event_start);
		fprintf(f, "set label \"cold read\" at %.2f, graph 0.97 offset 0.5,0 tc rgb \"gray40\"\n",
			r[i].event_start);
		if (!isnan(r[i].event_end))
			fprintf(f, "set arrow from %.2f, graph 0 to %.2f, graph 1 nohead dt 2 lc rgb \"gray40\"\n",
				r[i].event_end, r[i].event_end);
		return;		/* the first arm's event stands for all */
	}
}

static int write_plot_script(const char *path, const struct arm_result *r,
			     size_t n, const char *term)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f, "# advshim-ab plot; run in the results directory: gnuplot plot.gp\n"
		"set terminal %s size 1200,1000 noenhanced\n"
		"set output \"ab.png\"\n"
		"set datafile separator \"\\t\"\n"
		"set datafile missing \"-\"\n"
		"set multiplot layout 2,1\n"
		"set grid\nset key top right\nset xlabel \"t (s)\"\n", term);
	plot_events(f, r, n);
	fputs("set title \"throughput\"\nset ylabel \"reads/s (log)\"\nset logscale y\nplot", f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s \"arm-%s.tsv\" using 1:2 with lines lw 2 lc %zu title ",
			i ? "," : "", r[i].name, i + 1);
		gp_str(f, r[i].label);
	}
	fputs("\nunset logscale y\nset title \"page cache per file\"\nset ylabel \"MiB cached\"\nplot", f);
	for (size_t i = 0, k = 0; i < n; i++) {
		for (size_t j = 0; j < r[i].nfiles; j++, k++) {
			char t[256];

			snprintf(t, sizeof(t), "%s: %s", r[i].name, r[i].files[j]);
			fprintf(f, "%s \"arm-%s.tsv\" using 1:%zu with lines lw 2 lc %zu dt %zu title ",
				k ? "," : "", r[i].name, 9 + j, i + 1, j + 1);
			gp_str(f, t);
		}
	}
	fputs("\nunset multiplot\n", f);
	return fclose(f);
}

static int run_gnuplot(const char *dir)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (chdir(dir))
			_exit(126);
		execlp("gnuplot", "gnuplot", "plot.gp", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int plot(const char *dir, const struct arm_result *r, size_t n,
		bool no_plot)
{
	char gp[4200];

	snprintf(gp, sizeof(gp), "%s/plot.gp", dir);
	if (write_plot_script(gp, r, n, "pngcairo")) {
		fprintf(stderr, "advshim-ab: writing %s: %s\n", gp, strerror(errno));
		return -1;
	}
	if (no_plot)
		return 0;
	if (!have_gnuplot()) {
		printf("plot: gnuplot not found; script in %s (render elsewhere: advshim-ab report DIR)\n", gp);
		return 0;
	}
	/* Minimal gnuplot builds lack cairo: retry with the gd terminal. */
	if (run_gnuplot(dir) && (write_plot_script(gp, r, n, "png") ||
				 run_gnuplot(dir))) {
		fprintf(stderr, "advshim-ab: gnuplot failed on %s\n", gp);
		return -1;
	}
	printf("plot: %s/ab.png\n", dir);
	return 0;
}

int ab_render(const char *dir, const struct arm_result *r, size_t n,
	      bool no_plot)
{
	char path[4200];
	FILE *f;

	print_summary(stdout, r, n);
	snprintf(path, sizeof(path), "%s/summary.tsv", dir);
	f = fopen(path, "w");
	if (!f || tsv_write_summary(f, r, n) || fclose(f)) {
		fprintf(stderr, "advshim-ab: writing %s: %s\n", path, strerror(errno));
		return -1;
	}
	printf("tables: %s/summary.tsv and %s/arm-*.tsv\n", dir, dir);
	return plot(dir, r, n, no_plot);
}

static int load_arm(const char *dir, const char *name, struct arm_result *r)
{
	char path[4200], err[256], *buf;
	int ret;

	snprintf(path, sizeof(path), "%s/arm-%s.tsv", dir, name);
	if (read_file(path, &buf, NULL, 0)) {
		fprintf(stderr, "advshim-ab: cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	ret = tsv_read_arm(buf, r, err, sizeof(err));
	free(buf);
	if (ret)
		fprintf(stderr, "advshim-ab: %s: %s\n", path, err);
	return ret;
}

/* Arm names in run order: summary.tsv's first column, else arm-*.tsv. */
static int arm_names(const char *dir, char names[][AB_NAME], int max)
{
	char path[4200], *buf, *line;
	int n = 0;

	snprintf(path, sizeof(path), "%s/summary.tsv", dir);
	if (!read_file(path, &buf, NULL, 0)) {
		line = strchr(buf, '\n');
		while (line && *++line && n < max) {
			size_t len = strcspn(line, "\t\n");

			snprintf(names[n++], AB_NAME, "%.*s", (int)len, line);
			line = strchr(line, '\n');
		}
		free(buf);
		if (n)
			return n;
	}
	{
		struct dirent **ents;
		int k = scandir(dir, &ents, NULL, alphasort);

		for (int i = 0; i < k; i++) {
			const char *d = ents[i]->d_name;
			size_t len = strlen(d);

			if (n < max && len > 8 && !strncmp(d, "arm-", 4) &&
			    !strcmp(d + len - 4, ".tsv"))
				snprintf(names[n++], AB_NAME, "%.*s", (int)(len - 8), d + 4);
			free(ents[i]);
		}
		if (k >= 0)
			free(ents);
	}
	return n;
}

/* Load @n arms of @dir (in that order) and render them. */
static int render_names(const char *dir, char names[][AB_NAME], int n,
			bool no_plot, bool timelines)
{
	struct arm_result r[32];
	int ok = 0, ret;

	for (int i = 0; i < n && i < 32; i++) {
		if (load_arm(dir, names[i], &r[ok]))
			continue;
		ok++;
	}
	if (!ok)
		return 1;
	for (int i = 0; timelines && i < ok; i++) {
		print_arm_head(stdout, &r[i]);
		for (size_t j = 0; j < r[i].n; j++)
			print_arm_row(stdout, &r[i], &r[i].s[j]);
	}
	ret = ab_render(dir, r, (size_t)ok, no_plot) || ok != n;
	for (int i = 0; i < ok; i++)
		arm_free(&r[i]);
	return ret;
}

int ab_report(const char *dir, bool no_plot)
{
	char names[32][AB_NAME];
	int n = arm_names(dir, names, 32);

	if (n <= 0) {
		fprintf(stderr, "advshim-ab: no arm-*.tsv in %s\n", dir);
		return 1;
	}
	return render_names(dir, names, n, no_plot, true);
}

int ab_render_saved(const char *dir, const struct arm_result *r, size_t n,
		    bool no_plot)
{
	char names[32][AB_NAME];

	if (n > 32)
		n = 32;
	for (size_t i = 0; i < n; i++)
		snprintf(names[i], AB_NAME, "%s", r[i].name);
	return render_names(dir, names, (int)n, no_plot, false) ? -1 : 0;
}
