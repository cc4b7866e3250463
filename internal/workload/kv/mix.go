package kv

import (
	"strconv"
	"strings"

	"github.com/dbgauge/dbgauge/internal/knob"
)

// op is one kind of unit: an operation of YCSB's CoreWorkload.
type op int

// The operations, in the order Shape and the canonical mix list them.
const (
	opRead   op = iota // read one record (YCSB read)
	opUpdate           // overwrite one record's value without reading it (YCSB update)
	opInsert           // add a record beyond the loaded ones (YCSB insert)
	opScan             // read up to --scan-length records in key order from one (YCSB scan)
	opRMW              // read a record, then write it back changed (YCSB readmodifywrite)
	nOps
)

var opNames = [nOps]string{"read", "update", "insert", "scan", "rmw"}

func (o op) String() string { return opNames[o] }

// writes reports whether the operation changes the database.
func (o op) writes() bool { return o == opUpdate || o == opInsert || o == opRMW }

// Mix is the weight of each operation: a deck holds each as many times
// (workload.Deck), so a short run has exactly these proportions.
type Mix [nOps]int

// maxWeight bounds one weight, and so the deck (five of them at most).
const maxWeight = 10_000

const mixHint = "write it as op=weight pairs from read, update, insert, scan, rmw, e.g. --mix read=95,update=5"

// ParseMix parses "read=95,update=5": whole-number weights of the
// operations read, update, insert, scan and rmw, each named at most once;
// a weight may be 0, but not all of them.
func ParseMix(s string) (Mix, error) {
	var m Mix
	var seen [nOps]bool
	if strings.TrimSpace(s) == "" {
		return m, knob.Bad(mixHint, "--mix is empty")
	}
	for _, part := range strings.Split(s, ",") {
		name, w, ok := strings.Cut(part, "=")
		name = strings.ToLower(strings.TrimSpace(name))
		o := op(-1)
		for i, n := range opNames {
			if n == name {
				o = op(i)
			}
		}
		if !ok || o < 0 {
			return m, knob.Bad(mixHint, "--mix %q: %q is not op=weight with a known op", s, strings.TrimSpace(part))
		}
		if seen[o] {
			return m, knob.Bad(mixHint, "--mix %q names %s twice", s, o)
		}
		seen[o] = true
		n, err := strconv.Atoi(strings.TrimSpace(w))
		if err != nil || n < 0 || n > maxWeight {
			return m, knob.Bad("give each op a whole-number weight from 0 to 10000, e.g. --mix read=95,update=5", "--mix %q: %s's weight %q is not a whole number from 0 to %d", s, o, strings.TrimSpace(w), maxWeight)
		}
		m[o] = n
	}
	if m.total() == 0 {
		return m, knob.Bad(mixHint, "--mix %q gives every op a weight of 0", s)
	}
	return m, nil
}

func (m Mix) total() int {
	t := 0
	for _, w := range m {
		t += w
	}
	return t
}

// Has reports whether o has a share of the mix.
func (m Mix) Has(o op) bool { return m[o] > 0 }

// String is the canonical form: the ops with a weight, in a fixed order.
func (m Mix) String() string {
	var parts []string
	for o, w := range m {
		if w > 0 {
			parts = append(parts, opNames[o]+"="+strconv.Itoa(w))
		}
	}
	return strings.Join(parts, ",")
}

// ReadOnly reports whether the mix only reads.
func (m Mix) ReadOnly() bool {
	for o, w := range m {
		if w > 0 && op(o).writes() {
			return false
		}
	}
	return true
}

// Preset is one of YCSB's core workloads (workloads/workloada … workloadf in
// the YCSB repository): its mix and its request distribution.
type Preset struct {
	Name         string
	Mix          Mix
	Distribution string
	What         string
}

// Presets are YCSB's core workloads A–F. E's scans are 1..100 records long
// (maxscanlength=100, scanlengthdistribution=uniform): --scan-length's default.
var Presets = []Preset{
	{"ycsb-a", Mix{opRead: 50, opUpdate: 50}, "zipfian", "update heavy (a session store recording recent actions)"},
	{"ycsb-b", Mix{opRead: 95, opUpdate: 5}, "zipfian", "read mostly (photo tagging)"},
	{"ycsb-c", Mix{opRead: 100}, "zipfian", "read only (a user-profile cache)"},
	{"ycsb-d", Mix{opRead: 95, opInsert: 5}, "latest", "read latest (status updates: the newest are read most)"},
	{"ycsb-e", Mix{opScan: 95, opInsert: 5}, "zipfian", "short ranges (threaded conversations)"},
	{"ycsb-f", Mix{opRead: 50, opRMW: 50}, "zipfian", "read-modify-write (a user database)"},
}

// presetNames are the presets' names: --preset's choices.
func presetNames() []string {
	out := make([]string, len(Presets))
	for i, p := range Presets {
		out[i] = p.Name
	}
	return out
}

func presetNamed(name string) (Preset, bool) {
	for _, p := range Presets {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}
