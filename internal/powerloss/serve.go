package powerloss

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/dbgauge/dbgauge/internal/child"
)

// Serve is a test disk's server: the process `EXE child powerloss` that
// Mount starts, entered through dbgauge's command tree or, in a test binary,
// through its TestMain (child.Enter). It reads its spec (child.Read), serves
// the disk until the process that mounted it unmounts it (or dies), and
// returns the exit status; a spec it cannot read is said on stderr.
func Serve(stderr io.Writer) int {
	spec, err := child.Read(child.RolePowerLoss)
	if err != nil {
		fmt.Fprintln(stderr, "powerloss:", err)
		return 2
	}
	return serve(*spec.Disk)
}

// The requests, one per Disk method; each is a JSON line on the control
// channel, answered by one response line.
const (
	opHonest     = "honest"
	opLying      = "lying"
	opFlushes    = "flushes"
	opPowerLoss  = "power-loss"
	opCheckpoint = "checkpoint"
	opUnflushed  = "unflushed"
	opCut        = "cut"
	opUnmount    = "unmount"
)

type request struct {
	Op    string        `json:"op"`
	Delay time.Duration `json:"delay,omitempty"` // honest
}

// response answers a request; the server's first one says whether it mounted.
type response struct {
	Err     string `json:"err,omitempty"`
	Flushes int64  `json:"flushes,omitempty"`
	Writes  int    `json:"writes,omitempty"`
	Files   int    `json:"files,omitempty"`
}

// serve mounts the disk, says so, and answers requests until told to
// unmount, or until the control channel closes (the user is done or dead:
// then it unmounts, or detaches the mount if files are still open, and
// leaves; its exit aborts whatever is left of the connection).
func serve(spec child.Disk) int {
	ctl := spec.Control.Open("powerloss-control")
	conn, err := net.FileConn(ctl)
	ctl.Close()
	if err != nil {
		return 2 // no channel to say it on: Mount reports the exit
	}
	defer conn.Close()
	enc, dec := json.NewEncoder(conn), json.NewDecoder(conn)
	d, server, err := mountFS(spec.Backing, spec.Mnt)
	if err != nil {
		_ = enc.Encode(response{Err: err.Error()})
		return 1
	}
	if err := enc.Encode(response{}); err != nil {
		leave(server, spec.Mnt)
		return 1
	}
	ended := make(chan struct{}) // the mount is gone: unmounted or aborted from outside
	go func() { server.Wait(); close(ended) }()
	reqs := make(chan request)
	go func() {
		defer close(reqs)
		for {
			var req request
			if dec.Decode(&req) != nil {
				return
			}
			reqs <- req
		}
	}()
	for {
		var req request
		select {
		case <-ended:
			return 1
		case r, ok := <-reqs:
			if !ok {
				leave(server, spec.Mnt)
				return 0
			}
			req = r
		}
		if req.Op == opUnmount {
			if err := server.Unmount(); err != nil {
				_ = enc.Encode(response{Err: "powerloss: unmount " + spec.Mnt + ": " + err.Error()})
				continue
			}
			_ = enc.Encode(response{})
			return 0
		}
		if err := enc.Encode(d.answer(req)); err != nil {
			leave(server, spec.Mnt)
			return 0
		}
	}
}

// answer carries out one request other than unmount.
func (d *fsys) answer(req request) response {
	var r response
	switch req.Op {
	case opHonest:
		d.honest(req.Delay)
	case opLying:
		d.lying()
	case opFlushes:
		r.Flushes = d.flushes.Load()
	case opPowerLoss:
		d.powerLoss()
	case opCheckpoint:
		d.checkpoint()
	case opUnflushed:
		r.Writes, r.Files = d.unflushed()
	case opCut:
		if err := d.cut(); err != nil {
			r.Err = err.Error()
		}
	default:
		r.Err = "powerloss: the server knows no request " + req.Op
	}
	return r
}

// leave unmounts, or detaches the mount when files of it are still open.
func leave(server *fuse.Server, mnt string) {
	if server.Unmount() != nil {
		_ = detach(mnt)
	}
}
