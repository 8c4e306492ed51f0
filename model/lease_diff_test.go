package model

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// histories returns how many random histories a differential test checks.
func histories() int {
	if testing.Short() {
		return 400
	}
	return 3000
}

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// leaseGen draws lease-store operations on two resources with a 3s TTL,
// server readings in whole seconds.
func leaseGen(policy LeasePolicy) opGen {
	const ttl = 3 * time.Second
	return opGen{
		spec: LeaseSpec(policy),
		key:  func(in any) string { return leaseInput(in).Resource },
		input: func(r *rand.Rand) any {
			return LeaseInput{
				Op:     pick(r, OpAcquire, OpAcquire, OpRenew, OpRelease, OpRevoke, OpCheckpoint, OpReadCheckpoint, OpQuery),
				Client: pick(r, "a", "b"), Resource: pick(r, "r1", "r2"), Token: uint64(1 + r.IntN(4)), TTL: ttl,
				Incarnation: uint64(r.IntN(2)), Seq: uint64(r.IntN(3)), State: pick(r, "", "x", "y"),
			}
		},
		output: func(r *rand.Rand, _ any, now int64, _ any) (any, int64) {
			clock := now + pick[int64](r, 0, 0, 1, 2, 3, 4)
			return LeaseOutput{
				Err:        pick(r, LeaseOK, LeaseOK, LeaseOK, LeaseHeld, LeaseGrace, "not_holder", LeaseBadRequest, "timeout"),
				ServerTime: time.Duration(clock) * time.Second, Token: uint64(r.IntN(5)), TTL: pick(r, 0, ttl),
				Holder: pick(r, "", "a", "b"), State: pick(r, "", "", "x", "y"), CheckpointToken: uint64(pick(r, 0, 0, 1, 2, 3)),
			}, clock
		},
	}
}

// registerGen draws fenced-register operations on two resources.
func registerGen() opGen {
	return opGen{
		spec: RegisterSpec(),
		key:  func(in any) string { return registerInput(in).Resource },
		input: func(r *rand.Rand) any {
			return RegisterInput{Op: pick(r, OpWrite, OpWrite, OpRead), Client: pick(r, "a", "b"),
				Resource: pick(r, "r1", "r2"), Key: pick(r, "k1", "k2"), Token: uint64(1 + r.IntN(4)), Value: pick(r, "u", "v")}
		},
		output: func(r *rand.Rand, _ any, now int64, _ any) (any, int64) {
			return RegisterOutput{Err: pick(r, RegisterOK, RegisterOK, RegisterFenced, RegisterBadRequest, "lease_expired"),
				Token: uint64(r.IntN(5)), Value: pick(r, "", "u", "v")}, now
		},
	}
}

// minVerdicts is how many histories of each verdict a differential test
// must see, so that it cannot pass by deciding only one way.
func minVerdicts() int { return histories() / 10 }

func TestLeaseStoreDifferential(t *testing.T) {
	for i, policy := range []LeasePolicy{HoldRho(0.1), ExactTTL(), {Restart: RestartSameLease}} {
		t.Run(policy.String(), func(t *testing.T) {
			c := differential(t, leaseGen(policy), uint64(100+i), histories(), 8)
			t.Logf("%v: %d linearizable, %d illegal", policy, c.ok, c.illegal)
			assert.Greater(t, c.ok, minVerdicts())
			assert.Greater(t, c.illegal, minVerdicts())
		})
	}
}

func TestRegisterDifferential(t *testing.T) {
	c := differential(t, registerGen(), 7, histories(), 8)
	t.Logf("%d linearizable, %d illegal", c.ok, c.illegal)
	assert.Greater(t, c.ok, minVerdicts())
	assert.Greater(t, c.illegal, minVerdicts())
}
