//go:build !linux

package matrix

import "syscall"

// procAttr puts a cell in its own process group.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
