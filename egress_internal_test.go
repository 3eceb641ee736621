package lettershop

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"testing"

	"github.com/lettershop/lettershop/egress"
	"github.com/lettershop/lettershop/memstore"
)

// loopbackNames is an egress.Resolver that puts every name it knows on
// loopback, so that no lookup leaves the machine.
type loopbackNames map[string]bool

func (n loopbackNames) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if !n[host] {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// The Service's fetch client keeps the policy and the options WithEgress
// gave: the client content and images given by URL are fetched with.
func TestServiceFetchFollowsWithEgress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG"))
	}))
	defer srv.Close()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	p, err := egress.Allow("files.test")
	if err != nil {
		t.Fatal(err)
	}
	s := New(memstore.New(), WithEgress(p, egress.WithResolver(loopbackNames{"files.test": true, "other.test": true})))
	defer s.Close()
	got, err := s.fetch.Fetch(t.Context(), "http://files.test:"+u.Port()+"/logo.png", 100)
	if err != nil || string(got.Body) != "\x89PNG" || got.MediaType != "image/png" {
		t.Fatalf("a listed name: %+v, %v", got, err)
	}
	for _, refused := range []string{srv.URL + "/logo.png", "http://other.test:" + u.Port() + "/logo.png"} {
		var e *egress.Error
		if _, err := s.fetch.Fetch(t.Context(), refused, 100); !errors.As(err, &e) || e.Kind != egress.KindRefused {
			t.Errorf("%s: %v, want it refused", refused, err)
		}
	}
	if err := s.egress.CheckHost("other.test"); err == nil {
		t.Error("CheckHost(other.test) passed a name the policy does not list")
	}
}
