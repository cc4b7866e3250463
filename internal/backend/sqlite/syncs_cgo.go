//go:build cgo

package sqlite

/*
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

// The parts of sqlite3.h a VFS shim needs (its stable ABI, the header's
// own words), declared here: the build needs no libsqlite3-dev, and the
// functions are those of the SQLite go-sqlite3 links into the binary.
typedef long long dg_i64;
struct dg_io;
typedef struct dg_file { const struct dg_io *pMethods; } dg_file;

struct dg_io {
	int iVersion;
	int (*xClose)(dg_file*);
	int (*xRead)(dg_file*, void*, int, dg_i64);
	int (*xWrite)(dg_file*, const void*, int, dg_i64);
	int (*xTruncate)(dg_file*, dg_i64);
	int (*xSync)(dg_file*, int);
	int (*xFileSize)(dg_file*, dg_i64*);
	int (*xLock)(dg_file*, int);
	int (*xUnlock)(dg_file*, int);
	int (*xCheckReservedLock)(dg_file*, int*);
	int (*xFileControl)(dg_file*, int, void*);
	int (*xSectorSize)(dg_file*);
	int (*xDeviceCharacteristics)(dg_file*);
	int (*xShmMap)(dg_file*, int, int, int, void volatile**);
	int (*xShmLock)(dg_file*, int, int, int);
	void (*xShmBarrier)(dg_file*);
	int (*xShmUnmap)(dg_file*, int);
	int (*xFetch)(dg_file*, dg_i64, int, void**);
	int (*xUnfetch)(dg_file*, dg_i64, void*);
};

typedef struct dg_vfs dg_vfs;
struct dg_vfs {
	int iVersion;
	int szOsFile;
	int mxPathname;
	dg_vfs *pNext;
	const char *zName;
	void *pAppData;
	int (*xOpen)(dg_vfs*, const char*, dg_file*, int, int*);
	// xDelete to xGetLastError (version 1), xCurrentTimeInt64 (2),
	// xSetSystemCall to xNextSystemCall (3): copied from the default VFS,
	// never called here.
	void *rest[15];
};

extern dg_vfs *sqlite3_vfs_find(const char*);
extern int sqlite3_vfs_register(dg_vfs*, int);
extern int sqlite3_vfs_unregister(dg_vfs*);

#define DG_OPEN_MAIN_DB 0x00000100
#define DG_OPEN_WAL     0x00080000

enum { DG_WAL, DG_DB, DG_OTHER };

// dg_counter is one database's shim: a VFS of its own over the default
// one, and the xSync calls its files made and the bytes they wrote and
// read, by kind.
typedef struct dg_counter {
	dg_vfs vfs;
	dg_vfs *root;
	char name[64];
	dg_i64 syncs[3];
	dg_i64 written[3];
	dg_i64 read[3];
} dg_counter;

// dg_cfile is a file opened through the shim; the default VFS's own file
// follows it in the same allocation.
typedef struct dg_cfile {
	dg_file base;
	dg_counter *c;
	dg_file *real;
	int kind;
} dg_cfile;

#define REAL(f) (((dg_cfile*)(f))->real)

static int dgClose(dg_file *f) { return REAL(f)->pMethods->xClose(REAL(f)); }
static int dgRead(dg_file *f, void *b, int n, dg_i64 o) {
	dg_cfile *p = (dg_cfile*)f;
	int rc = p->real->pMethods->xRead(p->real, b, n, o);
	if (rc == 0) {
		__atomic_fetch_add(&p->c->read[p->kind], n, __ATOMIC_RELAXED);
	}
	return rc;
}
static int dgWrite(dg_file *f, const void *b, int n, dg_i64 o) {
	dg_cfile *p = (dg_cfile*)f;
	int rc = p->real->pMethods->xWrite(p->real, b, n, o);
	if (rc == 0) {
		__atomic_fetch_add(&p->c->written[p->kind], n, __ATOMIC_RELAXED);
	}
	return rc;
}
static int dgTruncate(dg_file *f, dg_i64 n) { return REAL(f)->pMethods->xTruncate(REAL(f), n); }
static int dgSync(dg_file *f, int flags) {
	dg_cfile *p = (dg_cfile*)f;
	int rc = p->real->pMethods->xSync(p->real, flags);
	if (rc == 0) {
		__atomic_fetch_add(&p->c->syncs[p->kind], 1, __ATOMIC_RELAXED);
	}
	return rc;
}
static int dgFileSize(dg_file *f, dg_i64 *n) { return REAL(f)->pMethods->xFileSize(REAL(f), n); }
static int dgLock(dg_file *f, int l) { return REAL(f)->pMethods->xLock(REAL(f), l); }
static int dgUnlock(dg_file *f, int l) { return REAL(f)->pMethods->xUnlock(REAL(f), l); }
static int dgCheckReservedLock(dg_file *f, int *r) { return REAL(f)->pMethods->xCheckReservedLock(REAL(f), r); }
static int dgFileControl(dg_file *f, int op, void *a) { return REAL(f)->pMethods->xFileControl(REAL(f), op, a); }
static int dgSectorSize(dg_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int dgDeviceCharacteristics(dg_file *f) { return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f)); }
static int dgShmMap(dg_file *f, int pg, int sz, int ext, void volatile **pp) { return REAL(f)->pMethods->xShmMap(REAL(f), pg, sz, ext, pp); }
static int dgShmLock(dg_file *f, int o, int n, int fl) { return REAL(f)->pMethods->xShmLock(REAL(f), o, n, fl); }
static void dgShmBarrier(dg_file *f) { REAL(f)->pMethods->xShmBarrier(REAL(f)); }
static int dgShmUnmap(dg_file *f, int del) { return REAL(f)->pMethods->xShmUnmap(REAL(f), del); }
static int dgFetch(dg_file *f, dg_i64 o, int n, void **pp) { return REAL(f)->pMethods->xFetch(REAL(f), o, n, pp); }
static int dgUnfetch(dg_file *f, dg_i64 o, void *p) { return REAL(f)->pMethods->xUnfetch(REAL(f), o, p); }

#define DG_IO(v) { v, dgClose, dgRead, dgWrite, dgTruncate, dgSync, dgFileSize, dgLock, dgUnlock, \
	dgCheckReservedLock, dgFileControl, dgSectorSize, dgDeviceCharacteristics, \
	dgShmMap, dgShmLock, dgShmBarrier, dgShmUnmap, dgFetch, dgUnfetch }

// One table of methods per version of the default VFS's: SQLite calls
// only the methods a file's version has.
static const struct dg_io dg_io_v[3] = { DG_IO(1), DG_IO(2), DG_IO(3) };

static int dgOpen(dg_vfs *v, const char *name, dg_file *f, int flags, int *out) {
	dg_counter *c = (dg_counter*)v->pAppData;
	dg_cfile *p = (dg_cfile*)f;
	p->c = c;
	p->real = (dg_file*)&p[1];
	p->kind = (flags & DG_OPEN_WAL) ? DG_WAL : (flags & DG_OPEN_MAIN_DB) ? DG_DB : DG_OTHER;
	int rc = c->root->xOpen(c->root, name, p->real, flags, out);
	p->base.pMethods = 0;
	if (p->real->pMethods) {
		int ver = p->real->pMethods->iVersion;
		p->base.pMethods = &dg_io_v[ver >= 3 ? 2 : ver <= 1 ? 0 : 1];
	}
	return rc;
}

static dg_counter *dg_new(const char *name) {
	dg_vfs *root = sqlite3_vfs_find(0);
	if (!root) {
		return 0;
	}
	dg_counter *c = calloc(1, sizeof *c);
	if (!c) {
		return 0;
	}
	int ver = root->iVersion > 3 ? 3 : root->iVersion;
	size_t n = offsetof(dg_vfs, rest) + (ver >= 3 ? 15 : ver == 2 ? 12 : 11) * sizeof(void*);
	memcpy(&c->vfs, root, n);
	c->vfs.iVersion = ver;
	c->vfs.szOsFile = (int)sizeof(dg_cfile) + root->szOsFile;
	c->vfs.pNext = 0;
	strncpy(c->name, name, sizeof c->name - 1);
	c->vfs.zName = c->name;
	c->vfs.pAppData = c;
	c->vfs.xOpen = dgOpen;
	c->root = root;
	if (sqlite3_vfs_register(&c->vfs, 0) != 0) {
		free(c);
		return 0;
	}
	return c;
}

static dg_i64 dg_syncs(dg_counter *c, int kind) { return __atomic_load_n(&c->syncs[kind], __ATOMIC_RELAXED); }
static dg_i64 dg_written(dg_counter *c, int kind) { return __atomic_load_n(&c->written[kind], __ATOMIC_RELAXED); }
static dg_i64 dg_read(dg_counter *c, int kind) { return __atomic_load_n(&c->read[kind], __ATOMIC_RELAXED); }

static void dg_unregister(dg_counter *c) { sqlite3_vfs_unregister(&c->vfs); }
*/
import "C"

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// syncCounter is a database's VFS shim over SQLite's default VFS: its
// connections open their files through it (file:PATH?vfs=NAME), and it
// counts the xSync calls SQLite makes on them (each an fsync or fdatasync
// of the default VFS), the flushes SQLite itself does not count, and the
// bytes its xWrite and xRead calls moved. Every call goes to the default
// VFS unchanged.
type syncCounter struct {
	c    *C.dg_counter
	name string
}

var shims atomic.Int64

// newSyncCounter registers a shim under a name of its own in this process.
func newSyncCounter() (*syncCounter, error) {
	name := fmt.Sprintf("dbgauge-syncs-%d", shims.Add(1))
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	c := C.dg_new(cs)
	if c == nil {
		return nil, fmt.Errorf("sqlite: cannot register the VFS that counts syncs (%s)", name)
	}
	return &syncCounter{c: c, name: name}, nil
}

// syncs returns the xSync calls made so far on the WAL, on the database
// file, and on any other file (a rollback journal).
func (s *syncCounter) syncs() (wal, db, other int64) {
	return int64(C.dg_syncs(s.c, C.DG_WAL)), int64(C.dg_syncs(s.c, C.DG_DB)), int64(C.dg_syncs(s.c, C.DG_OTHER))
}

// bytes returns the bytes written so far to the WAL, to the database file
// and to any other file (a rollback journal), and read from the database
// file (what missed SQLite's page cache: the OS's may have held it).
func (s *syncCounter) bytes() (walWritten, dbWritten, otherWritten, dbRead int64) {
	return int64(C.dg_written(s.c, C.DG_WAL)), int64(C.dg_written(s.c, C.DG_DB)), int64(C.dg_written(s.c, C.DG_OTHER)), int64(C.dg_read(s.c, C.DG_DB))
}

// unregister takes the shim's name out of SQLite's list once the
// database's connections are closed. Its memory is kept: a connection
// database/sql closes later may still use it (a few hundred bytes per
// database opened).
func (s *syncCounter) unregister() { C.dg_unregister(s.c) }
