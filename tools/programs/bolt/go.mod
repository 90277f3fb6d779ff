module advshim/programs/bolt

go 1.23

require (
	go.etcd.io/bbolt v1.4.0
	golang.org/x/sys v0.29.0
)
