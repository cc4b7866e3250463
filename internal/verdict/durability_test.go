package verdict

import (
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/result"
)

func durRun(durability string, clients int, commits, flushes int64, ceiling float64) *result.Result {
	delta := map[string]int64{"commits": commits}
	if flushes >= 0 {
		delta["flushes"] = flushes
	}
	return &result.Result{
		Config:     result.Config{Durability: durability, Clients: clients},
		Engine:     result.Engine{Name: "engine"},
		Phases:     []result.Phase{{Name: "measure", Seconds: 10}},
		Stats:      &result.Stats{Delta: delta},
		Durability: &result.Durability{Ceiling: ceiling},
	}
}

func TestDurabilityVerdicts(t *testing.T) {
	cases := []struct {
		name    string
		res     *result.Result
		verdict string
		says    string
	}{
		{"sync one client under the ceiling", durRun("sync", 1, 1100, -1, 120), "plausible", "0.92×"},
		{"sync one client far above", durRun("sync", 1, 60000, -1, 120), "flagged", "50.0×"},
		{"lazy is never flagged", durRun("lazy", 1, 60000, -1, 120), "not durable by design", "--durability lazy"},
		{"off is never flagged", durRun("off", 1, 60000, -1, 120), "not durable by design", ""},
		{"group commit with flushes counted", durRun("sync", 32, 12000, 1000, 120), "plausible", "12.0 commits per flush"},
		{"flushes above the ceiling", durRun("sync", 32, 12000, 12000, 120), "flagged", "flushed 1200 times/s"},
		{"many clients without a flush count", durRun("sync", 32, 12000, -1, 120), "cannot judge", "group commit"},
		{"no ceiling", durRun("sync", 1, 100, -1, 0), "not measurable", ""},
		{"one client, flushes counted, too fast", durRun("sync", 1, 60000, 500, 120), "flagged", "from one client"},
		{"one client in step with its flushes", durRun("sync", 1, 1100, 1100, 120), "plausible", "1.0 commits per flush"},
		{"more commits per flush than clients", durRun("sync", 4, 12000, 300, 120), "flagged", "40.0 commits per flush from 4 clients"},
		{"commits without a flush", durRun("sync", 8, 12000, 0, 120), "flagged", "without a single flush"},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			Durability(c.res)
			d := c.res.Durability
			if d.Verdict != c.verdict || !strings.Contains(d.Detail, c.says) {
				t.Fatalf("verdict %q: %s; want %q saying %q", d.Verdict, d.Detail, c.verdict, c.says)
			}
		})
	}
	// The flushes' source is said wherever they are counted.
	src := durRun("sync", 32, 12000, 1000, 120)
	src.Durability.FlushSource = "the WAL's fsyncs"
	Durability(src)
	if !strings.HasSuffix(src.Durability.Detail, "; flushes counted: the WAL's fsyncs") {
		t.Errorf("the flushes' source is not said: %s", src.Durability.Detail)
	}
	noCount := durRun("sync", 1, 0, -1, 120)
	delete(noCount.Stats.Delta, "commits")
	Durability(noCount)
	if noCount.Durability.Verdict != "cannot judge" {
		t.Fatalf("without a commit count: %+v", noCount.Durability)
	}
}

// TestDurabilityJudgesWhatWasReadBack: settings read back that the label
// does not allow decide the verdict, whatever the rates, and with no
// flush ceiling to compare with (a server of the user's).
func TestDurabilityJudgesWhatWasReadBack(t *testing.T) {
	cases := []struct {
		name, durability string
		ceiling          float64
		verdict          string
		says             []string
	}{
		{"sync reads back fsync off", "sync", 120, "flagged", []string{"--durability sync, but engine reads back fsync=off (sync needs on)", "what ran is --durability off"}},
		{"sync without a ceiling", "sync", 0, "flagged", []string{"fsync=off"}},
		{"lazy reads back fsync off", "lazy", 120, "not durable by design", []string{"--durability lazy, and engine reads back fsync=off"}},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			res := durRun(c.durability, 1, 1100, 1100, c.ceiling)
			res.Durability.Level, res.Durability.Unlike = "off", []string{"fsync=off (" + c.durability + " needs on)"}
			Durability(res)
			d := res.Durability
			if d.Verdict != c.verdict {
				t.Fatalf("verdict %q: %s; want %q", d.Verdict, d.Detail, c.verdict)
			}
			for _, w := range c.says {
				if !strings.Contains(d.Detail, w) {
					t.Errorf("%q does not say %q", d.Detail, w)
				}
			}
		})
	}
}
