// Package robustness judges histories recorded by etcd's own robustness
// tests (go.etcd.io/etcd/tests/v3/robustness, pinned at the etcd version
// this module runs) with leasesim's lessor specification, next to etcd's
// own verdict on the same history.
//
// Record drives etcd's RecordingClients, unchanged, with the lease part
// of etcd's robustness traffic against a real etcd cluster (zoo/etcd's
// processes on loopback, Generate); Save and Load keep what they recorded
// in etcd's own file format; EtcdVerdict is etcd's validation
// (validate.ValidateAndReturnVisualize, its porcupine model); Lessor
// converts the same operations into a leasesim history, which Judge
// checks for P3 under the lessor specification. The differential rule is
// that where etcd's model accepts a history, leasesim's accepts it too.
package robustness
