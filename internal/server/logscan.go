package server

import (
	"regexp"
	"strings"
)

// Anomaly is one kind of trouble a server wrote in its log: how often, where
// first (line number in the log) and one line of it.
type Anomaly struct {
	Kind      string `json:"kind"`
	Count     int    `json:"count"`
	FirstLine int    `json:"first_line"`
	Sample    string `json:"sample"`
}

// LogRule is one kind of trouble a server's log line can show (or, among
// LogRules.Harmless, a line that looks like trouble and is not).
type LogRule struct {
	Kind string
	Re   *regexp.Regexp
}

// Rule compiles a LogRule.
func Rule(kind, re string) LogRule { return LogRule{Kind: kind, Re: regexp.MustCompile(re)} }

// LogRules are an engine's kinds of trouble, most severe first (a line
// counts once, for the first rule it matches), and the lines that look like
// trouble and are not (documented in each engine's page under
// docs/backends). Each engine declares its own, in its folder.
type LogRules struct {
	Rules, Harmless []LogRule
}

// Scan counts the anomalies of a log's text by kind, in the order they
// first appear. Lines matching no rule, or a harmless one, are not counted.
// A nil LogRules finds nothing.
func (r *LogRules) Scan(text string) []Anomaly {
	if r == nil {
		return nil
	}
	var out []Anomaly
	at := map[string]int{}
lines:
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		for _, h := range r.Harmless {
			if h.Re.MatchString(line) {
				continue lines
			}
		}
		for _, rule := range r.Rules {
			if !rule.Re.MatchString(line) {
				continue
			}
			if k, seen := at[rule.Kind]; seen {
				out[k].Count++
			} else {
				at[rule.Kind] = len(out)
				out = append(out, Anomaly{Kind: rule.Kind, Count: 1, FirstLine: i + 1, Sample: truncate(line, 300)})
			}
			continue lines
		}
	}
	return out
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// LogFollower reads a server's log as it grows, for anomalies while a run
// goes on. It is not safe for concurrent use.
type LogFollower struct {
	rules *LogRules
	path  string
	off   int64 // bytes read, to the end of the last whole line
	lines int   // lines read
}

// Follow follows the log at path from its current end, or returns nil
// when there are no rules or no log.
func (r *LogRules) Follow(path string) *LogFollower {
	if r == nil || path == "" {
		return nil
	}
	f := &LogFollower{rules: r, path: path}
	f.take(ReadFrom(path, 0))
	return f
}

// Next returns the anomalies of the whole lines written since the last
// call, their FirstLine counted from the log's start.
func (f *LogFollower) Next() []Anomaly {
	chunk := f.take(ReadFrom(f.path, f.off))
	if chunk == "" {
		return nil
	}
	out := f.rules.Scan(chunk)
	for i := range out {
		out[i].FirstLine += f.lines - strings.Count(chunk, "\n")
	}
	return out
}

// take consumes text up to its last whole line and returns that part.
func (f *LogFollower) take(text string) string {
	end := strings.LastIndexByte(text, '\n') + 1
	f.off += int64(end)
	f.lines += strings.Count(text[:end], "\n")
	return text[:end]
}
