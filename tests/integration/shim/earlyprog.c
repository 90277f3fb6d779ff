// SPDX-License-Identifier: MIT
/* earlyprog.c - main() of the constructor test (the work is in libearly.so). */
#include <stdio.h>

int main(void)
{
	printf("result main\n");
	return 0;
}
