// SPDX-License-Identifier: MIT
//
// gorr: the Go twin of tests/doctor/rrprog.c. It maps FILE with
// MADV_RANDOM through the runtime's raw syscalls (what LD_PRELOAD cannot
// intercept), touches every page, prints "ready" and sleeps.
package main

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gorr FILE")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	st, err := f.Stat()
	if err != nil || st.Size() <= 0 {
		fmt.Fprintln(os.Stderr, "cannot size", os.Args[1])
		os.Exit(1)
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err == nil {
		err = syscall.Madvise(b, syscall.MADV_RANDOM)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mmap/madvise:", err)
		os.Exit(1)
	}
	sum := 0
	for i := 0; i < len(b); i += 4096 {
		sum += int(b[i])
	}
	fmt.Println("ready")
	for {
		time.Sleep(time.Hour)
	}
}
