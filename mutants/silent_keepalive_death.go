package mutants

import (
	"time"

	"github.com/leasesim/leasesim/lease"
)

// silentKeepaliveDeath is a holder whose renewal loop dies on its first
// failure without telling anyone. The application goes on believing it
// holds the lease and acting under its token, long after the grantor let
// it expire and granted it to someone else. This is the etcd clientv3
// program that starts KeepAlive and never watches the returned channel
// close (etcd-io/etcd#15922, #13260), the Redisson-style watchdog thread
// that dies on an exception, and the ZooKeeper client that never handles
// its session's Expired event.
//
// Technique: the holder is wrapped. The first failed renewal of a grant
// (an error reply, which is swallowed so the session never hears of it, or
// a timeout, seen through the observer) kills its renewal loop: from then
// on every renewal of that grant is answered on the spot, inside the
// holder, with a success, and nothing is sent. Valid keeps answering true
// with the old token, and writes and checkpoints still go out under it, so
// the store fences them once a successor has written; a new grant (a new
// token) renews normally again.
//
// Caught by P1 (the zombie acts under its token while the next holder
// believes) in partition-heal.
func silentKeepaliveDeath() lease.Impl {
	impl := mutant("silent-keepalive-death", "the holder's renewal loop dies on an error; the holder keeps believing")
	impl.NewHolder = func(env lease.Env, cfg lease.Config, grantor, resource lease.Addr) (lease.Holder, error) {
		k := &zombieHolder{clock: env.Clock, net: env.Net, ttl: cfg.TTL,
			dead: make(map[string]uint64), renewing: make(map[string]uint64)}
		inner := env.Observer
		env.Observer = observerFunc(func(ev lease.Event) {
			if ev.Kind == lease.EventRenewFailed {
				k.dead[ev.Resource] = ev.Token
			}
			if inner != nil {
				inner.Observe(ev)
			}
		})
		env.Net = transportFunc(k.send)
		h, err := lease.NewHolder(env, cfg, grantor, resource)
		if err != nil {
			return nil, err
		}
		k.ownHolder = h.(ownHolder)
		return k, nil
	}
	return impl
}

// zombieHolder is a holder whose renewal loop died for some grants.
type zombieHolder struct {
	ownHolder
	clock    lease.Clock
	net      lease.Transport
	ttl      time.Duration
	dead     map[string]uint64 // resource → token whose renewal loop died; looked up, never iterated
	renewing map[string]uint64 // resource → token of the latest renewal sent
}

// send answers a renewal of a dead grant locally, with a success, on the
// holder's own loop; everything else goes out.
func (k *zombieHolder) send(to lease.Addr, m lease.Message) {
	if m.Kind != lease.KindRenew {
		k.net.Send(to, m)
		return
	}
	if token, ok := k.dead[m.Resource]; ok && token == m.Token {
		fake := lease.Message{Kind: lease.KindRenewReply, ReqID: m.ReqID, Client: m.Client,
			Resource: m.Resource, Token: m.Token, TTL: k.ttl, SentAt: m.SentAt}
		k.clock.AfterFunc(0, func() { k.ownHolder.Deliver(to, fake) })
		return
	}
	k.renewing[m.Resource] = m.Token
	k.net.Send(to, m)
}

// Deliver swallows a failed renewal reply: the loop dies of it, and the
// session never learns that its lease is gone.
func (k *zombieHolder) Deliver(from lease.Addr, m lease.Message) {
	if m.Kind == lease.KindRenewReply && m.Err != lease.CodeOK {
		if token, ok := k.renewing[m.Resource]; ok {
			k.dead[m.Resource] = token
		}
		return
	}
	k.ownHolder.Deliver(from, m)
}
