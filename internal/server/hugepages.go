package server

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"
)

// HugePages says whether process pid maps memory in huge pages (hugetlbfs:
// PostgreSQL's shared memory with huge_pages=on or try, when the kernel had
// them reserved), from /proc/PID/maps.
func HugePages(pid int) (bool, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/maps")
	if err != nil {
		return false, err
	}
	defer f.Close()
	return mapsHugePages(f)
}

// mapsHugePages reads a maps file: a hugetlb mapping is named
// /anon_hugepage (MAP_HUGETLB) or lies on a hugetlbfs mount.
func mapsHugePages(r io.Reader) (bool, error) {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 4096), 1<<20)
	for s.Scan() {
		if strings.Contains(s.Text(), "/anon_hugepage") {
			return true, nil
		}
	}
	return false, s.Err()
}

// ReservedHugePages is the kernel's vm.nr_hugepages: how many huge pages are
// set aside for programs that ask for them (0: none, so none get them).
func ReservedHugePages() (int, error) {
	b, err := os.ReadFile("/proc/sys/vm/nr_hugepages")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}
