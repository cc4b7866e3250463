package tpcc

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestConditionsNumbered(t *testing.T) {
	if len(Conditions) != 12 {
		t.Fatalf("%d conditions, want the twelve of clause 3.3.2", len(Conditions))
	}
	for i, c := range Conditions {
		if c.Number != i+1 {
			t.Errorf("condition %d is numbered %d", i+1, c.Number)
		}
		if want := "3.3.2." + strconv.Itoa(i+1); c.Clause() != want {
			t.Errorf("condition %d: clause %q", i+1, c.Clause())
		}
		if c.Audited != (c.Number <= 4) {
			t.Errorf("condition %d: Audited %v; clause 3.3.3 audits 1 to 4", c.Number, c.Audited)
		}
		if c.LoadOnly != (c.Number == 11) {
			t.Errorf("condition %d: LoadOnly %v; only 11 breaks after a Delivery", c.Number, c.LoadOnly)
		}
		if c.Text == "" || strings.Contains(c.Text, "\n") {
			t.Errorf("condition %d: text %q, want one line", c.Number, c.Text)
		}
	}
}

// The tables each condition relates (clause 3.3.2), which its query must
// read (it may read more: the districts to check, say).
var conditionTables = map[int][]string{
	1: {"warehouse", "district"}, 2: {"district", "orders", "new_order"}, 3: {"new_order"},
	4: {"orders", "order_line"}, 5: {"orders", "new_order"}, 6: {"orders", "order_line"},
	7: {"order_line", "orders"}, 8: {"warehouse", "history"}, 9: {"district", "history"},
	10: {"customer", "history", "orders", "order_line"}, 11: {"orders", "new_order"},
	12: {"customer", "orders", "order_line"},
}

// sqlWords are the SQL words the queries may use: standard SQL that
// PostgreSQL, MariaDB, SQLite and Firebird 3 all take.
var sqlWords = map[string]bool{}

func init() {
	for w := range strings.FieldsSeq(`select from where and or not is null as on join left inner group by having union all
		sum max min count coalesce abs`) {
		sqlWords[w] = true
	}
}

var (
	identRE   = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?`)
	aliasAsRE = regexp.MustCompile(`(?i)\bAS ([a-z_][a-z0-9_]*)`)
	tableRE   = regexp.MustCompile(`\b(?:FROM|JOIN) ([a-z_]+) ([a-z]+)\b`)
	derivedRE = regexp.MustCompile(`\) ([a-z]+)\s*(?:\n|ON\b|$)`)
	// what one of the engines lacks or reads otherwise: LIMIT (Firebird),
	// FULL JOIN (SQLite before 3.39), EXCEPT (Firebird), || (MariaDB: OR),
	// POWER (SQLite without its math functions), quoting, casts, …
	unportables = []string{"LIMIT", "OFFSET", "FETCH", "TOP", "!=", ";", "`", `"`, "::", "IFNULL", "NVL", "ISNULL", "ILIKE",
		"FULL", "NATURAL", "RETURNING", "||", "EXCEPT", "MINUS", "INTERSECT", "POWER", "IIF", "IF"}
)

// TestConditionQueriesPortable lints the queries: only the words above,
// the schema's tables and columns and the aliases the query itself defines;
// nothing one of the four engines lacks; balanced parentheses; the tables
// the condition relates.
func TestConditionQueriesPortable(t *testing.T) {
	tables, columns := map[string]bool{}, map[string]bool{}
	for _, tb := range Tables {
		tables[tb.Name] = true
		for _, c := range tb.Columns {
			columns[c] = true
		}
	}
	for _, c := range Conditions {
		q := c.Query
		upper := strings.ToUpper(q)
		for _, u := range unportables {
			if regexp.MustCompile(`(^|[^A-Z_])` + regexp.QuoteMeta(u) + `($|[^A-Z_])`).MatchString(upper) {
				t.Errorf("condition %d uses %s", c.Number, u)
			}
		}
		if !strings.HasPrefix(q, "SELECT ") {
			t.Errorf("condition %d does not start with SELECT", c.Number)
		}
		depth := 0
		for _, ch := range q {
			switch ch {
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth < 0 {
				break
			}
		}
		if depth != 0 {
			t.Errorf("condition %d: unbalanced parentheses", c.Number)
		}

		aliases, outputs := map[string]bool{}, map[string]bool{}
		for _, m := range aliasAsRE.FindAllStringSubmatch(q, -1) {
			outputs[m[1]] = true
		}
		used := map[string]bool{}
		for _, m := range tableRE.FindAllStringSubmatch(q, -1) {
			if tables[m[1]] {
				aliases[m[2]] = true
				used[m[1]] = true
			}
		}
		for _, m := range derivedRE.FindAllStringSubmatch(q, -1) {
			aliases[m[1]] = true
		}
		for _, id := range identRE.FindAllString(q, -1) {
			lower := strings.ToLower(id)
			if qual, col, ok := strings.Cut(id, "."); ok {
				if !aliases[qual] {
					t.Errorf("condition %d: %s qualifies by %q, which it does not define", c.Number, id, qual)
				}
				if !columns[col] && !outputs[col] {
					t.Errorf("condition %d: %s: no column %q", c.Number, id, col)
				}
				continue
			}
			if id != lower && !sqlWords[lower] {
				t.Errorf("condition %d: %q in capitals is no SQL word it may use", c.Number, id)
			}
			if !sqlWords[lower] && !tables[id] && !columns[id] && !aliases[id] && !outputs[id] {
				t.Errorf("condition %d: unknown name %q", c.Number, id)
			}
			if tables[id] {
				used[id] = true
			}
		}
		for _, tb := range conditionTables[c.Number] {
			if !used[tb] {
				t.Errorf("condition %d does not read %s", c.Number, tb)
			}
		}
		if want := []string{"FROM", "WHERE"}; !containsAll(upper, want) && !strings.Contains(upper, "HAVING") {
			t.Errorf("condition %d selects no violation (no WHERE or HAVING)", c.Number)
		}
	}
}

func containsAll(s string, subs []string) bool {
	return !slices.ContainsFunc(subs, func(x string) bool { return !strings.Contains(s, x) })
}
