// Package engine is a backend that imports a workload: archtest must catch it.
package engine

import _ "example.com/bad/internal/workload/evil"
