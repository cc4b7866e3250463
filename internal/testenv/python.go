package testenv

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/pyworker"
)

// PythonEnv returns the interpreter of env's virtualenv, making it first
// when it is missing, as `dbgauge engines install` (and so .ci/run) makes
// it: the tests of an engine run through a worker never skip for want of
// it. A machine without its Python, or without the package registry,
// skips the test (fails it in CI), saying why.
func PythonEnv(t testing.TB, env pyworker.Env) string {
	t.Helper()
	if p, err := env.Find("", ""); err == nil {
		return p
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var log bytes.Buffer
	if _, err := env.Install(ctx, "", &log); err != nil {
		lines := strings.Split(strings.TrimSpace(log.String()), "\n")
		Skip(t, fmt.Sprintf("%s's Python environment could not be made: %v (%s)", env.Name, err, lines[len(lines)-1]))
	}
	p, err := env.Find("", "")
	Need(t, err)
	return p
}
