package isolation

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// verdictMark is a case's outcome in one word for the detailed list.
var verdictMark = map[string]string{
	Prevented: "✓ prevented", Blocked: "✓ blocked", Aborted: "✓ aborted",
	BlockedThenAborted: "✓ blocked-then-aborted", Anomaly: "— ANOMALY", Failed: "? error",
}

// Table writes an engine's table: a row of Hermitage's marks per level,
// Hermitage's published row beside it where it has one (a differing cell
// starred), then every case's outcome with what decided it.
func Table(w io.Writer, e Engine) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s %s (--db %s)\n", e.Backend, e.Version, e.DB)
	if e.Hermitage != "" {
		fmt.Fprintf(tw, "beside: Hermitage's %s\n", e.Hermitage)
	}
	fmt.Fprintf(tw, "level\t%s\t\n", strings.Join(Columns, "\t"))
	for _, lv := range e.Levels {
		if lv.Error != "" {
			fmt.Fprintf(tw, "%s\terror: %s\n", lv.Level, lv.Error)
			continue
		}
		cells := make([]string, len(Columns))
		for i, col := range Columns {
			cells[i] = lv.Marks[col]
			if lv.Published != nil && lv.Published[col] != lv.Marks[col] {
				cells[i] += "*"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", lv.Level, strings.Join(cells, "\t"), against(lv))
		if lv.Published != nil {
			pub := make([]string, len(Columns))
			for i, col := range Columns {
				pub[i] = lv.Published[col]
			}
			fmt.Fprintf(tw, "  Hermitage\t%s\t\n", strings.Join(pub, "\t"))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, lv := range e.Levels {
		if lv.Error != "" {
			continue
		}
		fmt.Fprintf(tw, "  %s (read back: %s)\n", lv.Level, lv.ReadBack)
		if lv.ComparedWith != "" {
			fmt.Fprintf(tw, "    compared with %s\n", lv.ComparedWith)
		}
		for _, o := range lv.Outcomes {
			fmt.Fprintf(tw, "    %s\t%s\t%s%s\n", o.Case, verdictMark[o.Verdict], o.Detail, how(o))
		}
	}
	fmt.Fprintln(tw)
	return tw.Flush()
}

// against says how a level's row compares with Hermitage's.
func against(lv Level) string {
	switch {
	case lv.Published == nil:
		return ""
	case len(lv.Differs) == 0:
		return "= Hermitage"
	}
	return "differs from Hermitage: " + strings.Join(lv.Differs, ", ")
}

// how names the steps that blocked or failed.
func how(o Outcome) string {
	var parts []string
	for _, s := range o.Steps {
		switch {
		case s.Error != "":
			parts = append(parts, s.Session+" "+s.Kind+": "+s.Error)
		case s.Blocked:
			parts = append(parts, s.Session+" "+s.Kind+" waited")
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " [" + strings.Join(parts, "; ") + "]"
}
