//go:build soak

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// soakCounts counts every request the soak sends, by kind and status, and
// keeps a few of the answers that were wrong: a 5xx anywhere, or a status
// a kind does not allow.
type soakCounts struct {
	mu    sync.Mutex
	kinds map[string]*kindCount
	// serverErrors counts 5xx answers; fivexx keeps the first of them.
	serverErrors int
	fivexx       []string
	// unexpected counts answers outside their kind's allowed statuses;
	// odd keeps the first of them.
	unexpected int
	odd        []string
}

// kindCount is what one kind of request got.
type kindCount struct {
	normal    bool // sent by the normal client, from 127.0.0.1
	requests  int64
	netErrors int64
	statuses  map[int]int64
}

func newSoakCounts() *soakCounts { return &soakCounts{kinds: map[string]*kindCount{}} }

func (c *soakCounts) kind(name string, normal bool) *kindCount {
	k := c.kinds[name]
	if k == nil {
		k = &kindCount{normal: normal, statuses: map[int]int64{}}
		c.kinds[name] = k
	}
	return k
}

// add counts one request and its answer (status 0 with err for none).
func (c *soakCounts) add(name string, normal bool, status int, err error, describe func() string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.kind(name, normal)
	k.requests++
	if err != nil {
		k.netErrors++
		return
	}
	k.statuses[status]++
	if status >= 500 {
		c.serverErrors++
		if len(c.fivexx) < 20 {
			c.fivexx = append(c.fivexx, describe())
		}
	}
}

// addRaw counts something that is not a whole request of the client, such
// as a connection, under name with a made-up status.
func (c *soakCounts) addRaw(name string, status int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.kind(name, false)
	k.requests++
	k.statuses[status]++
}

// wrong notes an answer a kind does not allow.
func (c *soakCounts) wrong(what string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.unexpected++
	if len(c.odd) < 20 {
		c.odd = append(c.odd, what)
	}
}

// status returns how many answers of kind had status.
func (c *soakCounts) status(name string, status int) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if k := c.kinds[name]; k != nil {
		return k.statuses[status]
	}
	return 0
}

// normalStatus sums the answers with status to the normal client.
func (c *soakCounts) normalStatus(status int) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int64
	for _, k := range c.kinds {
		if k.normal {
			n += k.statuses[status]
		}
	}
	return n
}

// table writes the counts by kind, one line each, and their total.
func (c *soakCounts) table() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	names := make([]string, 0, len(c.kinds))
	for n := range c.kinds {
		names = append(names, n)
	}
	sort.Strings(names)
	lines := []string{fmt.Sprintf("  %-24s %9s %8s  %s", "kind", "requests", "net err", "statuses")}
	var total, netErrors int64
	for _, n := range names {
		k := c.kinds[n]
		total += k.requests
		netErrors += k.netErrors
		codes := make([]int, 0, len(k.statuses))
		for s := range k.statuses {
			codes = append(codes, s)
		}
		sort.Ints(codes)
		var parts []string
		for _, s := range codes {
			parts = append(parts, strconv.Itoa(s)+": "+strconv.FormatInt(k.statuses[s], 10))
		}
		lines = append(lines, fmt.Sprintf("  %-24s %9d %8d  %s", n, k.requests, k.netErrors, strings.Join(parts, ", ")))
	}
	lines = append(lines, fmt.Sprintf("  %-24s %9d %8d", "all", total, netErrors))
	return lines
}

// soakClient sends requests from one loopback address and counts them.
type soakClient struct {
	http   *http.Client
	counts *soakCounts
	// normal marks the client whose 503s and 429s the report counts: the
	// one that stands for the servers' regular users.
	normal bool
}

// newSoakClient returns a client whose connections come from ip.
func newSoakClient(counts *soakCounts, ip string, normal bool) *soakClient {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	tr := &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 16, DisableCompression: true}
	return &soakClient{http: &http.Client{Timeout: 30 * time.Second, Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		counts: counts, normal: normal}
}

// soakReply is an answer, its body read (up to maxSoakReply bytes).
type soakReply struct {
	status int
	header http.Header
	body   []byte
}

// maxSoakReply is the most of an answer's body the soak reads: far more
// than any answer it expects, so that an answer over it is a finding.
const maxSoakReply = 4 << 20

// send sends req, counting it under kind.
func (c *soakClient) send(kind string, req *http.Request) (soakReply, error) {
	resp, err := c.http.Do(req)
	if err != nil {
		c.counts.add(kind, c.normal, 0, err, nil)
		return soakReply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxSoakReply))
	if err != nil {
		c.counts.add(kind, c.normal, 0, err, nil)
		return soakReply{}, err
	}
	c.counts.add(kind, c.normal, resp.StatusCode, nil, func() string {
		return fmt.Sprintf("%s: %s %s -> %d %s (X-Request-Id %s)", kind, req.Method, req.URL, resp.StatusCode, clip(b, 300), resp.Header.Get("X-Request-Id"))
	})
	return soakReply{resp.StatusCode, resp.Header, b}, nil
}

// call sends a request with a string body and header pairs (name, value).
// A request under way when ctx ends is let finish: the soak never hangs
// up on the server, so that a request the server saw cancelled is a
// finding.
func (c *soakClient) call(ctx context.Context, kind, method, url, key, body string, header ...string) (soakReply, error) {
	req, err := http.NewRequestWithContext(context.WithoutCancel(ctx), method, url, strings.NewReader(body))
	if err != nil {
		return soakReply{}, err
	}
	if key != "" {
		req.Header.Set("X-Api-Key", key)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return c.send(kind, req)
}

// clip returns the start of b, fit to quote in a message.
func clip(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + fmt.Sprintf("... (%d bytes)", len(b))
}
