package checker

import (
	"strings"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// The specifications whose success replies grant a lease, by their base
// names (a history's spec may name a variant after a slash).
var (
	specExpiringKey = model.ExpiringKeySpec().Name
	specCASRecord   = model.CASRecordSpec().Name
	specLessor      = model.LessorSpec().Name
)

// specBase is a history's spec without its variant ("lease-store" for
// "lease-store/holder-budgets"); "" stays "".
func specBase(spec string) string {
	base, _, _ := strings.Cut(spec, "/")
	return base
}

// grantKinds are the request kinds whose success replies grant a lease
// under spec (see grantReply): a pass reads an operation's head first and
// loads it whole only if its kind is one of these.
func grantKinds(spec string) []string {
	switch specBase(spec) {
	case "", NeedsLeaseStore:
		return []string{kindAcquire}
	case specExpiringKey:
		return []string{string(model.OpSetNXPX)}
	case specCASRecord:
		return []string{string(model.OpRecordCreate), string(model.OpRecordUpdate)}
	case specLessor:
		return []string{string(model.OpCreate)}
	}
	return nil
}

// grantReply reports whether op, an operation of the lease store, is a
// success reply that gave its client a lease, read from the spec's own
// replies:
//
//   - leasesim's lease store: an acquire answered with a token;
//   - an expiring key: SET NX PX answered OK (the key was set, so the
//     client holds the lock);
//   - a compare-and-swap record: a create or update that succeeded and
//     wrote a record naming the client its holder (an update naming
//     nobody releases);
//   - a lessor: a create (put if absent) that put the key, attached to a
//     lease (a put attached to a lease that was not granted fails, so the
//     grant and the attach both succeeded).
//
// A spec this list does not name grants nothing the checkers can see.
func grantReply(spec string, op *history.Operation) bool {
	in, out := &op.Input, &op.Output
	if out.Err != "" {
		return false
	}
	switch specBase(spec) {
	case "", NeedsLeaseStore:
		return in.Kind == kindAcquire && out.Token != 0
	case specExpiringKey:
		return in.Kind == string(model.OpSetNXPX) && out.OK
	case specCASRecord:
		return (in.Kind == string(model.OpRecordCreate) || in.Kind == string(model.OpRecordUpdate)) &&
			in.Holder != "" && in.Holder == op.Client
	case specLessor:
		return in.Kind == string(model.OpCreate) && out.OK && in.Lease != 0
	}
	return false
}

// grantTarget names what a grant reply gave: the resource, else the key.
func grantTarget(op *history.Operation) string {
	if op.Input.Resource != "" {
		return op.Input.Resource
	}
	return op.Input.Key
}
