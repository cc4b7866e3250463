// Package htmlreport renders self-contained HTML reports of results: one
// file with every script and style embedded (Apache ECharts included), that
// opens offline and makes no network request. Like every report it is a pure
// function of its inputs: no clock, no environment.
//
// Charts are ECharts options built in Go and written as JSON into
// <script type="application/json"> blocks; a small embedded script (page.js)
// draws them, resolving the few functions JSON cannot carry (axis label
// formatters, the error-bar renderer) by name. When every chart has fired its
// "finished" event the page sets data-charts="drawn" and data-charts-count on
// <body>, which the browser test waits for.
package htmlreport

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"

	"github.com/dbgauge/dbgauge/internal/analysis"
	"github.com/dbgauge/dbgauge/internal/result"
)

// Page is what one report shows. Exactly one of Run, Matrix, Compare, Crash is set.
type Page struct {
	Title   string
	Run     *result.Result       // a single run
	Matrix  *analysis.Matrix     // a matrix folder, analysed
	Compare *analysis.Comparison // a comparison
	Crash   *result.Crash        // what dbgauge crash found
	// ECharts, when set, is the path of the ECharts file WriteECharts
	// wrote, relative to the page ("../../echarts.min.js"): the page loads
	// it from there instead of embedding its megabyte. A matrix's pages
	// share one; a page alone embeds it ("").
	ECharts string
}

// EChartsFile is the name WriteECharts gives the ECharts file.
const EChartsFile = "echarts.min.js"

// WriteECharts writes the ECharts file that pages written with
// Page.ECharts load into dir, atomically; it is the file the pages would
// embed, Apache ECharts 5.6.0 (its license in its first lines).
func WriteECharts(dir string) error {
	path := filepath.Join(dir, EChartsFile)
	if b, err := os.ReadFile(path); err == nil && string(b) == echartsJS {
		return nil
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(echartsJS), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Write renders p as one self-contained HTML document.
func Write(w io.Writer, p Page) error {
	set := 0
	for _, b := range []bool{p.Run != nil, p.Matrix != nil, p.Compare != nil, p.Crash != nil} {
		if b {
			set++
		}
	}
	if set != 1 {
		return errors.New("htmlreport: a page shows exactly one of a run, a matrix, a comparison or a crash")
	}
	d := &doc{}
	var err error
	switch {
	case p.Run != nil:
		err = d.run(p.Run)
	case p.Matrix != nil:
		err = d.matrix(p.Matrix)
	case p.Crash != nil:
		err = d.crash(p.Crash)
	default:
		err = d.compare(p.Compare)
	}
	if err != nil {
		return err
	}
	if p.Title != "" {
		d.Title = p.Title
	}
	d.normalize()
	d.CSS = template.CSS(styleCSS)
	if p.ECharts == "" {
		d.ECharts = template.JS(echartsJS)
	} else {
		d.EChartsSrc = p.ECharts
	}
	d.Script = template.JS(pageJS)
	return pageTemplate.Execute(w, d)
}

//go:embed assets/echarts.min.js
var echartsJS string

//go:embed assets/page.js
var pageJS string

//go:embed assets/style.css
var styleCSS string

// doc is the page as the template sees it.
type doc struct {
	Title    string
	Kind     string // "run", "matrix", "compare"
	Head     header
	Sections []*section
	Charts   []chartData

	CSS        template.CSS
	ECharts    template.JS // embedded
	EChartsSrc string      // or loaded from this file, relative to the page
	Script     template.JS
}

type header struct {
	Title  string
	Lines  []string // one line of context each
	Badges []badge
	Cards  []card
	Note   string // a warning in plain words ("failed: …")
}

type badge struct{ Text, Class string }

type card struct {
	Label, Value, Unit, Note string
	Class                    string
}

// section is a titled part of the page; its items are laid out in a grid.
type section struct {
	Title  string
	Note   string
	Layout string // "one" (full width), "two" (two columns), "chart-table" (chart 2/3, table 1/3)
	Items  []item
}

type item struct {
	Title string
	Note  string
	Chart *chartRef
	Table *table
	Text  []string
}

type chartRef struct {
	ID     string
	Height int // pixels
	Label  string
}

type chartData struct {
	ID   string
	JSON template.JS
}

type table struct {
	Head     []string
	Num      []bool // right-aligned columns
	Rows     [][]cell
	Sortable bool
	KV       bool // two columns: name, value
}

type cell struct {
	Text   string
	Class  string
	Sort   string // the value sorting uses, when not the text
	Badges []badge
	Links  []link
	Title  string // hover text
}

type link struct{ Text, Href string }

// addChart registers an ECharts option and returns its reference.
func (d *doc) addChart(label string, height int, option any) (*chartRef, error) {
	b, err := json.Marshal(option)
	if err != nil {
		return nil, fmt.Errorf("htmlreport: chart %s: %w", label, err)
	}
	id := fmt.Sprintf("chart-%d", len(d.Charts)+1)
	d.Charts = append(d.Charts, chartData{ID: id, JSON: template.JS(b)})
	return &chartRef{ID: id, Height: height, Label: label}, nil
}

func (d *doc) add(s *section) {
	if s != nil && len(s.Items) > 0 {
		d.Sections = append(d.Sections, s)
	}
}

// normalize sizes every table's Num to its widest row, so the template can
// index it.
func (d *doc) normalize() {
	for _, s := range d.Sections {
		for _, it := range s.Items {
			t := it.Table
			if t == nil {
				continue
			}
			w := len(t.Head)
			for _, r := range t.Rows {
				w = max(w, len(r))
			}
			for len(t.Num) < w {
				t.Num = append(t.Num, false)
			}
		}
	}
}

// kv builds a two-column table from name/value pairs, skipping empty values.
func kv(pairs ...string) *table {
	t := &table{KV: true}
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			continue
		}
		t.Rows = append(t.Rows, []cell{{Text: pairs[i]}, {Text: pairs[i+1]}})
	}
	return t
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'{{if .EChartsSrc}} 'self'{{end}}; style-src 'unsafe-inline'; img-src data: blob:">
<meta name="generator" content="dbgauge">
<title>{{.Title}}</title>
<style>{{.CSS}}</style>
</head>
<body class="{{.Kind}}">
<header class="page-head">
<h1>{{.Head.Title}}{{range .Head.Badges}} <span class="badge {{.Class}}">{{.Text}}</span>{{end}}</h1>
{{range .Head.Lines}}<p class="context">{{.}}</p>
{{end}}{{with .Head.Note}}<p class="warning">{{.}}</p>
{{end}}{{with .Head.Cards}}<div class="cards">
{{range .}}<div class="card {{.Class}}"><div class="label">{{.Label}}</div><div class="value">{{.Value}}{{with .Unit}} <span class="unit">{{.}}</span>{{end}}</div>{{with .Note}}<div class="note">{{.}}</div>{{end}}</div>
{{end}}</div>
{{end}}</header>
<main>
{{range .Sections}}<section>
{{with .Title}}<h2>{{.}}</h2>
{{end}}{{with .Note}}<p class="note">{{.}}</p>
{{end}}<div class="grid {{.Layout}}">
{{range .Items}}<div class="item">
{{with .Title}}<h3>{{.}}</h3>
{{end}}{{with .Note}}<p class="note">{{.}}</p>
{{end}}{{with .Chart}}<div class="chart" style="height: {{.Height}}px" data-chart="{{.ID}}" role="img" aria-label="{{.Label}}"></div>
{{end}}{{with .Table}}{{template "table" .}}{{end}}{{range .Text}}<p>{{.}}</p>
{{end}}</div>
{{end}}</div>
</section>
{{end}}</main>
<footer>Made by dbgauge. Charts drawn with Apache ECharts 5.6.0 (Apache-2.0), {{if .EChartsSrc}}in {{.EChartsSrc}} beside this page{{else}}embedded in this file{{end}}.</footer>
{{range .Charts}}<script type="application/json" id="{{.ID}}">{{.JSON}}</script>
{{end}}{{if .EChartsSrc}}<script src="{{.EChartsSrc}}"></script>{{else}}<script>{{.ECharts}}</script>{{end}}
<script>{{.Script}}</script>
</body>
</html>
{{define "table"}}<div class="table-wrap"><table class="{{if .KV}}kv{{end}}{{if .Sortable}} sortable{{end}}">
{{if .Head}}<thead><tr>{{range $i, $h := .Head}}<th{{if index $.Num $i}} class="num"{{end}}{{if $.Sortable}} tabindex="0" title="sort by {{$h}}"{{end}}>{{$h}}</th>{{end}}</tr></thead>
{{end}}<tbody>
{{range .Rows}}<tr>{{range $i, $c := .}}<td{{if or (index $.Num $i) $c.Class}} class="{{if index $.Num $i}}num {{end}}{{$c.Class}}"{{end}}{{with $c.Sort}} data-sort="{{.}}"{{end}}{{with $c.Title}} title="{{.}}"{{end}}>{{$c.Text}}{{range $c.Badges}} <span class="badge {{.Class}}">{{.Text}}</span>{{end}}{{range $c.Links}} <a href="{{.Href}}">{{.Text}}</a>{{end}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>
{{end}}`))
