//go:debug randseednop=0

package k8s_test

import (
	"os"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// TestMain silences klog's global logger (client-go's REST client logs
// through it); the candidates' own client-go logging goes to their
// context's logger (CandidateOptions.Log).
func TestMain(m *testing.M) {
	klog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}
