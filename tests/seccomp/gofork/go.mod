module advshim/tests/seccomp/gofork

go 1.21
