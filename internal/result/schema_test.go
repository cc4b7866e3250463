package result

import (
	"bytes"
	"encoding/json"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var update = flag.Bool("update", false, "rewrite docs/result.schema.json")

// SchemaFile is result.json's JSON Schema, made from the types of this
// package by TestSchema.
const schemaFile = "../../docs/result.schema.json"

// TestSchema: docs/result.schema.json is the JSON Schema (2020-12) of
// Result as encoding/json writes it, made from this package's types and
// their comments: a field without omitempty is required, one that may be
// nil may be null, an object has no property it does not declare. It
// fails when the file is stale (go test ./internal/result -run TestSchema
// -update writes it) or does not compile as a schema.
func TestSchema(t *testing.T) {
	got, err := json.MarshalIndent(resultSchema(t), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *update {
		if err := os.WriteFile(schemaFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(schemaFile)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: go test ./internal/result -run TestSchema -update (%v)", schemaFile, err)
	}
	c := jsonschema.NewCompiler()
	if _, err := c.Compile(schemaFile); err != nil {
		t.Fatalf("%s does not compile: %v", schemaFile, err)
	}
}

// TestSchemaRefuses: the schema is strict enough to refuse a result that
// lies about itself: a field of the wrong type, a missing required one, one
// it does not know.
func TestSchemaRefuses(t *testing.T) {
	sch, err := jsonschema.NewCompiler().Compile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	r := Result{Schema: Schema, ID: "x", Status: Completed, Phases: []Phase{}, Series: []Second{{T: 1, Dt: 1, Phase: "measure", OK: 3}}, Checks: []Check{}, Verdicts: []Verdict{}}
	b, _ := json.Marshal(r)
	ok := func(b []byte) error {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return sch.Validate(inst)
	}
	if err := ok(b); err != nil {
		t.Fatalf("a well-formed result is refused: %v", err)
	}
	for name, edit := range map[string]func(m map[string]any){
		"status a number":  func(m map[string]any) { m["status"] = 3 },
		"no summary":       func(m map[string]any) { delete(m, "summary") },
		"a field unknown":  func(m map[string]any) { m["speed"] = "fast" },
		"ok of a fraction": func(m map[string]any) { m["series"].([]any)[0].(map[string]any)["ok"] = 2.5 },
		"another schema":   func(m map[string]any) { m["schema"] = "dbgauge/result/v0" },
	} {
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		edit(m)
		bad, _ := json.Marshal(m)
		if ok(bad) == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// resultSchema is the JSON Schema of Result.
func resultSchema(t *testing.T) map[string]any {
	g := &schemaGen{defs: map[string]any{}, docs: comments(t)}
	root := g.of(reflect.TypeOf(Result{}), false)
	return map[string]any{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         "urn:dbgauge:result.schema.json",
		"title":       "dbgauge result.json (" + Schema + ")",
		"description": "The record of one dbgauge run, as it writes it in its result folder (docs/results.md). Made from the Go types of internal/result by its TestSchema; latencies are in microseconds, durations as Go writes them (\"30s\"), times in RFC 3339.",
		"$ref":        root["$ref"],
		"$defs":       g.defs,
	}
}

// schemaGen makes the schemas of Go types, each struct once in $defs.
type schemaGen struct {
	defs map[string]any
	docs map[string]string // "Type" and "Type.Field" → its comment
}

var (
	timeType     = reflect.TypeOf(time.Time{})
	durationType = reflect.TypeOf(Duration(0))
)

// of returns the schema of t; nullable says the value may be null (a nil
// slice, map or pointer that omitempty does not leave out).
func (g *schemaGen) of(t reflect.Type, nullable bool) map[string]any {
	var s map[string]any
	switch {
	case t == timeType:
		s = map[string]any{"type": "string", "format": "date-time"}
	case t == durationType:
		s = map[string]any{"type": "string", "description": "a duration as Go writes it: 30s, 1m30s, 1.5ms"}
	case t.Kind() == reflect.Pointer:
		return g.of(t.Elem(), nullable)
	case t.Kind() == reflect.Struct:
		g.define(t)
		s = map[string]any{"$ref": "#/$defs/" + t.Name()}
		if nullable {
			return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
		}
		return s
	case t.Kind() == reflect.Slice:
		s = map[string]any{"type": "array", "items": g.of(t.Elem(), false)}
	case t.Kind() == reflect.Map:
		s = map[string]any{"type": "object", "additionalProperties": g.of(t.Elem(), false)}
	case t.Kind() == reflect.Interface:
		return map[string]any{}
	case t.Kind() == reflect.String:
		s = map[string]any{"type": "string"}
	case t.Kind() == reflect.Bool:
		s = map[string]any{"type": "boolean"}
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		s = map[string]any{"type": "integer"}
	case t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64:
		s = map[string]any{"type": "integer", "minimum": 0}
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		s = map[string]any{"type": "number"}
	default:
		panic("no schema for " + t.String())
	}
	if nullable {
		s["type"] = []any{s["type"], "null"}
	}
	return s
}

// define puts the schema of struct t in $defs, once.
func (g *schemaGen) define(t reflect.Type) {
	if _, ok := g.defs[t.Name()]; ok {
		return
	}
	g.defs[t.Name()] = nil // taken: a type that refers to itself stops here
	props, required := map[string]any{}, []any{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		omit := strings.Contains(opts, "omitempty")
		k := f.Type.Kind()
		nullable := !omit && (k == reflect.Pointer || k == reflect.Slice || k == reflect.Map)
		s := g.of(f.Type, nullable)
		if d := g.docs[t.Name()+"."+f.Name]; d != "" {
			if _, ref := s["$ref"]; ref {
				s = map[string]any{"$ref": s["$ref"], "description": d}
			} else if _, ok := s["description"]; !ok && len(s) > 0 {
				s["description"] = d
			}
		}
		if t.Name() == "Result" && name == "schema" {
			s["const"] = Schema
		}
		props[name] = s
		if !omit {
			required = append(required, name)
		}
	}
	def := map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
	if d := g.docs[t.Name()]; d != "" {
		def["description"] = d
	}
	g.defs[t.Name()] = def
}

// comments reads this package's doc comments: of each type, and of each
// struct field (its doc comment, else the comment on its line).
func comments(t *testing.T) map[string]string {
	fset := token.NewFileSet()
	out := map[string]string{}
	files, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, fi := range files {
		if !strings.HasSuffix(fi.Name(), ".go") || strings.HasSuffix(fi.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, fi.Name(), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, sp := range gd.Specs {
				ts := sp.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil {
					doc = gd.Doc
				}
				out[ts.Name.Name] = text(doc)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, fl := range st.Fields.List {
					c := text(fl.Doc)
					if c == "" {
						c = text(fl.Comment)
					}
					for _, n := range fl.Names {
						out[ts.Name.Name+"."+n.Name] = c
					}
				}
			}
		}
	}
	return out
}

func text(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return strings.Join(strings.Fields(g.Text()), " ")
}
