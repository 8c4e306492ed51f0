package etcdraft

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/leasesim/leasesim/lease"
)

// checkpointSuffix names a resource's checkpoint key: the resource's key
// with it appended. The key is attached to no lease, so a checkpoint
// outlives the holder that wrote it.
const checkpointSuffix = "/checkpoint"

// checkpointKey is the key that keeps resource's latest task checkpoint.
func checkpointKey(resource string) string { return resource + checkpointSuffix }

// encodeCheckpoint is a checkpoint key's value: the token the state was
// written under and the request's id, each as 16 hex digits, a colon, the
// state. Values so sort as (token, id) do: a checkpoint puts only over a
// smaller value, so a holder's older checkpoint that arrives late (a
// redirect overtaken by the next one) does not overwrite a newer one.
func encodeCheckpoint(token, id uint64, state []byte) string {
	return fmt.Sprintf("%016x%016x:%s", token, id, state)
}

// decodeCheckpoint reads what encodeCheckpoint wrote.
func decodeCheckpoint(v string) (token uint64, state []byte, err error) {
	head, s, ok := strings.Cut(v, ":")
	if !ok || len(head) != 32 {
		return 0, nil, fmt.Errorf("decode checkpoint %q: no token and id: %w", v, errShort)
	}
	if token, err = strconv.ParseUint(head[:16], 16, 64); err != nil {
		return 0, nil, fmt.Errorf("decode checkpoint %q: %w", v, err)
	}
	return token, []byte(s), nil
}

// ckptCall is a checkpoint awaiting its reply. Checkpoints do not go
// through a session's calls: they run beside its keepalives.
type ckptCall struct {
	resource  string
	token     uint64
	req       Request
	redirects int
	done      func(error)
}

// Checkpoint stores state under the lease's token: a transaction through
// the log that puts the resource's checkpoint key only while the
// resource's key has the token as its create revision. done receives nil,
// lease.ErrLeaseExpired (no belief, nothing sent), lease.ErrFenced (the
// key is gone or another's: the holder drops the lease) or
// lease.ErrTimeout (no leader answered; it may still have been applied).
func (h *holder) Checkpoint(resource string, state []byte, done func(error)) {
	if done == nil {
		done = func(error) {}
	}
	g, ok := h.Valid(resource)
	if !ok {
		done(fmt.Errorf("checkpoint %q: %w", resource, lease.ErrLeaseExpired))
		return
	}
	id := h.ids.Next()
	c := &ckptCall{resource: resource, token: g.Token, done: done, req: Request{Op: OpCheckpoint, Client: string(h.env.Self),
		ID: id, Key: checkpointKey(resource), Value: encodeCheckpoint(g.Token, id, state), Guard: resource,
		Token: int64(g.Token)}}
	send := func() { h.sendCheckpoint(c) }
	if h.env.Failpoint == nil {
		send()
		return
	}
	h.env.Failpoint(lease.FailpointBeforeCheckpoint, send)
}

// sendCheckpoint sends c to the member believed to lead. A redirect sends
// it again with the same id, which orders it among the holder's
// checkpoints (encodeCheckpoint).
func (h *holder) sendCheckpoint(c *ckptCall) {
	h.ckpts.Add(c.req.ID, c)
	h.net.SendAny(h.members[h.target], c.req)
}

// checkpointReplied hands a member's answer to the checkpoint awaiting it.
func (h *holder) checkpointReplied(r Reply) {
	c, ok := h.ckpts.Take(r.ID)
	if !ok {
		return // a duplicate or a late reply
	}
	switch {
	case r.Err == ErrNotLeader:
		if h.followLeader(r.Leader, &c.redirects) {
			h.sendCheckpoint(c)
			return
		}
		c.done(fmt.Errorf("checkpoint %q under token %d: no leader answered: %w", c.resource, c.token, lease.ErrTimeout))
	case r.Err == ErrFenced:
		err := fmt.Errorf("checkpoint %q under token %d: the key's create revision is not the token: %w", c.resource,
			c.token, lease.ErrFenced)
		h.fenced(c.resource, c.token, err)
		c.done(err)
	case r.Err != ErrNone:
		c.done(fmt.Errorf("checkpoint %q under token %d: %q: %w", c.resource, c.token, r.Err, lease.ErrBadRequest))
	default: // stored, or (OK false) overtaken by a newer checkpoint of ours, as if stored and overwritten
		if s := h.sessions[c.resource]; s != nil && s.Token == c.token && c.req.Value > s.acked {
			s.acked = c.req.Value
		}
		c.done(nil)
	}
}

// acknowledge asks again for a checkpoint of ours that the read back shows
// stored but whose answer never came (its proposer crashed or lost
// leadership after it committed): the store acknowledges a value already
// there, so the history shows it accepted, as a task's completion is its
// accepted "done" checkpoint. It is the same request (its id is in the
// value). It reports whether it asked; if so the session waits
// (phaseAck) and believes once the store answers: believing first would
// let the owner, seeing its task done, release the lease, and the revoke
// could reach the log first and fence the acknowledgement (grantor-restart
// seed 236: the task never completed). A request that no leader answers
// reads the checkpoint again.
func (h *holder) acknowledge(s *session, token uint64, stored string) bool {
	if token != s.Token || stored <= s.acked || len(stored) < 32 {
		return false
	}
	id, err := strconv.ParseUint(stored[16:32], 16, 64)
	if err != nil {
		return false
	}
	prev := s.acked
	s.acked, s.phase = stored, phaseAck
	h.sendCheckpoint(&ckptCall{resource: s.Resource, token: token, req: Request{Op: OpCheckpoint,
		Client: string(h.env.Self), ID: id, Key: checkpointKey(s.Resource), Value: stored, Guard: s.Resource,
		Token: int64(token)}, done: func(err error) {
		if s.released || s.Token != token || s.phase != phaseAck {
			return // released, or fenced (the session started afresh)
		}
		if err != nil {
			s.acked, s.phase = prev, phaseRestore
			h.later(s, func() { h.restore(s) })
			return
		}
		s.phase, s.backoff = phaseHeld, 0
		h.believe(s)
	}})
	return true
}

// checkpointTimedOut gives up on a checkpoint whose reply has not come and
// moves on to the next member.
func (h *holder) checkpointTimedOut(_ uint64, c *ckptCall) {
	h.nextMember()
	c.done(fmt.Errorf("checkpoint %q under token %d: %w", c.resource, c.token, lease.ErrTimeout))
}

// restore reads the resource's latest checkpoint once its key is ours,
// then believes: the grant carries the state (lease.Grant.State). No
// other holder can checkpoint meanwhile, since the key's create revision
// is ours.
func (h *holder) restore(s *session) {
	s.phase = phaseRestore
	h.call(s, Request{Op: OpGet, Key: checkpointKey(s.Resource)}, func(r Reply, _ time.Duration) {
		if r.Err != ErrNone {
			h.later(s, func() { h.restore(s) })
			return
		}
		s.state, s.stateToken = nil, 0
		if r.OK {
			token, state, err := decodeCheckpoint(r.Value)
			if err != nil {
				panic("etcdraft: invariant checkpoint-format: " + err.Error())
			}
			s.state, s.stateToken = state, token
			if h.acknowledge(s, token, r.Value) {
				return
			}
		}
		s.phase, s.backoff = phaseHeld, 0
		h.believe(s)
	}, func() { h.restore(s) })
}

// grantOf is the session's belief as a lease.Grant with its checkpoint.
func (s *session) grantOf(g lease.Grant) lease.Grant {
	g.State, g.CheckpointToken = s.state, s.stateToken
	return g
}
