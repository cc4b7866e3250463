//go:build cgo

package bdb

// A small binding to Berkeley DB 5.3 (apt-get install libdb5.3-dev): a
// transactional environment, hash and B-tree databases, cursors, the
// environment's flags and statistics. Handles are opened with DB_THREAD:
// free-threaded, so that many goroutines use them at once; a transaction
// is used by one goroutine at a time. Every function returns Berkeley
// DB's own code (0: done), read in the same C call.

/*
#cgo LDFLAGS: -ldb-5.3
#include <stdlib.h>
#include <string.h>
#include <db.h>

static int bd_env_open(DB_ENV **out, const char *home, u_int32_t txnflags, u_int32_t cache) {
	DB_ENV *e;
	int r = db_env_create(&e, 0);
	if (r != 0) return r;
	e->set_lk_detect(e, DB_LOCK_DEFAULT);
	// Hundreds of clients each hold page locks: the defaults (1,000) run out.
	e->set_lk_max_lockers(e, 100000);
	e->set_lk_max_locks(e, 1000000);
	e->set_lk_max_objects(e, 1000000);
	e->set_tx_max(e, 10000);
	if (cache > 0) e->set_cachesize(e, 0, cache, 1);
	if (txnflags != 0) e->set_flags(e, txnflags, 1);
	r = e->open(e, home, DB_CREATE | DB_INIT_TXN | DB_INIT_LOCK | DB_INIT_LOG | DB_INIT_MPOOL | DB_RECOVER | DB_THREAD, 0644);
	if (r != 0) { e->close(e, 0); return r; }
	*out = e;
	return 0;
}

static int bd_env_close(DB_ENV *e) { return e->close(e, 0); }

static int bd_env_flags(DB_ENV *e, u_int32_t *flags) { return e->get_flags(e, flags); }

static int bd_cache(DB_ENV *e, u_int32_t *gb, u_int32_t *bytes) { int n; return e->get_cachesize(e, gb, bytes, &n); }

static int bd_log_flush(DB_ENV *e) { return e->log_flush(e, NULL); }

static int bd_stats(DB_ENV *e, uintmax_t *commits, uintmax_t *aborts, uintmax_t *syncs, uintmax_t *writes, uintmax_t *deadlocks) {
	DB_TXN_STAT *ts; DB_LOG_STAT *ls; DB_LOCK_STAT *ks;
	int r = e->txn_stat(e, &ts, 0);
	if (r != 0) return r;
	*commits = ts->st_ncommits; *aborts = ts->st_naborts;
	free(ts);
	if ((r = e->log_stat(e, &ls, 0)) != 0) return r;
	*syncs = ls->st_scount; *writes = ls->st_wcount;
	free(ls);
	if ((r = e->lock_stat(e, &ks, 0)) != 0) return r;
	*deadlocks = ks->st_ndeadlocks;
	free(ks);
	return 0;
}

static int bd_db_open(DB_ENV *e, DB **out, const char *file, int hash, u_int32_t pagesize, int create) {
	DB *d;
	int r = db_create(&d, e, 0);
	if (r != 0) return r;
	if (pagesize > 0) d->set_pagesize(d, pagesize);
	r = d->open(d, NULL, file, NULL, hash ? DB_HASH : DB_BTREE, (create ? DB_CREATE : 0) | DB_AUTO_COMMIT | DB_THREAD, 0644);
	if (r != 0) { d->close(d, 0); return r; }
	*out = d;
	return 0;
}

static int bd_db_close(DB *d) { return d->close(d, 0); }

static int bd_db_pagesize(DB *d, u_int32_t *n) { return d->get_pagesize(d, n); }

static int bd_db_remove(DB_ENV *e, const char *file) { return e->dbremove(e, NULL, file, NULL, DB_AUTO_COMMIT); }

static int bd_begin(DB_ENV *e, DB_TXN **t) { return e->txn_begin(e, NULL, t, 0); }
static int bd_commit(DB_TXN *t) { return t->commit(t, 0); }
static int bd_abort(DB_TXN *t) { return t->abort(t); }

static void bd_dbt(DBT *d, void *p, u_int32_t n) { memset(d, 0, sizeof *d); d->data = p; d->size = n; }

static int bd_get(DB *d, DB_TXN *t, void *k, u_int32_t kn, void **v, u_int32_t *vn) {
	DBT key, data;
	bd_dbt(&key, k, kn);
	memset(&data, 0, sizeof data);
	data.flags = DB_DBT_MALLOC;
	int r = d->get(d, t, &key, &data, 0);
	if (r == 0) { *v = data.data; *vn = data.size; }
	return r;
}

static int bd_put(DB *d, DB_TXN *t, void *k, u_int32_t kn, void *v, u_int32_t vn) {
	DBT key, data;
	bd_dbt(&key, k, kn);
	bd_dbt(&data, v, vn);
	return d->put(d, t, &key, &data, 0);
}

static int bd_del(DB *d, DB_TXN *t, void *k, u_int32_t kn) {
	DBT key;
	bd_dbt(&key, k, kn);
	return d->del(d, t, &key, 0);
}

static int bd_cursor(DB *d, DB_TXN *t, DBC **c) { return d->cursor(d, t, c, 0); }
static int bd_cursor_close(DBC *c) { return c->close(c); }

// bd_next reads the next record (DB_NEXT), or the first ≥ key (DB_SET_RANGE,
// a B-tree's), into malloc'd memory the caller frees.
static int bd_next(DBC *c, u_int32_t flag, void *from, u_int32_t fromn, void **k, u_int32_t *kn, void **v, u_int32_t *vn) {
	DBT key, data;
	memset(&key, 0, sizeof key);
	memset(&data, 0, sizeof data);
	if (flag == DB_SET_RANGE) {
		// DB_SET_RANGE reads its key from key and writes the found one back.
		key.data = malloc(fromn > 0 ? fromn : 1);
		memcpy(key.data, from, fromn);
		key.size = fromn;
	}
	key.flags = DB_DBT_MALLOC;
	data.flags = DB_DBT_MALLOC;
	void *asked = key.data;
	int r = c->get(c, &key, &data, flag);
	if (r == 0) { *k = key.data; *kn = key.size; *v = data.data; *vn = data.size; }
	if (asked != NULL && (r != 0 || key.data != asked)) free(asked);
	return r;
}
*/
import "C"

import (
	"unsafe"
)

// cgoEnabled: this build has the binding.
const cgoEnabled = true

// The codes dbgauge reads.
const (
	codeNotFound   = C.DB_NOTFOUND
	codeDeadlock   = C.DB_LOCK_DEADLOCK
	codeNotGranted = C.DB_LOCK_NOTGRANTED
	codeRecovery   = C.DB_RUNRECOVERY
	flagNoSync     = C.DB_TXN_NOSYNC
	flagWriteNoSyn = C.DB_TXN_WRITE_NOSYNC
	version        = C.DB_VERSION_STRING
)

type env struct{ e *C.DB_ENV }

type table struct {
	d    *C.DB
	hash bool
}

type txn struct{ t *C.DB_TXN }

// ptr is the address of b's first byte, or nil for an empty b: Berkeley DB
// reads size bytes only.
func ptr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

func openEnv(home string, flags uint32, cache uint32) (*env, error) {
	ch := C.CString(home)
	defer C.free(unsafe.Pointer(ch))
	var e *C.DB_ENV
	if r := C.bd_env_open(&e, ch, C.u_int32_t(flags), C.u_int32_t(cache)); r != 0 {
		return nil, codeErr(r, "open the environment "+home)
	}
	return &env{e}, nil
}

func (e *env) close() error { return codeErr(C.bd_env_close(e.e), "close the environment") }

func (e *env) flags() (uint32, error) {
	var f C.u_int32_t
	r := C.bd_env_flags(e.e, &f)
	return uint32(f), codeErr(r, "DB_ENV->get_flags")
}

func (e *env) cacheBytes() (int64, error) {
	var gb, b C.u_int32_t
	r := C.bd_cache(e.e, &gb, &b)
	return int64(gb)<<30 + int64(b), codeErr(r, "DB_ENV->get_cachesize")
}

func (e *env) logFlush() error { return codeErr(C.bd_log_flush(e.e), "DB_ENV->log_flush") }

// envStats are the environment's counters.
type envStats struct{ commits, aborts, syncs, writes, deadlocks int64 }

func (e *env) stats() (envStats, error) {
	var c, a, s, w, d C.uintmax_t
	if r := C.bd_stats(e.e, &c, &a, &s, &w, &d); r != 0 {
		return envStats{}, codeErr(r, "txn_stat, log_stat, lock_stat")
	}
	return envStats{int64(c), int64(a), int64(s), int64(w), int64(d)}, nil
}

func (e *env) openTable(file string, hash bool, pageSize uint32, create bool) (*table, error) {
	cf := C.CString(file)
	defer C.free(unsafe.Pointer(cf))
	var d *C.DB
	h, c := C.int(0), C.int(0)
	if hash {
		h = 1
	}
	if create {
		c = 1
	}
	if r := C.bd_db_open(e.e, &d, cf, h, C.u_int32_t(pageSize), c); r != 0 {
		return nil, codeErr(r, "open "+file)
	}
	return &table{d: d, hash: hash}, nil
}

func (e *env) removeTable(file string) error {
	cf := C.CString(file)
	defer C.free(unsafe.Pointer(cf))
	return codeErr(C.bd_db_remove(e.e, cf), "remove "+file)
}

func (t *table) close() error { return codeErr(C.bd_db_close(t.d), "close a database") }

func (t *table) pageSize() (int64, error) {
	var n C.u_int32_t
	r := C.bd_db_pagesize(t.d, &n)
	return int64(n), codeErr(r, "DB->get_pagesize")
}

func (e *env) begin() (*txn, error) {
	var t *C.DB_TXN
	if r := C.bd_begin(e.e, &t); r != 0 {
		return nil, codeErr(r, "txn_begin")
	}
	return &txn{t}, nil
}

func (t *txn) commit() error { return codeErr(C.bd_commit(t.t), "commit") }
func (t *txn) abort() error  { return codeErr(C.bd_abort(t.t), "abort") }

// get reads key in tx; ok is false when it is not there.
func (t *table) get(tx *txn, key []byte) (v []byte, ok bool, err error) {
	var p unsafe.Pointer
	var n C.u_int32_t
	r := C.bd_get(t.d, tx.t, ptr(key), C.u_int32_t(len(key)), &p, &n)
	if r == codeNotFound {
		return nil, false, nil
	}
	if r != 0 {
		return nil, false, codeErr(r, "get")
	}
	v = C.GoBytes(p, C.int(n))
	C.free(p)
	return v, true, nil
}

func (t *table) put(tx *txn, key, value []byte) error {
	return codeErr(C.bd_put(t.d, tx.t, ptr(key), C.u_int32_t(len(key)), ptr(value), C.u_int32_t(len(value))), "put")
}

// del removes key; a missing key is not an error.
func (t *table) del(tx *txn, key []byte) error {
	r := C.bd_del(t.d, tx.t, ptr(key), C.u_int32_t(len(key)))
	if r == codeNotFound {
		return nil
	}
	return codeErr(r, "del")
}

// each calls fn for every record from the first ≥ from (a B-tree's
// DB_SET_RANGE; from nil: the first), in the access method's order (a
// hash's is no key order), until fn returns false or an error.
func (t *table) each(tx *txn, from []byte, fn func(k, v []byte) (bool, error)) error {
	var c *C.DBC
	if r := C.bd_cursor(t.d, tx.t, &c); r != 0 {
		return codeErr(r, "cursor")
	}
	defer C.bd_cursor_close(c)
	flag := C.u_int32_t(C.DB_NEXT)
	if from != nil {
		flag = C.DB_SET_RANGE
	}
	for {
		var kp, vp unsafe.Pointer
		var kn, vn C.u_int32_t
		r := C.bd_next(c, flag, ptr(from), C.u_int32_t(len(from)), &kp, &kn, &vp, &vn)
		if r == codeNotFound {
			return nil
		}
		if r != 0 {
			return codeErr(r, "cursor get")
		}
		k, v := C.GoBytes(kp, C.int(kn)), C.GoBytes(vp, C.int(vn))
		C.free(kp)
		C.free(vp)
		flag = C.DB_NEXT
		if more, err := fn(k, v); !more || err != nil {
			return err
		}
	}
}
