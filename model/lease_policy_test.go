package model

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// neutralGrant is a grant of token to client (incarnation inc) at g.
func neutralGrant(client string, inc uint64, g float64, token uint64) (LeaseInput, LeaseOutput) {
	return LeaseInput{Op: OpAcquire, Client: client, Resource: "r", TTL: ttl, Incarnation: inc},
		LeaseOutput{ServerTime: sec(g), Token: token, TTL: ttl}
}

// The policy's parameters: exact TTL lets the next grant in at g+TTL;
// under the same-lease restart rule a restarted holder keeps its token.
func TestLeasePolicies(t *testing.T) {
	type op struct {
		in  LeaseInput
		out LeaseOutput
	}
	g := func(client string, inc uint64, at float64, token uint64) op {
		in, out := neutralGrant(client, inc, at, token)
		return op{in, out}
	}
	tests := []struct {
		name   string
		policy LeasePolicy
		ops    []op
		why    string
	}{
		{"exact TTL: granted at expiry", ExactTTL(), []op{g("h1", 0, 1, 1), g("h2", 0, 6, 2)}, ""},
		{"exact TTL: granted before expiry", ExactTTL(), []op{g("h1", 0, 1, 1), g("h2", 0, 5.999, 2)}, "until g=6s"},
		{"hold rho: granted at the TTL", HoldRho(0.01), []op{g("h1", 0, 1, 1), g("h2", 0, 6, 2)}, "until g=6.05s"},
		{"hold rho: granted at the hold", HoldRho(0.01), []op{g("h1", 0, 1, 1), g("h2", 0, 6.05, 2)}, ""},
		{"new-lease restart: a new token", ExactTTL(), []op{g("h1", 1, 1, 1), g("h1", 2, 2, 2)}, ""},
		{"new-lease restart: the same incarnation", ExactTTL(), []op{g("h1", 1, 1, 1), g("h1", 1, 2, 2)}, "re-granted"},
		{"same-lease restart: a new token", LeasePolicy{Restart: RestartSameLease}, []op{g("h1", 1, 1, 1), g("h1", 2, 2, 2)}, "re-granted"},
		{"same-lease restart: its token again", LeasePolicy{Restart: RestartSameLease}, []op{g("h1", 1, 1, 1), g("h1", 2, 2, 1)}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := LeaseSpec(tc.policy)
			state := spec.Model.Init()
			for i, o := range tc.ops {
				legal, next := spec.Model.Step(state, o.in, &o.out)
				why := spec.Explain(state, &o.in, o.out)
				assert.Equal(t, legal, why == "")
				if i < len(tc.ops)-1 {
					require.True(t, legal, why)
				} else if tc.why == "" {
					assert.Empty(t, why)
				} else {
					assert.Contains(t, why, tc.why)
				}
				state = next
			}
		})
	}
}

func TestLeasePolicyHoldSaturates(t *testing.T) {
	assert.Equal(t, time.Duration(math.MaxInt64), LeasePolicy{HoldPPB: 2 * ppbOne}.Hold(math.MaxInt64/2+1))
}

func TestLeasePolicyString(t *testing.T) {
	assert.Equal(t, "hold=ttl×(1+0.01), restart=new_lease", HoldRho(0.01).String())
	assert.Equal(t, "hold=ttl, restart=same_lease", LeasePolicy{Restart: RestartSameLease}.String())
}
