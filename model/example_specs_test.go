package model_test

import (
	"fmt"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// A grantor that expires leases at exactly their TTL grants h2 at g=6s a
// lease h1 was granted at g=1s for 5s: legal under ExactTTL, a violation
// under leasesim's TTL×(1+rho).
func ExampleLease() {
	ops := []porcupine.Operation{
		{ClientId: 0, Input: model.LeaseInput{Op: model.OpAcquire, Client: "h1", Resource: "jobs", TTL: 5 * time.Second},
			Output: model.LeaseOutput{Token: 1, ServerTime: 1 * time.Second}, Call: 0, Return: 10},
		{ClientId: 1, Input: model.LeaseInput{Op: model.OpAcquire, Client: "h2", Resource: "jobs", TTL: 5 * time.Second},
			Output: model.LeaseOutput{Token: 2, ServerTime: 6 * time.Second}, Call: 20, Return: 30},
	}
	fmt.Println(model.ExactTTL(), porcupine.CheckOperations(model.Lease(model.ExactTTL()), ops))
	fmt.Println(model.HoldRho(0.01), porcupine.CheckOperations(model.Lease(model.HoldRho(0.01)), ops))
	// Output:
	// hold=ttl, restart=new_lease true
	// hold=ttl×(1+0.01), restart=new_lease false
}

// A Redis lock: a takes it at t=1s for 3s; b's SET NX at t=3s fails, and a
// renews with compare-and-PEXPIRE. b's SET NX at t=5s succeeding is a
// violation: a's renewal at t=3s holds the key until t=6s.
func ExampleExpiringKey() {
	lock := func(client string, op model.KeyOp, t time.Duration, ok bool) porcupine.Operation {
		return porcupine.Operation{Input: model.KeyInput{Op: op, Client: client, Key: "lock", Value: client, TTL: 3 * time.Second},
			Output: model.KeyOutput{OK: ok, ServerTime: t}, Call: int64(t), Return: int64(t) + 1}
	}
	ops := []porcupine.Operation{
		lock("a", model.OpSetNXPX, 1*time.Second, true),
		lock("b", model.OpSetNXPX, 3*time.Second, false),
		lock("a", model.OpPExpireIfEqual, 3*time.Second, true),
		lock("b", model.OpSetNXPX, 5*time.Second, true),
	}
	m := model.ExpiringKey()
	fmt.Println(porcupine.CheckOperations(m, ops))
	fmt.Println(m.DescribeOperation(ops[3].Input, ops[3].Output))
	// Output:
	// false
	// set_nx_px(b, "lock"="b", ttl 3s) -> set @t=5s
}

// Two candidates read a Kubernetes Lease at version 4 and both update it:
// only one update can succeed at that version.
func ExampleCASRecord() {
	update := func(client string, call int64) porcupine.Operation {
		r := model.LeaseRecord{HolderIdentity: client, LeaseDuration: 15 * time.Second, LeaseTransitions: 1}
		return porcupine.Operation{Input: model.RecordInput{Op: model.OpRecordUpdate, Client: client, Name: "kube-system/lock",
			Record: r, Version: "4"}, Output: model.RecordOutput{Version: "5"}, Call: call, Return: call + 10}
	}
	create := porcupine.Operation{Input: model.RecordInput{Op: model.OpRecordCreate, Name: "kube-system/lock",
		Record: model.LeaseRecord{HolderIdentity: "c"}}, Output: model.RecordOutput{Version: "4"}, Call: 0, Return: 1}
	fmt.Println(porcupine.CheckOperations(model.CASRecord(), []porcupine.Operation{create, update("a", 5)}))
	fmt.Println(porcupine.CheckOperations(model.CASRecord(), []porcupine.Operation{create, update("a", 5), update("b", 6)}))
	// Output:
	// true
	// false
}

// An etcd election key: a creates it under its lease 7 (3s TTL, granted at
// t=0); the lease expires at t=3s, deleting the key, so b's create at
// t=3.5s succeeds at revision 3.
func ExampleLessor() {
	ops := []porcupine.Operation{
		{Input: model.LessorInput{Op: model.OpGrant, Client: "a", TTL: 3 * time.Second},
			Output: model.LessorOutput{Lease: 7, TTL: 3 * time.Second}, Call: 0, Return: 1},
		{Input: model.LessorInput{Op: model.OpCreate, Client: "a", Key: "leader", Value: "a", Lease: 7},
			Output: model.LessorOutput{OK: true, Revision: 1, ServerTime: time.Second}, Call: 2, Return: 3},
		{Input: model.LessorInput{Op: model.OpCreate, Client: "b", Key: "leader", Value: "b"},
			Output: model.LessorOutput{OK: true, Revision: 3, ServerTime: 3500 * time.Millisecond}, Call: 4, Return: 5},
	}
	m := model.Lessor()
	fmt.Println(porcupine.CheckOperations(m, ops))
	// Output:
	// true
}

// Register is the fenced register on neutral inputs: a write under token 6
// after one under token 7 returned is rejected.
func ExampleRegister() {
	w := func(token uint64, call int64) porcupine.Operation {
		return porcupine.Operation{Input: model.RegisterInput{Op: model.OpWrite, Resource: "jobs", Key: "progress", Token: token, Value: "x"},
			Output: model.RegisterOutput{}, Call: call, Return: call + 10}
	}
	fmt.Println(porcupine.CheckOperations(model.Register(), []porcupine.Operation{w(7, 0), w(6, 20)}))
	// Output:
	// false
}

// A zk.Lock node: session 0x1 (6 s timeout, declared to expire at most a 2 s
// tick later) creates its ephemeral sequential lock node at t=1s and is
// then cut off. It expires no earlier than t=7s and no later than t=9s. Another
// session listing the lock's children at t=9.5s still sees the node: its
// session outlived the bound, so the history is not linearizable; at
// t=8.5s it might still have been there.
func ExampleZooKeeperSession() {
	op := func(kind string, session uint64, at time.Duration, in, out history.Payload) porcupine.Operation {
		in.Kind, in.Lease = kind, session
		out.Kind, out.Clock = kind+"_reply", at
		return porcupine.Operation{Input: &history.Operation{Input: in}, Output: &out, Call: int64(at), Return: int64(at) + 1}
	}
	open := func(id uint64) porcupine.Operation {
		return op(model.OpZKConnect, 0, 0, history.Payload{}, history.Payload{Lease: id, TTL: 6 * time.Second})
	}
	list := func(at time.Duration) porcupine.Operation {
		return op(model.OpZKChildren, 2, at, history.Payload{Key: "/lock"}, history.Payload{Keys: []history.KV{{Key: "n-0000000000"}}})
	}
	setup := []porcupine.Operation{open(1), open(2),
		op(model.OpZKCreate, 1, 0, history.Payload{Key: "/lock"}, history.Payload{Key: "/lock"}),
		op(model.OpZKCreate, 1, time.Second, history.Payload{Key: "/lock/n-", Value: model.ZKEphemeralSequential},
			history.Payload{Key: "/lock/n-0000000000"}),
		op(model.OpZKPing, 2, 4*time.Second, history.Payload{}, history.Payload{})}
	spec, _ := model.SpecFor("zookeeper-session", history.Lease{TTL: 6 * time.Second, HoldPPB: 333_333_334})
	fmt.Println(porcupine.CheckOperations(spec.Model, append(setup, list(8500*time.Millisecond))))
	fmt.Println(porcupine.CheckOperations(spec.Model, append(setup, list(9500*time.Millisecond))))
	// Output:
	// true
	// false
}

// A Consul lock with a 15 s lock-delay: session a holds it and is
// destroyed at t=1s; b's acquire at t=10s is inside the lock-delay, a
// violation; at t=16s it is legal.
func ExampleConsulSession() {
	op := func(kind, session string, at time.Duration, ok bool) porcupine.Operation {
		in := history.Payload{Kind: kind, Holder: session, Key: "service/lock", TTL: 15 * time.Second}
		out := history.Payload{Kind: kind + "_reply", OK: ok, Clock: at}
		if kind == model.OpConsulSessionCreate {
			in.Holder, out.Holder = "", session
		}
		return porcupine.Operation{Input: &history.Operation{Input: in}, Output: &out, Call: int64(at), Return: int64(at) + 1}
	}
	setup := []porcupine.Operation{op(model.OpConsulSessionCreate, "a", 0, true), op(model.OpConsulSessionCreate, "b", 0, true),
		op(model.OpConsulAcquire, "a", 0, true), op(model.OpConsulSessionDestroy, "a", time.Second, true)}
	spec, _ := model.SpecFor("consul-session", history.Lease{TTL: 15 * time.Second, HoldPPB: 999_999_999, LockDelay: 15 * time.Second})
	fmt.Println(porcupine.CheckOperations(spec.Model, append(setup, op(model.OpConsulAcquire, "b", 10*time.Second, true))))
	fmt.Println(porcupine.CheckOperations(spec.Model, append(setup, op(model.OpConsulAcquire, "b", 16*time.Second, true))))
	// Output:
	// false
	// true
}

func ExampleSpecs() {
	for _, s := range model.Specs() {
		fmt.Println(s.Name)
	}
	// Output:
	// lease-store
	// expiring-key
	// cas-record
	// lessor
	// zookeeper-session
	// consul-session
	// fenced-register
}
