package script

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// tpcbLike is pgbench's built-in "tpcb-like" script, as pgbench --show-script prints it.
const tpcbLike = `-- tpcb-like: <builtin: TPC-B (sort of)>
\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`

// TestTpcbLike: pgbench's own script reads as pgbench reads it: four \set,
// seven SQL commands, each :variable a parameter in order.
func TestTpcbLike(t *testing.T) {
	s, err := ParseScript("tpcb-like.sql", tpcbLike)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Commands) != 11 {
		t.Fatalf("%d commands, want 11", len(s.Commands))
	}
	for i, c := range s.Commands[:4] {
		if c.Kind != Set || c.Expr == nil || c.Pos.Line != i+2 || c.Pos.Col != 1 {
			t.Errorf("command %d: %+v", i, c)
		}
	}
	ins := s.Commands[9]
	if ins.SQL != "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)" ||
		strings.Join(ins.Params, ",") != "tid,bid,aid,delta" || ins.Pos.Line != 11 {
		t.Errorf("the INSERT: %q %v at %v", ins.SQL, ins.Params, ins.Pos)
	}
	if s.Commands[4].SQL != "BEGIN" || s.Commands[10].SQL != "END" {
		t.Errorf("BEGIN and END: %q %q", s.Commands[4].SQL, s.Commands[10].SQL)
	}
}

// TestScriptForms: commands over several lines, quotes and comments that
// hold ; or :, casts, \gset with a prefix, \sleep, and \if blocks whose
// branches know where to go.
func TestScriptForms(t *testing.T) {
	src := "\\set n 3\n" +
		"SELECT 'a;b:c', \"x;y\", 1::int, -- a ; comment :n\n  /* ; :n */ :n\n  AS v \\gset p_\n" +
		"\\sleep :n ms\n" +
		"\\if :p_v > 2\n  SELECT 1;\n\\elif :n = 1\n  SELECT 2;\n\\else\n  \\if true\n  SELECT 3;\n  \\endif\n\\endif\n" +
		"\\sleep 2\n"
	s, err := ParseScript("forms.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	sel := s.Commands[1]
	if !sel.Gset || sel.Prefix != "p_" || strings.Join(sel.Params, ",") != "n" ||
		!strings.Contains(sel.SQL, "'a;b:c'") || !strings.Contains(sel.SQL, "1::int") || strings.Count(sel.SQL, "?") != 1 {
		t.Errorf("the SELECT: %+v", sel)
	}
	if sl := s.Commands[2]; sl.Kind != Sleep || sl.SleepVar != "n" || sl.Unit != time.Millisecond {
		t.Errorf("\\sleep :n ms: %+v", sl)
	}
	kinds := ""
	for _, c := range s.Commands {
		kinds += kindName[c.Kind] + " "
	}
	if want := "set sql sleep if sql elif sql else if sql endif endif sleep "; kinds != want {
		t.Fatalf("kinds %q, want %q", kinds, want)
	}
	// if(3) → elif(5) → else(7) → endif(11); the inner if(8) → endif(10).
	jumps := map[int][2]int{3: {5, 11}, 5: {7, 11}, 7: {11, 11}, 8: {10, 10}}
	for i, j := range jumps {
		if c := s.Commands[i]; c.Next != j[0] || c.End != j[1] {
			t.Errorf("command %d (%s): next %d end %d, want %v", i, kindName[c.Kind], c.Next, c.End, j)
		}
	}
	if last := s.Commands[12]; last.SleepN != 2 || last.Unit != time.Second {
		t.Errorf("\\sleep 2: %+v", last)
	}
}

// TestMalformedScripts: each mistake is one line, file:line:column, what is
// wrong and what to write instead.
func TestMalformedScripts(t *testing.T) {
	cases := []struct{ name, src, where, what string }{
		{"bad expression", "\\set aid random(1, \n", "bad.sql:1:", ""},
		{"unknown function", "\\set aid rnd(1, 10)\n", "bad.sql:1:10", "rnd"},
		{"unclosed if", "SELECT 1;\n\\if true\nSELECT 2;\n", "bad.sql:2:1", "\\if without \\endif"},
		{"else without if", "\\else\n", "bad.sql:1:1", "\\else without \\if"},
		{"elif after else", "\\if true\n\\else\n\\elif false\n\\endif\n", "bad.sql:3:1", "after \\else"},
		{"unknown meta-command", "\\sett x 1\n", "bad.sql:1:1", "unknown meta-command \\sett"},
		{"no semicolon", "SELECT 1\n", "bad.sql:1:1", "does not end with ;"},
		{"unterminated quote", "SELECT 'abc;\n", "bad.sql:1:8", "unterminated"},
		{"bad sleep unit", "\\sleep 10 minutes\n", "bad.sql:1:8", "unknown unit"},
		{"set without expression", "\\set aid\n", "bad.sql:1:1", "\\set needs"},
		{"lone gset", "\\gset\n", "bad.sql:1:1", "ends an SQL command"},
		{"shell", "\\setshell x echo 1\n", "bad.sql:1:1", "dbgauge does not run it"},
		{"empty", "-- nothing\n\n", "bad.sql:1:1", "no command"},
		{"expression on a later line", "SELECT 1;\n\n\\if 1 +* 2\n\\endif\n", "bad.sql:3:", ""},
	}
	oneLine := regexp.MustCompile(`^bad\.sql:\d+:\d+: [^\n]+: [^\n]+$`)
	for _, c := range cases {
		_, err := ParseScript("bad.sql", c.src)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, c.where) || !strings.Contains(msg, c.what) || !oneLine.MatchString(msg) {
			t.Errorf("%s: %q, want one line at %s saying %q, and a hint", c.name, msg, c.where, c.what)
		}
	}
}

func TestParseWeighted(t *testing.T) {
	for arg, want := range map[string]struct {
		file string
		w    int
	}{"a.sql": {"a.sql", 1}, "a.sql@9": {"a.sql", 9}, "dir@x/a.sql@0": {"dir@x/a.sql", 0}} {
		f, w, err := ParseWeighted(arg)
		if err != nil || f != want.file || w != want.w {
			t.Errorf("%s: %q %d %v", arg, f, w, err)
		}
	}
	for _, bad := range []string{"a.sql@", "a.sql@-1", "a.sql@x", "@3"} {
		if _, _, err := ParseWeighted(bad); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

func FuzzParseScript(f *testing.F) {
	for _, s := range []string{tpcbLike, "\\if 1\nSELECT 1;\n\\endif\n", "SELECT ':a' \\gset\n", "\\sleep :x us\n", "/* ;", "'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := ParseScript("f.sql", src)
		if err != nil {
			return
		}
		for i, c := range s.Commands {
			if c.Kind == If || c.Kind == Elif || c.Kind == Else {
				if c.Next <= i || c.End < c.Next || c.End >= len(s.Commands) || s.Commands[c.End].Kind != Endif {
					t.Fatalf("command %d jumps to %d/%d: %q", i, c.Next, c.End, src)
				}
			}
			if c.Kind == SQL && strings.Count(c.SQL, "?") < len(c.Params) {
				t.Fatalf("command %d has %d parameters and fewer placeholders: %q", i, len(c.Params), src)
			}
		}
	})
}
