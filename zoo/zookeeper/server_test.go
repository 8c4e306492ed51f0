package zookeeper

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
)

// No test here is parallel: the runs seed the process-global crypto/rand
// (gohost.Config.SeedCryptoRand, testing/cryptotest).

func TestLockAgainstTheServer(t *testing.T) {
	s := Setup{Holders: holders(2, time.Second), Token: CzxidToken, Duration: 60 * time.Second}
	res := gohost.Run(t, s.Config(), 1)
	require.NoError(t, res.Err())
	h := res.History
	require.NotEmpty(t, h.Beliefs)
	for _, b := range h.Beliefs {
		t.Logf("%s token %d %v..%v %s", b.Holder, b.Token, b.Start, b.End, b.Reason)
	}
	assert.Equal(t, history.EndRelease, h.Beliefs[0].Reason)
	rs := checker.Check(h, checker.Options{})
	for _, r := range rs {
		t.Logf("%s %s %s", r.Property, r.Status, r.Summary)
	}
}
