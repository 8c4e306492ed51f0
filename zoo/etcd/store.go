package etcd

import (
	"bufio"
	"encoding/json"
	"net"
	"sync"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
	"github.com/leasesim/leasesim/zoo/etcd/internal/wire"
)

// StoreName is the fenced store's node name in the history.
const StoreName = "store"

// fencedStore is the harness's in-process fenced store: holders write to it
// over TCP under their lock key's create revision. Fenced, it accepts a write
// only under a token at least as high as every token it accepted before for
// the resource; unfenced, it accepts every write (and still records the
// token, so P2 shows what fencing would have refused).
type fencedStore struct {
	h        *host
	unfenced bool
	l        net.Listener
	mu       sync.Mutex
	highest  map[string]uint64
	conns    map[net.Conn]bool
	wg       sync.WaitGroup
}

func newFencedStore(h *host, unfenced bool) (*fencedStore, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &fencedStore{h: h, unfenced: unfenced, l: l, highest: map[string]uint64{}, conns: map[net.Conn]bool{}}
	s.wg.Add(1)
	go s.serve()
	return s, nil
}

func (s *fencedStore) addr() string { return s.l.Addr().String() }

func (s *fencedStore) serve() {
	defer s.wg.Done()
	for {
		c, err := s.l.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns[c] = true
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() { s.mu.Lock(); delete(s.conns, c); s.mu.Unlock(); c.Close() }()
			r := bufio.NewReader(c)
			for {
				line, err := r.ReadBytes('\n')
				if err != nil {
					return
				}
				var req wire.StoreRequest
				if json.Unmarshal(line, &req) != nil {
					return
				}
				b, _ := json.Marshal(s.write(req))
				if _, err := c.Write(append(b, '\n')); err != nil {
					return
				}
			}
		}()
	}
}

// write decides one write and records it as an operation of the fenced
// register, as the goroutine host's store does.
func (s *fencedStore) write(req wire.StoreRequest) wire.StoreReply {
	s.mu.Lock()
	defer s.mu.Unlock()
	highest := s.highest[req.Resource]
	ok := s.unfenced || req.Token >= highest
	if ok && req.Token > highest {
		s.highest[req.Resource] = req.Token
	}
	now := history.Time(s.h.now())
	out := history.Payload{Kind: string(model.OpWrite) + "_reply", Resource: req.Resource, Key: req.Key, OK: ok}
	if !ok {
		out.Err, out.Token = string(model.RegisterFenced), highest
	}
	s.h.rec.storeOp(history.Operation{Server: StoreName, Client: req.Writer, Incarnation: req.Life,
		Processed: now, Call: now, Return: now,
		Input:  history.Payload{Kind: string(model.OpWrite), Resource: req.Resource, Key: req.Key, Value: req.Value, Token: req.Token},
		Output: out})
	return wire.StoreReply{OK: ok, Highest: highest}
}

func (s *fencedStore) close() {
	s.l.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}
