// Package hraft runs github.com/hashicorp/raft (v1.8.0), unchanged, as
// three or five members inside leasesim's goroutine host (package gohost),
// and judges its leadership as a lease and the reads an application serves
// from it.
package hraft
