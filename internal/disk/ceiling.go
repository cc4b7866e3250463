package disk

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/dbgauge/dbgauge/internal/result"
)

// Measured is the flush ceiling of one device, as a run's durability verdict
// needs it.
type Measured struct {
	Device   result.Device     `json:"device"`
	Virtual  string            `json:"virtual,omitempty"`
	Rate     float64           `json:"rate"`
	Method   string            `json:"method"`
	Block    int               `json:"block"`
	At       time.Time         `json:"at"`
	Cached   bool              `json:"-"`
	Findings []result.Finding  `json:"findings"`
	Cells    []result.DiskCell `json:"-"`
}

// cacheTTL is how long a device's ceiling is trusted without probing again.
const cacheTTL = 24 * time.Hour

// quick is the short probe a run makes of its data folder: one 8 KiB block
// rewritten with each flushing method, and without a flush for reference.
var quick = Config{
	Blocks: []int{8192}, Methods: []Method{Fdatasync, Fsync, ODsync, None},
	Patterns: []Pattern{Rewrite}, Duration: 500 * time.Millisecond,
}

// CeilingOf returns the flush ceiling of the device under dir: from the cache
// when that device was probed less than a day ago, otherwise by a short probe
// (about two seconds) whose outcome is cached. On a file system in memory it
// probes nothing: a flush there stores nothing.
func CeilingOf(ctx context.Context, dir string) (Measured, error) {
	dev, _ := Describe(dir)
	m := Measured{Device: dev, Virtual: Virtual(), At: time.Now().UTC()}
	if Volatile(dev) {
		m.Findings = Judge(dev, m.Virtual, nil)
		return m, nil
	}
	key := cacheKey(dev)
	if c, ok := loadCache()[key]; ok && time.Since(c.At) < cacheTTL && c.Rate > 0 {
		c.Cached, c.Device = true, dev
		return c, nil
	}
	cfg := quick
	cfg.Dir = dev.Path
	cells, err := Probe(ctx, cfg, nil, nil)
	if err != nil {
		return m, err
	}
	Remember(&m, cells)
	return m, nil
}

// Remember fills m from a probe's cells and caches the ceiling of its device.
func Remember(m *Measured, cells []result.DiskCell) {
	m.Cells = cells
	m.Rate, m.Method, m.Block = Ceiling(cells)
	m.Findings = Judge(m.Device, m.Virtual, cells)
	for _, c := range cells {
		if c.Error != "" {
			return // a broken probe is not worth remembering
		}
	}
	if m.Rate <= 0 {
		return
	}
	cache := loadCache()
	cache[cacheKey(m.Device)] = *m
	saveCache(cache)
}

func cacheKey(d result.Device) string {
	return fmt.Sprintf("%s|%s|%s|%s", d.FS, d.Source, d.MountPoint, d.Device)
}

func cachePath() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "dbgauge", "ceilings.json")
}

func loadCache() map[string]Measured {
	out := map[string]Measured{}
	if p := cachePath(); p != "" {
		if b, err := os.ReadFile(p); err == nil {
			_ = json.Unmarshal(b, &out) // a damaged cache is an empty one
		}
	}
	return out
}

// saveCache writes the cache atomically; failing to is not an error worth a
// run: the next run probes again.
func saveCache(c map[string]Measured) {
	p := cachePath()
	if p == "" || os.MkdirAll(filepath.Dir(p), 0o755) != nil {
		return
	}
	b, err := json.MarshalIndent(c, "", " ")
	if err != nil {
		return
	}
	tmp := p + ".tmp"
	if os.WriteFile(tmp, b, 0o644) == nil {
		_ = os.Rename(tmp, p)
	}
}
