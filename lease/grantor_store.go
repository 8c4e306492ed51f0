package lease

import (
	"encoding/binary"
	"fmt"
	"time"
)

// The grantor's durable keys in its Storage. Leases themselves are
// volatile. They are exported for tools that wrap a grantor's Storage (a
// fault injector, a migration); their values are stable.
const (
	GrantorKeyBoot             = "lease/boot"        // restart grace of the latest boot
	GrantorKeyTokenPrefix      = "lease/token/"      // + resource: last issued token
	GrantorKeyCheckpointPrefix = "lease/checkpoint/" // + resource: token ‖ state
)

// counter returns the last token issued for resource, 0 if none.
func (g *grantor) counter(resource string) uint64 {
	b, ok := g.env.Store.Get(g.tokenKey(resource))
	if !ok {
		return 0
	}
	if len(b) != 8 {
		violated("durable-counter-format", "resource %q: %d bytes", resource, len(b))
	}
	return binary.BigEndian.Uint64(b)
}

// tokenKey returns the storage key of resource's token counter, made once
// per resource rather than once per request.
func (g *grantor) tokenKey(resource string) string {
	k, ok := g.tokenKeys[resource]
	if !ok {
		k = GrantorKeyTokenPrefix + resource
		g.tokenKeys[resource] = k
	}
	return k
}

// putCounter makes token the durable last issued token of resource.
func (g *grantor) putCounter(resource string, token uint64) error {
	g.env.Store.Put(g.tokenKey(resource), uint64Value(token))
	if err := g.env.Store.Sync(); err != nil {
		return fmt.Errorf("persisting token %d of %q: %w", token, resource, err)
	}
	return nil
}

// checkpoint returns the latest accepted checkpoint of resource.
func (g *grantor) checkpoint(resource string) (state []byte, token uint64) {
	b, ok := g.env.Store.Get(g.checkpointKey(resource))
	if !ok {
		return nil, 0
	}
	if len(b) < 8 {
		violated("durable-checkpoint-format", "resource %q: %d bytes", resource, len(b))
	}
	return b[8:], binary.BigEndian.Uint64(b)
}

// putCheckpoint makes state the durable checkpoint of resource.
func (g *grantor) putCheckpoint(resource string, token uint64, state []byte) error {
	value := make([]byte, 8+len(state))
	binary.BigEndian.PutUint64(value, token)
	copy(value[8:], state)
	if err := putSynced(g.env.Store, KV{Key: g.checkpointKey(resource), Value: value}); err != nil {
		return fmt.Errorf("persisting checkpoint of %q: %w", resource, err)
	}
	return nil
}

// checkpointKey returns the storage key of resource's checkpoint, made once
// per resource.
func (g *grantor) checkpointKey(resource string) string {
	k, ok := g.checkpointKeys[resource]
	if !ok {
		k = GrantorKeyCheckpointPrefix + resource
		g.checkpointKeys[resource] = k
	}
	return k
}

// bootGrace reads the grace period recorded by the previous boot, if any.
func (g *grantor) bootGrace() (time.Duration, bool) {
	b, ok := g.env.Store.Get(GrantorKeyBoot)
	if !ok {
		return 0, false
	}
	if len(b) != 8 {
		violated("durable-boot-marker-format", "%d bytes", len(b))
	}
	return time.Duration(binary.BigEndian.Uint64(b)), true
}

// putBootGrace records grace as the grace period the next boot must wait.
func (g *grantor) putBootGrace(grace time.Duration) error {
	g.env.Store.Put(GrantorKeyBoot, binary.BigEndian.AppendUint64(nil, uint64(grace)))
	if err := g.env.Store.Sync(); err != nil {
		return fmt.Errorf("persisting boot marker: %w", err)
	}
	return nil
}
