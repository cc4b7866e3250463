//go:build !linux

package rawsock

import "syscall"

// Elsewhere than Linux, plain system calls: the gain measured was on Linux.
func read(fd uintptr, b []byte) (int, syscall.Errno) { return errno(syscall.Read(int(fd), b)) }

func write(fd uintptr, b []byte) (int, syscall.Errno) { return errno(syscall.Write(int(fd), b)) }

func errno(n int, err error) (int, syscall.Errno) {
	if e, ok := err.(syscall.Errno); ok {
		return n, e
	}
	return n, 0
}
