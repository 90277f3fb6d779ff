// SPDX-License-Identifier: MIT
//
// advshim-bolt - a bbolt (go.etcd.io/bbolt, etcd's storage engine) reader
// and loader for the MGLRU lab (make lab-programs).
//
//	advshim-bolt load DB SIZE_MIB       build DB: keys 0..n-1 (8 bytes, big
//	                                    endian) in bucket "kv", values of
//	                                    VALUE_BYTES, until the file holds
//	                                    SIZE_MIB MiB
//	advshim-bolt read [-t N] [-z THETA] [-d SECONDS] DB
//	                                    N goroutines read keys drawn at
//	                                    zipf(THETA) (rank scattered over the
//	                                    key space), one read-only View per
//	                                    read; a row every second
//
// bbolt maps the file and advises it MADV_RANDOM itself (bolt_unix.go:
// unix.Madvise, a raw system call): built CGO_ENABLED=0, the binary is
// static and an LD_PRELOAD shim never sees that call.  The rows are
// advshim-load random's TSV (tools/lab/README.md, "Workloads"): a
// "# ... pid=P mono_ms=T" line, a header, then elapsed_ms mono_ms queries
// qps reads_s p50_us p90_us p99_us majflt majflt_s, latencies "-" (not
// measured).
package main

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"
)

const valueBytes = 1000

var bucket = []byte("kv")

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "load":
		err = cmdLoad(os.Args[2:])
	case "read":
		err = cmdRead(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "advshim-bolt: %v\n", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: advshim-bolt load DB SIZE_MIB | read [-t N] [-z THETA] [-d SECONDS] DB")
	os.Exit(2)
}

// cmdLoad fills DB with sequential keys in batches until it is big enough.
func cmdLoad(args []string) error {
	if len(args) != 2 {
		usage()
	}
	mib, err := strconv.ParseUint(args[1], 10, 32)
	if err != nil || mib == 0 {
		return fmt.Errorf("size %q: want MiB > 0", args[1])
	}
	db, err := bolt.Open(args[0], 0o644, &bolt.Options{NoSync: true, NoGrowSync: true,
		InitialMmapSize: int(mib+16) << 20})
	if err != nil {
		return err
	}
	defer db.Close()
	val := make([]byte, valueBytes)
	for i := range val {
		val[i] = byte('a' + i%26)
	}
	var key uint64
	for {
		st, err := os.Stat(args[0])
		if err != nil {
			return err
		}
		if uint64(st.Size()) >= mib<<20 {
			break
		}
		if err := db.Update(func(tx *bolt.Tx) error {
			return putBatch(tx, &key, val, 4096)
		}); err != nil {
			return err
		}
	}
	fmt.Printf("keys=%d\n", key)
	return db.Sync()
}

func putBatch(tx *bolt.Tx, key *uint64, val []byte, n int) error {
	b, err := tx.CreateBucketIfNotExists(bucket)
	if err != nil {
		return err
	}
	b.FillPercent = 1.0 // keys come in order: full pages
	k := make([]byte, 8)
	for i := 0; i < n; i++ {
		binary.BigEndian.PutUint64(k, *key)
		if err := b.Put(k, val); err != nil {
			return err
		}
		*key++
	}
	return nil
}

// cmdRead runs the readers and prints a row a second until the duration
// ends or SIGINT/SIGTERM.
func cmdRead(args []string) error {
	fs := flag.NewFlagSet("read", flag.ExitOnError)
	threads := fs.Int("t", 4, "reader goroutines")
	theta := fs.Float64("z", 0.8, "zipf exponent")
	dur := fs.Float64("d", 0, "seconds (0: until a signal)")
	fs.Parse(args)
	if fs.NArg() != 1 || *threads < 1 {
		usage()
	}
	db, err := bolt.Open(fs.Arg(0), 0o444, &bolt.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer db.Close()
	var nkeys uint64
	if err := db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucket)
		if b == nil {
			return errors.New("no bucket kv: load the DB first")
		}
		// The loader's keys are 0..n-1: the last one says n without
		// walking the tree (Stats() would read every page first).
		k, _ := b.Cursor().Last()
		if len(k) != 8 {
			return errors.New("bucket kv holds no 8-byte keys: load the DB first")
		}
		nkeys = binary.BigEndian.Uint64(k) + 1
		return nil
	}); err != nil {
		return err
	}
	z, err := newZipf(nkeys, *theta)
	if err != nil {
		return err
	}
	fmt.Printf("# advshim-bolt read file=%s keys=%d threads=%d theta=%g pid=%d mono_ms=%d\n",
		fs.Arg(0), nkeys, *threads, *theta, os.Getpid(), monoMs())
	fmt.Println("elapsed_ms\tmono_ms\tqueries\tqps\treads_s\tp50_us\tp90_us\tp99_us\tmajflt\tmajflt_s")
	var reads atomic.Uint64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for i := 0; i < *threads; i++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			readLoop(db, z, seed, &reads, &stop)
		}(uint64(i) + 1)
	}
	report(*dur, &reads)
	stop.Store(true)
	wg.Wait()
	return nil
}

// readLoop: one key per read-only transaction, as a point lookup would.
func readLoop(db *bolt.DB, z *zipf, seed uint64, reads *atomic.Uint64, stop *atomic.Bool) {
	r := newRng(seed)
	k := make([]byte, 8)
	var sink byte
	for !stop.Load() {
		binary.BigEndian.PutUint64(k, scatter(z.next(r)-1, z.n))
		db.View(func(tx *bolt.Tx) error {
			if v := tx.Bucket(bucket).Get(k); len(v) > 0 {
				sink ^= v[len(v)/2]
			}
			return nil
		})
		reads.Add(1)
	}
	_ = sink
}

// scatter spreads zipf ranks over the key space (and so over the file):
// a multiplication by an odd constant modulo n is a bijection when it is
// coprime with n; a prime does it for any n below it.
func scatter(rank, n uint64) uint64 {
	return (rank * 2654435761) % n
}

// report prints a row a second until @dur s have passed or a signal came.
func report(dur float64, reads *atomic.Uint64) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	t0 := time.Now()
	last, lastT, lastF := uint64(0), t0, majflt()
	for {
		select {
		case <-sig:
			return
		case now := <-tick.C:
			n, f := reads.Load(), majflt()
			dt := now.Sub(lastT).Seconds()
			fmt.Printf("%d\t%d\t%d\t%.1f\t%.1f\t-\t-\t-\t%d\t%.1f\n",
				now.Sub(t0).Milliseconds(), monoMs(), n-last, float64(n-last)/dt,
				float64(n-last)/dt, f-lastF, float64(f-lastF)/dt)
			last, lastT, lastF = n, now, f
			if dur > 0 && now.Sub(t0).Seconds() >= dur {
				return
			}
		}
	}
}

func monoMs() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) != nil {
		return 0
	}
	return ts.Sec*1000 + ts.Nsec/1000000
}

func majflt() uint64 {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return uint64(ru.Majflt)
}
