// Package workload is the contract every workload meets. Each workload lives
// in a child folder (nms, insert, …) that imports only this package and the
// backend contract, and is registered by one line in the catalog.
//
// A workload declares its knobs and the shape of its work (unit kinds with
// their weights in the mix, and the operations inside a unit), loads its
// dataset, and gives each client a function per unit of work. It never times
// anything: the run engine times units and, through Ops, the operations inside
// them. Optional abilities (Checker, Requirer) are found by type assertion.
package workload
