package consul

import (
	"context"
	"errors"
	"fmt"
	"time"

	"testing"

	"github.com/hashicorp/consul/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/gohost"
)

// clientScript is a node that drives the unchanged API client through
// every endpoint the simulated server serves and returns the first
// mismatch as its error (gohost reports it in Result.Problems).
func clientScript(ctx context.Context, n *gohost.Node) error {
	c, tr, err := NewClient(n)
	if err != nil {
		return err
	}
	defer tr.CloseIdleConnections()
	s, kv := c.Session(), c.KV()
	id, _, err := s.Create(&api.SessionEntry{Name: "script", TTL: "10s", LockDelay: 10 * time.Second}, nil)
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	info, _, err := s.Info(id, nil)
	if err != nil || info == nil || info.TTL != "10s" || info.LockDelay != 10*time.Second || info.Behavior != BehaviorRelease {
		return fmt.Errorf("info: %+v, %v", info, err)
	}
	if _, _, err := s.Create(&api.SessionEntry{TTL: "5s"}, nil); err == nil {
		return errors.New("a 5 s TTL was accepted")
	}
	ok, _, err := kv.Acquire(&api.KVPair{Key: "k", Value: []byte("v"), Session: id}, nil)
	if err != nil || !ok {
		return fmt.Errorf("acquire: %v, %v", ok, err)
	}
	pair, meta, err := kv.Get("k", nil)
	if err != nil || pair == nil || pair.Session != id || pair.LockIndex != 1 || meta.LastIndex != pair.ModifyIndex || !meta.KnownLeader {
		return fmt.Errorf("get: %+v %+v %v", pair, meta, err)
	}
	// A blocking query returns when the key changes: the session, never
	// renewed, is invalidated at 2×TTL = 20 s and its key released.
	start := time.Now()
	pair, meta2, err := kv.Get("k", &api.QueryOptions{WaitIndex: meta.LastIndex, WaitTime: time.Minute})
	if waited := time.Since(start); err != nil || pair == nil || pair.Session != "" || waited < 19*time.Second || waited > 21*time.Second {
		return fmt.Errorf("blocking get after %v: %+v %v", waited, pair, err)
	}
	if meta2.LastIndex <= meta.LastIndex {
		return fmt.Errorf("index did not rise: %d then %d", meta.LastIndex, meta2.LastIndex)
	}
	if _, _, err := s.Renew(id, nil); err != nil {
		return fmt.Errorf("renew of an invalidated session: %w", err) // 404: nil entry, no error
	}
	// A blocking query with no change returns at its wait (plus up to
	// 1/16 jitter) with the same index.
	start = time.Now()
	_, meta3, err := kv.Get("k", &api.QueryOptions{WaitIndex: meta2.LastIndex, WaitTime: 2 * time.Second})
	if waited := time.Since(start); err != nil || meta3.LastIndex != meta2.LastIndex || waited < 2*time.Second || waited > 2200*time.Millisecond {
		return fmt.Errorf("blocking get that timed out after %v: %+v %v", waited, meta3, err)
	}
	id2, _, err := s.Create(&api.SessionEntry{TTL: "10s"}, nil)
	if err != nil {
		return err
	}
	if ok, _, err := kv.Acquire(&api.KVPair{Key: "k", Session: id2}, nil); err != nil || ok {
		return fmt.Errorf("acquire within the lock-delay: %v %v", ok, err)
	}
	time.Sleep(10 * time.Second) // the lock-delay ran from 20 s to 30 s
	if ok, _, err := kv.Acquire(&api.KVPair{Key: "k", Session: id2}, nil); err != nil || !ok {
		return fmt.Errorf("acquire after the lock-delay: %v %v", ok, err)
	}
	if _, err := s.Destroy(id2, nil); err != nil {
		return err
	}
	pairs, _, err := kv.List("", nil)
	if err != nil || len(pairs) != 1 || pairs[0].Session != "" || pairs[0].LockIndex != 2 {
		return fmt.Errorf("list after destroy: %+v %v", pairs, err)
	}
	if ok, _, err := kv.DeleteCAS(&api.KVPair{Key: "k", ModifyIndex: pairs[0].ModifyIndex}, nil); err != nil || !ok {
		return fmt.Errorf("delete cas: %v %v", ok, err)
	}
	if pair, _, err := kv.Get("k", nil); err != nil || pair != nil {
		return fmt.Errorf("get after delete: %+v %v", pair, err)
	}
	return nil
}

func TestClientAgainstTheServer(t *testing.T) {
	res := gohost.Run(t, gohost.Config{Duration: time.Minute, Nodes: []gohost.NodeSpec{
		{Name: ServerNode, Run: Server(DefaultServer)}, {Name: "client", Run: clientScript}}}, 1)
	require.NoError(t, res.Err())
}

// api.Lock and api.Semaphore, unchanged, lock, hold and unlock against
// the server; with two holders the lock changes hands and P1, P2 hold.
func TestLockAndSemaphoreAgainstTheServer(t *testing.T) {
	for _, p := range []Primitive{UseLock, UseSemaphore} {
		hs := holders(2, time.Second)
		for i := range hs {
			hs[i].Primitive, hs[i].Hold = p, 5*time.Second
		}
		tok := ModifyIndex
		if p == UseSemaphore {
			tok = NoToken
		}
		res := gohost.Run(t, Setup{Holders: hs, Token: tok, Server: DefaultServer, Duration: 30 * time.Second}.Config(), 1)
		require.NoError(t, res.Err())
		var released int
		holders := map[string]bool{}
		for _, b := range res.History.Beliefs {
			holders[b.Holder] = true
			if b.Reason == "release" {
				released++
			}
		}
		assert.GreaterOrEqual(t, released, 3, "primitive %d: %+v", p, res.History.Beliefs)
		assert.Len(t, holders, 2, "primitive %d: both held it", p)
	}
}
