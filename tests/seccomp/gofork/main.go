// SPDX-License-Identifier: MIT

// gofork: a multi-threaded Go program that forks children, for `make
// check-seccomp` (tests/seccomp/run.sh).  Go calls madvise as a raw
// system call (syscall.Madvise), and os/exec forks and execs: the
// children inherit the seccomp filter, and the supervisor must decide
// for each by its own pid.
//
//	gofork parent FILE N   N goroutines on locked OS threads each map FILE
//	                       and advise it MADV_RANDOM, then N children
//	                       ("gofork child FILE") run at once; prints
//	                       "parent threads=T rr=R/N" and the children's lines
//	gofork child FILE      one mapping advised MADV_RANDOM: "child pid=P rr=R"
package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// mapRandom maps path and advises it MADV_RANDOM; returns the mapping.
func mapRandom(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		fail(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		fail(err)
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		fail(err)
	}
	if err := syscall.Madvise(b, syscall.MADV_RANDOM); err != nil {
		fail(err)
	}
	return b
}

// hasRR reports whether smaps shows VmFlags rr on the mapping at addr.
func hasRR(addr uint64) bool {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		fail(err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		var lo, hi uint64
		if n, _ := fmt.Sscanf(l, "%x-%x", &lo, &hi); n == 2 && strings.Contains(l, "-") {
			in = addr >= lo && addr < hi
			continue
		}
		if in && strings.HasPrefix(l, "VmFlags:") {
			return strings.Contains(l+" ", " rr ")
		}
	}
	return false
}

func addrOf(b []byte) uint64 {
	return uint64(uintptrOf(&b[0]))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gofork:", err)
	os.Exit(1)
}

func threads() int {
	d, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0
	}
	return len(d)
}

func parent(path string, n int) {
	var wg sync.WaitGroup
	rr := make([]bool, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			b := mapRandom(path)
			rr[i] = hasRR(addrOf(b))
		}(i)
	}
	wg.Wait()
	got := 0
	for _, r := range rr {
		if r {
			got++
		}
	}
	out := make([]string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			o, err := exec.Command("/proc/self/exe", "child", path).Output()
			if err != nil {
				fail(err)
			}
			out[i] = strings.TrimSpace(string(o))
		}(i)
	}
	wg.Wait()
	fmt.Printf("parent pid=%d threads=%d rr=%d/%d\n", os.Getpid(), threads(), got, n)
	for _, o := range out {
		fmt.Println(o)
	}
}

func main() {
	if len(os.Args) == 4 && os.Args[1] == "parent" {
		n, err := strconv.Atoi(os.Args[3])
		if err != nil {
			fail(err)
		}
		parent(os.Args[2], n)
		return
	}
	if len(os.Args) == 3 && os.Args[1] == "child" {
		b := mapRandom(os.Args[2])
		r := 0
		if hasRR(addrOf(b)) {
			r = 1
		}
		fmt.Printf("child pid=%d rr=%d\n", os.Getpid(), r)
		return
	}
	fmt.Fprintln(os.Stderr, "usage: gofork parent FILE N | gofork child FILE")
	os.Exit(2)
}
