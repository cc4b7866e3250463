package matrix

import "syscall"

// procAttr puts a cell in its own process group and has the kernel send it
// SIGINT, a clean stop, if the matrix process dies.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGINT}
}
