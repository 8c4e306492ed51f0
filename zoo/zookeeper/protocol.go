package zookeeper

// The request and reply shapes of ZooKeeper's client protocol
// (zookeeper-jute/src/main/resources/zookeeper.jute, and the opcodes and
// codes of ZooDefs.OpCode, KeeperException.Code and Watcher.Event), as
// the simulated server reads and writes them.

// Opcodes the server answers (ZooDefs.OpCode).
const (
	opCreate       int32 = 1
	opDelete       int32 = 2
	opExists       int32 = 3
	opGetData      int32 = 4
	opSetData      int32 = 5
	opGetChildren  int32 = 8
	opPing         int32 = 11
	opGetChildren2 int32 = 12
	opClose        int32 = -11
	opSetWatches   int32 = 101
)

// Special xids (ClientCnxn): a notification's, a ping's.
const (
	xidNotification int32 = -1
	xidPing         int32 = -2
)

// errCode is a reply header's err (KeeperException.Code).
type errCode int32

// The codes the server replies with.
const (
	errOK                     errCode = 0
	errUnimplemented          errCode = -6
	errBadArguments           errCode = -8
	errNoNode                 errCode = -101
	errBadVersion             errCode = -103
	errNoChildrenForEphemeral errCode = -108
	errNodeExists             errCode = -110
	errNotEmpty               errCode = -111
	errInvalidACL             errCode = -114
)

// Watch event types (Watcher.Event.EventType) and the connected state
// (Watcher.Event.KeeperState.SyncConnected) a notification carries.
const (
	eventNodeCreated         int32 = 1
	eventNodeDeleted         int32 = 2
	eventNodeDataChanged     int32 = 3
	eventNodeChildrenChanged int32 = 4
	stateSyncConnected       int32 = 3
)

// Create flags (CreateMode.toFlag): bit 0 ephemeral, bit 1 sequential;
// 4 (container) and 5, 6 (TTL) are not modelled.
const (
	flagEphemeral  int32 = 1
	flagSequential int32 = 2
)

// connectRequest is ConnectRequest.
type connectRequest struct {
	protocolVersion int32
	lastZxidSeen    int64
	timeoutMs       int32
	sessionID       int64
	passwd          []byte
}

func decodeConnect(b []byte) (connectRequest, error) {
	d := decoder{b: b}
	r := connectRequest{protocolVersion: d.int32("protocolVersion"), lastZxidSeen: d.int64("lastZxidSeen"),
		timeoutMs: d.int32("timeOut"), sessionID: d.int64("sessionId"), passwd: d.buffer("passwd")}
	// readOnly (a trailing boolean newer clients send) is optional:
	// go-zookeeper does not send it.
	return r, d.err
}

// connectResponse is ConnectResponse, with the readOnly flag ZooKeeper
// 3.4+ writes (false: this server is never read-only).
func connectResponse(timeoutMs int32, sessionID int64, passwd []byte) []byte {
	var e encoder
	e.int32(0) // protocolVersion
	e.int32(timeoutMs)
	e.int64(sessionID)
	e.buffer(passwd)
	e.bool(false)
	return e.b
}

// stat is a znode's Stat.
type stat struct {
	czxid, mzxid, ctime, mtime  int64
	version, cversion, aversion int32
	ephemeralOwner              int64
	dataLength, numChildren     int32
	pzxid                       int64
}

func (s stat) encode(e *encoder) {
	e.int64(s.czxid)
	e.int64(s.mzxid)
	e.int64(s.ctime)
	e.int64(s.mtime)
	e.int32(s.version)
	e.int32(s.cversion)
	e.int32(s.aversion)
	e.int64(s.ephemeralOwner)
	e.int32(s.dataLength)
	e.int32(s.numChildren)
	e.int64(s.pzxid)
}

// replyHeader is ReplyHeader followed by the reply's body.
func reply(xid int32, zxid int64, err errCode, body []byte) []byte {
	var e encoder
	e.int32(xid)
	e.int64(zxid)
	e.int32(int32(err))
	e.b = append(e.b, body...)
	return e.b
}

// notification is a WatcherEvent sent with xid −1 (zxid −1, as ZooKeeper
// sends it).
func notification(eventType int32, path string) []byte {
	var e encoder
	e.int32(eventType)
	e.int32(stateSyncConnected)
	e.string(path)
	return reply(xidNotification, -1, errOK, e.b)
}

// createRequest is CreateRequest; the ACL is read and kept as read.
type createRequest struct {
	path  string
	data  []byte
	acls  int
	flags int32
}

func decodeCreate(d *decoder) createRequest {
	r := createRequest{path: d.string("path"), data: d.buffer("data")}
	n := d.int32("acl")
	for i := int32(0); i < n && d.err == nil; i++ {
		d.int32("acl.perms")
		d.string("acl.id.scheme")
		d.string("acl.id.id")
		r.acls++
	}
	r.flags = d.int32("flags")
	return r
}

// setWatches is SetWatches: the watches a reconnecting client had.
type setWatches struct {
	relativeZxid       int64
	data, exist, child []string
}

func decodeSetWatches(d *decoder) setWatches {
	return setWatches{relativeZxid: d.int64("relativeZxid"), data: d.strings("dataWatches"),
		exist: d.strings("existWatches"), child: d.strings("childWatches")}
}
