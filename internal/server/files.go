package server

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Helpers the engines' managed servers share: their passwords, their
// programs in a folder of binaries, their logs' growth and tails.

// Secret returns a fresh random password for a managed server's account.
func Secret() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// FirstFile is the path of the first of names that is a file in dir (a
// program under one of its names: "mariadbd", "mysqld"), or "".
func FirstFile(dir string, names ...string) string {
	for _, n := range names {
		p := filepath.Join(dir, n)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}

// MiB formats a byte count in MiB, as recovery notes print it.
func MiB(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// ReadFrom returns a file's text from byte off on (at most 64 MiB).
func ReadFrom(path string, off int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(f, 64<<20))
	return string(b)
}

// LastLines joins the last n non-empty lines of s with " | ", for an error.
func LastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			lines = append(lines, t)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
