package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/dbgauge/dbgauge/internal/disk"
	"github.com/dbgauge/dbgauge/internal/hostinfo"
	"github.com/dbgauge/dbgauge/internal/redact"
	"github.com/dbgauge/dbgauge/internal/result"
)

// DiskRequest is a validated `dbgauge disk`.
type DiskRequest struct {
	Probe   disk.Config
	Results string
	Args    []string
}

// ProbeDisk runs the fsync-ceiling probe and records it in a result folder
// like any run's, saved after every cell. each sees every cell when done.
func ProbeDisk(ctx context.Context, req DiskRequest, stop <-chan struct{}, each func(*result.Result, result.DiskCell)) (*result.Result, string, error) {
	if err := req.Probe.Validate(); err != nil {
		return nil, "", err
	}
	dev, derr := disk.Describe(req.Probe.Dir)
	name := dev.Device
	if name == "" {
		name = dev.FS
	}
	w, err := createWriter(req.Results, "", "disk", name)
	if err != nil {
		return nil, "", err
	}
	res := &result.Result{
		Schema: result.Schema, ID: filepath.Base(w.Dir()), Status: result.Running,
		Command: redact.Args(req.Args), Started: time.Now().UTC(),
		Config: result.Config{
			Workload: "disk", Unit: "flush", UnitRate: "flushes/s", Clients: 1,
			Duration: result.Duration(req.Probe.Duration), Units: req.Probe.Ops, Knobs: result.Knobs{},
		},
		Environment: hostinfo.Collect(),
		Phases:      []result.Phase{}, Series: []result.Second{}, Checks: []result.Check{}, Verdicts: []result.Verdict{},
		Disk: &result.Disk{Device: dev, Virtual: disk.Virtual(), Cells: []result.DiskCell{}, Findings: []result.Finding{}},
	}
	res.Environment.DataDir = dev
	if derr != nil {
		res.Environment.Problems = append(res.Environment.Problems, "data folder: "+derr.Error())
	}
	if err := w.Save(res); err != nil {
		_ = os.RemoveAll(w.Dir())
		return nil, "", fmt.Errorf("save result: %w", err)
	}
	cells, err := disk.Probe(ctx, req.Probe, stop, func(c result.DiskCell) {
		res.Disk.Cells = append(res.Disk.Cells, c)
		_ = w.Save(res)
		if each != nil {
			each(res, c)
		}
	})
	m := disk.Measured{Device: dev, Virtual: res.Disk.Virtual, At: res.Started}
	disk.Remember(&m, cells)
	res.Disk.Findings, res.Disk.Ceiling = m.Findings, m.Rate
	if res.Disk.Findings == nil {
		res.Disk.Findings = []result.Finding{}
	}
	res.Status = result.Completed
	select {
	case <-stop:
		res.Status, res.Reason = result.Interrupted, "interrupted"
	default:
	}
	if err != nil {
		res.Status, res.Reason = result.Failed, err.Error()
	}
	now := time.Now().UTC()
	res.Ended = &now
	if serr := w.Save(res); serr != nil && err == nil {
		err = serr
	}
	return res, w.Dir(), err
}
