//go:debug randseednop=0

package nodelease_test

import (
	"os"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// TestMain silences klog's global logger: the lease controller logs every
// failed renewal through it. The go:debug line lets the host seed
// math/rand's global source (the controller's jitter), as in zoo/k8s.
func TestMain(m *testing.M) {
	klog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}
