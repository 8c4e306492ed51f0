package consul

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// The blocking-query rules of Consul's documentation ("Blocking queries",
// the HTTP API overview): a read with ?index=N waits until the result's
// index exceeds N or ?wait passes (default 5 minutes, at most 10), plus a
// random jitter of up to wait/16, then answers with the current result.
const (
	defaultWait = 5 * time.Minute
	maxWait     = 10 * time.Minute
)

// handler routes the endpoints api.Lock and api.Semaphore call.
func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /v1/session/create", s.leader(s.sessionCreate))
	mux.HandleFunc("PUT /v1/session/renew/{id}", s.leader(s.sessionRenew))
	mux.HandleFunc("PUT /v1/session/destroy/{id}", s.leader(s.sessionDestroy))
	mux.HandleFunc("GET /v1/session/info/{id}", s.leader(s.sessionInfo))
	mux.HandleFunc("GET /v1/kv/{key...}", s.leader(s.kvGet))
	mux.HandleFunc("PUT /v1/kv/{key...}", s.leader(s.kvPut))
	mux.HandleFunc("DELETE /v1/kv/{key...}", s.leader(s.kvDelete))
	return mux
}

// leader answers 500 "No cluster leader" while the server has none, and
// sets the headers every answer carries.
func (s *server) leader(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.clock.Now().Before(s.leaderAt) {
			http.Error(w, "No cluster leader", http.StatusInternalServerError)
			return
		}
		w.Header().Set("X-Consul-KnownLeader", "true")
		w.Header().Set("X-Consul-LastContact", "0")
		h(w, r)
	}
}

// sessionEntry is a session as the API returns it (api.SessionEntry).
type sessionEntry struct {
	ID          string
	Name        string
	Node        string
	LockDelay   time.Duration
	Behavior    string
	TTL         string
	Checks      []string
	NodeChecks  []string
	CreateIndex uint64
	ModifyIndex uint64
}

func entryOf(se *session) sessionEntry {
	ttl := ""
	if se.TTL > 0 {
		ttl = se.TTL.String()
	}
	return sessionEntry{ID: se.ID, Name: se.Name, Node: ServerNode, LockDelay: se.LockDelay, Behavior: se.Behavior,
		TTL: ttl, Checks: []string{}, NodeChecks: []string{}, CreateIndex: se.CreateIndex, ModifyIndex: se.ModifyIndex}
}

// createRequest is the body of PUT /v1/session/create.
type createRequest struct {
	Name       string
	Node       string
	Behavior   string
	TTL        string
	LockDelay  json.RawMessage
	Checks     []string
	NodeChecks []string
}

// sessionCreate is PUT /v1/session/create. Sessions are tied to no health
// check here: Checks and NodeChecks must be empty (api.Lock sends neither,
// which Consul would take as the agent's serfHealth check; the agent is
// this node and never fails its own check, so the only invalidations are
// the TTL and destroy either way).
func (s *server) sessionCreate(w http.ResponseWriter, r *http.Request) {
	var req createRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil && err != io.EOF {
		http.Error(w, "Request decode failed: "+err.Error(), http.StatusBadRequest)
		return
	}
	if len(req.Checks) > 0 || len(req.NodeChecks) > 0 {
		http.Error(w, "health checks are not simulated", http.StatusBadRequest)
		return
	}
	var ttl time.Duration
	if req.TTL != "" {
		var err error
		if ttl, err = time.ParseDuration(req.TTL); err != nil {
			http.Error(w, "Request decode failed: "+err.Error(), http.StatusBadRequest)
			return
		}
	}
	delay, err := lockDelay(req.LockDelay)
	if err != nil {
		http.Error(w, "Request decode failed: "+err.Error(), http.StatusBadRequest)
		return
	}
	now := s.lock()
	se, err := s.st.createSession(req.Name, req.Behavior, ttl, delay, now)
	in, out := history.Payload{Kind: model.OpConsulSessionCreate, TTL: ttl}, history.Payload{Err: "error"}
	if err == nil {
		s.notify()
		out = history.Payload{OK: true, Holder: se.ID}
	}
	s.rec.record(now, in, out)
	idx := s.st.index
	s.mu.Unlock()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, idx, struct{ ID string }{se.ID})
}

// lockDelay reads a session's LockDelay: a duration string ("15000ms", as
// api.Session.Create sends it) or a number, seconds below 1000 and
// nanoseconds from there (Consul's FixupLockDelay rule). Absent is the
// default, 15 s.
func lockDelay(raw json.RawMessage) (time.Duration, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return DefaultLockDelay, nil
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return time.ParseDuration(str)
	}
	var n int64
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, fmt.Errorf("LockDelay: %w", err)
	}
	if n < 1000 {
		return time.Duration(n) * time.Second, nil
	}
	return time.Duration(n), nil
}

// sessionRenew is PUT /v1/session/renew/:id: 200 with the session, or 404.
func (s *server) sessionRenew(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	now := s.lock()
	se, ok := s.st.renew(id, now)
	var out []sessionEntry
	reply := history.Payload{Err: model.ConsulNotFound}
	if ok {
		out = []sessionEntry{entryOf(se)}
		reply = history.Payload{OK: true}
	}
	s.rec.record(now, history.Payload{Kind: model.OpConsulSessionRenew, Holder: id}, reply)
	idx := s.st.index
	s.mu.Unlock()
	if !ok {
		http.Error(w, fmt.Sprintf("Session id '%s' not found", id), http.StatusNotFound)
		return
	}
	writeJSON(w, idx, out)
}

// sessionDestroy is PUT /v1/session/destroy/:id.
func (s *server) sessionDestroy(w http.ResponseWriter, r *http.Request) {
	now := s.lock()
	before := s.st.index
	s.st.destroy(r.PathValue("id"), now)
	if s.st.index != before {
		s.notify()
	}
	s.rec.record(now, history.Payload{Kind: model.OpConsulSessionDestroy, Holder: r.PathValue("id")}, history.Payload{OK: true})
	idx := s.st.index
	s.mu.Unlock()
	writeJSON(w, idx, true)
}

// sessionInfo is GET /v1/session/info/:id.
func (s *server) sessionInfo(w http.ResponseWriter, r *http.Request) {
	now := s.lock()
	out := []sessionEntry{}
	if se, ok := s.st.sessions[r.PathValue("id")]; ok {
		out = append(out, entryOf(se))
	}
	s.rec.record(now, history.Payload{Kind: model.OpConsulSessionInfo, Holder: r.PathValue("id")},
		history.Payload{OK: len(out) > 0})
	idx := s.st.index
	s.mu.Unlock()
	writeJSON(w, idx, out)
}

// kvPair is a key as the API returns it (api.KVPair).
type kvPair struct {
	Key                                 string
	CreateIndex, ModifyIndex, LockIndex uint64
	Flags                               uint64
	Value                               []byte
	Session                             string `json:",omitempty"`
}

// kvGet is GET /v1/kv/:key, with ?recurse and blocking ?index= &wait=.
func (s *server) kvGet(w http.ResponseWriter, r *http.Request) {
	key, q := r.PathValue("key"), r.URL.Query()
	_, recurse := q["recurse"]
	wait, index, err := blocking(q.Get("wait"), q.Get("index"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	now := s.lock()
	var timeout <-chan time.Time
	if index > 0 {
		wait += time.Duration(s.st.rnd.Int64N(int64(wait/16) + 1))
		t := s.clock.NewTimer(wait)
		defer t.Stop()
		timeout = t.C()
	}
	for index > 0 && s.st.queryIndex(key, recurse) <= index {
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-changed:
		case <-timeout:
			index = 0
		case <-r.Context().Done():
			return
		case <-s.ctx.Done():
			return
		}
		now = s.lock()
	}
	idx := s.st.queryIndex(key, recurse)
	var out []kvPair
	if recurse {
		for _, e := range s.st.list(key) {
			out = append(out, pairOf(e))
		}
	} else {
		reply := history.Payload{}
		if e := s.st.get(key); e != nil {
			out = []kvPair{pairOf(e)}
			reply = history.Payload{OK: true, Holder: e.Session, Token: e.LockIndex}
		}
		s.rec.record(now, history.Payload{Kind: model.OpConsulGet, Key: key}, reply)
	}
	s.mu.Unlock()
	if len(out) == 0 {
		w.Header().Set("X-Consul-Index", strconv.FormatUint(idx, 10))
		w.WriteHeader(http.StatusNotFound)
		return
	}
	writeJSON(w, idx, out)
}

func pairOf(e *kvEntry) kvPair {
	return kvPair{Key: e.Key, CreateIndex: e.CreateIndex, ModifyIndex: e.ModifyIndex, LockIndex: e.LockIndex,
		Flags: e.Flags, Value: e.Value, Session: e.Session}
}

// blocking reads a query's ?wait and ?index.
func blocking(waitParam, indexParam string) (time.Duration, uint64, error) {
	wait := defaultWait
	if waitParam != "" {
		d, err := time.ParseDuration(waitParam)
		if err != nil {
			return 0, 0, fmt.Errorf("invalid wait time: %w", err)
		}
		wait = min(d, maxWait)
	}
	var index uint64
	if indexParam != "" {
		var err error
		if index, err = strconv.ParseUint(indexParam, 10, 64); err != nil {
			return 0, 0, fmt.Errorf("invalid index: %w", err)
		}
	}
	return wait, index, nil
}

// kvPut is PUT /v1/kv/:key, with ?acquire=, ?release=, ?cas= and ?flags=.
func (s *server) kvPut(w http.ResponseWriter, r *http.Request) {
	key, q := r.PathValue("key"), r.URL.Query()
	value, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var flags uint64
	if f := q.Get("flags"); f != "" {
		if flags, err = strconv.ParseUint(f, 10, 64); err != nil {
			http.Error(w, "Invalid flags: "+err.Error(), http.StatusBadRequest)
			return
		}
	}
	cas, err := casParam(q.Get("cas"), q.Has("cas"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	now := s.lock()
	before := s.st.index
	var ok bool
	in := history.Payload{Kind: model.OpConsulPut, Key: key}
	switch {
	case q.Has("acquire"):
		ok, err = s.st.acquire(key, value, flags, q.Get("acquire"), now)
		in.Kind, in.Holder = model.OpConsulAcquire, q.Get("acquire")
	case q.Has("release"):
		ok = s.st.release(key, value, flags, q.Get("release"))
		in.Kind, in.Holder = model.OpConsulRelease, q.Get("release")
	default:
		ok = s.st.put(key, value, flags, cas)
	}
	reply := history.Payload{OK: ok}
	if err != nil {
		reply = history.Payload{Err: model.ConsulInvalidSession}
	}
	s.rec.record(now, in, reply)
	if s.st.index != before {
		s.notify()
	}
	idx := s.st.index
	s.mu.Unlock()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, idx, ok)
}

// kvDelete is DELETE /v1/kv/:key, with ?cas= and ?recurse.
func (s *server) kvDelete(w http.ResponseWriter, r *http.Request) {
	key, q := r.PathValue("key"), r.URL.Query()
	cas, err := casParam(q.Get("cas"), q.Has("cas"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	now := s.lock()
	before := s.st.index
	ok := s.st.remove(key, q.Has("recurse"), cas)
	in := history.Payload{Kind: model.OpConsulDelete, Key: key}
	if q.Has("recurse") {
		in.Prefix = key
	}
	s.rec.record(now, in, history.Payload{OK: ok})
	if s.st.index != before {
		s.notify()
	}
	idx := s.st.index
	s.mu.Unlock()
	writeJSON(w, idx, ok)
}

// casParam reads ?cas=: -1 when absent.
func casParam(v string, present bool) (int64, error) {
	if !present {
		return -1, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("invalid cas index %q", v)
	}
	return n, nil
}

// writeJSON answers 200 with v and the index header.
func writeJSON(w http.ResponseWriter, idx uint64, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		panic("consul: reply not encodable: " + err.Error())
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Consul-Index", strconv.FormatUint(max(idx, 1), 10))
	_, _ = w.Write(body)
}
