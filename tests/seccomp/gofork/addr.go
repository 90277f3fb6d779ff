// SPDX-License-Identifier: MIT

package main

import "unsafe"

// uintptrOf is the address of p (the mapping's first byte).
func uintptrOf(p *byte) uintptr { return uintptr(unsafe.Pointer(p)) }
