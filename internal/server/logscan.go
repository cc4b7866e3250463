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

type logRule struct {
	kind string
	re   *regexp.Regexp
}

// logRules are, per engine, the kinds of trouble a log line can show, most
// severe first (a line counts once, for the first rule it matches);
// harmless lists lines that look like trouble and are not (documented in
// each engine's page under docs/backends).
var logRules = map[string]struct{ rules, harmless []logRule }{
	"postgres": {
		rules: []logRule{
			{"crash", regexp.MustCompile(`server process \(PID \d+\) was terminated by signal|terminating any other active server processes`)},
			{"recovery", regexp.MustCompile(`was not properly shut down|automatic recovery in progress|database system was interrupted`)},
			{"assertion", regexp.MustCompile(`TRAP: `)},
			{"panic", regexp.MustCompile(`PANIC: `)},
			{"fatal", regexp.MustCompile(`FATAL: `)},
			{"error", regexp.MustCompile(`ERROR: `)},
		},
		harmless: []logRule{
			{"", regexp.MustCompile(`FATAL:  (the database system is (starting up|shutting down|not yet accepting connections)|terminating connection due to administrator command)`)},
		},
	},
	"mariadb": {
		rules: []logRule{
			{"crash", regexp.MustCompile(`(mariadbd|mysqld) got signal|Attempting backtrace`)},
			{"assertion", regexp.MustCompile(`Assertion failure|Failing assertion`)},
			{"recovery", regexp.MustCompile(`Starting crash recovery|crash recovery`)},
			{"corruption", regexp.MustCompile(`(?i)corrupt`)},
			{"error", regexp.MustCompile(`\[ERROR\]`)},
		},
	},
	"firebird": {
		rules: []logRule{
			{"crash", regexp.MustCompile(`(?i)terminated abnormally|Segmentation fault|server crashed`)},
			{"bugcheck", regexp.MustCompile(`(?i)bugcheck|internal Firebird consistency check|wrong record length`)},
			{"lock denied", regexp.MustCompile(`(?i)lock denied`)},
			{"lock manager", regexp.MustCompile(`(?i)Fatal lock manager error`)},
			{"io error", regexp.MustCompile(`(?i)I/O error`)},
			{"corruption", regexp.MustCompile(`(?i)corrupt|Database file appears corrupt`)},
			{"network", regexp.MustCompile(`INET/inet_error`)},
			{"error", regexp.MustCompile(`(?i)\berror\b`)},
		},
		harmless: []logRule{
			// Every start on a machine without IPv6 dual-stack sockets.
			{"", regexp.MustCompile(`setsockopt: error setting IPV6_V6ONLY to 0`)},
			// A client that went away without detaching (connection reset).
			{"", regexp.MustCompile(`INET/inet_error: read errno = 104`)},
		},
	},
}

// LogEngine returns the log rules' name for a server's engine ("firebird
// Super" → "firebird"), or "" when dbgauge has none.
func LogEngine(engine string) string {
	name, _, _ := strings.Cut(engine, " ")
	if _, ok := logRules[name]; ok {
		return name
	}
	return ""
}

// ScanLog counts the anomalies of an engine's log text by kind, in the order
// they first appear. Lines matching no rule, or a harmless one, are not
// counted.
func ScanLog(engine, text string) []Anomaly {
	r, ok := logRules[LogEngine(engine)]
	if !ok {
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
		for _, h := range r.harmless {
			if h.re.MatchString(line) {
				continue lines
			}
		}
		for _, rule := range r.rules {
			if !rule.re.MatchString(line) {
				continue
			}
			if k, seen := at[rule.kind]; seen {
				out[k].Count++
			} else {
				at[rule.kind] = len(out)
				out = append(out, Anomaly{Kind: rule.kind, Count: 1, FirstLine: i + 1, Sample: truncate(line, 300)})
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
	engine, path string
	off          int64 // bytes read, to the end of the last whole line
	lines        int   // lines read
}

// FollowLog follows the log at path from its current end, or returns nil
// when dbgauge has no rules for the engine's log.
func FollowLog(engine, path string) *LogFollower {
	if LogEngine(engine) == "" || path == "" {
		return nil
	}
	f := &LogFollower{engine: engine, path: path}
	f.take(readFrom(path, 0))
	return f
}

// Next returns the anomalies of the whole lines written since the last
// call, their FirstLine counted from the log's start.
func (f *LogFollower) Next() []Anomaly {
	chunk := f.take(readFrom(f.path, f.off))
	if chunk == "" {
		return nil
	}
	out := ScanLog(f.engine, chunk)
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
