// Package hostinfo reads the facts about this machine that a reader needs to
// trust a number: CPU model and count, memory, kernel and operating system
// (Collect, into a result.Environment that names what could not be read),
// how this dbgauge was built (ReadBuild, Version), and every CPU's time from
// /proc/stat (CPUTimes), from which BusyCores tells how busy the CPUs were
// between two readings.
package hostinfo
