package main

import (
	"bytes"
	"container/list"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lettershop/lettershop/httpadapter"
)

// The server's answers that come from net/http itself rather than from the
// handler (a 431 for headers over MaxHeaderBytes, a 400 for a request it
// cannot parse) are plain text. problemConn rewrites them into the API's
// problem+json, and limitListener refuses connections over its caps with a
// problem too, so that every answer the server gives has the API's shape.

// netHTTPErrorHeaders is what net/http writes after the status line of an
// answer it makes before any handler runs, in one write on the bare
// connection. Responses of the handler never hold it: their headers are
// sorted, so Connection would come before Content-Type, and they always
// carry X-Api-Version.
const netHTTPErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// netHTTPMissingHost is the body of net/http's answer to an HTTP/1.1
// request without a Host header.
const netHTTPMissingHost = "400 Bad Request: missing required Host header"

// netHTTPExpectationFailed begins, and netHTTPEmptyEnd ends, net/http's
// answer to a request whose Expect it does not know (anything but
// 100-continue), made before any handler runs through its response writer
// and written at once: the status line, Connection, Date and an empty body.
const (
	netHTTPExpectationFailed = "HTTP/1.1 417 Expectation Failed\r\nConnection: close\r\nDate: "
	netHTTPEmptyEnd          = "\r\nContent-Length: 0\r\n\r\n"
)

// problemConn rewrites net/http's plain-text error answers on its way out.
type problemConn struct {
	net.Conn
}

func (c problemConn) Write(b []byte) (int, error) {
	if out, ok := rewriteNetHTTPError(b); ok {
		if _, err := c.Conn.Write(out); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	return c.Conn.Write(b)
}

// rewriteNetHTTPError turns one of net/http's plain-text error answers into
// a problem+json answer with the same status.
func rewriteNetHTTPError(b []byte) ([]byte, bool) {
	if date, ok := bytes.CutPrefix(b, []byte(netHTTPExpectationFailed)); ok {
		date, ok = bytes.CutSuffix(date, []byte(netHTTPEmptyEnd))
		if !ok || bytes.IndexByte(date, '\n') >= 0 {
			return nil, false
		}
		return problemAnswer(http.StatusExpectationFailed, "the request's Expect header asks for what this server does not do: it knows only 100-continue", nil, nil), true
	}
	rest, ok := bytes.CutPrefix(b, []byte("HTTP/1.1 "))
	if !ok {
		return nil, false
	}
	line, body, ok := bytes.Cut(rest, []byte(netHTTPErrorHeaders))
	if !ok || bytes.IndexByte(line, '\n') >= 0 || len(line) < 3 {
		return nil, false
	}
	code, err := strconv.Atoi(string(line[:3]))
	if err != nil || code < 400 || code > 599 {
		return nil, false
	}
	detail := string(body)
	var fields map[string]string
	switch {
	case code == http.StatusRequestHeaderFieldsTooLarge:
		detail = "the request line and headers are over their limit of " + strconv.Itoa(maxHeaderBytes>>10) + " KiB"
	case code == http.StatusBadRequest && detail == netHTTPMissingHost:
		fields = map[string]string{"Host": "is missing: an HTTP/1.1 request names the server it is for (only HTTP/1.0 may leave Host out)"}
		detail = "the request is invalid; Host: " + fields["Host"]
	}
	return problemAnswer(code, detail, fields, nil), true
}

// problemTypes names the problem (its code member) of the statuses
// net/http or the listener answer on their own.
var problemTypes = map[int]string{
	http.StatusBadRequest:                  "invalid-request",
	http.StatusExpectationFailed:           "expectation-failed",
	http.StatusRequestHeaderFieldsTooLarge: "headers-too-large",
	http.StatusServiceUnavailable:          "too-many-connections",
	http.StatusHTTPVersionNotSupported:     "http-version-not-supported",
	http.StatusNotImplemented:              "not-implemented",
}

// problemAnswer is a whole HTTP/1.1 answer, closing the connection, whose
// body is a problem.
func problemAnswer(code int, detail string, fields map[string]string, extra http.Header) []byte {
	name := problemTypes[code]
	if name == "" {
		name = "http-error"
	}
	body := httpadapter.ProblemBody(code, name, detail, fields)
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 " + strconv.Itoa(code) + " " + http.StatusText(code) + "\r\n")
	h := http.Header{}
	for k, v := range extra {
		h[k] = v
	}
	h.Set("Content-Type", "application/problem+json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Connection", "close")
	h.Set("X-Api-Version", httpadapter.APIVersion)
	answerHeaders(h)
	_ = h.Write(&b)
	b.WriteString("\r\n")
	b.Write(body)
	return b.Bytes()
}

// refuseWriteTimeout bounds the write of a refusal to a connection over
// the caps, so a client that reads nothing cannot hold the accept loop.
const refuseWriteTimeout = time.Second

// limitListener caps the connections open at once, in all and per client
// address. At either cap, a new connection takes the place of one (of its
// address, at the address's cap) that holds its place for nothing,
// which is closed: first the oldest of those that have not yet completed a
// request (headers sent a byte at a time, or nothing at all), then the one
// idle longest of those kept open between requests. A connection whose
// request has begun is not closed to make room: one serving a request,
// one whose request's headers have all arrived, and one kept open whose
// next request's first bytes have arrived; but last, one whose client has
// left a piece of its answer untaken for answerShed, and holds its place
// for nothing as surely as an idle one (see countedConn.Write). Connections that never finish a
// request therefore cannot keep out a client that sends whole requests,
// nor cost it a request it sent; only when every connection (of the
// address) has a request under way is a new one answered 503 with a
// problem and closed at once, rather than left waiting: its client learns
// why, and holds nothing of the server. The http.Server tells it where each
// connection stands through connState. Every connection it hands out is a
// problemConn.
type limitListener struct {
	net.Listener
	// total and perClient are the caps; 0 is no cap.
	total, perClient int
	// now is the clock a connection's writes take their deadlines from.
	now func() time.Time
	// logger notes connections closed to make room, at debug.
	logger *slog.Logger

	mu   sync.Mutex
	open int
	byIP map[string]int
	// fresh holds the connections that have not completed a request and
	// have none under way, the oldest at the front; idle those between
	// requests, kept open, the one idle longest at the front. The
	// connections in neither are not closed to make room, but one whose
	// client has not taken a piece of its answer for answerShed (stalled).
	fresh, idle list.List
	// conns holds every connection counted, for stalled.
	conns map[*countedConn]struct{}
}

func newLimitListener(ln net.Listener, total, perClient int, logger *slog.Logger) *limitListener {
	return &limitListener{Listener: ln, total: total, perClient: perClient, byIP: map[string]int{}, logger: logger, now: time.Now, conns: map[*countedConn]struct{}{}}
}

// Accept implements net.Listener.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		cc := &countedConn{problemConn: problemConn{c}, l: l, ip: clientIP(c.RemoteAddr())}
		why, shed, perClient := l.take(cc)
		if shed != nil {
			// Name the cap that was reached: the address's, or the one in all.
			if perClient {
				l.logger.Debug("connection closed to make room", "remote", shed.RemoteAddr().String(), "max_conns_per_client", l.perClient)
			} else {
				l.logger.Debug("connection closed to make room", "remote", shed.RemoteAddr().String(), "max_conns", l.total)
			}
			_ = shed.problemConn.Conn.Close()
		}
		if why != "" {
			go refuse(c, why)
			continue
		}
		return cc, nil
	}
}

// take counts the new connection c, or says why it is over a cap. At a
// cap it gives back the place of a connection that holds it for nothing,
// which the caller closes; perClient says it was the address's cap.
func (l *limitListener) take(c *countedConn) (why string, shed *countedConn, perClient bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.perClient > 0 && l.byIP[c.ip] >= l.perClient {
		// At the address's cap, as at the cap in all: the address's own
		// connection that holds its place for nothing makes room.
		if shed = l.idlest(c.ip); shed == nil {
			shed = l.stalled(c.ip)
		}
		if shed == nil {
			return "this client address has " + strconv.Itoa(l.perClient) + " connections open, each with a request under way, as many as one address may; retry shortly", nil, false
		}
		l.releaseLocked(shed)
		perClient = true
	}
	if l.total > 0 && l.open >= l.total {
		switch {
		case l.fresh.Len() > 0:
			shed = l.fresh.Front().Value.(*countedConn)
		case l.idle.Len() > 0:
			shed = l.idle.Front().Value.(*countedConn)
		default:
			shed = l.stalled("")
		}
		if shed == nil {
			return "the server has " + strconv.Itoa(l.total) + " connections open, each with a request under way, as many as it takes; retry shortly", nil, false
		}
		l.releaseLocked(shed)
	}
	l.open++
	l.conns[c] = struct{}{}
	l.byIP[c.ip]++
	l.placeLocked(c, &l.fresh)
	c.heading = true
	return "", shed, perClient
}

// idlest returns the connection of address ip that holds its place for
// nothing, the one to close first (as take chooses one in all), or nil.
// It is looked for only at the address's cap, so a walk of the lists
// does.
func (l *limitListener) idlest(ip string) *countedConn {
	for _, lst := range []*list.List{&l.fresh, &l.idle} {
		for e := lst.Front(); e != nil; e = e.Next() {
			if c := e.Value.(*countedConn); c.ip == ip {
				return c
			}
		}
	}
	return nil
}

// stalled returns the connection (of address ip, or any when ip is "")
// whose client has left a piece of its answer untaken longest, if that is
// answerShed or more: it holds its place for nothing as surely as an idle
// one. It is looked for only at a cap with nothing else to close.
func (l *limitListener) stalled(ip string) *countedConn {
	var oldest *countedConn
	var since int64
	limit := l.now().Add(-answerShed).UnixNano()
	for c := range l.conns {
		if w := c.writing.Load(); w != 0 && w <= limit && (ip == "" || c.ip == ip) && (oldest == nil || w < since) {
			oldest, since = c, w
		}
	}
	return oldest
}

// release gives c's place back, once.
func (l *limitListener) release(c *countedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.releaseLocked(c)
}

func (l *limitListener) releaseLocked(c *countedConn) {
	if c.released {
		return
	}
	c.released = true
	delete(l.conns, c)
	c.between.Store(false)
	l.unplaceLocked(c)
	l.open--
	if l.byIP[c.ip]--; l.byIP[c.ip] <= 0 {
		delete(l.byIP, c.ip)
	}
}

// placeLocked puts c at the back of to, l.fresh or l.idle.
func (l *limitListener) placeLocked(c *countedConn, to *list.List) {
	l.unplaceLocked(c)
	c.place, c.in = to.PushBack(c), to
}

// unplaceLocked takes c out of the list it is in, if any: it is not
// closed to make room.
func (l *limitListener) unplaceLocked(c *countedConn) {
	if c.place != nil {
		c.in.Remove(c.place)
		c.place, c.in = nil, nil
	}
}

// connState is the http.Server's ConnState. A connection is active once a
// request's headers have all arrived, before the handler runs, until the
// answer is written: its request is under way. It is idle between
// requests, kept open, until the first byte of the next one arrives
// (begun).
func (l *limitListener) connState(nc net.Conn, state http.ConnState) {
	c, ok := nc.(*countedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch state {
	case http.StateActive, http.StateHijacked:
		c.between.Store(false)
		c.heading = false
		l.unplaceLocked(c)
	case http.StateIdle:
		if !c.released {
			l.placeLocked(c, &l.idle)
			c.between.Store(true)
		}
	}
}

// begun notes that a request of c is under way, and c is not closed to
// make room: the next request of a connection kept open between requests
// has begun to arrive, or a new connection's first request has all its
// headers read. The http.Server says so too once it has parsed them
// (StateActive), but the request is whole before then: closed in between,
// it would be lost with its handler already running on what was read.
func (l *limitListener) begun(c *countedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.unplaceLocked(c)
}

// refuse answers a connection over a cap and closes it. It reads what the
// client sent meanwhile (for up to refuseWriteTimeout), so that closing
// does not reset the connection before the client has read the answer.
func refuse(c net.Conn, why string) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(refuseWriteTimeout))
	if _, err := c.Write(problemAnswer(http.StatusServiceUnavailable, why, nil, http.Header{"Retry-After": {"1"}})); err != nil {
		return
	}
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(c, maxHeaderBytes))
}

// clientIP is the address a connection comes from, without its port.
func clientIP(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok {
		return ta.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}

// countedConn gives its place back to the listener when closed, once,
// and tells it when a request begins to arrive on it between requests.
type countedConn struct {
	problemConn
	l  *limitListener
	ip string
	// between is set while the connection is kept open between requests:
	// a byte read then is the next request's, which has begun.
	between atomic.Bool
	// Used by the reading goroutine only: heading is set until the first
	// request's headers have all been read (the empty line that ends
	// them), and tail holds the last two bytes read before then.
	heading bool
	tail    [2]byte
	// Under l.mu: its place in l.fresh or l.idle (nil in neither), the
	// list it is in, and whether its place was given back.
	place    *list.Element
	in       *list.List
	released bool
	// deadline is the write deadline the http.Server set, in Unix
	// nanoseconds, 0 for none: Write keeps within it.
	deadline atomic.Int64
	// writing is when the piece of an answer being written began, in Unix
	// nanoseconds, 0 between pieces.
	writing atomic.Int64
}

// An answer is written in pieces of at most answerPiece bytes, each of which
// the client must take within answerStall. A connection is never closed to
// make room while its request is under way, and its answer is under way
// until its last byte is out: without this, a client that asks for a large
// answer and reads none of it would hold its place until the 60 s write
// timeout, and a few hundred such connections would keep every other
// client out (503) for as long as they are opened again. A client must now
// take 256 KiB every 10 s to hold one; one that reads at all keeps up (a
// page of 100 letters is one piece, written as it was). And
// at a cap with no connection idle, one whose client has left a piece
// untaken for answerShed is closed to make room, as an idle one would be.
const (
	answerPiece = 256 << 10
	answerStall = 10 * time.Second
	answerShed  = 5 * time.Second
)

// Write writes b in pieces of at most answerPiece bytes, each given until
// answerStall from when it starts, or the server's own deadline if that
// comes first. A piece that is not taken in its time fails the write, and
// net/http closes the connection. A write of one piece (most answers, and
// each of net/http's buffered writes) keeps the server's deadline, so that
// it costs no change of deadlines: a socket's buffer takes it unless the
// client has left earlier ones untaken, and such a connection is closed to
// make room at a cap once it waited answerShed, as a larger one's is.
func (c *countedConn) Write(b []byte) (int, error) {
	if len(b) <= answerPiece {
		c.writing.Store(c.l.now().UnixNano())
		defer c.writing.Store(0)
		return c.problemConn.Write(b)
	}
	var written int
	defer c.restoreDeadline()
	defer c.writing.Store(0)
	for first := true; first || written < len(b); first = false {
		piece := b[written:min(len(b), written+answerPiece)]
		now := c.l.now()
		c.writing.Store(now.UnixNano())
		stall := now.Add(answerStall)
		if d := c.deadline.Load(); d != 0 && d < stall.UnixNano() {
			stall = time.Unix(0, d)
		}
		if err := c.problemConn.Conn.SetWriteDeadline(stall); err != nil {
			return written, err
		}
		// The first piece goes through problemConn, which rewrites
		// net/http's error answers: those are small, written at once. The
		// others are an answer's body, written as they are.
		write := c.problemConn.Conn.Write
		if first {
			write = c.problemConn.Write
		}
		n, err := write(piece)
		written += n
		if err != nil {
			return written, err
		}
	}
	return written, nil
}

// restoreDeadline gives the connection back the server's write deadline.
func (c *countedConn) restoreDeadline() {
	var t time.Time
	if d := c.deadline.Load(); d != 0 {
		t = time.Unix(0, d)
	}
	_ = c.problemConn.Conn.SetWriteDeadline(t)
}

// SetWriteDeadline notes the server's write deadline, which Write keeps
// within, and sets it.
func (c *countedConn) SetWriteDeadline(t time.Time) error {
	c.noteDeadline(t)
	return c.problemConn.Conn.SetWriteDeadline(t)
}

// SetDeadline notes the write deadline as SetWriteDeadline does.
func (c *countedConn) SetDeadline(t time.Time) error {
	c.noteDeadline(t)
	return c.problemConn.Conn.SetDeadline(t)
}

func (c *countedConn) noteDeadline(t time.Time) {
	if t.IsZero() {
		c.deadline.Store(0)
	} else {
		c.deadline.Store(t.UnixNano())
	}
}

// Read notes the first bytes of a request read between requests, and the
// end of a new connection's first headers.
func (c *countedConn) Read(b []byte) (int, error) {
	n, err := c.problemConn.Read(b)
	switch {
	case n == 0:
	case c.between.CompareAndSwap(true, false):
		c.l.begun(c)
	case c.heading && c.headersEnd(b[:n]):
		c.heading = false
		c.l.begun(c)
	}
	return n, err
}

// headersEnd reports whether b, read after what c read before, holds the
// empty line that ends a request's headers (CRLF CRLF, or bare LFs), and
// keeps b's last bytes for the next read.
func (c *countedConn) headersEnd(b []byte) bool {
	var edge [4]byte
	copy(edge[:2], c.tail[:])
	m := copy(edge[2:], b)
	found := emptyLine(edge[:2+m]) || emptyLine(b)
	if len(b) >= 2 {
		c.tail = [2]byte{b[len(b)-2], b[len(b)-1]}
	} else {
		c.tail = [2]byte{c.tail[1], b[0]}
	}
	return found
}

// emptyLine reports whether b holds an empty line after a line's end.
func emptyLine(b []byte) bool {
	return bytes.Contains(b, []byte("\n\r\n")) || bytes.Contains(b, []byte("\n\n"))
}

func (c *countedConn) Close() error {
	// Released first: a client that reads the connection's end and dials
	// again at once finds its place free.
	c.l.release(c)
	return c.problemConn.Close()
}

// CloseWrite lets net/http half-close the connection after an error
// answer, as it does on a bare TCP connection.
func (c *countedConn) CloseWrite() error {
	if cw, ok := c.problemConn.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// refuseHTTP2 answers the one HTTP/2 request net/http hands a handler, the
// preface of a client that speaks HTTP/2 without asking first ("prior
// knowledge", PRI * HTTP/2.0), with a 505 problem that says so, and closes
// the connection, on which HTTP/2 frames would follow. It came before the
// Host guard, which answered it that Host was empty, or to a route, which
// answered it 404 and kept the connection open.
func refuseHTTP2(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 1 {
			next.ServeHTTP(w, r)
			return
		}
		body := httpadapter.ProblemBody(http.StatusHTTPVersionNotSupported, problemTypes[http.StatusHTTPVersionNotSupported],
			"this server speaks HTTP/1.1 (and 1.0): HTTP/2, with prior knowledge or by upgrade (h2c), is not served", nil)
		h := w.Header()
		h.Set("Connection", "close")
		h.Set("Content-Type", "application/problem+json")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		h.Set("X-Api-Version", httpadapter.APIVersion)
		w.WriteHeader(http.StatusHTTPVersionNotSupported)
		_, _ = w.Write(body)
	})
}

// closeAfterTransferCoding closes the connection after answering a request
// whose body came with a Transfer-Encoding. Such a request may also have
// carried a Content-Length, which net/http drops without a word, framing
// the body by the transfer coding; a proxy in front that framed it by the
// length would then read what follows differently, a second request
// smuggled inside the first. RFC 9112 (section 6.1) has a server close the
// connection after answering one with both; as the length is gone by the
// time a handler runs, every request with a transfer coding is treated
// so, which costs a client that chunks its bodies a new connection each.
func closeAfterTransferCoding(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.TransferEncoding) > 0 {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
}
