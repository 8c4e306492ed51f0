package model

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Replayer gives Model.Step's verdicts step for step: random sequences,
// legal ones and ones with a redrawn reply, walked by both, fail at the
// same step or not at all. One Replayer walks them all, so Reset is
// tested too.
func TestReplayerAgreesWithStep(t *testing.T) {
	gens := map[string]opGen{"register": registerGen()}
	for _, policy := range []LeasePolicy{HoldRho(0.1), ExactTTL(), {Restart: RestartSameLease}} {
		gens["lease "+policy.String()] = leaseGen(policy)
	}
	for name, g := range gens {
		t.Run(name, func(t *testing.T) {
			require.NotNil(t, g.spec.Replay)
			rp, m := g.spec.Replay(), g.spec.Model
			r := rand.New(rand.NewPCG(5, 6))
			legal, illegal := 0, 0
			for range histories() {
				seq := g.sequential(r, 1+r.IntN(10))
				if r.IntN(2) == 0 && len(seq) > 0 {
					i := r.IntN(len(seq))
					seq[i].out, _ = g.output(r, seq[i].in, r.Int64N(int64(10*len(seq)+10)), nil)
				}
				want, state := len(seq), m.Init()
				for i, p := range seq {
					var ok bool
					if ok, state = m.Step(state, p.in, p.out); !ok {
						want = i
						break
					}
				}
				got := len(seq)
				rp.Reset()
				for i, p := range seq {
					if !rp.Step(p.in, p.out) {
						got = i
						break
					}
				}
				assert.Equal(t, want, got, "first illegal step of %v", seq)
				if want < len(seq) {
					illegal++
				} else {
					legal++
				}
			}
			assert.Greater(t, legal, minVerdicts())
			assert.Greater(t, illegal, minVerdicts()/10)
		})
	}
}
