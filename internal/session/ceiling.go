package session

import (
	"context"
	"path/filepath"
	"time"

	"github.com/dbgauge/dbgauge/internal/disk"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/verdict"
)

// flushCeiling measures (or recalls) the flush ceiling of the device under the
// engine's data folder, before any load makes the disk busy (--ceiling),
// and judges the commit rate against it after the run: the durability
// verdict (docs/disk.md).
type flushCeiling struct{}

func (flushCeiling) opened(ctx context.Context, s *session) error {
	if s.ceiling && s.res.Engine.Path != "" {
		probeCeiling(ctx, s, filepath.Dir(s.res.Engine.Path))
	}
	return nil
}

func (flushCeiling) judge(s *session) { verdict.Durability(s.res) }

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
