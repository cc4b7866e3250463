//go:build cgo

package gdbm

// A small binding to libgdbm (apt-get install libgdbm-dev). Each C helper
// reads gdbm's error state in the same C call that failed: gdbm_errno is
// thread-local and a goroutine may move to another thread between two cgo
// calls. A file handle is not safe for concurrent use: callers hold db.mu.

/*
#cgo LDFLAGS: -lgdbm
#include <stdlib.h>
#include <errno.h>
#include <gdbm.h>

typedef struct { int code; int sys; } dg_err;

static char dg_empty[1];

static datum dg_datum(void *p, int n) {
	datum d;
	d.dptr = p ? (char *)p : dg_empty; // gdbm refuses a NULL dptr, even for 0 bytes
	d.dsize = n;
	return d;
}

static void dg_fail(GDBM_FILE f, dg_err *e) {
	e->code = gdbm_last_errno(f);
	e->sys = gdbm_check_syserr(e->code) ? gdbm_last_syserr(f) : 0;
}

static GDBM_FILE dg_open(const char *name, int block_size, int flags, dg_err *e) {
	GDBM_FILE f;
	errno = 0;
	f = gdbm_open(name, block_size, flags, 0644, NULL);
	if (f == NULL) {
		e->code = gdbm_errno;
		e->sys = gdbm_check_syserr(e->code) ? errno : 0;
	}
	return f;
}

static int dg_close(GDBM_FILE f, dg_err *e) {
	errno = 0;
	if (gdbm_close(f) != 0) {
		e->code = gdbm_errno;
		e->sys = gdbm_check_syserr(e->code) ? errno : 0;
		return -1;
	}
	return 0;
}

static int dg_store(GDBM_FILE f, void *k, int kn, void *v, int vn, dg_err *e) {
	if (gdbm_store(f, dg_datum(k, kn), dg_datum(v, vn), GDBM_REPLACE) != 0) {
		dg_fail(f, e);
		return -1;
	}
	return 0;
}

// 1: found (out->dptr is malloc'd), 0: not found, -1: error.
static int dg_fetch(GDBM_FILE f, void *k, int kn, datum *out, dg_err *e) {
	*out = gdbm_fetch(f, dg_datum(k, kn));
	if (out->dptr != NULL)
		return 1;
	if (gdbm_last_errno(f) == GDBM_ITEM_NOT_FOUND)
		return 0;
	dg_fail(f, e);
	return -1;
}

// 1: deleted, 0: not there, -1: error.
static int dg_delete(GDBM_FILE f, void *k, int kn, dg_err *e) {
	if (gdbm_delete(f, dg_datum(k, kn)) == 0)
		return 1;
	if (gdbm_last_errno(f) == GDBM_ITEM_NOT_FOUND)
		return 0;
	dg_fail(f, e);
	return -1;
}

// One step of a walk: the first key (first != 0) or the key after prev, and
// its value. 1: key and value, 2: a key gdbm_fetch cannot find, 0: no more
// keys, -1: error. key->dptr and val->dptr are malloc'd.
static int dg_step(GDBM_FILE f, int first, datum prev, datum *key, datum *val, dg_err *e) {
	val->dptr = NULL;
	val->dsize = 0;
	*key = first ? gdbm_firstkey(f) : gdbm_nextkey(f, prev);
	if (key->dptr == NULL) {
		if (gdbm_last_errno(f) == GDBM_ITEM_NOT_FOUND)
			return 0;
		dg_fail(f, e);
		return -1;
	}
	*val = gdbm_fetch(f, *key);
	if (val->dptr != NULL)
		return 1;
	if (gdbm_last_errno(f) == GDBM_ITEM_NOT_FOUND)
		return 2;
	dg_fail(f, e);
	free(key->dptr);
	key->dptr = NULL;
	return -1;
}

static int dg_sync(GDBM_FILE f, dg_err *e) {
	if (gdbm_sync(f) != 0) {
		dg_fail(f, e);
		return -1;
	}
	return 0;
}

static int dg_count(GDBM_FILE f, unsigned long long *n, dg_err *e) {
	gdbm_count_t c = 0;
	if (gdbm_count(f, &c) != 0) {
		dg_fail(f, e);
		return -1;
	}
	*n = c;
	return 0;
}

static int dg_bucket_count(GDBM_FILE f, size_t *n, dg_err *e) {
	if (gdbm_bucket_count(f, n) != 0) {
		dg_fail(f, e);
		return -1;
	}
	return 0;
}

static int dg_avail_verify(GDBM_FILE f, dg_err *e) {
	if (gdbm_avail_verify(f) != 0) {
		dg_fail(f, e);
		return -1;
	}
	return 0;
}

static int dg_getint(GDBM_FILE f, int opt, int *v, dg_err *e) {
	if (gdbm_setopt(f, opt, v, sizeof(*v)) != 0) {
		dg_fail(f, e);
		return -1;
	}
	return 0;
}

static int dg_getsize(GDBM_FILE f, int opt, size_t *v, dg_err *e) {
	if (gdbm_setopt(f, opt, v, sizeof(*v)) != 0) {
		dg_fail(f, e);
		return -1;
	}
	return 0;
}

static int dg_setint(GDBM_FILE f, int opt, int v, dg_err *e) {
	return dg_getint(f, opt, &v, e);
}

static int dg_setsize(GDBM_FILE f, int opt, size_t v, dg_err *e) {
	return dg_getsize(f, opt, &v, e);
}

static void dg_cache_stats(GDBM_FILE f, size_t *accesses, size_t *hits, size_t *buckets) {
	gdbm_get_cache_stats(f, accesses, hits, buckets, NULL, 0);
}

static int dg_version(int i) { return gdbm_version_number[i]; }
*/
import "C"

import (
	"fmt"
	"math"
	"syscall"
	"unsafe"
)

const cgoEnabled = true

// The Go copies of gdbm's error codes (errors.go) must equal the header's:
// an array of negative length does not compile.
var (
	_ [codeItemNotFound - C.GDBM_ITEM_NOT_FOUND]struct{}
	_ [C.GDBM_ITEM_NOT_FOUND - codeItemNotFound]struct{}
	_ [codeMallocError - C.GDBM_MALLOC_ERROR]struct{}
	_ [C.GDBM_MALLOC_ERROR - codeMallocError]struct{}
	_ [codeCantBeWriter - C.GDBM_CANT_BE_WRITER]struct{}
	_ [C.GDBM_CANT_BE_WRITER - codeCantBeWriter]struct{}
	_ [codeMalformedData - C.GDBM_MALFORMED_DATA]struct{}
	_ [C.GDBM_MALFORMED_DATA - codeMalformedData]struct{}
	_ [codeNeedRecovery - C.GDBM_NEED_RECOVERY]struct{}
	_ [C.GDBM_NEED_RECOVERY - codeNeedRecovery]struct{}
	_ [codeDirOverflow - C.GDBM_DIR_OVERFLOW]struct{}
	_ [C.GDBM_DIR_OVERFLOW - codeDirOverflow]struct{}
	_ [codeFileSyncError - C.GDBM_FILE_SYNC_ERROR]struct{}
	_ [C.GDBM_FILE_SYNC_ERROR - codeFileSyncError]struct{}
	_ [codeErrUsage - C.GDBM_ERR_USAGE]struct{}
	_ [C.GDBM_ERR_USAGE - codeErrUsage]struct{}
)

// libVersion is the linked libgdbm's version ("1.23.0").
func libVersion() string {
	return fmt.Sprintf("%d.%d.%d", C.dg_version(0), C.dg_version(1), C.dg_version(2))
}

// libBanner is gdbm_version, the library's own banner.
func libBanner() string { return C.GoString(C.gdbm_version) }

// fileOptions are applied to every file the database opens.
type fileOptions struct {
	blockSize int // gdbm_open's block_size: new files only; 0 = the file system's
	noMmap    bool
	cacheSize int // GDBM_SETCACHESIZE in buckets; -1 = gdbm's default (automatic)
	centfree  int // GDBM_SETCENTFREE; -1 = default
	coalesce  int // GDBM_SETCOALESCEBLKS; -1 = default
}

// file is one open gdbm file.
type file struct {
	h    C.GDBM_FILE
	path string
	// centfreeFlip: GDBM_GETCENTFREE reads back the opposite of the
	// setting (gdbm 1.23 returns !central_free). Learnt at open, where the
	// setting is off on every handle: a getter saying on is inverted.
	centfreeFlip bool
}

func fail(op, path string, e C.dg_err) error {
	return &gdbmError{Op: op, Path: path, Code: int(e.code), Sys: syscall.Errno(e.sys), Msg: C.GoString(C.gdbm_strerror(e.code))}
}

// openFile opens (creating if missing) a gdbm file for writing, without
// gdbm's file locking (the workload is in one process, which serialises
// access) and closed on exec.
func openFile(path string, o fileOptions) (*file, error) {
	flags := C.GDBM_WRCREAT | C.GDBM_NOLOCK | C.GDBM_CLOEXEC
	if o.noMmap {
		flags |= C.GDBM_NOMMAP
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var e C.dg_err
	h := C.dg_open(cpath, C.int(o.blockSize), C.int(flags), &e)
	if h == nil {
		return nil, fail("gdbm_open", path, e)
	}
	f := &file{h: h, path: path}
	var raw C.int
	if C.dg_getint(h, C.GDBM_GETCENTFREE, &raw, &e) == 0 {
		f.centfreeFlip = raw != 0
	}
	set := func(what string, opt C.int, v int) error {
		if v < 0 {
			return nil
		}
		if C.dg_setint(h, opt, C.int(v), &e) != 0 {
			return fail("gdbm_setopt "+what, path, e)
		}
		return nil
	}
	var err error
	if o.cacheSize >= 0 && C.dg_setsize(h, C.GDBM_SETCACHESIZE, C.size_t(o.cacheSize), &e) != 0 {
		err = fail("gdbm_setopt GDBM_SETCACHESIZE", path, e)
	}
	if err == nil {
		err = set("GDBM_SETCENTFREE", C.GDBM_SETCENTFREE, o.centfree)
	}
	if err == nil {
		err = set("GDBM_SETCOALESCEBLKS", C.GDBM_SETCOALESCEBLKS, o.coalesce)
	}
	if err != nil {
		_ = f.close()
		return nil, err
	}
	return f, nil
}

func (f *file) close() error {
	if f.h == nil {
		return nil
	}
	var e C.dg_err
	h := f.h
	f.h = nil
	if C.dg_close(h, &e) != 0 {
		return fail("gdbm_close", f.path, e)
	}
	return nil
}

// ptr returns b's first byte for C (nil for an empty b: the C side
// substitutes a pointer gdbm accepts) and its length.
func ptr(b []byte) (unsafe.Pointer, C.int, error) {
	if len(b) > math.MaxInt32 {
		return nil, 0, fmt.Errorf("gdbm: %d bytes do not fit in a datum", len(b))
	}
	if len(b) == 0 {
		return nil, 0, nil
	}
	return unsafe.Pointer(&b[0]), C.int(len(b)), nil
}

func (f *file) put(k, v []byte) error {
	kp, kn, err := ptr(k)
	if err != nil {
		return err
	}
	vp, vn, err := ptr(v)
	if err != nil {
		return err
	}
	var e C.dg_err
	if C.dg_store(f.h, kp, kn, vp, vn, &e) != 0 {
		return fail("gdbm_store", f.path, e)
	}
	return nil
}

func (f *file) get(k []byte) ([]byte, bool, error) {
	kp, kn, err := ptr(k)
	if err != nil {
		return nil, false, err
	}
	var out C.datum
	var e C.dg_err
	switch C.dg_fetch(f.h, kp, kn, &out, &e) {
	case 1:
		v := C.GoBytes(unsafe.Pointer(out.dptr), out.dsize)
		C.free(unsafe.Pointer(out.dptr))
		return v, true, nil
	case 0:
		return nil, false, nil
	default:
		return nil, false, fail("gdbm_fetch", f.path, e)
	}
}

// del deletes k; a missing key is not an error.
func (f *file) del(k []byte) error {
	kp, kn, err := ptr(k)
	if err != nil {
		return err
	}
	var e C.dg_err
	if C.dg_delete(f.h, kp, kn, &e) < 0 {
		return fail("gdbm_delete", f.path, e)
	}
	return nil
}

// walk calls fn for every key gdbm_firstkey/gdbm_nextkey return, in gdbm's
// (hash) order, with its value; found is false when gdbm_fetch cannot find
// a key the walk returned.
func (f *file) walk(fn func(k, v []byte, found bool) error) error {
	var prev, key, val C.datum
	var e C.dg_err
	defer func() {
		if prev.dptr != nil {
			C.free(unsafe.Pointer(prev.dptr))
		}
	}()
	first := C.int(1)
	for {
		r := C.dg_step(f.h, first, prev, &key, &val, &e)
		first = 0
		if prev.dptr != nil {
			C.free(unsafe.Pointer(prev.dptr))
			prev.dptr = nil
		}
		switch r {
		case 0:
			return nil
		case -1:
			return fail("gdbm_nextkey", f.path, e)
		}
		prev = key
		k := C.GoBytes(unsafe.Pointer(key.dptr), key.dsize)
		var v []byte
		if r == 1 {
			v = C.GoBytes(unsafe.Pointer(val.dptr), val.dsize)
			C.free(unsafe.Pointer(val.dptr))
		}
		if err := fn(k, v, r == 1); err != nil {
			return err
		}
	}
}

// sync is gdbm_sync: msync of the mapped region and fsync of the file.
func (f *file) sync() error {
	var e C.dg_err
	if C.dg_sync(f.h, &e) != 0 {
		return fail("gdbm_sync", f.path, e)
	}
	return nil
}

// count is gdbm_count: the records in the file (it reads every bucket).
func (f *file) count() (int64, error) {
	var n C.ulonglong
	var e C.dg_err
	if C.dg_count(f.h, &n, &e) != 0 {
		return 0, fail("gdbm_count", f.path, e)
	}
	return int64(n), nil
}

// buckets is gdbm_bucket_count: the distinct buckets the hash directory
// points to.
func (f *file) buckets() (int64, error) {
	var n C.size_t
	var e C.dg_err
	if C.dg_bucket_count(f.h, &n, &e) != 0 {
		return 0, fail("gdbm_bucket_count", f.path, e)
	}
	return int64(n), nil
}

// verifyAvail is gdbm_avail_verify: the free-space lists are consistent.
func (f *file) verifyAvail() error {
	var e C.dg_err
	if C.dg_avail_verify(f.h, &e) != 0 {
		return fail("gdbm_avail_verify", f.path, e)
	}
	return nil
}

// needsRecovery reports gdbm_needs_recovery: a fatal error happened on
// this handle and gdbm refuses further use until gdbm_recover.
func (f *file) needsRecovery() bool { return C.gdbm_needs_recovery(f.h) != 0 }

// fileInfo is what gdbm_setopt's GDBM_GET* options read back from a file.
type fileInfo struct {
	BlockSize  int  // GDBM_GETBLOCKSIZE
	CacheSize  int  // GDBM_GETCACHESIZE: buckets the cache holds now
	CacheAuto  bool // GDBM_GETCACHEAUTO: the cache grows as needed
	Mmap       bool // GDBM_GETMMAP
	SyncMode   bool // GDBM_GETSYNCMODE: GDBM_SYNC, a fsync after every write
	Centfree   bool // GDBM_GETCENTFREE
	Coalesce   bool // GDBM_GETCOALESCEBLKS
	DirDepth   int  // GDBM_GETDIRDEPTH: the hash directory has 2^depth entries
	BucketSize int  // GDBM_GETBUCKETSIZE: records a bucket holds
}

func (f *file) info() (fileInfo, error) {
	var fi fileInfo
	var e C.dg_err
	ints := []struct {
		opt  C.int
		name string
		set  func(int)
	}{
		{C.GDBM_GETBLOCKSIZE, "GDBM_GETBLOCKSIZE", func(v int) { fi.BlockSize = v }},
		{C.GDBM_GETCACHEAUTO, "GDBM_GETCACHEAUTO", func(v int) { fi.CacheAuto = v != 0 }},
		{C.GDBM_GETMMAP, "GDBM_GETMMAP", func(v int) { fi.Mmap = v != 0 }},
		{C.GDBM_GETSYNCMODE, "GDBM_GETSYNCMODE", func(v int) { fi.SyncMode = v != 0 }},
		{C.GDBM_GETCENTFREE, "GDBM_GETCENTFREE", func(v int) { fi.Centfree = (v != 0) != f.centfreeFlip }},
		{C.GDBM_GETCOALESCEBLKS, "GDBM_GETCOALESCEBLKS", func(v int) { fi.Coalesce = v != 0 }},
		{C.GDBM_GETDIRDEPTH, "GDBM_GETDIRDEPTH", func(v int) { fi.DirDepth = v }},
		{C.GDBM_GETBUCKETSIZE, "GDBM_GETBUCKETSIZE", func(v int) { fi.BucketSize = v }},
	}
	for _, o := range ints {
		var v C.int
		if C.dg_getint(f.h, o.opt, &v, &e) != 0 {
			return fi, fail("gdbm_setopt "+o.name, f.path, e)
		}
		o.set(int(v))
	}
	var size C.size_t
	if C.dg_getsize(f.h, C.GDBM_GETCACHESIZE, &size, &e) != 0 {
		return fi, fail("gdbm_setopt GDBM_GETCACHESIZE", f.path, e)
	}
	fi.CacheSize = int(size)
	return fi, nil
}

// cacheStats is gdbm_get_cache_stats: bucket cache accesses and hits since
// the file was opened, and the buckets the cache holds.
func (f *file) cacheStats() (accesses, hits, cached int64) {
	var a, h, n C.size_t
	C.dg_cache_stats(f.h, &a, &h, &n)
	return int64(a), int64(h), int64(n)
}
