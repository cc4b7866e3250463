package firebird

import (
	"errors"
	"strconv"

	"github.com/nakagami/firebirdsql"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

type class struct {
	class dberr.Class
	kind  dberr.Kind
}

// gdsCodes maps Firebird's status codes (the first of the status vector that
// is known wins; https://firebirdsql.org/file/documentation/html/en/refdocs/fblangref30/firebird-30-language-reference.html#fblangref30-appx02-errcodes).
var gdsCodes = map[int]class{
	firebirdsql.ISCDeadlock:           {dberr.Retryable, dberr.Deadlock},      // deadlock
	firebirdsql.ISCUpdateConflict:     {dberr.Retryable, dberr.Serialization}, // update conflicts with concurrent update
	firebirdsql.ISCLockConflict:       {dberr.Retryable, dberr.Lock},          // lock conflict on no wait transaction
	firebirdsql.ISCLockTimeout:        {dberr.Retryable, dberr.Timeout},       // lock time-out on wait transaction
	firebirdsql.ISCNoDup:              {dberr.Rollback, dberr.Unique},         // attempt to store duplicate value
	firebirdsql.ISCUniqueKeyViolation: {dberr.Rollback, dberr.Unique},         // violation of PRIMARY or UNIQUE KEY constraint
	firebirdsql.ISCForeignKey:         {dberr.Rollback, dberr.Constraint},     // violation of FOREIGN KEY constraint
	firebirdsql.ISCCheckConstraint:    {dberr.Rollback, dberr.Check},          // CHECK constraint
	firebirdsql.ISCPrimaryKeyRef:      {dberr.Rollback, dberr.Constraint},     // the key is referenced
	firebirdsql.ISCStringTruncation:   {dberr.Rollback, dberr.Constraint},     // string right truncation
	firebirdsql.ISCNotValid:           {dberr.Rollback, dberr.Check},          // validation error for column (NOT NULL, a domain's CHECK)
	firebirdsql.ISCNetworkError:       {dberr.Unavailable, dberr.Connection},  // unable to complete network request
	firebirdsql.ISCNetReadErr:         {dberr.Unavailable, dberr.Connection},
	firebirdsql.ISCNetWriteErr:        {dberr.Unavailable, dberr.Connection},
	firebirdsql.ISCLostDbConnection:   {dberr.Unavailable, dberr.Connection},
	firebirdsql.ISCConnectReject:      {dberr.Unavailable, dberr.Connection},
	firebirdsql.ISCShutdown:           {dberr.Unavailable, dberr.Connection}, // database shutdown
	firebirdsql.ISCAttShutdown:        {dberr.Unavailable, dberr.Connection}, // connection shutdown
	firebirdsql.ISCIoError:            {dberr.Fatal, dberr.IO},               // I/O error during "…" operation
	firebirdsql.ISCCancelled:          {dberr.Canceled, dberr.Interrupted},   // operation was cancelled
	firebirdsql.ISCBugCheck:           {dberr.Fatal, dberr.Corrupt},          // internal Firebird consistency check
	firebirdsql.ISCDbCorrupt:          {dberr.Fatal, dberr.Corrupt},          // database file appears corrupt
	firebirdsql.ISCBadDbFormat:        {dberr.Fatal, dberr.Corrupt},
	firebirdsql.ISCMetadataCorrupt:    {dberr.Fatal, dberr.Corrupt},
}

// classify wraps a driver error in a *dberr.Error. Firebird's status vector
// goes from the general to the particular (deadlock, then update conflicts
// with concurrent update): the last code known here classifies it.
func classify(err error) error {
	if dberr.Classified(err) {
		return err
	}
	var fe *firebirdsql.FbError
	if errors.As(err, &fe) {
		for i := len(fe.GDSCodes) - 1; i >= 0; i-- {
			if c, ok := gdsCodes[fe.GDSCodes[i]]; ok {
				return dberr.New(c.class, c.kind, strconv.Itoa(fe.GDSCodes[i]), err)
			}
		}
		code := ""
		if len(fe.GDSCodes) > 0 {
			code = strconv.Itoa(fe.GDSCodes[0])
		}
		return dberr.New(dberr.Fatal, dberr.Other, code, err)
	}
	if c := backend.CanceledOrLost(err); c != nil {
		return c
	}
	return dberr.New(dberr.Fatal, dberr.Other, "", err)
}
