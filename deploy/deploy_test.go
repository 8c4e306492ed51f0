package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// manifests decodes every document of the YAML files in k8s/ strictly (an
// unknown or misspelt field is an error) into its Kubernetes API type, by
// kind.
func manifests(t *testing.T) (jobs map[string]*batchv1.Job, claims map[string]*corev1.PersistentVolumeClaim) {
	t.Helper()
	jobs, claims = map[string]*batchv1.Job{}, map[string]*corev1.PersistentVolumeClaim{}
	files, err := filepath.Glob(filepath.Join("k8s", "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		for i, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
			var meta struct{ APIVersion, Kind string }
			require.NoError(t, yaml.Unmarshal([]byte(doc), &meta), "%s document %d", file, i)
			if meta == (struct{ APIVersion, Kind string }{}) && onlyComments(doc) {
				continue // the file's leading comment
			}
			where := fmt.Sprintf("%s document %d (%s)", file, i, meta.Kind)
			switch meta.APIVersion + " " + meta.Kind {
			case "batch/v1 Job":
				var job batchv1.Job
				require.NoError(t, yaml.UnmarshalStrict([]byte(doc), &job), where)
				jobs[job.Name] = &job
			case "v1 PersistentVolumeClaim":
				var pvc corev1.PersistentVolumeClaim
				require.NoError(t, yaml.UnmarshalStrict([]byte(doc), &pvc), where)
				claims[pvc.Name] = &pvc
			default:
				t.Fatalf("%s: teach manifests the kind %s %s", where, meta.APIVersion, meta.Kind)
			}
		}
	}
	return jobs, claims
}

// onlyComments reports whether a YAML document holds nothing but comments
// and blank lines.
func onlyComments(doc string) bool {
	for _, line := range strings.Split(doc, "\n") {
		if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
			return false
		}
	}
	return true
}

// The strict decoding bites: a misspelt field is an error.
func TestStrictDecodingRefusesUnknownFields(t *testing.T) {
	var job batchv1.Job
	err := yaml.UnmarshalStrict([]byte("apiVersion: batch/v1\nkind: Job\nspec:\n  completion: 3\n"), &job)
	assert.ErrorContains(t, err, "completion")
}

// The manifests are valid Kubernetes objects that fit together: the sweep
// is an Indexed Job with as many completions as parallel pods and shards,
// both Jobs mount the claim that exists, and every container runs the
// image make image builds.
func TestManifests(t *testing.T) {
	jobs, claims := manifests(t)
	sweep, merge := jobs["leasesim-sweep"], jobs["leasesim-merge"]
	require.NotNil(t, sweep, "the sweep Job")
	require.NotNil(t, merge, "the merge Job")
	require.NotNil(t, sweep.Spec.CompletionMode)
	assert.Equal(t, batchv1.IndexedCompletion, *sweep.Spec.CompletionMode)
	require.NotNil(t, sweep.Spec.Completions)
	assert.Equal(t, sweep.Spec.Completions, sweep.Spec.Parallelism, "one pod per shard, all at once")
	assert.Equal(t, fmt.Sprint(*sweep.Spec.Completions), env(container(t, sweep).Env, "SHARDS"), "completions = SHARDS")
	image := makeImage(t)
	for _, job := range []*batchv1.Job{sweep, merge} {
		c := container(t, job)
		assert.Equal(t, image, c.Image, "%s runs the image make image builds", job.Name)
		for _, v := range job.Spec.Template.Spec.Volumes {
			require.NotNil(t, v.PersistentVolumeClaim, "%s volume %s", job.Name, v.Name)
			assert.Contains(t, claims, v.PersistentVolumeClaim.ClaimName, "%s mounts a claim that exists", job.Name)
		}
	}
}

// The Indexed Job's wrapper script, run for every index as local
// processes with simrun on the PATH, and then the merge Job's command,
// give the summary one sweep of the same seeds gives; a shard that found
// failures (exit 1) is a result the wrapper lets succeed.
func TestIndexedJobEqualsOneSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("builds simrun and runs a small sweep four times")
	}
	jobs, _ := manifests(t)
	sweep, merge := container(t, jobs["leasesim-sweep"]), container(t, jobs["leasesim-merge"])
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "simrun"), ".")
	build.Dir = "../cmd/simrun" // simrun's own module
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	results := t.TempDir()
	const shards, seeds, scenario, impl = 3, "1-6", "kleppmann-gc-pause,partition-heal", "mutant/unfenced-resource"
	script := strings.ReplaceAll(strings.Join(sweep.Args, "\n"), "/results", results)
	require.Equal(t, []string{"sh", "-c"}, sweep.Command)
	for k := range shards {
		cmd := exec.Command("sh", "-c", script)
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), fmt.Sprintf("JOB_COMPLETION_INDEX=%d", k),
			fmt.Sprintf("SHARDS=%d", shards), "SEEDS="+seeds, "SCENARIO="+scenario, "IMPL="+impl)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "pod %d: %s", k, out)
		code, err := os.ReadFile(filepath.Join(results, fmt.Sprintf("shard-%d.exit", k+1)))
		require.NoError(t, err)
		assert.Equal(t, "1", strings.TrimSpace(string(code)), "pod %d found the mutant's failures", k)
	}
	require.Len(t, merge.Command, 3)
	mergeCmd := exec.Command("sh", "-c", strings.ReplaceAll(merge.Command[2], "/results", results))
	mergeCmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	out, err = mergeCmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "merge fails on the mutant's failures: %s", out)
	assert.Equal(t, 1, ee.ExitCode(), "%s", out)

	// As a pod runs it: simrun on the PATH, so the replay lines read alike.
	one := exec.Command("sh", "-c", "simrun sweep --scenario "+scenario+" --impl "+impl+" --seeds "+seeds+" --json")
	one.Env = mergeCmd.Env
	var stdout bytes.Buffer
	one.Stdout = &stdout
	_ = one.Run() // exit 1: the mutant fails
	merged, err := os.ReadFile(filepath.Join(results, "merged", "summary.json"))
	require.NoError(t, err)
	assert.Equal(t, comparable(t, stdout.Bytes()), comparable(t, merged), "the merged shards are one sweep")
}

// comparable decodes a sweep summary without what legitimately differs
// between one sweep and merged shards: the shard, wall and CPU time, the
// rates computed from them and the parallelism.
func comparable(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m), "%s", data)
	for _, k := range []string{"shard", "wall_seconds", "cpu_seconds", "events_per_second", "runs_per_second", "mean_acceleration", "parallel"} {
		require.Contains(t, m, k)
		delete(m, k)
	}
	return m
}

// container returns a Job's one container.
func container(t *testing.T, job *batchv1.Job) corev1.Container {
	t.Helper()
	require.NotNil(t, job)
	require.Len(t, job.Spec.Template.Spec.Containers, 1, job.Name)
	return job.Spec.Template.Spec.Containers[0]
}

// env returns the value of the variable name in vars, or "".
func env(vars []corev1.EnvVar, name string) string {
	for _, v := range vars {
		if v.Name == name {
			return v.Value
		}
	}
	return ""
}

// makeImage is the image the Makefile's image target builds (IMAGE).
func makeImage(t *testing.T) string {
	t.Helper()
	mk, err := os.ReadFile(filepath.Join("..", "Makefile"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^IMAGE\s*\?=\s*(\S+)`).FindSubmatch(mk)
	require.NotNil(t, m, "the Makefile sets IMAGE")
	return string(m[1])
}
