// Package disk knows the storage under a folder and how fast it makes
// writes durable: which file system and mount options, which block device,
// whether it spins and whether its write cache acknowledges writes before
// they are stored (Describe, Virtual, Volatile), and the flushes a second it
// really makes.
//
// `dbgauge disk` runs Probe over a Config: each Method (fsync, fdatasync,
// O_SYNC, O_DSYNC, none for reference), Pattern and block size on a scratch
// file in the folder; Judge puts the device's facts and the rates into
// plain words (result.Finding), and Ceiling picks the fastest cell that
// flushes. A run needs only the ceiling of its data folder: CeilingOf reads
// it from the cache when the same device was probed less than a day ago,
// and otherwise probes for about two seconds (Remember caches a probe's).
// The session also drops the page cache before a matrix's cell and for
// cold caches (DropPageCache), and checks that it may write in a data
// folder before anything runs (Writable).
package disk
