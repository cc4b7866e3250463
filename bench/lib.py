"""What the Python part of the scripts in bench/ shares (each imports it as
`lib`, with bench/ on its path): its settings, failing loudly, reading the
figures the tools print, and the throwaway servers the scripts start.

A figure that cannot be read (no match, empty, not a finite number, or not
above zero where it must be) raises Failed: a comparison never prints a blank
or a ratio of a number it did not get. lib.main turns Failed into one line on
stderr and exit 1.
"""
import glob
import json
import math
import os
import pwd
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

VERBOSE = os.environ.get("VERBOSE", "") not in ("", "0")
SMOKE = os.environ.get("SMOKE", "") not in ("", "0")


class Failed(Exception):
    """A command the comparison depends on failed, or a figure could not be read: what and why."""


def setting(name):
    """The setting NAME, which the script's shell part gave a value (bench/lib.sh's knob)."""
    v = os.environ.get(name)
    if v is None:
        raise Failed(f"{name} is not set: the script's shell part declares it with knob")
    return v


def ints(names):
    """The settings names (one string, space-separated), each a whole number, in order."""
    out = []
    for name in names.split():
        v = setting(name)
        if not re.fullmatch(r"\d+", v):
            raise SystemExit(f"bench: {name}={v!r}: give a whole number")
        out.append(int(v))
    return out


def words(name):
    """The setting name's words."""
    return setting(name).split()


def servers():
    """The setting ENGINES: the servers to compare on, postgres and mariadb."""
    names = words("ENGINES")
    for e in names:
        if e not in ("postgres", "mariadb"):
            raise SystemExit(f"bench: unknown engine {e!r}: ENGINES takes postgres and mariadb")
    return names


def switch(name):
    """Whether the setting name is on (set, and not 0)."""
    return setting(name) not in ("", "0")


def tail(text, n=25):
    return "\n".join(text.strip().splitlines()[-n:])


def number(v, what, zero=False):
    """v as a finite float, above zero unless zero: a figure the comparison prints."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise Failed(f"{what}: {v!r} is not a number") from None
    if not math.isfinite(f) or f < 0 or (f == 0 and not zero):
        raise Failed(f"{what}: {v!r} is not a {'count' if zero else 'positive figure'}")
    return f


def grab(pattern, text, what, group=1, zero=False):
    """The number that pattern's group matches in a tool's output."""
    m = re.search(pattern, text, re.M)
    if not m:
        raise Failed(f"{what}: not found in the output ({pattern}):\n{tail(text)}")
    return number(m.group(group), what, zero)


def result(folder):
    """The one result.json dbgauge wrote under folder, parsed."""
    found = glob.glob(os.path.join(folder, "**", "result.json"), recursive=True)
    if len(found) != 1:
        raise Failed(f"{len(found)} result.json under {folder}, want one")
    with open(found[0]) as f:
        return json.load(f)


def run(args, what, ok=(0,), **kw):
    """args run to its end, its output kept; Failed with its tail when its exit code is not in ok."""
    t = time.monotonic()
    try:
        out = subprocess.run(args, capture_output=True, text=True, **kw)
    except FileNotFoundError:
        raise Failed(f"{what}: {args[0]} is not installed") from None
    if VERBOSE:
        print(f"  [{time.monotonic() - t:6.1f} s] {' '.join(args)}", file=sys.stderr, flush=True)
    if out.returncode not in ok:
        raise Failed(f"{what}: `{' '.join(args)}` exited {out.returncode}:\n{tail(out.stdout + out.stderr)}")
    return out


def cpu():
    """User + system seconds of the children waited for so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def med(xs):
    return sorted(xs)[len(xs) // 2]


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def workdir(prefix):
    """A temporary folder every server account can enter; a SIGTERM then
    unwinds the script (its finally stops the servers and removes it)."""
    work = tempfile.mkdtemp(prefix=prefix)
    os.chmod(work, 0o755)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    return work


def account(work, name):
    """A folder for a server that runs as account name when we are root (both
    engines refuse root), and the account's (uid, gid), or None."""
    d = os.path.join(work, name)
    os.mkdir(d)
    os.chmod(d, 0o755)
    if os.geteuid() != 0:
        return d, None
    u = pwd.getpwnam(name)
    os.chown(d, u.pw_uid, u.pw_gid)
    return d, (u.pw_uid, u.pw_gid)


def on_cpus(cpus):
    """A preexec_fn that places the child on cpus (None: anywhere)."""
    return (lambda: os.sched_setaffinity(0, cpus)) if cpus else None


def main(body, cleanup=()):
    """Runs body; a Failed ends the script with its message and exit 1; cleanup runs in any case."""
    try:
        body()
    except Failed as e:
        sys.exit(f"bench: {e}")
    finally:
        for c in cleanup:
            c()


class Server:
    """A throwaway server on a loopback port, its process and its log."""
    srv = None

    def wait(self, ready, tries, what):
        for _ in range(tries):
            if ready():
                return
            if self.srv.poll() is not None:
                raise Failed(f"{what} exited {self.srv.returncode}: {open(self.log).read()[-2000:]}")
            time.sleep(0.1)
        raise Failed(f"{what} not ready after {tries / 10:.0f} s: {open(self.log).read()[-2000:]}")

    def stop(self):
        if self.srv:
            self.srv.terminate()
            self.srv.wait()
            self.srv = None


class Postgres(Server):
    """A throwaway PostgreSQL cluster (initdb as the postgres account when
    root), user bench with trust, autovacuum off, on a free loopback port and a
    Unix socket in its folder; settings are more -c name=value, initdb more of
    initdb's flags; cpus places the server (sched_setaffinity)."""
    name = "postgres"

    def __init__(self, work, connections, settings=(), initdb=(), cpus=None):
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]))
        # The system's own first, as dbgauge's postgres:managed: the versions
        # scripts/install-pg-versions.sh added only when there is no other.
        own = [b for b in bins if not os.path.exists(os.path.join(b, "..", "dbgauge-source.txt"))]
        bins = own or bins
        self.bin = os.environ.get("PG_BIN", bins[-1] if bins else "")
        if not os.path.exists(os.path.join(self.bin, "postgres")):
            raise Failed("no PostgreSQL server found: apt-get install postgresql (or PG_BIN=…)")
        self.dir, ids = account(work, "postgres")

        def preexec():
            if cpus:
                os.sched_setaffinity(0, cpus)
            if ids:
                os.setgid(ids[1])
                os.setuid(ids[0])
        self.preexec = preexec
        self.port = free_port()
        self.connections, self.settings, self.initdb = connections, list(settings), list(initdb)

    def tool(self, name):
        return os.path.join(self.bin, name)

    def start(self):
        data = os.path.join(self.dir, "data")
        run([self.tool("initdb"), "-D", data, "-U", "bench", "--auth=trust", "-N"] + self.initdb, "initdb", preexec_fn=self.preexec)
        self.log = os.path.join(self.dir, "postgres.log")
        args = [self.tool("postgres"), "-D", data, "-p", str(self.port), "-c", "listen_addresses=127.0.0.1",
                "-c", "unix_socket_directories=" + self.dir, "-c", f"max_connections={self.connections}", "-c", "autovacuum=off"]
        for s in self.settings:
            args += ["-c", s]
        with open(self.log, "w") as log:
            self.srv = subprocess.Popen(args, preexec_fn=self.preexec, stdout=log, stderr=log)
        self.wait(lambda: subprocess.run([self.tool("pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(self.port)]).returncode == 0,
                  300, "postgres")
        return self

    def env(self, db="postgres", host="127.0.0.1"):
        """The environment of a libpq tool (pgbench, psql) that connects to db."""
        return dict(os.environ, PGHOST=host, PGPORT=str(self.port), PGUSER="bench", PGDATABASE=db)

    def sql(self, db, *stmts):
        """Each statement through psql, in order; its rows unaligned, without headers."""
        args = [self.tool("psql"), "-X", "-q", "-tA", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(self.port), "-U", "bench", "-d", db]
        for s in stmts:
            args += ["-c", s]
        return run(args, "psql").stdout

    def create(self, db):
        self.sql("postgres", f"CREATE DATABASE {db}")

    def dsn(self, db, host="127.0.0.1"):
        if host != "127.0.0.1":  # a Unix socket's folder
            return f"postgres://bench@/{db}?host={host}&port={self.port}&sslmode=disable"
        return f"postgres://bench@127.0.0.1:{self.port}/{db}?sslmode=disable"

    def settle(self, db):
        """The same state before every test: tables vacuumed, a checkpoint taken."""
        self.sql(db, "VACUUM ANALYZE", "CHECKPOINT")

    def version(self):
        return subprocess.run([self.tool("postgres"), "--version"], capture_output=True, text=True).stdout.strip()


class MariaDB(Server):
    """A throwaway MariaDB (mariadb-install-db and mariadbd as the mysql
    account when root) on a free loopback port and a socket in its folder,
    user bench@127.0.0.1 with every privilege; settings are more mariadbd
    flags; cpus places the server."""
    name = "mariadb"

    def __init__(self, work, connections, settings=(), cpus=None):
        self.mariadbd = shutil.which("mariadbd") or "/usr/sbin/mariadbd"
        self.install = shutil.which("mariadb-install-db")
        if not os.path.exists(self.mariadbd) or not self.install or not shutil.which("mariadb"):
            raise Failed("needs mariadbd, mariadb-install-db and mariadb: apt-get install mariadb-server mariadb-client")
        self.dir, ids = account(work, "mysql")
        self.user = ["--user=mysql"] if ids else []
        self.preexec = on_cpus(cpus)
        self.port = free_port()
        self.sock = os.path.join(self.dir, "mysqld.sock")
        self.connections, self.settings = connections, list(settings)

    def start(self):
        data = os.path.join(self.dir, "data")
        run([self.install, "--no-defaults", "--datadir=" + data, "--auth-root-authentication-method=normal", "--skip-test-db"] + self.user,
            "mariadb-install-db")
        self.log = os.path.join(self.dir, "mariadb.log")
        with open(self.log, "w") as log:
            self.srv = subprocess.Popen([self.mariadbd, "--no-defaults", "--datadir=" + data, "--port=" + str(self.port),
                                         "--bind-address=127.0.0.1", "--socket=" + self.sock, "--pid-file=" + os.path.join(self.dir, "mysqld.pid"),
                                         "--skip-name-resolve", f"--max-connections={self.connections}"] + self.settings + self.user,
                                        preexec_fn=self.preexec, stdout=log, stderr=log)
        self.wait(lambda: subprocess.run(["mariadb", "--no-defaults", "-S", self.sock, "-uroot", "-e", "SELECT 1"],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0, 600, "mariadbd")
        self.sql("", "CREATE USER bench@'127.0.0.1'", "GRANT ALL ON *.* TO bench@'127.0.0.1'")
        return self

    def sql(self, db, *stmts):
        """The statements as root through the socket; rows tab-separated, without headers."""
        return run(["mariadb", "--no-defaults", "-S", self.sock, "-uroot", "-NB"] + ([db] if db else []) + ["-e", "; ".join(stmts)], "mariadb").stdout

    def create(self, db, collation=""):
        self.sql("", f"CREATE DATABASE {db} {collation}".strip())

    def dsn(self, db):
        return f"mysql://bench@tcp(127.0.0.1:{self.port})/{db}"

    def settle(self, db):
        pass

    def version(self):
        v = subprocess.run([self.mariadbd, "--version"], capture_output=True, text=True).stdout
        return "MariaDB " + v.split(" for ")[0].split("Ver ")[-1].strip()

    def sysbench(self, db, rows):
        """sysbench oltp_point_select's command on db's sbtest1 of rows rows, less its verb."""
        return ["sysbench", "oltp_point_select", "--db-driver=mysql", "--mysql-host=127.0.0.1", f"--mysql-port={self.port}",
                "--mysql-user=bench", f"--mysql-db={db}", "--tables=1", f"--table-size={rows}"]


TICK = os.sysconf("SC_CLK_TCK")


def process_cpu(pid):
    """User + system CPU seconds of one process's threads (/proc/PID/stat)."""
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / TICK
