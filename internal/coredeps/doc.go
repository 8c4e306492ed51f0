// Package coredeps holds no code: its test keeps the core module free of
// the zoo's dependencies. `go mod graph` of the core must name no module
// that a zoo module requires for its system (go.etcd.io/raft/v3 and its
// gogo/protobuf, client-go, hashicorp/raft, ...), so that a user of the
// core downloads none of them (docs/decisions/0041).
package coredeps
