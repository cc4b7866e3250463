// Package procstat reads a process's status line, /proc/PID/stat (proc(5)).
package procstat

import (
	"errors"
	"os"
	"strconv"
	"strings"
)

// The indexes, in what Fields returns, of the fields dbgauge reads: proc(5)
// numbers them from 1, and Fields starts at the third.
const (
	State     = 0  // (3) R, S, D, Z…
	PPID      = 1  // (4)
	UTime     = 11 // (14) clock ticks in user mode; STime, CUTime, CSTime follow
	Processor = 36 // (39) the CPU it last ran on
)

// Fields returns the fields of pid's stat line after the command's name,
// which may hold spaces and parentheses: Fields(pid)[State] is its state.
func Fields(pid int) ([]string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, err
	}
	return Split(string(b))
}

// Split is Fields for a stat line already read.
func Split(line string) ([]string, error) {
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return nil, errors.New("procstat: no command name in the stat line")
	}
	return strings.Fields(line[i+1:]), nil
}
