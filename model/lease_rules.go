package model

import "fmt"

// The rules of the lease store, one function per operation. Each takes the
// state after the grantor-time check and returns the next state and "" if
// the operation is legal, or why not.

// acquire: a grant, ErrHeld, or a failure the model cannot judge.
func (sp leaseSpec) acquire(s leaseState, in *LeaseInput, out *LeaseOutput) (leaseState, string) {
	g := out.ServerTime
	switch out.Err {
	case LeaseOK:
		return sp.grant(s, in, out)
	case LeaseHeld:
		switch {
		case !s.live(g):
			return s, fmt.Sprintf("ErrHeld at g=%v, but no lease is live: %s", g, s)
		case s.holder == in.Client && !s.revoked:
			return s, fmt.Sprintf("ErrHeld to %s, which holds tok %d until g=%v", in.Client, s.token, s.expiresAt)
		case out.Holder != "" && out.Holder != s.holder:
			return s, fmt.Sprintf("ErrHeld names holder %s, but %s holds tok %d", out.Holder, s.holder, s.token)
		}
		return s, ""
	case LeaseGrace, LeaseTTLOutOfRange, LeaseTokenExhausted:
		// The model cannot see restarts or the grantor's TTL bounds.
		return s, ""
	}
	return s, fmt.Sprintf("acquire cannot fail with %v", out.Err)
}

// grant: a new lease on a free or expired resource, or the same lease again
// to its live holder, which acts as a renewal. Either way the reply hands
// over the latest accepted checkpoint.
func (sp leaseSpec) grant(s leaseState, in *LeaseInput, out *LeaseOutput) (leaseState, string) {
	g, token := out.ServerTime, out.Token
	ttl := out.TTL
	if ttl == 0 {
		ttl = in.TTL
	}
	next := s
	switch {
	case s.live(g) && (s.holder != in.Client || s.revoked):
		return s, fmt.Sprintf("granted tok %d to %s at g=%v, but %s holds tok %d until g=%v%s",
			token, in.Client, g, s.holder, s.token, s.expiresAt, revokedNote(s.revoked))
	case s.live(g) && token != s.token && !sp.restarted(s, in):
		return s, fmt.Sprintf("re-granted to its holder %s as tok %d, but it holds tok %d", in.Client, token, s.token)
	case s.live(g) && token == s.token:
		next.ttl = ttl
		next.expiresAt = max(s.expiresAt, sp.until(g, ttl)) // never shortened
		next.incarnation = sp.incarnation(s, in)
	case token <= s.maxToken:
		return s, fmt.Sprintf("granted tok %d to %s, not above tok %d issued before", token, in.Client, s.maxToken)
	default:
		// A free or expired resource, or its holder restarted (a later
		// incarnation): a new lease under a new token.
		next.holder, next.token, next.ttl, next.expiresAt = in.Client, token, ttl, sp.until(g, ttl)
		next.revoked, next.maxToken, next.ckptSeq = false, token, 0
		next.incarnation = sp.incarnation(leaseState{}, in)
	}
	if out.State != s.ckptState || out.CheckpointToken != s.ckptToken {
		return s, fmt.Sprintf("grant handed over checkpoint tok %d %s, but the latest accepted is tok %d %s",
			out.CheckpointToken, quote(out.State), s.ckptToken, quote(s.ckptState))
	}
	return next, ""
}

// renew: success extends the holder's lease; failure changes nothing.
func (sp leaseSpec) renew(s leaseState, in *LeaseInput, out *LeaseOutput) (leaseState, string) {
	if out.Err != LeaseOK {
		return s, ""
	}
	g := out.ServerTime
	if why := s.notHeld(in.Client, in.Token, g); why != "" {
		return s, fmt.Sprintf("renew of tok %d by %s succeeded at g=%v, but %s", in.Token, in.Client, g, why)
	}
	if out.Token != 0 && out.Token != s.token {
		return s, fmt.Sprintf("renew reply carries tok %d, but the lease has tok %d", out.Token, s.token)
	}
	s.expiresAt = max(s.expiresAt, sp.until(g, s.ttl))
	s.incarnation = sp.incarnation(s, in)
	return s, ""
}

// release: success frees the resource; failure changes nothing.
func release(s leaseState, in *LeaseInput, out *LeaseOutput) (leaseState, string) {
	if out.Err != LeaseOK {
		return s, ""
	}
	g := out.ServerTime
	if why := s.notHeld(in.Client, in.Token, g); why != "" {
		return s, fmt.Sprintf("release of tok %d by %s succeeded at g=%v, but %s", in.Token, in.Client, g, why)
	}
	s.holder, s.token, s.ttl, s.expiresAt, s.revoked, s.ckptSeq = "", 0, 0, 0, false, 0
	return s, ""
}

// revoke: success takes the holder's rights away; the lease keeps blocking
// new grants until its old expiry. Failure is legal: the grantor may have
// restarted and lost the lease.
func revoke(s leaseState, out *LeaseOutput) (leaseState, string) {
	if out.Err != LeaseOK {
		return s, ""
	}
	g := out.ServerTime
	switch {
	case !s.live(g):
		return s, fmt.Sprintf("revoke succeeded at g=%v, but no lease is live: %s", g, s)
	case out.Token != 0 && out.Token != s.token:
		return s, fmt.Sprintf("revoke reply names tok %d, but the lease has tok %d", out.Token, s.token)
	}
	s.revoked = true
	return s, ""
}

// checkpoint: success from the holder stores the state, unless a newer
// request of the same lease was accepted already; failure changes nothing.
func checkpoint(s leaseState, in *LeaseInput, out *LeaseOutput) (leaseState, string) {
	if out.Err != LeaseOK {
		return s, ""
	}
	g := out.ServerTime
	if why := s.notHeld(in.Client, in.Token, g); why != "" {
		return s, fmt.Sprintf("checkpoint %s under tok %d by %s accepted at g=%v, but %s",
			quote(in.State), in.Token, in.Client, g, why)
	}
	if in.Seq != 0 && in.Seq <= s.ckptSeq {
		return s, "" // overtaken by the newer accepted checkpoint
	}
	s.ckptState, s.ckptToken, s.ckptSeq = in.State, s.token, in.Seq
	return s, ""
}

// readCheckpoint returns the latest accepted checkpoint.
func readCheckpoint(s leaseState, out *LeaseOutput) (leaseState, string) {
	if out.Err != LeaseOK {
		return s, ""
	}
	if out.State != s.ckptState || out.CheckpointToken != s.ckptToken {
		return s, fmt.Sprintf("read checkpoint tok %d %s, but the latest accepted is tok %d %s",
			out.CheckpointToken, quote(out.State), s.ckptToken, quote(s.ckptState))
	}
	return s, ""
}

// query names the live, unrevoked holder and its token; failure is legal.
func query(s leaseState, out *LeaseOutput) (leaseState, string) {
	if out.Err != LeaseOK {
		return s, ""
	}
	g := out.ServerTime
	switch {
	case !s.live(g) || s.revoked:
		return s, fmt.Sprintf("query names %s tok %d at g=%v, but no unrevoked lease is live: %s",
			out.Holder, out.Token, g, s)
	case out.Holder != s.holder || out.Token != s.token:
		return s, fmt.Sprintf("query names %s tok %d, but %s holds tok %d", out.Holder, out.Token, s.holder, s.token)
	}
	return s, ""
}

func revokedNote(revoked bool) string {
	if revoked {
		return " (revoked)"
	}
	return ""
}

// restarted reports whether an acquire is from a later incarnation of the
// holder, which under RestartNewLease gets a new lease at once.
func (sp leaseSpec) restarted(s leaseState, in *LeaseInput) bool {
	return sp.policy.restart() == RestartNewLease && in.Incarnation > s.incarnation
}

// incarnation is the holder's incarnation after in: the highest seen under
// RestartNewLease, always 0 under RestartSameLease, which ignores them.
func (sp leaseSpec) incarnation(s leaseState, in *LeaseInput) uint64 {
	if sp.policy.restart() != RestartNewLease {
		return 0
	}
	return max(s.incarnation, in.Incarnation)
}
