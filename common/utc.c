// SPDX-License-Identifier: MIT
/*
 * utc.c - seconds since the epoch to a UTC calendar date: the count of
 * days is split into 400-year eras of 146097 days (the Gregorian cycle),
 * the day of the era into a year that starts on March 1 (so the leap day
 * is the year's last), and that year's day into a month by the 153-day
 * five-month pattern of March to July and August to December.
 */
#include <stdio.h>
#include <time.h>

#include "common/utc.h"

/* Floor division: a day or an era that starts before the epoch counts down. */
static int64_t floor_div(int64_t a, int64_t b)
{
	return a >= 0 ? a / b : -((-a + b - 1) / b);
}

int utc_stamp(char *buf, size_t len, int64_t sec, unsigned int ms)
{
	int64_t days, z, era, doe, yoe, doy, mp, y, sod;
	int mon, day;

	if (len)
		buf[0] = '\0';
	if (len < UTC_STAMP_LEN || sec < -62167219200LL ||
	    sec > 253402300799LL)	/* 0000-01-01 to 9999-12-31 */
		return -1;
	days = floor_div(sec, 86400);
	sod = sec - days * 86400;
	z = days + 719468;		/* days since 0000-03-01 */
	era = floor_div(z, 146097);
	doe = z - era * 146097;		/* 0-146096 */
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);	/* from March 1 */
	mp = (5 * doy + 2) / 153;	/* 0: March ... 11: February */
	day = (int)(doy - (153 * mp + 2) / 5 + 1);
	mon = (int)(mp < 10 ? mp + 3 : mp - 9);
	y = yoe + era * 400 + (mon <= 2);
	return snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ",
			(int)y, mon, day, (int)(sod / 3600),
			(int)(sod / 60 % 60), (int)(sod % 60),
			ms > 999 ? 999 : ms);
}

int utc_stamp_now(char *buf, size_t len)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts)) {
		if (len)
			buf[0] = '\0';
		return -1;
	}
	return utc_stamp(buf, len, (int64_t)ts.tv_sec,
			 (unsigned int)(ts.tv_nsec / 1000000));
}
