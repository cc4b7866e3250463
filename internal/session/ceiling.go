package session

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/dbgauge/dbgauge/internal/disk"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/verdict"
)

// flushCeiling measures (or recalls) the flush ceiling of the device under the
// engine's data folder, before any load makes the disk busy (--ceiling),
// records the durability level the settings read back amount to, and
// judges the commit rate against the ceiling after the run, with the
// engine's flush count and its source: the durability verdict
// (docs/disk.md).
type flushCeiling struct{}

func (flushCeiling) opened(ctx context.Context, s *session) error {
	if s.ceiling && s.res.Engine.Path != "" {
		probeCeiling(ctx, s, filepath.Dir(s.res.Engine.Path))
	}
	readBackLevel(s)
	return nil
}

func (flushCeiling) judge(s *session) {
	if d := s.res.Durability; d != nil {
		d.FlushSource = s.bspec.Flushes
	}
	verdict.Durability(s.res)
}

// readBackLevel records the durability level the settings read back amount
// to, and those the run's --durability does not allow (a server of the
// user's with fsync off): the verdict judges what was read back, not the
// label. A contradiction needs no flush ceiling to be said.
func readBackLevel(s *session) {
	fit, known := s.bspec.LevelsOf(s.res.Engine.Settings)
	unlike := s.bspec.Unlike(s.bopts.Durability, s.res.Engine.Settings)
	if !known {
		return
	}
	level := make([]string, len(fit))
	for i, l := range fit {
		level[i] = string(l)
	}
	if s.res.Durability == nil {
		if len(unlike) == 0 {
			return
		}
		s.res.Durability = &result.Durability{}
	}
	s.res.Durability.Level, s.res.Durability.Unlike = strings.Join(level, " or "), unlike
	if len(unlike) > 0 {
		s.obs.Note(fmt.Sprintf("--durability %s, but %s reads back %s", s.bopts.Durability, s.bspec.Name, strings.Join(unlike, ", ")))
	}
}

// probeCeiling records the flush ceiling of folder's device.
func probeCeiling(ctx context.Context, s *session, folder string) {
	s.obs.Note("measuring the flush ceiling of " + folder + " (once a day per device)")
	m, err := disk.CeilingOf(ctx, folder)
	if err != nil {
		s.obs.Note("flush ceiling not measured: " + err.Error())
		return
	}
	d := &result.Durability{Folder: folder, Ceiling: m.Rate, Method: m.Method, ProbedAt: m.At.Format(time.RFC3339), Cached: m.Cached}
	for _, f := range m.Findings {
		if f.Level == "warning" {
			d.DiskWarning = append(d.DiskWarning, f.Text)
		}
	}
	s.res.Durability = d
}
