package report

import (
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/analysis"
	"github.com/dbgauge/dbgauge/internal/result"
)

// TestMatrixNamesFailures: an append matrix over isolation levels whose
// read-committed cell found G2-item anomalies says so, with the count, and a
// requirement a cell did not meet with what it measured; a long detail is
// cut where the figure has been said.
func TestMatrixNamesFailures(t *testing.T) {
	long := "3, e.g. T12 read key 4 as [1 2] then T15 appended 3 to it | T15 read key 7 as [5] then T12 appended 6 to it | and so on for a long while"
	m := &analysis.Matrix{Dir: "/r/m", Index: &result.Matrix{Workload: "append", Metric: "transactions/s", Status: result.Completed},
		Failures: []analysis.Failure{
			{Cell: "001-r1", Key: "isolation=read-committed", Checks: []result.Check{{Name: "G2-item (write skew)", Detail: long}}},
			{Cell: "002-r1", Key: "isolation=serializable", Verdicts: []result.Verdict{{Require: "p99<=5ms", Got: 7.25, Unit: "ms"}}},
		}}
	var b strings.Builder
	if err := Matrix(&b, m, ""); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  failed checks and requirements\n",
		"    001-r1  isolation=read-committed  ✗ G2-item (write skew): 3, e.g. T12 read key 4 as [1 2] then T15 appended 3 to it | T15 read key 7 as [5] then T12 appended…\n",
		"    002-r1  isolation=serializable    ✗ --require p99<=5ms: measured 7.25 ms\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the summary lacks %q:\n%s", want, b.String())
		}
	}
}
