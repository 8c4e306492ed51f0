package k8s

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/leasesim/leasesim/gohost"
)

// SecureAPIHost is the URL of the API server as SecureAPIServer serves it:
// HTTPS, as a cluster's kubelets reach theirs.
const SecureAPIHost = "https://" + APIServerName + APIPort

// servingCert is the API server's serving certificate: a self-signed
// Ed25519 certificate for APIServerName, made from a fixed key seed, so
// every run and every process has the same one (Ed25519 signatures are
// deterministic) and no key file is stored. It is valid from 1999 to 2100,
// around the synctest bubble's clock (2000).
var servingCert = sync.OnceValues(func() (tls.Certificate, []byte) {
	seed := sha256.Sum256([]byte("leasesim zoo/k8s simulated API server"))
	key := ed25519.NewKeyFromSeed(seed[:])
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: APIServerName},
		DNSNames:              []string{APIServerName},
		NotBefore:             time.Date(1999, time.January, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:              time.Date(2100, time.January, 1, 0, 0, 0, 0, time.UTC),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(nil, tmpl, tmpl, key.Public(), key)
	if err != nil {
		panic(fmt.Sprintf("k8s: serving certificate: %v", err)) // a fixed template and key
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key},
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
})

// TLSClientConfig is what a client of SecureAPIServer trusts: the serving
// certificate as its CA, as a kubeconfig's certificate-authority-data.
// client-go then negotiates HTTP/2 by ALPN, as against a real API server
// (wrap its transport in ReproducibleHTTP2); NextProtos ["http/1.1"]
// keeps it on HTTP/1.1, as DISABLE_HTTP2 does.
func TLSClientConfig() rest.TLSClientConfig {
	_, ca := servingCert()
	return rest.TLSClientConfig{CAData: ca, ServerName: APIServerName}
}

// SecureAPIServer is APIServer over TLS with ALPN, as a real API server
// serves: HTTP/2 ("h2") to a client that offers it, HTTP/1.1 otherwise
// (net/http's server, which configures HTTP/2 for ServeTLS). Its clients
// use SecureAPIHost and TLSClientConfig. The handshakes draw from
// crypto/rand: a run is deterministic only with
// gohost.Config.SeedCryptoRand.
func SecureAPIServer(ctx context.Context, n *gohost.Node) error {
	l, err := n.Listen("tcp", APIPort)
	if err != nil {
		return fmt.Errorf("apiserver: %w", err)
	}
	cert, _ := servingCert()
	return serveAPI(ctx, l, NewLeaseStore(n.Storage()), n, &tls.Config{Certificates: []tls.Certificate{cert},
		NextProtos: []string{"h2", "http/1.1"}})
}

// The certificate is made when the package loads, outside any run: a run
// that made it first would draw differently from crypto/rand than the
// runs after it, if making it drew.
func init() { servingCert() }
