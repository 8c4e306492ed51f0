package k8s

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
)

// APIPort is the port the simulated API server listens on; candidates
// reach it as "http://apiserver:6443".
const APIPort = ":6443"

// leasesResource is the resource the server serves, for its error
// messages ("leases.coordination.k8s.io \"x\" not found").
var leasesResource = schema.GroupResource{Group: coordinationv1.GroupName, Resource: "leases"}

// leasePath is the path of one Lease, and leasesPath the collection's.
const (
	leasesPath = "/apis/coordination.k8s.io/v1/namespaces/{ns}/leases"
	leasePath  = leasesPath + "/{name}"
)

// Recorder is what the API server reports to the history: the processing
// of a request its client named with a gohost.OpRef. *gohost.Node is one;
// a nil Recorder records nothing (plain synctest).
type Recorder interface {
	Processed(ref gohost.OpRef, output history.Payload)
}

// LeaseStore is the API server's storage: Leases by namespace/name, each a
// JSON object with its resourceVersion, and the cluster's resourceVersion
// counter. It lives in a node's durable gohost.Storage (an apiserver's
// etcd), so a restarted server keeps its Leases and never reuses a
// version. It is safe for concurrent use: one request at a time.
type LeaseStore struct {
	mu sync.Mutex
	st *gohost.Storage
}

// NewLeaseStore returns a store over st.
func NewLeaseStore(st *gohost.Storage) *LeaseStore { return &LeaseStore{st: st} }

// outcome is what the store did with one request: the HTTP status, the
// object or metav1.Status to send back, and the cas-record reply.
type outcome struct {
	code  int
	body  runtime.Object
	reply history.Payload
}

// get returns the Lease ns/name.
func (s *LeaseStore) get(ns, name string) outcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.load(ns, name)
	if !ok {
		return failure(apierrors.NewNotFound(leasesResource, name), "get", history.Payload{})
	}
	return success(http.StatusOK, l, "get", recordPayload(l))
}

// create stores l as ns's new Lease, unless one of its name exists.
func (s *LeaseStore) create(ns string, l *coordinationv1.Lease) outcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.Namespace == "" {
		l.Namespace = ns
	}
	switch {
	case l.Name == "" || l.Namespace != ns:
		return failure(apierrors.NewBadRequest(fmt.Sprintf("the namespace of the object (%s) and of the request (%s) differ, or the name is empty", l.Namespace, ns)), "create", history.Payload{})
	case l.ResourceVersion != "":
		return failure(apierrors.NewBadRequest("resourceVersion should not be set on objects to be created"), "create", history.Payload{})
	}
	if _, ok := s.load(ns, l.Name); ok {
		return failure(apierrors.NewAlreadyExists(leasesResource, l.Name), "create", history.Payload{})
	}
	rv := s.nextVersion()
	l.ResourceVersion = rv
	l.UID = types.UID("lease-uid-" + rv)
	l.CreationTimestamp = metav1.NewTime(time.Now().Truncate(time.Second))
	l.Generation = 1
	s.save(l)
	return success(http.StatusCreated, l, "create", history.Payload{Version: rv})
}

// update replaces the Lease ns/name with l if l carries its current
// resourceVersion, as the real apiserver does for a Lease (no create on
// update, no unconditional update).
func (s *LeaseStore) update(ns, name string, l *coordinationv1.Lease) outcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.Namespace == "" {
		l.Namespace = ns
	}
	if l.Name != name || l.Namespace != ns {
		return failure(apierrors.NewBadRequest("the name of the object does not match the name on the URL"), "update", history.Payload{})
	}
	cur, ok := s.load(ns, name)
	switch {
	case !ok:
		return failure(apierrors.NewNotFound(leasesResource, name), "update", history.Payload{})
	case l.ResourceVersion == "":
		return failure(apierrors.NewInvalid(schema.GroupKind{Group: coordinationv1.GroupName, Kind: "Lease"}, name,
			field.ErrorList{field.Invalid(field.NewPath("metadata", "resourceVersion"), l.ResourceVersion,
				"must be specified for an update")}), "update", history.Payload{})
	case l.ResourceVersion != cur.ResourceVersion:
		return failure(apierrors.NewConflict(leasesResource, name,
			errors.New("the object has been modified; please apply your changes to the latest version and try again")),
			"update", history.Payload{})
	}
	rv := s.nextVersion()
	l.ResourceVersion, l.UID, l.CreationTimestamp, l.Generation = rv, cur.UID, cur.CreationTimestamp, cur.Generation
	s.save(l)
	return success(http.StatusOK, l, "update", history.Payload{Version: rv})
}

// load reads a Lease. Callers hold mu.
func (s *LeaseStore) load(ns, name string) (*coordinationv1.Lease, bool) {
	b, ok := s.st.Get("lease/" + ns + "/" + name)
	if !ok {
		return nil, false
	}
	l, err := decodeLease(mediaProtobuf, b)
	if err != nil {
		panic(fmt.Sprintf("k8s: stored lease %s/%s: %v", ns, name, err)) // we wrote it
	}
	return l, true
}

// save writes a Lease. Callers hold mu.
func (s *LeaseStore) save(l *coordinationv1.Lease) {
	b, err := encode(mediaProtobuf, l)
	if err != nil {
		panic(fmt.Sprintf("k8s: lease %s/%s: %v", l.Namespace, l.Name, err))
	}
	s.st.Put("lease/"+l.Namespace+"/"+l.Name, b)
}

// nextVersion returns the next resourceVersion of the cluster. Callers
// hold mu.
func (s *LeaseStore) nextVersion() string {
	var v uint64
	if b, ok := s.st.Get("resourceVersion"); ok {
		v, _ = strconv.ParseUint(string(b), 10, 64)
	}
	v++
	s.st.Put("resourceVersion", []byte(strconv.FormatUint(v, 10)))
	return strconv.FormatUint(v, 10)
}

func success(code int, l *coordinationv1.Lease, op string, reply history.Payload) outcome {
	reply.Kind = op + "_reply"
	l.Kind, l.APIVersion = "Lease", coordinationv1.SchemeGroupVersion.String()
	return outcome{code: code, body: l, reply: reply}
}

// failure is a metav1.Status reply, and its cas-record error code.
func failure(err *apierrors.StatusError, op string, reply history.Payload) outcome {
	st := err.Status()
	st.Kind, st.APIVersion = "Status", "v1"
	reply.Kind = op + "_reply"
	switch st.Reason {
	case metav1.StatusReasonNotFound:
		reply.Err = "not_found"
	case metav1.StatusReasonAlreadyExists:
		reply.Err = "already_exists"
	case metav1.StatusReasonConflict:
		reply.Err = "conflict"
	default:
		reply.Err = "bad_request"
	}
	return outcome{code: int(st.Code), body: &st, reply: reply}
}

// Handler returns the API server's HTTP handler over store: GET, POST and
// PUT of coordination.k8s.io/v1 Leases in JSON, errors as metav1.Status
// as the real apiserver sends them. A request that names a gohost.OpRef in
// its OpHeader is reported to rec as processed, with its cas-record reply.
// Headers that ReproducibleHTTP2 folded into FoldedHeader are unfolded
// first.
func Handler(store *LeaseStore, rec Recorder) http.Handler {
	mux := http.NewServeMux()
	serve := func(w http.ResponseWriter, r *http.Request, op string, do func(*coordinationv1.Lease) outcome) {
		l := &coordinationv1.Lease{}
		out := outcome{}
		if op != "get" {
			body, err := io.ReadAll(r.Body)
			if err == nil {
				l, err = decodeLease(r.Header.Get("Content-Type"), body)
			}
			if err != nil {
				out = failure(apierrors.NewBadRequest(fmt.Sprintf("the body of the request was in an unknown format: %v", err)), op, history.Payload{})
			}
		}
		if out.code == 0 {
			out = do(l)
		}
		if ref, err := gohost.ParseOpRef(r.Header.Get(OpHeader)); err == nil && rec != nil {
			rec.Processed(ref, out.reply)
		}
		mt := negotiate(r.Header.Get("Accept"))
		body, err := encode(mt, out.body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", mt)
		w.WriteHeader(out.code)
		_, _ = w.Write(body)
	}
	mux.HandleFunc("GET "+leasePath, func(w http.ResponseWriter, r *http.Request) {
		serve(w, r, "get", func(*coordinationv1.Lease) outcome { return store.get(r.PathValue("ns"), r.PathValue("name")) })
	})
	mux.HandleFunc("POST "+leasesPath, func(w http.ResponseWriter, r *http.Request) {
		serve(w, r, "create", func(l *coordinationv1.Lease) outcome { return store.create(r.PathValue("ns"), l) })
	})
	mux.HandleFunc("PUT "+leasePath, func(w http.ResponseWriter, r *http.Request) {
		serve(w, r, "update", func(l *coordinationv1.Lease) outcome {
			return store.update(r.PathValue("ns"), r.PathValue("name"), l)
		})
	})
	return unfold(mux)
}

// APIServer is the node function of the simulated Kubernetes API server:
// Handler over the node's durable storage, served with net/http on
// APIPort until ctx ends. Name its node "apiserver" (HistoryConfig.Grantor).
func APIServer(ctx context.Context, n *gohost.Node) error {
	l, err := n.Listen("tcp", APIPort)
	if err != nil {
		return fmt.Errorf("apiserver: %w", err)
	}
	return ServeAPI(ctx, l, NewLeaseStore(n.Storage()), n)
}

// ServeAPI serves Handler on l until ctx ends, then closes the server and
// its connections.
func ServeAPI(ctx context.Context, l net.Listener, store *LeaseStore, rec Recorder) error {
	return serveAPI(ctx, l, store, rec, nil)
}

// serveAPI is ServeAPI, over TLS with cfg unless cfg is nil.
func serveAPI(ctx context.Context, l net.Listener, store *LeaseStore, rec Recorder, cfg *tls.Config) error {
	srv := &http.Server{Handler: Handler(store, rec), ErrorLog: log.New(io.Discard, "", 0), TLSConfig: cfg}
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		srv.Close()
	}()
	var err error
	if cfg != nil {
		err = srv.ServeTLS(l, "", "")
	} else {
		err = srv.Serve(l)
	}
	<-done
	if errors.Is(err, http.ErrServerClosed) || ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("apiserver: %w", err)
}
