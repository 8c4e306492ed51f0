package ttllock_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/examples/ttllock"
	"github.com/leasesim/leasesim/scenarios"
)

// The Kleppmann story over five seeds, each run twice (verified): the
// premises held, and P1 and P2 hold on every seed.
func TestKleppmann(t *testing.T) {
	scenarios.Run(t, ttllock.Kleppmann(), scenarios.Seeds(1, 5),
		scenarios.WithOptions(scenarios.Options{Verify: true}),
		scenarios.Expect(func(t *testing.T, out *scenarios.Outcome) {
			for _, p := range []string{"P1", "P2", "premise"} {
				assert.Equal(t, checker.OK, out.Verdict(p), p)
			}
		}))
}
