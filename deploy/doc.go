// Package deploy holds no code: it is the home of the tests that keep
// leasesim's scale-out path honest. The path itself is files: the simrun
// image (Dockerfile, built by make image), a Kubernetes Indexed Job that
// runs one sweep shard per pod and a Job that merges the shards
// (k8s/sweep-job.yaml, k8s/merge-job.yaml), and a GitHub Actions matrix
// (ci/github-actions-sweep.yml).
//
// The tests decode the manifests strictly into Kubernetes API types
// (k8s.io/api), check that every container names the image make image
// builds, and run the Indexed Job's own wrapper script for every index as
// local processes, then the merge Job's command, and compare the merged
// summary with one sweep of the same seeds. This is a module of its own
// because the Kubernetes API types are a dependency the core does not take.
package deploy
