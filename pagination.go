package lettershop

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
)

// Page sizes.
const (
	DefaultPageSize = 10
	MaxPageSize     = 100
)

// Page is one page of a list, newest first. NextToken is empty on the last
// page; otherwise passing it back continues the list where this page ended.
type Page[T any] struct {
	Items     []T    `json:"items"`
	NextToken string `json:"nextToken,omitempty"`
}

// PageRequest is the paging part of a list request.
type PageRequest struct {
	// PageSize is 1..100; 0 means the default, 10.
	PageSize int
	// NextToken continues a list; it must come from the same list, with the
	// same filters, in the same account.
	NextToken string
}

// cursor is a validated page request: how many to fetch and where to start.
type cursor struct {
	limit  int
	before string // the last id of the previous page; "" for the first
	scope  string // what the token is bound to
}

// The token is base64url(lastID || mac), mac an HMAC-SHA256 (truncated to
// 16 bytes) over the scope and the id. The scope names the account, the list
// and its filters, so a token only continues the walk that made it, and a
// changed byte anywhere makes it invalid.
const tokenMACLen = 16

// pageScope describes one list walk: its account, its list and its filters,
// each part length-prefixed so no two walks share a scope.
func pageScope(account, list string, filters ...string) string {
	var b strings.Builder
	for _, p := range append([]string{account, list}, filters...) {
		b.WriteString(strconv.Itoa(len(p)))
		b.WriteByte(':')
		b.WriteString(p)
	}
	return b.String()
}

// openPage checks a page request against the walk it must belong to. Problems
// are added to f under pageSize and nextToken.
func (s *Service) openPage(req PageRequest, scope string, f fieldErrors) cursor {
	c := cursor{limit: req.PageSize, scope: scope}
	switch {
	case req.PageSize == 0:
		c.limit = DefaultPageSize
	case req.PageSize < 1 || req.PageSize > MaxPageSize:
		f.add("pageSize", "pageSize must be between 1 and %d, got %d", MaxPageSize, req.PageSize)
	}
	if req.NextToken != "" {
		id, ok := s.verifyToken(req.NextToken, scope)
		if !ok {
			f.add("nextToken", "nextToken is not valid for this list; start again without it")
		}
		c.before = id
	}
	return c
}

// closePage trims a fetch of limit+1 items to a page and mints the token that
// continues after it.
func closePage[T any](s *Service, c cursor, items []T, idOf func(T) string) Page[T] {
	p := Page[T]{Items: items}
	if len(items) > c.limit {
		p.Items = items[:c.limit]
		p.NextToken = s.signToken(c.scope, idOf(p.Items[c.limit-1]))
	}
	if p.Items == nil {
		p.Items = []T{}
	}
	return p
}

func (s *Service) tokenMAC(scope, id string) []byte {
	m := hmac.New(sha256.New, s.tokenKey)
	m.Write([]byte(scope))
	m.Write([]byte{0})
	m.Write([]byte(id))
	return m.Sum(nil)[:tokenMACLen]
}

func (s *Service) signToken(scope, id string) string {
	return base64.RawURLEncoding.EncodeToString(append([]byte(id), s.tokenMAC(scope, id)...))
}

func (s *Service) verifyToken(token, scope string) (string, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) <= tokenMACLen {
		return "", false
	}
	id, mac := string(raw[:len(raw)-tokenMACLen]), raw[len(raw)-tokenMACLen:]
	if !hmac.Equal(mac, s.tokenMAC(scope, id)) {
		return "", false
	}
	return id, true
}
