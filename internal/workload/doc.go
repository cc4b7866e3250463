// Package workload is the contract every workload meets. Each workload lives
// in a child folder (nms, insert, …) that imports only this package and the
// backend contract, and is registered by one line in the catalog.
//
// A workload is a Spec: its name, its unit of work, its knobs and New, which
// parses the knobs into a configured Workload. That declares the shape of
// its work (Shape: unit kinds with their weights in the mix, and the
// operations inside a unit), loads its dataset (Load) and makes one Client
// per client, whose Do runs one unit of a kind. It never times anything: the
// run engine times units and, through Ops, the operations inside them.
// Optional abilities (Checker, Requirer, Ledgered, Waiter, Figurer, Pender,
// Chooser, …) are small interfaces found by type assertion.
package workload
