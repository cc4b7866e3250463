// Package evil is a workload that imports a backend: archtest must catch it.
package evil

import _ "example.com/bad/internal/backend/engine"
