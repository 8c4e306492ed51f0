// Package redislock is a Redis-style lock written from scratch on
// leasesim's kernel (draft).
package redislock
