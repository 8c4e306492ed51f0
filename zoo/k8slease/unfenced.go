package k8slease

import "github.com/leasesim/leasesim/lease"

// unfencedStore is the store a Kubernetes controller usually writes to:
// it knows nothing of leaseTransitions and accepts every write, whatever
// token it carries. It answers leasesim's write and effect requests, so
// the harness records them as it records the fenced store's.
type unfencedStore struct{ env lease.Env }

// newUnfencedStore boots the store on env; it keeps nothing.
func newUnfencedStore(env lease.Env) (lease.Resource, error) { return unfencedStore{env: env}, nil }

// Deliver accepts every write and every effect.
func (s unfencedStore) Deliver(from lease.Addr, m lease.Message) {
	if m.Kind != lease.KindWrite && m.Kind != lease.KindEffect {
		return
	}
	s.env.Net.Send(from, lease.Message{Kind: m.Kind.Reply(), ReqID: m.ReqID, Client: m.Client,
		Resource: m.Resource, SentAt: m.SentAt, Token: m.Token, Key: m.Key})
}
