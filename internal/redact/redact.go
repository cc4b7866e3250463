// Package redact removes secrets from connection strings before they reach a
// result, a report or a log.
package redact

import "regexp"

// Mask replaces every secret.
const Mask = "xxxxx"

var (
	// scheme://user:secret@host…
	urlPassword = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*://[^:/@\s]*):([^@\s]*)@`)
	// user:secret@tcp(host)/db (go-sql-driver/mysql form)
	mysqlPassword = regexp.MustCompile(`^([^:/@\s]+):([^@\s]*)@(tcp|unix)\(`)
	// password=secret in key/value DSNs and query strings
	kvPassword = regexp.MustCompile(`(?i)\b(password|passwd|pwd|pass)=([^&;\s]*)`)
)

// DSN returns s with any password masked. It is safe on any string.
func DSN(s string) string {
	s = urlPassword.ReplaceAllString(s, "${1}:"+Mask+"@")
	s = mysqlPassword.ReplaceAllString(s, "${1}:"+Mask+"@${3}(")
	return kvPassword.ReplaceAllString(s, "${1}="+Mask)
}

// Args returns a copy of a command line with every password masked.
func Args(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = DSN(a)
	}
	return out
}
