package htmlreport

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dbgauge/dbgauge/internal/result"
)

// crash renders what dbgauge crash found: a line per configuration a person
// reads in ten seconds, acknowledged and lost commits per cycle, and every
// cycle's recovery and integrity.
func (d *doc) crash(c *result.Crash) error {
	d.Kind = "crash"
	d.Head = header{Title: "Crash: " + c.Workload + " on " + c.Backend}
	d.Title = "dbgauge crash " + c.Workload + " on " + c.Backend
	d.Head.Lines = append(d.Head.Lines, "fault: "+c.Fault, fmt.Sprintf("seed %d (the same seed gives the same fault moments) · %s · started %s", c.Seed, c.ID, c.Started.UTC().Format("2006-01-02 15:04:05 UTC")))
	var cycles, lost, dead, bad, harness int
	for _, cfg := range c.Configs {
		for _, cy := range cfg.Cycles {
			cycles++
			switch {
			case cy.Harness:
				harness++
			case !cy.Started:
				dead++
			case !cy.IntegrityOK:
				bad++
			}
			if cy.Lost > 0 {
				lost++
			}
		}
	}
	status := "good"
	if lost+dead+bad > 0 {
		status = "bad"
	}
	d.Head.Badges = append(d.Head.Badges, badge{string(c.Status), "neutral"})
	d.Head.Cards = []card{
		{Label: "cycles", Value: strconv.Itoa(cycles)},
		{Label: "cycles that lost commits", Value: strconv.Itoa(lost), Class: status},
		{Label: "did not open again", Value: strconv.Itoa(dead), Class: map[bool]string{true: "bad"}[dead > 0]},
		{Label: "integrity failed", Value: strconv.Itoa(bad), Class: map[bool]string{true: "bad"}[bad > 0]},
	}
	if harness > 0 {
		d.Head.Note = fmt.Sprintf("%d cycles could not be run (dbgauge's side): their errors are in the table below.", harness)
	}
	sum := &table{Head: []string{"configuration", "what survived"}}
	for _, cfg := range c.Configs {
		sum.Rows = append(sum.Rows, []cell{{Text: keyName(cfg.Key)}, {Text: cfg.Summary}})
	}
	d.add(&section{Title: "In ten seconds", Layout: "one", Items: []item{{Table: sum}}})

	// Acknowledged and lost per cycle, one bar pair per cycle.
	var cats []string
	var acked, lostBars, unknown arr
	for _, cfg := range c.Configs {
		for _, cy := range cfg.Cycles {
			cats = append(cats, fmt.Sprintf("%s #%d", keyName(cfg.Key), cy.N))
			acked = append(acked, cy.Acknowledged)
			lostBars = append(lostBars, cy.Lost)
			unknown = append(unknown, cy.Unknown)
		}
	}
	if len(cats) > 0 {
		o := base()
		o["tooltip"] = obj{"trigger": "axis"}
		x := bottomAxis(categoryAxis("", cats))
		x["axisLabel"] = with(axisText("#1f2328"), "interval", 0, "rotate", 30)
		o["xAxis"] = x
		right := valueAxis("lost, unknown")
		right["minInterval"] = 1
		right["splitLine"] = obj{"show": false}
		o["yAxis"] = arr{valueAxis("acknowledged"), right}
		o["series"] = arr{
			obj{"type": "bar", "name": "acknowledged", "data": acked, "color": "#8c959f"},
			obj{"type": "bar", "name": "lost", "data": lostBars, "color": "#cf222e", "yAxisIndex": 1},
			obj{"type": "bar", "name": "unknown (in flight)", "data": unknown, "color": "#d4a72c", "yAxisIndex": 1},
		}
		ch, err := d.addChart("acknowledged and lost commits per cycle", 380, o)
		if err != nil {
			return err
		}
		d.add(&section{Title: "Every cycle", Layout: "one", Note: "Acknowledged (left axis): commits the engine acknowledged before the fault, as the ledger outside the engine recorded them. Lost (right axis): acknowledged, then missing. Unknown (right axis): in flight at the fault (may or may not survive).",
			Items: []item{{Chart: ch}}})
	}
	t := &table{Head: []string{"configuration", "cycle", "fault at", "acknowledged", "lost", "unknown (survived)", "recovery", "integrity", "dropped by the cut", "error"},
		Num: []bool{false, true, true, true, true, true, true, false, false, false}, Sortable: true}
	for _, cfg := range c.Configs {
		for _, cy := range cfg.Cycles {
			lostCell := cell{Text: strconv.FormatInt(cy.Lost, 10)}
			if cy.Lost > 0 {
				lostCell.Class = "bad"
				lostCell.Title = fmt.Sprintf("first lost ids: %v", cy.LostSample)
			}
			integ := cell{Text: cy.Integrity, Class: "good"}
			if !cy.IntegrityOK {
				integ.Class = "bad"
			}
			if !cy.Started {
				integ = cell{Text: "did not open again", Class: "bad"}
				if cy.Harness {
					integ = cell{Text: "not run", Class: "neutral"}
				}
			}
			t.Rows = append(t.Rows, []cell{{Text: keyName(cfg.Key)}, {Text: strconv.Itoa(cy.N)},
				{Text: fmt.Sprintf("%.2f s", cy.FaultAt), Sort: strconv.FormatFloat(cy.FaultAt, 'g', -1, 64)},
				{Text: strconv.FormatInt(cy.Acknowledged, 10)}, lostCell,
				{Text: fmt.Sprintf("%d (%d)", cy.Unknown, cy.UnknownSurvived), Sort: strconv.FormatInt(cy.Unknown, 10)},
				{Text: strings.TrimSuffix(fmt.Sprintf("%.0f ms %s", cy.RecoverySeconds*1000, cy.RecoveryNote), " "), Sort: strconv.FormatFloat(cy.RecoverySeconds, 'g', -1, 64)},
				integ, {Text: cy.Dropped}, {Text: cy.Error}})
		}
	}
	d.add(&section{Title: "Cycles", Layout: "one", Items: []item{{Table: t}}})
	return nil
}
