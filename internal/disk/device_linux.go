//go:build linux

package disk

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/dbgauge/dbgauge/internal/result"
)

// Describe returns what is known of the storage holding path. Facts it cannot
// read are left empty and named in the returned error, which is informative
// only: the Device is usable either way.
func Describe(path string) (result.Device, error) {
	d := result.Device{Path: path}
	dir, err := existing(path)
	if err != nil {
		return d, err
	}
	d.Path = dir
	var problems []error
	if err := mountOf(dir, &d); err != nil {
		problems = append(problems, err)
	}
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return d, errors.Join(append(problems, err)...)
	}
	if unix.Major(st.Dev) == 0 {
		// overlay, tmpfs, NFS…: no block device of its own
		return d, errors.Join(problems...)
	}
	if err := blockDevice(unix.Major(st.Dev), unix.Minor(st.Dev), &d); err != nil {
		problems = append(problems, err)
	}
	return d, errors.Join(problems...)
}

// existing returns the absolute, resolved path of path or of its nearest
// existing ancestor (a database file may not exist yet).
func existing(path string) (string, error) {
	p, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r, nil
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", fmt.Errorf("disk: no existing folder above %s", path)
		}
		p = parent
	}
}

// mountOf finds the mount holding dir in /proc/self/mountinfo: the longest
// mount point that is a prefix of dir.
func mountOf(dir string, d *result.Device) error {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	defer f.Close()
	best := -1
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 64*1024), 1024*1024)
	for s.Scan() {
		// 36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
		pre, post, ok := strings.Cut(s.Text(), " - ")
		if !ok {
			continue
		}
		a, b := strings.Fields(pre), strings.Fields(post)
		if len(a) < 6 || len(b) < 2 {
			continue
		}
		mp := unescape(a[4])
		if !within(dir, mp) || len(mp) <= best {
			continue
		}
		best = len(mp)
		d.MountPoint, d.MountOptions, d.FS, d.Source = mp, a[5], b[0], b[1]
		if len(b) > 2 {
			d.MountOptions += "," + b[2]
		}
	}
	return s.Err()
}

func within(dir, mp string) bool {
	return mp == "/" || dir == mp || strings.HasPrefix(dir, mp+"/")
}

// unescape undoes mountinfo's octal escapes (\040 is a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			var v byte
			if _, err := fmt.Sscanf(s[i+1:i+4], "%03o", &v); err == nil {
				b.WriteByte(v)
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// blockDevice follows /sys/dev/block/MAJ:MIN to the whole disk (the parent of
// a partition) and reads its queue attributes.
func blockDevice(major, minor uint32, d *result.Device) error {
	link := fmt.Sprintf("/sys/dev/block/%d:%d", major, minor)
	real, err := filepath.EvalSymlinks(link)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(real, "partition")); err == nil {
		real = filepath.Dir(real)
	}
	d.Device = filepath.Base(real)
	var problems []error
	if v, err := readTrim(filepath.Join(real, "queue", "rotational")); err == nil {
		rot := v == "1"
		d.Rotational = &rot
	} else {
		problems = append(problems, err)
	}
	if v, err := readTrim(filepath.Join(real, "queue", "write_cache")); err == nil {
		d.WriteCache = v
	} else {
		problems = append(problems, err)
	}
	if v, err := readTrim(filepath.Join(real, "device", "model")); err == nil {
		d.Model = v
	}
	return errors.Join(problems...)
}

func readTrim(path string) (string, error) {
	b, err := os.ReadFile(path)
	return strings.TrimSpace(string(b)), err
}
