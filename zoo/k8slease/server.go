package k8slease

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/leasesim/leasesim/lease"
)

// Durable keys of the API server (etcd's role).
const (
	keyRevision    = "k8slease/revision"     // the last resourceVersion handed out
	keyLeasePrefix = "k8slease/lease/"       // + name: the Lease's stored record
	keyBoot        = "k8slease/holder/boots" // a holder's boot counter
)

// apiServer is the API server's part in leader election: it keeps Lease
// records under optimistic concurrency and nothing else. It never expires a
// Lease (expiry is the candidates' business, judged on their own clocks),
// and it persists every change with Sync before it answers, as etcd
// does; resourceVersions come from one counter that survives restarts,
// so a version is never handed out twice.
type apiServer struct {
	env lease.Env
	// revision is the last resourceVersion handed out.
	revision uint64
	// leases caches the stored records by name; looked up, never
	// iterated, and rebuilt from the store after a restart.
	leases map[string]storedRecord
}

// newAPIServer boots the API server on env: a new incarnation after every
// restart, continuing from its durable store.
func newAPIServer(env lease.Env) (*apiServer, error) {
	if env.Self == "" || env.Net == nil || env.Store == nil {
		return nil, fmt.Errorf("k8slease api server: env needs Self, Net and Store: %w", lease.ErrInvalidConfig)
	}
	if _, ok := env.Net.(lease.AnyTransport); !ok {
		return nil, fmt.Errorf("k8slease api server: env.Net %T cannot send this protocol's messages (lease.AnyTransport): %w",
			env.Net, lease.ErrInvalidConfig)
	}
	s := &apiServer{env: env, leases: make(map[string]storedRecord)}
	if b, ok := env.Store.Get(keyRevision); ok {
		if len(b) != 8 {
			return nil, fmt.Errorf("k8slease api server: stored revision is %d bytes, not 8", len(b))
		}
		s.revision = binary.BigEndian.Uint64(b)
	}
	return s, nil
}

// Deliver ignores leasesim's own messages: this server speaks only its
// own protocol.
func (s *apiServer) Deliver(lease.Addr, lease.Message) {}

// DeliverAny serves one request and answers it, unless persisting the
// change failed (the client then times out, not knowing the outcome).
func (s *apiServer) DeliverAny(from lease.Addr, m any) {
	q, ok := m.(*request)
	if !ok {
		return
	}
	if r := s.serve(q); r != nil {
		s.env.Net.(lease.AnyTransport).SendAny(from, r)
	}
}

// serve runs one request and returns its response, nil if it could not
// be made durable.
func (s *apiServer) serve(q *request) *response {
	r := q.reply()
	cur, exists := s.lookup(q.Name)
	switch {
	case q.Name == "" || (q.Op != opGet && q.Op != opCreate && q.Op != opUpdate):
		r.Err = errBadRequest
	case q.Op == opCreate && exists:
		r.Err = errExists
	case q.Op != opCreate && !exists:
		r.Err = errNotFound
	case q.Op == opGet:
		r.Record, r.Version = cur.rec, version(cur.version)
	case q.Op == opUpdate && q.Version != version(cur.version):
		r.Err = errConflict
	default: // a create of a new Lease, or an update at its current version
		next, ok := s.write(q.Name, q.Record)
		if !ok {
			return nil
		}
		r.Version = version(next.version)
	}
	return r
}

// write stores rec as name's record under the next resourceVersion,
// durably, and reports whether it could.
func (s *apiServer) write(name string, rec record) (storedRecord, bool) {
	next := storedRecord{rec: rec, version: s.revision + 1}
	if next.version <= s.revision {
		panic(fmt.Sprintf("k8slease: invariant version-increases: revision %d cannot grow", s.revision))
	}
	old, had := s.env.Store.Get(keyLeasePrefix + name)
	s.env.Store.Put(keyLeasePrefix+name, next.encode())
	s.env.Store.Put(keyRevision, binary.BigEndian.AppendUint64(nil, next.version))
	if err := s.env.Store.Sync(); err != nil {
		// Undo the buffered writes, so that no later reader sees a change
		// that a crash could still take back.
		if had {
			s.env.Store.Put(keyLeasePrefix+name, old)
		} else {
			s.env.Store.Delete(keyLeasePrefix + name)
		}
		s.env.Store.Put(keyRevision, binary.BigEndian.AppendUint64(nil, s.revision))
		return storedRecord{}, false
	}
	s.revision = next.version
	s.leases[name] = next
	return next, true
}

// lookup returns name's record, from the cache or the durable store.
func (s *apiServer) lookup(name string) (storedRecord, bool) {
	if sr, ok := s.leases[name]; ok {
		return sr, true
	}
	b, ok := s.env.Store.Get(keyLeasePrefix + name)
	if !ok {
		return storedRecord{}, false
	}
	sr, err := decodeStored(b)
	if err != nil {
		panic(fmt.Sprintf("k8slease: invariant stored-record-format: lease %q: %v", name, err))
	}
	if sr.version > s.revision {
		panic(fmt.Sprintf("k8slease: invariant version-below-revision: lease %q at version %d, revision %d",
			name, sr.version, s.revision))
	}
	s.leases[name] = sr
	return sr, true
}

// version formats a resourceVersion.
func version(v uint64) string { return strconv.FormatUint(v, 10) }
