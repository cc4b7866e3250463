package etcd

import (
	"errors"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

var errTxOpen, errNoTx = backend.TxStateErrors("etcd")

// errConflict is a transaction whose If failed: a key it read, or its
// table, changed before it committed; nothing was written.
var errConflict = dberr.New(dberr.Retryable, dberr.Serialization, "txn compare failed", errors.New("etcd: a key the transaction read changed before it committed"))

var errReadOnly = dberr.New(dberr.Fatal, dberr.Other, "", errors.New("etcd: a write in a transaction begun to read"))

type class struct {
	class dberr.Class
	kind  dberr.Kind
}

// grpcCodes maps the gRPC status codes etcd's errors carry
// (go.etcd.io/etcd/api/v3/v3rpc/rpctypes): no leader, a leader changed, a
// request timed out, a stopped member are Unavailable; a full database is
// ResourceExhausted; a compacted revision (a snapshot read too old) is
// OutOfRange; a corrupt cluster DataLoss.
var grpcCodes = map[codes.Code]class{
	codes.Unavailable:        {dberr.Unavailable, dberr.Connection},
	codes.ResourceExhausted:  {dberr.Unavailable, dberr.IO},
	codes.OutOfRange:         {dberr.Retryable, dberr.Serialization},
	codes.DataLoss:           {dberr.Fatal, dberr.Corrupt},
	codes.Canceled:           {dberr.Canceled, dberr.Interrupted},
	codes.DeadlineExceeded:   {dberr.Canceled, dberr.Timeout},
	codes.InvalidArgument:    {dberr.Fatal, dberr.Other}, // too many operations, a request too large: the unit's own doing
	codes.FailedPrecondition: {dberr.Fatal, dberr.Other},
	codes.PermissionDenied:   {dberr.Fatal, dberr.Other},
	codes.Unauthenticated:    {dberr.Fatal, dberr.Other},
}

// classify wraps a client error in a classified *dberr.Error: etcd's own
// by the gRPC code it carries (rpctypes.EtcdError, or a gRPC status), the
// context's as canceled.
func classify(err error) error {
	if dberr.Classified(err) {
		return err
	}
	if errors.Is(err, backend.ErrNoSuchTable) {
		return dberr.New(dberr.Fatal, dberr.Other, "no such table", err)
	}
	code, ok := codeOf(err)
	if !ok {
		if c := backend.CanceledOrLost(err); c != nil {
			return c
		}
		return dberr.New(dberr.Fatal, dberr.Other, "", err)
	}
	c, known := grpcCodes[code]
	if !known {
		c = class{dberr.Fatal, dberr.Other}
	}
	return dberr.New(c.class, c.kind, code.String(), err)
}

// codeOf is the gRPC code of an etcd error.
func codeOf(err error) (codes.Code, bool) {
	var ee rpctypes.EtcdError
	if errors.As(err, &ee) {
		return ee.Code(), true
	}
	if s, ok := status.FromError(err); ok && s.Code() != codes.OK && s.Code() != codes.Unknown {
		return s.Code(), true
	}
	return codes.OK, false
}
