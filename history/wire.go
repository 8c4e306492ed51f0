package history

// The wire forms of the records. Field order here is the order on the
// wire. A field that is required and may be zero is a pointer, so that a
// missing field is told from a zero one; an optional time is a pointer
// left nil when the Go value is its absent sentinel (Unknown or Never).
// Every time and duration is an integer number of nanoseconds, and its
// name ends in _ns.

type headerWire struct {
	Type          Type       `json:"type"`
	Version       *int       `json:"version"`
	Producer      string     `json:"producer,omitzero"`
	Spec          string     `json:"spec,omitzero"`
	Determinism   string     `json:"determinism,omitzero"`
	Scenario      string     `json:"scenario,omitzero"`
	Seed          uint64     `json:"seed,omitzero"`
	Lease         *leaseWire `json:"lease"`
	LeaseServers  []string   `json:"lease_servers,omitempty"`
	FencedServers []string   `json:"fenced_servers,omitempty"`
	Holders       []string   `json:"holders,omitempty"`
	Resources     []string   `json:"resources,omitempty"`
	Contended     []string   `json:"contended,omitempty"`
	Start         *int64     `json:"start_ns"`
	Heal          *int64     `json:"heal_ns,omitzero"`
}

type leaseWire struct {
	TTL            *int64 `json:"ttl_ns"`
	RhoPPB         int64  `json:"rho_ppb,omitzero"`
	HoldPPB        int64  `json:"hold_ppb,omitzero"`
	RenewInterval  int64  `json:"renew_interval_ns,omitzero"`
	Margin         int64  `json:"margin_ns,omitzero"`
	RequestTimeout int64  `json:"request_timeout_ns,omitzero"`
	BackoffMax     int64  `json:"backoff_max_ns,omitzero"`
	TTLMin         int64  `json:"ttl_min_ns,omitzero"`
	TTLMax         int64  `json:"ttl_max_ns,omitzero"`
	DetectBound    int64  `json:"detect_bound_ns,omitzero"`
	LockDelay      int64  `json:"lock_delay_ns,omitzero"`
}

type endWire struct {
	Type        Type   `json:"type"`
	At          *int64 `json:"at_ns"`
	MaxDriftPPB *int64 `json:"max_drift_ppb,omitzero"`
	StoreSyncs  uint64 `json:"store_syncs,omitzero"`
}

type operationWire struct {
	Type        Type         `json:"type"`
	Client      string       `json:"client,omitzero"`
	Incarnation uint64       `json:"incarnation,omitzero"`
	Server      string       `json:"server,omitzero"`
	ID          *uint64      `json:"id"`
	Call        *int64       `json:"call_ns"`
	Processed   *int64       `json:"processed_ns,omitzero"`
	Return      *int64       `json:"return_ns,omitzero"`
	Input       *payloadWire `json:"input"`
	Output      *payloadWire `json:"output,omitzero"`
	Msg         []uint64     `json:"msg,omitempty"`
}

type payloadWire struct {
	Kind              string   `json:"kind,omitzero"`
	Resource          string   `json:"resource,omitzero"`
	Key               string   `json:"key,omitzero"`
	Value             string   `json:"value,omitzero"`
	Holder            string   `json:"holder,omitzero"`
	HolderIncarnation uint64   `json:"holder_incarnation,omitzero"`
	Token             uint64   `json:"token,omitzero"`
	TTL               int64    `json:"ttl_ns,omitzero"`
	Lease             uint64   `json:"lease,omitzero"`
	Revision          int64    `json:"revision,omitzero"`
	Version           string   `json:"version,omitzero"`
	OK                bool     `json:"ok,omitzero"`
	Err               string   `json:"err,omitzero"`
	Clock             int64    `json:"clock_ns,omitzero"`
	Remaining         int64    `json:"remaining_ns,omitzero"`
	State             string   `json:"state,omitzero"`
	StateToken        uint64   `json:"state_token,omitzero"`
	Prefix            string   `json:"prefix,omitzero"`
	Keys              []kvWire `json:"keys,omitempty"`
}

type kvWire struct {
	Key   string `json:"key,omitzero"`
	Value string `json:"value,omitzero"`
}

type beliefWire struct {
	Type          Type    `json:"type"`
	Holder        string  `json:"holder,omitzero"`
	Incarnation   uint64  `json:"incarnation,omitzero"`
	Resource      string  `json:"resource,omitzero"`
	Token         *uint64 `json:"token"`
	Start         *int64  `json:"start_ns"`
	End           *int64  `json:"end_ns"`
	Reason        string  `json:"reason,omitzero"`
	LocalDeadline int64   `json:"local_deadline_ns,omitzero"`
	LastAct       *int64  `json:"last_act_ns,omitzero"`
	Inferred      bool    `json:"inferred,omitzero"`
}

type actionWire struct {
	Type        Type     `json:"type"`
	Holder      string   `json:"holder,omitzero"`
	Incarnation uint64   `json:"incarnation,omitzero"`
	Resource    string   `json:"resource,omitzero"`
	Token       *uint64  `json:"token"`
	At          *int64   `json:"at_ns"`
	What        string   `json:"what,omitzero"`
	Msg         []uint64 `json:"msg,omitempty"`
}

type writeWire struct {
	Type        Type     `json:"type"`
	Store       string   `json:"store,omitzero"`
	Resource    string   `json:"resource,omitzero"`
	Key         string   `json:"key,omitzero"`
	Writer      string   `json:"writer,omitzero"`
	Incarnation uint64   `json:"incarnation,omitzero"`
	Token       *uint64  `json:"token"`
	At          *int64   `json:"at_ns"`
	Accepted    *bool    `json:"accepted"`
	Msg         []uint64 `json:"msg,omitempty"`
}

type checkpointWire struct {
	Type        Type     `json:"type"`
	Resource    string   `json:"resource,omitzero"`
	Writer      string   `json:"writer,omitzero"`
	Incarnation uint64   `json:"incarnation,omitzero"`
	Token       *uint64  `json:"token"`
	At          *int64   `json:"at_ns"`
	State       string   `json:"state,omitzero"`
	Msg         []uint64 `json:"msg,omitempty"`
}

type unitWire struct {
	Type        Type    `json:"type"`
	Task        string  `json:"task,omitzero"`
	Index       *int    `json:"index"`
	Worker      string  `json:"worker,omitzero"`
	Incarnation uint64  `json:"incarnation,omitzero"`
	Token       *uint64 `json:"token"`
	At          *int64  `json:"at_ns"`
}

type effectWire struct {
	Type        Type     `json:"type"`
	From        string   `json:"from,omitzero"`
	Incarnation uint64   `json:"incarnation,omitzero"`
	Resource    string   `json:"resource,omitzero"`
	ID          string   `json:"id,omitzero"`
	At          *int64   `json:"at_ns"`
	Msg         []uint64 `json:"msg,omitempty"`
}

type sightingWire struct {
	Type   Type   `json:"type"`
	Reader string `json:"reader,omitzero"`
	Key    string `json:"key,omitzero"`
	Owner  string `json:"owner,omitzero"`
	At     *int64 `json:"at_ns"`
}

type faultWire struct {
	Type   Type     `json:"type"`
	Kind   string   `json:"kind,omitzero"`
	Nodes  []string `json:"nodes,omitempty"`
	Start  *int64   `json:"start_ns"`
	End    *int64   `json:"end_ns"`
	Detail string   `json:"detail,omitzero"`
}

type taskWire struct {
	Type     Type   `json:"type"`
	ID       string `json:"id,omitzero"`
	Units    *int   `json:"units"`
	UnitTime *int64 `json:"unit_time_ns"`
	Arrival  *int64 `json:"arrival_ns"`
	Done     *int64 `json:"done_ns,omitzero"`
	// DoneUnanswered is TaskRecord.DoneUnanswered; absent is Never.
	DoneUnanswered *int64 `json:"done_unanswered_ns,omitzero"`
}

type premiseWire struct {
	Type   Type   `json:"type"`
	Name   string `json:"name,omitzero"`
	Held   *bool  `json:"held"`
	Detail string `json:"detail,omitzero"`
}
