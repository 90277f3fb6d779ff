/* SPDX-License-Identifier: MIT */
/*
 * grow.h - room for one more element at the end of an array (grow.c).
 */
#ifndef ADVSHIM_COMMON_GROW_H
#define ADVSHIM_COMMON_GROW_H

#include <stddef.h>

/*
 * grow_array - @arr (malloc'd or NULL) holds @nr elements of @size bytes
 * in room for *@cap: return it with room for at least one more, moved by
 * realloc when full (the room doubled, @first elements the first time;
 * *@cap updated).  NULL with errno = ENOMEM when that fails: @arr and
 * *@cap are then unchanged and still valid.
 */
void *grow_array(void *arr, size_t nr, size_t *cap, size_t size, size_t first);

#endif /* ADVSHIM_COMMON_GROW_H */
