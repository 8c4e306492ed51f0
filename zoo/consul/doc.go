// Package consul runs github.com/hashicorp/consul/api (v1.34.5) unchanged
// against a simulated Consul agent and server on leasesim's goroutine host.
package consul
