package script

import "testing"

// TestSoleStatement: a script of one SQL command alone (its \set lines
// aside) is that operation, which the run engine then times once with the
// unit (workload.Weighted.Sole); a script that sleeps, runs two commands or
// its own transaction is not.
func TestSoleStatement(t *testing.T) {
	for _, c := range []struct {
		text string
		sole bool
	}{
		{"\\set id random(1, 10)\nSELECT c FROM t WHERE id = :id;\n", true},
		{"\\set id random(1, 10)\n\\sleep 1 ms\nSELECT c FROM t WHERE id = :id;\n", false},
		{"SELECT 1;\nSELECT 2;\n", false},
		{"BEGIN;\nSELECT 1;\nEND;\n", false},
	} {
		s, err := ParseScript("s.sql", c.text)
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewProgram([]*Script{s}, nil)
		if err != nil {
			t.Fatal(err)
		}
		w := &scripts{prog: p}
		sh := w.Shape()
		if got := sh.Units[0].Sole != ""; got != c.sole {
			t.Errorf("%q: sole %q, want one: %v", c.text, sh.Units[0].Sole, c.sole)
		}
		if c.sole && sh.Units[0].Sole != "s:2 select" {
			t.Errorf("%q: sole %q, want its SELECT's operation", c.text, sh.Units[0].Sole)
		}
	}
}
