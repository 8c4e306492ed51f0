package k8s_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/scenarios"
	k8s "github.com/leasesim/leasesim/zoo/k8s"
)

// timing is the controller's leader election timing. RetryPeriod is not
// 2 s: RenewDeadline would then be a multiple of it, and two of client-go's
// timers would fire at one instant (see doc.go).
var timing = k8s.Timing{LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 1900 * time.Millisecond}

// runController is the code under test: an ordinary controller main
// loop that elects with client-go and does its work while it leads. It
// knows nothing of leasesim except the hooks it is given: the leadership
// tracker (to say when it leads, and its token), its node (to record each
// write as an action under the token: Node.Act) and a place to write.
func runController(ctx context.Context, n *gohost.Node, lead *k8s.Leadership, store k8s.StoreWriter, identity string) {
	client := coordinationv1client.NewForConfigOrDie(k8s.RESTConfig(n, lead))
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: "kube-system", Name: "my-controller"},
			Client:     client,
			LockConfig: resourcelock.ResourceLockConfig{Identity: identity},
		},
		LeaseDuration: timing.LeaseDuration,
		RenewDeadline: timing.RenewDeadline,
		RetryPeriod:   timing.RetryPeriod,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				token := lead.Lead(ctx) // the belief ends when ctx is cancelled
				tick := time.NewTicker(time.Second)
				defer tick.Stop()
				for { // the controller's work; client-go does not wait for it to return
					select {
					case <-ctx.Done():
						return
					case <-tick.C:
						if ctx.Err() != nil { // both ready: select picks at random
							return
						}
						n.Act("kube-system/my-controller", token) // P1 sees every write, even a late one
						_ = store.Write(ctx, "kube-system/my-controller", token, "config", identity)
					}
				}
			},
			OnStoppedLeading: func() {},
		},
	})
}

// TestMyControllerSurvivesAPartition runs two replicas of the controller
// against the simulated API server, cuts each off in turn, and checks
// exclusivity (P1), fencing (P2), the API server's linearizability (P3)
// and that a replica leads again after the heal (P4) over 20 seeds, each
// run twice to verify it is deterministic.
func TestMyControllerSurvivesAPartition(t *testing.T) {
	// Each seed is a subtest; a failing one prints its evidence, the line
	// that replays it and the line that shrinks it. A leak, a node error or
	// a divergence fails it too.
	scenarios.Run(t, exampleScenario(), scenarios.Seeds(1, 20),
		scenarios.WithOptions(scenarios.Options{Verify: true}),
		scenarios.Expect(func(t *testing.T, out *scenarios.Outcome) {
			for _, p := range []string{"P1", "P2", "P3", "P4", "premise"} {
				if v := out.Verdict(p); v != checker.OK {
					t.Errorf("%s %s", p, v)
				}
			}
		}))
}

func exampleScenario() scenarios.Scenario {
	replica := func(ctx context.Context, n *gohost.Node) error {
		identity := fmt.Sprintf("%s_%d", n.Name(), n.Incarnation()) // a new identity each life
		lead := k8s.NewLeadership(n, "kube-system/my-controller", identity, timing.LeaseDuration)
		store := n.NewStoreClient(k8s.StoreAddr)
		defer store.Close()
		for ctx.Err() == nil { // RunOrDie returns when the lead is lost: start over
			runController(ctx, n, lead, store, identity)
		}
		return nil
	}
	return scenarios.Scenario{
		Name: "my-controller-partition",
		Goroutines: func(uint64) gohost.Config {
			return gohost.Config{
				Nodes: []gohost.NodeSpec{
					{Name: k8s.APIServerName, Run: k8s.APIServer},
					{Name: k8s.StoreName, Run: gohost.FencedStore(gohost.StoreOptions{})},
					{Name: "replica-a", Run: replica},
					{Name: "replica-b", Run: replica},
				},
				Duration:     85 * time.Second, // 25 s after the heal: past P4's bound
				SeedMathRand: true,             // client-go's jitter draws from math/rand's global source
				Schedule: faults.Schedule{Version: faults.Version, HealAt: 60 * time.Second, Events: []faults.Event{
					{At: 10 * time.Second, Kind: faults.KindIsolate, Node: "replica-a"}, // whichever leads
					// The other takes over by 33.4 s: it sees the last renewal up to
					// RetryPeriod × 2.2 late, waits LeaseDuration, then one more retry.
					{At: 35 * time.Second, Kind: faults.KindHeal},
					{At: 35 * time.Second, Kind: faults.KindIsolate, Node: "replica-b"}, // is cut off once
				}},
				History: gohost.HistoryConfig{Spec: "cas-record", Grantor: k8s.APIServerName, FencedStore: k8s.StoreName,
					Lease:     timing.Lease(),                        // P4's bound: LeaseDuration, client-go's retry
					Contended: []string{"kube-system/my-controller"}, // the replicas keep contending: P4 judges it
				},
			}
		},
		Premises: []scenarios.Premise{scenarios.ChangedHands()},
	}
}
