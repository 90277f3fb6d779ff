// SPDX-License-Identifier: MIT
//
// zipf.go - xoshiro256** and the rejection-inversion zipf(theta) sampler
// of tools/load/zipf.c (Hoermann & Derflinger 1996), in Go: ranks 1..n
// with P(k) proportional to k^-theta, theta >= 0 (math/rand's Zipf needs
// s > 1, and the lab reads at 0.8).  An rng belongs to one goroutine; a
// zipf is read-only once made.
package main

import (
	"errors"
	"math"
	"math/bits"
)

type rng struct{ s [4]uint64 }

func newRng(seed uint64) *rng {
	r := &rng{}
	for i := range r.s {
		seed += 0x9e3779b97f4a7c15
		z := seed
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		r.s[i] = z ^ (z >> 31)
	}
	return r
}

func (r *rng) next() uint64 {
	s := &r.s
	out := bits.RotateLeft64(s[1]*5, 7) * 9
	t := s[1] << 17
	s[2] ^= s[0]
	s[3] ^= s[1]
	s[1] ^= s[2]
	s[0] ^= s[3]
	s[2] ^= t
	s[3] = bits.RotateLeft64(s[3], 45)
	return out
}

func (r *rng) float() float64 { return float64(r.next()>>11) * 0x1.0p-53 }

type zipf struct {
	n              uint64
	theta          float64
	hX1, hN, sqeez float64
}

func expm1Over(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x/2
}

func log1pOver(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x/2
}

func (z *zipf) h(x float64) float64 { return math.Exp(-z.theta * math.Log(x)) }

func (z *zipf) bigH(x float64) float64 {
	lx := math.Log(x)
	return expm1Over((1-z.theta)*lx) * lx
}

func (z *zipf) bigHInv(y float64) float64 {
	t := (1 - z.theta) * y
	if t < -1 {
		t = -1
	}
	return math.Exp(log1pOver(t) * y)
}

func newZipf(n uint64, theta float64) (*zipf, error) {
	if n == 0 || theta < 0 || math.IsInf(theta, 0) || math.IsNaN(theta) {
		return nil, errors.New("zipf: need n > 0 and a finite theta >= 0")
	}
	z := &zipf{n: n, theta: theta}
	z.hX1 = z.bigH(1.5) - 1
	z.hN = z.bigH(float64(n) + 0.5)
	z.sqeez = 2 - z.bigHInv(z.bigH(2.5)-z.h(2))
	return z, nil
}

func (z *zipf) next(r *rng) uint64 {
	for {
		u := z.hN + r.float()*(z.hX1-z.hN)
		x := z.bigHInv(u)
		k := uint64(x + 0.5)
		if k < 1 {
			k = 1
		} else if k > z.n {
			k = z.n
		}
		if float64(k)-x <= z.sqeez || u >= z.bigH(float64(k)+0.5)-z.h(float64(k)) {
			return k
		}
	}
}
