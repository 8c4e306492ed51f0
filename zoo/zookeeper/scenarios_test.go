package zookeeper

import (
	"testing"

	"github.com/leasesim/leasesim/gohost"
)

func TestScenariosOnce(t *testing.T) {
	for _, sc := range Scenarios() {
		out := gohost.Execute(t, sc, 1, gohost.Options{Verify: true})
		t.Logf("%s: err=%v level=%s", sc.Name, out.Result.Err(), out.Result.Level)
		for _, c := range out.Checks {
			t.Logf("   %s %s %s", c.Property, c.Status, c.Summary)
		}
	}
}
