package result

import "time"

// MatrixSchema names the version of a matrix index. Readers refuse others.
const MatrixSchema = "dbgauge.matrix/1"

// Matrix is the index of a matrix folder (matrix.json): the axes, every cell
// with its repeat, where its result lives and how it ended. It is rewritten
// after each cell, so an interrupted matrix can be resumed from it.
type Matrix struct {
	Schema    string    `json:"schema"`
	ID        string    `json:"id"`
	Status    Status    `json:"status"`
	Command   []string  `json:"command"` // the command line, secrets redacted
	Args      []string  `json:"args"`    // the knobs every cell shares, as flags, secrets redacted
	Workload  string    `json:"workload"`
	Metric    string    `json:"metric"` // the headline: "calls/s"
	Started   time.Time `json:"started"`
	Updated   time.Time `json:"updated"`
	Axes      []Axis    `json:"axes"`
	Repeat    int       `json:"repeat"`
	Shuffle   bool      `json:"shuffle,omitempty"`
	Seed      uint64    `json:"seed"` // the shuffle's seed
	ReuseData bool      `json:"reuse_data,omitempty"`
	Cells     []Cell    `json:"cells"` // in the order they run
}

// Axis is one knob given several values.
type Axis struct {
	Knob   string   `json:"knob"`           // the knob, or the key of a --set or a --define
	Flag   string   `json:"flag,omitempty"` // "set" for a --set key, "define" for a script variable
	Values []string `json:"values"`
}

// Cell is one combination of axis values, run once per repeat.
type Cell struct {
	ID      string            `json:"id"`     // "007-r2": the combination's number and the repeat
	Key     string            `json:"key"`    // the combination: "durability=sync commit=op"
	Values  map[string]string `json:"values"` // axis knob → value
	Repeat  int               `json:"repeat"` // 1…Matrix.Repeat
	Dir     string            `json:"dir"`    // result folder, relative to the matrix folder
	Status  Status            `json:"status"` // "" until it ran
	Reason  string            `json:"reason,omitempty"`
	Seconds float64           `json:"seconds"` // wall time of the cell's process
	Rate    float64           `json:"rate"`    // its headline, for the index reader
	// Unmet: the cell ran, and a consistency check failed or a requirement
	// was not met (its process exited 1).
	Unmet bool `json:"unmet,omitempty"`
}
