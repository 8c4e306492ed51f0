package realtime

import (
	"errors"
	"fmt"

	"github.com/leasesim/leasesim/lease"
)

// ErrUnsupported is the error for a call the implementation does not
// support: a node that does not take leasesim's messages (the runtime
// carries only those), a checkpoint or a side effect its holder lacks.
var ErrUnsupported = errors.New("not supported by the implementation")

// speaksLease returns node as a lease.Node, the only kind of node the
// runtime can serve (its wire carries leasesim's messages).
func speaksLease(node any, err error) (lease.Node, error) {
	if err != nil {
		return nil, err
	}
	n, ok := node.(lease.Node)
	if !ok {
		return nil, fmt.Errorf("realtime: %w", errUnsupported("leasesim's messages (lease.Node)", node))
	}
	return n, nil
}

// errUnsupported says that node does not support what.
func errUnsupported(what string, node any) error {
	return fmt.Errorf("%T: %s: %w", node, what, ErrUnsupported)
}
