package scenarios

import (
	"fmt"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/sim"
)

// builder adds a scenario's nodes to a world and boots the implementation
// on each of them, at the start and after every restart.
type builder struct {
	w       *sim.World
	rec     *recorder
	impl    lease.Impl
	cfg     lease.Config
	sc      Scenario
	extra   lease.Observer
	queue   *taskQueue
	leaders *leaders   // a replicated store's members: roles and leader terms (roles.go)
	wiring  *runWiring // what every node's Env shares: timers, message payloads
	bootErr error
}

func (b *builder) addNodes() {
	b.leaders = newLeaders(b.w, b.impl.Members)
	for i, name := range lease.MemberAddrs(GrantorNode, b.impl.Members) {
		b.w.AddNode(string(name), func(n *sim.Node) {
			g, err := b.impl.NewGrantor(b.env(n), b.cfg)
			if b.booted(n, err) {
				b.leaders.boot(i, n, g)
				serve(n, b.rec, g)
			}
		})
	}
	b.w.AddNode(StoreNode, func(n *sim.Node) {
		r, err := b.impl.NewResource(b.env(n))
		if b.booted(n, err) {
			serve(n, b.rec, r)
		}
	})
	for i := range b.sc.Contenders {
		b.addHolder(fmt.Sprintf("h%d", i+1), func(n *sim.Node, h lease.Holder) {
			startContender(n, h, b.rec, b.sc.Lock, i)
		})
	}
	for i := range b.sc.Workers {
		n := b.addHolder(fmt.Sprintf("w%d", i+1), func(n *sim.Node, h lease.Holder) {
			startWorker(n, h, b.rec, b.cfg, b.queue, i)
		})
		b.queue.addWorker(n)
	}
	for i := range b.sc.Registrants {
		b.addHolder(fmt.Sprintf("s%d", i+1), startRegistrant)
	}
	for i := range b.sc.Readers {
		b.w.AddNode(fmt.Sprintf("r%d", i+1), func(n *sim.Node) {
			serve(n, b.rec, startReader(n, b.env(n), b.sc.Registry))
		})
	}
}

func (b *builder) addHolder(name string, start func(*sim.Node, lease.Holder)) *sim.Node {
	return b.w.AddNode(name, func(n *sim.Node) {
		h, err := b.impl.NewHolder(b.env(n), b.cfg, GrantorNode, StoreNode)
		if b.booted(n, err) {
			serve(n, b.rec, h)
			start(n, h)
		}
	})
}

func (b *builder) env(n *sim.Node) lease.Env {
	var obs lease.Observer = b.rec.observer(n)
	if b.extra != nil {
		obs = lease.MultiObserver(obs, b.extra)
	}
	return newEnv(n, b.rec, obs, b.wiring)
}

// booted stops the run if the implementation failed to boot on n.
func (b *builder) booted(n *sim.Node, err error) bool {
	if err == nil {
		return true
	}
	if b.bootErr == nil {
		b.bootErr = fmt.Errorf("scenario %s: %s failed to boot %s: %w", b.sc.Name, b.impl.Name, n.Name(), err)
		b.w.Stop(b.bootErr)
	}
	return false
}

// finish completes the history once the run has stopped.
func (b *builder) finish(h *history.History, plan faults.Schedule, res sim.Result) {
	log := b.w.Faults()
	crashes := make(map[string][]history.Time)
	for _, f := range log {
		switch f.Kind {
		case sim.FaultCrash:
			crashes[f.Node] = append(crashes[f.Node], history.Time(f.At))
		case sim.FaultDrift:
			h.MaxDriftPPB = max(h.MaxDriftPPB, f.Value, -f.Value)
		}
	}
	b.rec.finish(crashes)
	h.Faults = faultWindows(faults.Windows(log, res.Now))
	h.Leaders = b.leaders.finish()
	h.HealAt, h.End = history.Time(plan.HealAt), history.Time(res.Now)
	if g, ok := b.w.Lookup(GrantorNode); ok {
		h.GrantorSyncs = g.Storage().Syncs()
	}
	done := make(map[string]history.Time)
	var op history.Operation
	for _, i := range b.rec.checkpoints {
		h.LoadOp(int(i), &op)
		if op.Output.OK && history.DecodeProgress(op.Input.State).Done {
			if _, seen := done[op.Input.Resource]; !seen {
				done[op.Input.Resource] = op.Processed
			}
		}
	}
	for i := range h.Tasks {
		if at, ok := done[h.Tasks[i].ID]; ok {
			h.Tasks[i].Done = min(h.Tasks[i].Done, at) // a worker may have been handed it as done first (seenDone)
		}
	}
	b.queue.finishCompletion()
	h.Contended = b.contended()
	h.Premises = EvaluatePremises(b.sc.Premises, h)
}

// kindCheckpoint is the payload kind of a checkpoint request.
var kindCheckpoint = lease.KindCheckpoint.String()

// faultWindows returns the kernel's fault windows as the history records
// them: the kind by its name, the node and then the peer.
func faultWindows(ws []faults.Window) []history.FaultWindow {
	out := make([]history.FaultWindow, len(ws))
	names := make([]string, 0, 2*len(ws)) // every window's Nodes, carved from one array
	for i, w := range ws {
		out[i] = history.FaultWindow{Kind: w.Kind.String(), Start: history.Time(w.Start), End: history.Time(w.End),
			Detail: w.Detail}
		start := len(names)
		switch {
		case w.Peer != "":
			names = append(names, w.Node, w.Peer)
		case w.Node != "":
			names = append(names, w.Node)
		default:
			continue
		}
		out[i].Nodes = names[start:len(names):len(names)]
	}
	return out
}

// contended lists the resources live holders keep trying to hold.
func (b *builder) contended() []string {
	var out []string
	if b.sc.Contenders > 0 {
		out = append(out, b.sc.Lock.resource())
	}
	for i := range b.sc.Registrants {
		out = append(out, fmt.Sprintf("%ss%d", registryPrefix, i+1))
	}
	return out
}
