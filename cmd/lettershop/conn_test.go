package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rawRequest sends raw bytes to the server at base and reads one answer.
func rawRequest(t *testing.T, base, raw string) (*http.Response, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() { _, _ = io.WriteString(c, raw) }()
	return readAnswer(t, c)
}

func readAnswer(t *testing.T, c net.Conn) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("read answer: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return resp, b
}

// wantProblem fails unless the answer is a problem+json with status.
func wantProblem(t *testing.T, what string, resp *http.Response, body []byte, status int) {
	t.Helper()
	var p struct {
		Type   string
		Status int
		Detail string
	}
	if resp.StatusCode != status || resp.Header.Get("Content-Type") != "application/problem+json" ||
		json.Unmarshal(body, &p) != nil || p.Status != status || p.Type == "" || p.Detail == "" {
		t.Errorf("%s: %d %s %s, want a %d problem", what, resp.StatusCode, resp.Header.Get("Content-Type"), body, status)
	}
}

// Answers net/http makes on its own, before the handler, are problems too.
func TestServerLevelAnswersAreProblems(t *testing.T) {
	base, _ := startServer(t)
	get := func(target string, headers ...string) string {
		return "GET " + target + " HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: sk_test_1\r\n" + strings.Join(headers, "") + "Connection: close\r\n\r\n"
	}
	under := strings.Repeat("a", maxHeaderBytes-1024)
	over := strings.Repeat("a", maxHeaderBytes+5<<10)

	resp, body := rawRequest(t, base, get("/v1/letters", "X-Big: "+under+"\r\n"))
	if resp.StatusCode != http.StatusOK {
		t.Errorf("headers under the limit: %d %s", resp.StatusCode, body)
	}
	resp, body = rawRequest(t, base, get("/v1/letters", "X-Big: "+over+"\r\n"))
	wantProblem(t, "headers over the limit", resp, body, http.StatusRequestHeaderFieldsTooLarge)

	resp, body = rawRequest(t, base, get("/v1/letters?externalId="+under))
	if resp.StatusCode != http.StatusOK {
		t.Errorf("query under the limit: %d %s", resp.StatusCode, body)
	}
	resp, body = rawRequest(t, base, get("/v1/letters?externalId="+over))
	wantProblem(t, "query over the limit", resp, body, http.StatusRequestHeaderFieldsTooLarge)

	var params []string
	for i := range 20000 {
		params = append(params, fmt.Sprintf("p%d=1", i))
	}
	resp, body = rawRequest(t, base, get("/v1/letters?"+strings.Join(params, "&")))
	wantProblem(t, "thousands of parameters", resp, body, http.StatusRequestHeaderFieldsTooLarge)

	resp, body = rawRequest(t, base, "GET /v1/letters HTTP/1.1\r\nHost: localhost\r\nBad Header\r\n\r\n")
	wantProblem(t, "malformed header", resp, body, http.StatusBadRequest)
	resp, body = rawRequest(t, base, "GET /v1/letters HTTP/1.1\r\n\r\n")
	wantProblem(t, "no Host", resp, body, http.StatusBadRequest)
	resp, body = rawRequest(t, base, "GET /v1/letters HTTP/2.5\r\nHost: localhost\r\n\r\n")
	wantProblem(t, "unknown HTTP version", resp, body, http.StatusHTTPVersionNotSupported)

	resp, body = rawRequest(t, base, "POST /v1/assets HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: sk_test_1\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}")
	wantProblem(t, "an Expect other than 100-continue", resp, body, http.StatusExpectationFailed)
	resp, body = rawRequest(t, base, get("/v1//letters"))
	wantProblem(t, "double slash", resp, body, http.StatusNotFound)
	resp, body = rawRequest(t, base, get("/v1/assets/../letters"))
	wantProblem(t, "dot segments", resp, body, http.StatusNotFound)
}

// dialAnswered opens a connection and sends one request on it; it returns
// the connection, still open, and the answer's status.
func dialAnswered(t *testing.T, base string) (net.Conn, *http.Response, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, "GET /v1/letters HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: sk_test_1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, body := readAnswer(t, c)
	return c, resp, body
}

// untilServed dials until a connection is served, for a place given back
// by a closed connection: the server learns of the close on its own time.
func untilServed(t *testing.T, base string) {
	t.Helper()
	for range 500 {
		_, resp, _ := dialAnswered(t, base)
		if resp.StatusCode == http.StatusOK {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no connection was served after one was closed")
}

// A client address holds at most --max-conns-per-client connections: when
// each has a request under way, one more is answered 503 with a problem,
// and a place freed is taken again.
func TestMaxConnsPerClient(t *testing.T) {
	base, _ := startServer(t, "--max-conns-per-client", "2", "--rate-limit", "0")
	first := busyConn(t, base)
	busyConn(t, base)
	_, resp, body := dialAnswered(t, base)
	wantProblem(t, "third connection", resp, body, http.StatusServiceUnavailable)
	if resp.Header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	first.Close()
	untilServed(t, base)
}

// At --max-conns-per-client, as at --max-conns, a new connection of the
// address takes the place of one of the address's that holds it for
// nothing: connections that never send a request cannot keep their
// address's whole requests out.
func TestMaxConnsPerClientShedsWhatNeverCompletedARequest(t *testing.T) {
	base, _ := startServer(t, "--max-conns-per-client", "2", "--rate-limit", "0")
	var quiet []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://")) // sends half a request
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if _, err := io.WriteString(c, "GET /v1/letters HTTP/1.1\r\nHost: localhost\r\n"); err != nil {
			t.Fatal(err)
		}
		quiet = append(quiet, c)
	}
	untilServed(t, base)
	// The older of the two made room.
	_ = quiet[0].SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := quiet[0].Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("the oldest connection that never completed a request is still open: %v", err)
	}
}

// busyConn opens a connection whose request is being served: its handler
// waits for a body that does not come. The 100 Continue the server sends
// when the handler first reads the body says the handler runs.
func busyConn(t *testing.T, base string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, "POST /v1/assets HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: sk_test_1\r\n"+
		"Content-Length: 100\r\nExpect: 100-continue\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "HTTP/1.1 100 ") {
		t.Fatalf("no 100 Continue: %q %v", line, err)
	}
	return c
}

// The server holds at most --max-conns connections in all: when every one
// is serving a request, one more is answered 503 with a problem.
func TestMaxConns(t *testing.T) {
	base, _ := startServer(t, "--max-conns", "3", "--max-conns-per-client", "0", "--rate-limit", "0")
	var conns []net.Conn
	for range 3 {
		conns = append(conns, busyConn(t, base))
	}
	_, resp, body := dialAnswered(t, base)
	wantProblem(t, "fourth connection", resp, body, http.StatusServiceUnavailable)
	if resp.Header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	conns[0].Close()
	untilServed(t, base)
}

// At --max-conns, a new connection takes the place of one that has not
// completed a request before one kept open between requests, however long
// that one has been idle; one serving a request is never closed.
func TestMaxConnsShedsWhatNeverCompletedARequestFirst(t *testing.T) {
	base, _ := startServer(t, "--max-conns", "3", "--max-conns-per-client", "0", "--rate-limit", "0")
	kept, resp, body := dialAnswered(t, base) // answered, kept open: idle the longest
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("first connection: %d %s", resp.StatusCode, body)
	}
	busy := busyConn(t, base)
	quiet, err := net.Dial("tcp", strings.TrimPrefix(base, "http://")) // sends nothing
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { quiet.Close() })
	if _, resp, body := dialAnswered(t, base); resp.StatusCode != http.StatusOK {
		t.Fatalf("a fourth connection: %d %s", resp.StatusCode, body)
	}
	_ = quiet.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := quiet.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("the connection that never sent a request is still open: %v", err)
	}
	// The one kept open still serves its next request.
	if _, err := io.WriteString(kept, "GET /v1/letters HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: sk_test_1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	if resp, body := readAnswer(t, kept); resp.StatusCode != http.StatusOK {
		t.Errorf("the connection kept open, its next request: %d %s", resp.StatusCode, body)
	}
	// The busy one is never shed: its request is answered.
	if _, err := io.WriteString(busy, `{"name":"x","type":"template"}`+strings.Repeat(" ", 100-30)); err != nil {
		t.Fatal(err)
	}
	resp, body = readAnswer(t, busy)
	if resp.StatusCode != http.StatusCreated {
		t.Errorf("the busy connection's request: %d %s", resp.StatusCode, body)
	}
}

// pipeConn is a connection of l over a pipe, not yet taken, and the
// client's end of it.
func pipeConn(t *testing.T, l *limitListener) (*countedConn, net.Conn) {
	t.Helper()
	client, server := net.Pipe()
	t.Cleanup(func() { client.Close(); server.Close() })
	return &countedConn{problemConn: problemConn{server}, l: l, ip: "127.0.0.1"}, client
}

// arrive has the server read what the client sends on c, as net/http
// reads a request.
func arrive(t *testing.T, c *countedConn, client net.Conn, data string) {
	t.Helper()
	go func() { _, _ = io.WriteString(client, data) }()
	if _, err := io.ReadFull(c, make([]byte, len(data))); err != nil {
		t.Fatal(err)
	}
}

// Which connection the listener closes to make room, as the http.Server
// tells it where each stands: one that never completed a request (the
// oldest first), then one kept open between requests (idle the longest
// first); never one whose request has begun: its headers all read (the
// server's active state, before the handler runs), or, kept open, the
// first bytes of its next request read. With none to close, a new
// connection is refused.
func TestLimitListenerSheds(t *testing.T) {
	l := newLimitListener(nil, 5, 0, slog.New(slog.DiscardHandler))
	take := func(c *countedConn) *countedConn {
		t.Helper()
		why, shed, _ := l.take(c)
		if why != "" {
			t.Fatalf("refused: %s", why)
		}
		return shed
	}
	// served has c serve a request, its headers read, and be kept open.
	served := func(c *countedConn, client net.Conn) {
		t.Helper()
		l.connState(c, http.StateNew)
		arrive(t, c, client, "GET / HTTP/1.1\r\n\r\n")
		l.connState(c, http.StateActive)
		arrive(t, c, client, "a body")
		l.connState(c, http.StateIdle)
	}
	keptLong, keptLongClient := pipeConn(t, l)
	begun, begunClient := pipeConn(t, l)
	kept, keptClient := pipeConn(t, l)
	slow, slowClient := pipeConn(t, l)
	headersRead, headersReadClient := pipeConn(t, l)
	for _, c := range []*countedConn{keptLong, begun, kept, slow, headersRead} {
		if shed := take(c); shed != nil {
			t.Fatalf("under the cap, a connection was closed")
		}
	}
	served(keptLong, keptLongClient)
	served(begun, begunClient)
	served(kept, keptClient)
	arrive(t, begun, begunClient, "GET /v1/le") // its next request begins
	arrive(t, slow, slowClient, "GET /v1/le")   // never completes one
	arrive(t, headersRead, headersReadClient, "GET / HTTP/1.1\r\n\r\n")
	l.connState(headersRead, http.StateActive)

	// The slow one goes first; then the new ones, which never completed a
	// request either, each in turn.
	n1, _ := pipeConn(t, l)
	if shed := take(n1); shed != slow {
		t.Fatalf("at the cap, closed %p, want the connection that never completed a request", shed)
	}
	n2, _ := pipeConn(t, l)
	if shed := take(n2); shed != n1 {
		t.Fatalf("at the cap, closed %p, want the newer one that never completed a request", shed)
	}
	// n2's request arrives: the connections kept open go next, the one
	// idle longest first, never the one whose next request has begun.
	l.connState(n2, http.StateActive)
	n3, _ := pipeConn(t, l)
	if shed := take(n3); shed != keptLong {
		t.Fatalf("at the cap, closed %p, want the connection idle the longest", shed)
	}
	l.connState(n3, http.StateActive)
	n4, _ := pipeConn(t, l)
	if shed := take(n4); shed != kept {
		t.Fatalf("at the cap, closed %p, want the other idle one", shed)
	}
	l.connState(n4, http.StateActive)
	n5, _ := pipeConn(t, l)
	if why, shed, _ := l.take(n5); why == "" || shed != nil {
		t.Fatalf("every connection with a request under way: closed %p, refused %q; want a refusal", shed, why)
	}

	// Once begun's request is answered it is idle again; closed, a
	// connection gives its place back.
	l.connState(begun, http.StateActive)
	l.connState(begun, http.StateIdle)
	if shed := take(n5); shed != begun {
		t.Fatalf("at the cap, closed %p, want the one idle again", shed)
	}
	n2.Close()
	n6, _ := pipeConn(t, l)
	if shed := take(n6); shed != nil {
		t.Fatalf("a place given back by a close: closed %p to make room", shed)
	}
}

// A new connection's first request is whole once its headers' empty line
// is read, before the http.Server parses them and says it is active: closed
// in between, the request would be lost with its handler already running
// on what was read (a 499 in the request log). It is not closed to make
// room from then on, however the headers' end was split across reads; one
// whose headers have not ended still is.
func TestLimitListenerKeepsARequestWhoseHeadersEnded(t *testing.T) {
	// atCap has a connection read reads at a cap of one, then a new one
	// arrive: it returns the connection closed to make room, and the
	// refusal of the new one.
	atCap := func(reads []string) (shedFirst bool, why string) {
		l := newLimitListener(nil, 1, 0, slog.New(slog.DiscardHandler))
		c, client := pipeConn(t, l)
		if why, shed, _ := l.take(c); why != "" || shed != nil {
			t.Fatalf("under the cap: refused %q, closed %p", why, shed)
		}
		l.connState(c, http.StateNew)
		for _, r := range reads {
			arrive(t, c, client, r)
		}
		why, shed, _ := l.take(&countedConn{ip: "127.0.0.2", l: l})
		return shed == c, why
	}
	for _, reads := range [][]string{
		{"POST /v1/letters HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}"},
		{"GET / HTTP/1.1\r\nHost: localhost\r\n", "\r\n"},
		{"GET / HTTP/1.1\r\nHost: localhost\r", "\n", "\r", "\n"},
		{"GET / HTTP/1.1\nHost: x\n", "\n"},
	} {
		if shed, why := atCap(reads[:len(reads)-1]); !shed || why != "" {
			t.Errorf("%q: headers not ended: closed it %v, refused %q; want it closed", reads[:len(reads)-1], shed, why)
		}
		if shed, why := atCap(reads); shed || why == "" {
			t.Errorf("%q: headers all read, not yet parsed: closed it %v, refused %q; want a refusal", reads, shed, why)
		}
	}
}

// dialFrom opens a connection to base from the loopback address ip.
func dialFrom(t *testing.T, base, ip string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	c, err := d.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Skipf("cannot dial from %s: %v", ip, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// At the cap of a client address, the connection that makes room is one of
// that address's: another address's, older or idle longer, stays.
func TestLimitListenerShedsOfTheAddress(t *testing.T) {
	l := newLimitListener(nil, 10, 2, slog.New(slog.DiscardHandler))
	of := func(ip string) *countedConn {
		c, _ := pipeConn(t, l)
		c.ip = ip
		return c
	}
	other := of("192.0.2.1") // older than every one of 127.0.0.1's
	a1, a2 := of("127.0.0.1"), of("127.0.0.1")
	for _, c := range []*countedConn{other, a1, a2} {
		if why, shed, _ := l.take(c); why != "" || shed != nil {
			t.Fatalf("under the caps: closed %p, refused %q", shed, why)
		}
	}
	if why, shed, perClient := l.take(of("127.0.0.1")); why != "" || shed != a1 || !perClient {
		t.Fatalf("at the address's cap: closed %p, refused %q; want its oldest connection closed", shed, why)
	}
	// The address's connections with a request under way are not closed.
	l.connState(a2, http.StateActive)
	a3 := l.fresh.Back().Value.(*countedConn)
	l.connState(a3, http.StateActive)
	if why, shed, _ := l.take(of("127.0.0.1")); why == "" || shed != nil {
		t.Fatalf("every connection of the address busy: closed %p, refused %q; want a refusal", shed, why)
	}
	if why, shed, _ := l.take(of("192.0.2.1")); why != "" || shed != nil {
		t.Fatalf("another address under its cap: closed %p, refused %q", shed, why)
	}
}

// The debug line of a connection closed to make room names the cap that
// was reached: the client address's, or the one in all.
func TestLimitListenerLogsTheCapReached(t *testing.T) {
	for _, c := range []struct {
		total, perClient int
		want, not        string
	}{
		{10, 1, "max_conns_per_client=1", "max_conns=10"},
		{1, 0, "max_conns=1", "max_conns_per_client"},
	} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		var log bytes.Buffer
		l := newLimitListener(ln, c.total, c.perClient, slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})))
		for range 2 {
			d, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			a, err := l.Accept()
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
		}
		ln.Close()
		if got := log.String(); !strings.Contains(got, "connection closed to make room") || !strings.Contains(got, c.want) || strings.Contains(got, c.not) {
			t.Errorf("caps %d in all, %d an address: the log says %q; want %s, not %s", c.total, c.perClient, got, c.want, c.not)
		}
	}
}

// Connections that never finish their headers, from a few addresses, fill
// --max-conns; a client that sends whole requests still gets in: each of
// its connections takes the place of the oldest idle one.
func TestSlowConnectionsCannotKeepAClientOut(t *testing.T) {
	base, _ := startServer(t, "--max-conns", "8", "--max-conns-per-client", "4", "--rate-limit", "0")
	var slow []net.Conn
	for _, ip := range []string{"127.0.0.2", "127.0.0.3"} {
		for range 4 {
			c := dialFrom(t, base, ip)
			if _, err := io.WriteString(c, "GET /v1/letters HTTP/1.1\r\nHost: localhost\r\n"); err != nil {
				t.Fatal(err)
			}
			slow = append(slow, c)
		}
	}
	// The server accepts in the order connections were made: the slow
	// ones hold the cap before the client dials.
	for i := range 12 {
		c := dialFrom(t, base, "127.0.0.4")
		if _, err := io.WriteString(c, "GET /v1/letters HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: sk_test_1\r\nConnection: close\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, body := readAnswer(t, c)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d of a client beside slow connections: %d %s", i+1, resp.StatusCode, body)
		}
		// The server closes the connection (Connection: close): its end
		// read, the client's place is free for its next one, which a
		// busy machine could otherwise dial before the server closed it.
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, _ = io.Copy(io.Discard, c)
		c.Close()
	}
	// The slow connections went, oldest first: the first is closed.
	// (The server's header timeout, 10 s, would close it too: wait less.)
	_ = slow[0].SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := slow[0].Read(make([]byte, 1)); err == nil || n > 0 || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("the oldest slow connection is still open: read %d, %v", n, err)
	}
}

// A request with a transfer coding, with or without a Content-Length too,
// is answered with Connection: close and the connection closed: what
// follows it on the connection, which a proxy in front may have framed as
// part of its body, is never served as a request of its own. A request
// framed by its length alone keeps the connection.
func TestTransferCodedRequestClosesTheConnection(t *testing.T) {
	base, _ := startServer(t, "--rate-limit", "0")
	body := `{"name":"x","type":"template"}`
	chunked := strconv.FormatInt(int64(len(body)), 16) + "\r\n" + body + "\r\n0\r\n\r\n"
	next := "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"
	for _, c := range []struct {
		name, head, body string
		closed           bool
	}{
		{"chunked and a length", "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n", chunked, true},
		{"a length and chunked", "Transfer-Encoding: chunked\r\nContent-Length: 4\r\n", chunked, true},
		{"chunked", "Transfer-Encoding: chunked\r\n", chunked, true},
		{"a length", "Content-Length: " + strconv.Itoa(len(body)) + "\r\n", body, false},
	} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		raw := "POST /v1/assets HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: sk_test_1\r\n" + c.head + "\r\n" + c.body + next
		if _, err := io.WriteString(conn, raw); err != nil {
			t.Fatal(err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		rd := bufio.NewReader(conn)
		resp, err := http.ReadResponse(rd, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated || resp.Close != c.closed {
			t.Errorf("%s: %d, Connection: close %t; want 201, %t", c.name, resp.StatusCode, resp.Close, c.closed)
		}
		second, err := http.ReadResponse(rd, nil)
		if c.closed && err == nil {
			t.Errorf("%s: what followed on the connection was answered %d, want the connection closed", c.name, second.StatusCode)
		}
		if !c.closed && (err != nil || second.StatusCode != http.StatusOK) {
			t.Errorf("%s: the next request on the connection: %v, want it answered", c.name, err)
		}
		conn.Close()
	}
}

// deadlineConn records each write's length and the write deadline it was
// made under, and fails a write whose deadline has passed on its clock.
type deadlineConn struct {
	net.Conn
	now      time.Time
	deadline time.Time
	writes   []int
	under    []time.Time
}

func (c *deadlineConn) SetWriteDeadline(t time.Time) error { c.deadline = t; return nil }
func (c *deadlineConn) SetDeadline(t time.Time) error      { c.deadline = t; return nil }
func (c *deadlineConn) Write(b []byte) (int, error) {
	if !c.deadline.IsZero() && !c.now.Before(c.deadline) {
		return 0, os.ErrDeadlineExceeded
	}
	c.writes = append(c.writes, len(b))
	c.under = append(c.under, c.deadline)
	return len(b), nil
}

// An answer is written in pieces of answerPiece bytes, each given
// answerStall from its start, within the server's own write deadline,
// which the connection has again once the write is done: a client that
// takes nothing of a large answer cannot hold its connection, a request
// under way that is never closed to make room, until the write timeout.
func TestAnswerWrittenInPiecesEachWithinItsTime(t *testing.T) {
	start := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	clock := start
	l := newLimitListener(nil, 0, 0, slog.New(slog.DiscardHandler))
	l.now = func() time.Time { clock = clock.Add(time.Second); return clock }
	dc := &deadlineConn{now: start}
	c := &countedConn{problemConn: problemConn{dc}, l: l}

	server := start.Add(time.Minute)
	if err := c.SetWriteDeadline(server); err != nil {
		t.Fatal(err)
	}
	n, err := c.Write(make([]byte, 2*answerPiece+1))
	if err != nil || n != 2*answerPiece+1 {
		t.Fatalf("wrote %d, %v", n, err)
	}
	if want := []int{answerPiece, answerPiece, 1}; fmt.Sprint(dc.writes) != fmt.Sprint(want) {
		t.Errorf("pieces %v, want %v", dc.writes, want)
	}
	for i, d := range dc.under {
		if want := start.Add(time.Duration(i+1)*time.Second + answerStall); !d.Equal(want) {
			t.Errorf("piece %d under the deadline %s, want %s", i, d, want)
		}
	}
	if !dc.deadline.Equal(server) {
		t.Errorf("after the write the deadline is %s, want the server's %s", dc.deadline, server)
	}

	// The server's deadline comes first: it holds.
	dc.writes, dc.under = nil, nil
	early := clock.Add(answerStall / 2)
	_ = c.SetWriteDeadline(early)
	if _, err := c.Write(make([]byte, answerPiece+1)); err != nil || len(dc.under) != 2 || !dc.under[0].Equal(early) || !dc.under[1].Equal(early) {
		t.Errorf("under a server deadline before the stall's: %v, written under %v, want %s", err, dc.under, early)
	}
	// None set by the server: the stall's alone, and none again after.
	_ = c.SetWriteDeadline(time.Time{})
	dc.under = nil
	if _, err := c.Write(make([]byte, answerPiece+1)); err != nil || len(dc.under) != 2 || !dc.under[0].Equal(clock.Add(-time.Second+answerStall)) || !dc.under[1].Equal(clock.Add(answerStall)) {
		t.Errorf("with no server deadline: %v, written under %v", err, dc.under)
	}
	if !dc.deadline.IsZero() {
		t.Errorf("after the write the deadline is %s, want none", dc.deadline)
	}
	// A write of one piece keeps the server's deadline, whatever it is.
	for _, d := range []time.Time{{}, server} {
		_ = c.SetWriteDeadline(d)
		dc.writes, dc.under = nil, nil
		if _, err := c.Write(make([]byte, answerPiece)); err != nil || len(dc.under) != 1 || !dc.under[0].Equal(d) || !dc.deadline.Equal(d) {
			t.Errorf("one piece under the server's deadline %s: %v, written under %v, left %s", d, err, dc.under, dc.deadline)
		}
	}

	// A piece not taken in its time fails the write, with what went out.
	dc.now = clock.Add(answerStall + time.Second) // the client took nothing meanwhile
	dc.writes = nil
	n, err = c.Write(make([]byte, answerPiece+1))
	if !errors.Is(err, os.ErrDeadlineExceeded) || n != 0 {
		t.Errorf("a piece past its time: wrote %d, %v; want a deadline error", n, err)
	}
}

// On a real connection an answer written in pieces arrives whole, to a
// client that reads it.
func TestAnswerInPiecesArrivesWhole(t *testing.T) {
	l := newLimitListener(nil, 0, 0, slog.New(slog.DiscardHandler))
	server, client := net.Pipe()
	t.Cleanup(func() { server.Close(); client.Close() })
	c := &countedConn{problemConn: problemConn{server}, l: l}
	got := make(chan int)
	go func() {
		n, _ := io.Copy(io.Discard, io.LimitReader(client, 3*answerPiece))
		got <- int(n)
	}()
	if n, err := c.Write(make([]byte, 3*answerPiece)); err != nil || n != 3*answerPiece {
		t.Errorf("a client that reads: wrote %d, %v", n, err)
	}
	if n := <-got; n != 3*answerPiece {
		t.Errorf("the client read %d bytes, want %d", n, 3*answerPiece)
	}
}

// Only an answer's first piece is read as one of net/http's error answers
// to rewrite: a piece of a body that happens to look like one is sent as
// it is.
func TestLaterPiecesAreNotRewritten(t *testing.T) {
	l := newLimitListener(nil, 0, 0, slog.New(slog.DiscardHandler))
	server, client := net.Pipe()
	t.Cleanup(func() { server.Close(); client.Close() })
	c := &countedConn{problemConn: problemConn{server}, l: l}
	body := append(bytes.Repeat([]byte("x"), answerPiece), "HTTP/1.1 400 Bad Request"+netHTTPErrorHeaders+"400 Bad Request"...)
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(client, int64(len(body))))
		got <- b
	}()
	if n, err := c.Write(body); err != nil || n != len(body) {
		t.Errorf("wrote %d, %v", n, err)
	}
	if b := <-got; !bytes.Equal(b, body) {
		t.Errorf("the client read %d bytes ending %q, want the %d written", len(b), b[max(0, len(b)-40):], len(body))
	}
}

// At a cap with no connection idle or fresh, one whose client has left a
// piece of its answer untaken for answerShed is closed to make room, the
// one stalled longest first; one stalled for less is not, nor is one that
// is writing nothing.
func TestLimitListenerShedsAStalledAnswer(t *testing.T) {
	for _, perClient := range []bool{false, true} {
		now := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
		l := newLimitListener(nil, 3, 0, slog.New(slog.DiscardHandler))
		if perClient {
			l = newLimitListener(nil, 0, 3, slog.New(slog.DiscardHandler))
		}
		l.now = func() time.Time { return now }
		var conns []*countedConn
		for range 3 {
			c, client := pipeConn(t, l)
			if why, shed, _ := l.take(c); why != "" || shed != nil {
				t.Fatalf("under the cap: %q, %v", why, shed)
			}
			l.connState(c, http.StateNew)
			arrive(t, c, client, "GET / HTTP/1.1\r\n\r\n")
			l.connState(c, http.StateActive)
			conns = append(conns, c)
		}
		busy, stalledLess, stalledLong := conns[0], conns[1], conns[2]
		stalledLess.writing.Store(now.Add(-answerShed + time.Nanosecond).UnixNano())
		stalledLong.writing.Store(now.Add(-answerShed).UnixNano())
		_ = busy // its request is under way, with nothing being written

		n1, _ := pipeConn(t, l)
		if why, shed, _ := l.take(n1); why != "" || shed != stalledLong {
			t.Fatalf("perClient %v: at the cap: %q, closed %p; want the answer stalled for answerShed (%p)", perClient, why, shed, stalledLong)
		}
		l.connState(n1, http.StateActive)
		n2, _ := pipeConn(t, l)
		if why, shed, _ := l.take(n2); why == "" || shed != nil {
			t.Errorf("perClient %v: with none stalled answerShed: %q, closed %p; want a refusal", perClient, why, shed)
		}
		now = now.Add(time.Nanosecond) // stalledLess reaches answerShed
		if why, shed, _ := l.take(n2); why != "" || shed != stalledLess {
			t.Errorf("perClient %v: %q, closed %p; want the one now stalled answerShed (%p)", perClient, why, shed, stalledLess)
		}
	}
}

// Write notes when the piece it writes began, and clears it when done.
func TestWriteNotesItsStall(t *testing.T) {
	now := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	l := newLimitListener(nil, 0, 0, slog.New(slog.DiscardHandler))
	l.now = func() time.Time { return now }
	var seen []int64
	c := &countedConn{l: l}
	c.problemConn = problemConn{&noteConn{write: func() { seen = append(seen, c.writing.Load()) }}}
	if _, err := c.Write(make([]byte, answerPiece+1)); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0] != now.UnixNano() || seen[1] != now.UnixNano() {
		t.Errorf("while writing: %v, want the start of each piece", seen)
	}
	if w := c.writing.Load(); w != 0 {
		t.Errorf("after writing: %d, want 0", w)
	}
	// A write of one piece notes its start too.
	seen = nil
	if _, err := c.Write(make([]byte, 100)); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0] != now.UnixNano() || c.writing.Load() != 0 {
		t.Errorf("one piece: while writing %v, after %d; want its start, then 0", seen, c.writing.Load())
	}
}

// noteConn calls write on each Write, and takes everything.
type noteConn struct {
	net.Conn
	write func()
}

func (c *noteConn) Write(b []byte) (int, error)        { c.write(); return len(b), nil }
func (c *noteConn) SetWriteDeadline(t time.Time) error { return nil }

// A client that speaks HTTP/2 without asking (prior knowledge) is answered
// a 505 problem that says so, and the connection closed; an HTTP/1.x
// request that asks to upgrade to h2c is answered as HTTP/1.1.
func TestHTTP2PrefaceIsRefused(t *testing.T) {
	base, _ := startServer(t, "--rate-limit", "0")
	for _, raw := range []string{
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00",
		"PRI * HTTP/2.0\r\nHost: localhost\r\n\r\nSM\r\n\r\n",
	} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(conn, raw); err != nil {
			t.Fatal(err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, body := readAnswer(t, conn)
		wantProblem(t, "the HTTP/2 preface", resp, body, http.StatusHTTPVersionNotSupported)
		if !resp.Close || !strings.Contains(string(body), "HTTP/2") {
			t.Errorf("%q: Connection: close %t, %s; want the connection closed and HTTP/2 named", raw, resp.Close, body)
		}
		conn.Close()
	}
	resp, body := rawRequest(t, base, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n")
	if resp.StatusCode != http.StatusOK || resp.ProtoMajor != 1 {
		t.Errorf("an h2c upgrade: %s %d %s, want HTTP/1.1 200", resp.Proto, resp.StatusCode, body)
	}
}
