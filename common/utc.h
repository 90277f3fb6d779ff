/* SPDX-License-Identifier: MIT */
/*
 * utc.h - a time as an ISO 8601 UTC timestamp, without the C library's
 * time zone machinery: glibc's gmtime_r takes the time zone lock, which
 * libadvshim.so must not wait for (a line logged in a fork child of a
 * threaded process, or with the application's lock held).  No lock,
 * reentrant; utc_stamp is pure, utc_stamp_now reads CLOCK_REALTIME (the
 * vDSO's, or a system call that never blocks).
 */
#ifndef ADVSHIM_COMMON_UTC_H
#define ADVSHIM_COMMON_UTC_H

#include <stddef.h>
#include <stdint.h>

/* "YYYY-MM-DDTHH:MM:SS.mmmZ" and its NUL. */
#define UTC_STAMP_LEN	25

/*
 * utc_stamp - @sec seconds since the epoch (negative: before 1970) and
 * @ms milliseconds (0-999; more is cut to 999) as "YYYY-MM-DDTHH:MM:SS.mmmZ"
 * into @buf of @len bytes, proleptic Gregorian calendar.  Returns the
 * length written (UTC_STAMP_LEN - 1), or -1 with "" in @buf when @len is
 * shorter than UTC_STAMP_LEN or the year is outside 0-9999.
 */
int utc_stamp(char *buf, size_t len, int64_t sec, unsigned int ms);

/*
 * utc_stamp_now - utc_stamp of CLOCK_REALTIME now, to the millisecond.
 * The same returns; -1 (and "" in @buf) also when the clock cannot be
 * read.
 */
int utc_stamp_now(char *buf, size_t len);

#endif /* ADVSHIM_COMMON_UTC_H */
