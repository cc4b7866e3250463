package backendtest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/dbgauge/dbgauge/internal/dberr"
)

// ClassCase is an error as a driver returns it and what the engine's
// classify must make of it.
type ClassCase struct {
	Err   error
	Class dberr.Class
	Kind  dberr.Kind // held where Classify is told HoldKind
	Code  string     // held where Classify is told HoldCode ("" too)
}

// Hold says what Classify holds a classified error to beside its class.
type Hold uint8

const (
	HoldKind Hold = 1 << iota // its kind
	HoldCode                  // its code, an empty one included
	HoldWrap                  // the driver's error still in its chain (a cancellation aside)
)

// Classify holds an engine's classify to its table of cases (dberr.Describe
// of what it returns), and to returning nil for nil. Each engine's
// errors_test calls it with the codes its driver returns.
func Classify(t *testing.T, classify func(error) error, hold Hold, cases []ClassCase) {
	t.Helper()
	for _, c := range cases {
		err := classify(c.Err)
		class, kind, code := dberr.Describe(err)
		got, want := fmt.Sprint(class), fmt.Sprint(c.Class)
		if hold&HoldKind != 0 {
			got, want = got+"/"+string(kind), want+"/"+string(c.Kind)
		}
		if hold&HoldCode != 0 {
			got, want = fmt.Sprintf("%s/%q", got, code), fmt.Sprintf("%s/%q", want, c.Code)
		}
		if got != want {
			t.Errorf("classify(%v) = %s, want %s", c.Err, got, want)
		}
		if hold&HoldWrap != 0 && !errors.Is(err, c.Err) && !errors.Is(err, context.Canceled) {
			t.Errorf("classify(%v) lost the driver error", c.Err)
		}
	}
	if classify(nil) != nil {
		t.Error("classify(nil) is not nil")
	}
}
