package robustness_test

import (
	"context"
	"fmt"
	"time"

	"github.com/leasesim/leasesim/zoo/etcd/robustness"
)

// Judge a history etcd's robustness client recorded against real etcd:
// etcd's model and leasesim's lessor specification both accept it.
func ExampleJudge() {
	reports, err := robustness.Load("testdata/no-fault-1.tar.gz")
	if err != nil {
		fmt.Println(err)
		return
	}
	v, err := robustness.Judge(context.Background(), reports, robustness.LeaseTTL, time.Minute)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("etcd accepted:", v.EtcdAccepted())
	fmt.Println("leasesim P3:", v.Leasesim.Status, "over", v.Ops, "operations")
	// Output:
	// etcd accepted: true
	// leasesim P3: ok over 554 operations
}
