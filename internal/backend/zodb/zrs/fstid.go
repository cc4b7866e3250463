package zrs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// lastTID reads a FileStorage file's last committed transaction id, read
// from its end as FileStorage reads it: each transaction record ends with
// its length again (8 bytes), so the last one starts that many bytes (and
// those 8) before the end; its header is the tid (8 bytes), the length
// again and a status byte, 'c' while a transaction is written but not yet
// finished (then the one before is the last committed). A file of its
// magic alone gives the zero tid. It is read beside the server that
// writes it (the file only grows), for the replicas' lag.
func lastTID(path string) (tid [8]byte, size int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return tid, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return tid, 0, err
	}
	size = fi.Size()
	pos := size
	for range 4 {
		if pos <= 4 { // the magic ("FS21") alone
			return tid, size, nil
		}
		var b [17]byte
		if _, err := f.ReadAt(b[:8], pos-8); err != nil {
			return tid, size, err
		}
		tl := int64(binary.BigEndian.Uint64(b[:8]))
		start := pos - 8 - tl
		if tl < 17 || start < 4 {
			return tid, size, fmt.Errorf("%s: no transaction ends at %d", path, pos)
		}
		if _, err := f.ReadAt(b[:], start); err != nil && !errors.Is(err, io.EOF) {
			return tid, size, err
		}
		if int64(binary.BigEndian.Uint64(b[8:16])) != tl {
			return tid, size, fmt.Errorf("%s: the transaction at %d has another length than its end says", path, start)
		}
		if b[16] != 'c' {
			copy(tid[:], b[:8])
			return tid, size, nil
		}
		pos = start
	}
	return tid, size, fmt.Errorf("%s: no committed transaction at its end", path)
}

// tidTime is the moment a ZODB transaction id stands for (ZODB's
// TimeStamp): its first 4 bytes the minutes since 1900-01-01 UTC, counted
// in months of 31 days and years of 12 months, its last 4 the seconds in
// the minute as a fraction of 2**32 of 60 s.
func tidTime(tid [8]byte) time.Time {
	a := int(binary.BigEndian.Uint32(tid[:4]))
	b := binary.BigEndian.Uint32(tid[4:])
	minute := a % 60
	a /= 60
	hour := a % 24
	a /= 24
	day := a%31 + 1
	a /= 31
	month := a%12 + 1
	year := a/12 + 1900
	sec := time.Duration(float64(b) * 60 / (1 << 32) * float64(time.Second))
	return time.Date(year, time.Month(month), day, hour, minute, 0, 0, time.UTC).Add(sec)
}
