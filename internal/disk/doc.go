// Package disk knows the storage under a folder: which file system and mount
// options, which block device, whether it spins and whether its write cache
// acknowledges writes before they are stored. (The fsync-ceiling probe lands
// here too.)
package disk
