package pgstore_test

import (
	"errors"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/lettershop/lettershop/pgstore"
	"github.com/lettershop/lettershop/storage"
)

// cutProxy forwards TCP connections to the test database until cut, which
// closes the listener and every connection made through it, as a database
// host that went away does.
type cutProxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln}
	t.Cleanup(p.cut)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(s, c); s.Close() }()
			go func() { _, _ = io.Copy(c, s); c.Close() }()
		}
	}()
	return p
}

func (p *cutProxy) cut() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

// storeThroughProxy opens a store on a schema of its own that reaches the
// test database through a cutProxy, closed when the test ends.
func storeThroughProxy(t *testing.T) (*pgstore.Store, *cutProxy) {
	t.Helper()
	u, err := url.Parse(testDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy := newCutProxy(t, u.Host)
	u.Host = proxy.ln.Addr().String()
	s, err := pgstore.Open(t.Context(), u.String(), pgstore.WithSchema(newSchema(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, proxy
}

// A database that cannot be reached, or whose connections broke, fails
// the store's calls with storage.ErrUnavailable, which the service answers
// as a store to retry later; a call the database answered does not.
func TestUnreachableDatabaseIsUnavailable(t *testing.T) {
	t.Parallel()
	s, proxy := storeThroughProxy(t)
	if _, err := s.GetLetter(t.Context(), "acct_1", "ltr_01jzzzzzzzzzzzzzzzzzzzzzzz"); !errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrUnavailable) {
		t.Fatalf("GetLetter of no letter: %v, want only ErrNotFound", err)
	}
	proxy.cut()
	// The pool's connection broke; a new one is refused.
	for range 2 {
		if _, err := s.GetLetter(t.Context(), "acct_1", "ltr_01jzzzzzzzzzzzzzzzzzzzzzzz"); !errors.Is(err, storage.ErrUnavailable) {
			t.Fatalf("GetLetter with the database gone: %v, want ErrUnavailable", err)
		}
	}
	if _, err := s.ListLetters(t.Context(), storage.LetterQuery{Account: "acct_1", Limit: 10}); !errors.Is(err, storage.ErrUnavailable) {
		t.Fatalf("ListLetters with the database gone: %v, want ErrUnavailable", err)
	}
}

// refuse has every connection made through p from now on refused by a
// database that answers its start-up with a FATAL error of code, as one
// does that does not take connections (55000: ALTER DATABASE ...
// ALLOW_CONNECTIONS false), that no longer exists (3D000) or whose
// authentication refuses the server's user (28000, 28P01).
func (p *cutProxy) refuse(code string) {
	p.cut()
	ln, err := net.Listen("tcp", p.ln.Addr().String())
	if err != nil {
		panic(err)
	}
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			be := pgproto3.NewBackend(c, c)
			if _, err := be.ReceiveStartupMessage(); err == nil {
				be.Send(&pgproto3.ErrorResponse{Severity: "FATAL", SeverityUnlocalized: "FATAL", Code: code, Message: "refused for the test"})
				_ = be.Flush()
			}
			c.Close()
		}
	}()
}

// A database that answers the server's new connections with a FATAL error
// (it takes no connections, was dropped, or refuses the server's user) is
// out of reach as one that is down: storage.ErrUnavailable, which the
// service answers 503, never a 500.
func TestDatabaseRefusingConnectionsIsUnavailable(t *testing.T) {
	t.Parallel()
	for _, code := range []string{"55000", "3D000", "28000", "28P01", "42501"} {
		t.Run(code, func(t *testing.T) {
			t.Parallel()
			s, proxy := storeThroughProxy(t)
			proxy.refuse(code)
			for range 2 {
				if _, err := s.GetLetter(t.Context(), "acct_1", "ltr_01jzzzzzzzzzzzzzzzzzzzzzzz"); !errors.Is(err, storage.ErrUnavailable) {
					t.Fatalf("GetLetter with the database refusing connections: %v, want ErrUnavailable", err)
				}
			}
		})
	}
}
