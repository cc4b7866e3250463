package pyworker

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Protocol is the version of the protocol this package speaks; a worker
// that says another in its hello is refused.
const Protocol = 1

// HelloWithin bounds the wait for a worker's hello line (its imports).
const HelloWithin = time.Minute

// CloseWithin bounds the wait for a worker to exit once its stdin is closed;
// then it is killed.
const CloseWithin = 10 * time.Second

// Config says which worker to start.
type Config struct {
	Name   string // what errors call it: "zodb worker"
	Python string // the interpreter (an Env's bin/python)
	Script []byte // the worker's source, shipped inside the binary
	File   string // the name the source is written under in the cache folder ("zodb_worker.py")
	// Limit bounds a request whose ctx has no deadline (2 minutes when 0).
	Limit time.Duration
	// Py2: the interpreter is Python 2 (Env.Python2), which has no -I:
	// -E -s isolate it from PYTHON* variables and the user's site folder.
	Py2 bool
}

// Hello is what a worker says of itself when it starts: settings read
// back, for the result.
type Hello struct {
	Protocol int               `json:"protocol"`
	Python   string            `json:"python"`
	Packages map[string]string `json:"packages"`
	PID      int               `json:"pid"`
}

// Error is an exception the worker's request raised: Type and Module name
// its class (the code an engine classifies by), Message its text.
type Error struct {
	Op      string `json:"-"`
	Type    string `json:"type"`
	Module  string `json:"module"`
	Message string `json:"msg"`
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s.%s: %s", e.Op, e.Module, e.Type, e.Message)
}

// frame is one reply line.
type frame struct {
	ID   int64           `json:"id"`
	OK   json.RawMessage `json:"ok"`
	Err  *Error          `json:"err"`
	CPU  float64         `json:"cpu"`
	More bool            `json:"more"`
}

type request struct {
	ID      int64  `json:"id"`
	Session int64  `json:"s"`
	Op      string `json:"op"`
	Args    any    `json:"a,omitempty"`
}

type pending struct {
	ch   chan frame
	gone chan struct{} // closed when the caller stops reading
}

// Worker is one running worker process. Its methods are safe for
// concurrent use; each session's requests must be made one at a time.
type Worker struct {
	cfg      Config
	cmd      *exec.Cmd
	stdin    *os.File
	stderr   *tail
	hello    Hello
	wmu      sync.Mutex // one request line at a time
	mu       sync.Mutex
	pending  map[int64]*pending
	nextID   atomic.Int64
	nextSess atomic.Int64
	cpuMicro atomic.Int64 // the worker's CPU time, as its last reply said
	requests atomic.Int64 // requests answered
	dead     chan struct{}
	deathErr error // set before dead is closed
	closing  atomic.Bool
}

// Start writes the worker's source to the cache folder (once per content),
// starts it and waits for its hello, at most HelloWithin or ctx's end. The
// worker stays in dbgauge's process group (a crash test's kill takes it
// too) and dies with it (Pdeathsig); it ignores SIGINT and SIGTERM and
// ends when its stdin closes (Close).
func Start(ctx context.Context, cfg Config) (*Worker, error) {
	if cfg.Limit == 0 {
		cfg.Limit = 2 * time.Minute
	}
	script, err := writeScript(cfg.File, cfg.Script)
	if err != nil {
		return nil, fmt.Errorf("%s: write its source: %w", cfg.Name, err)
	}
	w := &Worker{cfg: cfg, stderr: &tail{max: 16 << 10}, pending: map[int64]*pending{}, dead: make(chan struct{})}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	// -I: isolated from the user's PYTHON* variables and site folder; the
	// environment's packages are all it sees.
	flags := []string{"-I"}
	if cfg.Py2 {
		flags = []string{"-E", "-s"}
	}
	w.cmd = exec.Command(cfg.Python, append(flags, script)...)
	w.cmd.Stdin, w.cmd.Stdout, w.cmd.Stderr = inR, outW, w.stderr
	w.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	err = w.cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("%s: start %s: %w", cfg.Name, cfg.Python, err)
	}
	w.stdin = inW
	hello := make(chan error, 1)
	go w.read(outR, hello)
	if err := w.waitHello(ctx, hello); err != nil {
		w.Kill()
		return nil, err
	}
	return w, nil
}

func (w *Worker) waitHello(ctx context.Context, hello <-chan error) error {
	t := time.NewTimer(HelloWithin)
	defer t.Stop()
	select {
	case err := <-hello:
		if err == nil && w.hello.Protocol != Protocol {
			err = fmt.Errorf("%s speaks protocol %d, dbgauge %d: a worker from another dbgauge", w.cfg.Name, w.hello.Protocol, Protocol)
		}
		return err
	case <-w.dead:
		return w.deathErr
	case <-t.C:
		return fmt.Errorf("%s (%s): no hello within %s: its imports hang or the interpreter is not the environment's; stderr: %s",
			w.cfg.Name, w.cfg.Python, HelloWithin, w.stderr.lines(5))
	case <-ctx.Done():
		return fmt.Errorf("%s: waiting for its hello: %w", w.cfg.Name, ctx.Err())
	}
}

// Hello is what the worker said of itself.
func (w *Worker) Hello() Hello { return w.hello }

// PID is the worker's process.
func (w *Worker) PID() int { return w.cmd.Process.Pid }

// CPU is the worker's CPU time (user and system, all its threads) as its
// last reply said; Requests the requests it has answered.
func (w *Worker) CPU() time.Duration { return time.Duration(w.cpuMicro.Load()) * time.Microsecond }

// Requests is the number of requests the worker has answered.
func (w *Worker) Requests() int64 { return w.requests.Load() }

// Session returns a new session number: one client's.
func (w *Worker) Session() int64 { return w.nextSess.Add(1) }

// Done is closed when the worker has exited.
func (w *Worker) Done() <-chan struct{} { return w.dead }

// Call sends op with args on session and decodes its reply into reply
// (nil: ignored). Its error is an *Error when the worker raised one.
func (w *Worker) Call(ctx context.Context, session int64, op string, args, reply any) error {
	return w.Stream(ctx, session, op, args, func(ok json.RawMessage) error {
		if reply == nil {
			return nil
		}
		return json.Unmarshal(ok, reply)
	})
}

// Stream is Call for a reply in several lines: each calls each with its
// "ok" part. An error each returns ends the wait (the rest of the reply is
// dropped) and is returned.
func (w *Worker) Stream(ctx context.Context, session int64, op string, args any, each func(json.RawMessage) error) error {
	id := w.nextID.Add(1)
	p := &pending{ch: make(chan frame, 16), gone: make(chan struct{})}
	w.mu.Lock()
	w.pending[id] = p
	w.mu.Unlock()
	defer func() {
		close(p.gone)
		w.mu.Lock()
		delete(w.pending, id)
		w.mu.Unlock()
	}()
	ctx, cancel := w.bound(ctx)
	defer cancel()
	if err := w.send(ctx, request{ID: id, Session: session, Op: op, Args: args}); err != nil {
		return err
	}
	for {
		select {
		case f := <-p.ch:
			if f.Err != nil {
				f.Err.Op = op
				return f.Err
			}
			if err := each(f.OK); err != nil {
				return err
			}
			if !f.More {
				return nil
			}
		case <-w.dead:
			return w.deathErr
		case <-ctx.Done():
			return w.gaveUp(ctx, op)
		}
	}
}

// Send sends op on session without waiting for a reply (the worker sends
// none: "end" of a session).
func (w *Worker) Send(ctx context.Context, session int64, op string) error {
	ctx, cancel := w.bound(ctx)
	defer cancel()
	return w.send(ctx, request{ID: w.nextID.Add(1), Session: session, Op: op})
}

func (w *Worker) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, w.cfg.Limit)
}

func (w *Worker) gaveUp(ctx context.Context, op string) error {
	why := "the run ended"
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		why = "its time ran out: the worker is stuck, or the storage waits on a lock or a server"
	}
	return fmt.Errorf("%s (pid %d): gave up waiting for the reply to %s (%s): %w", w.cfg.Name, w.PID(), op, why, ctx.Err())
}

// send writes one request line, within ctx. A line cut short leaves the
// worker's input broken: the worker is killed.
func (w *Worker) send(ctx context.Context, r request) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	w.wmu.Lock()
	defer w.wmu.Unlock()
	select {
	case <-w.dead:
		return w.deathErr
	default:
	}
	if d, ok := ctx.Deadline(); ok {
		_ = w.stdin.SetWriteDeadline(d)
	}
	n, err := w.stdin.Write(b)
	if err != nil {
		if n > 0 {
			w.Kill()
		}
		select {
		case <-w.dead:
			return w.deathErr
		default:
		}
		return fmt.Errorf("%s (pid %d): gave up writing the request %s: %w", w.cfg.Name, w.PID(), r.Op, err)
	}
	return nil
}

// read reads the worker's lines until it exits: the hello first, then
// replies, each handed to the call waiting for it.
func (w *Worker) read(out *os.File, hello chan<- error) {
	defer out.Close()
	r := bufio.NewReaderSize(out, 64<<10)
	first := true
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			break
		}
		if first {
			first = false
			var h struct {
				Hello *Hello `json:"hello"`
			}
			if err := json.Unmarshal(line, &h); err != nil || h.Hello == nil {
				hello <- fmt.Errorf("%s: its first line is no hello: %.200q", w.cfg.Name, line)
				continue
			}
			w.hello = *h.Hello
			hello <- nil
			continue
		}
		w.deliver(line)
	}
	w.exited()
}

func (w *Worker) deliver(line []byte) {
	var f frame
	if err := json.Unmarshal(line, &f); err != nil {
		fmt.Fprintf(w.stderr, "dbgauge: a reply line it cannot read: %.200q\n", line)
		return
	}
	w.cpuMicro.Store(int64(f.CPU * 1e6))
	if !f.More {
		w.requests.Add(1)
	}
	w.mu.Lock()
	p := w.pending[f.ID]
	w.mu.Unlock()
	if p == nil {
		return // its caller gave up
	}
	select {
	case p.ch <- f:
	case <-p.gone:
	}
}

// exited waits for the process and says how it ended.
func (w *Worker) exited() {
	err := w.cmd.Wait()
	how := "exited"
	if err != nil {
		how = err.Error()
	}
	if w.closing.Load() && err == nil {
		w.deathErr = fmt.Errorf("%s (pid %d) was closed", w.cfg.Name, w.cmd.Process.Pid)
	} else {
		w.deathErr = &DiedError{Name: w.cfg.Name, PID: w.cmd.Process.Pid, How: how, Stderr: w.stderr.lines(8)}
	}
	close(w.dead)
}

// DiedError is a worker that exited without being asked to.
type DiedError struct {
	Name   string
	PID    int
	How    string // "signal: killed", "exit status 1"
	Stderr string // the last lines of its stderr
}

func (e *DiedError) Error() string {
	s := fmt.Sprintf("%s (pid %d) died (%s)", e.Name, e.PID, e.How)
	if e.Stderr != "" {
		s += "; its stderr: " + e.Stderr
	}
	return s
}

// Close ends the worker: its stdin closed, it exits within CloseWithin or
// is killed. Safe to call more than once.
func (w *Worker) Close() error {
	w.closing.Store(true)
	w.wmu.Lock()
	_ = w.stdin.Close()
	w.wmu.Unlock()
	t := time.NewTimer(CloseWithin)
	defer t.Stop()
	select {
	case <-w.dead:
	case <-t.C:
		w.Kill()
		<-w.dead
		return fmt.Errorf("%s (pid %d) did not exit within %s of its input's end: killed", w.cfg.Name, w.PID(), CloseWithin)
	}
	var d *DiedError
	if errors.As(w.deathErr, &d) && d.How != "exited" {
		return d
	}
	return nil
}

// Kill kills the worker (SIGKILL), as a crash would.
func (w *Worker) Kill() { _ = w.cmd.Process.Kill() }

// writeScript writes src to the cache folder (cacheRoot's dbgauge/workers)
// under a name its content decides, once, and returns its path.
func writeScript(name string, src []byte) (string, error) {
	cache, err := cacheRoot()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(src)
	dir := filepath.Join(cache, "dbgauge", "workers", hex.EncodeToString(sum[:6]))
	path := filepath.Join(dir, name)
	if b, err := os.ReadFile(path); err == nil && bytes.Equal(b, src) {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, name+".*")
	if err != nil {
		return "", err
	}
	_, err = tmp.Write(src)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return path, err
}

// tail keeps the last max bytes written to it: a worker's stderr.
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

var _ io.Writer = (*tail)(nil)

// lines returns the last n non-empty lines, joined by " | ".
func (t *tail) lines(n int) string {
	t.mu.Lock()
	s := string(t.buf)
	t.mu.Unlock()
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return strings.Join(out, " | ")
}
