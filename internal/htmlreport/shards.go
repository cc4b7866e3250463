package htmlreport

import (
	"fmt"
	"strconv"

	"github.com/dbgauge/dbgauge/internal/report"
	"github.com/dbgauge/dbgauge/internal/result"
)

// mergedBadge marks a merged result in the header, partial or whole.
func mergedBadge(r *result.Result, h *header) {
	m := r.Merged
	if m == nil {
		return
	}
	if m.Partial {
		h.Badges = append(h.Badges, badge{fmt.Sprintf("partial: %d of %d shards", len(m.Shards), m.Count), "bad"})
		return
	}
	h.Badges = append(h.Badges, badge{fmt.Sprintf("merged: %d shards", m.Count), "good"})
}

// shardsSection shows a merged result's shards side by side (is one
// machine the bottleneck?), the merged whole under them, and each shard's
// machine.
func shardsSection(r *result.Result) *section {
	m := r.Merged
	if m == nil {
		return nil
	}
	t := &table{Head: []string{"shard", "host", "clients", "status", "rate", "ok", "failed", "p50", "p99", "max", "clock offset", "late", "harness the limit"},
		Num: []bool{false, false, false, false, true, true, true, true, true, true, true, true, false}}
	for _, s := range m.Shards {
		off, late, harness := report.ShardFacts(s)
		hcls := map[string]string{result.LimitYes: "bad", result.LimitMaybe: "warn"}[harness]
		t.Rows = append(t.Rows, []cell{{Text: strconv.Itoa(s.Index)}, {Text: s.Environment.Hostname},
			{Text: fmt.Sprintf("%d (%d–%d)", s.Clients, s.FirstClient, s.FirstClient+s.Clients-1)}, {Text: string(s.Status)},
			{Text: rate(s.Summary.Rate)}, {Text: strconv.FormatInt(s.Summary.OK, 10)}, {Text: strconv.FormatInt(s.Summary.Failed, 10)},
			{Text: report.Us(s.Summary.P50Us)}, {Text: report.Us(s.Summary.P99Us)}, {Text: report.Us(s.Summary.MaxUs)},
			{Text: off}, {Text: late}, {Text: harness, Class: hcls}})
	}
	sum := r.Summary
	t.Rows = append(t.Rows, []cell{{Text: "merged", Class: "headline"}, {Text: ""}, {Text: strconv.Itoa(r.Config.Clients)}, {Text: string(r.Status)},
		{Text: rate(sum.Rate)}, {Text: strconv.FormatInt(sum.OK, 10)}, {Text: strconv.FormatInt(sum.Failed, 10)},
		{Text: report.Us(sum.P50Us)}, {Text: report.Us(sum.P99Us)}, {Text: report.Us(sum.MaxUs)}, {Text: ""}, {Text: ""}, {Text: ""}})
	clock := "by the server's clock (each shard's offset to it applied)"
	if !m.ClockCorrected {
		clock = "by the shards' own clocks (a shard could not read the server's)"
	}
	note := fmt.Sprintf("%d of %d shards merged; their measure phases began %.3f s apart, %s. The merged latencies come from the shards' histograms merged, not from their percentiles; the rate is the sum of theirs.",
		len(m.Shards), m.Count, m.StartSpreadSeconds, clock)
	if m.Apart != "" {
		note += " Note: " + m.Apart + "."
	}
	s := &section{Title: "Shards", Layout: "one", Items: []item{{Table: t, Note: note}}}
	if len(m.Missing) > 0 {
		s.Items = append(s.Items, item{Title: "Left out", Text: m.Missing})
	}
	env := &table{Head: []string{"shard", "host", "CPU", "cores", "memory", "kernel", "dbgauge", "command"}, Num: []bool{false, false, false, true, true, false, false, false}}
	for _, s := range m.Shards {
		e := s.Environment
		cmd := ""
		for i, a := range s.Command {
			if i > 0 {
				cmd += " "
			}
			cmd += a
		}
		env.Rows = append(env.Rows, []cell{{Text: strconv.Itoa(s.Index)}, {Text: e.Hostname}, {Text: e.CPU}, {Text: strconv.Itoa(e.Cores)},
			{Text: fmt.Sprintf("%.1f GiB", float64(e.MemoryB)/(1<<30))}, {Text: e.Kernel}, {Text: e.Dbgauge}, {Text: cmd, Class: "mono"}})
	}
	s.Items = append(s.Items, item{Title: "Each shard's machine", Table: env})
	return s
}
