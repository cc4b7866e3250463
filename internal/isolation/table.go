package isolation

import (
	"fmt"
	"io"
	"slices"
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
			if slices.Contains(lv.Differs, col) {
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

// against says how a level's row compares with Hermitage's; a column
// not judged (?) is named apart, neither equal nor different.
func against(lv Level) string {
	if lv.Published == nil {
		return ""
	}
	var unjudged []string
	for _, col := range Columns {
		if lv.Marks[col] == Unknown {
			unjudged = append(unjudged, col)
		}
	}
	var parts []string
	switch {
	case len(lv.Differs) > 0:
		parts = append(parts, "differs from Hermitage: "+strings.Join(lv.Differs, ", "))
	case len(unjudged) == 0:
		return "= Hermitage"
	default:
		parts = append(parts, "= Hermitage where judged")
	}
	if len(unjudged) > 0 {
		parts = append(parts, "not judged: "+strings.Join(unjudged, ", "))
	}
	return strings.Join(parts, "; ")
}

// how names the steps that blocked, failed or were slow, and what showed
// a step blocked (the engine's lock view, or why it is not confirmed).
func how(o Outcome) string {
	var parts []string
	for _, s := range o.Steps {
		switch {
		case s.Blocked:
			p := s.Session + " " + s.Kind + " waited (" + s.Wait + ")"
			if s.Error != "" {
				p += ", then " + s.Error
			}
			parts = append(parts, p)
		case s.Error != "" && !strings.Contains(o.Detail, s.Error): // an error's detail quotes it
			parts = append(parts, s.Session+" "+s.Kind+": "+s.Error)
		case s.Wait != "":
			parts = append(parts, s.Session+" "+s.Kind+" "+s.Wait)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " [" + strings.Join(parts, "; ") + "]"
}
