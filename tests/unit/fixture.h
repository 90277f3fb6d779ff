/* SPDX-License-Identifier: MIT */
/*
 * fixture.h - read a fixture under tests/fixtures for a criterion test
 * (the tests run from the top of the tree).
 */
#ifndef ADVSHIM_TEST_FIXTURE_H
#define ADVSHIM_TEST_FIXTURE_H

#include <criterion/criterion.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "common/readfile.h"

/*
 * fixture - tests/fixtures/@rel, NUL-terminated and malloc'd; its length
 * in *len if not NULL.  Fails the test when it cannot be read.
 */
static inline char *fixture(const char *rel, size_t *len)
{
	char *buf = NULL;

	cr_assert_eq(read_file_at("tests/fixtures", rel, &buf, len, 0), 0,
		     "cannot read fixture %s: %s", rel, strerror(errno));
	return buf;
}

#endif /* ADVSHIM_TEST_FIXTURE_H */
