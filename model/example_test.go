package model_test

import (
	"fmt"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// acquire returns an acquire by client and the grant of token at grantor
// reading g, as a history records it.
func acquire(client string, g time.Duration, token uint64) (*history.Operation, *history.Payload) {
	op := &history.Operation{Client: client, Server: "grantor",
		Input: history.Payload{Kind: "acquire", Resource: "jobs", Holder: client, TTL: 5 * time.Second}}
	op.Output = history.Payload{Kind: "acquire_reply", Resource: "jobs", Token: token, TTL: 5 * time.Second, OK: true,
		Clock: g}
	return op, &op.Output
}

// Two holders race for a lease with a 5s TTL. The grantor grants h1 at
// g=1s; holding for exactly the TTL, the lease holds until g=6s. A second
// grant to h2 at g=4s overlaps it, and no order of the two concurrent
// calls explains it.
func ExampleLeaseStore() {
	m := model.LeaseStore(model.ExactTTL())
	in1, out1 := acquire("h1", 1*time.Second, 1)
	in2, out2 := acquire("h2", 6*time.Second, 2)
	ops := []porcupine.Operation{
		{ClientId: 0, Input: in1, Output: out1, Call: 0, Return: 100},
		{ClientId: 1, Input: in2, Output: out2, Call: 50, Return: 150},
	}
	fmt.Println("h2 granted at expiry:", porcupine.CheckOperations(m, ops))

	_, early := acquire("h2", 4*time.Second, 2)
	ops[1].Output = early
	fmt.Println("h2 granted before expiry:", porcupine.CheckOperations(m, ops))
	fmt.Println(m.DescribeOperation(ops[1].Input, ops[1].Output))
	// Output:
	// h2 granted at expiry: true
	// h2 granted before expiry: false
	// acquire(h2, ttl 5s) -> tok 2 @g=4s
}

// The fenced resource accepted token 7, then a write under token 6 from a
// holder that woke from a long pause: the register rejects that history.
func ExampleFencedRegister() {
	w := func(client string, token uint64) (history.Operation, history.Payload) {
		return history.Operation{Client: client, Server: "store", Input: history.Payload{Kind: "write", Resource: "jobs",
				Key: "progress", Value: "x", Holder: client, Token: token}},
			history.Payload{Kind: "write_reply", Resource: "jobs", Token: token, OK: true}
	}
	in7, out7 := w("h2", 7)
	in6, out6 := w("h1", 6)
	ops := []porcupine.Operation{
		{ClientId: 1, Input: in7, Output: out7, Call: 0, Return: 10},
		{ClientId: 0, Input: in6, Output: out6, Call: 20, Return: 30},
	}
	fmt.Println(porcupine.CheckOperations(model.FencedRegister(), ops))
	// Output:
	// false
}

// A Spec's Explain names the rule an operation breaks in a state.
func ExampleLeaseStoreSpec() {
	spec := model.LeaseStoreSpec(model.ExactTTL())
	m := spec.Model
	in1, out1 := acquire("h1", 1*time.Second, 1)
	_, state := m.Step(m.Init(), in1, out1)
	in2, out2 := acquire("h2", 4*time.Second, 2)
	fmt.Println(m.DescribeState(state))
	fmt.Println(spec.Explain(state, in2, out2))
	// Output:
	// held by h1 tok 1 until 6s; g=1s
	// granted tok 2 to h2 at g=4s, but h1 holds tok 1 until g=6s
}
