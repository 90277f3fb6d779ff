/* SPDX-License-Identifier: MIT */
/*
 * dlsym_x86_64.S - the exported dlsym: decide, then tail-jump.
 *
 * dlsym(handle, name):
 *	fn = advshim_dlsym_decide(handle, name)
 *	if fn: return fn
 *	jmp *advshim_real_dlsym		(return address untouched)
 *
 * The tail jump leaves the caller's return address on top of the stack,
 * so glibc computes RTLD_NEXT / RTLD_DEFAULT scopes from the real caller.
 * Written in assembly so no compiler, optimisation level or sanitizer can
 * turn the tail call into a call (see dlsym.c).
 */
#if defined(__x86_64__)
	.text
	.globl	dlsym
	.type	dlsym, @function
	.p2align 4
dlsym:
	.cfi_startproc
	pushq	%rdi			/* rsp now 16-byte aligned */
	.cfi_adjust_cfa_offset 8
	pushq	%rsi
	.cfi_adjust_cfa_offset 8
	subq	$8, %rsp		/* realign for the call */
	.cfi_adjust_cfa_offset 8
	call	advshim_dlsym_decide
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	popq	%rsi
	.cfi_adjust_cfa_offset -8
	popq	%rdi
	.cfi_adjust_cfa_offset -8
	testq	%rax, %rax
	jnz	1f
	jmpq	*advshim_real_dlsym(%rip)
1:
	ret
	.cfi_endproc
	.size	dlsym, .-dlsym
#endif
	.section .note.GNU-stack,"",@progbits
