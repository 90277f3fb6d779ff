# SPDX-License-Identifier: MIT
#
# median.awk - median(a, n): the median of a[1..n] (0 when n is 0), a left
# unchanged.  Loaded with -f before the lab's table scripts
# (summarize.awk, qps.awk).

function median(a, n,    i, j, t, b) {
	if (n == 0)
		return 0
	for (i = 1; i <= n; i++)
		b[i] = a[i]
	for (i = 2; i <= n; i++) {
		t = b[i]
		for (j = i - 1; j >= 1 && b[j] > t; j--)
			b[j + 1] = b[j]
		b[j + 1] = t
	}
	return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2
}
