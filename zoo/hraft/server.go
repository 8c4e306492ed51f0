package hraft

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
)

// AppPort is the port of a member's application server, where clients
// read and write the register.
const AppPort = ":7100"

// The register's resource and key, as the operations name them.
const (
	RegisterResource = "register"
	RegisterKey      = "x"
)

// request is one client request: a JSON line.
type request struct {
	Op    string `json:"op"` // "read" or "write"
	Ref   string `json:"ref"`
	Value string `json:"value,omitempty"`
}

// The statuses of a reply.
const (
	statusOK        = "ok"
	statusNotLeader = "not_leader"
	statusFailed    = "failed" // the outcome is unknown (a write's Apply or a read's Barrier failed)
)

// reply is the answer to a request: a JSON line.
type reply struct {
	Status string `json:"status"`
	Value  string `json:"value,omitempty"`
	// Leader is the member raft names as leader, for a not_leader reply.
	Leader string `json:"leader,omitempty"`
}

// connTimeout bounds how long the server waits for a request line.
const connTimeout = 5 * time.Second

// serve answers clients on l, one request per connection, until ctx ends.
func (m *member) serve(ctx context.Context, l net.Listener) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	open := map[net.Conn]bool{}
	defer func() {
		mu.Lock()
		for c := range open {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	}()
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		mu.Lock()
		open[c] = true
		mu.Unlock()
		wg.Go(func() {
			defer func() {
				mu.Lock()
				delete(open, c)
				mu.Unlock()
				_ = c.Close()
			}()
			m.handle(ctx, c)
		})
	}
}

// handle reads one request from c and answers it.
func (m *member) handle(ctx context.Context, c net.Conn) {
	_ = c.SetDeadline(time.Now().Add(connTimeout))
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		return
	}
	var req request
	if json.Unmarshal(line, &req) != nil {
		return
	}
	var rep reply
	switch req.Op {
	case "write":
		rep = m.write(req)
	case "read":
		rep = m.read(ctx, req)
	default:
		return
	}
	b, _ := json.Marshal(rep)
	_, _ = c.Write(append(b, '\n'))
}

// notLeader is the redirect to the leader raft knows of.
func (m *member) notLeader() reply {
	_, id := m.r.LeaderWithID()
	return reply{Status: statusNotLeader, Leader: string(id)}
}

// write applies a write through the log. The write is recorded as
// processed by the first member that applies it (Register.Apply).
func (m *member) write(req request) reply {
	if m.r.State() != raft.Leader {
		return m.notLeader()
	}
	b, _ := json.Marshal(command{Ref: req.Ref, Value: req.Value})
	if err := m.r.Apply(b, m.c.ApplyTimeout).Error(); err != nil {
		return reply{Status: statusFailed}
	}
	return reply{Status: statusOK}
}

// read serves a read as the cluster's Reads says.
func (m *member) read(ctx context.Context, req request) reply {
	ref, err := gohost.ParseOpRef(req.Ref)
	if err != nil || (m.c.Reads == VerifiedReads && m.r.State() != raft.Leader) {
		return m.notLeader()
	}
	term := m.term.Load()
	if m.c.Reads != VerifiedReads && term != 0 {
		// The member decides here, on the check just made, to answer as
		// leader: the action counts at the decision on every host
		// (gohost.Node.Act). A pause after it is the stale read P3
		// catches, not a longer belief.
		m.n.Act(LeaderResource, term)
	}
	m.n.Failpoint(FailpointBeforeRead)
	if ctx.Err() != nil {
		return reply{Status: statusFailed}
	}
	if m.c.Reads == VerifiedReads {
		if m.r.Barrier(m.c.ApplyTimeout).Error() != nil {
			return reply{Status: statusFailed}
		}
	}
	v := m.fsm.Get()
	if m.c.Reads == VerifiedReads && m.r.VerifyLeader().Error() != nil {
		return m.notLeader()
	}
	if m.c.Reads == VerifiedReads && term != 0 {
		// Verified reads decide to answer as leader only now, on
		// VerifyLeader's answer: the action counts here.
		m.n.Act(LeaderResource, term)
	}
	m.n.Processed(ref, history.Payload{Kind: "read_reply", Value: v})
	return reply{Status: statusOK, Value: v}
}
