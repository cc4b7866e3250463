"""dbgauge's ZODB worker: one process, speaking JSON lines on stdin/stdout.

dbgauge (Go) starts it, reads a hello line, then sends one request per line
and reads one reply per line (a scan's reply in several lines, "more" on all
but the last). It times nothing: the timing is dbgauge's, around each
request. Each reply carries the worker's CPU time so far (process_time), so
that dbgauge can say what the worker cost per request.

    hello   {"hello": {"protocol": 1, "python": "3.11.7", "packages": {...}, "pid": 1}}
    request {"id": 7, "s": 1, "op": "get", "a": {...}}
    reply   {"id": 7, "ok": {...}, "cpu": 0.25}   or   {"id": 7, "err": {"type": ..., "module": ..., "msg": ...}, "cpu": ...}

Session 0 is the worker's own (open, stats, check, close), answered in
order by the main thread; every other session is one client's, served by a
thread of its own, as a ZODB application serves a connection per thread.

The key-value tables live in the storage API itself (tpc_begin, store,
tpc_vote, tpc_finish; loadBefore): a record (table, key) is the object
whose oid is the first 8 bytes of blake2b(table NUL key), its data a ZODB
record (a class pickle, then the state (table, key, value)); a deleted key
keeps a record whose value is None.

The same records are ZODB's own persistent objects (oopen, oread, oclear,
ostats): a client's object session reads them through a ZODB DB over the
worker's storage and a Connection of its own, whose class factory makes
each record a Record (a Persistent whose state is (table, key, value)), so
that the Connection's pickle cache, and under it ZEO's client cache or
RelStorage's local cache, are what answers, as in a ZODB application.
"""

import base64
import binascii
import json
import os
import pickle
import signal
import sys
import threading
import time
import zlib

# The same source runs on Python 3 and on NEO's Python 2.7.
try:
    import queue
except ImportError:
    import Queue as queue
try:
    from hashlib import blake2b
except ImportError:
    from pyblake2 import blake2b

PROTOCOL = 1
PACKAGES = ("ZODB", "ZEO", "persistent", "BTrees", "transaction", "zodbpickle", "ZConfig", "zc.zrs", "RelStorage",
            "psycopg2-binary", "neoppod")
# persistent.Persistent has no _p_resolveConflict: a conflict on a record is a
# ConflictError at once, on the client or in a ZEO server, with nothing logged.
# Pickle protocol 3 (2 on Python 2.7, which has no 3: NEO's records, which
# only its worker reads).
PICKLE = min(3, pickle.HIGHEST_PROTOCOL)
META = pickle.dumps((("persistent", "Persistent"), None), PICKLE)
Z64 = b"\0" * 8
SCAN_ROWS = 1000
TABLES = "\0tables"  # a table is the record (TABLES, its name): value b"" live, None dropped

out_lock = threading.Lock()
out = getattr(sys.stdout, "buffer", sys.stdout)
cpu_time = getattr(time, "process_time", None) or time.clock  # 2.7's clock is the CPU time
# The protocol owns stdout: whatever a library prints goes to stderr, which
# dbgauge keeps the end of for its errors.
sys.stdout = sys.stderr


def send(msg):
    line = json.dumps(msg, separators=(",", ":")).encode() + b"\n"
    with out_lock:
        out.write(line)
        out.flush()


def reply(rid, ok=None, err=None, more=False):
    msg = {"id": rid, "cpu": cpu_time()}
    if err is not None:
        msg["err"] = err
    else:
        msg["ok"] = ok if ok is not None else {}
    if more:
        msg["more"] = True
    send(msg)


def error_of(exc):
    t = type(exc)
    return {"type": t.__name__, "module": t.__module__, "msg": str(exc)[:2000]}


def versions():
    try:
        from importlib import metadata
        version = metadata.version
    except ImportError:  # 2.7
        import pkg_resources
        version = lambda name: pkg_resources.get_distribution(name).version
    pk = {}
    for name in PACKAGES:
        try:
            pk[name] = version(name)
        except Exception:
            pass
    return pk


def b64(b):
    return base64.b64encode(b).decode("ascii")


def unb64(s):
    return base64.b64decode(s)


def tid_hex(t):
    return binascii.hexlify(t).decode("ascii") if t else ""


def unhex(s):
    return binascii.unhexlify(s)


def oid_of(table, key):
    h = bytearray(blake2b(table.encode("utf-8") + b"\0" + key, digest_size=8).digest())
    # 63 bits: ZEO's client cache keeps oids as signed 64-bit integers.
    h[0] &= 0x7F
    h = bytes(h)
    return h if h != Z64 else b"\0" * 7 + b"\1"  # oid 0 is a ZODB database's root


def record(table, key, value):
    return META + pickle.dumps((table, key, value), PICKLE)


def unrecord(data):
    """(table, key, value) of a record this worker wrote, else None."""
    if not data.startswith(META):
        return None
    try:
        return pickle.loads(data[len(META):])
    except Exception:
        return None


def in_threads(n, fn):
    """fn(i) for i in range(n), each in a thread of its own; the first
    exception any raised is raised here once all are done."""
    failed = []

    def run(i):
        try:
            fn(i)
        except BaseException as e:
            failed.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failed:
        raise failed[0]


RECORD = None


def record_class():
    """Record, the persistent class a record is unpickled into (made once
    the environment's persistent is imported)."""
    global RECORD
    if RECORD is None:
        from persistent import Persistent

        class Record(Persistent):
            """A record as ZODB's persistent object: t, k, v (table, key, value)."""

            def __setstate__(self, state):
                t, k, v = state
                Persistent.__setstate__(self, {"t": t, "k": k, "v": v})

        RECORD = Record
    return RECORD


def class_factory(conn, module, name):
    """The DB's class factory: every record of this worker's is pickled as
    persistent.Persistent (META), whose state (a tuple) it cannot take; a
    Record can. Any other class is ZODB's own lookup (the root's
    PersistentMapping)."""
    if (module, name) == ("persistent", "Persistent"):
        return record_class()
    from ZODB.broken import find_global
    return find_global(module, name)


class Worker:
    def __init__(self):
        self.storage = None
        self.kind = ""
        self.commits = 0
        self.conflicts = 0
        self.loads = 0
        self.lock = threading.Lock()
        self.pg = None  # relstorage: the worker's own connection to PostgreSQL (settings, stats)
        self.odb = None  # the ZODB DB of the object sessions, made at the first
        self.local = threading.local()  # a session's thread: its object session

    # Session 0: the worker's own requests.

    def open(self, a):
        self.storage = self.make(a)
        self.kind = a["kind"]
        self.opened = dict(a)  # what forget reopens, and the settings given
        return {"settings": self.settings(), "last": tid_hex(self.storage.lastTransaction())}

    def make(self, a, wait=True):
        kind = a["kind"]
        if kind == "file":
            from ZODB.FileStorage import FileStorage
            return FileStorage(a["path"], create=bool(a.get("create")))
        if kind == "zeo":
            from ZEO.ClientStorage import ClientStorage
            return ClientStorage(
                (a["host"], int(a["port"])), storage=a.get("storage", "1"), read_only=bool(a.get("read_only")),
                wait=wait, wait_timeout=float(a.get("wait", 30)), server_sync=True,
                cache_size=int(a.get("cache", 20 * 1024 * 1024)))
        if kind == "neo":
            from neo.client.Storage import Storage
            # str: NEO (Python 2) takes the addresses' text as bytes.
            return Storage(master_nodes=str(a["masters"]), name=str(a["cluster"]), cache_size=int(a.get("cache", 20 * 1024 * 1024)))
        if kind == "relstorage":
            # History-preserving, as a FileStorage is: loadBefore answers for
            # a snapshot older than an object's last change. Only the DB's
            # own worker makes the schema; the clients' find it made.
            from relstorage.adapters.postgresql import PostgreSQLAdapter
            from relstorage.options import Options
            from relstorage.storage import RelStorage
            opts = Options(keep_history=True, create_schema=bool(a.get("create")), driver="psycopg2")
            self.local_mb = opts.cache_local_mb  # its local cache's size, as made
            return RelStorage(PostgreSQLAdapter(dsn=self.pg_dsn(a["dsn"]), options=opts), options=opts)
        raise ValueError("no storage kind %r" % kind)

    def pg_dsn(self, dsn):
        """dsn with this worker's pid after its application_name: the DB's
        worker tells the backends of a closed client's RelStorage from a
        live one's by it (pg_stats)."""
        from psycopg2.extensions import make_dsn, parse_dsn
        self.app = parse_dsn(dsn).get("application_name", "dbgauge")
        return make_dsn(dsn, application_name="%s-%d" % (self.app, os.getpid()))

    def pg_connect(self):
        """The worker's own connection to the PostgreSQL under a RelStorage,
        on the DSN RelStorage was given (its options too): what a
        connection of RelStorage's is set to, read back."""
        if self.pg is None:
            import psycopg2
            self.pg = psycopg2.connect(self.pg_dsn(self.opened["dsn"]))
            self.pg.autocommit = True
        return self.pg

    def pg_show(self, names):
        cur = self.pg_connect().cursor()
        out = {}
        for n in names:
            cur.execute("SELECT current_setting(%s)", (n,))
            out[n] = cur.fetchone()[0]
        return out

    def settings(self):
        s = self.storage
        out = {"storage": type(s).__module__ + "." + type(s).__name__}
        if self.kind != "relstorage":  # RelStorage's name holds its DSN, the password in it
            out["name"] = str(s.getName())
        if self.kind == "file":
            fsmod = sys.modules["ZODB.FileStorage.FileStorage"]
            # FileStorage fsyncs its file in _finish_finish when the module's
            # fsync is set: the one switch it has, read where it is read.
            out["fsync_at_finish"] = "true" if fsmod.fsync is not None else "false"
            out["file"] = self.opened["path"]
        elif self.kind == "relstorage":
            # RelStorage acknowledges a commit when PostgreSQL's COMMIT
            # returns: what that waits for is the server's, read back on a
            # connection made as RelStorage makes its own.
            out["keep_history"] = str(bool(s.keep_history)).lower()
            out.update(self.pg_show(["synchronous_commit", "fsync", "wal_writer_delay", "server_version", "wal_sync_method"]))
        elif self.kind == "neo":
            # NEO's client has no public reader of its cache's size: as given.
            out["cache_size"] = str(int(self.opened.get("cache", 20 * 1024 * 1024)))
            out["server_supports_undo"] = str(bool(s.supportsUndo())).lower()
        else:
            # Through ClientStorage's public API only: the server's answers
            # (supportsUndo, the interfaces it copied from the server), and
            # the cache's size as given, which it has no reader of.
            import zope.interface
            out["server_sync"] = str(bool(getattr(s, "server_sync", False))).lower()
            out["cache_size"] = str(int(self.opened.get("cache", 20 * 1024 * 1024)))
            out["server_supports_undo"] = str(bool(s.supportsUndo())).lower()
            out["server_interfaces"] = ",".join(sorted(i.__identifier__ for i in zope.interface.providedBy(s)))
        return out

    def stats(self, a):
        with self.lock:
            st = {"commits": self.commits, "conflicts": self.conflicts, "loads": self.loads}
        if self.kind == "file":  # a ClientStorage's are as of its connection
            st["objects"] = len(self.storage)
            st["bytes"] = self.storage.getSize()
        if self.kind == "relstorage":
            st.update(self.pg_stats(set(a.get("open") or [])))
        return st

    def pg_stats(self, live):
        """PostgreSQL's WAL counters. Its backends publish them when a
        transaction ends (at most once a second) and when they exit, so this
        first waits, up to 5 s, until no backend is left of a worker that
        is not live (the pids of the clients' workers open, and this one):
        each worker's connections carry its pid in their application_name."""
        cur = self.pg_connect().cursor()
        live = live | {os.getpid()}
        deadline = time.monotonic() + 5
        while True:
            cur.execute("SELECT pg_stat_clear_snapshot()")
            cur.execute("SELECT application_name FROM pg_stat_activity WHERE datname = current_database() "
                        "AND application_name LIKE %s AND pid <> pg_backend_pid()", (self.app + "-%",))
            gone = [n for (n,) in cur.fetchall() if not n.rpartition("-")[2].isdigit() or int(n.rpartition("-")[2]) not in live]
            if not gone or time.monotonic() > deadline:
                break
            time.sleep(0.02)
        cur.execute("SELECT pg_stat_clear_snapshot()")
        cur.execute("SELECT current_setting('server_version_num')::int")
        if cur.fetchone()[0] >= 180000:  # 18 moved the WAL's flushes to pg_stat_io
            cur.execute("SELECT coalesce(sum(fsyncs), 0)::bigint FROM pg_stat_io WHERE object = 'wal' AND context = 'normal'")
            flushes = cur.fetchone()[0]
            cur.execute("SELECT wal_records, wal_bytes::bigint FROM pg_stat_wal")
            records, nbytes = cur.fetchone()
        else:
            cur.execute("SELECT wal_records, wal_bytes::bigint, wal_sync FROM pg_stat_wal")
            records, nbytes, flushes = cur.fetchone()
        return {"flushes": flushes, "wal_records": records, "wal_bytes": nbytes}

    def close(self, a):
        self.odb = None  # not closed: DB.close closes the storage, which is closed below
        if self.pg is not None:
            self.pg.close()
            self.pg = None
        if self.storage is not None:
            self.storage.close()
            self.storage = None
        return {}

    def forget(self, a):
        """Start the ZEO client afresh, its cache (and the last tid it
        keeps) empty: a client whose cache saw a transaction its server
        lacks (a failover that lost it) refuses that server until its cache
        is dropped, as ZEO's log says. The cache lives in memory (no client
        name, no cache file), so a new ClientStorage has none; the old one
        is closed. It is called while no server serves (before a promotion):
        the new one connects once one does."""
        if self.kind != "zeo":
            return {}
        old, self.storage = self.storage, self.make(self.opened, wait=False)  # it connects when a server serves
        old.close()
        return {}

    def check(self, a):
        """ZODB's check of a FileStorage's structure (fstest), read beside
        whoever has it open (this worker, or a ZEO server); on RelStorage,
        every current record read and, where it is one of dbgauge's, decoded."""
        if self.kind in ("relstorage", "neo"):
            return self.check_records()
        from ZODB.scripts import fstest
        try:
            fstest.check(a["path"])
        except fstest.FormatError as e:
            return {"ok": False, "detail": "fstest: " + str(e)}
        return {"ok": True, "detail": "fstest: ok"}

    def check_records(self):
        self.sync()
        if not hasattr(self.storage, "record_iternext"):  # NEO
            n = 0
            for oid, (tid, data) in self.last_records().items():
                n += 1
                if data and data.startswith(META) and unrecord(data) is None:
                    return {"ok": False, "detail": "oid %s: a record of dbgauge's that does not decode" % tid_hex(oid)}
            return {"ok": True, "detail": "%d current records read back" % n}
        n, nxt = 0, None
        while True:
            try:
                oid, tid, data, nxt = self.storage.record_iternext(nxt)
            except (ValueError, StopIteration):  # no record at all
                break
            n += 1
            if data and data.startswith(META) and unrecord(data) is None:
                return {"ok": False, "detail": "oid %s: a record of dbgauge's that does not decode" % tid_hex(oid)}
            if nxt is None:
                break
        return {"ok": True, "detail": "%d current records read back" % n}

    # A client's session.

    def get(self, a):
        at = unhex(a["at"]) if a.get("at") else None
        if at is None:
            self.sync()
            at = self.storage.lastTransaction() or Z64
        table, key = a["t"], unb64(a["k"])
        data, serial = self.load_before(oid_of(table, key), at)
        with self.lock:
            self.loads += 1
        value = None
        if data is not None:
            rec = unrecord(data)
            if rec is None or rec[0] != table or rec[1] != key:
                raise KeyCollision("oid %s holds another record than %s %r" % (tid_hex(oid_of(table, key)), table, key))
            value = rec[2]
        return {"v": b64(value) if value is not None else None, "serial": tid_hex(serial), "at": tid_hex(at)}

    def sync(self):
        """Catch up with the server's last transaction (ZEO's server_sync)."""
        sync = getattr(self.storage, "sync", None)
        if sync is not None:
            sync()
        if self.kind == "relstorage":
            # RelStorage's lastTransaction is as of its last poll: without
            # one, a client would read an old snapshot and conflict at every
            # commit.
            self.storage.poll_invalidations()

    def load_before(self, oid, at):
        from ZODB.POSException import POSKeyError
        from ZODB.utils import p64, u64
        try:
            r = self.storage.loadBefore(oid, p64(u64(at) + 1))
        except POSKeyError:
            return None, None
        if r is None:
            return None, None
        return r[0], r[1]

    def current_serial(self, oid):
        from ZODB.POSException import POSKeyError
        try:
            return self.storage.load(oid)[1]
        except POSKeyError:
            return Z64

    def has(self, a):
        self.sync()
        name = a["t"].encode()
        data, _ = self.load_before(oid_of(TABLES, name), self.storage.lastTransaction() or Z64)
        rec = unrecord(data) if data is not None else None
        return {"has": rec is not None and rec[2] is not None}

    def create(self, a):
        if not self.has(a)["has"]:
            self.tpc([(TABLES, a["t"].encode(), b"", None)])
        return {}

    def commit(self, a):
        writes = [(t, unb64(k), unb64(v) if v is not None else None, unhex(s) if s is not None else None)
                  for t, k, v, s in a["w"]]
        return {"tid": tid_hex(self.tpc(writes))}

    def tpc(self, writes):
        """One transaction through the storage API; its tid."""
        from ZODB.Connection import TransactionMetaData
        from ZODB.POSException import ConflictError
        st = self.storage
        txn = TransactionMetaData(user="dbgauge", description="kv")
        st.tpc_begin(txn)
        try:
            for table, key, value, serial in writes:
                oid = oid_of(table, key)
                if serial is None:  # a blind write: over what is there now
                    serial = self.current_serial(oid)
                st.store(oid, serial or Z64, record(table, key, value), "", txn)
            st.tpc_vote(txn)
            tid = st.tpc_finish(txn)
        except ConflictError:
            st.tpc_abort(txn)
            with self.lock:
                self.conflicts += 1
            raise
        except BaseException:
            st.tpc_abort(txn)
            raise
        with self.lock:
            self.commits += 1
        return tid

    def records(self, table):
        """The live records of table, in key order: (key, value, serial)."""
        st = self.storage
        rows = []
        if not hasattr(st, "record_iternext"):  # NEO
            for oid, (tid, data) in self.last_records().items():
                rec = unrecord(data) if data else None
                if rec is not None and rec[0] == table and rec[2] is not None:
                    rows.append((rec[1], rec[2], tid))
            rows.sort(key=lambda r: r[0])
            return rows
        ranges = int(self.opened.get("scan_ranges") or 0)
        if ranges > 1:
            return self.records_in_ranges(table, ranges)
        nxt = None
        while True:
            try:
                oid, tid, data, nxt = st.record_iternext(nxt)
            except (ValueError, StopIteration):  # an empty index (FileStorage), no record (RelStorage)
                break
            rec = unrecord(data) if data else None
            if rec is not None and rec[0] == table and rec[2] is not None:
                rows.append((rec[1], rec[2], tid))
            if nxt is None:
                break
        rows.sort(key=lambda r: r[0])
        return rows

    def records_in_ranges(self, table, n):
        """records, walked as n ranges of the oid space at once, a thread
        each: through ZEO a record is a round trip, and one walk waits for
        each in turn. Only where record_iternext's cursor is an oid and
        starts at the first record at or after it (a FileStorage's, behind
        the ZEO servers dbgauge starts)."""
        from ZODB.utils import p64, u64
        span = (1 << 63) // n
        found = [[] for _ in range(n)]

        def walk(i):
            lo, hi = i * span, (1 << 63 if i == n - 1 else (i + 1) * span)
            nxt = p64(lo)
            while nxt is not None and u64(nxt) < hi:
                try:
                    oid, tid, data, nxt = self.storage.record_iternext(nxt)
                except Exception as e:
                    # No oid at or after nxt: the index's ValueError (its
                    # minKey), through ZEO a ServerException naming it.
                    if isinstance(e, ValueError) or (e.args and e.args[0] == "builtins.ValueError"):
                        break
                    raise
                if u64(oid) >= hi:
                    break
                rec = unrecord(data) if data else None
                if rec is not None and rec[0] == table and rec[2] is not None:
                    found[i].append((rec[1], rec[2], tid))

        in_threads(n, walk)
        rows = [r for part in found for r in part]
        rows.sort(key=lambda r: r[0])
        return rows

    def last_records(self):
        """{oid: (tid, data)}: every object's last record, read through the
        storage's transactions (NEO has no record_iternext). With
        scan_ranges, as so many ranges of tids at once, a thread each: NEO's
        client asks for each record in turn (a round trip each)."""
        from ZODB.utils import p64, u64
        st = self.storage
        n = max(1, int(self.opened.get("scan_ranges") or 1))
        first = None
        for txn in st.iterator():
            first = u64(txn.tid)
            break
        last_tid = st.lastTransaction()
        if first is None or not last_tid:
            return {}
        top = u64(last_tid)
        span = (top - first) // n + 1
        found = [{} for _ in range(n)]

        def walk(i):
            lo = first + i * span
            if lo > top:
                return
            for txn in st.iterator(p64(lo), p64(min(top, lo + span - 1))):
                for r in txn:
                    found[i][r.oid] = (r.tid, r.data)

        in_threads(n, walk)
        last = {}
        for part in found:  # in tid order: a later range's record is the later one
            last.update(part)
        return last

    def scan(self, rid, a):
        self.sync()
        rows = self.records(a["t"])
        for i in range(0, max(len(rows), 1), SCAN_ROWS):
            chunk = [[b64(k), b64(v)] for k, v, _ in rows[i:i + SCAN_ROWS]]
            reply(rid, {"rows": chunk}, more=i + SCAN_ROWS < len(rows))

    def drop(self, a):
        self.sync()
        table = a["t"]
        rows = self.records(table)
        for i in range(0, len(rows), 10000):
            self.tpc([(table, k, None, tid) for k, _, tid in rows[i:i + 10000]])
        if self.has(a)["has"]:
            self.tpc([(TABLES, table.encode(), None, None)])
        return {"n": len(rows)}


    # A client's object session: its thread's Connection.

    def zdb(self, cache):
        """The worker's ZODB DB over its storage, made once: making it
        makes the database's root (oid 0) when the storage has none, and
        the clients' workers may race to: a conflict means another made it."""
        with self.lock:
            if self.odb is not None:
                return self.odb
            from ZODB.DB import DB
            from ZODB.POSException import ConflictError

            class RecordDB(DB):
                # A method, not DB's class_factory argument: ZRS's ZODB
                # 5.5.1 has none, and the connection DB.__init__ pools
                # would keep DB's own factory.
                def classFactory(self, connection, module, name):
                    return class_factory(connection, module, name)

            for attempt in range(3):
                try:
                    db = RecordDB(self.storage, pool_size=1000, cache_size=max(cache, 1))
                    break
                except ConflictError:
                    if attempt == 2:
                        raise
            self.odb = db
            return db

    def oopen(self, a):
        import transaction
        s = self.local
        if getattr(s, "conn", None) is not None:
            raise ValueError("the session has its objects open already")
        s.cache = int(a["cache"])
        s.tm = transaction.TransactionManager()
        s.conn = self.zdb(s.cache).open(transaction_manager=s.tm)
        s.table = a["t"]
        s.intx = False
        s.loads = 0  # the loads of the session's Connections closed by a clear
        s.held = {}
        return {"storage_cache": self.storage_cache()}

    def oread(self, a):
        """The values of the keys' objects, read through the session's
        Connection in one request (a pass of the objects workload). The
        objects read are held, as an application holds what it reads (and
        zodbshootout the mapping of its objects), until a clear of the
        storage's cache: a ghost made by cacheMinimize stays in the pickle
        cache and is loaded again by its first attribute read, once.
        With "sum", each value's CRC-32 instead (-1: missing): the same
        reads, for a reader that judged the values before."""
        from ZODB.POSException import POSKeyError
        s = self.local
        if a.get("begin") or not s.intx:
            s.tm.begin()  # the Connection takes in the invalidations since its last
            s.intx = True
        held, table = s.held, s.table
        sums = bool(a.get("sum"))
        vals = []
        for k in a["k"]:
            got = held.get(k)
            try:
                if got is None:
                    key = unb64(k)
                    got = held[k] = (s.conn.get(oid_of(table, key)), key)  # a new ghost's class is read here
                obj, key = got
                t, kk, v = obj.t, obj.k, obj.v  # and a ghost's state here
            except POSKeyError:
                held.pop(k, None)
                vals.append(-1 if sums else None)
                continue
            if t != table or kk != key:
                raise KeyCollision("oid %s holds another record than %s %r" % (tid_hex(oid_of(table, key)), table, key))
            if sums:
                vals.append(zlib.crc32(v) & 0xFFFFFFFF if v is not None else -1)
            else:
                vals.append(b64(v) if v is not None else None)
        if sums:
            return {"s": vals}
        return {"v": vals}

    def oclear(self, a):
        """Ghost the Connection's objects (cacheMinimize); at level storage
        on ZEO, NEO and RelStorage, empty the storage's cache in the process
        too. None has a public way to clear it, so the storage is replaced,
        as forget does: a fresh one starts with an empty cache (ZEO's with
        no client name, RelStorage's with no cache_local_dir: in memory),
        and the DB and the session's Connection are made again over it.
        This is for a worker whose only client is this session (zeo, zrs,
        neo, relstorage: a worker per client)."""
        s = self.local
        s.tm.abort()
        s.intx = False
        what = ["object cache"]
        if a.get("level") == "storage":
            s.held = {}  # a new process's client holds nothing yet
        if a.get("level") == "storage" and self.kind in ("zeo", "neo", "relstorage"):
            s.loads += s.conn.getTransferCounts()[0]
            s.conn.close()
            old = self.storage
            with self.lock:
                self.storage, self.odb = self.make(self.opened), None
            old.close()
            s.conn = self.zdb(s.cache).open(transaction_manager=s.tm)
            what.append(self.storage_cache())
        s.conn.cacheMinimize()  # every object a ghost: its state is loaded again
        return {"cleared": " and ".join(what)}

    def ostats(self, a):
        s = self.local
        loads = s.loads + s.conn.getTransferCounts()[0]
        cached = sum(d["ngsize"] for d in self.odb.cacheDetailSize() if d["connection"] == repr(s.conn))
        server = -1
        if self.kind == "zeo":
            server = int(self.storage.server_status()["loads"])  # ZEO's public API: the server's count
        return {"loads": loads, "server_loads": server, "cached": cached, "storage_cache": self.storage_cache()}

    def storage_cache(self):
        if self.kind == "zeo":
            return "ZEO client cache of %d bytes" % int(self.opened.get("cache", 20 * 1024 * 1024))
        if self.kind == "relstorage":
            return "RelStorage's local cache of %d MB" % int(self.local_mb)
        if self.kind == "neo":
            return "NEO client cache of %d bytes" % int(self.opened.get("cache", 20 * 1024 * 1024))
        return "none"

    def oclose(self):
        s = self.local
        if getattr(s, "conn", None) is not None:
            s.tm.abort()
            s.conn.close()
            s.conn = None


class KeyCollision(Exception):
    """Two keys of dbgauge's hashed to one oid (1 in 2**63 a pair)."""


def session_loop(w, q):
    while True:
        req = q.get()
        if req is None:
            return
        serve(w, req)
    try:
        w.oclose()
    except Exception:
        pass


def serve(w, req):
    rid, op, a = req.get("id"), req.get("op"), req.get("a") or {}
    try:
        if op == "scan":
            w.scan(rid, a)
            return
        fn = {"get": w.get, "commit": w.commit, "drop": w.drop, "has": w.has, "create": w.create, "open": w.open, "stats": w.stats,
              "close": w.close, "check": w.check, "forget": w.forget,
              "oopen": w.oopen, "oread": w.oread, "oclear": w.oclear, "ostats": w.ostats}.get(op)
        if fn is None:
            raise ValueError("no operation %r" % op)
        reply(rid, fn(a))
    except Exception as e:
        reply(rid, err=error_of(e))


def main():
    # dbgauge ends the worker by closing its stdin: a Ctrl-C or SIGTERM sent
    # to the terminal's process group is dbgauge's to act on.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    import logging
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    send({"hello": {"protocol": PROTOCOL, "python": "%d.%d.%d" % sys.version_info[:3],
                    "packages": versions(), "pid": os.getpid()}})
    w = Worker()
    sessions, threads = {}, []
    inp = getattr(sys.stdin, "buffer", sys.stdin)
    for line in iter(inp.readline, b""):  # 2.7's file iterator reads ahead: it would wait for more than a line
        if not line.strip():
            continue
        req = json.loads(line)
        s = req.get("s", 0)
        if s == 0:
            serve(w, req)
            continue
        if req.get("op") == "end":
            q = sessions.pop(s, None)
            if q is not None:
                q.put(None)
            continue
        q = sessions.get(s)
        if q is None:
            q = sessions[s] = getattr(queue, "SimpleQueue", queue.Queue)()
            t = threading.Thread(target=session_loop, args=(w, q))
            t.daemon = True
            t.start()
            threads.append(t)
        q.put(req)
    # The input ended: each session finishes what it was asked before the
    # storage closes.
    for q in sessions.values():
        q.put(None)
    for t in threads:
        t.join(5)
    if w.storage is not None:
        try:
            w.storage.close()
        except Exception:
            pass


if __name__ == "__main__":
    main()
